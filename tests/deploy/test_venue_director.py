"""deploy/venue-director.sh: ``install.sh --venue-server`` installing the director beside the venue's broker, run for
real in its staging mode (``--root DIR``), on either engine: the unit with the broker it waits for and an ExecStart
the real ``devetka`` parser takes, its password file given to the director's user alone, its store's folder, the
machine's own steps (its user, the venv with this checkout in it, the unit enabled and restarted after the broker),
``systemd-analyze verify`` on the staged unit, and the director started on the installed command line logging in
to the staged Mosquitto venue with the installed password. On a NATS venue: the one node ``--director-node`` names
runs it, with the director's login in that node's config alone; a node it moves away from stops it."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from scoreboard.commands.main import parser
from scoreboard.director.server import ask
from scoreboard.venue import bridge, nats
from tests.deploy.broker import Peer
from tests.deploy.staging import REPO, install, manifest, tree
from tests.live import TIMEOUT
from tests.venue.hall import VenueBroker, venue_logins
from tests.venue.test_install import assert_the_manifest_is_the_tree

SHIPPED_UNIT = REPO / "deploy/systemd/devetka-director.service"
UNIT = "/etc/systemd/system/devetka-director.service"
SECRET = "/etc/devetka/venue-director"
STATE = "/var/lib/devetka-director"
DIRECTOR_FILES = {  # path -> (kind, mode, owner) where the director runs
    UNIT: ("file", "0644", "root:root"),
    SECRET: ("file", "0600", "devetka-director:devetka"),
    STATE: ("dir", "0750", "devetka-director:devetka"),
}
PEERS = "venue-a,venue-b,venue-c"
DIRECTOR_STEPS = ["would run: systemctl daemon-reload", "would run: systemctl enable devetka-director.service",
                  "would run: systemctl restart devetka-director.service"]


def at(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def node(root: Path, number: int, director: int, *more: str):
    return install(root, "--venue-server", "--engine", "nats", "--node", str(number), "--peers", PEERS,
                   "--director-node", str(director), *more)


def unit_keys(root: Path) -> dict[str, str]:
    lines = at(root, UNIT).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def exec_start(root: Path) -> list[str]:
    return shlex.split(unit_keys(root)["ExecStart"])


def assert_runs_the_director_on_this_boxs_broker(root: Path, port: int) -> None:
    argv = exec_start(root)
    assert argv[0] == "/opt/devetka/venv/bin/devetka"
    args = parser().parse_args(argv[1:])
    assert (args.command, args.mqtt_host, args.mqtt_port, args.mqtt_user, args.mqtt_password_file) == (
        "director", "127.0.0.1", port, bridge.DIRECTOR_LOGIN, SECRET)
    assert (args.store, args.socket) == (f"{STATE}/director.sqlite3", "/run/devetka/director.sock")
    keys = unit_keys(root)
    assert Path(args.store).parent == Path("/var/lib") / keys["StateDirectory"]
    assert keys["User"] == "devetka-director" and keys["Group"] == "devetka"


def assert_the_machine_gets_the_director(run) -> None:
    """The printed steps: its user, the venv with this checkout, and last the unit enabled and restarted."""
    steps = run.stdout.splitlines()
    assert any("python3-venv" in step for step in steps if "apt-get install" in step)
    assert "would run: useradd --system --gid devetka --home-dir /var/lib/devetka-director --no-create-home " \
           "--shell /usr/sbin/nologin --comment 'Devetka director' devetka-director" in steps
    assert "would run: python3 -m venv /opt/devetka/venv" in steps
    assert f"would run: /opt/devetka/venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade " \
           f"{REPO}" in steps
    assert steps[-3:] == DIRECTOR_STEPS


def test_a_mosquitto_venue_installs_the_director_on_its_tables_listener(tmp_path):
    root = tmp_path / "venue"
    run = install(root, "--venue-server", "--venue-add-table", "t1")
    assert run.returncode == 0, run.stderr
    recorded = manifest(root)
    for path, entry in DIRECTOR_FILES.items():
        assert recorded[path][:3] == entry, path
    assert at(root, UNIT).read_text() == SHIPPED_UNIT.read_text()
    keys = unit_keys(root)
    assert "mosquitto.service" in keys["After"] and "mosquitto.service" in keys["Wants"]
    assert_runs_the_director_on_this_boxs_broker(root, bridge.VENUE_TABLES_PORT)
    assert_the_machine_gets_the_director(run)
    assert steps_before(run, "systemctl daemon-reload")[-1] == "would run: systemctl restart mosquitto.service"
    assert "the director: devetka-director.service" in run.stderr
    assert_the_manifest_is_the_tree(root)
    # Its login on the tables' listener is made from that same file: the director's password is one.
    assert [line.split(":")[0] for line in at(root, bridge.VENUE_PASSWORD_FILE).read_text().splitlines()] == \
        ["t1", bridge.DIRECTOR_LOGIN]
    secret = at(root, SECRET).read_text()
    before = tree(root)
    again = install(root, "--venue-server")
    assert again.returncode == 0, again.stderr
    assert tree(root) == before and "wrote" not in again.stderr and at(root, SECRET).read_text() == secret
    assert again.stdout.splitlines()[-3:] == DIRECTOR_STEPS  # restarted: an upgraded venv is taken up


def steps_before(run, step: str) -> list[str]:
    steps = run.stdout.splitlines()
    return steps[:steps.index(f"would run: {step}")]


def test_a_nats_venue_runs_the_director_on_the_node_named_with_its_login_there_alone(tmp_path):
    first, second = tmp_path / "node1", tmp_path / "node2"
    run = node(first, 1, 1, "--venue-add-table", "bar1")
    assert run.returncode == 0, run.stderr
    recorded = manifest(first)
    for path, entry in DIRECTOR_FILES.items():
        assert recorded[path][:3] == entry, path
    keys = unit_keys(first)
    # Wants=mosquitto.service would start Debian's Mosquitto on NATS's port 1883: the node's broker is nats-server.
    assert "nats-server.service" in keys["After"] and "nats-server.service" in keys["Wants"]
    assert "mosquitto" not in keys["After"] + keys["Wants"]
    assert at(first, UNIT).read_text() == SHIPPED_UNIT.read_text().replace(
        "After=network-online.target mosquitto.service", "After=network-online.target nats-server.service").replace(
        "Wants=network-online.target mosquitto.service", "Wants=network-online.target nats-server.service")
    assert_runs_the_director_on_this_boxs_broker(first, nats.MQTT_PORT)
    assert_the_machine_gets_the_director(run)
    assert steps_before(run, "systemctl daemon-reload")[-1] == \
        "would run: systemctl reload-or-restart nats-server.service"
    secret = at(first, SECRET).read_text().strip()
    route = at(first, "/etc/devetka/venue-cluster-secret").read_text().strip()
    peers = nats.parse_peers(PEERS)
    assert at(first, nats.NODE_CONFIG_FILE).read_text() == nats.render_node(
        1, peers, venue_logins(first), route, director_password=secret)
    checked = subprocess.run([shutil.which("nats-server") or "nats-server", "-t", "-c",
                              str(at(first, nats.NODE_CONFIG_FILE))], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stderr
    assert_the_manifest_is_the_tree(first)
    before = tree(first)
    again = node(first, 1, 1)
    assert again.returncode == 0 and tree(first) == before and "wrote" not in again.stderr

    (second / "etc/devetka").mkdir(parents=True)
    for name in ("venue-tables", "venue-cluster-secret"):
        (second / "etc/devetka" / name).write_bytes((first / "etc/devetka" / name).read_bytes())
    other = node(second, 2, 1)
    assert other.returncode == 0, other.stderr
    assert at(second, nats.NODE_CONFIG_FILE).read_text() == nats.render_node(2, peers, venue_logins(first), route)
    assert "user: director" not in at(second, nats.NODE_CONFIG_FILE).read_text()
    assert not any(at(second, path).exists() for path in (UNIT, SECRET, STATE))
    assert not any("devetka-director" in step or "venv" in step or "python3-venv" in step
                   for step in other.stdout.splitlines())


def test_a_node_the_director_moves_away_from_stops_it_and_drops_its_login(tmp_path):
    root = tmp_path / "node1"
    assert node(root, 1, 1, "--venue-add-table", "bar1").returncode == 0
    moved = node(root, 1, 2)
    assert moved.returncode == 0, moved.stderr
    assert "would run: systemctl disable --now devetka-director.service" in moved.stdout
    assert not at(root, UNIT).exists() and not at(root, SECRET).exists()
    assert "user: director" not in at(root, nats.NODE_CONFIG_FILE).read_text()
    assert "the director runs on node 2: stopped here; its store stays in /var/lib/devetka-director" in moved.stderr
    assert UNIT not in manifest(root) and SECRET not in manifest(root)
    assert_the_manifest_is_the_tree(root)


@pytest.mark.parametrize(("args", "message"), [
    (("--engine", "nats", "--node", "1", "--peers", PEERS),
     "--engine nats needs --director-node N (the node that runs the director: the same on every node)"),
    (("--engine", "nats", "--node", "1", "--peers", PEERS, "--director-node", "4"),
     "--director-node 4: --peers names 3 nodes"),
    (("--engine", "nats", "--node", "1", "--peers", PEERS, "--director-node", "one"), "needs --director-node N"),
    (("--venue-server", "--director-node", "1"), "--director-node goes with --engine nats"),
])
def test_a_bad_director_node_stops_the_install_before_anything_is_written(tmp_path, args, message):
    run = install(tmp_path / "root", *args)
    assert run.returncode != 0 and message in run.stderr
    assert not (tmp_path / "root" / "etc").exists()


@pytest.mark.parametrize("engine", ["mosquitto", "nats"])
def test_systemd_analyze_verify_passes_on_the_installed_unit(tmp_path, engine):
    root = tmp_path / "root"
    run = install(root, "--venue-server") if engine == "mosquitto" else node(root, 1, 1)
    assert run.returncode == 0, run.stderr
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    venv_bin = root / "opt/devetka/venv/bin"
    venv_bin.mkdir(parents=True)
    shutil.copy2(Path(sys.executable).parent / "devetka", venv_bin / "devetka")  # the checkout's, as pip puts it
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: scripts/setup.sh installs the systemd package"
    out = subprocess.run([tool, "verify", f"--root={root}", UNIT], capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert (out.returncode, out.stdout + out.stderr) == (0, "")


def test_the_installed_director_logs_in_to_the_installed_venue_and_publishes_the_night(tmp_path):
    """The unit's own command line (its store and socket in a temporary folder, the broker's port moved), the
    password file install.sh made: the director logs in on the staged Mosquitto venue as ``director``, and a reader
    of the readers' broker sees it online and the night's event it was given; ``devetka event status`` asks it."""
    root = tmp_path / "root"
    run = install(root, "--venue-server", "--venue-add-table", "t1")
    assert run.returncode == 0, run.stderr
    venue = VenueBroker(root, tmp_path / "broker")
    director = None
    reader = Peer("reader")
    try:
        argv = exec_start(root)
        moved = {"/opt/devetka/venv/bin/devetka": str(Path(sys.executable).parent / "devetka"),
                 f"{STATE}/director.sqlite3": str(tmp_path / "director.sqlite3"),
                 "/run/devetka/director.sock": str(tmp_path / "director.sock"),
                 str(bridge.VENUE_TABLES_PORT): str(venue.tables_port), SECRET: str(at(root, SECRET))}
        argv = [moved.get(word, word) for word in argv]
        director = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    stdin=subprocess.DEVNULL)
        assert director.stdout.readline() == f"devetka director: ready on {tmp_path / 'director.sock'}\n", \
            director.stderr.read()
        assert not reader.connect(venue.readers_port).is_failure
        reader.subscribe("devetka/director/#")
        assert seen(reader, "devetka/director/availability") == "online"
        spec = {"name": "Friday", "format": "single", "players": ["Ana", "Ben"], "race": 3, "tables": ["t1"]}
        assert ask(tmp_path / "director.sock", {"cmd": "new", "spec": spec})["ok"]
        assert orjson.loads(seen(reader, "devetka/director/event/1"))["name"] == "Friday"
        status = subprocess.run([str(Path(sys.executable).parent / "devetka"), "event", "status", "--socket",
                                 str(tmp_path / "director.sock")], capture_output=True, text=True, timeout=TIMEOUT)
        assert status.returncode == 0 and "Friday" in status.stdout, status.stderr
    finally:
        reader.close()
        if director is not None:
            director.terminate()
            assert director.wait(timeout=TIMEOUT) == 0
            director.stdout.close()
            director.stderr.close()
        venue.close()


def seen(peer: Peer, topic: str) -> str:
    """The next message ``peer`` gets on ``topic`` (others skipped), retained or not."""
    while True:
        got, payload, _ = peer.next()
        if got == topic:
            return payload
