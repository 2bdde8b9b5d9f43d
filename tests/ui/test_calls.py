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


def called(daemon, screen, call: dict = CALL) -> None:
    client = daemon.client()
    try:
        assert client.request({"cmd": "call", "call": {**call, "expires": time.time() + 600}})["ok"]
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


NINE_ON_THE_BREAK = ({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"})
TO_W3 = {"match": "W3-1", "round": "W3", "side": "winners",
         "against": {"winner_of": "W2-2", "players": ["Cvita", "Dino"]}}
TO_L2 = {"match": "L2-1", "round": "L2", "side": "losers", "against": {"player": "Ema"}}
ENGLISH_TABLE = '[ui]\npin = "0000"\n'
CROATIAN_TABLE = '[ui]\npin = "0000"\n[table]\nlanguage = "hr"\n'


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
@pytest.mark.parametrize("daemon_config, event, shown", [
    (ENGLISH_TABLE, "Friday 9-ball", ("Called: Ana - Ben, race to 3, winners' round 2",
                                      "Next for you: winners' round 3 against the winner of Cvita - Dino",
                                      "Next for you: losers' round 2 against Ema")),
    (CROATIAN_TABLE, "Petak, devetka", ("Poziv: Ana - Ben, igra se na 3, 2. kolo pobjedničke strane",
                                        "Za tebe slijedi: 3. kolo pobjedničke strane, protivnik: "
                                        "pobjednik meča Cvita - Dino",
                                        "Za tebe slijedi: 2. kolo repasaža, protivnik: Ema")),
], ids=["en", "hr"])
def test_screenshots_of_a_called_match_with_its_event_then_next_for_you_once_won(screen, daemon, table, size,
                                                                                  daemon_config, event, shown):
    """docs/screenshots/ (hr/ in Croatian): the call with the event's name over it, touched Start, the match won at
    the table, then the summary saying under each name where that player goes next; nothing cut, no English left
    on the Croatian screens."""
    from tests.ui.test_language import english

    folder = "hr/" if daemon_config == CROATIAN_TABLE else ""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    client = daemon.client()
    try:
        assert client.request({"cmd": "call", "call": {
            **CALL, "expires": time.time() + 600, "event": event, "next": [{"win": TO_W3, "lose": TO_L2}] * 2,
            "match_start": {"players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}}})["ok"]
    finally:
        client.close()
    screen.wait_for(lambda: screen.visible(screen.widget("call_event")), "the event's name over the call")
    assert (screen.text("call_event"), screen.text("call_text")) == (event, shown[0])
    screen.screenshot(f"{folder}call-event")
    assert screen.cut() == [] and (not folder or english(screen) == [])
    screen.tap_id("call_start")
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.players, "the called match begun")
    state = table.play({"cmd": "state"})
    while state["match_winner"] is None:
        state = table.play(*NINE_ON_THE_BREAK)
    assert state["players"][state["match_winner"]] == "Ana"
    screen.wait_for(lambda: screen.current == "summary" and screen.visible(screen.widget("next_row")),
                    "Next for you on the match summary")
    screen.wait_for(lambda: screen.text("stats"), "the match's counts")
    assert (screen.text("next0"), screen.text("next1")) == shown[1:]
    assert screen.visible(screen.widget("next0")) and screen.visible(screen.widget("next1"))
    assert screen.text("next") == ("Gotovo" if folder else "Done")  # no Rematch: the director calls them next
    screen.screenshot(f"{folder}match-summary-next")
    assert screen.cut() == [] and (not folder or english(screen) == [])
    screen.tap_id("next")
    screen.wait_for(lambda: screen.current == "live", "the summary closed")
    assert table.play({"cmd": "state"})["match_id"] == state["match_id"]  # nothing begun


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
