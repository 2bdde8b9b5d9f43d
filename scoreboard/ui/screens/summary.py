"""A rack or the match just won (``summary.kv``): the score, the rack's counts, and on to the next rack or a
rematch."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty

from scoreboard.contract.read import given
from scoreboard.ui.viewmodel import match_start, rematch_rules
from scoreboard.ui.widgets import DevetkaScreen


class SummaryScreen(DevetkaScreen):
    """The summary the state calls for (``View.summary``), until the players go on: it is then not shown again."""

    next_shown = BooleanProperty(False)
    """The summary names the next match to play (``summary.next``): the title and the counts make room for it."""

    def dismiss(self) -> None:
        """Next rack (or Done, a called match won): this summary is not shown again; the screen the state calls
        for is."""
        app = App.get_running_app()
        if app.view.summary is not None:
            app.dismissed.add(app.view.summary.key)
        app.go("live")

    def rematch(self) -> None:
        """The same players, race, rules and language; the loser of the match breaks first."""
        app = App.get_running_app()
        served = app.served
        if served is None or not served.players:
            return
        race = served.race or app.table_config.match.race  # null under APA points
        skill = given(served.apa_skill)
        breaker = served.rematch_breaker
        app.send(match_start((served.players[0], served.players[1]), (race[0], race[1]),
                             breaker if breaker is not None else 0, rematch_rules(served),
                             (skill[0], skill[1]) if skill else None, served.language))
