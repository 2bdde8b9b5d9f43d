"""The shipped Mosquitto config and ACL (deploy/mosquitto/), on a real broker: the files exactly as install.sh
stages them, passwords from its generated file, only the ports and paths moved.

Mosquitto (MQTT 3.1.1) acknowledges a publish its ACL denies and drops it, so "denied" is shown by order: the
denied publish is acknowledged first, an allowed one is sent after it, and a subscriber's first message must be
the allowed one. No waiting for something not to happen."""

from __future__ import annotations

import pytest

from scoreboard.adapters.mqtt import own_client_id
from scoreboard.sim.broker import PrivateBroker
from tests.deploy.broker import Peer, nagle_off, refused

TABLE = "table1"  # the template's table id, which the staged ACL is made for


@pytest.mark.parametrize("listener", ["venue", "table"])
def test_anonymous_clients_are_refused(shipped, listener):
    peer = Peer("anonymous")
    try:
        reason = peer.connect(shipped.venue_port if listener == "venue" else shipped.table_port)
        assert refused(reason), str(reason)
    finally:
        peer.close()


def test_a_wrong_password_is_refused(shipped):
    peer = Peer("guess")
    try:
        assert refused(peer.connect(shipped.venue_port, "dashboard", shipped.passwords["dashboard"] + "x"))
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
    assert daemon.live() == (f"devetka/{TABLE}/cmd", '{"cmd":"state","id":"touchscreen"}')


def test_the_daemons_discovery_reaches_home_assistant_and_home_assistants_status_the_daemon(peers):
    daemon = peers("devetka", "table")
    daemon.subscribe("homeassistant/status")
    assistant = peers("homeassistant")
    assistant.subscribe("homeassistant/#")
    topic = f"homeassistant/sensor/devetka_{TABLE}/rack/config"
    daemon.publish(topic, '{"name":"Rack"}', retain=True)
    assert assistant.live() == (topic, '{"name":"Rack"}')
    assistant.publish("homeassistant/status", "online")
    assert daemon.live() == ("homeassistant/status", "online")


def test_only_the_daemon_writes_its_tables_state_events_and_answers(peers):
    watcher = peers("dashboard")  # one connection per login: the broker's client id is the login
    watcher.subscribe("devetka/#")
    watcher.publish(f"devetka/{TABLE}/state", "forged by a dashboard")
    peers("touchscreen").publish(f"devetka/{TABLE}/cmd/result", "forged by the touchscreen")
    peers("homeassistant").publish(f"devetka/{TABLE}/event", "forged by home assistant")
    daemon = peers("devetka", "table")
    daemon.publish("devetka/table2/state", "the daemon of table1 writing table2's state")
    daemon.publish(f"devetka/{TABLE}/event", '{"type":"strike","seq":9}')
    assert watcher.live() == (f"devetka/{TABLE}/event", '{"type":"strike","seq":9}')


@pytest.mark.parametrize("listener", ["venue", "table"])
def test_a_read_only_login_with_any_id_it_can_know_does_not_take_the_table_offline(shipped, peers, listener):
    """The daemon's id takes its password to make (scoreboard.adapters.mqtt.own_client_id); a dashboard connecting
    with the ids it can know (the daemon's login, the id it had before, ``devetka-<table>``) pushes no one off."""
    daemon = Peer("daemon", client_id=own_client_id(TABLE, shipped.passwords["devetka"]))
    daemon.client.will_set(f"devetka/{TABLE}/availability", "offline", qos=1, retain=True)
    try:
        assert not daemon.connect(shipped.table_port, "devetka", shipped.passwords["devetka"]).is_failure
        daemon.publish(f"devetka/{TABLE}/availability", "online", retain=True)
        watcher = peers("homeassistant")
        watcher.subscribe(f"devetka/{TABLE}/availability")
        assert watcher.next() == (f"devetka/{TABLE}/availability", "online", True)
        for client_id in ("devetka", f"devetka-{TABLE}"):
            intruder = Peer("intruder", client_id=client_id)  # a read-only login
            try:
                assert not intruder.connect(shipped.table_port if listener == "table" else shipped.venue_port,
                                            "dashboard", shipped.passwords["dashboard"]).is_failure
                daemon.publish(f"devetka/{TABLE}/availability", f"still online ({client_id})")  # a will first
                assert watcher.next() == (f"devetka/{TABLE}/availability", f"still online ({client_id})", False)
                assert daemon.client.is_connected()
            finally:
                intruder.close()
    finally:
        daemon.close()


def test_two_screens_on_one_login_both_stay_connected(shipped, peers):
    """Issue 29: the login is no longer the id, so a second screen on ``dashboard`` does not push the first off."""
    first, second = peers("dashboard"), peers("dashboard")
    for screen in (first, second):
        screen.subscribe("devetka/+/check")
    peers("devetka", "table").publish(f"devetka/{TABLE}/check", "both")
    assert first.live() == second.live() == (f"devetka/{TABLE}/check", "both")
    assert first.client.is_connected() and second.client.is_connected()


def test_the_daemon_hears_commands_for_its_own_table_only(peers):
    daemon = peers("devetka", "table")
    daemon.subscribe("devetka/+/cmd")
    touchscreen = peers("touchscreen")
    touchscreen.publish("devetka/table2/cmd", '{"id":"for table2"}')
    touchscreen.publish(f"devetka/{TABLE}/cmd", '{"id":"for table1"}')
    assert daemon.live() == (f"devetka/{TABLE}/cmd", '{"id":"for table1"}')


def test_the_daemon_reads_its_venue_bridges_state_and_no_other_login_can_forge_it(peers):
    """The bridge says 1/0 on ``devetka/<table>/bridge`` on the table's broker too; a forged 0 would hold a called
    match's Start, a forged 1 would let it start with the venue away: only the table's daemon login may write there
    (and it does not), and it reads it. No local login may write the director's heartbeat (a forged one would keep
    a cut-off table's Start open), which the daemon reads."""
    daemon = peers("devetka", "table")
    daemon.subscribe(f"devetka/{TABLE}/bridge")
    daemon.subscribe("devetka/director/heartbeat")  # bridged in from the venue: no local login writes it either
    for login in ("touchscreen", "dashboard", "homeassistant", "devetka"):
        peers(login, "table").publish("devetka/director/heartbeat", '{"every_s": 86400}')
    for login in ("touchscreen", "dashboard", "homeassistant"):
        peers(login, "table").publish(f"devetka/{TABLE}/bridge", f"0 forged by {login}")
    peers("devetka", "table").publish(f"devetka/{TABLE}/bridge", "1")  # standing in for the bridge: no login
    assert daemon.live() == (f"devetka/{TABLE}/bridge", "1")


@pytest.mark.parametrize("listener", ["venue", "table"])
def test_the_broker_writes_to_its_clients_without_nagle(shipped, peers, listener):
    """set_tcp_nodelay: a dashboard reading an event and the state written right after it would otherwise get the
    state at its own delayed ACK, up to 40 ms later. Read off the broker's end of the connection; the control is a
    Mosquitto on its defaults, whose end keeps Nagle's algorithm."""
    assert nagle_off(shipped.process.pid, peers("dashboard" if listener == "venue" else "devetka", listener))
    with PrivateBroker() as defaults:
        plain = Peer("plain")
        try:
            assert not plain.connect(defaults.port).is_failure
            assert not nagle_off(defaults.process.pid, plain)
        finally:
            plain.close()
