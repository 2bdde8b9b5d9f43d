"""Who may do what on the venue's box (deploy/install.sh --venue-server: the tables' Mosquitto and the readers'
nats-server it bridges to), on the staged files run for real.

Mosquitto (MQTT 3.1.1) acknowledges a publish its ACL denies and drops it, so "denied" is shown by order, as in
tests/deploy/test_mosquitto.py: the denied publish is acknowledged first, an allowed one from the same connection
follows, and the board's first message must be the allowed one. The logins t4 and t5 have no table behind them."""

from __future__ import annotations

import time

import orjson
import pytest

from scoreboard.venue import bridge
from tests.deploy.broker import Peer, refused
from tests.deploy.staging import credentials
from tests.venue.conftest import TABLE_IDS
from tests.venue.hall import Board
from tests.venue.test_faults import SHOT, begin, same_state


@pytest.fixture
def peers(venue):
    """``peers(login)``: a client on the tables' listener as that table's login; ``peers(None)``: a browser, with no
    login, on the readers' WebSocket; ``peers(None, reader=True)``: a reader with no login on their MQTT port."""
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


def guest_ids(table_ids) -> list[str]:
    """Every client id a guest can know of the tables' links: each login (its client id on the tables' listener),
    each bridge's name, and the name of the venue's own link to its readers' broker."""
    return ["devetka-readers-link", *(name for table_id in table_ids
                                      for name in (table_id, f"devetka-bridge-{table_id}"))]


def test_no_guest_on_any_venue_listener_disturbs_a_tables_link_by_borrowing_its_id(venue, tables):
    """Issue 29: guests on every listener of the venue's box, each with every id of each table's link they can know,
    while every table plays on. The board, on the readers' broker, sees no link of a table go down, nor the venue's
    own, and every table's new state arrives; the tables' Mosquitto pushed no client off."""
    board = Board(venue, topics=(*Board.TOPICS, bridge.VENUE_LINK_TOPIC))
    try:
        for table_id in TABLE_IDS:
            begin(tables[table_id], board)
        began = time.monotonic()
        logged = len(venue.log.read_text())  # the fault tests before may have made bridges connect again
        for where, port, transport in (("readers' MQTT", venue.readers_port, "tcp"),
                                       ("readers' WebSocket", venue.port, "websockets"),
                                       ("the page's listener", venue.page_port, "websockets"),
                                       ("the tables' listener", venue.tables_port, "tcp")):
            here = []
            for client_id in guest_ids(TABLE_IDS):
                guest = Peer("guest", transport=transport, client_id=client_id)
                here.append(guest)
                reason = guest.connect(port)
                # The readers' broker lets guests in (read only); the tables' Mosquitto lets none in anywhere.
                assert refused(reason) == where.startswith("the "), (where, client_id, reason)
            time.sleep(1.0)  # a link pushed off says 0 (its will) at once
            for guest in here:
                guest.close()
        for table_id in TABLE_IDS:
            tables[table_id].play(*SHOT)
            board.wait_for(f"devetka/{table_id}/state", same_state(tables[table_id]), since=began)
        links = {bridge.VENUE_LINK_TOPIC, *(f"devetka/{table_id}/bridge" for table_id in TABLE_IDS)}
        downs = [(topic, payload) for _, topic, payload, _ in board.arrivals  # c1, a fault test's control, is down
                 if topic in links and payload.strip() == b"0"]
        assert (bridge.VENUE_LINK_TOPIC, b"1") in [(topic, payload) for _, topic, payload, _ in board.arrivals]
        assert downs == [], f"a link went down while guests borrowed its id: {downs}"
        taken = [line for line in venue.log.read_text()[logged:].splitlines()
                 if "already connected, closing old" in line]
        assert taken == [], taken
    finally:
        board.close()


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
    """``install.sh --venue-server`` puts the board in place and the page's listener serves it (http_dir)."""
    import re
    import urllib.request

    from tests.paths import REPO

    with urllib.request.urlopen(f"http://127.0.0.1:{venue.page_port}/", timeout=30) as page:
        served = page.read()
    assert served == (REPO / "scoreboard/venue/board/index.html").read_bytes()
    loads = re.findall(r'(?:src|href)="([^"?]+)"', served.decode())
    assert "vendor/mqtt.min.js" in loads and "i18n/hr.js" in loads and "event.js" in loads
    for name in loads:  # every script and stylesheet the page loads is installed and served as it is in the tree
        with urllib.request.urlopen(f"http://127.0.0.1:{venue.page_port}/{name}", timeout=30) as script:
            assert script.read() == (REPO / "scoreboard/venue/board" / name).read_bytes(), name


def test_the_operator_logs_in_on_the_pages_listener_and_writes_only_the_directors_requests(venue, peers, tables):
    """Issue 32's operator's page on the installed venue: the page's listener lets the operator's login in (its
    password made by install.sh), as ``operator`` whatever client id it asks for, so it pushes no table's link off;
    of what it publishes only the director's requests pass, and it reads the director's answers."""
    board = peers(None)
    board.subscribe("devetka/t1/#")
    board.subscribe("devetka/director/request/#")
    logged = len(venue.log.read_text())
    operator = Peer("operator", transport="websockets", client_id="t1")  # t1's link id on the tables' listener
    password = (venue.root / "etc/devetka/venue-operator").read_text().strip()
    guess = Peer("guess", transport="websockets")
    try:
        assert refused(guess.connect(venue.page_port, bridge.OPERATOR_LOGIN, password + "x"))
        reason = operator.connect(venue.page_port, bridge.OPERATOR_LOGIN, password)
        assert not reason.is_failure, f"the operator could not log in on the page's listener: {reason}"
        operator.subscribe("devetka/director/answer/page1")
        operator.publish("devetka/t1/cmd", '{"forged": "a call by the operator"}')
        operator.publish("devetka/t1/state", '{"forged": "by the operator"}', retain=True)
        operator.publish("devetka/director/event/1", '{"forged": "by the operator"}', retain=True)
        operator.publish("devetka/director/request/page1", '{"cmd": "status", "id": 1}')
        assert board.live() == ("devetka/director/request/page1", '{"cmd": "status", "id": 1}')
        director = Peer("director")
        try:
            secret = (venue.root / "etc/devetka/venue-director").read_text().strip()
            assert not director.connect(venue.tables_port, bridge.DIRECTOR_LOGIN, secret).is_failure
            director.publish("devetka/director/answer/page1", '{"id": 1, "ok": true}')
        finally:
            director.close()
        assert operator.live() == ("devetka/director/answer/page1", '{"id": 1, "ok": true}')
        assert [line for line in venue.log.read_text()[logged:].splitlines()
                if "already connected, closing old" in line] == []
    finally:
        guess.close()
        operator.close()
