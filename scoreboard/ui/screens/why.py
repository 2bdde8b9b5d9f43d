""""Why?" (``why.kv``): the rules the last ruling cites, and the ruling whole."""

from __future__ import annotations

from typing import Any

from scoreboard.ui.widgets import DevetkaScreen


class WhyScreen(DevetkaScreen):
    """"Why?": the rules the last ruling cites (``View.why_text``), opened by a tap on the ruling."""

    def on_pre_enter(self, *_args: Any) -> None:
        self.ids.scroll.scroll_y = 1
