"""The venue director's call on the touchscreen (kv/root.kv, viewmodel ``_call``): "Called: Ana - Ben, race to 7,
winners' round 2" over whatever screen is up, with Start and Not now, touched for real under Xvfb; the call sent to a
real ``devetka run`` over its local API as the director's bridged ``cmd`` carries it."""

from __future__ import annotations

import time

import paho.mqtt.client as mqtt
import pytest

from tests.live import TIMEOUT

CALL = {"id": "5e1f0a9c3b2d/1/W2-1/7", "match": "W2-1", "round": "W2", "side": "winners", "profile": "wpa",
        "expires": None, "match_start": {"players": ["Ana", "Ben"], "race": [7, 7], "breaker": 0}}


@pytest.fixture
def daemon_config(broker):
    """``devetka run`` on a Mosquitto of the test's own, where its table's bridge would say the venue link's state."""
    return f'[ui]\npin = "0000"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'


def bridge_says(broker, payload: str) -> None:
    """What the table's Mosquitto bridge publishes on the table's own broker (retained, QoS 1) when the venue link
    goes up (1) or down (0)."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bridge-notice", protocol=mqtt.MQTTv311)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        client.publish("devetka/table1/bridge", payload, qos=1, retain=True).wait_for_publish(TIMEOUT)
    finally:
        client.loop_stop()
        client.disconnect()


def called(daemon, screen) -> None:
    client = daemon.client()
    try:
        assert client.request({"cmd": "call", "call": {**CALL, "expires": time.time() + 600}})["ok"]
    finally:
        client.close()
    screen.wait_for(lambda: screen.visible(screen.widget("call_text")) and screen.text("call_text"), "the call")


def served(daemon) -> dict:
    client = daemon.client()
    try:
        return client.request({"cmd": "state"})["state"]
    finally:
        client.close()


def test_start_on_the_called_match_begins_exactly_that_match(screen, daemon):
    assert not screen.visible(screen.widget("call_start"))  # no call: nothing over the screen
    called(daemon, screen)
    assert screen.text("call_text") == "Called: Ana - Ben, race to 7, winners' round 2"
    assert (screen.text("call_start"), screen.text("call_decline")) == ("Start", "Not now")
    screen.screenshot("call")
    screen.tap_id("call_start")
    state = screen.wait_for(lambda: served(daemon) if served(daemon)["players"] else None, "the match begun")
    assert (state["players"], state["race"], state["match_call"]) == (["Ana", "Ben"], [7, 7], CALL["id"])
    screen.wait_for(lambda: not screen.visible(screen.widget("call_start")), "the call gone once started")
    screen.wait_for(lambda: screen.current == "live", "the live screen of the called match")


def test_not_now_gives_the_call_back_and_begins_nothing(screen, daemon):
    called(daemon, screen)
    under = screen.current
    panel, name = screen.widget("call"), screen.widget("name0", "setup")
    x, y = name.to_window(name.x, name.y)
    x, y = max(x, panel.x) + 4, min(y + name.height, panel.top) - 4  # inside the call, over the first name field
    assert panel.collide_point(x, y) and name.collide_point(*name.to_widget(x, y))
    screen.touch_at(x, y)
    screen.frames(3)
    assert screen.current == under and screen.app.typing_into is None  # nothing under it was touched
    screen.tap_id("call_decline")
    screen.wait_for(lambda: not screen.visible(screen.widget("call_text")), "the call gone")
    state = served(daemon)
    assert state["call"]["status"] == "declined" and state["players"] is None


def test_start_says_why_while_the_venue_cannot_be_reached_and_begins_nothing(screen, daemon, broker):
    called(daemon, screen)
    bridge_says(broker, "0")
    why = "the venue cannot be reached: this called match can start once it is back (or ask the desk)"
    screen.wait_for(lambda: served(daemon)["call"]["start"] == {"ok": False, "why": why}, "the venue link down")
    screen.tap_id("call_start")
    screen.wait_for(lambda: screen.app.message == why, "why Start begins nothing")
    screen.screenshot("call-venue-away")
    state = served(daemon)
    assert state["players"] is None and state["call"]["status"] == "offered"
    assert screen.visible(screen.widget("call_start"))  # the call stays on the screen
    bridge_says(broker, "1")
    screen.wait_for(lambda: served(daemon)["call"]["start"]["ok"], "the venue link back")
    screen.tap_id("call_start")
    state = screen.wait_for(lambda: served(daemon) if served(daemon)["players"] else None, "the match begun")
    assert state["match_call"] == CALL["id"]
