"""The local API: the daemon on a Unix socket, JSON lines in and out; ``devetka run`` and ``devetka tap``.

Each request line is a JSON object with an optional ``id``; its answer is
``{"id": ..., "ok": true, "state": {...}}`` or ``{"id": ..., "ok": false,
"error": "..."}``. After every change each client gets ``{"type": "state",
...}``, and one on connecting, so a screen never has to ask. A bad line is
answered with the error and the connection stays open: a script's typo must
not cut the touchscreen off.

Requests are handled one at a time on the event loop, so the store sees one
writer and the answers and broadcasts go out in the order of the changes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from scoreboard.config import ApiConfig
from scoreboard.sensing import Health

DEFAULT_SOCKET = ApiConfig().socket
LINE_LIMIT = 1 << 20  # a request line longer than this is refused and the connection closed
BACKLOG_LIMIT = 4 << 20  # a client that stops reading is dropped once this much waits for it
SOCKET_MODE = 0o660


class ApiError(Exception):
    """The API cannot start (no folder for the socket, another daemon on it); the message says what to do."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


class Server:
    """Serves a ``Referee`` on a Unix socket; ``serve`` runs until ``stop`` is called."""

    def __init__(self, referee, socket_path: str | os.PathLike) -> None:
        self.referee = referee
        self.path = Path(socket_path)
        self._clients: set[asyncio.StreamWriter] = set()
        self._server: asyncio.base_events.Server | None = None
        self._stopped = asyncio.Event()
        self._wake = asyncio.Event()
        self._inode: int | None = None
        self.observers: list[Callable[[dict[str, Any]], None]] = []
        """Called on the event loop with every state broadcast (the MQTT link publishes it)."""

    async def start(self) -> None:
        """Bind the socket (mode 0660; a stale socket file replaced); raises ``ApiError``."""
        _prepare(self.path)
        old_umask = os.umask(0o117)  # the socket is born 0660: no moment when others may connect
        try:
            self._server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=LINE_LIMIT)
        except OSError as error:
            raise ApiError(f"cannot listen on {self.path}: {error.strerror or error}") from None
        finally:
            os.umask(old_umask)
        os.chmod(self.path, SOCKET_MODE)
        self._inode = self.path.stat().st_ino

    def stop(self) -> None:
        self._stopped.set()

    def report(self, report) -> None:
        """A sensor source's report, handed over to the event loop (sources run in threads of their own)."""
        referee = self.referee
        if isinstance(report, Health):
            referee.health_report(report)
            self.broadcast(dict(referee.state(), type="state"))
            return
        if referee.match is None:
            return  # no match to referee yet: the table is being set up
        self._wake.set()
        reply = referee.sensed(report)
        if not reply.ok:
            print(f"devetka run: sensor input {report.TYPE} not applied: {reply.error}", file=sys.stderr, flush=True)
        if reply.changed:
            self.broadcast(dict(referee.state(), type="state"))

    async def settle_loop(self) -> None:
        """Apply the settle timer's ``settle`` once the table is quiet: the turn passes with no one tapping.

        It sleeps until the timer's deadline, or until a request may have moved it.
        """
        referee = self.referee
        while True:
            deadline = referee.timer.deadline
            timeout = None if deadline is None else max(0.0, deadline - referee.now())
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                pass
            self._wake.clear()
            reply = referee.settle_if_due()
            if reply is not None and not reply.ok:
                print(f"devetka run: the table was quiet but the settle was not applied: {reply.error}",
                      file=sys.stderr, flush=True)
            if reply is not None and reply.changed:
                self.broadcast(dict(referee.state(), type="state"))

    async def serve(self) -> None:
        """Serve until ``stop``; then close every client and remove the socket file (if still ours)."""
        await self._stopped.wait()
        server = self._server
        if server is not None:
            server.close()
        for writer in list(self._clients):
            writer.close()
        if server is not None:
            await server.wait_closed()
        self._remove_socket()

    def _remove_socket(self) -> None:
        try:
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()
        except FileNotFoundError:
            pass

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        try:
            self._send(writer, dict(self.referee.state(), type="state"))
            while not self._stopped.is_set():
                try:
                    line = await reader.readline()
                except (asyncio.LimitOverrunError, ValueError):
                    self._send(writer, {"id": None, "ok": False,
                                        "error": f"request line longer than {LINE_LIMIT} bytes: closing"})
                    break
                if not line:
                    break
                if line.strip():
                    self.request(line, partial(self._send, writer))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._clients.discard(writer)
            writer.close()

    def request(self, line: bytes, answer: Callable[[dict[str, Any]], None],
                not_here: Mapping[str, str] | None = None) -> None:
        """A request line from any client (the socket's or MQTT's): ``answer`` gets its answer, then all the change.

        ``not_here`` maps the commands this way in may not send to why (MQTT may not change the settings).
        """
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            answer({"id": None, "ok": False, "error": f"not valid JSON: {error}"})
            return
        if not isinstance(request, dict):
            kind = type(request).__name__
            answer({"id": None, "ok": False, "error": f"a request must be a JSON object, not {kind}"})
            return
        request_id = request.pop("id", None)
        if not_here and request.get("cmd") in not_here:
            answer({"id": request_id, "ok": False, "error": not_here[request["cmd"]]})
            return
        self._wake.set()
        try:
            reply = self.referee.handle(request)
        except Exception as error:  # a bug must cost one answer, not the daemon
            answer({"id": request_id, "ok": False, "error": f"internal error: {error!r}"})
            return
        if reply.ok:
            answer({"id": request_id, "ok": True, "state": reply.state})
        else:
            answer({"id": request_id, "ok": False, "error": reply.error})
        if reply.changed:
            self.broadcast(dict(self.referee.state(), type="state"))

    def broadcast(self, message: dict[str, Any]) -> None:
        """The message to every client; one that lets too much pile up unread is dropped."""
        data = _dumps(message)
        for writer in list(self._clients):
            self._send(writer, data)
        for observer in self.observers:
            observer(message)

    def _send(self, writer: asyncio.StreamWriter, message: dict[str, Any] | bytes) -> None:
        if writer.is_closing():
            self._clients.discard(writer)
            return
        if writer.transport.get_write_buffer_size() > BACKLOG_LIMIT:
            self._clients.discard(writer)
            writer.close()
            return
        writer.write(message if isinstance(message, bytes) else _dumps(message))


def _prepare(path: Path) -> None:
    """The folder must exist; a socket file no daemon answers on is removed; anything else is an error."""
    if not path.parent.is_dir():
        raise ApiError(f"the folder of the socket {path} does not exist: create {path.parent} first")
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ApiError(f"{path} exists and is not a socket: not replacing it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)  # stale: left by a daemon that died
        return
    except OSError as error:
        raise ApiError(f"cannot check the socket {path}: {error.strerror or error}") from None
    finally:
        probe.close()
    raise ApiError(f"another daemon is listening on {path}")


def notify(message: bytes, environ: dict[str, str] | None = None) -> bool:
    """Tell systemd (``NOTIFY_SOCKET``, a datagram socket; ``@`` is the abstract namespace); False if unset."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        try:
            sock.sendto(message, address)
        except OSError:
            return False  # systemd gone or the socket wrong: refereeing goes on
    return True


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between ``WATCHDOG=1`` pings (half what systemd asks), or None when it asks for none.

    >>> watchdog_interval({"WATCHDOG_USEC": "4000000"}), watchdog_interval({})
    (2.0, None)
    >>> watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "0"}) is None  # for another process
    True
    """
    environ = os.environ if environ is None else environ
    usec, pid = environ.get("WATCHDOG_USEC"), environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 2e6


async def _watchdog(interval: float) -> None:
    """Ping from the event loop itself: a loop stuck in a request stops the pings and systemd restarts us."""
    while True:
        notify(b"WATCHDOG=1")
        await asyncio.sleep(interval)


async def serve(config, sources=(), on_serving: Callable[[Server], None] | None = None, overrides=None) -> int:
    """The daemon for ``config`` (store, socket, settle timer, match defaults) with ``sources``, until stopped.

    ``on_serving`` is called with the ``Server`` once the store is replayed and the
    socket answers (``devetka demo`` starts its table then, and calls its ``stop``
    when done). Returns the exit status: 0 after a stop, 2 when it cannot start.
    """
    from scoreboard.daemon import Referee
    from scoreboard.store import StoreError

    store = config.store.path
    socket_path = config.api.socket
    try:
        referee = Referee.open(store, settle_after=config.shots.settle_after_s,
                               hold_back=config.settle_hold_back_s, defaults=config.match)
    except (StoreError, OSError) as error:
        print(f"devetka run: cannot open the store {store}: {error}", file=sys.stderr)
        for source in sources:
            source.close()
        return 2
    referee.overrides = overrides
    try:
        if referee.moved_aside is not None:
            print(f"devetka run: the store was corrupt and was moved aside to {referee.moved_aside}; "
                  "a new store is begun", file=sys.stderr)
        if referee.resume_problem is not None:
            print(f"devetka run: {referee.resume_problem}", file=sys.stderr)
        server = Server(referee, socket_path)
        loop = asyncio.get_running_loop()
        link = None
        if config.mqtt.enabled:
            from scoreboard.mqtt import MqttError, MqttLink

            try:
                link = MqttLink(config.mqtt, config.table.id, server, loop)
            except MqttError as error:
                print(f"devetka run: {error}", file=sys.stderr)
                return 2
        try:
            await server.start()
        except ApiError as error:
            print(f"devetka run: {error}", file=sys.stderr)
            return 2
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, server.stop)
        print(f"devetka run: serving {store} on {socket_path}", file=sys.stderr, flush=True)
        notify(b"READY=1")  # the store is replayed and the socket answers
        interval = watchdog_interval()
        pinger = asyncio.create_task(_watchdog(interval)) if interval is not None else None
        settler = asyncio.create_task(server.settle_loop())
        if link is not None:
            link.start()
        referee.sources = list(sources)
        for source in sources:
            source.start(lambda report: loop.call_soon_threadsafe(server.report, report))
        if on_serving is not None:
            on_serving(server)
        try:
            await server.serve()
        finally:
            settler.cancel()
            if link is not None:
                link.close()
            if pinger is not None:
                pinger.cancel()
            notify(b"STOPPING=1")
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
    finally:
        for source in sources:  # while the loop still runs: a source's last reports are handed to it
            source.close()
        referee.close()
    return 0


DEFAULT_CONFIG = "/etc/devetka/table.toml"


def _config_path(args: argparse.Namespace) -> str | None:
    return args.config or (DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None)


def _with_overrides(args: argparse.Namespace, config):
    """The config with the screen's settings (``settings.json`` beside the store) over it, and those settings.

    A broken settings file is named on stderr and left out: the table starts on its config file alone.
    """
    import tomllib

    from scoreboard.overrides import Overrides, path_beside

    path = _config_path(args)
    base = {}
    if path is not None:
        with open(path, "rb") as file:
            base = tomllib.load(file)
    overrides, problem = Overrides.open(path_beside(args.store or config.store.path), base)
    if problem is not None:
        print(f"devetka run: {problem}; starting on the config file alone", file=sys.stderr)
        return config, overrides
    return overrides.effective(), overrides


def _settings(args: argparse.Namespace, command: str):
    """The config the command runs with: ``--config``, else the Pi's file where it exists, else the defaults.

    Returns the config, or None after saying on stderr what is wrong with it.
    """
    from scoreboard.config import Config, ConfigError, load

    path = _config_path(args)
    if path is None:
        return Config()
    try:
        return load(path)
    except ConfigError as error:
        print(f"devetka {command}: {error}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    """``devetka run``: the daemon until SIGTERM or SIGINT (then exit 0, the socket removed)."""
    config = _settings(args, "run")
    if config is None:
        return 2
    config, overrides = _with_overrides(args, config)
    from scoreboard.sensors_cli import Usage, config_sources

    try:
        sources = config_sources(config)
    except Usage as error:
        print(f"devetka run: {error}", file=sys.stderr)
        return 2
    config = replace(config, store=replace(config.store, path=args.store or config.store.path),
                     api=replace(config.api, socket=args.socket or config.api.socket))
    return asyncio.run(serve(config, sources, overrides=overrides))


def tap_request(socket_path: str, request: Any, timeout: float = 30.0) -> dict[str, Any]:
    """Send one request and return its answer (broadcasts before it are skipped); ``OSError`` if no daemon."""
    request = dict(request, id="tap") if isinstance(request, dict) and "id" not in request else request
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(socket_path)
        sock.sendall(_dumps(request))
        with sock.makefile("rb") as stream:
            for line in stream:
                answer = orjson.loads(line)
                if "ok" in answer:
                    return answer
    raise ConnectionError("the daemon closed the connection before answering")


def tap(args: argparse.Namespace) -> int:
    """``devetka tap``: exit 0 when the daemon accepted it, 1 when it refused it, 2 when it cannot be reached."""
    try:
        request = orjson.loads(args.request)
    except orjson.JSONDecodeError as error:
        print(f"devetka tap: not valid JSON: {error}", file=sys.stderr)
        return 2
    if args.socket is None:
        config = _settings(args, "tap")
        if config is None:
            return 2
        args.socket = config.api.socket
    try:
        answer = tap_request(args.socket, request)
    except OSError as error:
        print(f"devetka tap: cannot reach the daemon on {args.socket}: {error.strerror or error}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(_dumps(answer))
    sys.stdout.flush()
    return 0 if answer.get("ok") else 1


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``run`` and ``tap`` to the ``devetka`` command."""
    rn = commands.add_parser("run", help="run the rules daemon: the store and the local API",
                             description="Referee live: keep the store, serve the local API until SIGTERM.")
    rn.add_argument("--config", metavar="FILE", help=f"the table's config (default {DEFAULT_CONFIG} if it exists)")
    rn.add_argument("--store", metavar="FILE", help="the store (SQLite file); default: the config's [store] path")
    rn.add_argument("--socket", metavar="PATH", help="the local API's Unix socket; default: the config's [api] socket")
    rn.set_defaults(run=run)
    tp = commands.add_parser("tap", help="send one input or command to the running daemon",
                             description="Send one JSON input or command; print the answer. Exit 0 if "
                                         "accepted, 1 if refused, 2 if the daemon cannot be reached.")
    tp.add_argument("--config", metavar="FILE", help=f"the table's config (default {DEFAULT_CONFIG} if it exists)")
    tp.add_argument("--socket", metavar="PATH",
                    help=f"the local API's Unix socket (default: the config's [api] socket, {DEFAULT_SOCKET})")
    tp.add_argument("request", metavar="JSON", help='an input or command, e.g. \'{"type": "strike"}\'')
    tp.set_defaults(run=tap)
