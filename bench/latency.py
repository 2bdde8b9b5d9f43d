"""How soon does a sensor frame reach a dashboard over MQTT, and how soon does a killed table read offline?

    python bench/latency.py [--quick] [--inputs N] [--gap-ms MS] [--kills K] [--seed S] [--without-mqtt]

Everything is the real thing, each in its own process: a private Mosquitto
(scoreboard/sim/broker.py), ``devetka run`` with ``[sensors.serial]`` on the
simulator's link and ``[mqtt]`` on that broker (the suite's ``Daemon`` from
tests/live.py), and ``devetka simulate-mcu --trace`` playing the strikes,
cushions and pockets of a simulated match, one frame every ``--gap-ms``. The
trace gives ``time.monotonic()`` as each frame is written; a paho subscriber
here (TCP_NODELAY, as the daemon's own link) stamps each ``event`` message as
it arrives. CLOCK_MONOTONIC is one clock for every process of the machine, so
the difference is the latency through the pseudo-terminal, the daemon's serial
reader, the fold, the store's commit (SQLite WAL, synchronous=FULL) and the
broker: (a) p50, p99 and max over at least ``--inputs`` inputs. The goal is
p99 at most 5 ms.

The match log is folded here first and only the inputs that move the match
are played (no taps, no settle: the daemon's settle timer is set to an hour),
so each frame gives exactly one ``event``; they are paired in order.

(b) the last will: the daemon is killed (SIGKILL) ``--kills`` times and the
time from the kill to ``offline`` on its availability topic is measured.

(c) with ``--without-mqtt``: the frames of (a) again, to a daemon with no
``[mqtt]`` section, timed to the local API's state: what MQTT costs the rest.

Nothing is pinned to one core: four processes take part, as on the Pi.
"""

from __future__ import annotations

import argparse
import math
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from _common import load_average, machine
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.simulator import PLAYED  # noqa: E402
from scoreboard.adapters.mqtt import Topics  # noqa: E402
from scoreboard.core.inputs import RuleOptions, to_json  # noqa: E402
from scoreboard.core.match import Match  # noqa: E402
from scoreboard.core.rules import RuleError  # noqa: E402
from scoreboard.sim.broker import PrivateBroker  # noqa: E402
from scoreboard.sim.table import Sensors, SimulatedTable  # noqa: E402
from tests.live import DEVETKA, Daemon  # noqa: E402

TABLE = "bench"
TOPICS = Topics.of("devetka", TABLE, "homeassistant")
WAIT = 120.0


class Failed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def played_log(inputs: int, seed: int, gap: float) -> list:
    """A match start and at least ``inputs`` sensed inputs that each move the match, ``gap`` seconds apart."""
    racks = max(1, math.ceil(inputs / 35))
    while True:
        table = SimulatedTable(seed=seed, rules=RuleOptions(strike_sensed=True),
                               sensors=Sensors(ball_ids=1.0, camera=False))
        log = list(table.play_racks(racks))
        match = Match(log[0])
        kept = []
        for item in log[1:]:
            if type(item) not in PLAYED:
                continue
            item = replace(item, t=len(kept) * gap)
            before = match.state
            try:
                match.apply(item)
            except RuleError:
                continue
            if match.state is not before:
                kept.append(item)
        if len(kept) >= inputs:
            return [log[0]] + kept[:inputs]
        racks += max(1, racks // 4)


class Subscriber:
    """A dashboard: paho with TCP_NODELAY, every message stamped with ``time.monotonic()`` on arrival."""

    def __init__(self, broker: PrivateBroker, topics: list[str]) -> None:
        self.arrived: queue.Queue[tuple[float, str, bytes]] = queue.Queue()
        subscribed: queue.Queue[int] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.on_socket_open = lambda client, userdata, sock: sock.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.client.on_message = lambda client, userdata, message: self.arrived.put(
            (time.monotonic(), message.topic, bytes(message.payload)))
        self.client.on_subscribe = lambda client, userdata, mid, reasons, properties: subscribed.put(mid)
        self.client.connect(broker.host, broker.port, keepalive=60)
        self.client.loop_start()
        for topic in topics:
            _, mid = self.client.subscribe(topic, qos=1)
            check(subscribed.get(timeout=WAIT) == mid, f"the broker did not acknowledge the subscription to {topic}")

    def next(self, timeout: float = WAIT) -> tuple[float, str, bytes]:
        try:
            return self.arrived.get(timeout=timeout)
        except queue.Empty:
            raise Failed(f"no message within {timeout:g} s") from None

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def stamp_states(client, inputs: int, states: dict[int, float]) -> None:
    """The local API's side: when the broadcast state of each ``seq`` arrived (a thread of its own)."""
    while len(states) < inputs:
        text = client.stream.readline()
        arrived = time.monotonic()
        if not text:
            return
        message = orjson.loads(text)
        if message.get("type") == "state" and message.get("seq") and message["seq"] not in states:
            states[message["seq"]] = arrived


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def write_log(folder: Path, inputs: int, seed: int, gap: float) -> tuple[list, Path]:
    log = played_log(inputs, seed, gap)
    played = folder / "played.jsonl"
    played.write_bytes(b"".join(orjson.dumps(to_json(item)) + b"\n" for item in log))
    return log, played


def play(daemon: Daemon, log: list, played: Path, link: Path, inputs: int, gap: float) -> tuple[list, dict]:
    """Begin the match on the local API, play the frames; the traced frames and when each seq's state arrived."""
    states: dict[int, float] = {}
    client = daemon.client()
    check(client.request({"cmd": "new_match", "match_start": to_json(log[0])})["ok"], "new_match refused")
    screen = threading.Thread(target=stamp_states, args=(client, inputs, states), daemon=True)
    screen.start()
    sim = subprocess.run([DEVETKA, "simulate-mcu", "--link", str(link), "--play", str(played), "--trace",
                          "--wait", str(WAIT)], capture_output=True, timeout=WAIT + inputs * gap * 4)
    check(sim.returncode == 0, f"simulate-mcu failed: {sim.stderr.decode()}")
    frames = [orjson.loads(line) for line in sim.stdout.splitlines()]
    frames = [frame for frame in frames if frame["type"] in ("strike", "cushion", "pocket")]
    check(len(frames) == inputs, f"{len(frames)} sensor frames traced for {inputs} inputs")
    screen.join(WAIT)
    check(len(states) == inputs, f"{len(states)} states on the local API for {inputs} inputs")
    return frames, states


def figures(latencies: list[float]) -> str:
    latencies = sorted(latencies)
    return (f"p50 {statistics.median(latencies) * 1e3:.2f} ms, p99 {percentile(latencies, 0.99) * 1e3:.2f} ms, "
            f"max {latencies[-1] * 1e3:.2f} ms")


def frame_to_event(broker: PrivateBroker, folder: Path, inputs: int, gap: float, seed: int) -> list[str]:
    log, played = write_log(folder, inputs, seed, gap)
    link = folder / "mcu"
    daemon = Daemon(folder, config=f'[table]\nid = "{TABLE}"\n[sensors.serial]\nport = "{link}"\n'
                                   'rails = true\nstrike = true\n'
                                   f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n')
    lines = [f"load average before (a): {load_average()}"]
    subscriber = Subscriber(broker, [TOPICS.availability, TOPICS.event])
    daemon.start()
    try:
        while subscriber.next()[2] != b"online":
            pass
        frames, states = play(daemon, log, played, link, inputs, gap)
        events = []
        while len(events) < inputs:
            arrived, topic, payload = subscriber.next()
            message = orjson.loads(payload)
            if topic == TOPICS.event and message["event"] == "input" and message["input"]["type"] != "match_start":
                events.append((arrived, message))
    finally:
        subscriber.close()
        daemon.kill()
    latencies, local = [], []
    for frame, (arrived, message) in zip(frames, events, strict=True):
        item = message["input"]
        check(item["type"] == frame["type"] and item.get("src") == "serial",
              f"frame {frame} paired with event {message}: the order was not kept")
        latencies.append(arrived - frame["t"])
        local.append(states[message["seq"]] - frame["t"])
    p99 = percentile(sorted(latencies), 0.99)
    lines.append(f"(a) the same frames to the state on the local API (after the store's commit, as the MQTT "
                 f"event): {figures(local)}")
    lines.append(f"(a) sensor frame to MQTT event, {len(latencies):,} inputs {gap * 1e3:g} ms apart: "
                 f"{figures(latencies)}; goal p99 at most 5 ms: {'met' if p99 <= 0.005 else 'NOT met'}")
    lines.append(f"load average after (a): {load_average()}")
    return lines


def frame_to_state_without_mqtt(folder: Path, inputs: int, gap: float, seed: int) -> list[str]:
    """The same frames with no [mqtt] section: what MQTT's presence costs the daemon's own path."""
    log, played = write_log(folder, inputs, seed, gap)
    link = folder / "mcu"
    daemon = Daemon(folder, config=f'[table]\nid = "{TABLE}"\n[sensors.serial]\nport = "{link}"\n'
                                   'rails = true\nstrike = true\n')
    daemon.start()
    try:
        frames, states = play(daemon, log, played, link, inputs, gap)
    finally:
        daemon.kill()
    local = [states[seq] - frame["t"] for seq, frame in enumerate(frames, start=1)]
    return [f"(c) the same frames to the local API's state with MQTT off: {figures(local)} "
            f"(load average after: {load_average()})"]


def last_will(broker: PrivateBroker, folder: Path, kills: int) -> list[str]:
    delays = []
    daemon = Daemon(folder, config=f'[table]\nid = "{TABLE}"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n')
    subscriber = Subscriber(broker, [TOPICS.availability])
    try:
        for _ in range(kills):
            daemon.start()
            while subscriber.next()[2] != b"online":
                pass
            killed = time.monotonic()
            daemon.process.send_signal(signal.SIGKILL)
            while True:
                arrived, _, payload = subscriber.next()
                if payload == b"offline":
                    delays.append(arrived - killed)
                    break
            daemon.process.communicate()
    finally:
        subscriber.close()
        daemon.kill()
    delays.sort()
    median = statistics.median(delays)
    return [f"(b) kill -9 to 'offline' (the last will), {kills} kills: median {median * 1e3:.2f} ms, "
            f"max {delays[-1] * 1e3:.2f} ms"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (200 inputs, 2 kills) to check it works")
    parser.add_argument("--inputs", type=int, help="sensor inputs played (default 1,500)")
    parser.add_argument("--gap-ms", type=float, default=10.0, help="milliseconds between frames (default 10)")
    parser.add_argument("--kills", type=int, help="kills for the last-will figure (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--without-mqtt", action="store_true",
                        help="(c): play the same frames again to a daemon with MQTT off, for comparison")
    args = parser.parse_args(argv)
    inputs = args.inputs or (200 if args.quick else 1500)
    kills = args.kills or (2 if args.quick else 20)
    if not PrivateBroker.available():
        print("bench/latency.py: mosquitto is not installed (apt-get install mosquitto)", file=sys.stderr)
        return 2
    print(" | ".join(f"{key}: {value}" for key, value in machine().items()))
    try:
        with PrivateBroker() as broker, tempfile.TemporaryDirectory(prefix="devetka-latency-") as tmp:
            folder = Path(tmp)
            (folder / "a").mkdir()
            (folder / "b").mkdir()
            for line in frame_to_event(broker, folder / "a", inputs, args.gap_ms / 1e3, args.seed):
                print(line, flush=True)
            for line in last_will(broker, folder / "b", kills):
                print(line, flush=True)
            if args.without_mqtt:
                (folder / "c").mkdir()
                for line in frame_to_state_without_mqtt(folder / "c", inputs, args.gap_ms / 1e3, args.seed):
                    print(line, flush=True)
    except Failed as error:
        print(f"bench/latency.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
