"""How soon does a match won at a table show in its bracket cell on the board, with 8 and 50 tables playing?

    python bench/bracket.py [--tables 8,50] [--event-tables 4] [--players 32] [--speed 1]

Everything is the real thing, as ``devetka venue-demo --event`` runs it (scoreboard/sim/venue_event.py): the venue
Mosquitto on the text ``install.sh --venue-server`` installs (the director's login on its tables' listener) with its
readers' nats-server, a real ``devetka director`` on it, and the board's ``?event`` view in headless Chromium
(tests/venue/browser.py). ``--event-tables`` tables (``ev1``...: each its own Mosquitto bridged to the venue, calls
in and answers out, and its ``devetka run`` daemon) play a single elimination of ``--players`` to its end: whenever
the director calls a match there, the bench, as the players, presses Start and drops the 9 on the break (race 1:
strike, first contact, pocket, settle, over the daemon's local API). Beside them N tables play
(``devetka demo --hold`` at ``--speed``, bridged: the venue's load, as in bench/venue.py), N from ``--tables``.

For each match the time runs from the request of its last input (the settle that ends the shot, hence the match) to
the repaint of the match's cell with its score (``window.devetkaEventDrawn``, the page's ``performance.timeOrigin +
performance.now()``, the same wall clock as ``time.time()``), split where paho subscribers on the readers' broker
(the one the board reads) receive (1) the table's state with the match won (``match_call`` names the match), and
(2) the director's event with that score, and where (3) the page's MQTT.js hands that event over
(``window.devetkaEventArrived``): the table (daemon, its broker, its bridge, the venue broker and its bridge to the
readers), the director (reading the table's state, fold, check, commit, publish, the same brokers back), the
readers' WebSocket and the page (its draw and the repaint). Timings are never asserted in
the tests.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from _common import load_average, machine, subscriber
from venue import chromium_pids, cpu_seconds, percentile, proportional_mb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.adapters.local_api.client import request_once  # noqa: E402
from scoreboard.sim import venue_event  # noqa: E402
from scoreboard.sim.venue_demo import MosquittoVenue, VenueOptions, table_ids  # noqa: E402
from scoreboard.sim.venue_demo import Table as PlayingTable  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402

NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"}]
SCORE = "1-0"


class Heard:
    """When the readers' broker first carried (1) a table's state with a called match won and (2) the director's
    event with a match's score: match -> wall ms, each."""

    def __init__(self, port: int, websocket: bool = False) -> None:
        self.won: dict[str, float] = {}
        self.published: dict[str, float] = {}
        self.lock = threading.Lock()
        self.client = subscriber(port, [("devetka/director/event/+", 1), ("devetka/+/state", 0)], self._message,
                                 "bench-bracket", websocket)

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        now = time.time() * 1000
        if not message.payload:
            return
        payload = orjson.loads(message.payload)
        with self.lock:
            if message.topic.startswith("devetka/director/"):
                for match in payload.get("matches", []):
                    if match["score"]:
                        self.published.setdefault(match["match"], now)
            elif payload.get("match_winner") is not None and isinstance(payload.get("match_call"), str):
                self.won.setdefault(payload["match_call"].split("/")[2], now)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Players(threading.Thread):
    """The players at an event table: Start on every call offered there, then the 9 on the break."""

    def __init__(self, socket: Path, stop: threading.Event, last_input: dict[str, float]) -> None:
        super().__init__(daemon=True)
        self.socket, self.stop, self.last_input = socket, stop, last_input
        self.error: str | None = None

    def run(self) -> None:
        try:
            while not self.stop.wait(0.05):
                call = request_once(self.socket, {"cmd": "state"})["state"].get("call")
                if call is None or call.get("status") != "offered":
                    continue
                if not request_once(self.socket, {"cmd": "call_start", "call": call["id"]})["ok"]:
                    continue
                for item in NINE_ON_THE_BREAK:
                    t = time.time() * 1000
                    answer = request_once(self.socket, item)
                    if not answer["ok"]:
                        raise RuntimeError(f"{item} refused: {answer['error']}")
                self.last_input[call["match"]] = t
        except Exception as error:  # said at the end, with the figures that were made
            self.error = f"{type(error).__name__}: {error}"


def run(count: int, event_tables: int, players: int, speed: float) -> None:
    ids = table_ids(count)
    event_ids = [f"ev{n}" for n in range(1, event_tables + 1)]
    logins = {table_id: secrets.token_hex(8) for table_id in ids + event_ids}
    director_password = secrets.token_hex(8)
    options = VenueOptions(tables=count, racks=99, speed=speed, headless=True)
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="devetka-bench-bracket-")))
        (work / ".sockets").mkdir()
        venue = MosquittoVenue(stack, logins, director_password)
        for number, table_id in enumerate(ids, start=1):
            text = venue.bridge(table_id, logins[table_id])
            stack.callback(PlayingTable(table_id, number, text, options, work, lambda line: None).stop)
        tables = []
        for table_id in event_ids:
            tables.append(venue_event.Table(table_id, venue.bridge(table_id, logins[table_id]), work))
            stack.callback(tables[-1].stop)
        director = venue_event.Director(work, venue.director_address, director_password, lambda line: None)
        stack.callback(director.stop)
        heard = Heard(venue.broker.readers_port)
        stack.callback(heard.close)
        heard_ws = Heard(venue.broker.readers.websocket_port, websocket=True)
        stack.callback(heard_ws.close)
        names = [f"Player {n}" for n in range(1, players + 1)]
        event = director.ask({"cmd": "new", "spec": {"name": "Bench night", "format": "single", "players": names,
                                                     "race": 1, "tables": event_ids}})["event"]
        browser = stack.enter_context(Browser())
        browser.viewport(1920, 1080)
        browser.open(f"{venue.board}&event={event}")
        browser.wait_for(f"document.getElementById('event')?.dataset.event === '{event}'", timeout=120)
        browser_pids = chromium_pids(browser.process.pid)
        browser_cpu = cpu_seconds(browser_pids)
        last_input: dict[str, float] = {}
        stop = threading.Event()
        at_tables = [Players(table.socket, stop, last_input) for table in tables]
        stack.callback(stop.set)
        began = time.monotonic()
        for player in at_tables:
            player.start()
        director.ask({"cmd": "draw", "event": event, "seed": 1})
        matches = players - 1
        browser.wait_for(f"window.devetkaEventDrawn.filter(d => d.event === {event}).length >= {matches}"
                         f" || document.getElementById('event').dataset.winner", timeout=60 + 10 * matches)
        browser.wait_for(f"window.devetkaEventDrawn.filter(d => d.event === {event}).length >= {matches}",
                         timeout=30)
        elapsed = time.monotonic() - began
        stop.set()
        drawn, arrived = ({d["match"]: d["t"] for d in browser.evaluate(f"window.{stamps}")
                           if d["event"] == event and d["score"] == SCORE}
                          for stamps in ("devetkaEventDrawn", "devetkaEventArrived"))
        before = time.time() * 1000
        page_clock = browser.evaluate("performance.timeOrigin + performance.now()")
        skew = page_clock - (before + time.time() * 1000) / 2
        browser_cpu = cpu_seconds(browser_pids) - browser_cpu
        memory = proportional_mb(chromium_pids(browser.process.pid))
        with heard.lock:
            won, published = dict(heard.won), dict(heard.published)
        with heard_ws.lock:
            published_ws = dict(heard_ws.published)
        played = [m for m in last_input if m in drawn]
        whole = [drawn[m] - last_input[m] for m in played]
        shares = {"the table (input to its state on the readers' broker)":
                  [won[m] - last_input[m] for m in played if m in won],
                  "the director (that state to its event there)":
                  [published[m] - won[m] for m in played if m in won and m in published],
                  "  (beside the page: the event to a paho client on the same WebSocket listener)":
                  [published_ws[m] - published[m] for m in played if m in published and m in published_ws],
                  "the readers' WebSocket (the event to the page's MQTT.js)":
                  [arrived[m] - published[m] for m in played if m in published and m in arrived],
                  "the page (MQTT.js to the cell repainted)": [drawn[m] - arrived[m] for m in played if m in arrived]}
    errors = [player.error for player in at_tables if player.error]
    label = f"({count} tables playing, {event_tables} event tables)"
    print(f"{label} load average {load_average()}")
    print(f"{label} last input to bracket cell, {len(whole)} of {matches} matches ({players} players) over "
          f"{elapsed:.0f} s: p50 {statistics.median(whole):.1f} ms, p99 {percentile(whole, 0.99):.1f} ms, "
          f"max {max(whole):.1f} ms")
    for what, share in shares.items():
        print(f"{label}   {what}: p50 {statistics.median(share):.1f} ms, p99 {percentile(share, 0.99):.1f} ms, "
              f"max {max(share):.1f} ms")
    print(f"{label} the page's clock minus this bench's at the end: {skew:.1f} ms")
    print(f"{label} browser ({len(browser_pids)} processes): {100 * browser_cpu / elapsed:.1f}% of a core, "
          f"{memory:.0f} MB (PSS)")
    for error in errors:
        print(f"{label} an event table's players stopped: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="8,50", help="tables playing beside the event's, comma-separated "
                                                         "counts to measure (default 8,50)")
    parser.add_argument("--event-tables", type=int, default=4, help="tables the director calls (default 4)")
    parser.add_argument("--players", type=int, default=32, help="players in the bracket (default 32: 31 matches)")
    parser.add_argument("--speed", type=float, default=1.0, help="the playing tables' pace, 1 = real time "
                                                                 "(default 1)")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    for count in (int(n) for n in args.tables.split(",")):
        run(count, args.event_tables, args.players, args.speed)


if __name__ == "__main__":
    main()
