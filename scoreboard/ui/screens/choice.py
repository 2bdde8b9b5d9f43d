"""The opponent's choice after a push out (``choice.kv``, 5.6): play on or hand the shot back."""

from __future__ import annotations

from scoreboard.ui.viewmodel import View
from scoreboard.ui.widgets import DevetkaScreen, fill_balls


class ChoiceScreen(DevetkaScreen):
    """After a push out (5.6): the opponent's two big choices, with the score and the balls still in sight."""

    def show(self, current: View) -> None:
        fill_balls(self.ids.balls, [(b, None) for b in current.balls])
