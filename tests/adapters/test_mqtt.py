"""MQTT (scoreboard/adapters/mqtt.py) with the real parts: ``devetka run`` as a child process, a real Mosquitto on a
free port (scoreboard/sim/broker.py), dashboards as paho clients (tests/watcher.py), the local API beside them."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import tempfile
import time
from pathlib import Path

import orjson
import pytest

from scoreboard.adapters.mqtt import RETAINED_NOT_RUN, MqttLink, Topics, events
from scoreboard.config.table import MqttConfig
from scoreboard.core.inputs import to_json
from scoreboard.referee.referee import Referee
from scoreboard.referee.service import REQUEST_LIMIT, Service
from scoreboard.referee.store import Store
from tests.live import ANA_BEN, LEGAL_BREAK, TIMEOUT, Daemon
from tests.paths import REPO
from tests.served import valid
from tests.watcher import Watcher, retained, retained_once_there

TOPICS = Topics.of("devetka", "bar1", "homeassistant")
#: After the legal break Ben shoots, hits the 3 before the 2 (a foul), and the foul's last input is taken back.
FOUL_AND_UNDO = [{"type": "strike"}, {"type": "first_contact", "ball": 3}, {"type": "settle"}, {"type": "undo"}]
#: Long enough that a will seen within half of it came from the closed socket, not from the keepalive expiring.
KEEPALIVE_S = 60
#: Long enough for paho's first two attempts to reconnect to fail (after 1 s and 2 s more).
BROKER_AWAY_S = 3.5
#: A broker frozen (SIGSTOP) this long, with keepalive_s = 1, costs the daemon its connection; the 15 s of the
#: fault tests show the same (docs/reliability.md).
FROZEN_S = 4.0


def mqtt_daemon(tmp_path, broker, extra: str = "") -> Daemon:
    return Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
                                   f"keepalive_s = {KEEPALIVE_S}\n{extra}")


@pytest.fixture
def table(tmp_path, broker):
    """The daemon of table ``bar1`` on the test's broker, and a dashboard that has seen it come online."""
    watcher = Watcher(broker, [TOPICS.availability])
    daemon = mqtt_daemon(tmp_path, broker)
    daemon.start()
    watcher.until(TOPICS.availability, lambda value: value == "online")
    watcher.close()
    yield daemon
    daemon.kill()


def stored_types(daemon: Daemon) -> list[str]:
    with Store.open_readonly(daemon.store) as store:
        return [type(item).TYPE for item in store.current_match()[1]]


def test_the_retained_state_follows_every_input_and_events_come_in_order(table, broker):
    watcher = Watcher(broker, [TOPICS.state, TOPICS.event])
    client = table.client()
    first = watcher.next(TOPICS.state)
    assert first.json == client.request({"cmd": "state"})["state"]  # no match yet, served as is
    answers = []
    for request in [{"cmd": "new_match", "match_start": ANA_BEN}] + LEGAL_BREAK + FOUL_AND_UNDO:
        answers.append(client.request(request))
        state = answers[-1]["state"]
        pushed = watcher.until(TOPICS.state, lambda value, seq=state["seq"]: value["seq"] == seq)
        assert pushed.json == state and state["type"] == "state"
        assert retained(broker, TOPICS.state).json == state  # what a dashboard that comes now is given
    events = []
    while len(events) < len(answers) + 2:  # an input each, and the verdicts of the break and of the foul
        message = watcher.next(TOPICS.event)
        assert message.qos == 1 and not message.retain
        events.append(message.json)
    inputs = [(e["seq"], e["input"]["type"]) for e in events if e["event"] == "input"]
    assert inputs == [(0, "match_start")] + [(seq, item["type"]) for seq, item in
                                             enumerate(LEGAL_BREAK + FOUL_AND_UNDO, start=1)]
    assert all(event["match_id"] == 1 for event in events)
    verdicts = [(i, e) for i, e in enumerate(events) if e["event"] == "verdict"]
    assert [events[i - 1]["input"]["type"] for i, _ in verdicts] == ["settle", "settle"]  # each after its input
    break_shot, foul = (verdict for _, verdict in verdicts)
    assert break_shot["seq"] == len(LEGAL_BREAK) and "Legal break" in break_shot["verdict"]["words"]
    assert foul["verdict"]["foul"] and foul["verdict"]["rules"] == answers[-2]["state"]["last_verdict"]["rules"]
    assert not foul["amends"] and foul["verdict"]["words"] == answers[-2]["state"]["last_verdict"]["words"]
    assert answers[-1]["state"]["last_verdict"] == answers[len(LEGAL_BREAK)]["state"]["last_verdict"]  # undone
    watcher.close()
    client.close()


def test_commands_on_cmd_are_answered_on_cmd_result_with_their_id(table, broker):
    dashboard = Watcher(broker, [TOPICS.result, TOPICS.state])
    screen = table.client()
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "d1", "cmd": "new_match", "match_start": ANA_BEN}))
    answer = dashboard.next(TOPICS.result).json
    assert answer["id"] == "d1" and answer["ok"] and answer["state"]["players"] == ["Ana", "Ben"]
    assert screen.broadcast()["match_id"] == 1  # the touchscreen is told of a dashboard's change like any other
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": 2, "type": "strike"}))
    assert dashboard.next(TOPICS.result).json == {"id": 2, "ok": True, "state": screen.broadcast()}
    assert screen.request({"cmd": "state"})["state"]["seq"] == 1
    dashboard.close()
    screen.close()


def test_the_retained_state_carries_the_shot_clocks_deadline_and_an_extension_on_cmd_moves_it(table, broker):
    """A venue board counts down from the retained state's deadline; the clock is asked for and extended from a
    dashboard (the MQTT way in) as from the touchscreen."""
    dashboard = Watcher(broker, [TOPICS.result])
    screen = table.client()
    screen.request({"cmd": "new_match", "match_start": ANA_BEN})
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "clock", "type": "shot_clock", "on": True}))
    assert dashboard.next(TOPICS.result).json["ok"]
    miss = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1},
            {"type": "settle"}]
    for item in LEGAL_BREAK + miss:
        answer = screen.request(item)
    served = retained_once_there(broker, TOPICS.state, answer["state"]).json
    clock = served["shot_clock"]
    assert clock["running"] is True and clock["limit"] == 35 and clock["deadline"] - clock["warning_at"] == 10_000
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "more", "type": "extension"}))
    extended = dashboard.next(TOPICS.result).json
    assert extended["ok"], extended
    after = retained_once_there(broker, TOPICS.state, extended["state"]).json
    assert after["shot_clock"]["deadline"] == clock["deadline"] + 25_000
    assert after["shot_clock"]["extensions_left"] == [0, 1] and after["shot_clock"]["limit"] == 60
    dashboard.close()
    screen.close()


def test_the_documented_shot_clock_is_the_one_served(tmp_path):
    doc = (REPO / "docs" / "mqtt.md").read_text()
    documented = next(block["shot_clock"] for block in
                      (orjson.loads(text) for text in re.findall(r"```json\n(.*?)```", doc, re.DOTALL))
                      if "shot_clock" in block)
    referee = Referee.open(tmp_path / "d.db")
    try:
        referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"shot_clock": True})})
        for item in LEGAL_BREAK:
            referee.handle(item)
        assert sorted(referee.state()["shot_clock"]) == sorted(documented)
    finally:
        referee.close()


@pytest.mark.parametrize("payload, error", [
    (b"{not json", "not valid JSON: "),
    (b"", "not valid JSON: "),
    (b"[1, 2]", "a request must be a JSON object, not list"),
    (b'{"id": 7, "cmd": "shutdown"}',
     "unknown command 'shutdown' (known: call, call_decline, call_start, clock_pause, names, new_match, pin, "
     "rack_mode, restart, result, results, resume, settings, state, stats, withdraw)"),
    (b'{"id": 8, "type": "pass"}', "pass without a push out to answer (5.6)"),
    (b'{"id": 9, "type": "pocket", "ball": 12}', "pocket ball must be 0-9 or null, not 12"),
    (b'{"id": 10, "type": "match_start", "players": ["X", "Y"], "race": [1, 1], "breaker": 0, "v": 1}',
     'a match_start begins a new match: send {"cmd": "new_match", ...}'),
    (b'{"id": 11, "cmd": "rack_mode", "on": "yes"}', "rack_mode needs on: true or false"),
    (b'{"id": 13, "cmd": "settings", "set": {"table.id": "bar9"}}',
     "settings are changed on the table's touchscreen, behind its PIN, not over MQTT"),
    (b'{"id": 14, "cmd": "settings"}', "settings are changed on the table's touchscreen, behind its PIN"),
    (b'{"id": 19, "cmd": "restart", "pin": "0000"}',
     "the daemon is started again from the table's touchscreen, behind its PIN, not over MQTT"),
    (b'{"id": 15, "cmd": {"name": "state"}}', "cmd must be a string naming a command (call, call_decline, "),
    (b'{"id": 16, "cmd": ["state"]}', "cmd must be a string naming a command (call, call_decline, "),
    (b'{"id": 17, "type": {"strike": true}}', "type must be a string, not {"),
    (b'{"id": 18, "cmd": "new_match", "match_start": {"players": [{}, []]}}', "match_start: "),
    (b'{"id": 12, "type": "strike", "note": "' + b"x" * REQUEST_LIMIT + b'"}',
     f"a command longer than {REQUEST_LIMIT} bytes is not read"),
])
def test_a_malformed_or_nonsense_command_is_answered_and_changes_nothing(table, broker, payload, error):
    screen = table.client()
    assert screen.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
    before = screen.request({"cmd": "state"})["state"]
    dashboard = Watcher(broker, [TOPICS.result])
    dashboard.subscribe(TOPICS.state)
    dashboard.until(TOPICS.state, lambda value: value == before)  # the new match's state has reached the broker
    dashboard.publish(TOPICS.cmd, payload)
    answer = dashboard.next(TOPICS.result).json
    small = payload.startswith(b"{\"") and len(payload) < REQUEST_LIMIT
    request_id = orjson.loads(payload).get("id") if small else None
    assert answer["id"] == request_id and answer["ok"] is False and answer["error"].startswith(error), answer
    assert screen.request({"cmd": "state"})["state"] == before
    assert stored_types(table) == ["match_start"]
    assert not (Path(table.store).parent / "settings.json").exists()
    dashboard.publish(TOPICS.cmd, b'{"id": "next", "type": "strike"}')  # the next change is the first published
    assert dashboard.next(TOPICS.result).json["id"] == "next"
    assert dashboard.next(TOPICS.state).json["seq"] == before["seq"] + 1
    dashboard.close()
    screen.close()


def no_retained_command(broker) -> None:
    """The broker keeps no command on ``cmd``: a new subscriber's first message is one sent after it came."""
    watcher = Watcher(broker, [TOPICS.cmd])
    watcher.publish(TOPICS.cmd, b'{"id": "marker", "cmd": "state"}')
    first = watcher.next(TOPICS.cmd)
    assert (first.payload, first.retain) == (b'{"id": "marker", "cmd": "state"}', False), first
    watcher.close()


def test_a_retained_command_is_never_run_live_or_kept_and_the_broker_forgets_it(table, broker):
    dashboard = Watcher(broker, [TOPICS.result, TOPICS.availability])
    dashboard.publish(TOPICS.cmd, b'{"id": "stale", "cmd": "new_match"}', retain=True)
    dashboard.publish(TOPICS.cmd, b'{"id": "fresh", "cmd": "state"}')
    said = str(RETAINED_NOT_RUN)  # the test's table speaks English: its words are the error's
    assert dashboard.next(TOPICS.result).json == {"id": "stale", "ok": False, "error": said, "words": said,
                                                  "code": "not_allowed"}
    fresh = dashboard.next(TOPICS.result).json
    assert fresh["id"] == "fresh" and fresh["state"]["match_id"] is None  # the live retained one did not run
    no_retained_command(broker)
    table.stop()
    dashboard.until(TOPICS.availability, lambda value: value == "offline")
    dashboard.publish(TOPICS.cmd, b'{"id": "kept", "cmd": "new_match"}', retain=True)  # waits for the daemon
    table.start()
    # The marker of no_retained_command is a live command too: its answer may come first, if the daemon had read it.
    kept = dashboard.until(TOPICS.result, lambda value: value.get("id") != "marker").json
    assert kept == {"id": "kept", "ok": False, "error": said, "words": said, "code": "not_allowed"}
    dashboard.until(TOPICS.availability, lambda value: value == "online")
    dashboard.publish(TOPICS.cmd, b'{"id": "after", "cmd": "state"}')
    after = dashboard.next(TOPICS.result).json
    assert after["id"] == "after" and after["state"]["match_id"] is None
    no_retained_command(broker)
    with Store.open_readonly(table.store) as store:
        assert store.matches() == []
    dashboard.close()


def test_a_killed_daemon_reads_offline_at_once_by_its_last_will(table, broker):
    watcher = Watcher(broker, [TOPICS.availability])
    assert watcher.next(TOPICS.availability).payload == b"online"
    table.process.send_signal(signal.SIGKILL)
    table.process.communicate()
    # The broker sees the socket close and sends the will; with no socket closed it would wait 1.5 x KEEPALIVE_S.
    will = watcher.next(TOPICS.availability, timeout=KEEPALIVE_S / 2)
    assert will.payload == b"offline"
    assert retained(broker, TOPICS.availability).payload == b"offline"
    watcher.close()


def test_a_clean_stop_says_offline(table, broker):
    watcher = Watcher(broker, [TOPICS.availability])
    assert watcher.next(TOPICS.availability).payload == b"online"
    assert table.stop() == 0
    assert watcher.next(TOPICS.availability).payload == b"offline"
    assert retained(broker, TOPICS.availability).payload == b"offline"
    assert b"Traceback" not in table.stderr
    watcher.close()


def test_after_the_broker_restarts_the_state_is_published_again(table, broker):
    screen = table.client()
    screen.request({"cmd": "new_match", "match_start": ANA_BEN})
    broker.stop()
    for item in LEGAL_BREAK:  # refereeing goes on while the broker is down
        answer = screen.request(item)
        assert answer["ok"], answer
    broker.start()  # the same port, and it remembers nothing (no persistence): the daemon must tell it again
    watcher = Watcher(broker, [TOPICS.state])
    assert watcher.next(TOPICS.state).json == answer["state"]
    assert retained(broker, TOPICS.state).json == answer["state"]
    assert retained(broker, TOPICS.availability).payload == b"online"
    watcher.close()
    screen.close()


def test_a_broker_away_is_said_once_and_its_return_once(table, broker):
    watcher = Watcher(broker, [TOPICS.availability])
    watcher.until(TOPICS.availability, lambda value: value == "online")
    watcher.close()
    broker.stop()
    time.sleep(BROKER_AWAY_S)  # paho tries again after 1 s, then 2 s: two failed attempts at least
    broker.start()
    watcher = Watcher(broker, [TOPICS.availability])
    watcher.until(TOPICS.availability, lambda value: value == "online")
    watcher.close()
    assert table.stop() == 0
    lines = table.stderr.decode().splitlines()
    address = f"{broker.host}:{broker.port}"
    assert lines == [f"devetka run: serving {table.store} on {table.socket}",
                     f"devetka run: MQTT: connected to the broker {address}",
                     f"devetka run: MQTT: lost the broker {address} (Unspecified error); reconnecting",
                     f"devetka run: MQTT: connected to the broker {address}"], lines


class EventFollower:
    """A subscriber to ``event`` as docs/mqtt.md tells one to be: a message whose ``(store, match_id, seq,
    event)`` it has seen is a duplicate and dropped; a ``seq`` more than one past the last is a gap."""

    def __init__(self) -> None:
        self.seen: set[tuple] = set()
        self.kept: list[dict] = []
        self.duplicates = 0
        self.gaps: list[tuple[int, int]] = []

    def take(self, event: dict) -> None:
        key = (event["store"], event["match_id"], event["seq"], event["event"])
        if key in self.seen:
            self.duplicates += 1
            return
        self.seen.add(key)
        last = self.kept[-1] if self.kept else None
        if last is not None and last["match_id"] == event["match_id"] and event["seq"] > last["seq"] + 1:
            self.gaps.append((last["seq"], event["seq"]))
        self.kept.append(event)


def test_after_a_frozen_broker_a_subscriber_dropping_duplicates_gets_every_event_once_in_order(tmp_path, broker):
    watcher = Watcher(broker, [TOPICS.availability, TOPICS.event])
    daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
                                     "keepalive_s = 1\n")  # paho gives a silent broker up after a second or two
    daemon.start()
    try:
        watcher.until(TOPICS.availability, lambda value: value == "online")
        screen = daemon.client()
        assert screen.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        broker.process.send_signal(signal.SIGSTOP)
        try:
            frozen_until = time.monotonic() + FROZEN_S
            while time.monotonic() < frozen_until:  # the refereeing goes on, the events wait
                for item in (*LEGAL_BREAK, {"type": "undo"}, {"type": "undo"}):
                    assert screen.request(item)["ok"]
                time.sleep(0.05)
        finally:
            broker.process.send_signal(signal.SIGCONT)
        last = screen.request({"type": "strike"})["state"]
        follower = EventFollower()
        while not follower.kept or follower.kept[-1]["seq"] < last["seq"]:
            follower.take(watcher.next(TOPICS.event).json)
        with Store.open_readonly(daemon.store) as store:
            log = store.log(last["match_id"])
        inputs = [event for event in follower.kept if event["event"] == "input"]
        assert [event["seq"] for event in inputs] == list(range(len(log))) and follower.gaps == []
        assert [event["input"] for event in inputs] == [orjson.loads(orjson.dumps(to_json(item))) for item in log]
        assert {event["store"] for event in follower.kept} == {last["store"]}
        assert daemon.stop() == 0
        assert b"lost the broker" in daemon.stderr  # the freeze did cost the connection
    finally:
        daemon.kill()
        watcher.close()


def test_a_daemon_started_before_its_broker_referees_and_publishes_once_it_is_up(tmp_path, broker):
    broker.stop()
    daemon = mqtt_daemon(tmp_path, broker)
    daemon.start()
    try:
        screen = daemon.client()
        assert screen.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        broker.start()
        watcher = Watcher(broker, [TOPICS.state])
        assert watcher.next(TOPICS.state).json == screen.request({"cmd": "state"})["state"]
        watcher.close()
        screen.close()
        assert daemon.stop() == 0
        assert b"cannot reach the broker" in daemon.stderr and b"connected to the broker" in daemon.stderr
    finally:
        daemon.kill()


def render(template: str, payload: bytes) -> str:
    """A discovery config's template as Home Assistant renders it: Jinja2 with ``value`` and ``value_json``."""
    import jinja2

    return jinja2.Environment().from_string(template).render(value=payload.decode(), value_json=orjson.loads(payload))


def test_home_assistant_finds_one_device_with_its_sensors_and_verdicts(table, broker):
    home = Watcher(broker, ["homeassistant/#", TOPICS.event])
    configs = {}
    while len(configs) < 6:  # retained, or still on their way: the table said online before sending them
        message = home.next_any("homeassistant/#")
        configs[message.topic] = message.json
    assert all(retained(broker, topic).json == config for topic, config in configs.items())
    node = "homeassistant/{}/devetka_bar1/{}/config"
    assert set(configs) == {node.format("sensor", name) for name in
                            ("score_1", "score_2", "shooter", "rack", "balls_left")} | {node.format("event", "verdict")}
    assert len({config["unique_id"] for config in configs.values()}) == 6
    for config in configs.values():
        assert config["availability_topic"] == TOPICS.availability
        assert config["device"]["identifiers"] == ["devetka_bar1"] and config["device"]["name"] == "Devetka bar1"
    screen = table.client()
    screen.request({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK:
        answer = screen.request(item)
    state = retained_once_there(broker, TOPICS.state, answer["state"]).payload
    sensor = {topic.split("/")[3]: config for topic, config in configs.items()}
    assert {name: render(sensor[name]["value_template"], state) for name in
            ("score_1", "score_2", "shooter", "rack", "balls_left")} == {
        "score_1": "0", "score_2": "0", "shooter": "Ben", "rack": "1", "balls_left": "9"}
    assert orjson.loads(render(sensor["score_1"]["json_attributes_template"], state)) == {"players": ["Ana", "Ben"]}
    for item in FOUL_AND_UNDO[:-1]:
        screen.request(item)
    verdicts = []
    for _ in range(len([ANA_BEN] + LEGAL_BREAK + FOUL_AND_UNDO[:-1]) + 2):  # the inputs, and two verdicts
        shown = render(sensor["verdict"]["value_template"], home.next(TOPICS.event).payload)
        if shown:  # an input renders empty: Home Assistant ignores it
            verdicts.append(orjson.loads(shown))
    assert [verdict["event_type"] for verdict in verdicts] == ["legal", "foul"]
    assert {verdict["event_type"] for verdict in verdicts} <= set(sensor["verdict"]["event_types"])
    assert verdicts[1]["words"] == screen.request({"cmd": "state"})["state"]["last_verdict"]["words"]
    home.publish("homeassistant/status", "online")  # Home Assistant restarted: it is told again, at once
    again = {home.next_any("homeassistant/#").topic for _ in range(7)} - {"homeassistant/status"}
    assert again == set(configs)
    home.close()
    screen.close()


def _schema(name: str) -> dict:
    return orjson.loads((REPO / "docs" / "schema" / f"{name}.schema.json").read_bytes())


def _table(doc: str, heading: str) -> list[str]:
    """The first column of the table under ``heading`` in docs/mqtt.md: its names, each in backticks."""
    section = doc[doc.index(heading):]
    rows = re.findall(r"^\| (`[^|]*`) \|", section[:section.index("\n\n", section.index("| --- |"))], re.MULTILINE)
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row)]


def test_the_documented_payloads_and_tables_are_the_contract_s(tmp_path):
    """docs/mqtt.md's examples are what is served, and its field tables are the committed schemas' (the schemas
    themselves are generated from the records, not written in the doc)."""
    doc = (REPO / "docs" / "mqtt.md").read_text()
    blocks = [orjson.loads(block) for block in re.findall(r"```json\n(.*?)```", doc, re.DOTALL)]
    assert not [block for block in blocks if "$schema" in block]  # the schemas are docs/schema's, not written twice
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    seen = []
    referee.stored.append(lambda seq, item, step: seen.extend(events(referee.store.id, referee.match_id, seq,
                                                                              item, step)))
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK:
        referee.handle(item)
    state = valid("state", dict(referee.state(), type="state"))
    referee.close()
    fields = _schema("state")["$defs"]["State"]
    documented_state = next(block for block in blocks if block.get("type") == "state")
    assert sorted(documented_state) == sorted(state) and set(fields["required"]) <= set(state)
    assert sorted(documented_state["last_verdict"]) == sorted(state["last_verdict"])
    assert set(_schema("ruling")["$defs"]["Ruling"]["required"]) <= set(documented_state["last_verdict"])
    clock = _schema("state")["$defs"]["ShotClock"]["properties"]
    assert sorted(_table(doc, "### The shot clock")) == sorted(clock)
    codes = _schema("refusal")["$defs"]["Refusal"]["properties"]["code"]["enum"]
    assert sorted(_table(doc, "### Refusals: `code`")) == codes
    documented_events = [block for block in blocks if "event" in block]
    assert {event["event"] for event in documented_events} == {event["event"] for event in seen}
    for documented in documented_events:
        real = valid("event", next(event for event in seen if event["event"] == documented["event"]))
        assert sorted(documented) == sorted(real)
    for answer in [block for block in blocks if "ok" in block and block["ok"] is False]:
        valid("result", answer)


def test_a_broker_that_hangs_never_holds_up_the_refereeing(table, broker):
    """Mosquitto stopped (SIGSTOP) with the connection open: the daemon's publishes only queue; each input is
    answered all the same, and once the broker wakes it has the last state."""
    screen = table.client()
    screen.request({"cmd": "new_match", "match_start": ANA_BEN})
    broker.process.send_signal(signal.SIGSTOP)
    try:
        for _ in range(100):  # a strike and its undo, again and again: 200 changes, each stored and answered
            assert screen.request({"type": "strike"})["ok"]
            answer = screen.request({"type": "undo"})
            assert answer["ok"], answer
    finally:
        broker.process.send_signal(signal.SIGCONT)
    watcher = Watcher(broker, [TOPICS.state])
    watcher.until(TOPICS.state, lambda value: value == answer["state"])
    assert retained(broker, TOPICS.state).json == answer["state"]
    watcher.close()
    screen.close()


def test_pahos_socket_has_tcp_nodelay(tmp_path, broker):
    """Without it a small publish can wait 20-40 ms for the broker's acknowledgement of the one before."""
    referee = Referee.open(tmp_path / "d.db")
    loop = asyncio.new_event_loop()
    link = MqttLink(MqttConfig(host=broker.host, port=broker.port), "bar1", Service(referee), loop)
    link.start()

    async def connected() -> None:
        deadline = loop.time() + TIMEOUT
        while not link.client.is_connected():
            assert loop.time() < deadline, "the link did not connect"
            await asyncio.sleep(0.01)

    try:
        loop.run_until_complete(connected())
        assert link.client.socket().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        link.close()
        loop.close()
        referee.close()


def test_with_discovery_off_home_assistant_is_told_nothing(tmp_path, broker):
    daemon = mqtt_daemon(tmp_path, broker, extra="discovery = false\n")
    daemon.start()
    try:
        watcher = Watcher(broker, [TOPICS.availability])
        watcher.until(TOPICS.availability, lambda value: value == "online")
        watcher.subscribe("homeassistant/#")
        watcher.subscribe(TOPICS.state)
        assert watcher.next(TOPICS.state).json["type"] == "state"
        # A broker sends each subscription's retained messages in turn: any config would have come first.
        assert watcher.pending("homeassistant/#") == 0
        watcher.publish("homeassistant/status", "online")
        watcher.subscribe(TOPICS.result)
        # The daemon answers in order: configs sent for the status would reach us before this answer.
        watcher.publish(TOPICS.cmd, b'{"id": "after", "cmd": "state"}')
        assert watcher.next(TOPICS.result).json["id"] == "after"
        assert [message.topic for message in drain(watcher, "homeassistant/#")] == ["homeassistant/status"]
        watcher.close()
    finally:
        daemon.kill()


def drain(watcher: Watcher, topic: str) -> list:
    return [watcher.next(topic) for _ in range(watcher.pending(topic))]


def test_a_new_match_over_mqtt_is_composed_as_on_the_touchscreen(table, broker):
    """Issue 26 on MQTT: the same merge as every way in. The stored match_start names the table and its sensors
    (none here); a claim of a rail sensor and a match naming another table are refused with their codes; the
    event of the match_start says so to every dashboard."""
    dashboard = Watcher(broker, [TOPICS.result, TOPICS.event])
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "claim", "cmd": "new_match", "match_start": dict(
        ANA_BEN, rules={"rails_sensed": True})}))
    claim = dashboard.next(TOPICS.result).json
    assert (claim["id"], claim["ok"], claim["code"]) == ("claim", False, "rule_fixed")
    assert claim["error"] == "match_start: rules.rails_sensed: this table has no rail sensors: leave it out"
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "other", "cmd": "new_match", "match_start": dict(
        ANA_BEN, table="bar2")}))
    assert dashboard.next(TOPICS.result).json["code"] == "wrong_table"
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "ok", "cmd": "new_match", "match_start": dict(
        ANA_BEN, rules={"profile": "bar"})}))
    assert dashboard.next(TOPICS.result).json["state"]["rules"]["nine_on_break"] == "spotted"
    started = dashboard.until(TOPICS.event, lambda value: value["event"] == "input").json["input"]
    assert started["table"] == "bar1" and started["rules"]["rails_sensed"] is False
    assert started["rules"]["profile"] == "bar" and started["rules"]["strike_sensed"] is False
    with Store.open_readonly(table.store) as store:
        assert to_json(store.current_match()[1][0]) == started
    dashboard.close()
