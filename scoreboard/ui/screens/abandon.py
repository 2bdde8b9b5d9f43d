"""The match on the table left unfinished (``abandon.kv``): asked before a new match or another resumed replaces
it; once confirmed, it stays in tonight's results, to be resumed."""

from __future__ import annotations

from typing import Any

from kivy.app import App

from scoreboard.ui.widgets import DevetkaScreen


class AbandonScreen(DevetkaScreen):
    """Asks the players, naming the match by its score (``View.abandon_text``); ``waiting`` goes once confirmed."""

    waiting: dict[str, Any] | None = None
    """The request (a new match, a resume) waiting for the match on the table to be left unfinished
    (``DevetkaApp.leaving``)."""

    def leave_unfinished(self) -> None:
        """Confirmed: the match on the table is left unfinished, and the new match (or the one resumed) begins."""
        request, self.waiting = self.waiting, None
        if request is not None:
            App.get_running_app().send(request)
