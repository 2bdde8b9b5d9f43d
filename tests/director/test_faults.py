"""The director and the tables over the venue's bridges, and their faults, for real: the venue broker and two tables
staged by the real install.sh (tests/venue/hall.py), each table's Mosquitto bridged to the venue and its ``devetka
run`` daemon, and ``devetka director`` logged in as ``director``. The players' Start goes over each table's local
API as the touchscreen sends it; every rack is the breaker dropping the 9, from the inputs the sensors send."""

from __future__ import annotations

import subprocess
import sys
import time

import paho.mqtt.client as mqtt
import pytest

from scoreboard.director.server import ask
from scoreboard.event.core.records import Called, Result
from scoreboard.event.store import EventStore
from tests.deploy.broker import Peer
from tests.deploy.staging import credentials, install
from tests.director.test_calls import NINE_ON_THE_BREAK, until
from tests.director.test_serve import RunningDirector
from tests.live import TIMEOUT
from tests.venue.hall import Board, VenueBroker, start_table, venue_logins
from tests.venue.relay import Relay

DIRECTOR_PASSWORD = "d1rector-pw"
SPEC = {"name": "Friday", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"], "race": 1,
        "tables": ["t1", "t2"]}
ANSWER_WITHIN_S = 8


@pytest.fixture(scope="module")
def venue(tmp_path_factory):
    folder = tmp_path_factory.mktemp("venue")
    root = folder / "root"
    adds = [word for name in ("t1", "t2", "t3") for word in ("--venue-add-table", name)]
    run = install(root, "--venue-server", *adds)
    assert run.returncode == 0, run.stderr
    # The director's login with a password of the test's own, set as an operator would (mosquitto_passwd).
    subprocess.run(["mosquitto_passwd", "-b", str(root / "etc/mosquitto/devetka-venue.passwd"), "director",
                    DIRECTOR_PASSWORD], check=True)
    broker = VenueBroker(root, folder)
    broker.logins = venue_logins(root)
    yield broker
    broker.close()  # the Mosquitto and its readers' nats-server (stop() alone left the nats-server running)


@pytest.fixture(scope="module")
def tables(tmp_path_factory, venue):
    started = {}
    try:
        for name in ("t1", "t2"):
            started[name] = start_table(tmp_path_factory.mktemp(name), name, venue, venue.logins[name])
        yield started
    finally:
        for table in started.values():
            table.close()


@pytest.fixture
def director(tmp_path, venue, tables):
    secret = tmp_path / "director.password"
    secret.write_text(DIRECTOR_PASSWORD + "\n")
    args = ("--mqtt-host", "127.0.0.1", "--mqtt-port", str(venue.tables_port), "--mqtt-user", "director",
            "--mqtt-password-file", str(secret), "--answer-within", str(ANSWER_WITHIN_S))
    running = RunningDirector(tmp_path, *args).start()
    running.args = args
    yield running
    running.stop()
    for table in tables.values():  # the next test's tables are free: a match left in play is conceded
        table.thaw()
        state = table.state()
        if state["players"] and state["match_winner"] is None:
            table.request({"type": "concede", "player": 1, "scope": "match"})
        if state["call"] and state["call"]["status"] == "offered":  # and a call left standing given back
            table.request({"cmd": "call_decline", "call": state["call"]["id"]})


def offered(table, not_id: str | None = None) -> dict:
    return until(lambda: table.state()["call"], lambda c: c is not None and c["status"] == "offered"
                 and c["id"] != not_id)


def play(table, call: dict) -> dict:
    table.request({"cmd": "call_start", "call": call["id"]})
    return table.play(*NINE_ON_THE_BREAK)


def status(director) -> dict:
    answer = ask(director.socket, {"cmd": "status"})
    assert answer["ok"], answer
    return answer


def matches(director) -> dict:
    return {m["match"]: m for m in status(director)["state"]["matches"]}


def begin(director) -> None:
    assert ask(director.socket, {"cmd": "new", "spec": SPEC})["ok"]
    assert ask(director.socket, {"cmd": "draw"})["ok"]


def records(director) -> list:
    with EventStore.open_readonly(director.store) as store:
        return store.records(store.latest())


def assert_each_match_called_and_counted_once(director) -> None:
    kept = records(director)
    for match in ("W1-1", "W1-2", "W2-1"):
        assert sum(isinstance(r, Result) and r.match == match for r in kept) == 1, match
    assert status(director)["state"]["winner"] is not None


def test_the_director_calls_over_the_bridges_and_only_it_may(director, tables, venue):
    # A table's login (t3's: no table behind it) may not call another table: the venue drops the publish (its ACL).
    guest = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t3", protocol=mqtt.MQTTv311)
    guest.username_pw_set("t3", venue.logins["t3"])
    guest.connect("127.0.0.1", venue.tables_port, keepalive=30)
    guest.loop_start()
    forged = ('{"id": "1/W1-1/2", "cmd": "call", "call": {"id": "1/W1-1/2", "match": "W1-1", "expires": null, '
              '"match_start": {"players": ["Eve", "Mal"], "race": [1, 1]}}}')
    guest.publish("devetka/t1/cmd", forged, qos=1).wait_for_publish(TIMEOUT)
    guest.loop_stop()
    guest.disconnect()
    time.sleep(1)
    assert tables["t1"].state()["call"] is None  # nothing came of it

    begin(director)
    first, second = offered(tables["t1"]), offered(tables["t2"])
    assert first["words"] == "Called: Ana - Dino, race to 1, winners' round 1"  # the director's call, not Eve's
    assert second["words"] == "Called: Ben - Cvita, race to 1, winners' round 1"
    play(tables["t1"], first)
    play(tables["t2"], second)
    final = until(lambda: [t.state()["call"] for t in tables.values()],
                  lambda calls: any(c and c["status"] == "offered" and c["match"] == "W2-1" for c in calls))
    table = tables["t1"] if final[0] and final[0]["match"] == "W2-1" else tables["t2"]
    play(table, table.state()["call"])
    assert until(lambda: status(director)["state"]["winner"], lambda w: w is not None) == "Ana"
    assert_each_match_called_and_counted_once(director)
    called = [r.match for r in records(director) if isinstance(r, Called)]
    assert sorted(called) == ["W1-1", "W1-2", "W2-1"]  # each called once, over the bridges


def test_the_director_killed_mid_event_loses_no_call_and_no_result_and_doubles_none(director, tables):
    begin(director)
    first, second = offered(tables["t1"]), offered(tables["t2"])
    tables["t1"].request({"cmd": "call_start", "call": first["id"]})
    until(lambda: matches(director)["W1-1"]["status"], lambda s: s == "playing")
    director.kill()  # SIGKILL: no goodbye
    tables["t1"].play(*NINE_ON_THE_BREAK)  # a result made while the director is away
    play(tables["t2"], second)
    tables["t1"].request({"cmd": "new_match", "match_start": {"players": ["Eva", "Fran"], "race": [3, 3]}})
    tables["t1"].request({"type": "concede", "player": 0, "scope": "match"})  # and another match after it
    director.start()
    assert until(lambda: matches(director)["W2-1"]["status"], lambda s: s == "called")
    final = matches(director)["W2-1"]
    table = tables[final["table"]]
    play(table, offered(table))
    assert until(lambda: status(director)["state"]["winner"], lambda w: w is not None) == "Ana"
    assert_each_match_called_and_counted_once(director)
    assert sum(isinstance(r, Called) for r in records(director)) == 3


def test_the_venue_broker_killed_30_s_the_results_made_meanwhile_arrive_and_the_event_finishes(director, tables,
                                                                                                 venue):
    begin(director)
    first, second = offered(tables["t1"]), offered(tables["t2"])
    for table, call in ((tables["t1"], first), (tables["t2"], second)):  # begun while the venue is there: a called
        table.request({"cmd": "call_start", "call": call["id"]})         # match does not start while it is away
    venue.kill()
    tables["t1"].play(*NINE_ON_THE_BREAK)
    tables["t2"].play(*NINE_ON_THE_BREAK)
    time.sleep(30)
    venue.start()
    final = until(lambda: matches(director)["W2-1"], lambda m: m["status"] == "called", timeout=2 * TIMEOUT)
    assert (matches(director)["W1-1"]["score"], matches(director)["W1-2"]["score"]) == ([1, 0], [1, 0])
    table = tables[final["table"]]
    play(table, offered(table))
    assert until(lambda: status(director)["state"]["winner"], lambda w: w is not None) == "Ana"
    assert_each_match_called_and_counted_once(director)


def test_a_table_gone_before_answering_is_called_elsewhere_and_refuses_the_stale_call_on_its_return(director,
                                                                                                  tables):
    tables["t2"].freeze()  # the power pulled: its bridge still looks up to the venue until its keepalive runs out
    begin(director)
    first = offered(tables["t1"])
    stale = until(lambda: matches(director)["W1-2"], lambda m: m["status"] == "called")
    assert stale["table"] == "t2"
    # Unanswered, the call runs out, and t2 is seen offline: its match goes to t1 once t1 is free.
    play(tables["t1"], first)
    again = offered(tables["t1"], not_id=first["id"])
    assert again["match"] == "W1-2"
    until(lambda: status(director)["tables"]["free"], lambda free: "t2" not in free)  # its bridge seen gone
    play(tables["t1"], again)
    tables["t2"].thaw()
    with EventStore.open_readonly(director.store) as store:  # this director's call: t2 still shows the last test's
        stale_id = f"{store.id}/{store.latest()}/W1-2/{stale['call']}"
    refused = until(lambda: tables["t2"].state()["call"], lambda c: c is not None and c["id"] == stale_id
                    and c["status"] != "offered", timeout=2 * TIMEOUT)
    assert refused["status"] in ("refused", "withdrawn")
    assert sum(isinstance(r, Called) and r.match == "W1-2" for r in records(director)) == 2  # t2, then t1
    assert tables["t2"].state()["match_call"] != refused["id"]  # the stale call began nothing
    final = until(lambda: matches(director)["W2-1"], lambda m: m["status"] == "called")
    table = tables[final["table"]]
    play(table, offered(table))
    assert until(lambda: status(director)["state"]["winner"], lambda w: w is not None) == "Ana"
    assert_each_match_called_and_counted_once(director)


def test_a_table_whose_power_is_pulled_mid_match_is_in_doubt_and_event_move_plays_it_on_from_its_served_score(
        director, tables, venue):
    assert ask(director.socket, {"cmd": "new", "spec": SPEC | {"race": 3, "players": ["Ana", "Ben"]}})["ok"]
    assert ask(director.socket, {"cmd": "draw"})["ok"]
    first = offered(tables["t1"])
    board = Board(venue, ("devetka/t1/state",))
    try:
        play(tables["t1"], first)  # Ana drops the 9 on the break: 1-0, and breaks rack 2
        board.wait_for("devetka/t1/state", lambda state: state["score"] == [1, 0])  # served to the venue
    finally:
        board.close()
    until(lambda: matches(director)["W1-1"].get("served"), lambda s: s == {"score": [1, 0], "breaker": 0})
    tables["t1"].freeze()
    doubt = until(lambda: matches(director)["W1-1"], lambda m: m.get("in_doubt"), timeout=2 * TIMEOUT)
    assert doubt["table"] == "t1" and "t1" not in status(director)["tables"]["free"]

    moved = ask(director.socket, {"cmd": "move", "match": "W1-1", "table": "t2"})
    assert moved["ok"], moved
    call = offered(tables["t2"])
    assert call["words"] == "Called: Ana - Ben, race to 3, winners' round 1"
    tables["t2"].request({"cmd": "call_start", "call": call["id"]})
    begun = tables["t2"].state()
    assert (begun["score"], begun["rack"], begun["breaker"]) == ([1, 0], 2, 0)  # on from t1's served score
    tables["t2"].play(*NINE_ON_THE_BREAK, *NINE_ON_THE_BREAK)
    done = until(lambda: matches(director)["W1-1"], lambda m: m["status"] == "done")
    won = tables["t2"].state()
    assert (done["score"], done["table"], done["store"], done["match_id"]) == ([3, 0], "t2", won["store"],
                                                                              won["match_id"])
    log = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "export", "--store",
                          str(tables["t2"].daemon.store), "--match", str(won["match_id"])], capture_output=True,
                         check=True).stdout
    assert b'"start_score":[1,0]' in log.splitlines()[0]
    tables["t1"].thaw()  # t1 back: its old copy of the match is no longer the event's
    tables["t1"].play(*NINE_ON_THE_BREAK, *NINE_ON_THE_BREAK)
    time.sleep(2)
    assert matches(director)["W1-1"]["table"] == "t2" and matches(director)["W1-1"]["score"] == [3, 0]


def start_answer(table, call: dict) -> dict:
    """The players' Start on the touchscreen, its answer as the daemon gives it (refused or not)."""
    screen = table.daemon.client()
    try:
        return screen.request({"cmd": "call_start", "call": call["id"]})
    finally:
        screen.close()


def played_calls(tables, director) -> list[str]:
    """Every match of the director's latest event begun from a call at any table of the hall, one entry a begun
    match (the tables' own stores: ``match_call`` of the match in play, ``called_results`` of those won; a call's id
    is STORE/EVENT/MATCH/N, STORE the director's store)."""
    with EventStore.open_readonly(director.store) as store:
        ours = f"{store.id}/{store.latest()}/"
    begun = {}
    for table in tables.values():
        state = table.state()
        for result in state["called_results"]:
            begun[(state["store"], result["match_id"])] = result["call"]
        if state["match_call"] is not None:
            begun[(state["store"], state["match_id"])] = state["match_call"]
    return sorted(call.split("/")[2] for call in begun.values() if call.startswith(ours))


def test_a_table_cut_off_from_the_venue_refuses_a_called_match_s_start_and_the_match_is_played_once(director,
                                                                                                   tables, venue):
    begin(director)
    first, second = offered(tables["t1"]), offered(tables["t2"])
    served_before = {k: tables["t1"].state()[k] for k in ("players", "match_id", "seq", "match_call")}
    bridge = Peer("bridge-watch")  # what the daemon reads, on the table's own broker, with the daemon's login
    try:
        bridge.connect(tables["t1"].broker.table_port, "devetka", credentials(tables["t1"].root)["devetka"])
        bridge.subscribe("devetka/t1/bridge")
        assert bridge.next() == ("devetka/t1/bridge", "1", True)
        venue.kill()  # the bridge's connection closes: the table's broker says 0 there at once
        assert bridge.next() == ("devetka/t1/bridge", "0", False)
    finally:
        bridge.close()
    held = until(lambda: tables["t1"].state()["call"], lambda call: call["start"]["ok"] is False)
    assert held["status"] == "offered" and held["id"] == first["id"]  # the touchscreen's Start says why
    refused = start_answer(tables["t1"], first)  # pressed anyway (over the local API, as the touchscreen sends)
    assert (refused["code"], refused["error"]) == ("venue_away", "the venue cannot be reached: this called match "
                                                                 "can start once it is back (or ask the desk)")
    after = tables["t1"].state()
    assert {k: after[k] for k in served_before} == served_before  # nothing begun
    assert (after["call"]["id"], after["call"]["status"]) == (first["id"], "offered")  # still offered
    until(lambda: tables["t2"].state()["call"], lambda call: call["start"]["ok"] is False)
    assert start_answer(tables["t2"], second)["code"] == "venue_away"
    time.sleep(ANSWER_WITHIN_S + 2)  # both calls run out meanwhile
    venue.start()
    # Back: whatever the director now offers where is played, until the event is won.
    while status(director)["state"]["winner"] is None:
        calls = until(lambda: [t.state()["call"] for t in tables.values()],
                      lambda seen: any(c and c["status"] == "offered" for c in seen)
                      or status(director)["state"]["winner"] is not None, timeout=2 * TIMEOUT)
        for table, call in zip(tables.values(), calls, strict=True):
            if call and call["status"] == "offered":
                answer = start_answer(table, call)
                if answer["ok"]:
                    table.play(*NINE_ON_THE_BREAK)
                else:  # withdrawn or given elsewhere between the look and the press: the director goes on
                    assert answer["code"] in ("no_call", "venue_away"), answer
        time.sleep(0.5)
    assert_each_match_called_and_counted_once(director)
    assert played_calls(tables, director) == ["W1-1", "W1-2", "W2-1"]  # each match begun at one table of the hall, once


def test_a_table_cut_off_by_its_network_holds_start_and_its_call_is_played_elsewhere_once(tmp_path,
                                                                                           tmp_path_factory,
                                                                                           venue, tables):
    """The network between t3 and the venue cut (a relay frozen: both ends run on, nothing crosses): t3's broker
    says nothing, the director's heartbeats stop reaching it and t3 holds Start; the director keeps the offered
    call four beats after the venue sees t3 gone, then calls it to t2; the network back, t3's copy is withdrawn."""
    relay = Relay(venue.tables_port)
    t3 = start_table(tmp_path_factory.mktemp("t3"), "t3", venue, venue.logins["t3"], relay.port)
    secret = tmp_path / "director.password"
    secret.write_text(DIRECTOR_PASSWORD + "\n")
    director = RunningDirector(tmp_path, "--mqtt-host", "127.0.0.1", "--mqtt-port", str(venue.tables_port),
                               "--mqtt-user", "director", "--mqtt-password-file", str(secret),
                               "--answer-within", "4", "--heartbeat", "1").start()
    hall = {"t3": t3, "t2": tables["t2"]}
    try:
        spec = SPEC | {"players": ["Ana", "Ben"], "tables": ["t3", "t2"]}
        assert ask(director.socket, {"cmd": "new", "spec": spec})["ok"]
        assert ask(director.socket, {"cmd": "draw"})["ok"]
        call = until(lambda: t3.state()["call"], lambda c: c is not None and c["status"] == "offered"
                     and c["start"]["ok"])
        beats = Peer("beats")  # a heartbeat on t3's own broker, as its daemon reads them: t3 has heard the director
        try:
            beats.connect(t3.broker.table_port, "devetka", credentials(t3.root)["devetka"])
            beats.subscribe("devetka/director/heartbeat")
            assert beats.next()[0] == "devetka/director/heartbeat"
        finally:
            beats.close()
        relay.freeze()  # the cut
        held = until(lambda: t3.state()["call"], lambda c: c["start"]["ok"] is False)
        assert held["id"] == call["id"] and held["status"] == "offered"
        refused = start_answer(t3, call)
        assert (refused["ok"], refused["code"]) == (False, "venue_away") and t3.state()["players"] is None
        moved = until(lambda: matches(director)["W1-1"], lambda m: m["table"] == "t2", timeout=2 * TIMEOUT)
        assert moved["status"] == "called"
        assert start_answer(t3, call)["code"] == "venue_away"  # still held, while its match is called elsewhere
        play(tables["t2"], offered(tables["t2"]))
        assert until(lambda: status(director)["state"]["winner"], lambda w: w is not None) == "Ana"
        relay.thaw()  # the network back: the withdrawal waiting in t3's bridge session arrives
        gone = until(lambda: t3.state()["call"], lambda c: c["status"] != "offered", timeout=2 * TIMEOUT)
        assert gone["id"] == call["id"] and t3.state()["players"] is None
        kept = records(director)
        assert sum(isinstance(r, Result) and r.match == "W1-1" for r in kept) == 1
        assert played_calls(hall, director) == ["W1-1"]  # begun at one table of the hall, once
    finally:
        director.stop()
        relay.close()
        t3.close()
