"""``devetka event export``'s rows (scoreboard/event/export.py): one per match, byes left out."""

import csv

import orjson

from scoreboard.event.core.fold import Event
from scoreboard.event.core.records import Created, Draw, PutUpRecord, Result
from scoreboard.event.export import csv_lines, json_lines


def test_a_bracket_exports_its_matches_not_its_byes():
    event = Event.fold([Created({"name": "N", "format": "single", "players": ["Ana", "Ben", "Cvita"], "race": 2}),
                        Draw(("Ana", "Ben", "Cvita")), Result("W1-2", (2, 1), "a1b2c3", 5)])
    rows = [orjson.loads(line) for line in json_lines(event)]
    assert [r["match"] for r in rows] == ["W1-2", "W2-1"]
    assert rows[0] == {"match": "W1-2", "round": "W1", "side": "winners", "players": ["Ben", "Cvita"],
                       "table": None, "score": [2, 1], "winner": "Ben", "store": "a1b2c3", "match_id": 5}
    assert rows[1]["players"] == ["Ana", "Ben"] and rows[1]["score"] is None
    table = list(csv.DictReader(csv_lines(event)))
    assert table[0]["winner"] == "Ben" and table[0]["match_id"] == "5" and table[1]["score0"] == ""


def test_an_apa_night_adds_each_matchs_points():
    teams = [{"name": t, "players": [{"name": f"{t}{i}", "skill": 4} for i in range(5)]} for t in ("A", "B")]
    event = Event.fold([Created({"name": "N", "format": "apa_team", "teams": teams}), PutUpRecord(0, "A0"),
                        PutUpRecord(1, "B0"), Result("APA-1", (31, 30))])
    row = orjson.loads(json_lines(event)[0])
    assert row["score"] == [31, 30] and row["match_points"] == [12, 8]
    assert list(csv.reader(csv_lines(event)))[1][-2:] == ["12", "8"]
