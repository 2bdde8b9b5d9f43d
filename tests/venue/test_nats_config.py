"""The NATS venue's config text (scoreboard/venue/nats.py) and the table's bridge to a cluster (scoreboard/venue/
bridge.py with ``others``): what each says, that Debian's nats-server 2.9.10 takes it (``nats-server -t``), and that
install.sh's way of running it (the system python3 on the checkout's file) prints the same text; and what
``install.sh --venue-server --engine nats`` and ``--venue HOST,HOST,HOST`` stage (``--root``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scoreboard.sim.nats_cluster import nats_server_binary
from scoreboard.venue import bridge, nats
from tests.deploy.staging import install, manifest, tree
from tests.live import TIMEOUT
from tests.venue.hall import venue_logins

TABLES = {"bar1": "Zq3-x_9", "bar2": "pw2"}
PEERS = [("venue-a", 6222), ("venue-b", 6222), ("venue-c", 6222)]
NATS_PY = Path(nats.__file__)


def nats_server() -> str:
    found = nats_server_binary()
    assert found, "nats-server is not installed (scripts/setup.sh installs it: apt-get install nats-server)"
    return found


def test_a_node_config_is_one_nats_server_2_9_takes(tmp_path):
    config = tmp_path / "node.conf"
    config.write_text(nats.render_node(2, PEERS, TABLES, "route-secret", store_dir=str(tmp_path / "js")))
    checked = subprocess.run([nats_server(), "-t", "-c", str(config)], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "is valid" in checked.stdout + checked.stderr


def test_the_node_config_says_who_may_do_what():
    text = nats.render_node(1, PEERS, TABLES, "route-secret")
    lines = [line.strip() for line in text.splitlines()]
    assert "server_name: devetka-1" in lines
    # Each table writes only under its own prefix and reads only its own cmd (the director's calls, with their
    # QoS 1 deliveries) and the director's heartbeat; readers read (with their QoS 1 deliveries) and write nothing;
    # anonymous clients are readers.
    assert ('{user: "bar1", password: "Zq3-x_9", permissions: {publish: {allow: ["devetka.bar1.>"]}, '
            'subscribe: {allow: ["devetka.bar1.cmd", "devetka.director.heartbeat", "$MQTT.sub.>"]}}}') in lines
    assert not any(line.startswith("{user: director") for line in lines)  # no director login unless given
    director = [line.strip() for line in nats.render_node(1, PEERS, TABLES, "route-secret",
                                                          director_password="d1r").splitlines()]
    assert ('{user: director, password: "d1r", permissions: {publish: {allow: ["devetka.director.>", '
            '"devetka.*.cmd"]}, subscribe: {allow: ["devetka.>", "$MQTT.sub.>"]}}}') in director
    assert ('{user: reader, permissions: {publish: {deny: [">"]}, '
            'subscribe: {allow: ["devetka", "devetka.>", "$MQTT.sub.>", "devetka-venue.link"]}}}') in lines
    assert 'mqtt { listen: "0.0.0.0:1883", no_auth_user: reader }' in lines
    assert 'websocket { listen: "0.0.0.0:9001", no_tls: true }' in lines
    # The NATS protocol and monitoring stay on the machine; the routes log in with the shared secret.
    assert "listen: 127.0.0.1:4222" in lines and "http: 127.0.0.1:8222" in lines
    assert [line for line in lines if line.startswith('"nats-route://')] == [
        f'"nats-route://devetka-route:route-secret@{host}:{port}"' for host, port in PEERS]
    assert 'authorization { user: devetka-route, password: "route-secret" }' in lines
    assert f'jetstream {{ store_dir: "{nats.STORE_DIR}" }}' in lines


@pytest.mark.parametrize(("change", "words"), [
    ({"tables": {"bar.1": "pw"}}, "a table id"),  # a '.' would split the NATS subject
    ({"tables": {"reader": "pw"}}, "another login"),
    ({"tables": {"director": "pw"}}, "another login"),
    ({"tables": {"bar1": 'p"w'}}, "password"),
    ({"route_secret": "sec ret"}, "route secret"),
    ({"node": 0}, "node number"),
    ({"peers": []}, "peers"),
    ({"peers": [("venue a", 6222)]}, "peer's host"),
])
def test_a_bad_value_is_refused_by_name(change, words):
    arguments = {"node": 1, "peers": PEERS, "tables": TABLES, "route_secret": "route-secret"} | change
    with pytest.raises(ValueError, match=words):
        nats.render_node(**arguments)


def test_peers_are_host_and_port_the_port_defaulting_to_the_cluster_port():
    assert nats.parse_peers("venue-a:7000, venue-b") == [("venue-a", 7000), ("venue-b", 6222)]
    for bad in ("venue-a:x", "venue a", ""):
        with pytest.raises(ValueError):
            nats.parse_peers(bad)


def test_install_sh_runs_it_with_the_system_python_and_gets_the_same_text(tmp_path):
    tables = tmp_path / "venue-tables"
    tables.write_text("# The tables' logins\nbar1 Zq3-x_9\nbar2 pw2\n")
    secret = tmp_path / "secret"
    secret.write_text("route-secret\n")
    run = subprocess.run(["/usr/bin/python3", str(NATS_PY), "node", "--node", "3", "--peers",
                          "venue-a,venue-b:6222,venue-c", "--tables-file", str(tables), "--route-secret-file",
                          str(secret)], capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr
    assert run.stdout == nats.render_node(3, PEERS, TABLES, "route-secret")
    tables.write_text("bar1\n")
    run = subprocess.run(["/usr/bin/python3", str(NATS_PY), "node", "--node", "3", "--peers", "venue-a",
                          "--tables-file", str(tables), "--route-secret-file", str(secret)],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 2 and "ID PASSWORD" in run.stderr and run.stdout == ""


def test_the_readers_broker_of_a_mosquitto_venue_is_one_nats_server_2_9_takes(tmp_path):
    config = tmp_path / "readers.conf"
    config.write_text(nats.render_readers("l1nk-pw", store_dir=str(tmp_path / "js")))
    checked = subprocess.run([nats_server(), "-t", "-c", str(config)], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_on_the_readers_broker_only_the_venues_link_writes_and_readers_only_read():
    text = nats.render_readers("l1nk-pw")
    assert "cluster" not in text and "routes" not in text
    assert f'mqtt {{ listen: "0.0.0.0:{nats.READERS_MQTT_PORT}", no_auth_user: reader }}' in text
    assert f'websocket {{ listen: "0.0.0.0:{nats.READERS_WEBSOCKET_PORT}", no_tls: true }}' in text
    assert ('{user: venue, password: "l1nk-pw", permissions: {publish: {allow: ["devetka.>", '
            '"devetka-venue.link"]}, subscribe: {deny: [">"]}}}') in text
    assert ('{user: reader, permissions: {publish: {deny: [">"]}, subscribe: {allow: ["devetka", "devetka.>", '
            '"$MQTT.sub.>", "devetka-venue.link"]}}}') in text
    assert "listen: 127.0.0.1:4222" in text and "http: 127.0.0.1:8222" in text
    with pytest.raises(ValueError, match="the venue link's password"):
        nats.render_readers('pw"; evil')


def test_install_sh_renders_the_readers_broker_with_the_system_python(tmp_path):
    secret = tmp_path / "link"
    secret.write_text("l1nk-pw\n")
    out = subprocess.run(["python3", str(NATS_PY), "readers", "--link-password-file", str(secret)],
                         capture_output=True, text=True, check=True, timeout=60, cwd=tmp_path)
    assert out.stdout == nats.render_readers("l1nk-pw")


def test_a_tables_bridge_to_a_cluster_goes_to_every_node_within_what_nats_takes():
    others = [("venue-b", 1883), ("venue-c", 1884)]
    text = bridge.render_table_bridge("bar1", "venue-a", 1883, "bar1", "pw", others=others)
    lines = text.splitlines()
    assert "addresses venue-a:1883 venue-b:1883 venue-c:1884" in lines
    assert {"round_robin true", "try_private false", "bridge_protocol_version mqttv311"} <= set(lines)
    assert not any(line.startswith("address ") for line in lines)
    assert "restart_timeout 1 2" in lines  # quick tries: each one during an election costs NATS's 4 s timeout
    topics = [line.split() for line in lines if line.startswith("topic ")]
    # The table's topics out, the director's calls and heartbeat in and the answers out (issue 31: the calls ride
    # the bridges on both engines; render_node grants the table its cmd and the QoS 1 deliveries); QoS 1 at most, no
    # spaces:
    # NATS refuses QoS 2 and spaces.
    assert {(words[1], words[2]) for words in topics} == {
        ("devetka/bar1/state", "out"), ("devetka/bar1/event", "out"), ("devetka/bar1/availability", "out"),
        ("devetka/bar1/cmd", "in"), ("devetka/bar1/cmd/result", "out"), ("devetka/director/heartbeat", "in")}
    assert all(len(words) == 4 and words[3] in ("0", "1") for words in topics)
    # One venue broker: the text is what it was, one address and Mosquitto's own bridge protocol.
    alone = bridge.render_table_bridge("bar1", "venue-a", 1883, "bar1", "pw").splitlines()
    assert "address venue-a:1883" in alone and "try_private false" not in alone
    assert "restart_timeout 1 2" in alone
    assert [line for line in alone if not line.startswith(("address", "restart_timeout"))] == [
        line for line in lines if line not in ("round_robin true", "try_private false")
        and not line.startswith(("addresses", "# Every node", "# NATS speaks", "restart_timeout"))]
    with pytest.raises(ValueError, match="port"):
        bridge.render_table_bridge("bar1", "venue-a", 1883, "bar1", "pw", others=[("venue-b", 0)])


# ---- install.sh --venue-server --engine nats, and a table's --venue to every node (staging, ``--root``) ----------
NODE_FILES = {  # path -> (kind, mode, owner) on a node of the venue's cluster
    "/etc/devetka/venue-tables": ("file", "0600", "root:root"),
    "/etc/devetka/venue-cluster-secret": ("file", "0600", "root:root"),
    nats.NODE_CONFIG_FILE: ("file", "0640", "root:nats"),
    "/var/lib/nats": ("dir", "0750", "nats:nats"),
    nats.STORE_DIR: ("dir", "0750", "nats:nats"),
    "/usr/share/devetka/board/board.js": ("file", "0644", "root:root"),
}
ENGINE = ("--venue-server", "--engine", "nats", "--peers", "venue-a,venue-b:6222,venue-c", "--director-node", "1")


def node_install(root: Path, number: int, *more: str):
    return install(root, *ENGINE, "--node", str(number), *more)


def test_install_makes_node_1_with_the_text_of_nats_py_and_a_second_run_changes_nothing(tmp_path):
    root = tmp_path / "node1"
    run = node_install(root, 1, "--venue-add-table", "bar1", "--venue-add-table", "bar2")
    assert run.returncode == 0, run.stderr
    secret = (root / "etc/devetka/venue-cluster-secret").read_text().strip()
    config = (root / nats.NODE_CONFIG_FILE.lstrip("/")).read_text()
    director = (root / "etc/devetka/venue-director").read_text().strip()  # node 1 runs the director here
    assert config == nats.render_node(1, PEERS, venue_logins(root), secret, director_password=director)
    assert set(venue_logins(root)) == {"bar1", "bar2"}
    assert "--venue venue-a:1883,venue-b:1883,venue-c:1883 --venue-user bar1" in run.stderr  # what to run on bar1
    recorded = manifest(root)
    for path, entry in NODE_FILES.items():
        assert recorded[path][:3] == entry, path
    assert "would run: systemctl reload-or-restart nats-server.service" in run.stdout
    checked = subprocess.run([nats_server(), "-t", "-c", str(root / nats.NODE_CONFIG_FILE.lstrip("/"))],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stderr
    before = tree(root)
    again = node_install(root, 1)
    assert again.returncode == 0, again.stderr
    assert tree(root) == before and "wrote" not in again.stderr


def test_nodes_2_and_3_take_node_1s_logins_and_secret_and_make_none(tmp_path):
    first, second = tmp_path / "node1", tmp_path / "node2"
    assert node_install(first, 1, "--venue-add-table", "bar1").returncode == 0
    refused = node_install(second, 2)
    assert refused.returncode != 0 and "/etc/devetka/venue-tables" in refused.stderr
    assert not (second / nats.NODE_CONFIG_FILE.lstrip("/")).exists()
    (second / "etc/devetka").mkdir(parents=True)
    for name in ("venue-tables", "venue-cluster-secret"):
        (second / "etc/devetka" / name).write_bytes((first / "etc/devetka" / name).read_bytes())
    run = node_install(second, 2)
    assert run.returncode == 0, run.stderr
    secret = (first / "etc/devetka/venue-cluster-secret").read_text().strip()
    assert (second / nats.NODE_CONFIG_FILE.lstrip("/")).read_text() == nats.render_node(
        2, PEERS, venue_logins(first), secret)
    adding = node_install(second, 2, "--venue-add-table", "bar2")
    assert adding.returncode != 0 and "on node 1" in adding.stderr


def test_a_table_bridges_to_every_node_of_the_list(tmp_path):
    secret = tmp_path / "password"
    secret.write_text("Tbl-1_pass\n")
    root = tmp_path / "table"
    run = install(root, "--venue", "venue-a,venue-b:1884,venue-c", "--venue-user", "table1",
                  "--venue-password-file", str(secret))
    assert run.returncode == 0, run.stderr
    assert (root / bridge.TABLE_BRIDGE_FILE.lstrip("/")).read_text() == bridge.render_table_bridge(
        "table1", "venue-a", 1883, "table1", "Tbl-1_pass", others=[("venue-b", 1884), ("venue-c", 1883)])
    again = install(root)  # later runs make the same bridge from the settings kept
    assert again.returncode == 0 and "wrote /etc/mosquitto" not in again.stderr
