"""The director's local API: a Unix socket, one JSON object a line in, its answer a line out (docs/events.md).

Like the table's (``scoreboard.adapters.local_api.server``): each request may carry an ``id`` the answer echoes;
a bad line is answered with its error and the connection stays open. Requests are handled one at a time on the
event loop, so the store has one writer and each answer goes out after its record is committed.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from pathlib import Path
from typing import Any

import orjson

from scoreboard.core.messages import msg
from scoreboard.director.service import Director, refusal

REQUEST_LIMIT = 1 << 20
SOCKET_MODE = 0o660


class DirectorApiError(Exception):
    """The API cannot start (no folder for the socket, another director on it); the message says what to do."""


class DirectorServer:
    def __init__(self, director: Director, socket_path: str | os.PathLike[str]) -> None:
        self.director = director
        self.path = Path(socket_path)
        self._server: asyncio.base_events.Server | None = None
        self._stopped = asyncio.Event()

    async def start(self) -> None:
        _prepare(self.path)
        old_umask = os.umask(0o117)
        try:
            self._server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=REQUEST_LIMIT)
        except OSError as error:
            raise DirectorApiError(f"cannot listen on {self.path}: {error.strerror or error}") from None
        finally:
            os.umask(old_umask)
        os.chmod(self.path, SOCKET_MODE)

    def stop(self) -> None:
        self._stopped.set()

    async def serve(self) -> None:
        await self._stopped.wait()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self.path.unlink(missing_ok=True)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while not self._stopped.is_set():
                try:
                    line = await reader.readline()
                except (asyncio.LimitOverrunError, ValueError):
                    writer.write(_line(refusal(msg("request line longer than {limit} bytes: closing",
                                                   limit=REQUEST_LIMIT))))
                    break
                if not line:
                    break
                if line.strip():
                    writer.write(_line(self.answer(line)))
                    await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    def answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            return refusal(msg("not valid JSON: {error}", error=str(error)))
        answer = self.director.handle(request)
        if isinstance(request, dict) and "id" in request:
            answer = {"id": request["id"], **answer}
        return answer


def _line(value: dict[str, Any]) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


def _prepare(path: Path) -> None:
    """The folder must exist; a socket no director answers on is removed; anything else is an error."""
    if not path.parent.is_dir():
        raise DirectorApiError(f"the folder of the socket {path} does not exist: create {path.parent} first")
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise DirectorApiError(f"{path} exists and is not a socket: not replacing it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)
        return
    finally:
        probe.close()
    raise DirectorApiError(f"another director is listening on {path}")


def ask(socket_path: str | os.PathLike[str], request: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """One request to a running director and its answer (``devetka event``'s way in); ``OSError`` if none runs."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(str(socket_path))
        connection.sendall(_line(request))
        data = b""
        while not data.endswith(b"\n"):
            chunk = connection.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the director closed the connection before answering")
            data += chunk
    answer = orjson.loads(data)
    if not isinstance(answer, dict):
        raise ConnectionError("the director answered with no JSON object")
    return answer
