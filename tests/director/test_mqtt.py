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
