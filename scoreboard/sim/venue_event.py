"""``devetka venue-demo --event FORMAT``: a whole event run by the director across simulated tables.

The venue's Mosquitto (the text ``install.sh --venue-server`` installs, with the director's login on its tables'
listener) and its readers' nats-server (the board and ``venue broker:`` read there), or with ``--engine nats``
three NATS nodes (the director on node 1, each table bridged to all three), T tables each
its own Mosquitto bridged to it (``install.sh --venue``'s bridge: calls in, answers out) and its own ``devetka
run`` daemon, and ``devetka director`` on the venue broker. Each table's players wait for a call: when the daemon
serves one, they press Start and play the called match (a ``SimulatedTable`` of the called players, race and
skill levels, its inputs sent over the daemon's local API as the camera and the players' taps send them, paced by
``--speed``). The director's ``call: MATCH to TABLE`` lines are printed as they come; once the event has its winner
``venue-demo: event done: winner NAME``, and the venue stays up until SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoreboard.adapters.local_api.client import request_once
from scoreboard.core.inputs import MatchStart, RuleOptions, Settle, to_json
from scoreboard.sim.broker import BrokerError
from scoreboard.sim.children import die_with_parent, end
from scoreboard.sim.nats_cluster import ClusterError
from scoreboard.sim.table import SimulatedTable
from scoreboard.sim.venue_demo import ENGINES, TableBroker, say_where, table_ids
from scoreboard.venue import bridge

FORMATS = {"single": "single", "double": "double", "round-robin": "round_robin", "apa-team": "apa_team"}
NAMES = ("Ana", "Ben", "Cvita", "Dino", "Ema", "Filip", "Goran", "Hana", "Ivo", "Jana", "Karlo", "Lana", "Marin",
         "Nina", "Oto", "Petra", "Rok", "Sara", "Toni", "Una", "Vid", "Zora", "Borna", "Dora", "Ena", "Fran",
         "Iva", "Luka", "Mia", "Noa", "Roko", "Tea")
DONE = "venue-demo: event done: winner {winner}"
#: Under APA the players get low skill levels, for a short demo (their targets: 14 and 19 points).
APA_SKILLS = (1, 2)
POLL_S = 0.1
START_TIMEOUT_S = 60.0
DIRECTOR_PASSWORD_FILE = "director.password"


@dataclass(frozen=True)
class EventOptions:
    format: str
    players: int
    tables: int = 4
    racks: int = 1
    speed: float = 10.0
    store_dir: str | None = None
    engine: str = "mosquitto"


def event_file(options: EventOptions, tables: list[str]) -> dict[str, Any]:
    """The event the demo runs: N players (or two rosters of N/2), every race ``racks``.

    >>> event_file(EventOptions("double", 4), ["table1"])["players"]
    ['Ana', 'Ben', 'Cvita', 'Dino']
    """
    names = [NAMES[n % len(NAMES)] + ("" if n < len(NAMES) else str(n // len(NAMES) + 1))
             for n in range(options.players)]
    form = FORMATS[options.format]
    spec: dict[str, Any] = {"name": f"venue-demo {options.format}", "format": form, "tables": tables}
    if form == "apa_team":
        half = options.players // 2
        spec["teams"] = [{"name": team, "players": [{"name": name, "skill": APA_SKILLS[n % 2]}
                                                    for n, name in enumerate(members)]}
                         for team, members in (("Sharks", names[:half]), ("Jets", names[half:]))]
        return spec
    spec.update(players=names, race=options.racks)
    if form == "round_robin":
        spec["round_robin"] = {"groups": 2 if options.players >= 6 else 1, "advance": 2 if options.players >= 6 else 1}
    return spec


def check(options: EventOptions) -> str | None:
    """What is wrong with the options, in words; None when they can run."""
    if options.format not in FORMATS:
        return f"--event must be one of {', '.join(FORMATS)}"
    if options.format == "apa-team" and options.players not in range(10, 17, 2):
        return "--event apa-team needs --players 10 to 16, an even number (two rosters of 5 to 8)"
    if options.format != "apa-team" and not 2 <= options.players <= 64:
        return "--players must be from 2 to 64"
    return None


def served_rules(served: dict[str, Any]) -> RuleOptions:
    """The options the daemon serves for its match (every one, ``profile`` null when the match has none) as the
    simulated table plays them; a null profile is no label, which ``rules`` in an input spells by leaving it out.

    >>> served_rules({"break": "winner", "profile": None}).profile is None
    True
    """
    return RuleOptions.from_json({name: value for name, value in served.items()
                                  if not (name == "profile" and value is None)})


class Player(threading.Thread):
    """The two players at one table: wait for a call, press Start, play the called match to its end."""

    def __init__(self, table_id: str, socket_path: Path, speed: float, stop: threading.Event) -> None:
        super().__init__(name=f"venue-demo players {table_id}", daemon=True)
        self.table_id, self.socket, self.speed, self.stop = table_id, socket_path, speed, stop
        self.played = 0
        self.error: str | None = None

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return request_once(self.socket, request)

    def run(self) -> None:
        try:
            while not self.stop.wait(POLL_S):
                call = self.ask({"cmd": "state"})["state"].get("call")
                if call is not None and call.get("status") == "offered":
                    self.play(call["id"])
        except Exception as error:  # a demo's table that fails says why and stops
            self.error = f"{type(error).__name__}: {error}"

    def play(self, call_id: str) -> None:
        answer = self.ask({"cmd": "call_start", "call": call_id})
        if not answer["ok"]:
            return  # withdrawn meanwhile: the director calls it elsewhere
        state = answer["state"]
        rules = served_rules(state["rules"])
        apa = state.get("apa_skill")
        seed = call_id.split("/", 1)[-1]  # the event, the match and the call's number: not the store's random id
        table = SimulatedTable(seed=seed, players=(state["players"][0], state["players"][1]),
                               race=tuple(state["race"]) if state.get("race") else (1, 1), rules=rules,
                               apa_skill=tuple(apa) if apa else None)
        last_t = 0.0
        for item in table.play_match():
            if isinstance(item, MatchStart):
                continue
            gap = max(0.0, (item.t or last_t) - last_t)
            last_t = item.t or last_t
            if not isinstance(item, Settle) and self.stop.wait(min(gap / self.speed, 2.0)):
                return
            sent = {k: v for k, v in to_json(item).items() if k != "t"}
            answer = self.ask(sent)
            if not answer["ok"]:
                raise RuntimeError(f"{self.table_id} refused {sent}: {answer['error']}")
        self.played += 1


class Director:
    """``devetka director`` on the venue broker, its lines handed to ``said`` as they come."""

    def __init__(self, folder: Path, address: tuple[str, int], password: str, said: Callable[[str], None]) -> None:
        self.store = folder / "director.sqlite3"
        self.socket = folder / ".sockets" / "director.sock"
        secret = folder / ".sockets" / DIRECTOR_PASSWORD_FILE
        secret.write_text(password + "\n")
        secret.chmod(0o600)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.commands.main", "director", "--store", str(self.store), "--socket",
             str(self.socket), "--mqtt-host", address[0], "--mqtt-port", str(address[1]), "--mqtt-user",
             bridge.DIRECTOR_LOGIN, "--mqtt-password-file", str(secret)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        self.ready = threading.Event()
        threading.Thread(target=self._read, args=(said,), name="venue-demo director", daemon=True).start()
        if not self.ready.wait(START_TIMEOUT_S):
            raise BrokerError("devetka director did not start")

    def _read(self, said: Callable[[str], None]) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("devetka director: ready"):
                self.ready.set()
            elif line.startswith("call: "):
                said(line.rstrip("\n"))

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = request_once(self.socket, request)
        if not answer.get("ok"):
            raise RuntimeError(f"the director refused {request.get('cmd')}: {answer.get('error')}")
        return answer

    def stop(self) -> None:
        end(self.process, 30)


class Table:
    """A table: its Mosquitto bridged to the venue and its ``devetka run`` daemon on a store in the store folder."""

    def __init__(self, table_id: str, bridge_text: str, folder: Path) -> None:
        self.broker = TableBroker(bridge_text)
        self.broker.start()
        self.socket = folder / ".sockets" / f"{table_id}.sock"
        self.store = folder / f"{table_id}.sqlite3"
        config = folder / ".sockets" / f"{table_id}.toml"
        config.write_text(f'[table]\nid = "{table_id}"\n[shots]\nsettle_after_s = 3600\n'
                          f'[mqtt]\nhost = "127.0.0.1"\nport = {self.broker.port}\n')
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.commands.main", "run", "--config", str(config), "--store",
             str(self.store), "--socket", str(self.socket)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                request_once(self.socket, {"cmd": "state"})
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise BrokerError(f"the daemon of {table_id} did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        end(self.process, 30)
        self.broker.close()


def run_event(options: EventOptions, out: Callable[[str], None] = print, hold: bool = True) -> int:
    """The event to its winner, then (``hold``) the venue until SIGINT or SIGTERM: 0, 1 when it failed, 2 when the
    venue did not start."""
    problem = check(options)
    if problem is not None:
        out(f"venue-demo: {problem}")
        return 2
    stop = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        with contextlib.ExitStack() as stack:
            folder = Path(options.store_dir) if options.store_dir else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="devetka-event-")))
            (folder / ".sockets").mkdir(parents=True, exist_ok=True)
            ids = table_ids(options.tables)
            logins = {table_id: secrets.token_hex(8) for table_id in ids}
            director_password = secrets.token_hex(8)
            try:
                venue = ENGINES[options.engine](stack, logins, director_password)
                say_where(venue, out)
                tables: list[Table] = []
                stack.callback(lambda: [table.stop() for table in reversed(tables)])
                for table_id in ids:
                    tables.append(Table(table_id, venue.bridge(table_id, logins[table_id]), folder))
                director = Director(folder, venue.director_address, director_password, out)
                stack.callback(director.stop)
            except (BrokerError, ClusterError) as error:
                out(f"venue-demo: the venue did not start: {error}")
                return 2
            players = [Player(table_id, table.socket, options.speed, stop)
                       for table_id, table in zip(ids, tables, strict=True)]
            stack.callback(lambda: [player.join(5) for player in players])
            stack.callback(stop.set)
            for player in players:
                player.start()
            _begin(director, options, ids)
            winner = _await_winner(director, players, stop)
            if winner is None:
                failed = [f"{p.table_id}: {p.error}" for p in players if p.error]
                out("venue-demo: event failed: " + ("; ".join(failed) or "stopped before its end"))
                return 1
            out(DONE.format(winner=winner))
            while hold and not stop.wait(0.2):
                pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    out("venue-demo: stopped")
    return 0


def _begin(director: Director, options: EventOptions, ids: list[str]) -> None:
    spec = event_file(options, ids)
    director.ask({"cmd": "new", "spec": spec})
    if spec["format"] != "apa_team":
        director.ask({"cmd": "draw", "seed": 1})
        return
    for slot in range(5):  # the captains put their players up in roster order, one at a time
        for team in spec["teams"]:
            director.ask({"cmd": "put_up", "team": team["name"], "player": team["players"][slot]["name"]})


def _await_winner(director: Director, players: list[Player], stop: threading.Event) -> str | None:
    while not stop.wait(0.2):
        if any(player.error for player in players):
            return None
        state = director.ask({"cmd": "status"})["state"]
        if state["winner"] is not None:
            return str(state["winner"])
        if state["matches"] and all(m["status"] == "done" for m in state["matches"]):
            return "none (a tie: {0}-{1})".format(*state.get("totals", ("?", "?")))
    return None
