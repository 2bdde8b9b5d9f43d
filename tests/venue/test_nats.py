"""The venue on a NATS cluster with real parts (docs/venue.md, "The venue on three machines"): three ``nats-server``
nodes on loopback (scoreboard/sim/nats_cluster.py, each config rendered by scoreboard/venue/nats.py), four tables,
each a real ``devetka run`` publishing to its own Mosquitto bridged to every node (scoreboard/venue/bridge.py's
text with the cluster's ``others``, as install.sh --venue HOST:PORT,HOST:PORT,... makes it), and the board in
Debian's headless Chromium, its page given every node's WebSocket address.

No skips: scripts/setup.sh installs nats-server, mosquitto and chromium; a machine without them fails here by name.
Times are bounds that say "it never came", never figures to meet; the figures are in bench/venue_nats.py.
"""

from __future__ import annotations

import functools
import http.server
import queue
import threading
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import orjson
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.sim.broker import PrivateBroker
from scoreboard.sim.nats_cluster import HOST, NatsCluster, free_port
from scoreboard.venue import bridge
from tests.deploy.broker import Peer
from tests.live import ANA_BEN, LEGAL_BREAK, TIMEOUT, Daemon
from tests.venue.browser import Browser
from tests.venue.test_board import BOARD, assert_drawn, wait_tile
from tests.watcher import Message, Watcher

TABLE_IDS = ("t1", "t2", "t3", "t4")
PASSWORDS = {table_id: f"{table_id}-venue-pw" for table_id in TABLE_IDS}
#: How long after a node dies the board's tiles may take to show every table's state before the test says "it never
#: came". Not a figure to meet (bench/venue_nats.py measures that: 7-9 s, now and then 15 s): NATS 2.9.10's own
#: constants put the worst case near 20 s. A follower calls an election 4-9 s after its leader's last heartbeat
#: (server/raft.go), every MQTT connect reads the session stream's leader and gives up after 4 s (mqtt.go,
#: mqttJSAPITimeout), a bridge tries the next node 1-2 s later and one node in three is the dead one. The issue asked
#: for 15 s, which the engine cannot promise: a bound that close to its tail failed one CI run in about ten.
CONVERGE_S = 30.0
#: One more shot, whoever shoots: the 1 hit, a rail, no ball down.
SHOT = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2}, {"type": "settle"}]


def node(address: tuple[str, int]) -> SimpleNamespace:
    """A node's MQTT address as tests/watcher.py's clients take a broker."""
    return SimpleNamespace(host=address[0], port=address[1])


class Reader(Watcher):
    """A Watcher on one node (tests/watcher.py) whose subscriptions are at ``qos`` (0 unless asked) and asked again
    until granted: a node refuses QoS 1 subscriptions (SUBACK 0x80) while JetStream elects a leader, and may take
    seconds to grant one; QoS 0 needs no JetStream."""

    def __init__(self, address: tuple[str, int], topics: tuple[str, ...] = (), qos: int = 0, **login: str) -> None:
        self.qos = qos
        self._granted: queue.Queue[tuple[int, bool]] = queue.Queue()
        super().__init__(node(address), (), **login)
        self.client.on_subscribe = lambda client, userdata, mid, reasons, properties: self._granted.put(
            (mid, all(not reason.is_failure for reason in reasons)))
        for topic in topics:
            self.subscribe(topic)

    def subscribe(self, topic: str) -> None:
        if "#" in topic or "+" in topic:
            self.wildcards.append(topic)
        deadline = time.monotonic() + TIMEOUT
        while True:
            _, mid = self.client.subscribe(topic, qos=self.qos)
            try:
                acked, granted = self._granted.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"the node did not answer a subscription to {topic}") from None
            assert acked == mid
            if granted:
                return
            assert time.monotonic() < deadline, f"the node refused a subscription to {topic} for {TIMEOUT:g} s"
            time.sleep(0.5)


def kept(address: tuple[str, int], topic: str) -> Message:
    """What the node keeps on ``topic``: a new subscriber's first message, flagged retained."""
    reader = Reader(address, (topic,))
    try:
        message = reader.next(topic)
    finally:
        reader.close()
    assert message.retain, f"{topic}: the first message to a new subscriber was not the retained one"
    return message


def kept_once(address: tuple[str, int], topic: str, expected: dict, timeout: float) -> bool:
    """True once the node keeps ``expected`` on ``topic``. A node updates its retained messages from a JetStream
    stream, so its copy follows a live message by a little; asked again until it is there, or ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        message = kept(address, topic)
        if message.json == expected:
            return True
        assert time.monotonic() < deadline, f"{topic}: the node still keeps seq {message.json.get('seq')}"
        time.sleep(0.2)


class TableBroker(PrivateBroker):
    """The table's own Mosquitto (anonymous on loopback, as the daemon's test broker) with the cluster bridge of
    scoreboard/venue/bridge.py appended, as install.sh --venue puts it in conf.d."""

    def __init__(self, bridge: str) -> None:
        super().__init__()
        self.bridge = bridge

    def _write_config(self) -> Path:
        config = super()._write_config()
        config.write_text(config.read_text() + self.bridge)
        return config


class Table:
    """One table: its Mosquitto bridged to the cluster, its daemon, and a client of its local API (its screen)."""

    def __init__(self, folder: Path, table_id: str, nodes: list[tuple[str, int]]) -> None:
        self.id = table_id
        (host, port), *others = nodes
        self.broker = TableBroker(bridge.render_table_bridge(table_id, host, port, table_id, PASSWORDS[table_id],
                                                             others=others))
        self.broker.start()
        self.daemon = Daemon(folder, config=f'[table]\nid = "{table_id}"\n[mqtt]\nhost = "{self.broker.host}"\n'
                                            f"port = {self.broker.port}\nkeepalive_s = 60\n")
        self.daemon.start()
        self.screen = self.daemon.client()
        self.state = self.screen.request({"cmd": "state"})["state"]

    def play(self, *requests: dict) -> dict:
        """Inputs as the sensors and the touchscreen send them; each answered ok, or the table stopped refereeing."""
        for request in requests:
            answer = self.screen.request(request)
            assert answer["ok"], (self.id, request, answer)
            self.state = answer["state"]
        return self.state

    def close(self) -> None:
        try:
            self.screen.close()
        finally:
            self.daemon.kill()
            self.broker.close()


def metadata_leader(cluster: NatsCluster) -> int:
    """The number of the node that leads JetStream's metadata now (its monitoring page, /jsz)."""
    for member in cluster.nodes:
        if member.process is None:
            continue
        with urllib.request.urlopen(f"http://{HOST}:{member.monitor_port}/jsz", timeout=TIMEOUT) as answer:
            leader = orjson.loads(answer.read()).get("meta_cluster", {}).get("leader", "")
        if leader.startswith("devetka-"):
            return int(leader.removeprefix("devetka-"))
    raise AssertionError("no node names a metadata leader")


@pytest.fixture(scope="module")
def cluster():
    with NatsCluster(PASSWORDS) as running:
        yield running


@pytest.fixture(scope="module")
def first(cluster):
    """The node the tables' bridges and the board go to first: the metadata leader, so that losing it loses the
    bridges' node, the board's node and the leader at once."""
    return metadata_leader(cluster)


@pytest.fixture(scope="module")
def tables(tmp_path_factory, cluster, first):
    ordered = [cluster.nodes[first - 1].mqtt] + [n.mqtt for n in cluster.nodes if n.number != first]
    started: dict[str, Table] = {}
    try:
        for table_id in TABLE_IDS:
            started[table_id] = Table(tmp_path_factory.mktemp(table_id), table_id, ordered)
        yield started
    finally:
        for table in started.values():
            table.close()


@pytest.fixture(scope="module")
def board_server():
    """The board's folder over HTTP on loopback, as any static web server on a node serves it."""
    handler = functools.partial(_QuietHandler, directory=str(BOARD))
    server = http.server.ThreadingHTTPServer((HOST, 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


def board_url(page: str, cluster: NatsCluster, order: list[int]) -> str:
    return page + "?broker=" + ",".join(cluster.nodes[number - 1].ws_url for number in order)


def wait_state(browser: Browser, table: Table, timeout: float = TIMEOUT) -> dict:
    """The table's tile once it shows the table's state now, online; its fields."""
    seq, match = table.state["seq"], table.state["match_id"]
    tile = wait_tile(browser, table.id, f"tile.dataset.seq === '{seq}' && tile.dataset.match === '{match}'"
                                        " && tile.dataset.online === 'true'", timeout)
    assert_drawn(tile, table.state)
    return tile


def routed(reader: Reader, topic: str, address: tuple[str, int], login: str, queue: str | None = None) -> None:
    """Return once what ``login`` publishes on ``topic`` at ``address`` reaches ``reader`` on its node: a SUBACK does
    not wait for the other nodes to hear of the subscription, and until they have, nothing they get is routed to it.
    Probes (``{"event": "probe"}``) are sent again until one comes; they are taken from the reader's queue (``queue``,
    the wildcard the reader subscribed that the topic matches, else the topic)."""
    prober = Reader(address, username=login, password=PASSWORDS[login])
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            prober.publish(topic, b'{"event": "probe"}')
            try:
                reader.next(queue or topic, 0.2)
                return
            except AssertionError:
                assert time.monotonic() < deadline, f"nothing from {address} on {topic} reached the reader"
    finally:
        prober.close()


def test_a_table_writes_only_its_own_topics_and_readers_only_read(cluster, first, tables):
    t2 = tables["t2"]
    reader = Reader(cluster.nodes[first % 3].mqtt, ("devetka/t2/state", "devetka/t2/cmd"))  # no login: a reader
    try:
        routed(reader, "devetka/t2/cmd", cluster.nodes[first - 1].mqtt, "t2")  # where t2's bridge publishes
        t2.play({"cmd": "new_match", "match_start": ANA_BEN})
        reader.until("devetka/t2/state", lambda value: value == t2.state)
        # Table t1's login, on the node t2's bridge is on, writing as t2: acknowledged and dropped.
        impostor = Reader(cluster.nodes[first - 1].mqtt, username="t1", password=PASSWORDS["t1"])
        impostor.publish("devetka/t2/state", orjson.dumps(dict(t2.state, score=[9, 9])), retain=True)
        impostor.close()
        # A reader (no login) writing a command: acknowledged and dropped too.
        reader.publish("devetka/t2/cmd", b'{"cmd": "new_match"}')
        # Each node handles one connection's messages in order: t2's own marker, sent after both were acknowledged,
        # is the first thing heard on its cmd topic, and no state came after the daemon's.
        marker = Reader(cluster.nodes[first % 3].mqtt, username="t2", password=PASSWORDS["t2"])
        marker.publish("devetka/t2/cmd", b"marker")
        marker.close()
        assert reader.next("devetka/t2/cmd").payload == b"marker"
        assert reader.pending("devetka/t2/state") == 0
    finally:
        reader.close()
    assert kept(cluster.nodes[first - 1].mqtt, "devetka/t2/state").json["score"] != [9, 9]
    assert t2.screen.request({"cmd": "state"})["state"] == t2.state  # no match begun by the reader's command
    assert "Not authorized" in (refused_login(cluster, "t1", "wrong") or "")  # a wrong password is refused
    assert refused_login(cluster, "t1", PASSWORDS["t1"]) is None


def refused_login(cluster: NatsCluster, user: str, password: str) -> str | None:
    """Why node 1 refused this login (its CONNACK), or None when it let it in."""
    outcome: list[str | None] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.username_pw_set(user, password)
    client.on_connect = lambda c, u, f, reason, p: (outcome.append(str(reason) if reason.is_failure else None),
                                                     done.set())
    client.connect(*cluster.nodes[0].mqtt, keepalive=10)
    client.loop_start()
    try:
        assert done.wait(TIMEOUT), "node 1 did not answer the login"
        return outcome[0]
    finally:
        client.disconnect()
        client.loop_stop()


class Heard:
    """Every input event of each table's current match heard on one node (a QoS 1 repeat is allowed, no loss)."""

    def __init__(self, address: tuple[str, int], tables: dict[str, Table], publishers: tuple[str, int]) -> None:
        self.tables = tables
        self.seqs: dict[str, set[int]] = {table_id: set() for table_id in tables}
        self.watcher = Reader(address, ("devetka/+/event",))
        routed(self.watcher, "devetka/t1/event", publishers, "t1", "devetka/+/event")  # where the bridges publish

    def until_last(self, timeout: float) -> None:
        """Take events until each table's last stored seq has come."""
        while any(max(self.seqs[t.id], default=-1) < t.state["seq"] for t in self.tables.values()):
            message = self.watcher.next("devetka/+/event", timeout)
            table = self.tables[message.topic.split("/")[1]]
            event = message.json
            if event.get("event") == "input" and event["match_id"] == table.state["match_id"]:
                self.seqs[table.id].add(event["seq"])

    def close(self) -> None:
        self.watcher.close()


def diagnosis(cluster: NatsCluster, tables: dict[str, Table], browser: Browser) -> str:
    """What the board, the bridges and the nodes said: for a failure's message."""
    board = browser.evaluate("({url: window.devetkaBoard.url, link: window.devetkaBoard.link, tiles: [...document"
                             ".querySelectorAll('[data-table]')].map(t => [t.dataset.table, t.dataset.seq,"
                             " t.dataset.status, t.querySelector('.status').textContent])})")
    parts = [f"board: {board}"]
    parts += [f"bridge of {table.id}:\n{table.broker.log[-1500:]}" for table in tables.values()]
    parts += [f"node {member.number}:\n" + "\n".join(line for line in member.log.splitlines()[-300:]
                                                     if "route" not in line)[-4000:] for member in cluster.nodes]
    return "\n".join(parts)


def test_no_guest_on_any_node_disturbs_a_tables_bridge_by_borrowing_an_id_it_can_know(cluster, first, tables):
    """Issue 29: every table's login and bridge name, as client ids, from every node's MQTT port and WebSocket,
    while the tables play on. A bridge's id takes its password to make (bridge.link_client_id), and client ids are
    the only thing that would let a guest push it off: no bridge says 0 and every table's next state arrives."""
    watch = Reader(cluster.nodes[first - 1].mqtt, ("devetka/+/bridge", "devetka/+/state"))
    began = time.monotonic()
    try:
        for member in cluster.nodes:
            for port, transport in ((member.mqtt_port, "tcp"), (member.websocket_port, "websockets")):
                here = []
                for table_id in TABLE_IDS:
                    for client_id in (table_id, f"devetka-bridge-{table_id}"):
                        guest = Peer("guest", transport=transport, client_id=client_id)
                        here.append(guest)
                        assert not guest.connect(port).is_failure, (member.number, transport, client_id)
                time.sleep(1.0)  # a bridge pushed off says 0 (its will) at once
                for guest in here:
                    guest.close()
        played = {table.id: table.play({"cmd": "new_match", "match_start": ANA_BEN}) for table in tables.values()}
        expected = {table_id: (state["match_id"], state["seq"]) for table_id, state in played.items()}
        while expected:
            message = watch.next_any("devetka/+/state")
            table_id = message.topic.split("/")[1]
            if (message.json.get("match_id"), message.json.get("seq")) == expected.get(table_id):
                del expected[table_id]
        flags = [watch.next_any("devetka/+/bridge") for _ in range(watch.pending("devetka/+/bridge"))]
        downs = [(m.topic, m.payload) for m in flags if m.payload.strip() == b"0"]
        assert downs == [], f"a bridge went down while guests borrowed ids ({time.monotonic() - began:.1f} s)"
    finally:
        watch.close()


def test_a_node_killed_mid_play_the_board_converges_the_tables_referee_on_the_node_catches_up(
        cluster, first, tables, browser, board_server):
    order = [first] + [n.number for n in cluster.nodes if n.number != first]
    lost, survivor = cluster.nodes[first - 1], cluster.nodes[order[1] - 1]
    browser.viewport(1920, 1080)
    browser.open(board_url(board_server, cluster, order))
    browser.wait_for("window.devetkaBoard && window.devetkaBoard.link.up")
    # Every table's QoS 1 events, heard on a node that stays: none may be lost over the node's loss.
    events = Heard(survivor.mqtt, tables, lost.mqtt)
    try:
        for table in tables.values():
            table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=[f"{table.id} Ana", "Ben"])},
                       *LEGAL_BREAK[:4])
        for table in tables.values():
            wait_state(browser, table)
        # Mid-play, half the tables mid-shot: the node goes (SIGKILL), and play goes on at every table meanwhile;
        # each input is answered (Table.play asserts it): no table stops refereeing.
        for table in list(tables.values())[:2]:
            table.play(*LEGAL_BREAK[4:])
        cluster.kill(first)
        for table in list(tables.values())[2:]:
            table.play(*LEGAL_BREAK[4:])
        for table in tables.values():
            table.play(*SHOT)
        # Within the bound, every tile shows its table's exact state, online, from another node.
        try:
            for table in tables.values():
                wait_state(browser, table, CONVERGE_S)
        except AssertionError:
            print(diagnosis(cluster, tables, browser))
            raise
        link = browser.evaluate("({url: window.devetkaBoard.url, up: window.devetkaBoard.link.up,"
                                " refusals: window.devetkaBoard.link.refusals})")
        assert link["up"] and link["url"] != lost.ws_url
        print(f"\nnats: the board moved to {link['url']}; {link['refusals']} subscription(s) refused meanwhile")
        # Its QoS 1 subscriptions, refused while JetStream elected its leaders, are asked again until granted.
        browser.wait_for("window.devetkaBoard.link.meanwhile.length === 0")
        # The bridges rode over it: each says 1 on the cluster, and every input its table stored in this match,
        # from its match_start (seq 0) to the last, came to the node that stayed as an event.
        for table in tables.values():
            assert kept(survivor.mqtt, f"devetka/{table.id}/bridge").payload == b"1"
        events.until_last(CONVERGE_S)
        for table in tables.values():
            assert events.seqs[table.id] == set(range(table.state["seq"] + 1)), (table.id, events.seqs[table.id])
    finally:
        events.close()
        if lost.process is None:
            cluster.start_node(first, wait=False)
    # The node comes back and catches up: once it takes readers again it keeps every table's state, also the
    # states of the shots played since, and a board given only that node shows them all.
    cluster.wait_ready(first)
    for table in tables.values():
        table.play(*SHOT)
    for table in tables.values():
        assert kept_once(lost.mqtt, f"devetka/{table.id}/state", table.state, CONVERGE_S)
    # That board is the page opened from its file, as a kiosk on a node opens it (no web server).
    browser.open(board_url((BOARD / "index.html").as_uri(), cluster, [first]))
    for table in tables.values():
        wait_state(browser, table, CONVERGE_S)
    assert browser.exceptions() == []


def test_the_board_goes_on_to_the_next_node_when_the_first_is_not_there(cluster, tables, browser, board_server):
    """A node listed first that is off (its machine down since the morning): the board connects to the next."""
    table = tables["t3"]
    # Its own match, not one an earlier test may or may not have begun: under xdist this test may be the first of
    # the module on its worker, with t3 fresh (match_id None, which wait_state's data-match and assert_drawn's
    # players never match, whatever the wait).
    table.play({"cmd": "new_match", "match_start": ANA_BEN})
    nowhere = f"ws://{HOST}:{free_port()}/mqtt"  # nothing listens there
    browser.open(board_server + "?broker=" + ",".join([nowhere, cluster.nodes[1].ws_url]))
    wait_state(browser, table, CONVERGE_S)
    assert browser.evaluate("window.devetkaBoard.url") == cluster.nodes[1].ws_url
    assert browser.exceptions() == []


def test_a_refused_subscription_is_asked_again_and_the_board_never_reads_live_meanwhile(cluster, tables, browser,
                                                                                        board_server):
    """A login that may read nothing (a table's, given to the board by mistake): every subscription is refused
    (SUBACK 0x80), asked again with backoff, and the page says it is still connecting, with no tile drawn."""
    browser.open(board_url(board_server, cluster, [2]) + f"&user=t1&password={PASSWORDS['t1']}")
    browser.wait_for("window.devetkaBoard && window.devetkaBoard.link.refusals >= 9")  # three rounds of three
    assert browser.evaluate("window.devetkaBoard.link.up") is False
    assert browser.evaluate("document.querySelectorAll('[data-table]').length") == 0
    assert "Connecting to the venue broker" in browser.evaluate("document.getElementById('empty').textContent")
