"""The real daemon (``devetka run``, scoreboard/adapters/mqtt.py) on the shipped broker config, logging in with the MQTT
settings install.sh wrote into the staged /etc/devetka/table.toml: a dashboard's command does not change the match,
the touchscreen's does; the daemon's state, availability, last will and discovery get through the ACL."""

from __future__ import annotations

import signal

import orjson
import pytest

from scoreboard.config.table import load
from tests.live import ANA_BEN, Daemon

TABLE = "table1"  # the template's table id, which the staged ACL is made for
CLEO_DAN = dict(ANA_BEN, players=["Cleo", "Dan"])


@pytest.fixture
def table(tmp_path, shipped, peers):
    """The daemon of the staged config, on the broker's table listener, seen online by a dashboard and its first state
    published (kept by the broker: a dashboard that subscribes later is handed it retained; before it, a test's
    dashboard got it live, in a loaded run)."""
    mqtt = load(shipped.root / "etc/devetka/table.toml").mqtt
    assert (mqtt.enabled, mqtt.username) == (True, "devetka")
    daemon = Daemon(tmp_path, config=f'[table]\nid = "{TABLE}"\n[mqtt]\nhost = "127.0.0.1"\n'
                                     f'port = {shipped.table_port}\nusername = "{mqtt.username}"\n'
                                     f'password = "{mqtt.password}"\n')
    watcher = peers("dashboard")
    watcher.subscribe(f"devetka/{TABLE}/availability")
    watcher.subscribe(f"devetka/{TABLE}/state")
    daemon.start()
    try:
        online = stated = False
        while not (online and stated):  # each said live by this daemon, not retained from before
            topic, payload, retained = watcher.next()
            online = online or (topic.endswith("/availability") and (payload, retained) == ("online", False))
            stated = stated or (topic.endswith("/state") and not retained)
        yield daemon
    finally:
        daemon.kill()


def results(peer) -> dict:
    topic, payload = peer.live()
    assert topic == f"devetka/{TABLE}/cmd/result", topic
    return orjson.loads(payload)


def test_a_dashboards_command_does_not_change_the_match_and_the_touchscreens_does(table, peers):
    dashboard = answers = peers("dashboard")  # one connection per login: the broker's client id is the login
    answers.subscribe(f"devetka/{TABLE}/cmd/result")
    touchscreen = peers("touchscreen", "table")

    dashboard.publish(f"devetka/{TABLE}/cmd", orjson.dumps({"cmd": "new_match", "match_start": ANA_BEN,
                                                            "id": "dashboard"}).decode())
    touchscreen.publish(f"devetka/{TABLE}/cmd", orjson.dumps({"cmd": "new_match", "match_start": CLEO_DAN,
                                                              "id": "touchscreen"}).decode())
    answer = results(answers)
    assert (answer["id"], answer["ok"], answer["state"]["players"]) == ("touchscreen", True, ["Cleo", "Dan"])
    seq = answer["state"]["seq"]

    dashboard.publish(f"devetka/{TABLE}/cmd", '{"type": "strike", "id": "dashboard strike"}')
    touchscreen.publish(f"devetka/{TABLE}/cmd", '{"cmd": "state", "id": "touchscreen state"}')
    answer = results(answers)
    assert (answer["id"], answer["state"]["seq"]) == ("touchscreen state", seq)

    client = table.client()
    state = client.request({"cmd": "state"})["state"]
    client.close()
    assert (state["players"], state["seq"]) == (["Cleo", "Dan"], seq)


def test_the_daemons_state_and_discovery_reach_dashboards_and_home_assistant(table, peers):
    dashboard = peers("dashboard")
    dashboard.subscribe(f"devetka/{TABLE}/state")
    topic, payload, retained = dashboard.next()
    assert (topic, retained, orjson.loads(payload)["type"]) == (f"devetka/{TABLE}/state", True, "state")

    assistant = peers("homeassistant")
    assistant.subscribe("homeassistant/#")
    topic, payload, retained = assistant.next()
    assert topic.startswith("homeassistant/") and f"devetka_{TABLE}" in topic and retained
    assert orjson.loads(payload)["availability_topic"] == f"devetka/{TABLE}/availability"
    assistant.publish("homeassistant/status", "online")  # Home Assistant restarted: the daemon sends it again
    while True:
        topic, payload = assistant.live()
        if topic != "homeassistant/status":
            break
    assert f"devetka_{TABLE}" in topic
    assert orjson.loads(payload)["availability_topic"] == f"devetka/{TABLE}/availability"


def test_the_daemons_last_will_gets_through(table, peers):
    dashboard = peers("dashboard")
    dashboard.subscribe(f"devetka/{TABLE}/availability")
    assert dashboard.next() == (f"devetka/{TABLE}/availability", "online", True)
    table.process.send_signal(signal.SIGKILL)
    table.process.wait()
    assert dashboard.live() == (f"devetka/{TABLE}/availability", "offline")
