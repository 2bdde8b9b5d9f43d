"""TLS between a table and the venue (a bar's Wi-Fi): the venue staged with its certificate and key
(``--venue-tls-cert``, ``--venue-tls-key``), a table staged with the CA that signed it (``--venue-tls-ca``), both run
for real with a CA made here (openssl): the table's state reaches the board; with another CA the bridge refuses the
venue's certificate."""

from __future__ import annotations

import shutil
import time

import pytest

from tests.adapters.test_mqtt_access import make_certificate
from tests.deploy.staging import install
from tests.live import ANA_BEN, TIMEOUT
from tests.venue.hall import Board, VenueBroker, start_table, venue_logins


@pytest.fixture(scope="module")
def tls_venue(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's CA (Debian: apt-get install openssl)")
    folder = tmp_path_factory.mktemp("tls-venue")
    pki = folder / "pki"
    pki.mkdir()
    make_certificate(pki, "ca", None)
    make_certificate(pki, "venue", "ca", san="IP:127.0.0.1")
    make_certificate(pki, "stranger", None)
    root = folder / "root"
    run = install(root, "--venue-add-table", "s1", "--venue-add-table", "s2", "--venue-tls-cert",
                  str(pki / "venue.crt"), "--venue-tls-key", str(pki / "venue.key"))
    assert run.returncode == 0, run.stderr
    broker = VenueBroker(root, folder)
    broker.logins, broker.pki = venue_logins(root), pki
    yield broker
    broker.close()


def test_a_table_bridges_over_tls_checking_the_venues_certificate(tls_venue, tmp_path):
    table = start_table(tmp_path, "s1", tls_venue, tls_venue.logins["s1"], tls_venue.tls_port,
                        "--venue-tls-ca", str(tls_venue.pki / "ca.crt"))
    board = Board(tls_venue)
    try:
        board.wait_for("devetka/s1/bridge", lambda value: value == 1)
        served = table.play({"cmd": "new_match", "match_start": ANA_BEN})
        board.wait_for("devetka/s1/state", lambda value: value == served)
    finally:
        board.close()
        table.close()


def test_a_bridge_refuses_a_venue_whose_certificate_its_ca_did_not_sign(tls_venue, tmp_path):
    table = start_table(tmp_path, "s2", tls_venue, tls_venue.logins["s2"], tls_venue.tls_port,
                        "--venue-tls-ca", str(tls_venue.pki / "stranger.crt"))
    try:
        deadline = time.monotonic() + TIMEOUT
        while "certificate verify failed" not in table.broker.log.read_text(errors="replace"):
            assert time.monotonic() < deadline, table.broker.log.read_text(errors="replace")
            time.sleep(0.05)
    finally:
        table.close()
