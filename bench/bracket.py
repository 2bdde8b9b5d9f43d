"""How soon does a result the director records show in its bracket cell on the board, with 8 and 50 tables playing?

    python bench/bracket.py [--tables 8,50] [--players 64] [--gap-ms 300] [--speed 1]

Everything is the real thing: the venue Mosquitto ``install.sh --venue-server`` configures (as ``devetka
venue-demo`` runs it, scoreboard/sim/venue_demo.py) with a ``director`` login that may write
``devetka/director/#``; N tables, each ``devetka demo --hold`` with its own Mosquitto bridged to the venue, playing
at ``--speed`` (their states are the venue's load); a real ``devetka director`` on it; the board's ``?event`` view in
headless Chromium. A single elimination of ``--players`` is played to its end, one result every ``--gap-ms``, each
asked of the director over its socket (``devetka event result``'s path); the time runs from the request to the
repaint of the match's cell with that score (``window.devetkaEventDrawn``, the page's
``performance.timeOrigin + performance.now()``, the same wall clock), split at the moment a paho subscriber on the
venue's readers' listener receives the director's publication with that score: the director's share (fold, check,
commit, publish) and the board's (broker, WebSockets, the page's draw and repaint).

What it does not measure yet: the table's last input to the director's record, which issue 31 (results from the
tables' stores) adds; until then this is the board's share of "the 9 drops to the bracket cell".
"""

from __future__ import annotations

import argparse
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
from venue import chromium_pids, cpu_seconds, percentile, proportional_mb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.director.server import ask  # noqa: E402
from scoreboard.sim.venue_demo import Table, VenueBroker, VenueOptions, table_ids  # noqa: E402
from scoreboard.venue import bridge  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402


class DirectedVenue(VenueBroker):
    """The venue broker with one more login: ``director``, which writes ``devetka/director/#`` and reads the tables."""

    def __init__(self, logins: dict[str, str], director_password: str) -> None:
        super().__init__(logins)
        self.write_passwords("devetka-venue.passwd", {**logins, "director": director_password})
        self.write("devetka-venue.acl", bridge.render_venue_acl(list(logins))
                   + "\nuser director\ntopic readwrite devetka/director/#\ntopic read devetka/#\n")


class Published:
    """When each match's score first arrived in the director's retained event topic: match -> (score, wall ms)."""

    def __init__(self, port: int) -> None:
        self.at: dict[str, tuple[str, float]] = {}
        self.lock = threading.Lock()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-bracket-{secrets.token_hex(3)}")
        client.on_connect = lambda c, u, f, r, p: c.subscribe("devetka/director/event/+", qos=1)
        client.on_message = self._message
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        now = time.time() * 1000
        for match in orjson.loads(message.payload).get("matches", []):
            if match["score"]:
                with self.lock:
                    self.at.setdefault(match["match"], ("-".join(map(str, match["score"])), now))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def run(count: int, players: int, gap_ms: float, speed: float) -> None:
    ids = table_ids(count)
    logins = {table_id: secrets.token_hex(8) for table_id in ids}
    director_password = secrets.token_hex(8)
    options = VenueOptions(tables=count, racks=99, speed=speed, headless=True)
    tables: list[Table] = []
    with tempfile.TemporaryDirectory(prefix="devetka-bench-bracket-") as folder, \
            DirectedVenue(logins, director_password) as venue:
        work = Path(folder)
        (work / "director-password").write_text(director_password + "\n")
        socket = work / "director.sock"
        director = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.commands.main", "director", "--store", str(work / "d.sqlite3"),
             "--socket", str(socket), "--mqtt-host", "127.0.0.1", "--mqtt-port", str(venue.tables_port),
             "--mqtt-user", "director", "--mqtt-password-file", str(work / "director-password")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert director.stdout.readline().startswith("devetka director: ready"), director.stderr.read()
            for number, table_id in enumerate(ids, start=1):
                text = bridge.render_table_bridge(table_id, "127.0.0.1", venue.tables_port, table_id,
                                                  logins[table_id])
                tables.append(Table(table_id, number, text, options, work, lambda line: None))
            published = Published(venue.readers_port)
            names = [f"Player {n}" for n in range(1, players + 1)]
            created = ask(socket, {"cmd": "new", "spec": {"name": "Bench night", "format": "single",
                                                          "players": names, "race": 3}})
            assert created["ok"], created
            event = created["event"]
            assert ask(socket, {"cmd": "draw", "event": event})["ok"]
            with Browser() as browser:
                browser.viewport(1920, 1080)
                browser.open(f"http://127.0.0.1:{venue.websockets_port}/?event={event}")
                browser.wait_for(f"document.getElementById('event')?.dataset.event === '{event}' &&"
                                 " document.querySelectorAll('#event .match').length > 0", timeout=120)
                browser_pids = chromium_pids(browser.process.pid)
                browser_cpu = cpu_seconds(browser_pids)
                asked: dict[str, tuple[float, str]] = {}
                began = time.monotonic()
                while True:
                    state = ask(socket, {"cmd": "status", "event": event})["state"]
                    ready = [m for m in state["matches"] if m["status"] == "ready"]
                    if not ready:
                        break
                    for match in ready:
                        score = "3-1" if len(asked) % 2 else "2-3"
                        t = time.time() * 1000
                        answer = ask(socket, {"cmd": "result", "event": event, "match": match["match"],
                                              "score": [int(n) for n in score.split("-")]})
                        assert answer["ok"], answer
                        asked[match["match"]] = (t, score)
                        time.sleep(gap_ms / 1000)
                browser.wait_for(f"window.devetkaEventDrawn.filter(d => d.event === {event}).length >= {len(asked)}",
                                 timeout=120)
                elapsed = time.monotonic() - began
                drawn = {d["match"]: d["t"] for d in browser.evaluate("window.devetkaEventDrawn")
                         if d["event"] == event and asked.get(d["match"], (0, ""))[1] == d["score"]}
                browser_cpu = cpu_seconds(browser_pids) - browser_cpu
                memory = proportional_mb(chromium_pids(browser.process.pid))
                values = [drawn[m] - t for m, (t, _) in asked.items() if m in drawn]
                published.close()
                with published.lock:
                    out = {m: t for m, (score, t) in published.at.items() if asked.get(m, (0, ""))[1] == score}
                director_share = [out[m] - t for m, (t, _) in asked.items() if m in out]
                board_share = [drawn[m] - out[m] for m in asked if m in out and m in drawn]
            print(f"({count} tables) load average {load_average()}")
            print(f"({count} tables) result to bracket cell, {len(values)} of {len(asked)} results "
                  f"({players} players) over {elapsed:.0f} s: p50 {statistics.median(values):.1f} ms, "
                  f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")
            for what, share in (("request to publication (the director)", director_share),
                                ("publication to bracket cell (the board)", board_share)):
                print(f"({count} tables)   {what}: p50 {statistics.median(share):.1f} ms, "
                      f"p99 {percentile(share, 0.99):.1f} ms, max {max(share):.1f} ms")
            print(f"({count} tables) browser ({len(browser_pids)} processes): "
                  f"{100 * browser_cpu / elapsed:.1f}% of a core, {memory:.0f} MB (PSS)")
        finally:
            director.terminate()
            director.wait(timeout=30)
            director.stdout.close()
            director.stderr.close()
            for table in tables:
                table.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="8,50", help="table counts to measure, comma-separated (default 8,50)")
    parser.add_argument("--players", type=int, default=64, help="players in the bracket (default 64: 63 results)")
    parser.add_argument("--gap-ms", type=float, default=300.0, help="ms between two results (default 300)")
    parser.add_argument("--speed", type=float, default=1.0, help="the tables' pace, 1 = real time (default 1)")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    for count in (int(n) for n in args.tables.split(",")):
        run(count, args.players, args.gap_ms, args.speed)


if __name__ == "__main__":
    main()
