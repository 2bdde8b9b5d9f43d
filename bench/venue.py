"""How soon does an input at a table reach its tile on the venue board, with 8 and with 50 tables playing?

    python bench/venue.py [--tables 8,50] [--seconds S] [--speed X] [--hour]

Everything is the real thing, as ``devetka venue-demo`` runs it (scoreboard/sim/venue_demo.py): a venue
Mosquitto serving the board, and N tables, each ``devetka demo --hold`` (the real daemon on simulated sensors,
at ``--speed`` times a real table's pace: 1 is real time) with its own Mosquitto bridged to the venue. The board
is open in headless Chromium (tests/venue/browser.py).

(a) Input to tile: a paho subscriber on each table's own broker stamps each ``state`` as it arrives (the daemon
publishes it right after the commit: this is when the input was stored, plus the table broker's ~0.3 ms); the page
records when it repainted a seq (``window.devetkaDrawn``: ``performance.timeOrigin + performance.now()``, the
same wall clock). A state's latency is from its stamp to the first repaint of that seq or a later one of the same
match (the page draws once a frame: two states within a frame are drawn as the later). p50, p99, max over
``--seconds`` of play. Goal: p99 at most 100 ms with 50 tables (aim for 50 ms).

(b) CPU and memory: the venue broker's and the browser's (all of Chromium's processes) CPU seconds over the run
and resident memory at its end; with ``--hour``, the browser's memory every 5 minutes over an hour of play.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from _common import load_average, machine
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.venue_demo import Table, VenueBroker, VenueOptions, table_ids  # noqa: E402
from scoreboard.venue import bridge  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


class Stamps:
    """Each table's states as its own broker delivered them: (table, match_id, seq) -> wall time (ms)."""

    def __init__(self) -> None:
        self.at: dict[tuple[str, int, int], float] = {}
        self.lock = threading.Lock()
        self.clients: list[mqtt.Client] = []

    def watch(self, table_id: str, port: int) -> None:
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{table_id}-{secrets.token_hex(3)}")

        def on_connect(client, userdata, flags, reason_code, properties) -> None:
            client.subscribe(f"devetka/{table_id}/state")

        def on_message(client, userdata, message) -> None:
            now = time.time() * 1000
            state = orjson.loads(message.payload)
            if message.retain or state.get("match_id") is None:
                return
            with self.lock:
                self.at.setdefault((table_id, state["match_id"], state["seq"]), now)

        client.on_connect, client.on_message = on_connect, on_message
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.clients.append(client)

    def close(self) -> None:
        for client in self.clients:
            client.loop_stop()
            client.disconnect()


def latencies(stamps: dict[tuple[str, int, int], float], drawn: list[dict]) -> list[float]:
    """For each stamped state, the ms to the first repaint of it or of a later state of its table (by match, seq).

    No repaint is left out for coming before the stamp: the page's clock (``performance.timeOrigin`` + ``now()``)
    and Python's ``time.time()`` differ by a few ms, and skipping the state's own repaint would count the next
    state's, seconds later at a table's pace. A repaint of (match, seq) or later cannot come before the state was
    stored, so a value below 0 is that clock difference."""
    by_table: dict[str, list[tuple[int, int, float]]] = {}
    for entry in drawn:
        by_table.setdefault(entry["table"], []).append((entry.get("match") or 0, entry["seq"], entry["t"]))
    out = []
    for (table, match, seq), stored in stamps.items():
        shown = [t for (m, s, t) in by_table.get(table, ()) if (m, s) >= (match, seq)]
        if shown:
            out.append(min(shown) - stored)
    return out


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / TICKS


def resident_mb(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    return total


def proportional_mb(pids: list[int]) -> float:
    """Memory by PSS: pages shared among Chromium's processes counted once, in shares, not once per process."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) / 1024
    return total


def chromium_pids(root: int) -> list[int]:
    found = subprocess.run(["pgrep", "-g", str(os.getpgid(root))], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in found] or [root]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(count: int, seconds: float, speed: float, hour: bool) -> None:
    ids = table_ids(count)
    logins = {table_id: secrets.token_hex(8) for table_id in ids}
    options = VenueOptions(tables=count, racks=99, speed=speed, headless=True)
    stamps = Stamps()
    tables: list[Table] = []
    with tempfile.TemporaryDirectory(prefix="devetka-bench-venue-") as folder, VenueBroker(logins) as venue:
        try:
            with Browser() as browser:
                browser.open(f"http://127.0.0.1:{venue.websockets_port}/")
                for number, table_id in enumerate(ids, start=1):
                    text = bridge.render_table_bridge(table_id, "127.0.0.1", venue.tables_port, table_id,
                                                      logins[table_id])
                    table = Table(table_id, number, text, options, Path(folder), lambda line: None)
                    tables.append(table)
                    stamps.watch(table_id, table.broker.port)
                browser.wait_for(f"document.querySelectorAll('[data-table]').length === {count}", timeout=300)
                browser.evaluate("window.devetkaDrawn.length = 0")
                with stamps.lock:
                    stamps.at.clear()
                browser_pids = chromium_pids(browser.process.pid)
                venue_cpu, browser_cpu = cpu_seconds([venue.process.pid]), cpu_seconds(browser_pids)
                began = time.monotonic()
                samples = []
                length = 3600.0 if hour else seconds
                while time.monotonic() - began < length:
                    time.sleep(min(300.0, length))
                    samples.append((time.monotonic() - began, proportional_mb(chromium_pids(browser.process.pid))))
                drawn = browser.evaluate("window.devetkaDrawn")
                venue_cpu = cpu_seconds([venue.process.pid]) - venue_cpu
                browser_cpu = cpu_seconds(browser_pids) - browser_cpu
                elapsed = time.monotonic() - began
                with stamps.lock:
                    stamped = dict(stamps.at)
                values = latencies(stamped, drawn)
                print(f"({count} tables) load average {load_average()}")
                if values:
                    print(f"({count} tables) input to tile, {len(values)} states of {len(stamped)} stamped over "
                          f"{elapsed:.0f} s at {speed:g}x: p50 {statistics.median(values):.1f} ms, "
                          f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")
                else:
                    print(f"({count} tables) no state was both stamped and drawn in {elapsed:.0f} s")
                print(f"({count} tables) venue broker: {100 * venue_cpu / elapsed:.1f}% of a core, "
                      f"{resident_mb([venue.process.pid]):.1f} MB resident")
                print(f"({count} tables) browser ({len(browser_pids)} processes): "
                      f"{100 * browser_cpu / elapsed:.1f}% of a core, {samples[-1][1]:.0f} MB (PSS)")
                if hour:
                    print(f"({count} tables) browser memory over the hour: "
                          + ", ".join(f"{at / 60:.0f} min {mb:.0f} MB" for at, mb in samples))
        finally:
            stamps.close()
            for table in tables:
                table.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="8,50", help="table counts to measure, comma-separated (default 8,50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of play measured (default 60)")
    parser.add_argument("--speed", type=float, default=1.0, help="the tables' pace, 1 = real time (default 1)")
    parser.add_argument("--hour", action="store_true", help="an hour of play, the browser's memory every 5 min")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    for count in (int(n) for n in args.tables.split(",")):
        run(count, args.seconds, args.speed, args.hour)


if __name__ == "__main__":
    main()
