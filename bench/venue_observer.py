"""Input to tile measured a second way, beside ``bench/venue.py``: stamps from outside the Python process, repaints
from outside the board's own code.

    python bench/venue_observer.py [--engine mosquitto|nats] [--tables 50] [--seconds 60] [--speed 1] [--loopback]

The venue as ``devetka venue-demo`` runs it (scoreboard/sim/venue_demo.py), N tables each ``devetka demo --hold``
with its own Mosquitto bridged to it, the board in headless Chromium (tests/venue/browser.py). Two clocks, both the
machine's wall clock:

- at each table's broker, ``mosquitto_sub`` (Mosquitto's C client, one process per table, nothing of ours) prints
  each live state as it arrives, with its time (``%U``): when the daemon's commit reached the table's broker;
- in the page, a ``MutationObserver`` of this script's (not the board's ``devetkaDrawn``) records each time a tile's
  ``data-seq`` or ``data-match`` changes, with ``performance.timeOrigin + performance.now()``: the board draws a
  tile in a frame's callback and the observer runs before that frame is painted.

Input to tile: per stamped state, the first tile change to that (match, seq) or a later one of the same table.
Also printed: the CPU each kind of process used over the run (% of one core) and how often it woke (voluntary
context switches per second), from /proc: the tables' daemons and simulators, their Mosquittos, the venue's
brokers, Chromium, the stamps, this script.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _common import add_loopback_option, load_average, venue_header

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.venue_demo import ENGINES, MosquittoVenue, Table, VenueOptions, table_ids  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")

OBSERVER = """
window.observed = [];
new MutationObserver((changes) => {
  const t = performance.timeOrigin + performance.now();
  const seen = new Set();
  for (const change of changes) {
    const tile = change.target.closest && change.target.closest('[data-table]');
    if (!tile || seen.has(tile) || tile.dataset.seq === '') continue;
    seen.add(tile);
    window.observed.push({table: tile.dataset.table, match: Number(tile.dataset.match || 0),
                          seq: Number(tile.dataset.seq), t});
  }
}).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-seq', 'data-match']});
true
"""


def stamp(table_id: str, port: int, out: Path) -> subprocess.Popen:
    """``mosquitto_sub`` on a table's broker: each live state (retained ones skipped, ``-R``) with its arrival,
    appended to ``out`` (emptied once the measured time begins)."""
    return subprocess.Popen(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-R",
                             "-t", f"devetka/{table_id}/state", "-F", "%U %p"],
                            stdout=out.open("a"), stderr=subprocess.DEVNULL, start_new_session=True)


def stamps(folder: Path) -> dict[tuple[str, int, int], float]:
    """(table, match, seq) -> ms since the epoch, the first arrival of each, from every stamp file."""
    at: dict[tuple[str, int, int], float] = {}
    for path in folder.glob("*.stamps"):
        for line in path.read_text().splitlines():
            when, _, payload = line.partition(" ")
            with contextlib.suppress(ValueError, orjson.JSONDecodeError):
                state = orjson.loads(payload)
                if state.get("match_id") is not None:
                    at.setdefault((path.stem, state["match_id"], state["seq"]), float(when) * 1000)
    return at


def to_tile(stamped: dict[tuple[str, int, int], float], observed: list[dict]) -> list[float]:
    """ms from each stamp to the first tile change showing that state or a later one of its table."""
    by_table: dict[str, list[tuple[int, int, float]]] = {}
    for entry in observed:
        by_table.setdefault(entry["table"], []).append((entry["match"], entry["seq"], entry["t"]))
    out = []
    for (table, match, seq), at in stamped.items():
        shown = [t for (m, s, t) in by_table.get(table, ()) if (m, s) >= (match, seq)]
        if shown:
            out.append(min(shown) - at)
    return out


def kind(pid: int) -> str | None:
    """What a process is, by its command line."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    line = b" ".join(words).decode(errors="replace")
    for needle, name in (("mosquitto_sub", "stamps (mosquitto_sub)"), ("nats-server", "venue: nats-server"),
                         ("chrom", "Chromium"), (" demo ", "table: devetka demo"), (" daemon", "table: daemon")):
        if needle in line:
            return name
    if "mosquitto" in line:
        return "mosquitto"
    return "table: other" if "scoreboard" in line else None


def usage(pids: dict[int, str]) -> dict[str, tuple[float, int]]:
    """Per kind: CPU seconds and voluntary context switches (every thread's: each is a wake-up), summed."""
    total: dict[str, tuple[float, int]] = {}
    for pid, name in pids.items():
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            switches = sum(int(line.split()[1]) for task in Path(f"/proc/{pid}/task").iterdir()
                           for line in (task / "status").read_text().splitlines()
                           if line.startswith("voluntary_ctxt_switches"))
            cpu, woke = total.get(name, (0.0, 0))
            total[name] = (cpu + (int(fields[11]) + int(fields[12])) / TICKS, woke + switches)
    return total


def processes(venue, tables: list[Table], browser: Browser, stampers: list[subprocess.Popen]) -> dict[int, str]:
    """Every process of the run, by kind (a table's demo and its children are found by its session)."""
    found: dict[int, str] = {os.getpid(): "this script"}
    for table in tables:
        found[table.broker.process.pid] = "table: Mosquitto"
        sid = os.getsid(table.process.pid)
        for pid in subprocess.run(["pgrep", "-s", str(sid)], capture_output=True, text=True).stdout.split():
            found[int(pid)] = kind(int(pid)) or "table: other"
    if isinstance(venue, MosquittoVenue):
        found[venue.broker.process.pid] = "venue: Mosquitto"
        found[venue.broker.readers.process.pid] = "venue: nats-server (readers)"
    else:
        found.update({pid: "venue: nats-server (3 nodes)" for pid, _ in venue.nodes})
    group = os.getpgid(browser.process.pid)
    for pid in subprocess.run(["pgrep", "-g", str(group)], capture_output=True, text=True).stdout.split():
        found.setdefault(int(pid), "Chromium")
    found.update({process.pid: "stamps (mosquitto_sub)" for process in stampers})
    return found


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(engine: str, count: int, seconds: float, speed: float) -> None:
    ids = table_ids(count)
    logins = {table_id: secrets.token_hex(8) for table_id in ids}
    options = VenueOptions(tables=count, racks=99, speed=speed, headless=True, engine=engine)
    tables: list[Table] = []
    stampers: list[subprocess.Popen] = []
    name = f"({engine}, {count} tables)"
    with tempfile.TemporaryDirectory(prefix="devetka-bench-observer-") as folder, contextlib.ExitStack() as stack:
        folder_path = Path(folder)
        venue = ENGINES[engine](stack, logins)
        try:
            with Browser() as browser:
                browser.open(venue.board)
                for number, table_id in enumerate(ids, start=1):
                    table = Table(table_id, number, venue.bridge(table_id, logins[table_id]), options, folder_path,
                                  lambda line: None)
                    tables.append(table)
                browser.wait_for(f"document.querySelectorAll('[data-table]').length === {count}", timeout=300)
                for table in tables:
                    stampers.append(stamp(table.id, table.broker.port, folder_path / f"{table.id}.stamps"))
                time.sleep(2)  # the stamps connected and subscribed
                for path in folder_path.glob("*.stamps"):
                    path.write_text("")  # what came before the measured time is not counted
                browser.evaluate(OBSERVER)
                everyone = processes(venue, tables, browser, stampers)
                load_before = load_average()
                before = usage(everyone)
                began = time.monotonic()
                time.sleep(seconds)
                observed = browser.evaluate("window.observed")
                after = usage(everyone)
                elapsed = time.monotonic() - began
                load_after = load_average()
                for process in stampers:
                    process.send_signal(signal.SIGINT)
                for process in stampers:
                    process.wait(10)
                stamped = stamps(folder_path)
                values = to_tile(stamped, observed)
                print(f"{name} load average before {load_before}, after {load_after}")
                if values:
                    print(f"{name} input to tile (mosquitto_sub at the table's broker -> the tile's data-seq "
                          f"changed): {len(values)} states of {len(stamped)} over {elapsed:.0f} s at {speed:g}x: "
                          f"p50 {statistics.median(values):.1f} ms, p90 {percentile(values, 0.9):.1f} ms, "
                          f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")
                else:
                    print(f"{name} no state timed in {elapsed:.0f} s ({len(stamped)} stamped, "
                          f"{len(observed)} tile changes)")
                counts: dict[str, int] = {}
                for kind_name in everyone.values():
                    counts[kind_name] = counts.get(kind_name, 0) + 1
                for kind_name in sorted(after):
                    cpu = after[kind_name][0] - before.get(kind_name, (0.0, 0))[0]
                    woke = after[kind_name][1] - before.get(kind_name, (0.0, 0))[1]
                    print(f"{name} {kind_name} ({counts[kind_name]} processes): {100 * cpu / elapsed:.1f}% of a "
                          f"core, woke {woke / elapsed:.0f} times/s")
        finally:
            for process in stampers:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            for table in tables:
                table.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), default="mosquitto")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--speed", type=float, default=1.0, help="the tables' pace, 1 = real time (default 1)")
    add_loopback_option(parser)
    args = parser.parse_args()
    venue_header(args.loopback)
    run(args.engine, args.tables, args.seconds, args.speed)


if __name__ == "__main__":
    main()
