"""The ball picker (``picker.kv``): which ball dropped unseen, named by a tap."""

from __future__ import annotations

from scoreboard.ui.viewmodel import View
from scoreboard.ui.widgets import DevetkaScreen, fill_balls


class PickerScreen(DevetkaScreen):
    """The ball picker for a ball that dropped unseen: a tap sends ``identify``."""

    def show(self, current: View) -> None:
        picker = current.picker
        fill_balls(self.ids.candidates, [(b, {"type": "identify", "ball": b.number})
                                         for b in (picker.candidates if picker is not None else ())])
