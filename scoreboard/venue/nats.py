"""The venue on a NATS cluster (docs/venue.md, "The venue on three machines"): one node's ``nats-server`` config,
as text, in one place; the table's bridge to every node is scoreboard/venue/bridge.py's, given ``others``.
``deploy/install.sh --venue-server --engine nats`` runs this file with the system's ``python3``; the tests and
``devetka venue-demo`` render the same text, so what is tested is what is installed. Standard library only, and
nothing from the rest of ``scoreboard``.

Debian 12's ``nats-server`` 2.9.10 speaks MQTT 3.1.1 (retained messages, sessions and QoS 1 deliveries kept in
JetStream streams replicated over the cluster) and MQTT over WebSocket on the path ``/mqtt``. Permissions are on
NATS subjects: the MQTT topic ``devetka/t1/state`` is the subject ``devetka.t1.state``. Found by testing 2.9.10:

- a table (its bridge) publishes QoS 0 and 1, retained, with a will and a lasting session, with publish rights on
  ``devetka.<id>.>`` alone and no subscribe rights: the server keeps retained messages and sessions in JetStream
  with its own internal client, not the user's rights;
- a table's bridge subscribes to its calls (``devetka/<id>/cmd``, QoS 1, issue 31): it has subscribe rights on
  ``devetka.<id>.cmd`` and, like a reader, on ``$MQTT.sub.>``, where its JetStream consumer delivers; the director
  (``DIRECTOR``) alone publishes on ``devetka.*.cmd`` (and its own ``devetka.director.>``);
- a reader needs subscribe rights on ``$MQTT.sub.>`` for a QoS 1 subscription (its JetStream consumer delivers
  there; without it the SUBACK says 0x80 and the log "Subscription Violation ... $MQTT.sub.<id>"); QoS 0 needs only
  the topic's subject;
- a publish the rights deny is acknowledged (PUBACK) and dropped, as on Mosquitto; anonymous MQTT clients, over TCP
  and WebSocket alike, are the ``mqtt { no_auth_user }``, here the read-only ``reader``;
- no user may publish on ``$JS.API.>``, so no one can delete or purge the MQTT streams;
- every QoS 1 publish is stored in JetStream (the ``$MQTT_msgs`` stream), whoever subscribes: while JetStream
  elects a leader it times out after 4 s and NATS drops the publisher (a table's bridge), which tries again.

>>> print(render_node(2, parse_peers("bar-a,bar-b,bar-c"), {"t1": "pw"}, "secret").splitlines()[3])
server_name: devetka-2
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence

#: Where install.sh puts a node's config: the one Debian's nats-server.service reads.
NODE_CONFIG_FILE = "/etc/nats-server.conf"
#: JetStream's store (the retained states, the sessions, the QoS 1 messages in flight); owned by user ``nats``.
STORE_DIR = "/var/lib/nats/devetka"
#: The shared secret the nodes' routes log in with: the same file on every node (docs/venue.md).
ROUTE_SECRET_FILE = "/etc/devetka/venue-cluster-secret"
CLUSTER_NAME = "devetka"
MQTT_PORT = 1883  # tables and readers (MQTT over TCP)
WEBSOCKET_PORT = 9001  # browsers (MQTT over WebSocket, path /mqtt)
CLUSTER_PORT = 6222  # the nodes' routes to each other
CLIENT_PORT = 4222  # the NATS protocol itself: this machine only, nothing of Devetka speaks it
MONITOR_PORT = 8222  # /healthz, /varz, /jsz: this machine only
#: The read-only login anonymous MQTT clients become (browsers, Home Assistant, mosquitto_sub).
READER = "reader"
#: The venue director's login (bridge.py DIRECTOR_LOGIN): its events, and the calls to every table.
DIRECTOR = "director"
#: What an MQTT reader needs on 2.9.10: the tables' subjects (``devetka`` too: NATS grants ``devetka/#`` only with
#: it), the deliveries of its QoS 1 subscriptions, and the Mosquitto venue's own link (``devetka-venue/link``,
#: bridge.py VENUE_LINK_TOPIC; the board asks for it on either engine).
READER_SUBSCRIBE = ("devetka", "devetka.>", "$MQTT.sub.>", "devetka-venue.link")

_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a table id: no '.', '*', '>' or space, so one NATS subject token
_LOGIN = re.compile(r"[A-Za-z0-9_.-]+")
_HOST = re.compile(r"[A-Za-z0-9.-]+")
_SECRET = re.compile(r"[A-Za-z0-9_.~+/=-]+")  # no quote, backslash, '$' or '@': safe in a NATS string and a URL
_WORDS = {_NAME: "letters, digits, '-' and '_'", _LOGIN: "letters, digits, '.', '-' and '_'",
          _HOST: "a host name or an IPv4 address", _SECRET: "letters, digits and _.~+/=-"}


def check(pattern: re.Pattern, value: str, what: str) -> str:
    """``value`` if it is one whole match of ``pattern``, else ValueError naming ``what``."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(f"{what} must be {_WORDS[pattern]}, got {value!r}")
    return value


def _port(value: int, what: str) -> int:
    if not (isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536):
        raise ValueError(f"{what} must be 1-65535, got {value!r}")
    return value


def parse_peers(text: str, default_port: int = CLUSTER_PORT) -> list[tuple[str, int]]:
    """``HOST:PORT,HOST[:PORT],...`` as (host, port) pairs, checked; the port defaults to ``default_port``.

    >>> parse_peers("bar-a:6222,bar-b")
    [('bar-a', 6222), ('bar-b', 6222)]
    """
    peers = []
    for item in text.split(","):
        host, _, port = item.strip().partition(":")
        check(_HOST, host, "a peer's host")
        if port and not port.isdigit():
            raise ValueError(f"a peer's port must be 1-65535, got {port!r}")
        peers.append((host, _port(int(port) if port else default_port, "a peer's port")))
    if not peers:
        raise ValueError("no peers given")
    return peers


def _quote(value: str) -> str:
    return '"' + value + '"'  # the values are checked: no quote or backslash inside


def render_node(node: int, peers: Sequence[tuple[str, int]], tables: Mapping[str, str], route_secret: str, *,
                bind: str = "0.0.0.0", mqtt_port: int = MQTT_PORT, websocket_port: int = WEBSOCKET_PORT,
                cluster_port: int = CLUSTER_PORT, client_port: int = CLIENT_PORT, monitor_port: int = MONITOR_PORT,
                store_dir: str = STORE_DIR, director_password: str | None = None) -> str:
    """Node ``node``'s nats-server config: MQTT for the tables and readers, MQTT over WebSocket for browsers,
    JetStream, and routes to every node of ``peers`` (the cluster ports; this node's own may be in it, NATS skips
    a route to itself, so every node can be given the same list). ``tables``: table id -> its password;
    ``director_password``: the venue director's login, the one that may call a table (write its ``cmd``)."""
    if not (isinstance(node, int) and not isinstance(node, bool) and node >= 1):
        raise ValueError(f"the node number must be 1 or more, got {node!r}")
    check(_HOST, bind, "the address to listen on")
    check(_SECRET, route_secret, "the cluster's route secret")
    for value, what in ((mqtt_port, "the MQTT port"), (websocket_port, "the WebSocket port"),
                        (cluster_port, "the cluster port"), (client_port, "the NATS client port"),
                        (monitor_port, "the monitoring port")):
        _port(value, what)
    if '"' in store_dir or "\\" in store_dir or not store_dir.startswith("/"):
        raise ValueError(f"the JetStream store must be an absolute path without quotes, got {store_dir!r}")
    routes = []
    for host, port in peers:
        check(_HOST, host, "a peer's host")
        routes.append(f"nats-route://devetka-route:{route_secret}@{host}:{_port(port, 'a peer port')}")
    if not routes:
        raise ValueError("a cluster node needs its peers")
    users = []
    for table_id, password in tables.items():
        check(_NAME, table_id, "a table id")
        check(_SECRET, password, f"table {table_id}'s password")
        if table_id in (READER, DIRECTOR):
            raise ValueError(f"a table may not be called {table_id!r}: that is another login")
        # Its own cmd (the director's calls, bridged in at QoS 1, delivered on $MQTT.sub.<its consumer>) and the
        # director's heartbeat (QoS 0).
        users.append(f"    {{user: {_quote(table_id)}, password: {_quote(password)}, permissions: "
                     f"{{publish: {{allow: [\"devetka.{table_id}.>\"]}}, "
                     f"subscribe: {{allow: [\"devetka.{table_id}.cmd\", \"devetka.director.heartbeat\", "
                     f"\"$MQTT.sub.>\"]}}}}}}")
    if director_password is not None:
        check(_SECRET, director_password, "the director's password")
        users.append(f"    {{user: {DIRECTOR}, password: {_quote(director_password)}, permissions: "
                     f"{{publish: {{allow: [\"devetka.director.>\", \"devetka.*.cmd\"]}}, "
                     f"subscribe: {{allow: [\"devetka.>\", \"$MQTT.sub.>\"]}}}}}}")
    reader_subscribe = ", ".join(_quote(subject) for subject in READER_SUBSCRIBE)
    users.append(f"    {{user: {READER}, permissions: {{publish: {{deny: [\">\"]}}, "
                 f"subscribe: {{allow: [{reader_subscribe}]}}}}}}")
    lines = [
        f"# Venue node {node} of a NATS cluster (docs/venue.md). Made by deploy/install.sh --venue-server --engine",
        "# nats from scoreboard/venue/nats.py. It holds the tables' passwords and the route secret: 0640 root:nats.",
        "",
        f"server_name: devetka-{node}",
        "# The NATS protocol and the monitoring pages (/healthz): this machine only.",
        f"listen: 127.0.0.1:{client_port}",
        f"http: 127.0.0.1:{monitor_port}",
        "",
        "# Retained states, the bridges' sessions and QoS 1 messages in flight, replicated over the cluster.",
        f"jetstream {{ store_dir: {_quote(store_dir)} }}",
        "",
        "# The other nodes. Each route logs in with the cluster's secret, so no stranger joins the cluster.",
        "cluster {",
        f"  name: {CLUSTER_NAME}",
        f"  listen: {bind}:{cluster_port}",
        f"  authorization {{ user: devetka-route, password: {_quote(route_secret)} }}",
        "  routes: [",
        *(f"    {_quote(route)}" for route in routes),
        "  ]",
        "}",
        "",
        "# MQTT 3.1.1 (QoS 0 and 1; QoS 2 and MQTT 5 are refused) for the tables' bridges and for readers. A client",
        f"# with no login is {READER}: it reads devetka/# and writes nothing.",
        f"mqtt {{ listen: {_quote(f'{bind}:{mqtt_port}')}, no_auth_user: {READER} }}",
        "",
        "# MQTT over WebSocket for the board in browsers: ws://HOST:PORT/mqtt (no TLS: a bar's own network).",
        f"websocket {{ listen: {_quote(f'{bind}:{websocket_port}')}, no_tls: true }}",
        "",
        "# Each table writes only under devetka/<its id>/ and reads nothing; readers read and never write. A publish",
        "# the rights deny is acknowledged and dropped (MQTT 3.1.1 cannot refuse one).",
        "authorization {",
        "  users: [",
        *users,
        "  ]",
        "}",
    ]
    return "\n".join(lines) + "\n"


#: The readers' broker on the Mosquitto venue's box (``render_readers``): MQTT for Home Assistant, Node-RED and
#: ``mosquitto_sub``, MQTT over WebSocket for the board. Its only writer is the venue Mosquitto's bridge, login LINK.
READERS_MQTT_PORT = 1884
READERS_WEBSOCKET_PORT = 9002
READERS_STORE_DIR = "/var/lib/nats/devetka-readers"
LINK = "venue"


def render_readers(link_password: str, *, bind: str = "0.0.0.0", mqtt_port: int = READERS_MQTT_PORT,
                   websocket_port: int = READERS_WEBSOCKET_PORT, client_port: int = CLIENT_PORT,
                   monitor_port: int = MONITOR_PORT, store_dir: str = READERS_STORE_DIR) -> str:
    """The readers' nats-server on the Mosquitto venue's box: one node, no cluster. The venue's Mosquitto bridges
    every table's topics to it one way (login ``LINK``, publish only); browsers and MQTT readers read it, anonymous
    and read only. Why not Mosquitto's own WebSocket listener (docs/venue.md, "Why the readers read NATS"): 2.0.x
    sends a message over 4 KB there in pieces, and each piece after the first waits for its main loop's next wake
    (up to 100 ms); NATS's WebSocket is evented. And the tables' broker then has no anonymous listener at all, so no
    reader can borrow a table's client id."""
    check(_HOST, bind, "the address to listen on")
    check(_SECRET, link_password, "the venue link's password")
    for value, what in ((mqtt_port, "the MQTT port"), (websocket_port, "the WebSocket port"),
                        (client_port, "the NATS client port"), (monitor_port, "the monitoring port")):
        _port(value, what)
    if '"' in store_dir or "\\" in store_dir or not store_dir.startswith("/"):
        raise ValueError(f"the JetStream store must be an absolute path without quotes, got {store_dir!r}")
    reader_subscribe = ", ".join(_quote(subject) for subject in READER_SUBSCRIBE)
    lines = [
        "# The venue's readers' broker (docs/venue.md): the board's WebSocket and MQTT for readers. Made by",
        "# deploy/install.sh --venue-server from scoreboard/venue/nats.py. It holds the venue link's password.",
        "",
        "server_name: devetka-readers",
        "# The NATS protocol and the monitoring pages (/healthz): this machine only.",
        f"listen: 127.0.0.1:{client_port}",
        f"http: 127.0.0.1:{monitor_port}",
        "",
        "# Retained states and QoS 1 sessions (MQTT needs JetStream); a cache the venue's Mosquitto fills again.",
        f"jetstream {{ store_dir: {_quote(store_dir)} }}",
        "",
        f"# MQTT 3.1.1 for readers (anonymous: {READER}) and for the venue's own bridge (login {LINK}).",
        f"mqtt {{ listen: {_quote(f'{bind}:{mqtt_port}')}, no_auth_user: {READER} }}",
        "",
        "# MQTT over WebSocket for the board in browsers: ws://HOST:PORT/mqtt (no TLS: a bar's own network).",
        f"websocket {{ listen: {_quote(f'{bind}:{websocket_port}')}, no_tls: true }}",
        "",
        "# The venue's bridge writes every table's topics and reads nothing; readers read and never write.",
        "authorization {",
        "  users: [",
        f"    {{user: {LINK}, password: {_quote(link_password)}, permissions: "
        f"{{publish: {{allow: [\"devetka.>\", \"devetka-venue.link\"]}}, subscribe: {{deny: [\">\"]}}}}}}",
        f"    {{user: {READER}, permissions: {{publish: {{deny: [\">\"]}}, "
        f"subscribe: {{allow: [{reader_subscribe}]}}}}}}",
        "  ]",
        "}",
    ]
    return "\n".join(lines) + "\n"


def read_tables(path: str) -> dict[str, str]:
    """The venue's table logins, ``ID PASSWORD`` a line (``/etc/devetka/venue-tables``, made by install.sh)."""
    tables = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            words = line.split()
            if words and not words[0].startswith("#"):
                if len(words) != 2:
                    raise ValueError(f"{path}: a line must be 'ID PASSWORD', got {line.strip()!r}")
                tables[words[0]] = words[1]
    return tables


def _read_secret(path: str) -> str:
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    return text.splitlines()[0].strip() if text.strip() else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nats.py", description="Print the venue's NATS config text.")
    commands = parser.add_subparsers(dest="what", required=True)
    node = commands.add_parser("node", help="one node's nats-server config")
    node.add_argument("--node", type=int, required=True)
    node.add_argument("--peers", required=True, help="HOST[:PORT],... every node's cluster address")
    node.add_argument("--tables-file", required=True, help="'ID PASSWORD' a line")
    node.add_argument("--route-secret-file", required=True)
    node.add_argument("--director-password-file", help="the director's login, on the node it runs on")
    readers = commands.add_parser("readers", help="the readers' nats-server on the Mosquitto venue's box")
    readers.add_argument("--link-password-file", required=True, help="the venue link's password")
    args = parser.parse_args(argv)
    try:
        if args.what == "readers":
            text = render_readers(_read_secret(args.link_password_file))
        else:
            director = None if args.director_password_file is None else _read_secret(args.director_password_file)
            text = render_node(args.node, parse_peers(args.peers), read_tables(args.tables_file),
                               _read_secret(args.route_secret_file), director_password=director)
    except (OSError, ValueError) as error:
        print(f"install: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
