"""The live scoreboard (``live.kv``): players, the shooter, the balls, the ruling, the buttons of play."""

from __future__ import annotations

from scoreboard.ui.viewmodel import View
from scoreboard.ui.widgets import DevetkaScreen, fill_balls


class LiveScreen(DevetkaScreen):
    """The live scoreboard: players, the shooter, the balls, the ruling, the buttons of play."""

    def show(self, current: View) -> None:
        fill_balls(self.ids.balls, [(b, None) for b in current.balls])
