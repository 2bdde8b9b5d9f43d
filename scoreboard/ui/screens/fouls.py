"""The foul menu (``fouls.kv``): a reason per button; a ball off the table by tapping the ball."""

from __future__ import annotations

from scoreboard.ui.viewmodel import View
from scoreboard.ui.widgets import DevetkaScreen, fill_balls


class FoulsScreen(DevetkaScreen):
    """The foul menu: a reason per button; a ball off the table by tapping the ball."""

    def show(self, current: View) -> None:
        fill_balls(self.ids.off_table, [(b, button.request if button.enabled else None)
                                        for b, button in current.off_table])
