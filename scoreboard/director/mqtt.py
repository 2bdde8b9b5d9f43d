"""The director on the venue broker (paho, v2 API): each event's state published retained, the tables watched.

Out: ``devetka/director/event/<id>`` (the event as ``devetka event status --json`` prints it, retained, QoS 1,
after every committed change and for every event at connect), ``devetka/director/availability``
(``online``, ``offline`` as the last will) and ``devetka/director/heartbeat`` (``{"every_s": N}``, QoS 0, not
retained, every N seconds while connected). In: every table's retained ``devetka/<table>/availability`` and
``devetka/<table>/state``, so the director knows which tables are online with no match in play. paho's
thread only hands messages to the event loop; the director is touched there alone.

The operator's page (board/operator.js) asks on ``devetka/director/request/<page>``: one request as on the
director's socket, with an ``id`` of the asker's; the answer, the socket's answer with that ``id``, goes to
``devetka/director/answer/<page>`` (not retained). Who may ask is the venue broker's ACL: only the operator's login
may write ``devetka/director/request/#`` (docs/venue.md), and every request goes through ``Director.handle``'s
checks like the command line's.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import orjson
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.director.calls import Caller
from scoreboard.director.service import Director

QOS = 1
PREFIX = "devetka"
DIRECTOR = "director"  # the topic level the director publishes under; no table may take this id

log = logging.getLogger("devetka.director")


def event_topic(event_id: int) -> str:
    return f"{PREFIX}/{DIRECTOR}/event/{event_id}"


AVAILABILITY = f"{PREFIX}/{DIRECTOR}/availability"
HEARTBEAT = f"{PREFIX}/{DIRECTOR}/heartbeat"
#: How often the director says it is alive (``HEARTBEAT``): its last will alone is not enough where the broker
#: node that held it can die with the director's connection (a NATS venue): a reader that hears no heartbeat for
#: three of these takes the director as offline.
HEARTBEAT_S = 10.0
REQUESTS = f"{PREFIX}/{DIRECTOR}/request/+"


def answer_topic(page: str) -> str:
    return f"{PREFIX}/{DIRECTOR}/answer/{page}"


class DirectorLink:
    def __init__(self, director: Director, loop: asyncio.AbstractEventLoop, host: str, port: int,
                 username: str | None = None, password: str | None = None, caller: Caller | None = None,
                 heartbeat_s: float = HEARTBEAT_S) -> None:
        self.director = director
        self.loop = loop
        self.caller = caller
        self.heartbeat_s = heartbeat_s
        self._beating: asyncio.TimerHandle | None = None
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="devetka-director", protocol=mqtt.MQTTv311)
        if username is not None:
            client.username_pw_set(username, password)
        client.will_set(AVAILABILITY, "offline", qos=QOS, retain=True)
        client.on_connect = self._connected
        client.on_message = self._message
        self.client = client
        self.host, self.port = host, port
        director.watch(self.publish)

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=30)
        self.client.loop_start()
        self._beat()

    def _beat(self) -> None:
        """Say the director is alive, then again in ``heartbeat_s`` (on the event loop; dropped while offline)."""
        if self.client.is_connected():
            self.client.publish(HEARTBEAT, orjson.dumps({"every_s": self.heartbeat_s}), qos=0, retain=False)
        self._beating = self.loop.call_later(self.heartbeat_s, self._beat)

    def stop(self) -> None:
        if self._beating is not None:
            self._beating.cancel()
        self.client.publish(AVAILABILITY, "offline", qos=QOS, retain=True).wait_for_publish(5)
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, event_id: int, state: dict[str, Any]) -> None:
        self.client.publish(event_topic(event_id), orjson.dumps(state), qos=QOS, retain=True)

    def send(self, table: str, request: dict[str, Any]) -> None:
        """A call (or its withdrawal) to a table's ``cmd``: QoS 1, never retained, queued by the broker for a table
        that is away."""
        self.client.publish(f"{PREFIX}/{table}/cmd", orjson.dumps(request), qos=QOS, retain=False)

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("the venue broker refused the director: %s", reason)
            return
        client.publish(AVAILABILITY, "online", qos=QOS, retain=True)
        client.subscribe([(f"{PREFIX}/+/availability", QOS), (f"{PREFIX}/+/state", QOS), (REQUESTS, QOS),
                          (f"{PREFIX}/+/cmd/result", QOS), (f"{PREFIX}/+/bridge", QOS)])
        self.loop.call_soon_threadsafe(self._publish_all)
        if self.caller is not None:
            self.loop.call_soon_threadsafe(self.caller.resend)

    def _publish_all(self) -> None:
        for event_id, _, _ in self.director.store.events():
            try:
                self.publish(event_id, self.director.store.event(event_id).to_json())
            except Exception as error:  # an event that no longer folds is said, and the others still go out
                log.warning("event %s not published: %s", event_id, error)

    def _answer_page(self, page: str, payload: bytes) -> None:
        """The operator's page asked the director (issue 32): the answer goes to that page's topic."""
        try:
            request = orjson.loads(payload)
        except orjson.JSONDecodeError:
            request = None
        asked = request.pop("id", None) if isinstance(request, dict) else None
        answer = self.director.handle(request)
        self.client.publish(answer_topic(page), orjson.dumps({"id": asked, **answer}), qos=QOS)

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        parts = message.topic.split("/")
        if len(parts) == 4 and parts[1] == DIRECTOR and parts[2] == "request" and parts[3]:
            page, payload = parts[3], bytes(message.payload)
            self.loop.call_soon_threadsafe(lambda: self._answer_page(page, payload))
            return
        if len(parts) == 4 and parts[2:] == ["cmd", "result"] and parts[1] != DIRECTOR:
            self._call_answered(parts[1], bytes(message.payload))
            return
        if len(parts) != 3 or parts[1] == DIRECTOR:
            return
        table, kind = parts[1], parts[2]
        if kind == "availability":
            online = message.payload == b"online"
            self.loop.call_soon_threadsafe(lambda: self.director.table_seen(table, online=online))
            return
        if kind == "bridge":
            bridged = message.payload != b"0"
            self.loop.call_soon_threadsafe(lambda: self.director.table_seen(table, bridged=bridged))
            if bridged and self.caller is not None:
                silent = self.caller.silent
                self.loop.call_soon_threadsafe(lambda: silent.discard(table))  # back: it may be called again
            return
        if kind != "state":
            return
        try:
            state = orjson.loads(message.payload) if message.payload else {}
        except orjson.JSONDecodeError:
            return
        if not isinstance(state, dict):
            return
        in_play = bool(state.get("players")) and state.get("match_winner") is None
        self.loop.call_soon_threadsafe(lambda: self.director.table_seen(table, in_play=in_play))
        if self.caller is not None:
            caller = self.caller
            self.loop.call_soon_threadsafe(lambda: caller.table_state(table, state))

    def _call_answered(self, table: str, payload: bytes) -> None:
        """A table answered a call (issue 31): offered, started, declined or refused with a code."""
        if self.caller is None:
            return
        try:
            answer = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return
        if isinstance(answer, dict):
            caller = self.caller
            self.loop.call_soon_threadsafe(lambda: caller.answered(table, answer))
