"""How soon does an input at a table reach its tile on the venue board, with 8 and with 50 tables playing?

    python bench/venue.py [--engine mosquitto|nats] [--tables 8,50] [--seconds S] [--speed X] [--hour]
                          [--no-readers-stamp] [--loopback]

Everything is the real thing, as ``devetka venue-demo`` runs it (scoreboard/sim/venue_demo.py): the venue as
``install.sh --venue-server`` sets it up (``mosquitto``: the tables' Mosquitto bridged one way to the readers'
nats-server on the same box; ``nats``: three NATS nodes), and N tables, each ``devetka demo --hold`` (the real
daemon on simulated sensors, at ``--speed`` times a real table's pace: 1 is real time) with its own Mosquitto
bridged to the venue. The board is open in headless Chromium (tests/venue/browser.py), as a user opens it.

(a) Input to tile, the path a user sees, hop by hop. For each live ``state`` (one per input the daemon accepted),
by (table, match, seq):

  0. the table's broker: a paho subscriber there stamps it as it arrives (the daemon publishes it right after the
     commit: this is when the input was stored, plus the table broker's fraction of a ms);
  1. the readers' broker: a paho subscriber on the broker the board reads (MQTT on its readers' port) stamps it:
     the table's bridge, the venue broker and (Mosquitto venue) its bridge to the readers' broker;
  2. the page: the board's MQTT client handed it over (``window.devetkaArrived``): the readers' broker's
     WebSocket and MQTT.js;
  3. the tile repainted with that seq or a later one of the same match (``window.devetkaDrawn``; the page draws
     once a frame: two states within a frame are drawn as the later).

Page times are ``performance.timeOrigin + performance.now()``, the same wall clock as Python's ``time.time()``
within a few ms. p50, p99, max over ``--seconds`` of play, with the load average before and after. Goal: p99 at
most 50 ms with 50 tables (above 100 ms is a defect).

With ``--priority``, the venue's brokers, the browser and this bench (the stamps) run at nice -10 once everything
is started (root only): the venue's box as a machine of its own, which on a shared machine it is not; the simulated
tables and everyone else's work keep their priority. The output says so.

(b) CPU and memory: the venue's brokers' and the browser's (all of Chromium's processes) CPU seconds over the run
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
from _common import add_loopback_option, load_average, venue_header
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.venue_demo import ENGINES, MosquittoVenue, Table, VenueOptions, table_ids  # noqa: E402
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

    def watch_all(self, host: str, port: int) -> None:
        """Stamp every table's live states on one broker (the readers' broker the board reads)."""
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-readers-{secrets.token_hex(3)}",
                             protocol=mqtt.MQTTv311)

        def on_connect(client, userdata, flags, reason_code, properties) -> None:
            client.subscribe("devetka/+/state")

        def on_message(client, userdata, message) -> None:
            now = time.time() * 1000
            if message.retain:
                return
            state = orjson.loads(message.payload)
            if state.get("match_id") is None:
                return
            with self.lock:
                self.at.setdefault((message.topic.split("/")[1], state["match_id"], state["seq"]), now)

        client.on_connect, client.on_message = on_connect, on_message
        client.connect(host, port)
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


def hops(stored: dict[tuple[str, int, int], float], readers: dict[tuple[str, int, int], float],
         arrived: list[dict], drawn: list[dict]) -> dict[str, list[float]]:
    """Each hop's ms, for the states stamped at the table's broker: to the readers' broker, to the page, to the
    repaint; and the whole path, the table's broker to the repaint (see ``latencies``)."""
    came: dict[tuple[str, int, int], float] = {}
    for entry in arrived:  # the first arrival: a table's broker sends its state again when its daemon reconnects
        came.setdefault((entry["table"], entry.get("match") or 0, entry["seq"]), entry["t"])
    shown: dict[tuple[str, int, int], float | None] = dict.fromkeys(stored)
    whole = []
    for key, at in stored.items():
        values = latencies({key: at}, drawn)
        if values:
            shown[key] = at + values[0]
            whole.append(values[0])
    out: dict[str, list[float]] = {"input to tile": whole, "table broker -> readers' broker": [],
                                   "readers' broker -> page (WebSocket)": [], "page: arrival -> repaint": []}
    for key, at in stored.items():
        if key in readers:
            out["table broker -> readers' broker"].append(readers[key] - at)
            if key in came:
                out["readers' broker -> page (WebSocket)"].append(came[key] - readers[key])
        if key in came and shown[key] is not None:
            out["page: arrival -> repaint"].append(shown[key] - came[key])
    return out


def venue_pids(venue) -> list[int]:
    if isinstance(venue, MosquittoVenue):
        return [venue.broker.process.pid, venue.broker.readers.process.pid]
    return [pid for pid, _ in venue.nodes]


def prioritise(pids: list[int]) -> None:
    """nice -10 for ``pids`` and this process (not the tables': they were started before)."""
    for pid in [*pids, os.getpid()]:
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, pid, -10)


def run(engine: str, count: int, seconds: float, speed: float, hour: bool, priority: bool = False,
        readers_stamp: bool = True) -> None:
    ids = table_ids(count)
    logins = {table_id: secrets.token_hex(8) for table_id in ids}
    options = VenueOptions(tables=count, racks=99, speed=speed, headless=True, engine=engine)
    stamps, readers = Stamps(), Stamps()
    tables: list[Table] = []
    name = f"({engine}, {count} tables{', venue and browser at nice -10' if priority else ''})"
    with tempfile.TemporaryDirectory(prefix="devetka-bench-venue-") as folder, contextlib.ExitStack() as stack:
        venue = ENGINES[engine](stack, logins)
        try:
            with Browser() as browser:
                browser.open(venue.board)
                for number, table_id in enumerate(ids, start=1):
                    table = Table(table_id, number, venue.bridge(table_id, logins[table_id]), options, Path(folder),
                                  lambda line: None)
                    tables.append(table)
                    stamps.watch(table_id, table.broker.port)
                if readers_stamp:
                    readers.watch_all(*venue.nodes[0][1])
                browser.wait_for(f"document.querySelectorAll('[data-table]').length === {count}", timeout=300)
                browser.evaluate("window.devetkaDrawn.length = 0; window.devetkaArrived.length = 0")
                for kept in (stamps, readers):
                    with kept.lock:
                        kept.at.clear()
                load_before = load_average()
                browser_pids = chromium_pids(browser.process.pid)
                pids = venue_pids(venue)
                if priority:
                    prioritise(pids + browser_pids)
                venue_cpu, browser_cpu = cpu_seconds(pids), cpu_seconds(browser_pids)
                own_cpu = time.process_time()
                began = time.monotonic()
                samples = []
                length = 3600.0 if hour else seconds
                while time.monotonic() - began < length:
                    time.sleep(min(300.0, length))
                    samples.append((time.monotonic() - began, proportional_mb(chromium_pids(browser.process.pid))))
                drawn = browser.evaluate("window.devetkaDrawn")
                arrived = browser.evaluate("window.devetkaArrived")
                venue_cpu = cpu_seconds(pids) - venue_cpu
                browser_cpu = cpu_seconds(browser_pids) - browser_cpu
                own_cpu = time.process_time() - own_cpu
                elapsed = time.monotonic() - began
                with stamps.lock, readers.lock:
                    stamped, relayed = dict(stamps.at), dict(readers.at)
                print(f"{name} load average before {load_before}, after {load_average()}")
                for hop, values in hops(stamped, relayed, arrived, drawn).items():
                    if values:
                        print(f"{name} {hop}: {len(values)} states of {len(stamped)} over {elapsed:.0f} s at "
                              f"{speed:g}x: p50 {statistics.median(values):.1f} ms, "
                              f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")
                    else:
                        print(f"{name} {hop}: no state timed in {elapsed:.0f} s")
                print(f"{name} venue's brokers ({len(pids)} processes): {100 * venue_cpu / elapsed:.1f}% of a core, "
                      f"{resident_mb(pids):.1f} MB resident")
                print(f"{name} browser ({len(browser_pids)} processes): "
                      f"{100 * browser_cpu / elapsed:.1f}% of a core, {samples[-1][1]:.0f} MB (PSS)")
                print(f"{name} this bench (its stamps: {len(stamps.clients) + len(readers.clients)} paho clients): "
                      f"{100 * own_cpu / elapsed:.1f}% of a core")
                if hour:
                    print(f"{name} browser memory over the hour: "
                          + ", ".join(f"{at / 60:.0f} min {mb:.0f} MB" for at, mb in samples))
        finally:
            stamps.close()
            readers.close()
            for table in tables:
                table.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), default="mosquitto",
                        help="the venue's broker, as venue-demo --engine (default mosquitto)")
    parser.add_argument("--tables", default="8,50", help="table counts to measure, comma-separated (default 8,50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of play measured (default 60)")
    parser.add_argument("--speed", type=float, default=1.0, help="the tables' pace, 1 = real time (default 1)")
    parser.add_argument("--priority", action="store_true",
                        help="the venue's brokers, the browser and the bench at nice -10 (root): a box of its own")
    parser.add_argument("--hour", action="store_true", help="an hour of play, the browser's memory every 5 min")
    parser.add_argument("--no-readers-stamp", action="store_true",
                        help="no subscriber of the bench's on the readers' broker (the first two hops are not split)")
    add_loopback_option(parser)
    args = parser.parse_args()
    venue_header(args.loopback)
    for count in (int(n) for n in args.tables.split(",")):
        run(args.engine, count, args.seconds, args.speed, args.hour, args.priority, not args.no_readers_stamp)


if __name__ == "__main__":
    main()
