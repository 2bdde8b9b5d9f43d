"""The local API's server: the referee's service on a Unix socket, JSON lines in and out.

Each request line is a JSON object with an optional ``id``; its answer is
``{"id": ..., "ok": true, "state": {...}}`` or ``{"id": ..., "ok": false,
"error": "...", "words": "..."}``: the error in English (the API's words) and
in the players' language (docs/match-log.md). After every change each client gets ``{"type": "state",
...}``, and one on connecting, so a screen never has to ask. A bad line is
answered with the error and the connection stays open: a script's typo must
not cut the touchscreen off.

Requests are handled one at a time on the event loop, so the store sees one
writer and the answers and broadcasts go out in the order of the changes.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
import stat
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from scoreboard.core.messages import msg
from scoreboard.referee.service import REQUEST_LIMIT, Service

WAY_IN = "socket"
BACKLOG_LIMIT = 4 << 20  # a client that stops reading is dropped once this much waits for it
SOCKET_MODE = 0o660
MAX_CLIENTS = 64  # the config's [api] max_clients unless it says otherwise
LISTEN_BACKLOG = 1024  # connections the kernel holds until they are accepted: a burst is queued, not refused
SAY_EVERY_S = 60.0  # a condition that goes on (clients refused, no file descriptors left) is said this often at most

log = logging.getLogger("devetka.api")

#: What asyncio calls with a loop's unhandled exception (``loop.get_exception_handler()``).
ExceptionHandler = Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object]


class OncePerMinute:
    """Says a condition that goes on at most once every ``SAY_EVERY_S``, with how often it happened meanwhile."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._last: float | None = None
        self._unsaid = 0

    def say(self, message: str, *args: object) -> None:
        now = self.clock()
        if self._last is not None and now - self._last < SAY_EVERY_S:
            self._unsaid += 1
            return
        more = f" ({self._unsaid} more times in the last {SAY_EVERY_S:g} s)" if self._unsaid else ""
        self._last, self._unsaid = now, 0
        log.warning(message + more, *args)


class ApiError(Exception):
    """The API cannot start (no folder for the socket, another daemon on it); the message says what to do."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


class Server:
    """Serves the referee's ``Service`` on a Unix socket; ``serve`` runs until ``stop`` is called."""

    def __init__(self, service: Service, socket_path: str | os.PathLike[str], max_clients: int = MAX_CLIENTS) -> None:
        self.service = service
        self.path = Path(socket_path)
        self.max_clients = max_clients
        self._clients: set[asyncio.StreamWriter] = set()
        self._refusing = OncePerMinute()
        self._starved = OncePerMinute()
        self._server: asyncio.base_events.Server | None = None
        self._stopped = asyncio.Event()
        self._inode: int | None = None
        service.watch(self.broadcast)

    async def start(self) -> None:
        """Bind the socket (mode 0660; a stale socket file replaced); raises ``ApiError``."""
        _prepare(self.path)
        old_umask = os.umask(0o117)  # the socket is born 0660: no moment when others may connect
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(partial(self._loop_trouble, loop.get_exception_handler()))
        try:
            self._server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=REQUEST_LIMIT,
                                                           backlog=LISTEN_BACKLOG)
        except OSError as error:
            raise ApiError(f"cannot listen on {self.path}: {error.strerror or error}") from None
        finally:
            os.umask(old_umask)
        os.chmod(self.path, SOCKET_MODE)
        self._inode = self.path.stat().st_ino

    def stop(self) -> None:
        self._stopped.set()

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

    def _loop_trouble(self, previous: ExceptionHandler | None, loop: asyncio.AbstractEventLoop,
                      context: dict[str, Any]) -> None:
        """asyncio's word when accept fails for want of file descriptors: said once a minute, not every second
        with a traceback (the journal is on an SD card); asyncio itself retries the accept a second later."""
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE):
            self._starved.say("no file descriptor left to accept a client on %s (%s, %d clients): new clients wait; "
                              "those connected are served", self.path, error.strerror, len(self._clients))
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._clients) >= self.max_clients:
            self._refusing.say("a client was refused: %d are connected, the most [api] max_clients allows",
                               len(self._clients))
            writer.write(_dumps(self.service.refusal(None, msg(
                "too many clients: the daemon serves {most} at once ([api] max_clients); try again later",
                most=self.max_clients), "unavailable")))
            writer.close()
            return
        self._clients.add(writer)
        try:
            self._send(writer, self.service.state())
            while not self._stopped.is_set():
                try:
                    line = await reader.readline()
                except (asyncio.LimitOverrunError, ValueError):
                    self._send(writer, self.service.refusal(None, msg(
                        "request line longer than {limit} bytes: closing", limit=REQUEST_LIMIT)))
                    break
                if not line:
                    break
                if line.strip():
                    self.service.request(line, partial(self._send, writer), WAY_IN)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._clients.discard(writer)
            writer.close()

    def broadcast(self, message: dict[str, Any]) -> None:
        """The message to every client; one that lets too much pile up unread is dropped."""
        data = _dumps(message)
        for writer in list(self._clients):
            self._send(writer, data)

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


