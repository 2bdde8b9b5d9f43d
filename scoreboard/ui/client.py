"""The touchscreen's side of the local API: a reader thread on the Unix socket, taps sent with ids.

Kivy widgets may only be touched on the main thread, and a read on the socket
blocks, so one background thread reads the JSON lines and hands every message
to ``deliver``, which in the app is ``Clock.schedule_once``: the handlers then
run on the main thread. When the daemon goes away (restart, crash) the thread
says so and reconnects until it is back; the daemon greets every new client
with the current state, so the screen comes back to where the match is.

>>> import queue, tempfile
>>> heard = queue.Queue()
>>> client = ApiClient(tempfile.mkdtemp() + "/none.sock", on_connected=heard.put, deliver=lambda call: call())
>>> client.send({"type": "undo"})["error"]
'not connected to the referee (devetka run): the tap was not sent'
>>> client.start(); heard.get(timeout=10), client.stop()
(False, None)
"""

from __future__ import annotations

import itertools
import socket
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

RETRY_S = 0.25
"""How long to wait between attempts to reach the daemon: a restart is back in well under a second."""


def kivy_deliver(call: Callable[[], None]) -> None:
    """Run ``call`` on Kivy's main thread at the next frame."""
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: call(), 0)


def _ignore(*_args: Any) -> None:
    pass


class ApiClient:
    """One connection to the daemon, kept up by a reader thread; handlers run through ``deliver``.

    ``on_state(state)`` for each state the daemon sends; ``on_answer(answer)`` for
    each answer to a request sent here (``answer["request"]`` is that request);
    ``on_connected(bool)`` when the connection comes and goes.
    """

    def __init__(self, socket_path: str, *, on_state: Callable[[dict], None] = _ignore,
                 on_answer: Callable[[dict], None] = _ignore, on_connected: Callable[[bool], None] = _ignore,
                 deliver: Callable[[Callable[[], None]], None] = kivy_deliver, retry_s: float = RETRY_S) -> None:
        self.socket_path = str(socket_path)
        self.on_state, self.on_answer, self.on_connected = on_state, on_answer, on_connected
        self.deliver = deliver
        self.retry_s = retry_s
        self._ids = itertools.count(1)
        self._sent: dict[int, dict] = {}
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: deque[Callable[[], None]] = deque()

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="devetka-ui-api", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Close the connection and wait for the reader thread to end."""
        self._stopping.set()
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=10)

    def send(self, request: dict) -> dict:
        """Send a request with a fresh id; returns ``{"id": ..., "request": ...}``, or an ``error`` if not sent.

        The answer comes later through ``on_answer``. Called from the main thread.
        """
        request_id = next(self._ids)
        with self._lock:
            sock = self._sock
            if sock is None:
                return {"id": request_id, "ok": False, "request": request,
                        "error": "not connected to the referee (devetka run): the tap was not sent"}
            self._sent[request_id] = request
            try:
                sock.sendall(orjson.dumps(dict(request, id=request_id)) + b"\n")
            except OSError as error:
                del self._sent[request_id]
                return {"id": request_id, "ok": False, "request": request,
                        "error": f"the tap was not sent: the connection to the referee failed ({error})"}
        return {"id": request_id, "request": request}

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
                answer = {"id": request_id, "ok": False, "request": request,
                          "error": "the referee went away before answering: look at the screen, then tap again"}
                self._post(lambda answer=answer: self.on_answer(answer))
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

    def _message(self, message: dict) -> None:
        if message.get("type") == "state":
            self._post(lambda: self.on_state(message))
            return
        if "ok" not in message:
            return
        with self._lock:
            request = self._sent.pop(message.get("id"), None)
        answer = dict(message, request=request)
        self._post(lambda: self.on_answer(answer))
