"""The issue's "done when": ``devetka sensors --serial PATH --json`` reads back exactly what ``devetka
simulate-mcu --link PATH --play LOG --garbage 0.05`` played, for a long log, both run as the installed command.

Then the simulator exits (an unplug), a second one starts on the same path with a new boot id (a replug of a
restarted microcontroller), and the same ``devetka sensors`` goes on reading it until SIGTERM, which ends it
with status 0.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time

import orjson

from scoreboard.core.inputs import RuleOptions, to_json
from scoreboard.sim.table import Sensors, SimulatedTable
from tests.commands.test_main import devetka

WAIT = 120.0  # seconds; generous for a loaded machine, never reached when all is well
PLAY_SECONDS = 2.0  # how long the long log takes to play


class Output:
    """A process's standard output, one parsed JSON line at a time, read in a thread."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def until(self, predicate, timeout: float = WAIT) -> list[dict]:
        """The lines up to the first one for which ``predicate`` holds."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"not seen within {timeout} s; last lines {got[-5:]}"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            assert line is not None, f"the output ended; last lines {got[-5:]}"
            got.append(line)
            self.seen.append(line)
            if predicate(line):
                return got


def write_log(path, items) -> list[dict]:
    lines = [to_json(item) for item in items]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return [line for line in lines if line["type"] in ("strike", "cushion", "pocket")]


def sensed(lines: list[dict]) -> list[tuple]:
    return [(line["type"], line.get("ball"), line.get("pocket"), line.get("rail"))
            for line in lines if line["type"] in ("strike", "cushion", "pocket")]


def health(lines: list[dict], status: str) -> list[dict]:
    return [line for line in lines if line["type"] == "health" and line["status"] == status]


def simulate(link, log, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([*devetka(), "simulate-mcu", "--link", str(link), "--play", str(log), *options],
                          capture_output=True, timeout=WAIT, stdin=subprocess.DEVNULL)


def test_sensors_reads_back_exactly_what_the_simulated_microcontroller_played(tmp_path):
    # A long match: 30 racks on a table with a strike sensor, cushion sensors and pocket sensors that name
    # seven balls in ten (the others are pockets with no ball).
    table = SimulatedTable(seed=11, rules=RuleOptions(strike_sensed=True), sensors=Sensors(ball_ids=0.7))
    items = list(table.play_racks(30))
    played = write_log(tmp_path / "long.jsonl", items)
    assert len(played) > 1000 and {p["type"] for p in played} == {"strike", "cushion", "pocket"}
    assert any(p["type"] == "pocket" and p.get("ball") is None for p in played)
    times = [item.t for item in items if item.t is not None]
    speed = (times[-1] - times[0]) / PLAY_SECONDS

    link = tmp_path / "ttyMCU"
    with open(tmp_path / "sensors.err", "wb") as errors:
        sensors = subprocess.Popen([*devetka(), "sensors", "--serial", str(link), "--json"],
                                   stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL)
    try:
        out = Output(sensors)
        out.until(lambda line: line.get("detail") == f"waiting for {link} to appear")

        first = simulate(link, tmp_path / "long.jsonl", "--garbage", "0.05", "--seed", "7",
                         "--speed", str(speed), "--trace")
        assert first.returncode == 0, first.stderr.decode()
        # The simulator exits once sensors has read everything; closing the line is an unplug.
        got = out.until(lambda line: line.get("status") == "offline" and line["detail"].startswith("unplugged"))
        assert sensed(got) == sensed(played)
        inputs = [line for line in got if line["type"] != "health"]
        assert all(line["src"] == "serial" for line in inputs)
        assert [line["t"] for line in inputs] == sorted(line["t"] for line in inputs)
        assert health(got, "errors"), "garbage at 5% must show as decoding errors"
        assert health(got, "missed_pockets") == [] and health(got, "lost_frames") == []
        trace = [json.loads(line) for line in first.stdout.splitlines()]
        assert [(t["type"], t["ball"]) for t in trace if t["type"] in ("strike", "cushion", "pocket")] == [
            (p["type"], p.get("ball")) for p in played]
        assert b"garbage bursts" in first.stderr

        # Replugged: a restarted microcontroller (another boot id) on the same path.
        short = write_log(tmp_path / "short.jsonl", items[:40])
        second = simulate(link, tmp_path / "short.jsonl", "--seed", "8", "--speed", "1000")
        assert second.returncode == 0, second.stderr.decode()
        got = out.until(lambda line: line.get("status") == "offline" and line["detail"].startswith("unplugged"))
        link_news = [line["status"] for line in got if line["type"] == "health" and line["subject"] == "link"]
        # ("offline: waiting for the path to appear" comes first if sensors looked before the replug)
        assert [status for status in link_news if status != "offline"][:3] == ["online", "restarted", "ok"]
        assert sensed(got) == sensed(short)
    finally:
        sensors.send_signal(signal.SIGTERM)
        assert sensors.wait(timeout=WAIT) == 0
