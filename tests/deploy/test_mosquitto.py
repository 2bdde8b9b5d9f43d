"""The shipped Mosquitto config and ACL (deploy/mosquitto/), on a real broker: the files exactly as install.sh
stages them, passwords from its generated file, only the ports and paths moved.

Mosquitto (MQTT 3.1.1) acknowledges a publish its ACL denies and drops it, so "denied" is shown by order: the
denied publish is acknowledged first, an allowed one is sent after it, and a subscriber's first message must be
the allowed one. No waiting for something not to happen."""

from __future__ import annotations

import pytest

from tests.deploy.broker import Peer, ShippedBroker, refused
from tests.deploy.staging import credentials, install

TABLE = "table1"  # the template's table id, which the staged ACL is made for


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mosquitto")
    root = folder / "root"
    run = install(root)
    assert run.returncode == 0, run.stderr
    running = ShippedBroker(root, folder)
    running.passwords = credentials(root)
    yield running
    running.stop()


@pytest.fixture
def peers(broker):
    """``peers(user, listener="table"|"venue")``: a logged-in client as one of the installer's users."""
    made = []

    def login(user: str, listener: str = "venue") -> Peer:
        peer = Peer(user)
        made.append(peer)
        port = broker.table_port if listener == "table" else broker.venue_port
        reason = peer.connect(port, user, broker.passwords[user])
        assert not reason.is_failure, f"{user} could not log in: {reason}"
        return peer

    yield login
    for peer in made:
        peer.close()


def live(peer: Peer) -> tuple[str, str]:
    """The next message published while subscribed (retained replays of earlier tests skipped)."""
    while True:
        topic, payload, retained = peer.next()
        if not retained:
            return topic, payload


@pytest.mark.parametrize("listener", ["venue", "table"])
def test_anonymous_clients_are_refused(broker, listener):
    peer = Peer("anonymous")
    try:
        reason = peer.connect(broker.venue_port if listener == "venue" else broker.table_port)
        assert refused(reason), str(reason)
    finally:
        peer.close()


def test_a_wrong_password_is_refused(broker):
    peer = Peer("guess")
    try:
        assert refused(peer.connect(broker.venue_port, "dashboard", broker.passwords["dashboard"] + "x"))
    finally:
        peer.close()


def test_a_dashboard_reads_the_retained_state_from_the_venue_listener(peers):
    daemon = peers("devetka", "table")
    daemon.publish(f"devetka/{TABLE}/state", '{"type":"state","seq":8}', retain=True)
    daemon.publish(f"devetka/{TABLE}/availability", "online", retain=True)
    dashboard = peers("dashboard")
    dashboard.subscribe(f"devetka/{TABLE}/state")
    assert dashboard.next() == (f"devetka/{TABLE}/state", '{"type":"state","seq":8}', True)


def test_a_dashboards_command_reaches_no_one_and_the_touchscreens_does(peers):
    daemon = peers("devetka", "table")
    daemon.subscribe(f"devetka/{TABLE}/cmd")
    peers("dashboard").publish(f"devetka/{TABLE}/cmd", '{"type":"strike","id":"dashboard"}')
    peers("homeassistant").publish(f"devetka/{TABLE}/cmd", '{"type":"strike","id":"homeassistant"}')
    peers("touchscreen", "table").publish(f"devetka/{TABLE}/cmd", '{"cmd":"state","id":"touchscreen"}')
    assert live(daemon) == (f"devetka/{TABLE}/cmd", '{"cmd":"state","id":"touchscreen"}')


def test_the_daemons_discovery_reaches_home_assistant_and_home_assistants_status_the_daemon(peers):
    daemon = peers("devetka", "table")
    daemon.subscribe("homeassistant/status")
    assistant = peers("homeassistant")
    assistant.subscribe("homeassistant/#")
    topic = f"homeassistant/sensor/devetka_{TABLE}/rack/config"
    daemon.publish(topic, '{"name":"Rack"}', retain=True)
    assert live(assistant) == (topic, '{"name":"Rack"}')
    assistant.publish("homeassistant/status", "online")
    assert live(daemon) == ("homeassistant/status", "online")


def test_only_the_daemon_writes_its_tables_state_events_and_answers(peers):
    watcher = peers("dashboard")
    watcher.subscribe("devetka/#")
    peers("dashboard").publish(f"devetka/{TABLE}/state", "forged by a dashboard")
    peers("touchscreen").publish(f"devetka/{TABLE}/cmd/result", "forged by the touchscreen")
    peers("homeassistant").publish(f"devetka/{TABLE}/event", "forged by home assistant")
    daemon = peers("devetka", "table")
    daemon.publish("devetka/table2/state", "the daemon of table1 writing table2's state")
    daemon.publish(f"devetka/{TABLE}/event", '{"type":"strike","seq":9}')
    assert live(watcher) == (f"devetka/{TABLE}/event", '{"type":"strike","seq":9}')


def test_the_daemon_hears_commands_for_its_own_table_only(peers):
    daemon = peers("devetka", "table")
    daemon.subscribe("devetka/+/cmd")
    touchscreen = peers("touchscreen")
    touchscreen.publish("devetka/table2/cmd", '{"id":"for table2"}')
    touchscreen.publish(f"devetka/{TABLE}/cmd", '{"id":"for table1"}')
    assert live(daemon) == (f"devetka/{TABLE}/cmd", '{"id":"for table1"}')
