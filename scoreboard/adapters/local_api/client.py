"""The one client of the local API: ``Connection`` for a request at a time, ``ApiClient`` for a screen.

The framing is the server's: one JSON object a line; a request carries an ``id`` and its answer
(``{"id", "ok", "state" | "error"}``) echoes it; between answers come the state broadcasts, one on
connecting and one after every change. ``devetka tap``, the tests and the benchmarks hold a
``Connection``; the touchscreen and the demo an ``ApiClient``, whose reader thread keeps the
connection up across daemon restarts and hands every message to ``deliver`` (on the touchscreen,
Kivy's main thread).

>>> import queue, tempfile
>>> heard = queue.Queue()
>>> client = ApiClient(tempfile.mkdtemp() + "/none.sock", on_connected=heard.put)
>>> client.send({"type": "undo"})["error"]
'not connected to the referee (devetka run): the tap was not sent'
>>> client.start(); heard.get(timeout=10), client.stop()
(False, None)
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from scoreboard.core.messages import Message, msg, render, to_json

RETRY_S = 0.25
"""How long to wait between attempts to reach the daemon: a restart is back in well under a second."""

TIMEOUT_S = 30.0
"""How long a request waits for its answer: generous, for a loaded Pi writing to its SD card."""


def encode(request: Any) -> bytes:
    """One request line."""
    return orjson.dumps(request, option=orjson.OPT_APPEND_NEWLINE)


def is_answer(message: dict[str, Any]) -> bool:
    """An answer to a request (a broadcast has ``"type": "state"`` and no ``ok``)."""
    return "ok" in message


class Connection:
    """One blocking connection: requests answered by id, the broadcasts that come between kept in order."""

    def __init__(self, path: str | os.PathLike[str], timeout: float = TIMEOUT_S) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self.stream = self.sock.makefile("rb")
        self.broadcasts: list[dict[str, Any]] = []
        self.last_id: Any = None
        """The id of the last request sent here."""
        self._ids = itertools.count(1)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self) -> dict[str, Any]:
        """The next message; ``ConnectionError`` once the daemon has closed the connection."""
        text = self.stream.readline()
        if not text:
            raise ConnectionError("the daemon closed the connection")
        message: dict[str, Any] = orjson.loads(text)
        return message

    def send_raw(self, data: bytes) -> dict[str, Any]:
        """Send bytes and return the next answer, keeping the broadcasts that come first."""
        self.sock.sendall(data)
        while True:
            message = self.line()
            if is_answer(message):
                return message
            self.broadcasts.append(message)

    def request(self, request: Any) -> dict[str, Any]:
        """Send one request with a fresh id (unless it has one) and return its answer.

        Anything but an object is sent as it is, for the daemon to refuse in its own words.
        """
        if isinstance(request, dict):
            if "id" not in request:
                request = dict(request, id=next(self._ids))
            self.last_id = request["id"]
        return self.send_raw(encode(request))

    def broadcast(self) -> dict[str, Any]:
        """The next state broadcast: one already received, or the next line."""
        if self.broadcasts:
            return self.broadcasts.pop(0)
        while True:
            message = self.line()
            if not is_answer(message):
                return message

    def close(self) -> None:
        self.stream.close()
        self.sock.close()


def request_once(path: str | os.PathLike[str], request: Any, timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """Connect, send one request, return its answer; ``OSError`` if no daemon answers on ``path``."""
    with Connection(path, timeout) as connection:
        return connection.request(request)


def _now(call: Callable[[], None]) -> None:
    call()


def _ignore(*_args: Any) -> None:
    pass


class ApiClient:
    """One connection to the daemon, kept up by a reader thread; handlers run through ``deliver``.

    ``on_state(state)`` for each state the daemon sends; ``on_answer(answer)`` for
    each answer to a request sent here (``answer["request"]`` is that request);
    ``on_connected(bool)`` when the connection comes and goes. ``deliver`` runs each
    handler call (by default at once, in the reader thread); ``state`` is the latest
    state, and ``ask`` and ``wait_for`` block for those who may (the demo, the tests).
    """

    def __init__(self, socket_path: str | os.PathLike[str], *, on_state: Callable[[dict[str, Any]], None] = _ignore,
                 on_answer: Callable[[dict[str, Any]], None] = _ignore, on_connected: Callable[[bool], None] = _ignore,
                 deliver: Callable[[Callable[[], None]], None] = _now, retry_s: float = RETRY_S) -> None:
        self.socket_path = str(socket_path)
        self.on_state, self.on_answer, self.on_connected = on_state, on_answer, on_connected
        self.deliver = deliver
        self.retry_s = retry_s
        self.state: dict[str, Any] | None = None
        self._ids = itertools.count(1)
        self._sent: dict[int, dict[str, Any]] = {}
        self._answers: dict[int, dict[str, Any]] = {}
        self._waiting: set[int] = set()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._sock: socket.socket | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: deque[Callable[[], None]] = deque()

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="devetka-api-client", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Close the connection and wait for the reader thread to end."""
        self._stopping.set()
        with self._lock:
            sock = self._sock
            self._changed.notify_all()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=10)

    def send(self, request: dict[str, Any], wait_s: float = 0.0) -> dict[str, Any]:
        """Send a request with a fresh id; returns ``{"id": ..., "request": ...}``, or an ``error`` if not sent.

        The answer comes later through ``on_answer``; or, if it comes within ``wait_s``, it is returned here
        instead (it has ``ok``), and ``on_answer`` does not hear of it: the touchscreen draws a tap's answer in the
        frame that follows the tap, not one frame later.
        """
        request_id = next(self._ids)
        if wait_s > 0:
            with self._lock:
                self._waiting.add(request_id)
        refused = self._send_with_id(request, request_id)
        if wait_s > 0:
            with self._changed:
                if refused is None:
                    self._changed.wait_for(lambda: request_id in self._answers or self._stopping.is_set(), wait_s)
                self._waiting.discard(request_id)  # from here a late answer goes to on_answer, as without a wait
                answer = self._answers.pop(request_id, None)
            if answer is not None:
                return answer
        return refused if refused is not None else {"id": request_id, "request": request}

    def ask(self, request: dict[str, Any], timeout: float = TIMEOUT_S) -> dict[str, Any]:
        """Send a request and wait for its answer (never from the thread ``deliver`` runs handlers on).

        An answer later than ``timeout`` goes to ``on_answer``, as a ``send``'s does: the wait ends and the request
        stops being waited for in one step, so no answer is kept for a caller that has gone."""
        with self._lock:
            request_id = next(self._ids)
            self._waiting.add(request_id)
        refused = self._send_with_id(request, request_id)
        with self._changed:
            if refused is None:
                self._changed.wait_for(lambda: request_id in self._answers or self._stopping.is_set(), timeout)
            self._waiting.discard(request_id)
            answer = self._answers.pop(request_id, None)
        if refused is not None:
            return refused
        if answer is not None:
            return answer
        if self._stopping.is_set():
            return _failed(request_id, request, msg("the client was stopped"))
        waited = f"{timeout:g}"
        return _failed(request_id, request, msg("the referee did not answer within {seconds} s", seconds=waited))

    def _send_with_id(self, request: dict[str, Any], request_id: int) -> dict[str, Any] | None:
        """Send; None once sent (its answer is then awaited), else the error answer saying why it was not."""
        with self._lock:
            sock = self._sock
            if sock is None:
                return _failed(request_id, request,
                               msg("not connected to the referee (devetka run): the tap was not sent"))
            self._sent[request_id] = request
            try:
                sock.sendall(encode(dict(request, id=request_id)))
            except OSError as error:
                del self._sent[request_id]
                return _failed(request_id, request, msg(
                    "the tap was not sent: the connection to the referee failed ({error})", error=str(error)))
        return None

    def wait_for(self, ready: Callable[[dict[str, Any]], bool], timeout: float) -> bool:
        """Wait until the latest state satisfies ``ready``; False after ``timeout`` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: self.state is not None and ready(self.state), timeout)

    def _post(self, call: Callable[[], None]) -> None:
        """Queue a handler call and have ``deliver`` drain the queue: calls run in the order they were posted."""
        self._pending.append(call)
        self.deliver(self._drain)

    def _drain(self) -> None:
        while True:
            try:
                call = self._pending.popleft()
            except IndexError:
                return
            call()

    def _run(self) -> None:
        was_connected: bool | None = None
        while not self._stopping.is_set():
            sock = self._connect()
            if sock is None:
                if was_connected is not False:
                    was_connected = False
                    self._post(lambda: self.on_connected(False))
                self._stopping.wait(self.retry_s)
                continue
            was_connected = True
            self._post(lambda: self.on_connected(True))
            try:
                self._read(sock)
            finally:
                with self._lock:
                    self._sock = None
                    lost = list(self._sent.items())
                    self._sent.clear()
                sock.close()
            for request_id, request in lost:
                self._answered(request_id, _failed(request_id, request, msg(
                    "the referee went away before answering: look at the screen, then tap again")))
            if not self._stopping.is_set():
                was_connected = False
                self._post(lambda: self.on_connected(False))

    def _connect(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            return None
        with self._lock:
            if self._stopping.is_set():
                sock.close()
                return None
            self._sock = sock
        return sock

    def _read(self, sock: socket.socket) -> None:
        with sock.makefile("rb") as stream:
            try:
                for line in stream:
                    self._message(orjson.loads(line))
            except (OSError, orjson.JSONDecodeError):
                return

    def _message(self, message: dict[str, Any]) -> None:
        if not is_answer(message):
            with self._changed:
                self.state = message
                self._changed.notify_all()
            self._post(lambda: self.on_state(message))
            return
        request_id = message.get("id")
        with self._lock:
            request = self._sent.pop(request_id, None) if isinstance(request_id, int) else None
        self._answered(request_id, dict(message, request=request))

    def _answered(self, request_id: Any, answer: dict[str, Any]) -> None:
        with self._changed:
            if request_id in self._waiting:
                self._answers[request_id] = answer
                self._changed.notify_all()
                return
        self._post(lambda: self.on_answer(answer))


def _failed(request_id: int, request: dict[str, Any], message: Message) -> dict[str, Any]:
    """The answer the client makes itself for a request the referee never answered: its ``error`` in English and
    its ``message`` (``scoreboard.core.messages``), for a screen to say in its players' language."""
    return {"id": request_id, "ok": False, "request": request, "error": render(message), "message": to_json(message)}
