"""An MQTT client as a dashboard is one: paho (v2 API) against the test's real Mosquitto, every message kept."""

from __future__ import annotations

import queue
import ssl
import threading
import time
from typing import Any, NamedTuple

import orjson
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.live import TIMEOUT
from tests.served import valid


class Message(NamedTuple):
    topic: str
    payload: bytes
    retain: bool
    qos: int

    @property
    def json(self) -> Any:
        """The payload decoded; a table's state, event or answer checked against the contract (tests/served.py)."""
        value = orjson.loads(self.payload)
        kind = served_kind(self.topic)
        return value if kind is None else valid(kind, value)


def served_kind(topic: str) -> str | None:
    """The contract's schema a table's topic carries (``<prefix>/<table>/state``, ``event``, ``cmd/result``)."""
    levels = topic.split("/")
    if len(levels) == 3 and levels[1] != "director" and levels[2] in ("state", "event"):
        return levels[2]
    if len(levels) == 4 and levels[2:] == ["cmd", "result"]:
        return "result"
    return None


class Watcher:
    """Connected and subscribed to ``topics`` once built; ``next`` gives what arrived, in order."""

    def __init__(self, broker, topics: list[str] | tuple[str, ...] = (), *, username: str | None = None,
                 password: str | None = None, ca_file: str | None = None, certfile: str | None = None,
                 keyfile: str | None = None, transport: str = "tcp") -> None:
        self._queues: dict[str, queue.Queue[Message]] = {}
        self._lock = threading.Lock()
        self.wildcards: list[str] = []  # messages matching one go to its queue
        self._events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311, transport=transport)
        if username is not None:
            self.client.username_pw_set(username, password)
        if ca_file is not None:
            self.client.tls_set(ca_certs=ca_file, certfile=certfile, keyfile=keyfile, cert_reqs=ssl.CERT_REQUIRED)
        self.client.on_connect = lambda client, userdata, flags, reason, properties: self._events.put(
            ("connect", reason))
        self.client.on_subscribe = lambda client, userdata, mid, reasons, properties: self._events.put(
            ("subscribe", mid))
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port, keepalive=60)
        self.client.loop_start()
        kind, reason = self._event()
        assert kind == "connect" and not reason.is_failure, f"the watcher could not connect: {reason}"
        for topic in topics:
            self.subscribe(topic)

    def _event(self) -> tuple[str, Any]:
        try:
            return self._events.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError("the broker did not answer the watcher") from None

    def subscribe(self, topic: str) -> None:
        """Subscribe and return once the broker has acknowledged it (retained messages follow)."""
        if "#" in topic or "+" in topic:
            self.wildcards.append(topic)
        _, mid = self.client.subscribe(topic, qos=1)
        kind, acked = self._event()
        assert (kind, acked) == ("subscribe", mid)

    def _on_message(self, client, userdata, message) -> None:
        kept = Message(message.topic, bytes(message.payload), bool(message.retain), message.qos)
        for pattern in self.wildcards:
            if mqtt.topic_matches_sub(pattern, message.topic):
                self._queue(pattern).put(kept)
                return
        self._queue(message.topic).put(kept)

    def _queue(self, topic: str) -> queue.Queue[Message]:
        with self._lock:
            return self._queues.setdefault(topic, queue.Queue())

    def next(self, topic: str, timeout: float = TIMEOUT) -> Message:
        """The next message on ``topic`` (each topic keeps its own order), or an AssertionError after ``timeout``."""
        try:
            return self._queue(topic).get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing arrived on {topic} within {timeout:g} s") from None

    def next_any(self, pattern: str, timeout: float = TIMEOUT) -> Message:
        """The next message on any topic of a wildcard subscription (they share one queue, in order)."""
        return self.next(pattern, timeout)

    def pending(self, topic: str) -> int:
        """How many messages on ``topic`` arrived and were not taken yet."""
        return self._queue(topic).qsize()

    def until(self, topic: str, predicate, timeout: float = TIMEOUT) -> Message:
        """The first message on ``topic`` whose JSON (or text, if not JSON) satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(topic, max(0.0, deadline - time.monotonic()))
            try:
                value = message.json
            except orjson.JSONDecodeError:
                value = message.payload.decode()
            if predicate(value):
                return message

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        """Publish at QoS 1 and return once the broker has acknowledged it."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(TIMEOUT)
        assert info.is_published(), f"the broker did not acknowledge the publish on {topic}"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def retained(broker, topic: str, **login: Any) -> Message:
    """What the broker keeps on ``topic``: a new subscriber's first message, flagged retained."""
    watcher = Watcher(broker, [topic], **login)
    try:
        message = watcher.next(topic)
    finally:
        watcher.close()
    assert message.retain, f"{topic}: the first message to a new subscriber was not the retained one"
    return message


def retained_once_there(broker, topic: str, expected: Any, **login: Any) -> Message:
    """What the broker keeps on ``topic`` once ``expected`` (JSON) has reached it: an answer goes out before the
    state it led to, so a retained read right after the answer may still find the one before."""
    watcher = Watcher(broker, [topic], **login)
    try:
        watcher.until(topic, lambda value: value == expected)
    finally:
        watcher.close()
    return retained(broker, topic, **login)
