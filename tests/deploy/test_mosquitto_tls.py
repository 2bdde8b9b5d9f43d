"""TLS, the documented option: the listener lines that deploy/mosquitto/devetka.conf and docs/deploy.md give, put
in the owner's own conf.d file beside the staged config, with a CA and the broker's certificate made here."""

from __future__ import annotations

import shutil

import pytest

from tests.adapters.test_mqtt_access import make_certificate
from tests.deploy.broker import Peer, ShippedBroker, refused
from tests.deploy.staging import REPO, credentials, install

TABLE = "table1"


def documented_tls_lines() -> str:
    """The TLS listener as devetka.conf's comment gives it (the same lines as docs/deploy.md's "TLS")."""
    conf = (REPO / "deploy/mosquitto/devetka.conf").read_text()
    snippet = conf[conf.index("#   listener 8883"):]
    lines = [line[len("#   "):] for line in snippet.splitlines() if line.startswith("#   ")]
    assert lines[0] == "listener 8883", lines
    assert "\n".join(lines) in (REPO / "docs/deploy.md").read_text()
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tls_broker(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's CA (Debian: apt-get install openssl)")
    folder = tmp_path_factory.mktemp("mosquitto-tls")
    root = folder / "root"
    assert install(root).returncode == 0
    certs = root / "etc/mosquitto/certs"
    certs.mkdir()
    make_certificate(certs, "ca", None)
    make_certificate(certs, "devetka", "ca", san="IP:127.0.0.1")
    (root / "etc/mosquitto/conf.d/devetka-tls.conf").write_text(documented_tls_lines())
    running = ShippedBroker(root, folder, tls=True)
    running.passwords = credentials(root)
    running.ca_file = str(certs / "ca.crt")
    yield running
    running.stop()


def test_a_dashboard_reads_the_state_over_tls_with_its_password(tls_broker):
    daemon, dashboard = Peer("devetka"), Peer("dashboard")
    try:
        assert not daemon.connect(tls_broker.table_port, "devetka", tls_broker.passwords["devetka"]).is_failure
        daemon.publish(f"devetka/{TABLE}/state", '{"type":"state","seq":3}', retain=True)
        reason = dashboard.connect(tls_broker.tls_port, "dashboard", tls_broker.passwords["dashboard"],
                                   ca_file=tls_broker.ca_file)
        assert not reason.is_failure, str(reason)
        dashboard.subscribe(f"devetka/{TABLE}/state")
        assert dashboard.next() == (f"devetka/{TABLE}/state", '{"type":"state","seq":3}', True)
    finally:
        daemon.close()
        dashboard.close()


def test_tls_does_not_let_anyone_in_without_a_password(tls_broker):
    anonymous = Peer("anonymous")
    try:
        assert refused(anonymous.connect(tls_broker.tls_port, ca_file=tls_broker.ca_file))
    finally:
        anonymous.close()
