"""Who may talk to the table over MQTT: TLS with a CA made here (openssl), and the shipped ACL
(deploy/mosquitto/devetka.acl.in) with a password file, in a real Mosquitto, against ``devetka run``."""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from scoreboard.sim.broker import BrokerTls, PrivateBroker
from tests.adapters.test_mqtt import TOPICS
from tests.live import ANA_BEN, DEVETKA, TIMEOUT, Daemon
from tests.paths import REPO
from tests.watcher import Watcher, retained_once_there

ACL_TEMPLATE = REPO / "deploy" / "mosquitto" / "devetka.acl.in"
PASSWORDS = {"devetka": "daemon-pw", "touchscreen": "screen-pw", "dashboard": "board-pw", "homeassistant": "ha-pw"}


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=TIMEOUT)


def make_certificate(folder: Path, name: str, ca: str | None, san: str | None = None) -> tuple[str, str]:
    """An EC key and certificate: self-signed when ``ca`` is None, else signed by the CA named ``ca``."""
    key, cert = str(folder / f"{name}.key"), str(folder / f"{name}.crt")
    if ca is None:
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", f"/CN={name}", "-keyout", key, "-out", cert)
        return key, cert
    request = str(folder / f"{name}.csr")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-subj", f"/CN={name}", "-keyout", key, "-out", request)
    extensions = folder / f"{name}.ext"
    extensions.write_text(f"subjectAltName={san}\n" if san else "basicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", request, "-CA", str(folder / f"{ca}.crt"), "-CAkey", str(folder / f"{ca}.key"),
            "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", cert)
    return key, cert


@pytest.fixture
def pki(tmp_path):
    """A CA, the broker's certificate for 127.0.0.1 signed by it, a table's client certificate, and a stranger CA."""
    folder = tmp_path / "pki"
    folder.mkdir()
    make_certificate(folder, "ca", None)
    make_certificate(folder, "broker", "ca", san="IP:127.0.0.1")
    make_certificate(folder, "bar1", "ca")
    make_certificate(folder, "stranger", None)
    return folder


def test_the_table_talks_tls_to_a_broker_that_wants_its_client_certificate(tmp_path, pki):
    tls = BrokerTls(ca_file=str(pki / "ca.crt"), certfile=str(pki / "broker.crt"), keyfile=str(pki / "broker.key"),
                    require_certificate=True)
    with PrivateBroker(tls=tls) as broker:
        daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[mqtt]\nhost = "{broker.host}"\n'
                                         f"port = {broker.port}\n[mqtt.tls]\n"
                                         f'ca_file = "{pki / "ca.crt"}"\ncertfile = "{pki / "bar1.crt"}"\n'
                                         f'keyfile = "{pki / "bar1.key"}"\n')
        daemon.start()
        try:
            login = {"ca_file": str(pki / "ca.crt"), "certfile": str(pki / "bar1.crt"),
                     "keyfile": str(pki / "bar1.key")}
            dashboard = Watcher(broker, [TOPICS.availability, TOPICS.result], **login)
            dashboard.until(TOPICS.availability, lambda value: value == "online")
            dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "t1", "cmd": "new_match", "match_start": ANA_BEN}))
            answer = dashboard.next(TOPICS.result).json
            assert answer["ok"] and answer["id"] == "t1"
            assert retained_once_there(broker, TOPICS.state, answer["state"], **login).json == answer["state"]
            dashboard.close()
            assert daemon.stop() == 0
        finally:
            daemon.kill()
        assert "Traceback" not in daemon.stderr.decode()
        # A client that trusts another CA does not take the broker's word for who it is.
        with pytest.raises(OSError):
            Watcher(broker, [], ca_file=str(pki / "stranger.crt"), certfile=str(pki / "bar1.crt"),
                    keyfile=str(pki / "bar1.key"))


def test_a_missing_ca_file_stops_the_start_naming_the_key(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(f'[mqtt]\n[mqtt.tls]\nca_file = "{tmp_path / "nowhere.crt"}"\n')
    out = subprocess.run([DEVETKA, "run", "--config", str(config), "--store", str(tmp_path / "s.db"),
                          "--socket", str(tmp_path / "api.sock")], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 2 and "mqtt.tls" in out.stderr and "nowhere.crt" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "api.sock").exists()


@pytest.fixture
def venue(tmp_path):
    """The shipped ACL for table bar1 with a password per user, and the daemon logged in as ``devetka``."""
    acl = ACL_TEMPLATE.read_text().replace("@TABLE@", "bar1")
    with PrivateBroker(users=PASSWORDS, acl=acl) as broker:
        daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[mqtt]\nhost = "{broker.host}"\n'
                                         f'port = {broker.port}\nusername = "devetka"\n'
                                         f'password = "{PASSWORDS["devetka"]}"\n')
        daemon.start()
        try:
            yield broker, daemon
        finally:
            daemon.kill()


def login(user: str) -> dict[str, str]:
    return {"username": user, "password": PASSWORDS[user]}


def test_a_read_only_users_command_is_dropped_and_the_touchscreens_is_run(venue):
    broker, daemon = venue
    watcher = Watcher(broker, [TOPICS.availability, TOPICS.cmd, TOPICS.result], **login("touchscreen"))
    watcher.until(TOPICS.availability, lambda value: value == "online")  # the daemon may publish its topics
    dashboard = Watcher(broker, [TOPICS.result], **login("dashboard"))
    # Mosquitto acknowledges the denied publish (MQTT 3.1.1 cannot refuse one) and drops it.
    dashboard.publish(TOPICS.cmd, orjson.dumps({"id": "sneaky", "cmd": "new_match", "match_start": ANA_BEN}))
    touchscreen = Watcher(broker, [], **login("touchscreen"))
    touchscreen.publish(TOPICS.cmd, orjson.dumps({"id": "screen", "cmd": "new_match", "match_start": ANA_BEN}))
    # The broker handles one publish after the other: had it passed the dashboard's on, it would come first.
    assert orjson.loads(watcher.next(TOPICS.cmd).payload)["id"] == "screen"
    answer = watcher.next(TOPICS.result).json
    assert answer["id"] == "screen" and answer["ok"]
    assert dashboard.next(TOPICS.result).json["id"] == "screen"  # dashboards read the answers
    assert watcher.pending(TOPICS.cmd) == 0 and watcher.pending(TOPICS.result) == 0
    screen = daemon.client()
    state = screen.request({"cmd": "state"})["state"]
    assert state["match_id"] == 1 and state["seq"] == 0  # one match begun, by the touchscreen's command alone
    assert retained_once_there(broker, TOPICS.state, state, **login("dashboard")).json == state
    home = Watcher(broker, ["homeassistant/sensor/devetka_bar1/rack/config"], **login("homeassistant"))
    assert home.next("homeassistant/sensor/devetka_bar1/rack/config").json["state_topic"] == TOPICS.state
    for client in (watcher, dashboard, touchscreen, home):
        client.close()
    screen.close()


def test_a_wrong_password_is_refused_and_said_and_refereeing_goes_on(tmp_path):
    acl = ACL_TEMPLATE.read_text().replace("@TABLE@", "bar1")
    with PrivateBroker(users=PASSWORDS, acl=acl) as broker:
        daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[mqtt]\nhost = "{broker.host}"\n'
                                         f'port = {broker.port}\nusername = "devetka"\npassword = "Xq7-not-it"\n')
        daemon.start()
        try:
            said = stderr_until(daemon, b"refused the connection")
            assert b"devetka-bar1" not in said  # the message names the broker, never the password or the user
            assert b"Xq7-not-it" not in said
            screen = daemon.client()
            assert screen.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
            screen.close()
        finally:
            assert daemon.stop() == 0


def stderr_until(daemon: Daemon, text: bytes) -> bytes:
    """What the daemon wrote on stderr up to ``text`` (read as it comes), or an AssertionError after ``TIMEOUT``."""
    seen = b""
    deadline = time.monotonic() + TIMEOUT
    fd = daemon.process.stderr.fileno()
    while text not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"the daemon did not say {text!r} within {TIMEOUT:g} s; it said {seen!r}"
        chunk = os.read(fd, 4096)
        assert chunk, f"the daemon closed stderr without saying {text!r}: {seen!r}"
        seen += chunk
    return seen
