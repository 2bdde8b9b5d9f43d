"""The venue on a three-node NATS cluster: input at a table to its tile, each node's CPU and memory, and what the loss
of a node costs the board.

    python bench/venue_nats.py [--tables 8] [--seconds 30] [--speed 1]

Everything is the real thing: three ``nats-server`` nodes on loopback (scoreboard/sim/nats_cluster.py, configs from
scoreboard/venue/nats.py), N tables, each ``devetka demo --hold`` (the real daemon on simulated sensors, at
``--speed`` times a real table's pace) with its own Mosquitto bridged to every node (scoreboard/venue/bridge.py with
``others``), and the board in headless Chromium given every node (``?broker=ws://...,ws://...,ws://...``). The
board and every bridge go to node 1 first. Latency is measured as bench/venue.py measures it (a state stamped as
it arrives on the table's own broker, to the page's repaint of that seq, one wall clock); its helpers are used.

Three phases of ``--seconds`` each:
(1) all three nodes up: tile latency p50/p99/max, split at node 1 (a subscriber there stamps each state: the bridge's
    hop, and node to tile); each node's CPU (% of a core) and resident memory;
(2) node 1, the board's and the bridges' node, killed (SIGKILL) at the start: how long until every table's tile shows
    a state stored after the kill (the failover, per table: max and median), and the latency over the phase;
(3) node 1 still down: tile latency on the two nodes left.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import load_average, machine
from venue import Stamps, chromium_pids, cpu_seconds, latencies, percentile, resident_mb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.broker import ConfiguredBroker  # noqa: E402
from scoreboard.sim.demo import HELD  # noqa: E402
from scoreboard.sim.nats_cluster import NatsCluster  # noqa: E402
from scoreboard.sim.venue_demo import BOARD, PLAYERS, table_ids  # noqa: E402
from scoreboard.venue import bridge  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402


class Table:
    """One simulated table, as venue-demo's: ``devetka demo --hold`` on its own Mosquitto, bridged to every node."""

    def __init__(self, table_id: str, number: int, cluster: NatsCluster, password: str, speed: float,
                 folder: Path) -> None:
        self.id = table_id
        (host, port), *others = cluster.mqtt_addresses
        self.broker = ConfiguredBroker()
        text = bridge.render_table_bridge(table_id, host, port, table_id, password, others=others)
        self.broker.config_text = f"listener {self.broker.port} 127.0.0.1\nallow_anonymous true\n\n{text}"
        self.broker.start()
        players = PLAYERS[(number - 1) % len(PLAYERS)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.commands.main", "demo", "--headless", "--hold", "--table", table_id,
             "--players", ",".join(players), "--seed", str(number), "--racks", "99", "--speed", f"{speed:g}",
             "--broker", f"127.0.0.1:{self.broker.port}", "--store", str(folder / f"{table_id}.sqlite3")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.startswith(HELD):
                print(f"note: {self.id} played all its racks and holds", flush=True)
        self.ended.set()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.broker.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


def serve_board() -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(BOARD)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def summary(values: list[float]) -> str:
    if not values:
        return "no state both stamped and drawn"
    return (f"{len(values)} states: p50 {statistics.median(values):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, "
            f"max {max(values):.1f} ms")


def phase(stamps: Stamps, browser: Browser, seconds: float, *more: Stamps) -> tuple[dict, list[dict], list[dict]]:
    """Play for ``seconds`` from a clean slate; the states stamped, the page's repaints, and the other stamps."""
    browser.evaluate("window.devetkaDrawn.length = 0")
    for each in (stamps, *more):
        with each.lock:
            each.at.clear()
    time.sleep(seconds)
    taken = []
    for each in (stamps, *more):
        with each.lock:
            taken.append(dict(each.at))
    return taken[0], browser.evaluate("window.devetkaDrawn"), taken[1:]


def run(count: int, seconds: float, speed: float) -> None:
    ids = table_ids(count)
    logins = {table_id: secrets.token_hex(8) for table_id in ids}
    stamps = Stamps()
    at_node = Stamps()  # each state as node 1, the board's, has it: the bridge's hop, apart from the page's
    tables: list[Table] = []
    server = serve_board()
    with tempfile.TemporaryDirectory(prefix="devetka-bench-nats-") as folder, NatsCluster(logins) as cluster:
        try:
            with Browser() as browser:
                url = f"http://127.0.0.1:{server.server_address[1]}/index.html?broker=" + ",".join(cluster.ws_urls)
                browser.open(url)
                for number, table_id in enumerate(ids, start=1):
                    tables.append(Table(table_id, number, cluster, logins[table_id], speed, Path(folder)))
                    stamps.watch(table_id, tables[-1].broker.port)
                    at_node.watch(table_id, cluster.nodes[0].mqtt_port)
                browser.wait_for(f"document.querySelectorAll('[data-status=online]').length === {count}",
                                 timeout=300)
                # The page's own arrivals too (MQTT.js's message event, the page's clock): node -> page, apart from
                # page -> repaint.
                browser.evaluate("window.benchArrived = []; window.devetkaBoard.client.on('message', (topic, payload)"
                                 " => { if (topic.endsWith('/state')) { const s = JSON.parse(new TextDecoder()"
                                 ".decode(payload)); window.benchArrived.push({table: topic.split('/')[1], seq: s.seq,"
                                 " match: s.match_id, t: performance.timeOrigin + performance.now()}); } }); 0")
                pids = {node.number: node.process.pid for node in cluster.nodes}
                cpu = {number: cpu_seconds([pid]) for number, pid in pids.items()}
                began = time.monotonic()
                stamped, drawn, (on_node,) = phase(stamps, browser, seconds, at_node)
                elapsed = time.monotonic() - began
                print(f"({count} tables, 3 nodes) load average {load_average()}")
                print(f"({count} tables, 3 nodes) input to tile: {summary(latencies(stamped, drawn))}")
                hop = [on_node[key] - at for key, at in stamped.items() if key in on_node]
                arrived = {(a["table"], a.get("match") or 0, a["seq"]): a["t"]
                           for a in reversed(browser.evaluate("window.benchArrived"))}
                arrived = {key: at for key, at in arrived.items() if key in on_node}  # this phase's only
                to_page = [arrived[key] - at for key, at in on_node.items() if key in arrived]
                print(f"({count} tables, 3 nodes) of which table broker to node 1 (the bridge): {summary(hop)}; "
                      f"node 1 to the page's MQTT.js: {summary(to_page)}; the page's MQTT.js to the repaint: "
                      f"{summary(latencies(arrived, drawn))}")
                for number, pid in pids.items():
                    print(f"({count} tables) node {number}: {100 * (cpu_seconds([pid]) - cpu[number]) / elapsed:.1f}%"
                          f" of a core, {resident_mb([pid]):.1f} MB resident")
                # (2) node 1, the board's and every bridge's, killed.
                killed = time.time() * 1000
                cluster.kill(1)
                stamped, drawn, _ = phase(stamps, browser, seconds)
                back = []
                for table_id in ids:
                    after = [(match, seq) for (table, match, seq), at in stamped.items()
                             if table == table_id and at > killed]
                    shown = [d["t"] for d in drawn if after and d["table"] == table_id
                             and ((d.get("match") or 0), d["seq"]) >= min(after)]
                    if shown:
                        back.append(min(shown) - killed)
                if back:
                    print(f"({count} tables, node 1 killed) every tile showing a state stored after the kill: "
                          f"{len(back)} of {count} tables, median {statistics.median(back) / 1000:.2f} s, "
                          f"max {max(back) / 1000:.2f} s after the kill")
                else:
                    print(f"({count} tables, node 1 killed) no tile showed a state stored after the kill")
                refusals = browser.evaluate("window.devetkaBoard.link.refusals")
                print(f"({count} tables, node 1 killed) the board's subscriptions refused meanwhile: {refusals}")
                print(f"({count} tables, node 1 killed) input to tile over the phase: "
                      f"{summary(latencies(stamped, drawn))}")
                # (3) the two nodes left.
                cpu = {number: cpu_seconds([pid]) for number, pid in pids.items() if number != 1}
                began = time.monotonic()
                stamped, drawn, _ = phase(stamps, browser, seconds)
                elapsed = time.monotonic() - began
                print(f"({count} tables, 2 nodes) input to tile: {summary(latencies(stamped, drawn))}")
                for number, pid in pids.items():
                    if number != 1:
                        print(f"({count} tables, 2 nodes) node {number}: "
                              f"{100 * (cpu_seconds([pid]) - cpu[number]) / elapsed:.1f}% of a core, "
                              f"{resident_mb([pid]):.1f} MB resident")
                print(f"({count} tables) browser: {len(chromium_pids(browser.process.pid))} processes")
        finally:
            stamps.close()
            at_node.close()
            for table in tables:
                table.stop()
            server.shutdown()
            server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="8", help="table counts to measure, comma-separated (default 8)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of each phase (default 30)")
    parser.add_argument("--speed", type=float, default=1.0, help="the tables' pace, 1 = real time (default 1)")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    for count in (int(n) for n in args.tables.split(",")):
        run(count, args.seconds, args.speed)


if __name__ == "__main__":
    main()
