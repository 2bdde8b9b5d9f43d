"""The director calls the tables and the results come back (scoreboard/director/calls.py), for real: a Mosquitto,
``devetka director`` and two ``devetka run`` daemons on it, the players' Start and Not now sent over each table's
local API as the touchscreen sends them, and every rack played from the sensors' inputs."""

from __future__ import annotations

import time

import pytest

from scoreboard.director.server import ask
from tests.director.test_serve import RunningDirector
from tests.live import TIMEOUT, Daemon

NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"}]
SPEC = {"name": "Friday", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"], "race": 1,
        "tables": ["t1", "t2"]}


def table(tmp_path, broker, name: str) -> Daemon:
    folder = tmp_path / name
    folder.mkdir()
    return Daemon(folder, config=f'[table]\nid = "{name}"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
                                 "keepalive_s = 5\n")


def until(what, check, timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if check(value):
            return value
        assert time.monotonic() < deadline, f"not seen in {timeout} s: {value}"
        time.sleep(0.1)


def offered(daemon: Daemon) -> dict:
    def call():
        screen = daemon.client()
        try:
            return screen.request({"cmd": "state"})["state"]["call"]
        finally:
            screen.close()
    return until(call, lambda c: c is not None and c["status"] == "offered")


def status(director: RunningDirector) -> dict:
    answer = ask(director.socket, {"cmd": "status"})
    assert answer["ok"], answer
    return {m["match"]: m for m in answer["state"]["matches"]} | {"winner": answer["state"]["winner"]}


def play(daemon: Daemon, call_id: str) -> dict:
    """Start on the touchscreen, then the breaker drops the 9 on the break."""
    screen = daemon.client()
    try:
        started = screen.request({"cmd": "call_start", "call": call_id})
        assert started["ok"], started
        for item in NINE_ON_THE_BREAK:
            answer = screen.request(item)
            assert answer["ok"], answer
        return answer["state"]
    finally:
        screen.close()


@pytest.fixture
def hall(tmp_path, broker):
    director = RunningDirector(tmp_path, "--mqtt-host", broker.host, "--mqtt-port", str(broker.port),
                               "--answer-within", "30").start()
    tables = {name: table(tmp_path, broker, name) for name in ("t1", "t2")}
    try:
        for daemon in tables.values():
            daemon.start()
        yield director, tables
    finally:
        for daemon in tables.values():
            daemon.kill()
        director.stop()


def test_an_event_is_called_to_the_free_tables_and_every_result_comes_back_once(hall):
    director, tables = hall
    assert ask(director.socket, {"cmd": "new", "spec": SPEC})["ok"]
    assert ask(director.socket, {"cmd": "draw"})["ok"]
    first, second = offered(tables["t1"]), offered(tables["t2"])
    assert first["words"] == "Called: Ana - Dino, race to 1, winners' round 1"
    assert second["words"] == "Called: Ben - Cvita, race to 1, winners' round 1"
    shown = status(director)
    assert (shown["W1-1"]["status"], shown["W1-1"]["table"]) == ("called", "t1")

    won = play(tables["t1"], first["id"])
    assert won["match_winner"] == 0 and won["match_call"] == first["id"]
    done = until(lambda: status(director)["W1-1"], lambda m: m["status"] == "done")
    assert (done["score"], done["winner"], done["store"], done["match_id"]) == ([1, 0], "Ana", won["store"],
                                                                                 won["match_id"])

    # Not now at t2: the call goes back to the director, who offers it elsewhere (t1 is free again).
    screen = tables["t2"].client()
    assert screen.request({"cmd": "call_decline", "call": second["id"]})["ok"]
    screen.close()
    again = offered(tables["t1"])
    assert again["match"] == "W1-2" and again["id"] != second["id"]
    play(tables["t1"], again["id"])
    at = until(lambda: status(director)["W2-1"], lambda m: m["status"] == "called")["table"]
    final = offered(tables[at])
    assert final["words"] == "Called: Ana - Ben, race to 1, winners' round 2"
    play(tables[at], final["id"])
    assert until(lambda: status(director), lambda s: s["winner"] is not None)["winner"] == "Ana"
    records = ask(director.socket, {"cmd": "status"})["state"]["records"]
    time.sleep(2)  # the retained states are seen again at every reconnect: nothing more is counted
    assert ask(director.socket, {"cmd": "status"})["state"]["records"] == records


def test_a_table_refuses_a_call_while_its_match_is_in_play_and_the_director_calls_elsewhere(hall):
    director, tables = hall
    screen = tables["t1"].client()
    assert screen.request({"cmd": "new_match", "match_start": {
        "type": "match_start", "v": 1, "players": ["Eva", "Fran"], "race": [3, 3], "breaker": 0}})["ok"]
    screen.close()
    assert ask(director.socket, {"cmd": "new", "spec": SPEC | {"players": ["Ana", "Ben"]}})["ok"]
    assert ask(director.socket, {"cmd": "draw"})["ok"]
    call = offered(tables["t2"])  # t1 is in play: the director knows it from t1's state, and calls t2
    assert call["match"] == "W1-1"
    screen = tables["t1"].client()
    refused = screen.request({"cmd": "call", "call": {"id": "9/W1-1/9", "match": "W1-1", "expires": None,
                                                      "match_start": {"players": ["Ana", "Ben"], "race": [1, 1],
                                                                      "breaker": 0}}})
    screen.close()
    assert (refused["ok"], refused["code"]) == (False, "in_play")
