"""The director calls the tables and the results come back (scoreboard/director/calls.py), for real: a Mosquitto,
``devetka director`` and two ``devetka run`` daemons on it, the players' Start and Not now sent over each table's
local API as the touchscreen sends them, and every rack played from the sensors' inputs."""

from __future__ import annotations

import time

import orjson
import pytest

from scoreboard.director.calls import Caller
from scoreboard.director.server import ask
from scoreboard.director.service import Director
from scoreboard.event.core.records import Released
from scoreboard.event.store import EventStore
from scoreboard.referee.referee import Referee
from scoreboard.referee.service import Service
from tests.director.test_serve import RunningDirector
from tests.live import TIMEOUT, Daemon
from tests.served import valid

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
    assert first["words"] == "Called: Ana - Dino, race to 1, winners' round 1" and first["event"] == "Friday"
    assert second["words"] == "Called: Ben - Cvita, race to 1, winners' round 1"
    shown = status(director)
    assert (shown["W1-1"]["status"], shown["W1-1"]["table"]) == ("called", "t1")

    won = valid("state", play(tables["t1"], first["id"]))
    assert won["match_winner"] == 0 and won["match_call"] == first["id"]
    # Where each goes next, as the director's call said it from the bracket (docs/events.md, "Where next").
    assert [n["words"] for n in won["next_for"]] == ["winners' round 2 against the winner of Ben - Cvita",
                                                     "out of the event"]
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
    ended = valid("state", play(tables[at], final["id"]))
    assert [n["words"] for n in ended["next_for"]] == ["the event's winner", "out of the event"]
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


# -- the same calls in process, every message's timing in the test's hands -------------------------------------------
#
# The director's Caller and two real tables (a Referee served by its Service, as `devetka run` serves it), joined by
# a wire that carries what MQTT would (the calls to each table's `cmd`; the answers on `cmd/result` and the retained
# states back) only when the test lets it: the races a loaded venue makes, played in a set order, on one clock.

ANSWER_WITHIN = 30.0
START = 1_800_000_000.0


class Wire:
    """MQTT between the director and the tables: each message waits until ``deliver`` (in order, per table)."""

    def __init__(self, tmp_path, names=("t1", "t2"), hold_offered: float = 0.0) -> None:
        self.clock = [START]
        store = EventStore.open(tmp_path / "director.sqlite3", now=lambda: "2026-12-02T20:00:00+00:00")
        self.director = Director(store)
        self.to_table: dict[str, list[dict]] = {name: [] for name in names}
        self.to_director: dict[str, list[tuple[str, dict]]] = {name: [] for name in names}
        self.said: list[str] = []
        self.caller = Caller(self.director, lambda: self.clock[0], self._send, answer_within=ANSWER_WITHIN,
                             say=self.said.append, hold_offered=hold_offered)
        self.tables: dict[str, Service] = {}
        for name in names:
            folder = tmp_path / name
            folder.mkdir()
            service = Service(Referee.open(folder / "devetka.db", wall=lambda: self.clock[0]))
            service.watch(lambda state, name=name: self.to_director[name].append(("state", state)))
            self.tables[name] = service
            self.director.table_seen(name, online=True, in_play=False)
            self.caller.table_state(name, service.state())

    def _send(self, table: str, request: dict) -> None:
        self.to_table[table].append(request)

    def deliver(self, table: str, hear: bool = True) -> None:
        """Everything on the wire to and from ``table``, in order: its commands run, then (``hear``) its answers and
        states read."""
        while self.to_table[table]:
            request = self.to_table[table].pop(0)
            self.tables[table].request(orjson.dumps(request), lambda a: self.to_director[table].append(("answer", a)),
                                       "mqtt")
        if hear:
            self.hear(table)

    def hear(self, table: str) -> None:
        for kind, message in self.to_director[table]:
            if kind == "answer":
                self.caller.answered(table, message)
            else:
                playing = bool(message.get("players")) and message.get("match_winner") is None
                self.director.table_seen(table, in_play=playing)
                self.caller.table_state(table, message)
        self.to_director[table].clear()

    def tap(self, table: str, request: dict) -> dict:
        """The players' tap on ``table``'s touchscreen (the local API's way in); the answer."""
        answers: list[dict] = []
        self.tables[table].request(orjson.dumps(request), answers.append, "socket")
        assert answers[0]["ok"], answers[0]
        return answers[0]

    def matches(self) -> dict[str, dict]:
        return {m["match"]: m for m in self.director.handle({"cmd": "status"})["state"]["matches"]}

    def records(self) -> list:
        return self.director.store.records(self.director.store.latest())

    def close(self) -> None:
        for service in self.tables.values():
            service.referee.close()
        self.director.close()


@pytest.fixture
def wire(tmp_path):
    running = Wire(tmp_path)
    yield running
    running.close()


def offered_at(wire: Wire, table: str) -> dict:
    call = wire.tables[table].state()["call"]
    assert call is not None and call["status"] == "offered", call
    return call


def begin(wire: Wire, spec: dict) -> None:
    assert wire.director.handle({"cmd": "new", "spec": spec})["ok"]
    assert wire.director.handle({"cmd": "draw"})["ok"]
    wire.caller.tick()


def test_a_call_begun_just_as_it_ran_out_is_played_where_it_was_begun(wire):
    """31: the players pressed Start as the director's clock ran the call out, the table's answers still on the
    wire: the director withdraws first and releases nothing, and the match begun is the one the event plays."""
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    wire.deliver("t1", hear=False)
    call = offered_at(wire, "t1")
    wire.to_director["t1"].clear()  # the table's "ok" is lost on the way: the director never hears it
    wire.tap("t1", {"cmd": "call_start", "call": call["id"]})  # Start, its state still on the wire
    wire.clock[0] += ANSWER_WITHIN + 1
    wire.caller.tick()
    assert wire.matches()["W1-1"]["status"] == "called"  # run out, but only withdrawn: not called elsewhere
    assert wire.to_table["t1"] == [{"id": f"withdraw:{call['id']}", "cmd": "withdraw", "call": call["id"]}]
    assert wire.to_table["t2"] == []
    wire.deliver("t1")  # the withdrawal is refused in_play, and the state says the match began
    assert wire.matches()["W1-1"]["status"] == "playing" and wire.matches()["W1-1"]["table"] == "t1"
    for item in NINE_ON_THE_BREAK:
        wire.tap("t1", item)
    wire.deliver("t1")
    done = wire.matches()["W1-1"]
    assert (done["status"], done["score"], done["winner"]) == ("done", [1, 0], "Ana")


def test_a_call_run_out_is_released_once_its_table_says_it_is_withdrawn(wire):
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    first = wire.matches()["W1-1"]
    wire.to_table["t1"].clear()  # the call never reaches t1 (a queue lost), t1 still up
    wire.clock[0] += ANSWER_WITHIN + 1
    wire.caller.tick()
    assert wire.matches()["W1-1"]["status"] == "called"  # withdrawn, waiting for t1 to say so
    wire.deliver("t1")  # t1 answers the withdrawal ok: the call is released, and the match goes to t2
    wire.caller.tick()
    again = wire.matches()["W1-1"]
    assert (again["status"], again["table"]) == ("called", "t2") and again["call"] != first["call"]
    wire.deliver("t2")
    assert offered_at(wire, "t2")["match"] == "W1-1"


def test_a_call_run_out_at_a_table_that_stays_silent_is_released_after_another_wait(wire):
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    wire.clock[0] += ANSWER_WITHIN + 1
    wire.caller.tick()
    assert wire.matches()["W1-1"]["status"] == "called"
    wire.clock[0] += ANSWER_WITHIN / 2
    wire.caller.tick()
    assert wire.matches()["W1-1"]["status"] == "called"
    wire.clock[0] += ANSWER_WITHIN / 2
    wire.caller.tick()  # silent a whole wait more: released, and called to t2
    assert (wire.matches()["W1-1"]["status"], wire.matches()["W1-1"]["table"]) == ("called", "t2")
    released = [r for r in wire.records() if isinstance(r, Released)]
    assert released == [Released("W1-1", "t1", "expired")]


def test_an_offered_call_at_a_table_gone_offline_runs_out(wire):
    """31: a call the players saw, on a table whose power was then pulled, no longer holds its match for good."""
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    wire.deliver("t1")
    offered_at(wire, "t1")
    wire.director.table_seen("t1", bridged=False)  # the venue says t1's bridge went silent
    wire.clock[0] += ANSWER_WITHIN + 1
    wire.caller.tick()
    assert (wire.matches()["W1-1"]["status"], wire.matches()["W1-1"]["table"]) == ("called", "t2")


def test_a_late_start_at_the_first_table_takes_the_match_back_from_the_second(wire):
    """31: t1 was unreachable at the expiry, the match was called to t2, then t1's Start arrives: the match is
    t1's (begun there), t2's call is released and withdrawn from its screen, and t2's Start is refused."""
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    wire.deliver("t1", hear=False)
    first = offered_at(wire, "t1")
    wire.tap("t1", {"cmd": "call_start", "call": first["id"]})
    wire.to_director["t1"].clear()
    held = wire.tables["t1"].state()  # the state saying it began, held up on the way
    wire.director.table_seen("t1", bridged=False)
    wire.clock[0] += ANSWER_WITHIN + 1
    wire.caller.tick()
    assert wire.matches()["W1-1"]["table"] == "t2"
    wire.deliver("t2")
    second = offered_at(wire, "t2")
    wire.director.table_seen("t1", bridged=True)
    wire.caller.table_state("t1", held)
    assert (wire.matches()["W1-1"]["status"], wire.matches()["W1-1"]["table"]) == ("playing", "t1")
    assert Released("W1-1", "t2", "begun_elsewhere") in wire.records()
    wire.deliver("t2")
    assert wire.tables["t2"].state()["call"]["status"] == "withdrawn"
    refused: list[dict] = []
    wire.tables["t2"].request(orjson.dumps({"cmd": "call_start", "call": second["id"]}), refused.append, "socket")
    assert (refused[0]["ok"], refused[0]["code"]) == (False, "no_call")
    for item in NINE_ON_THE_BREAK:
        wire.tap("t1", item)
    wire.deliver("t1")
    assert (wire.matches()["W1-1"]["status"], wire.matches()["W1-1"]["score"]) == ("done", [1, 0])
    assert any("W1-1 at t1" in line for line in wire.said)


def test_a_call_left_on_a_table_whose_result_was_entered_by_hand_is_withdrawn_before_the_next_call(wire):
    """The overlay test's night: W1-1 called to t1 and played there without Start, its result entered by hand:
    the call still on t1's screen is withdrawn, then W1-2 is called there and offered (not refused call_pending)."""
    begin(wire, SPEC | {"tables": ["t1"]})
    wire.deliver("t1")
    assert offered_at(wire, "t1")["match"] == "W1-1"
    assert wire.director.handle({"cmd": "result", "match": "W1-1", "score": [1, 0]})["ok"]
    wire.caller.tick()
    wire.deliver("t1")
    wire.caller.tick()
    wire.deliver("t1")
    call = offered_at(wire, "t1")
    assert call["match"] == "W1-2"
    assert (wire.matches()["W1-2"]["status"], wire.matches()["W1-2"]["table"]) == ("called", "t1")
    assert not [r for r in wire.records() if isinstance(r, Released)]


def test_a_call_offered_at_a_table_the_match_was_moved_from_is_taken_off_its_screen(wire):
    begin(wire, SPEC | {"players": ["Ana", "Ben"]})
    wire.deliver("t1")
    stale = offered_at(wire, "t1")
    assert wire.director.handle({"cmd": "move", "match": "W1-1", "table": "t2"})["ok"]
    wire.caller.tick()
    wire.deliver("t1")
    wire.deliver("t2")
    assert wire.tables["t1"].state()["call"] == {"id": stale["id"], "status": "withdrawn", "match": "W1-1"}
    assert offered_at(wire, "t2")["match"] == "W1-1"


HEARTBEAT_S = 10.0


def test_a_table_cut_off_by_its_network_holds_start_before_its_offered_call_is_called_elsewhere(tmp_path):
    """31: a cut network says nothing on the table's side but the director's heartbeats stopping. The director keeps
    an offered call of a table gone unreachable for four beats (``devetka director``'s hold), the table holds Start
    after three missed: by the time the match is called elsewhere, the cut-off table no longer begins it; the link
    back, its copy is withdrawn, and the match is played at one table only."""
    wire = Wire(tmp_path, hold_offered=4 * HEARTBEAT_S)
    try:
        beat = {name: service.director_heard(HEARTBEAT_S) for name, service in wire.tables.items()}
        assert beat == {"t1": 3 * HEARTBEAT_S, "t2": 3 * HEARTBEAT_S}
        begin(wire, SPEC | {"players": ["Ana", "Ben"], "tables": ["t1", "t2"]})
        wire.deliver("t1")
        call = offered_at(wire, "t1")
        assert call["start"] == {"ok": True}
        cut = wire.clock[0] + 5  # t1's network goes; its last heartbeat was 5 s before
        ran_out = False
        while wire.clock[0] < cut + 90:
            wire.clock[0] += 1
            if wire.clock[0] % HEARTBEAT_S == 0:
                wire.tables["t2"].director_heard(HEARTBEAT_S)
                if wire.clock[0] < cut:
                    wire.tables["t1"].director_heard(HEARTBEAT_S)
            if wire.clock[0] == cut + 15:  # the venue's keepalive for t1's bridge runs out: it says 0
                wire.director.table_seen("t1", bridged=False)
            wire.caller.tick()
            wire.deliver("t2")
            if wire.matches()["W1-1"]["table"] == "t2" and not ran_out:
                ran_out = True
                moved_at = wire.clock[0]
                # Elsewhere now: t1's players, cut off, press Start: refused, nothing begun.
                answers: list[dict] = []
                wire.tables["t1"].request(orjson.dumps({"cmd": "call_start", "call": call["id"]}), answers.append,
                                          "socket")
                assert (answers[0]["ok"], answers[0]["code"]) == (False, "venue_away")
                assert wire.tables["t1"].state()["call"]["start"]["ok"] is False
                assert wire.tables["t1"].state()["players"] is None
        assert ran_out and moved_at >= cut + 15 + 4 * HEARTBEAT_S - 1
        elsewhere = offered_at(wire, "t2")
        wire.tap("t2", {"cmd": "call_start", "call": elsewhere["id"]})
        for item in NINE_ON_THE_BREAK:
            wire.tap("t2", item)
        wire.deliver("t2")
        wire.director.table_seen("t1", bridged=True)  # the network back: the withdrawal waiting arrives
        wire.tables["t1"].director_heard(HEARTBEAT_S)
        wire.deliver("t1")
        assert wire.tables["t1"].state()["call"]["status"] == "withdrawn"
        assert wire.tables["t1"].state()["players"] is None
        done = wire.matches()["W1-1"]
        assert (done["status"], done["table"], done["score"]) == ("done", "t2", [1, 0])
    finally:
        wire.close()
