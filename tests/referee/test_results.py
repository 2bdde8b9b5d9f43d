"""The stored matches' results (scoreboard/referee/results.py), served by the referee for the touchscreen's list of
tonight's matches and its QR code: the same figures as ``devetka export --result``."""

from __future__ import annotations

import base64
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import orjson

from scoreboard.core.results import compact
from scoreboard.referee.referee import Referee
from tests.live import ANA_BEN
from tests.served import valid

NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"}]


class Evening:
    """The store's clock, set by the test: when each match begins."""

    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def play(referee: Referee, *inputs: dict, **start) -> None:
    assert referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, **start)}).ok
    for item in inputs:
        assert referee.handle(item).ok, item


def test_tonight_is_the_matches_begun_in_the_last_twelve_hours_each_with_its_score_and_winner(tmp_path):
    clock = Evening("2026-11-28T21:00:00+00:00")
    referee = Referee.open(tmp_path / "d.db", now=clock)
    try:
        play(referee, *NINE_ON_THE_BREAK, race=[1, 1])  # last night
        clock.now = "2026-11-29T20:15:00+00:00"
        play(referee, *NINE_ON_THE_BREAK, *NINE_ON_THE_BREAK, race=[2, 2], players=["Mia", "Noa"])
        clock.now = "2026-11-29T23:40:00+00:00"
        play(referee, *NINE_ON_THE_BREAK)  # on now: rack 2 to come
        clock.now = "2026-11-30T01:10:00+00:00"  # past midnight: still tonight
        answer = valid("state", referee.handle({"cmd": "results"}).state)  # as docs/schema says
        results = answer["results"]
    finally:
        referee.close()
    assert answer["event_page"] is None  # no [venue] url: no event's page
    assert results["since"] == "2026-11-29T13:10:00+00:00"
    assert [(row["match"], row["players"], row["score"], row["winner"], row["racks"]) for row in results["matches"]] \
        == [(2, ["Mia", "Noa"], [2, 0], 0, 2), (3, ["Ana", "Ben"], [1, 0], None, 1)]
    assert results["matches"][0]["nines_on_break"] == [2, 0] and results["matches"][0]["racks_left_out"]


def test_a_matchs_result_is_the_text_devetka_export_result_prints_and_its_compact_form(tmp_path):
    path = tmp_path / "d.db"
    referee = Referee.open(path)
    try:
        play(referee, *NINE_ON_THE_BREAK, *NINE_ON_THE_BREAK, race=[2, 2], players=["Zvonimir Ćosić", "Đurđa Šarić"])
        served = referee.handle({"cmd": "result", "match": 1}).state
        refused = [referee.handle(request).error for request in (
            {"cmd": "result"}, {"cmd": "result", "match": "1"}, {"cmd": "result", "match": True},
            {"cmd": "result", "match": 7})]
    finally:
        referee.close()
    export = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "export", "--result", "--store",
                             str(path), "--match", "1"], capture_output=True, check=True).stdout.decode()
    assert served["result"] + "\n" == export
    outcome = orjson.loads(export)
    assert orjson.loads(served["compact"]) == compact(outcome)
    assert outcome["players"] == ["Zvonimir Ćosić", "Đurđa Šarić"] and len(outcome["racks"]) == 2
    assert refused == ["result needs match: a stored match's id (a whole number), not None",
                       "result needs match: a stored match's id (a whole number), not '1'",
                       "result needs match: a stored match's id (a whole number), not True",
                       "no match 7 in the store"]
    assert served["board"] is None  # no [venue] url: no page on a board


def test_with_the_venue_s_address_a_result_is_served_with_its_page_on_the_board_holding_the_compact_result(tmp_path):
    """And tonight's results with the night's event's page on the board (``event_page``)."""
    referee = Referee.open(tmp_path / "d.db", language="hr", venue_url="http://venue.local:9001/?user=phone")
    try:
        play(referee, *NINE_ON_THE_BREAK, race=[1, 1], players=["Zvonimir Ćosić", "Đurđa Šarić"])
        served = referee.handle({"cmd": "result", "match": 1}).state
        event_page = referee.handle({"cmd": "results"}).state["event_page"]
    finally:
        referee.close()
    assert event_page == "http://venue.local:9001/?user=phone&event"  # the night's event on the same board
    address = urlsplit(served["board"])
    query = parse_qs(address.query)
    assert (address.scheme, address.netloc, address.path) == ("http", "venue.local:9001", "/")
    assert query["user"] == ["phone"] and query["lang"] == ["hr"]
    encoded = query["result"][0]
    assert "=" not in encoded and "+" not in encoded and "/" not in encoded
    assert base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode() == served["compact"]


def test_a_match_whose_log_no_longer_folds_is_listed_by_name_and_has_no_result(tmp_path):
    path = tmp_path / "d.db"
    referee = Referee.open(path)
    play(referee, *NINE_ON_THE_BREAK)
    referee.close()
    import sqlite3

    with sqlite3.connect(path) as db:  # a later rules version no longer accepts what was stored
        db.execute("UPDATE inputs SET input = ? WHERE match_id = 1 AND seq = 3",
                   (orjson.dumps({"type": "pocket", "ball": 12}).decode(),))
    referee = Referee.open(path)
    try:
        (row,) = valid("state", referee.handle({"cmd": "results"}).state)["results"]["matches"]
        error = referee.handle({"cmd": "result", "match": 1}).error
    finally:
        referee.close()
    assert row["match"] == 1 and row["players"] == ["Ana", "Ben"] and "does not fold" in row["error"]
    assert error.startswith("match 1 has no result: the log does not fold")


def test_an_apa_match_is_listed_tonight_with_its_points_targets_and_score_sheet_totals(tmp_path):
    referee = Referee.open(tmp_path / "d.db")
    try:
        assert referee.handle({"cmd": "new_match", "match_start": {
            "players": ["Ana", "Ben"], "apa_skill": [3, 5], "breaker": 0, "rules": {"profile": "apa9"}}}).ok
        for item in NINE_ON_THE_BREAK:
            assert referee.handle(item).ok, item
        (row,) = valid("state", referee.handle({"cmd": "results"}).state)["results"]["matches"]
    finally:
        referee.close()
    assert (row["scoring"], row["race"], row["points"], row["targets"]) == ("apa", None, [2, 0], [25, 38])
    assert (row["innings"], row["dead_balls"], row["safeties"], row["racks"]) == (0, 8, [0, 0], 1)  # the 1-8 dead
