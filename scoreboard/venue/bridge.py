"""The Mosquitto config text of the venue (docs/venue.md), in one place: the table's bridge to the venue's broker,
the venue broker's listeners and its ACLs. ``deploy/install.sh`` runs this file with the system's ``python3``
(``python3 scoreboard/venue/bridge.py table ...``), the tests render the same text, so what is tested is what is
installed. Standard library only, and nothing from the rest of ``scoreboard``: install.sh runs it from the checkout,
before (or without) the venv.

>>> [line for line in render_venue_acl(["table1"]).splitlines() if "table1" in line]
['user table1', 'topic write devetka/table1/#', 'topic read devetka/table1/cmd']
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from collections.abc import Iterable, Sequence

# --- The table's side --------------------------------------------------------------------------------------------

#: Where install.sh puts the table's bridge (Debian's mosquitto.conf reads conf.d).
TABLE_BRIDGE_FILE = "/etc/mosquitto/conf.d/devetka-venue-bridge.conf"
#: The bridge pings the venue after this many quiet seconds; the venue broker calls a table that stopped answering
#: (power pulled, Wi-Fi gone) dead after 1.5 times it and says ``0`` on its ``bridge`` topic: 15 s. Mosquitto
#: allows no less than 5 s; a Wi-Fi stall shorter than 15 s is ridden out without a reconnect.
KEEPALIVE_S = 10
#: Reconnect backoff: from 1 s up to 2 s between tries ("decorrelated jitter"), so that a bridge is back within 5 s of
#: the venue's return (2.0.11 tries once the whole-second clock is past the pause: a cap of 5 s came back 5.0-5.8 s
#: after it). Mosquitto 2.0.11 ignores the one-number form of restart_timeout: its defaults (backoff from 5 s up to
#: 30 s, src/conf.c) stay set and override it (src/bridge.c, bridge__backoff_step); the two-number form sets both.
RESTART_TIMEOUT_S = (1, 2)
#: The same to a NATS cluster: while JetStream elects a leader after losing a node, each try fails after NATS's 4 s
#: timeout (every QoS 1 publish is stored in JetStream on 2.9.10), so the pause between tries is kept short.
CLUSTER_RESTART_TIMEOUT_S = (1, 2)
#: The table's topics that go to the venue (docs/mqtt.md). Named one by one rather than ``devetka/<table>/#``: the
#: bridge's own notification topic is under the table's prefix too, and Mosquitto 2.0.11 would also forward its
#: local copies (the ``0`` it publishes locally for every failed try, queued while the venue is away) after the
#: ``1`` it sends on reconnecting, leaving the venue with ``0`` for a table that is up.
BRIDGED_TOPICS = ("state", "event", "availability")
#: The venue director's calls come in on ``cmd`` (only its login may write them on the venue) and the table's answers
#: go out on ``cmd/result``; a call queued in the bridge's session while the table was away arrives late and is
#: refused as expired (docs/events.md, "Calls").
CALL_TOPICS = (("cmd", "in"), ("cmd/result", "out"))
#: The venue director's heartbeat (``{"every_s": N}``, QoS 0), bridged in to every table: a table that hears none for
#: three beats holds a called match's Start (a cut network says nothing else on the table's side; docs/events.md).
HEARTBEAT_TOPIC = "devetka/director/heartbeat"
#: The venue director's login on the tables' listener: it alone writes a table's cmd (its calls).
DIRECTOR_LOGIN = "director"
#: The operator's login on the page listener (issue 32's operator page): it writes only the director's requests.
OPERATOR_LOGIN = "operator"
#: QoS 1 messages (events) the table's broker keeps per offline client, the bridge included: the daemon's own queue
#: is 10,000 too. Mosquitto's default, 1000, is an hour or two of play.
MAX_QUEUED_MESSAGES = 10000

# --- The venue's side --------------------------------------------------------------------------------------------

VENUE_BROKER_FILE = "/etc/mosquitto/conf.d/devetka-venue-server.conf"
VENUE_PASSWORD_FILE = "/etc/mosquitto/devetka-venue.passwd"
VENUE_TABLES_ACL_FILE = "/etc/mosquitto/devetka-venue.acl"
VENUE_BOARD_ACL_FILE = "/etc/mosquitto/devetka-venue-board.acl"
#: The page listener's own logins (the operator's) and ACL: the operator's page writes the director's requests there.
VENUE_PAGE_PASSWORD_FILE = "/etc/mosquitto/devetka-venue-page.passwd"
VENUE_PAGE_ACL_FILE = "/etc/mosquitto/devetka-venue-page.acl"
VENUE_CERT_FILE = "/etc/mosquitto/certs/devetka-venue.crt"
VENUE_KEY_FILE = "/etc/mosquitto/certs/devetka-venue.key"
VENUE_TABLES_PORT = 1883
VENUE_TLS_PORT = 8883
#: The readers' broker on the same box, a nats-server (scoreboard/venue/nats.py render_readers): MQTT and WebSocket.
VENUE_READERS_PORT = 1884
VENUE_WEBSOCKETS_PORT = 9002
#: The page's listener: Mosquitto serves the board's files here (http_dir) and lets no MQTT client in.
VENUE_PAGE_PORT = 9001
#: The venue Mosquitto's bridge to the readers' broker logs in as this, with the password in this file.
VENUE_LINK_USER = "venue"
VENUE_LINK_SECRET_FILE = "/etc/devetka/venue-readers-link"
#: The venue link's notification topic on the readers' broker (the board reads it). Outside ``devetka/``: under the
#: bridged prefix, 2.0.11 would forward its local copies too, the 0s of every failed try after the 1 of the reconnect.
VENUE_LINK_TOPIC = "devetka-venue/link"
#: Where install.sh --venue-server puts the board (scoreboard/venue/board/): its WebSockets listener serves it
#: (http_dir), so the TV and the phones load the page from the broker they then read; one process, one port.
VENUE_BOARD_DIR = "/usr/share/devetka/board"

_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a table id, as install.sh and the config check it
_LOGIN = re.compile(r"[A-Za-z0-9_.-]+")
_HOST = re.compile(r"[A-Za-z0-9.-]+")  # a host name or an IPv4 address
_SECRET = re.compile(r"[!-~]+")  # printable, no spaces: Mosquitto's config reads a value to the end of its line


def check(pattern: re.Pattern, value: str, what: str) -> str:
    """``value`` if it is one whole match of ``pattern``, else ValueError naming ``what``."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(f"{what} must be {_WORDS[pattern]}, got {value!r}")
    return value


#: Topic levels under ``devetka/`` that are not a table's: the director publishes under ``devetka/director/``
#: (docs/events.md), so a table login of that name could write the night's events.
RESERVED_IDS = ("director",)


def table_name(value: str, what: str) -> str:
    """A table id: ``check``'d as a name, none of ``RESERVED_IDS``, and not the operator's login (its client id on
    the venue broker: a table of that name and the operator's page would push each other off)."""
    check(_NAME, value, what)
    if value in RESERVED_IDS:
        raise ValueError(f"{what} may not be {value!r}: devetka/{value}/ is the director's (docs/events.md)")
    if value == OPERATOR_LOGIN:
        raise ValueError(f"{what} may not be {value!r}: that is the operator's login (docs/venue.md)")
    return value


_WORDS = {_NAME: "letters, digits, '-' and '_'", _LOGIN: "letters, digits, '.', '-' and '_'",
          _HOST: "a host name or an IPv4 address", _SECRET: "printable characters without spaces"}


def link_client_id(name: str, password: str) -> str:
    """A link's client id that only its password can make: ``name`` and a digest of the password. A broker pushes a
    client off when another connects with its id, from any listener and any login; a guest can borrow an id he
    can guess, not one he would need the password for (and with the password he could log in as the link anyway).

    >>> link_client_id("devetka-bridge-t1", "pw")
    'devetka-bridge-t1-a79c19e4f453738d174c'
    """
    return f"{name}-{hashlib.sha256(f'devetka-link:{password}'.encode()).hexdigest()[:20]}"


def render_table_bridge(table_id: str, host: str, port: int, user: str, password: str,
                        ca_file: str | None = None, *, others: Sequence[tuple[str, int]] = ()) -> str:
    """The table's ``conf.d`` file: its broker bridged out to the venue's, QoS 1, a session that outlives a drop.

    ``ca_file``: TLS to the venue, checking its certificate against that CA (the host name must be in it).
    ``others``: the other nodes of a venue on a NATS cluster (scoreboard/venue/nats.py), (host, port) each: the
    bridge goes to each in turn when it loses one, without Mosquitto's private bridge flag, which NATS refuses.
    What is bridged keeps within NATS's limits already: MQTT 3.1.1, QoS 1 at most, topics without spaces.
    """
    table_name(table_id, "the table id")
    check(_LOGIN, user, "the venue user")
    check(_SECRET, password, "the venue password")
    addresses = []
    for node_host, node_port in ((host, port), *others):
        check(_HOST, node_host, "the venue's host")
        if not (isinstance(node_port, int) and 0 < node_port < 65536):
            raise ValueError(f"the venue's port must be 1-65535, got {node_port!r}")
        addresses.append(f"{node_host}:{node_port}")
    connection = [f"address {addresses[0]}"]
    if others:
        connection = ["# Every node of the venue's cluster: on losing one the bridge goes on to the next.",
                      f"addresses {' '.join(addresses)}", "round_robin true",
                      "# NATS speaks plain MQTT 3.1.1 and refuses Mosquitto's private bridge protocol.",
                      "try_private false"]
    prefix = f"devetka/{table_id}"
    base, cap = CLUSTER_RESTART_TIMEOUT_S if others else RESTART_TIMEOUT_S
    lines = [
        "# This table's broker bridged to the venue's (docs/venue.md). Made by deploy/install.sh --venue from",
        "# scoreboard/venue/bridge.py; `install.sh --no-venue` removes it. It holds the table's venue password.",
        "",
        "# Events wait here while the venue is away, up to this many (Mosquitto's default is 1000).",
        f"max_queued_messages {MAX_QUEUED_MESSAGES}",
        "",
        "connection devetka-venue",
        *connection,
        "bridge_protocol_version mqttv311",
        "# One id per table (two bridges with one id push each other off for good), and one only its password can",
        "# make: no guest on the venue can push the bridge off by borrowing its id.",
        f"remote_clientid {link_client_id(f'devetka-bridge-{table_id}', password)}",
        f"remote_username {user}",
        f"remote_password {password}",
        "# The venue keeps the bridge's session across a drop; the table keeps what it could not send yet.",
        "cleansession false",
        f"# A table silent for 1.5 x {KEEPALIVE_S} s is dead to the venue, which then says 0 on its bridge topic.",
        f"keepalive_interval {KEEPALIVE_S}",
        f"restart_timeout {base} {cap}",
        "# 1 (retained) on the venue while the bridge is up; 0, the bridge's will, when it drops.",
        "notifications true",
        f"notification_topic {prefix}/bridge",
        "# QoS 1: a bridge topic's QoS is a maximum, and the default is 0. Discovery stays on the table.",
        *(f"topic {prefix}/{topic} out 1" for topic in BRIDGED_TOPICS),
        "# The venue director's calls in, the table's answers out (docs/events.md, \"Calls\").",
        *(f"topic {prefix}/{topic} {direction} 1" for topic, direction in CALL_TOPICS),
        "# The director's heartbeat in: heard none for three beats, the table holds a called match's Start.",
        f"topic {HEARTBEAT_TOPIC} in 0",
    ]
    if ca_file is not None:
        check(re.compile(r"/[!-~]+"), ca_file, "the venue's CA file (an absolute path)")
        lines += ["# TLS to the venue, its certificate checked against this CA and its host name.",
                  f"bridge_cafile {ca_file}", "bridge_tls_version tlsv1.2", "bridge_insecure false"]
    return "\n".join(lines) + "\n"


def render_venue_broker(link_password: str, tls: bool = False, *, tables_port: int = VENUE_TABLES_PORT,
                        page_port: int = VENUE_PAGE_PORT, readers_port: int = VENUE_READERS_PORT,
                        tls_port: int = VENUE_TLS_PORT, bind: str = "", etc: str = "/etc/mosquitto",
                        board_dir: str = VENUE_BOARD_DIR) -> str:
    """The venue broker's ``conf.d`` file: a listener for the tables' bridges (one login each, the ACL), one that
    serves the board's page and lets no MQTT client in, and a bridge of every table's topics, one way, to the
    readers' broker on this box (``nats.render_readers`` on ``readers_port``, login VENUE_LINK_USER with
    ``link_password``), which browsers and MQTT readers read. With ``tls``, the tables may also come over TLS, with
    the venue's certificate and key at VENUE_CERT_FILE and VENUE_KEY_FILE. Debian's mosquitto.conf before it keeps
    the pid and log file.

    No listener here takes an anonymous client: a broker's client ids are shared by all its listeners, so a guest
    let in anywhere could push a table's bridge off by borrowing its id.

    The defaults are what install.sh ships. A venue of its own elsewhere (a demo, a test) moves the ports, binds
    every listener to ``bind`` (an IP address: WebSockets listeners take no host name) and keeps its password file,
    ACLs, certificate and key in ``etc`` instead of /etc/mosquitto, and serves the board from ``board_dir``.
    """
    check(_SECRET, link_password, "the venue link's password")

    def moved(path: str) -> str:
        return etc + path.removeprefix("/etc/mosquitto")

    def listener(port: int) -> str:
        return f"listener {port} {bind}" if bind else f"listener {port}"

    tables = ["allow_anonymous false", "use_username_as_clientid true", f"password_file {moved(VENUE_PASSWORD_FILE)}",
              f"acl_file {moved(VENUE_TABLES_ACL_FILE)}"]
    over_tls = ["", "# The tables over TLS (a bar's Wi-Fi): the same logins and ACL, the venue's certificate.",
                listener(tls_port), f"certfile {moved(VENUE_CERT_FILE)}", f"keyfile {moved(VENUE_KEY_FILE)}",
                "tls_version tlsv1.2", *tables]
    return "\n".join([
        "# The venue's broker (docs/venue.md). Made by deploy/install.sh --venue-server from",
        "# scoreboard/venue/bridge.py. It holds the password of the link to the readers' broker.",
        "",
        "# Each listener its own logins and ACL.",
        "per_listener_settings true",
        "# A cache of the tables, never the truth: started empty, it is whole again once each bridge is back",
        "# (the table's broker sends its retained state and the events it kept). Kept on disk it would come back",
        "# after a crash with a table's old \"1\" on devetka/<table>/bridge when that table is dead meanwhile.",
        "persistence false",
        "# Every message to the readers' broker goes at QoS 1, so that broker answers each one at once: this",
        "# broker's bridge socket keeps Nagle's algorithm (Mosquitto sets TCP_NODELAY only on sockets it accepts),",
        "# and a QoS 0 state, which the readers' broker does not answer, held the next table's message back until",
        "# its delayed ACK, up to 40 ms (docs/venue.md, \"Nagle on the bridges\"). Subscribers here get a message at",
        "# the QoS they subscribed with.",
        "upgrade_outgoing_qos true",
        "# No Nagle on the sockets this broker accepts (the tables' bridges, the director, the operator's page).",
        "set_tcp_nodelay true",
        "",
        "# The tables: each bridge logs in as its table (install.sh --venue-add-table) and may write only under",
        "# devetka/<its id>/. The login is its client id too, so no table can push another's bridge off. No",
        "# listener of this broker lets an anonymous client in: readers read the readers' broker (below).",
        listener(tables_port),
        *tables,
        *(over_tls if tls else []),
        "",
        "# The board's page: http://<this box>:9001/ (?table=ID for one table full screen). It reads the readers'",
        "# broker's WebSocket. The only MQTT client let in here is the operator's page (?operator), with the",
        "# operator's login, which is its client id too: no anonymous client, no guest, and no id but its own.",
        "# Its ACL lets it write only the director's requests and read the director's answers and events.",
        listener(page_port),
        "protocol websockets",
        "allow_anonymous false",
        "use_username_as_clientid true",
        f"password_file {moved(VENUE_PAGE_PASSWORD_FILE)}",
        f"acl_file {moved(VENUE_PAGE_ACL_FILE)}",
        f"http_dir {board_dir}",
        "",
        "# Every table's topics, one way, to the readers' broker on this box (a nats-server: its WebSocket is",
        "# evented, where this Mosquitto's holds a message over 4 KB up to 100 ms). Nothing comes back in.",
        "connection devetka-readers",
        f"address 127.0.0.1:{readers_port}",
        "bridge_protocol_version mqttv311",
        "# NATS speaks plain MQTT 3.1.1 and refuses Mosquitto's private bridge protocol.",
        "try_private false",
        f"remote_clientid {link_client_id('devetka-readers-link', link_password)}",
        f"remote_username {VENUE_LINK_USER}",
        f"remote_password {link_password}",
        "cleansession false",
        "keepalive_interval 10",
        "restart_timeout 1 2",
        "# 1 (retained) on the readers' broker while this link is up; 0, its will, when it or this broker is gone:",
        "# the board then shows every table stale rather than live on old news.",
        "notifications true",
        f"notification_topic {VENUE_LINK_TOPIC}",
        "topic devetka/# out 1",
    ]) + "\n"


def render_venue_acl(table_ids: Iterable[str]) -> str:
    """The tables' listener's ACL: each table's login writes its own topics and reads its calls and the director's
    heartbeat."""
    lines = ["# Made by deploy/install.sh --venue-server: one block per table login (docs/venue.md).",
             "# Mosquitto acknowledges a publish this denies and drops it (MQTT 3.1.1 cannot refuse one)."]
    for table_id in table_ids:
        table_name(table_id, "a table id")
        lines += ["", f"user {table_id}", f"topic write devetka/{table_id}/#", f"topic read devetka/{table_id}/cmd",
                  f"topic read {HEARTBEAT_TOPIC}"]
    lines += ["", "# The director (docs/events.md): its events, and the calls to every table; it reads the tables.",
              f"user {DIRECTOR_LOGIN}", "topic readwrite devetka/director/#", "topic write devetka/+/cmd",
              "topic read devetka/#"]
    return "\n".join(lines) + "\n"


def render_page_acl() -> str:
    """The page listener's ACL: the operator writes the director's requests and reads its answers and events."""
    return "\n".join([
        "# Made by deploy/install.sh --venue-server: the operator's page (docs/venue.md, \"The operator's page\").",
        f"user {OPERATOR_LOGIN}", "topic write devetka/director/request/#", "topic read devetka/director/#",
    ]) + "\n"


# --- The command line install.sh runs ------------------------------------------------------------------------------

def _read_secret(path: str) -> str:
    """The first line of a password file (``-``: standard input), without its line end."""
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    return text.splitlines()[0] if text.strip() else ""


def _addresses(text: str) -> list[tuple[str, int]]:
    """``HOST:PORT,HOST:PORT`` as (host, port) pairs ("" gives none); a port that is not a number is refused."""
    pairs = []
    for item in filter(None, text.split(",")):
        host, _, port = item.partition(":")
        if not port.isdigit():
            raise ValueError(f"a venue node must be HOST:PORT, got {item!r}")
        pairs.append((host, int(port)))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bridge.py", description="Print the venue's Mosquitto config text.")
    commands = parser.add_subparsers(dest="what", required=True)
    table = commands.add_parser("table", help="the table's bridge")
    table.add_argument("--table-id", required=True)
    table.add_argument("--host", required=True)
    table.add_argument("--port", type=int, required=True)
    table.add_argument("--user", required=True)
    table.add_argument("--password-file", required=True, help="its first line is the password; - for stdin")
    table.add_argument("--ca-file")
    table.add_argument("--others", default="", help="HOST:PORT,... the other nodes of a venue's NATS cluster")
    venue = commands.add_parser("venue", help="the venue broker's listeners")
    venue.add_argument("--tls", action="store_true", help="a TLS listener for the tables too")
    venue.add_argument("--link-password-file", required=True, help="the readers' link's password; - for stdin")
    acl = commands.add_parser("venue-acl", help="the tables' ACL")
    acl.add_argument("table_ids", nargs="*")
    commands.add_parser("page-acl", help="the page listener's ACL (the operator's)")
    args = parser.parse_args(argv)
    try:
        if args.what == "table":
            text = render_table_bridge(args.table_id, args.host, args.port, args.user,
                                       _read_secret(args.password_file), args.ca_file,
                                       others=_addresses(args.others))
        elif args.what == "venue":
            text = render_venue_broker(_read_secret(args.link_password_file), tls=args.tls)
        elif args.what == "page-acl":
            text = render_page_acl()
        else:
            text = render_venue_acl(args.table_ids)
    except (OSError, ValueError) as error:
        print(f"install: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
