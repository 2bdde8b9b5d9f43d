"""Who may do what on the venue's broker (deploy/install.sh --venue-server), on the staged files run for real.

Mosquitto (MQTT 3.1.1) acknowledges a publish its ACL denies and drops it, so "denied" is shown by order, as in
tests/deploy/test_mosquitto.py: the denied publish is acknowledged first, an allowed one from the same connection
follows, and the board's first message must be the allowed one. The logins t4 and t5 have no table behind them."""

from __future__ import annotations

import orjson
import pytest

from tests.deploy.broker import Peer, refused
from tests.deploy.staging import credentials


@pytest.fixture
def peers(venue):
    """``peers(login)``: a client on the tables' listener as that table's login; ``peers(None)``: a browser, with no
    login, on the WebSockets listener; ``peers(None, reader=True)``: a reader with no login on the MQTT one."""
    made = []

    def connect(login: str | None, client_id: str | None = None, reader: bool = False) -> Peer:
        peer = Peer(login or "reader", transport="tcp" if login or reader else "websockets", client_id=client_id)
        made.append(peer)
        if login is None:
            reason = peer.connect(venue.readers_port if reader else venue.port)
        else:
            reason = peer.connect(venue.tables_port, login, venue.logins[login])
        assert not reason.is_failure, f"{login} could not connect: {reason}"
        return peer

    yield connect
    for peer in made:
        peer.close()


def test_an_anonymous_client_is_refused_on_the_tables_listener(venue):
    peer = Peer("anonymous")
    try:
        assert refused(peer.connect(venue.tables_port)), "an anonymous client got onto the tables' listener"
    finally:
        peer.close()


def test_a_wrong_password_is_refused(venue):
    peer = Peer("guess")
    try:
        assert refused(peer.connect(venue.tables_port, "t4", venue.logins["t4"] + "x"))
    finally:
        peer.close()


def test_a_table_cannot_publish_as_another_table(peers):
    board = peers(None)
    board.subscribe("devetka/t5/#")
    board.subscribe("devetka/t4/check")
    table = peers("t4")
    table.publish("devetka/t5/state", '{"forged": "by t4"}', retain=True)
    table.publish("devetka/t5/bridge", "1", retain=True)
    table.publish("devetka/t4/check", "t4 on its own topic")
    assert board.live() == ("devetka/t4/check", "t4 on its own topic")


@pytest.mark.parametrize("reader", [False, True], ids=["websockets", "mqtt"])
def test_a_browser_or_any_reader_cannot_publish_at_all(peers, reader):
    board = peers(None)
    board.subscribe("devetka/t4/#")
    browser = peers(None, reader=reader)
    browser.publish("devetka/t4/state", '{"forged": "by a browser"}', retain=True)
    browser.publish("devetka/t4/event", '{"forged": "by a browser"}')
    peers("t4").publish("devetka/t4/check", "t4")
    assert board.live() == ("devetka/t4/check", "t4")


def test_no_table_can_push_another_tables_bridge_off_with_its_client_id(peers, tables):
    """The login is the client id on the tables' listener: t4 calling itself t1's bridge is still t4."""
    board = peers(None)
    board.subscribe("devetka/t1/bridge")
    assert board.next() == ("devetka/t1/bridge", "1", True)
    impostor = peers("t4", client_id="devetka-bridge-t1")
    board.subscribe("devetka/t4/check")
    impostor.publish("devetka/t4/check", "t4 as devetka-bridge-t1")
    assert board.live() == ("devetka/t4/check", "t4 as devetka-bridge-t1")


def test_a_tables_own_listeners_serve_as_before_beside_the_bridge(tables):
    """The bridge is one more client inside the table's broker: a dashboard on the table's own venue-network
    listener (deploy.md, section 9) still reads the table's state with its login, and anonymous is still refused."""
    table = tables["t1"]
    dashboard, anonymous = Peer("dashboard"), Peer("anonymous")
    try:
        login = credentials(table.root)["dashboard"]
        assert not dashboard.connect(table.broker.venue_port, "dashboard", login).is_failure
        dashboard.subscribe("devetka/t1/state")
        topic, payload, retained_flag = dashboard.next()
        assert (topic, retained_flag, orjson.loads(payload)) == ("devetka/t1/state", True, table.state())
        assert refused(anonymous.connect(table.broker.venue_port))
    finally:
        dashboard.close()
        anonymous.close()


def test_the_installed_venue_serves_the_board_it_was_given(venue):
    """``install.sh --venue-server`` puts the board in place and the WebSockets listener serves it (http_dir)."""
    import re
    import urllib.request

    from tests.paths import REPO

    with urllib.request.urlopen(f"http://127.0.0.1:{venue.port}/", timeout=30) as page:
        served = page.read()
    assert served == (REPO / "scoreboard/venue/board/index.html").read_bytes()
    loads = re.findall(r'(?:src|href)="([^"?]+)"', served.decode())
    assert "vendor/mqtt.min.js" in loads and "i18n/hr.js" in loads and "event.js" in loads
    for name in loads:  # every script and stylesheet the page loads is installed and served as it is in the tree
        with urllib.request.urlopen(f"http://127.0.0.1:{venue.port}/{name}", timeout=30) as script:
            assert script.read() == (REPO / "scoreboard/venue/board" / name).read_bytes(), name
