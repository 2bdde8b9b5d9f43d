"""``devetka venue-demo``: a whole venue on one machine, no hardware: a venue broker, N simulated tables, the board.

Each table is what a Pi under a table runs, as ``devetka demo`` plays it (the real daemon on simulated sensors,
held up once played), publishing to a Mosquitto of its own, bridged to the venue's broker exactly as
``deploy/install.sh --venue`` deploys it (``scoreboard.venue.bridge`` makes both texts). The venue's broker serves
the board (``scoreboard/venue/board/``) over WebSockets, as ``install.sh --venue-server`` sets it up. It prints
``venue broker: HOST:PORT`` (MQTT, read only) and ``board: URL``; once every table has played it prints
``venue-demo: all tables done`` and holds the venue up until SIGINT or SIGTERM, then stops what it started.

A hall keeps running when one table fails: a table whose demo ends before it has played (the daemon did not
referee what its simulated table played, or it was stopped or killed) is named with why (``venue-demo: table3
failed: ...``), and the others play on; once every table has played or failed, ``venue-demo: tables done, N
failed: ...`` says which. The venue then holds as it would have, and exits 1 when stopped.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scoreboard.sim.broker import BrokerError, ConfiguredBroker, free_port
from scoreboard.sim.children import die_with_parent, end
from scoreboard.sim.demo import HELD, has_display
from scoreboard.sim.nats_cluster import ClusterError
from scoreboard.sim.readers import ReadersBroker
from scoreboard.venue import bridge

ALL_DONE = "venue-demo: all tables done"
BOARD = Path(__file__).resolve().parents[1] / "venue" / "board"
PLAYERS = [("Ana", "Ben"), ("Maja", "Luka"), ("Ivana", "Marko"), ("Petra", "Tomislav"), ("Lea", "Filip"),
           ("Nika", "Josip"), ("Sara", "Ante"), ("Mia", "Ivan")]
STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class VenueOptions:
    tables: int = 4
    racks: int = 1
    speed: float = 10.0
    store_dir: str | None = None
    headless: bool = False
    engine: str = "mosquitto"


def table_ids(count: int) -> list[str]:
    """``table1`` ... ``tableN``: ids as install.sh accepts them.

    >>> table_ids(3)
    ['table1', 'table2', 'table3']
    """
    return [f"table{n}" for n in range(1, count + 1)]


class VenueBroker(ConfiguredBroker):
    """The venue's Mosquitto on the text ``install.sh --venue-server`` installs, only its ports and files moved (to
    free loopback ports and this broker's folder), with its readers' broker (a nats-server, ``readers``) beside it
    as on the venue's box; its page listener serves the board from the checkout and lets the operator's login in
    (``operator_password``) for the operator's page, and the director's login (``director_password``, when given)
    on the tables' listener, as install.sh's ACL has its block. ``start`` starts the readers'
    broker first (the bridge to it then connects at once), ``stop`` stops the Mosquitto alone, ``close`` both."""

    def __init__(self, logins: dict[str, str], director_password: str | None = None) -> None:
        super().__init__()
        self.readers = ReadersBroker()
        self.tables_port, self.page_port = self.port, free_port()
        director = {} if director_password is None else {bridge.DIRECTOR_LOGIN: director_password}
        self.write_passwords("devetka-venue.passwd", {**logins, **director})
        self.write("devetka-venue.acl", bridge.render_venue_acl(list(logins)))
        self.operator_password = secrets.token_hex(8)
        self.write_passwords("devetka-venue-page.passwd", {bridge.OPERATOR_LOGIN: self.operator_password})
        self.write("devetka-venue-page.acl", bridge.render_page_acl())
        self.config_text = bridge.render_venue_broker(
            self.readers.link_password, tables_port=self.tables_port, page_port=self.page_port,
            readers_port=self.readers.mqtt_port, bind="127.0.0.1", etc=str(self.folder), board_dir=str(BOARD))

    @property
    def readers_port(self) -> int:
        return self.readers.mqtt_port

    @property
    def board_url(self) -> str:
        """The page as this Mosquitto serves it, pointed at the readers' WebSocket (its port is not 9002 here)."""
        return f"http://127.0.0.1:{self.page_port}/?broker={self.readers.ws_url}"

    def start(self) -> None:
        self.readers.start()
        super().start()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.readers.close()


class TableBroker(ConfiguredBroker):
    """A table's own Mosquitto: a listener for its daemon on loopback, no Nagle on its clients' sockets (as
    deploy/mosquitto/devetka.conf), and the bridge ``install.sh --venue`` makes."""

    def __init__(self, bridge_text: str) -> None:
        super().__init__()
        self.config_text = (f"set_tcp_nodelay true\nlistener {self.port} 127.0.0.1\nallow_anonymous true\n\n"
                            f"{bridge_text}")


class MosquittoVenue:
    """The venue on one Mosquitto (``install.sh --venue-server``): it also serves the board. With
    ``director_password`` the director logs in on the tables' listener (``director_address``)."""

    def __init__(self, stack: contextlib.ExitStack, logins: dict[str, str],
                 director_password: str | None = None) -> None:
        self.broker = stack.enter_context(VenueBroker(logins, director_password))
        self.nodes = [(self.broker.process.pid, ("127.0.0.1", self.broker.readers_port))]
        self.board = self.broker.board_url
        self.director_address = ("127.0.0.1", self.broker.tables_port)

    def bridge(self, table_id: str, password: str) -> str:
        return bridge.render_table_bridge(table_id, "127.0.0.1", self.broker.tables_port, table_id, password)


class NatsVenue:
    """The venue on three NATS nodes (``install.sh --venue-server --engine nats``); NATS serves no page, so the
    board is served from the checkout by a small file server here, pointed at every node (it fails over). With
    ``director_password`` the director logs in on node 1 (``director_address``), as install.sh's box runs it."""

    def __init__(self, stack: contextlib.ExitStack, logins: dict[str, str],
                 director_password: str | None = None) -> None:
        from scoreboard.sim.nats_cluster import NatsCluster

        self.cluster = stack.enter_context(NatsCluster(logins, director_password=director_password))
        self.nodes = [(node.process.pid, node.mqtt) for node in self.cluster.nodes]
        self.director_address = self.cluster.mqtt_addresses[0]
        pages = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_QuietFiles, directory=str(BOARD)))
        threading.Thread(target=pages.serve_forever, name="venue-demo board", daemon=True).start()
        stack.callback(pages.server_close)
        stack.callback(pages.shutdown)
        brokers = ",".join(self.cluster.ws_urls)
        self.board = f"http://127.0.0.1:{pages.server_address[1]}/?broker={brokers}"

    def bridge(self, table_id: str, password: str) -> str:
        first, *others = self.cluster.mqtt_addresses
        return bridge.render_table_bridge(table_id, first[0], first[1], table_id, password, others=others)


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the standard library's name)
        pass


ENGINES = {"mosquitto": MosquittoVenue, "nats": NatsVenue}


class Table:
    """One simulated table: its broker and ``devetka demo --hold`` publishing to it."""

    def __init__(self, table_id: str, number: int, bridge_text: str, options: VenueOptions,
                 store_dir: Path, said: Callable[[str], None]) -> None:
        self.id = table_id
        self.broker = TableBroker(bridge_text)
        self.broker.start()
        self.store = store_dir / f"{table_id}.sqlite3"
        players = PLAYERS[(number - 1) % len(PLAYERS)]
        command = [sys.executable, "-m", "scoreboard.commands.main", "demo", "--headless", "--hold",
                   "--table", table_id, "--players", ",".join(players), "--seed", str(number),
                   "--racks", str(options.racks), "--speed", f"{options.speed:g}",
                   "--broker", f"127.0.0.1:{self.broker.port}", "--store", str(self.store)]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                        preexec_fn=die_with_parent)
        self.played = threading.Event()
        self.ended = threading.Event()
        self.output: list[str] = []
        threading.Thread(target=self._read, args=(said,), name=f"venue-demo {table_id}", daemon=True).start()

    def _read(self, said: Callable[[str], None]) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line.rstrip("\n"))
            if line.startswith(HELD):
                self.played.set()
                said(f"venue-demo: {self.id} played; its daemon serves on")
        self.process.wait()
        self.ended.set()

    @property
    def failed(self) -> bool:
        """Its demo ended before its table had played."""
        return self.ended.is_set() and not self.played.is_set()

    def why(self) -> str:
        """Why its demo ended: what it said last of itself (``devetka demo: ...``), and how it exited."""
        said = [line for line in self.output if line.startswith("devetka demo: ")]
        return "; ".join(([said[-1].removeprefix("devetka demo: ")] if said else []) + [_exit(self.process)])

    def stop(self) -> None:
        end(self.process, STOP_TIMEOUT_S)
        self.broker.close()


def say_where(venue: MosquittoVenue | NatsVenue, out: Callable[[str], None]) -> None:
    """Where the venue's readers connect (each node's pid and MQTT address, all of them) and the board's address."""
    for number, (pid, (host, port)) in enumerate(venue.nodes, start=1):
        out(f"venue node {number}: pid {pid}, mqtt {host}:{port}")
    out("venue broker: " + ",".join(f"{host}:{port}" for _, (host, port) in venue.nodes))
    out(f"board: {venue.board}")


def run_venue(options: VenueOptions, out: Callable[[str], None] = print) -> int:
    """The venue until SIGINT or SIGTERM: 0 after a clean stop, 1 when a table failed (the others played on), 2 when
    it cannot start."""
    stop = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in (signal.SIGINT, signal.SIGTERM)}
    with contextlib.ExitStack() as stack:
        if options.store_dir is None:
            store_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="devetka-venue-")))
        else:
            store_dir = Path(options.store_dir)
            store_dir.mkdir(parents=True, exist_ok=True)
        ids = table_ids(options.tables)
        logins = {table_id: secrets.token_hex(8) for table_id in ids}
        try:
            venue = ENGINES[options.engine](stack, logins)
        except (BrokerError, ClusterError) as error:
            out(f"venue-demo: the venue broker did not start: {error}")
            return 2
        say_where(venue, out)
        board = venue.board
        tables: list[Table] = []
        stack.callback(lambda: [table.stop() for table in reversed(tables)])
        for number, table_id in enumerate(ids, start=1):
            table = Table(table_id, number, venue.bridge(table_id, logins[table_id]), options, store_dir, out)
            tables.append(table)
            out(f"venue-demo: {table_id}: devetka demo pid {table.process.pid}, its broker "
                f"127.0.0.1:{table.broker.port}, store {table.store}")
        if not options.headless and has_display():
            browser = shutil.which("chromium") or shutil.which("chromium-browser")
            if browser is not None:
                viewer = subprocess.Popen([browser, f"--app={board}", f"--user-data-dir={store_dir}/.browser"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                stack.callback(viewer.terminate)
        told: set[str] = set()
        announced = False
        while not stop.wait(0.2):
            for table in tables:
                if table.id not in told and table.failed:
                    told.add(table.id)
                    out(f"venue-demo: {table.id} failed: {table.why()}; the other tables play on")
                elif table.id not in told and table.played.is_set() and table.ended.is_set():
                    told.add(table.id)
                    out(f"venue-demo: {table.id}'s daemon stopped after it played: {table.why()}")
            if not announced and all(table.played.is_set() or table.failed for table in tables):
                announced = True
                failed = [table.id for table in tables if table.failed]
                out(f"venue-demo: tables done, {len(failed)} failed: {', '.join(failed)}" if failed else ALL_DONE)
        status = 1 if any(table.failed for table in tables) else 0
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    out("venue-demo: stopped")
    return status


def _exit(process: subprocess.Popen) -> str:
    """How a process exited, in words: ``exit 1``, ``killed by SIGKILL``."""
    code = process.returncode
    if code is not None and code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit {code}"


__all__ = ["ALL_DONE", "ENGINES", "VenueOptions", "run_venue", "say_where", "table_ids"]
