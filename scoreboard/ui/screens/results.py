"""Tonight's results at this table (``results.kv``): the matches, and one's result as a QR code for a phone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from scoreboard.contract.read import given
from scoreboard.contract.records import Answer, State
from scoreboard.ui.language import tr
from scoreboard.ui.night import NightRow, board_note, chosen_row, code_note, night_rows
from scoreboard.ui.qr import modules, result_code
from scoreboard.ui.widgets import DevetkaScreen

if TYPE_CHECKING:  # the App imports the screens
    from scoreboard.ui.app import Heard

EVENT = -1
"""The results screen's entry for the night's event (``[venue] url``), not a match of this table."""


class ResultsScreen(DevetkaScreen):
    """Tonight's matches at this table, the latest first, and the QR code of one's result for a phone: both asked
    of the daemon (``{"cmd": "results"}``, ``{"cmd": "result", "match": ID}``); a tap on a match shows its code.
    Where the daemon serves the night's event's page on the venue's board (``event_page``: ``[venue] url`` in its
    config) the list begins with it, its code opening the board's ``?event`` view on a phone (issue 32). Where it
    serves a match's page there (``board``) a button switches the code between that page's address and the JSON
    result (issue 33)."""

    selected = NumericProperty(0)
    """The match whose code is shown (or asked for); 0: none."""
    note = StringProperty("")
    """What the code holds, or why there is none."""
    board = StringProperty("")
    """The chosen match's page on the venue's board, as the daemon serves it; empty: none served."""
    showing_board = BooleanProperty(False)
    """The code holds the match's page on the venue's board (else its JSON result): kept from match to match."""
    served: State | None = None
    """The daemon's answer for the chosen match (its ``result``, ``compact`` and ``board``)."""
    event_page: str | None = None
    """The night's event's page on the venue's board, as the daemon served it with tonight's results."""

    def on_pre_enter(self, *_args: Any) -> None:
        self.selected = 0
        self.event_page = None
        self._fill(())
        self.note = tr._("Asking the referee for tonight's results…")
        App.get_running_app().send({"cmd": "results"})

    def answered(self, request: dict[str, Any], heard: Heard) -> None:
        """The daemon's answer (``DevetkaApp.heard``) to a ``results`` or ``result`` request sent from here."""
        if not isinstance(heard, Answer):
            if request.get("cmd") == "results" or request.get("match") == self.selected:
                self.note = App.get_running_app().words_of(heard)
            return
        state = heard.state
        if request.get("cmd") == "results":
            self.event_page = _text(state.event_page) or None
            rows = night_rows(given(state.results), language=tr.language)
            self._fill(rows)
            first = chosen_row(rows, state.match_id)
            if first is not None:
                self.pick(first)
            elif self._event_url() is not None:
                self.pick(EVENT)
            else:
                self.note = tr._("No match was played at this table tonight.")
        elif given(state.match) == self.selected:  # else a later tap asked for another match's code
            self.served = state
            self.board = _text(state.board)
            self._draw_code()

    def switch(self) -> None:
        """The button beside Back: the code of the match's page on the venue's board, or of its JSON result."""
        self.showing_board = not self.showing_board
        self._draw_code()

    def _draw_code(self) -> None:
        state = self.served
        if state is None or given(state.match) != self.selected:
            return
        if self.showing_board and self.board:
            rows = modules(self.board)
            self.ids.code.rows = rows or ()
            self.note = board_note(self.selected, rows is not None, tr.language)
            return
        code = result_code(_text(state.result), _text(state.compact))
        self.ids.code.rows = code.rows
        self.note = code_note(self.selected, code, tr.language)

    def _event_url(self) -> str | None:
        return self.event_page

    def pick(self, match: int) -> None:
        """Show this match's code: asked of the daemon, drawn when it answers (the night's event's at once)."""
        self.selected = match
        self.ids.code.rows = ()
        self.served, self.board = None, ""
        url = self._event_url()
        if match == EVENT and url is not None:
            self.ids.code.rows = result_code(url, url).rows
            self.note = tr._("The night's event on your phone: {url}").format(url=url)
            return
        self.note = tr._("Asking the referee for match {match}'s result…").format(match=match)
        App.get_running_app().send({"cmd": "result", "match": match})

    def _fill(self, rows: tuple[NightRow, ...]) -> None:
        box = self.ids.matches
        box.clear_widgets()
        if self._event_url() is not None:
            event = Factory.NightButton(text=tr._("The night's event\n(bracket, your next match)"),
                                        on_release=lambda tapped: self.pick(EVENT))
            event.match = EVENT
            box.add_widget(event)
        for row in rows:
            button = Factory.NightButton(text=row.text, on_release=lambda tapped: self.pick(tapped.match))
            button.match = row.match  # a property of the kv rule: not known to the constructor
            box.add_widget(button)


def _text(served: object) -> str:
    """A text the result command serves (``result``, ``compact``, ``board``); "" where it serves none."""
    return served if isinstance(served, str) else ""
