"""The daemon's MQTT link (paho-mqtt, v2 API): the match out to dashboards and Home Assistant, commands in.

Topics under ``<prefix>/<table>/`` (``docs/mqtt.md``): ``state`` (retained, after
every change), ``event`` (every stored input and every verdict, QoS 1),
``availability`` (retained ``online``/``offline``; ``offline`` is the last will),
``cmd`` in and ``cmd/result`` out; Home Assistant's discovery configs under the
discovery prefix. ``bridge`` in: the table's Mosquitto bridge to the venue says
``1``/``0`` there (its notifications), and ``<prefix>/director/heartbeat`` in: the
venue director's heartbeat, bridged in; both handed to the referee as the venue
link's state (a cut network closes the bridge without a ``0``: only the missed
heartbeats tell).

Only the event loop touches the referee. paho runs its network loop in a thread
of its own, and what arrives there (a command, a connection made, Home Assistant
back online) is handed to the event loop with ``call_soon_threadsafe``. Publishing
from the event loop only queues the message for paho's thread, so a slow or
absent broker never holds up a ruling. The broker is a cache, never the source of
truth: after every (re)connect the availability, the discovery configs and the
retained state are published again from the daemon's own state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVarTuple

import orjson
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from scoreboard.config.table import MqttConfig
from scoreboard.contract import present
from scoreboard.contract.present import served
from scoreboard.core.inputs import Input
from scoreboard.core.messages import ENGLISH, Catalog, msg
from scoreboard.core.rules import Step
from scoreboard.referee.service import REQUEST_LIMIT, Service

log = logging.getLogger("devetka.mqtt")
Args = TypeVarTuple("Args")

QOS = 1
INFLIGHT = 100  # unacknowledged publishes on the wire; a loopback broker acknowledges in well under a millisecond
QUEUE_LIMIT = 10_000  # events kept while the broker is away; past it they are dropped (the state is not)
RECONNECT_MAX_S = 10
STOP_TIMEOUT_S = 2.0  # how long a clean stop waits for the broker to take the last "offline"
RETAINED_NOT_RUN = msg("a retained command is not run (it would run again at every reconnect): publish it without "
                       "retain")
#: A director's heartbeat slower than this is not believed (a day: no venue beats that slowly).
HEARTBEAT_MAX_S = 86_400
#: The state goes out this long after the heartbeats were missed, so the clock has surely passed the moment.
QUIET_SLACK_S = 0.1
#: The table's bridge to the venue, as its notifications say it (Mosquitto's ``notifications true``): up, down.
VENUE_LINK = {b"1": True, b"0": False}
#: The verdicts' kinds on Home Assistant's event entity.
VERDICT_TYPES = ("legal", "foul", "rack_won")


#: Commands a broker's clients may not send: the settings are the touchscreen's, behind its PIN.
WAY_IN = "mqtt"  # what the referee may refuse from this way in: scoreboard.referee.service.REFUSED


class MqttError(Exception):
    """The link cannot be set up (a TLS file missing or unreadable); the message names the key.

    >>> from scoreboard.config.table import MqttTlsConfig
    >>> MqttLink(MqttConfig(tls=MqttTlsConfig(ca_file="/nowhere.crt")), "bar1", None, None)
    ... # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    MqttError: mqtt.tls: cannot use the CA or client certificate (/nowhere.crt, None, None): ...
    """


class Topics(NamedTuple):
    """The table's topics.

    >>> topics = Topics.of("devetka", "bar1", "homeassistant")
    >>> topics.state, topics.result, topics.ha_status, topics.bridge
    ('devetka/bar1/state', 'devetka/bar1/cmd/result', 'homeassistant/status', 'devetka/bar1/bridge')
    """

    state: str
    event: str
    availability: str
    cmd: str
    result: str
    ha_status: str
    bridge: str
    heartbeat: str

    @classmethod
    def of(cls, prefix: str, table: str, discovery_prefix: str) -> Topics:
        base = f"{prefix}/{table}"
        return cls(f"{base}/state", f"{base}/event", f"{base}/availability", f"{base}/cmd", f"{base}/cmd/result",
                   f"{discovery_prefix}/status", f"{base}/bridge", f"{prefix}/director/heartbeat")


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def events(store: str | None, match_id: int | None, seq: int, item: Input, step: Step | None,
           words: Catalog = ENGLISH) -> list[dict[str, Any]]:
    """The ``event`` messages of one stored input, as the contract's presenter builds them: the input, then the
    verdict it gave, if any (the state's ``last_verdict``'s shape).

    ``(store, match_id, seq, event)`` names each message for good: a subscriber drops one it has seen (QoS 1
    may deliver twice) and sees a gap as a jump in ``seq``.

    >>> from scoreboard.core.inputs import Strike
    >>> events("3f9a1c0e5b2d", 1, 3, Strike(t=1.5), None)
    [{'event': 'input', 'store': '3f9a1c0e5b2d', 'match_id': 1, 'seq': 3, 'input': {'type': 'strike', 't': 1.5}}]
    """
    return [served(event) for event in present.events(store, match_id, seq, item, step, words)]


def discovery(config: MqttConfig, table: str) -> dict[str, dict[str, Any]]:
    """Home Assistant's discovery configs, by topic: one device per table, its sensors and its verdict event.

    >>> configs = discovery(MqttConfig(), "bar1")
    >>> sorted(configs)[0], configs["homeassistant/sensor/devetka_bar1/rack/config"]["state_topic"]
    ('homeassistant/event/devetka_bar1/verdict/config', 'devetka/bar1/state')
    """
    topics = Topics.of(config.prefix, table, config.discovery_prefix)
    node = f"devetka_{table}"
    common = {
        "availability_topic": topics.availability, "payload_available": "online", "payload_not_available": "offline",
        "device": {"identifiers": [node], "name": f"Devetka {table}", "manufacturer": "Devetka",
                   "model": "nine-ball referee"},
        "origin": {"name": "Devetka"},
    }
    players = "{{ {'players': value_json.players} | tojson }}"
    sensors = {
        "score_1": ("Score player 1", "{{ value_json.score[0] }}", {"json_attributes_template": players}),
        "score_2": ("Score player 2", "{{ value_json.score[1] }}", {"json_attributes_template": players}),
        "shooter": ("Shooter", "{{ value_json.players[value_json.shooter] if value_json.players "
                               "and value_json.shooter is not none else 'None' }}", {}),
        "rack": ("Rack", "{{ value_json.rack }}", {}),
        "balls_left": ("Balls left", "{{ value_json.on_table | length }}", {}),
    }
    configs = {}
    for name, (title, template, extra) in sensors.items():
        attributes = {"json_attributes_topic": topics.state} if extra else {}
        configs[f"{config.discovery_prefix}/sensor/{node}/{name}/config"] = dict(
            common, name=title, unique_id=f"{node}_{name}", state_topic=topics.state, value_template=template,
            **attributes, **extra)
    verdict = ("{% if value_json.event == 'verdict' %}{{ {"
               "'event_type': 'rack_won' if value_json.verdict.rack_winner is not none"
               " else ('foul' if value_json.verdict.foul else 'legal'), "
               "'words': value_json.verdict.words, 'rack': value_json.verdict.rack, "
               "'shot': value_json.verdict.shot} | tojson }}{% endif %}")
    configs[f"{config.discovery_prefix}/event/{node}/verdict/config"] = dict(
        common, name="Verdict", unique_id=f"{node}_verdict", state_topic=topics.event,
        event_types=list(VERDICT_TYPES), value_template=verdict)
    return configs


def own_client_id(table: str, password: str | None) -> str:
    """The daemon's client id: ``devetka-<table>``, and with a login a digest of its password too. A broker pushes a
    client off when another connects with its id, whatever its login; an id that takes the password to make is one
    no other login can borrow, so the table's broker need not make every login its id (docs/deploy.md).

    >>> own_client_id("bar1", None), own_client_id("bar1", "pw") == own_client_id("bar1", "pw2")
    ('devetka-bar1', False)
    >>> own_client_id("bar1", "pw")
    'devetka-bar1-9c6f24da55ff7aadb91f'
    """
    if not password:
        return f"devetka-{table}"
    return f"devetka-{table}-{hashlib.sha256(f'devetka-daemon:{password}'.encode()).hexdigest()[:20]}"


class MqttLink:
    """The daemon's connection to the broker; ``start`` on the event loop after the ``Server``, ``close`` at stop.

    >>> import asyncio
    >>> loop = asyncio.new_event_loop()
    >>> link = MqttLink(MqttConfig(), "bar1", service=None, loop=loop)
    >>> link.topics.cmd, link.client_id
    ('devetka/bar1/cmd', 'devetka-bar1')
    >>> loop.close()
    """

    def __init__(self, config: MqttConfig, table: str, service: Service, loop: asyncio.AbstractEventLoop) -> None:
        self.config = config
        self.table = table
        self.service = service
        self.loop = loop
        self.topics = Topics.of(config.prefix, table, config.discovery_prefix)
        self.client_id = config.client_id or own_client_id(table, config.password)
        self._online = False  # the broker has our availability and state: changes may go out retained
        self._closing = False
        self._said = ""  # the link's state last said on stderr (in paho's thread): each change is said once
        self._up = False  # connected (in paho's thread)
        self._dropped = 0
        self._outbox: deque[tuple[str, bytes]] = deque()
        """Events and answers made while the link is not online, in order: handed to paho once it is."""
        self._subscribed: int | None = None  # the mid of the subscription whose SUBACK says we are online
        self._quiet: asyncio.TimerHandle | None = None  # when the director's heartbeat will have been missed
        # MQTT 5 for retain-as-published: under 3.1.1 a retained command forwarded live looks like any other. The
        # table's own Mosquitto (2.0) speaks 5; the bridge to a venue is the broker's, and stays 3.1.1.
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=mqtt.MQTTv5)
        client.enable_logger(logging.getLogger("devetka.mqtt.paho"))
        client.suppress_exceptions = True  # a bug in a callback costs that message, not paho's thread
        client.max_inflight_messages_set(INFLIGHT)
        client.max_queued_messages_set(QUEUE_LIMIT)
        client.reconnect_delay_set(1, RECONNECT_MAX_S)
        client.will_set(self.topics.availability, "offline", qos=QOS, retain=True)
        if config.username is not None:
            client.username_pw_set(config.username, config.password)
        if config.tls.enabled:
            tls = config.tls
            try:
                client.tls_set(ca_certs=tls.ca_file, certfile=tls.certfile, keyfile=tls.keyfile)
            except (OSError, ssl.SSLError) as error:
                raise MqttError(f"mqtt.tls: cannot use the CA or client certificate ({tls.ca_file}, "
                                f"{tls.certfile}, {tls.keyfile}): {error}") from None
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.on_socket_open = self._on_socket_open
        self.client = client

    @property
    def address(self) -> str:
        return f"{self.config.host}:{self.config.port}"

    def start(self) -> None:
        """Publish the referee's states and stored inputs; connect in paho's thread."""
        self.service.watch(self.publish_state)
        self.service.watch_stored(self.publish_stored)
        self.client.connect_async(self.config.host, self.config.port, keepalive=self.config.keepalive_s,
                                  clean_start=True)
        self.client.loop_start()

    def close(self) -> None:
        """``offline`` (retained) to a broker that is there, waited for at most ``STOP_TIMEOUT_S``; disconnect."""
        self._closing = True
        if self._quiet is not None:
            self._quiet.cancel()
        self.service.unwatch(self.publish_state)
        self.service.unwatch_stored(self.publish_stored)
        if self.client.is_connected():
            info = self.client.publish(self.topics.availability, "offline", qos=QOS, retain=True)
            try:
                info.wait_for_publish(STOP_TIMEOUT_S)
            except (ValueError, RuntimeError):
                pass  # the connection went as we stopped: the will says offline instead
        self.client.disconnect()
        self.client.loop_stop()

    # --- on the event loop ---------------------------------------------------------------------------------

    def publish_state(self, message: dict[str, Any]) -> None:
        """A broadcast state, retained, at QoS 0: one lost with the connection is replaced by the reconnect's
        fresh one, where a queued QoS 1 copy would replay old states to the broker first."""
        if self._online:
            self._publish(self.topics.state, _dumps(message), retain=True, qos=0)

    def publish_stored(self, seq: int, item: Input, step: Step | None) -> None:
        for message in events(self.service.store_id, self.service.match_id, seq, item, step, self.service.words):
            self._send(self.topics.event, _dumps(message))

    def _send(self, topic: str, payload: bytes) -> None:
        """An event or an answer: to paho while online; else kept in order until the next ``_announce``.

        paho sends a publish made while it reconnects before its CONNACK, ahead of the ones it resends after
        it (seen after a frozen broker: an event out of order): so nothing is handed to it in that time.
        """
        if self._online:
            self._publish(topic, payload)
        elif len(self._outbox) < QUEUE_LIMIT:
            self._outbox.append((topic, payload))
        else:
            self._drop()

    def _publish(self, topic: str, payload: bytes | str, retain: bool = False, qos: int = QOS) -> None:
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
            self._drop()

    def _drop(self) -> None:
        self._dropped += 1
        if self._dropped == 1:
            _say(f"the broker has been away for {QUEUE_LIMIT} messages: events are dropped until it is back")

    def _announce(self) -> None:
        """After a (re)connect and its SUBACK: online, the discovery configs, what waited in the outbox, the
        state, from our own state (the broker forgets). paho has put its own resends on the wire by then."""
        if self._closing or not self.client.is_connected():
            return
        self._dropped = 0
        self._publish(self.topics.availability, "online", retain=True)
        if self.config.discovery:
            self._discover()
        while self._outbox:
            self._publish(*self._outbox.popleft())
        self._online = True
        self.publish_state(self.service.state())

    def _offline(self) -> None:
        """The connection went (said by paho's thread): states wait for the next ``_announce``."""
        self._online = False

    def _discover(self) -> None:
        for topic, config in discovery(self.config, self.table).items():
            self._publish(topic, _dumps(config), retain=True)

    def _command(self, payload: bytes) -> None:
        """A command from ``cmd``: the referee's one request path, as MQTT's way in; the answer on ``cmd/result``."""
        if len(payload) > REQUEST_LIMIT:  # as on the local API: not parsed on the event loop
            self._answer(self.service.refusal(None, msg("a command longer than {limit} bytes is not read",
                                                        limit=REQUEST_LIMIT)))
            return
        if self.service.referee.calls.beat_every is not None and _from_director(payload):
            self._director_heard(self.service.referee.calls.beat_every)  # a call over the link: the director heard
        self.service.request(payload, self._answer, WAY_IN)

    def _retained_command(self, payload: bytes) -> None:
        """Never run: it would run again at every reconnect. The broker's copy is cleared, the sender told."""
        if not payload:
            return  # the clearing itself, or a clearing by someone else
        _say(f"a retained command on {self.topics.cmd} was not run, and is cleared: commands must not be retained")
        self._publish(self.topics.cmd, b"", retain=True)
        try:
            request = orjson.loads(payload) if len(payload) <= REQUEST_LIMIT else None
        except orjson.JSONDecodeError:
            request = None
        request_id = request.get("id") if isinstance(request, dict) else None
        self._answer(self.service.refusal(request_id, RETAINED_NOT_RUN, "not_allowed"))

    def _director_heard(self, every_s: float) -> None:
        """The venue director's heartbeat: the referee holds a called match's Start once three are missed; the state
        goes out again at that moment, so the screens see it."""
        quiet = self.service.director_heard(every_s)
        if self._quiet is not None:
            self._quiet.cancel()
        self._quiet = self.loop.call_later(quiet + QUIET_SLACK_S, self.service.changed)

    def _answer(self, message: dict[str, Any]) -> None:
        self._send(self.topics.result, _dumps(message))

    # --- in paho's thread -----------------------------------------------------------------------------------

    def _to_loop(self, callback: Callable[[*Args], object], *args: *Args) -> None:
        try:
            self.loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:
            pass  # the event loop is closed: the daemon is stopping

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: mqtt.SocketLike) -> None:
        """No Nagle: without it a small publish can wait 20-40 ms for the broker's ack of the one before."""
        if not isinstance(sock, socket.socket):
            return  # paho's websocket wrapper: not a socket of ours to set
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass  # not a TCP socket (a Unix socket broker): nothing to delay

    def _say_once(self, state: str, message: str) -> None:
        """Say the link's new state; a state said already (every failed retry while away) is not said again."""
        if state != self._said:
            self._said = state
            _say(message)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: mqtt.ConnectFlags, reason_code: ReasonCode,
                    properties: Properties | None) -> None:
        if reason_code.is_failure:
            self._say_once("refused", f"the broker {self.address} refused the connection: {reason_code}; "
                                      "trying again")
            return
        self._up = True
        self._say_once("up", f"connected to the broker {self.address}")
        subscriptions = [(self.topics.cmd, SubscribeOptions(qos=QOS, retainAsPublished=True)),
                         (self.topics.bridge, SubscribeOptions(qos=QOS)),
                         (self.topics.heartbeat, SubscribeOptions(qos=0))]
        if self.config.discovery:
            subscriptions.append((self.topics.ha_status, SubscribeOptions(qos=QOS)))
        _, self._subscribed = client.subscribe(subscriptions)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reason_codes: list[ReasonCode],
                      properties: Properties | None) -> None:
        """The broker has our subscriptions, and paho put its resends on the wire right after the CONNACK: the
        outbox and the state may follow them now, in order."""
        if mid == self._subscribed:
            self._to_loop(self._announce)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self._say_once("away", f"cannot reach the broker {self.address}; trying again every {RECONNECT_MAX_S} s "
                               "at most")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: mqtt.DisconnectFlags, reason_code: ReasonCode,
                       properties: Properties | None) -> None:
        self._to_loop(self._offline)
        if self._up and not self._closing:
            self._say_once("away", f"lost the broker {self.address} ({reason_code}); reconnecting")
        self._up = False

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == self.topics.cmd:
            if message.retain:  # live or kept by the broker: retain-as-published tells us either way
                self._to_loop(self._retained_command, bytes(message.payload))
                return
            self._to_loop(self._command, bytes(message.payload))
        elif message.topic == self.topics.bridge:
            up = VENUE_LINK.get(bytes(message.payload))
            if up is not None:
                self._to_loop(self.service.venue_link, up)
        elif message.topic == self.topics.heartbeat:
            every_s = _every_s(bytes(message.payload))
            if every_s is not None:
                self._to_loop(self._director_heard, every_s)
        elif message.topic == self.topics.ha_status and bytes(message.payload) == b"online":
            self._to_loop(self._discover)


def _from_director(payload: bytes) -> bool:
    """A director's call or withdrawal: it came over the venue link just now, so it vouches for the link as the
    director's heartbeat does (a table whose beats stopped while the venue was away is not held once calls arrive).

    >>> _from_director(b'{"cmd": "call", "call": {}}'), _from_director(b'{"cmd": "state"}'), _from_director(b"[")
    (True, False, False)
    """
    try:
        request = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return False
    return isinstance(request, dict) and request.get("cmd") in ("call", "withdraw")


def _every_s(payload: bytes) -> float | None:
    """A heartbeat's ``every_s`` (``{"every_s": 10}``), or None for a payload that is not one.

    >>> _every_s(b'{"every_s": 10}'), _every_s(b'{"every_s": 0}'), _every_s(b"beat")
    (10.0, None, None)
    """
    try:
        beat = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    every = beat.get("every_s") if isinstance(beat, dict) else None
    if isinstance(every, bool) or not isinstance(every, int | float) or not 0 < every <= HEARTBEAT_MAX_S:
        return None
    return float(every)


def _say(message: str) -> None:
    log.info("MQTT: %s", message)
