"""The results screen's words (scoreboard/ui/night.py): tonight's matches as served, the latest first."""

from __future__ import annotations

from datetime import timedelta, timezone

from scoreboard.contract.read import read
from scoreboard.contract.records import Tonight
from scoreboard.ui.night import NightRow, chosen_row, night_rows

SERVED = read(Tonight, {"since": "2026-11-29T08:00:00+00:00", "matches": [
    {"match": 3, "started": "2026-11-29T19:05:00+00:00", "players": ["Ana", "Ben"], "error": "the log does not fold"},
    {"match": 4, "started": "2026-11-29T20:15:00+00:00", "players": ["Ana", "Ben"], "scoring": "racks",
     "score": [2, 3], "winner": 1, "racks": 5}]})


def test_each_match_says_when_it_began_on_the_tables_clock_who_won_and_the_score():
    zagreb = timezone(timedelta(hours=1))
    assert night_rows(SERVED, local=zagreb) == (NightRow(4, "21:15  Ben won\nAna 2 – 3 Ben"),
                                                NightRow(3, "20:05  cannot be read\nAna – Ben"))


def test_no_results_served_is_no_rows_and_no_code_to_show():
    assert night_rows(None) == () and night_rows(read(Tonight, {"since": "2026-11-29T08:00:00+00:00",
                                                                "matches": []})) == ()
    assert chosen_row((), 4) is None
