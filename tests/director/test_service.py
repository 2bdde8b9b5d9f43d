"""What the director answers (scoreboard/director/service.py): every request through the event store; a refusal
served as a message, the store unchanged."""

from __future__ import annotations

import pytest

from scoreboard.core.messages import from_json, render
from scoreboard.director.service import Director
from scoreboard.event.store import EventStore

SPEC = {"name": "N", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"], "race": 3, "seeding": "drawn"}


@pytest.fixture
def director(tmp_path):
    running = Director(EventStore.open(tmp_path / "d.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00"),
                       seed=lambda: 12345)
    yield running
    running.close()


def test_a_drawn_seeding_takes_the_directors_seed_or_the_one_asked_for(director):
    director.handle({"cmd": "new", "spec": SPEC})
    state = director.handle({"cmd": "draw"})["state"]
    assert state["seed"] == 12345 and sorted(state["order"]) == sorted(SPEC["players"])
    director.handle({"cmd": "new", "spec": SPEC})
    assert director.handle({"cmd": "draw", "seed": 7})["state"]["seed"] == 7


@pytest.mark.parametrize(("request_", "said"), [
    ([], "a request is a JSON object"),
    ({"cmd": "launch"}, "unknown command 'launch' (the director knows new, draw, put_up, result, move, status, "
                        "export, events, tables)"),
    ({"cmd": "status"}, "no event in the store"),
    ({"cmd": "new", "spec": "x"}, "new needs the event file as spec (a JSON object)"),
    ({"cmd": "result", "match": "W1-1", "score": "3-1"}, "a score is two whole numbers from 0 to 9999, such as 7-5"),
    ({"cmd": "result", "match": "W1-1", "score": [3, 1], "store": 5, "match_id": 1},
     "result record: store must be a table store's id or null"),
])
def test_a_bad_request_is_refused_by_name(director, request_, said):
    if isinstance(request_, dict) and request_.get("cmd") == "result":
        director.handle({"cmd": "new", "spec": SPEC})
        director.handle({"cmd": "draw"})
    before = director.store.latest() and director.handle({"cmd": "status"})
    answer = director.handle(request_)
    assert answer["ok"] is False and answer["error"].startswith(said)
    assert render(from_json(answer["message"])) == answer["error"]
    assert (director.store.latest() and director.handle({"cmd": "status"})) == before


def test_each_change_is_told_to_the_watchers_once(director):
    told = []
    director.watch(lambda event_id, state: told.append((event_id, state["records"])))
    director.handle({"cmd": "new", "spec": {**SPEC, "seeding": "given"}})
    director.handle({"cmd": "draw"})
    for _ in range(2):
        director.handle({"cmd": "result", "match": "W1-1", "score": [3, 0], "store": "ab12", "match_id": 3})
    director.handle({"cmd": "result", "match": "W1-1", "score": [3, 3]})
    assert told == [(1, 1), (1, 2), (1, 3)]


def test_the_tables_seen_say_which_are_free(director):
    director.table_seen("t1", online=True)
    director.table_seen("t2", online=True, in_play=True)
    director.table_seen("t3", online=False)
    assert director.handle({"cmd": "tables"})["tables"]["free"] == ["t1"]
