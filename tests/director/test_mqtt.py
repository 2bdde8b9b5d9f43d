"""The director's link to the venue broker (scoreboard/director/mqtt.py), on a real Mosquitto: the last will says
offline when the director dies, and a table's retained state decides whether it is in play."""

from __future__ import annotations

import time

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.director.test_serve import RunningDirector


def test_the_director_killed_is_offline_on_the_venue_broker(broker, tmp_path):
    running = RunningDirector(tmp_path, "--mqtt-host", "127.0.0.1", "--mqtt-port", str(broker.port)).start()
    seen: list[bytes] = []
    reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="watcher")
    reader.on_message = lambda client, userdata, message: seen.append(message.payload)
    reader.connect("127.0.0.1", broker.port, keepalive=5)
    reader.subscribe("devetka/director/availability", qos=1)
    reader.loop_start()
    try:
        deadline = time.monotonic() + 20
        while b"online" not in seen and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seen[-1:] == [b"online"]
        running.kill()  # no goodbye: the broker sends the last will when the connection drops
        deadline = time.monotonic() + 60
        while seen[-1] != b"offline" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seen[-1] == b"offline"
    finally:
        reader.loop_stop()
        reader.disconnect()


def test_a_request_on_the_venue_broker_is_answered_through_the_directors_checks(broker, tmp_path):
    """The operator's page asks on devetka/director/request/<page> and reads devetka/director/answer/<page>; a
    refused request is answered with its message and changes nothing."""
    import orjson

    from scoreboard.director.server import ask

    running = RunningDirector(tmp_path, "--mqtt-host", "127.0.0.1", "--mqtt-port", str(broker.port)).start()
    answers: list[dict] = []
    page = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="operator-page")
    page.on_message = lambda client, userdata, message: answers.append(orjson.loads(message.payload))
    page.connect("127.0.0.1", broker.port, keepalive=5)
    page.subscribe("devetka/director/answer/p1", qos=1)
    page.loop_start()

    def asked(request: dict) -> dict:
        count = len(answers)
        page.publish("devetka/director/request/p1", orjson.dumps(request), qos=1).wait_for_publish(5)
        deadline = time.monotonic() + 20
        while len(answers) == count and time.monotonic() < deadline:
            time.sleep(0.02)
        return answers[count]

    try:
        deadline = time.monotonic() + 20
        while not answers and time.monotonic() < deadline:  # the director may not have subscribed yet
            page.publish("devetka/director/request/p1", orjson.dumps({"id": "hello", "cmd": "events"}), qos=1)
            time.sleep(0.2)
        new = asked({"id": "a1", "cmd": "new", "spec": {"name": "N", "format": "single", "players": ["Ana", "Ben"],
                                                       "race": 3}})
        assert new["id"] == "a1" and new["ok"] and new["event"] == 1
        refused = asked({"id": "a2", "cmd": "result", "match": "W1-1", "score": [3, 1]})
        assert refused == {"id": "a2", "ok": False, "error": "W1-1 waits for its players",
                           "message": {"id": "{match} waits for its players", "args": {"match": "W1-1"}}}
        assert asked({"id": "a3", "cmd": "draw"})["ok"]
        assert asked({"id": "a4", "cmd": "result", "match": "W1-1", "score": [3, 1]})["state"]["winner"] == "Ana"
        assert asked({"id": "a5", "cmd": "nonsense"})["ok"] is False
        assert ask(running.socket, {"cmd": "status"})["state"]["records"] == 3  # created, draw, one result
    finally:
        page.loop_stop()
        page.disconnect()
        running.stop()
