"""The venue broker's own choices (scoreboard/venue/bridge.py render_venue_broker), each against a control that
shows the test would see it missing: nothing kept on disk under Debian's ``persistence true``, and a table's login
as its client id, so a borrowed client id pushes no one off; and a table added to a running venue."""

from __future__ import annotations

import shutil
import signal
import time

import pytest

from scoreboard.venue import bridge
from tests.deploy.broker import Peer, refused
from tests.deploy.staging import install
from tests.live import TIMEOUT
from tests.venue.hall import VenueBroker, venue_logins


def variant(venue, tmp_path, drop: str):
    """A copy of the staged venue with one line of its broker config dropped (the control), run."""
    root = tmp_path / "root"
    shutil.copytree(venue.root, root, symlinks=True)
    config = root / bridge.VENUE_BROKER_FILE.lstrip("/")
    text = config.read_text()
    if drop:
        assert f"\n{drop}\n" in text
        config.write_text(text.replace(f"\n{drop}\n", "\n"))
    return VenueBroker(root, tmp_path)


@pytest.mark.parametrize("drop", ["", "persistence false"], ids=["shipped", "control"])
def test_the_venue_keeps_nothing_on_disk_under_debians_persistence_true(venue, tmp_path, drop):
    """Debian's mosquitto.conf says ``persistence true`` before conf.d; the venue's file must win, or a venue
    broker back from a crash would show a table dead meanwhile as ``1`` on its bridge topic."""
    broker = variant(venue, tmp_path, drop)
    table = Peer("t4")
    try:
        assert not table.connect(broker.tables_port, "t4", venue.logins["t4"]).is_failure
        table.publish("devetka/t4/bridge", "1", retain=True)
    finally:
        table.close()
        broker.close()  # a clean stop: Mosquitto writes its database now, if it keeps one
    assert (tmp_path / "mosquitto.db").exists() == bool(drop)


@pytest.mark.parametrize("drop", ["", "use_username_as_clientid true"], ids=["shipped", "control"])
def test_a_borrowed_client_id_pushes_no_table_off(venue, tmp_path, drop):
    """t5 connected with a last will; t4 connects with t5's client id. Mosquitto ends an older connection with the
    same client id (its will then goes out): only the control, without the login as client id, does so."""
    broker = variant(venue, tmp_path, drop)
    board, first, second = Peer("board", transport="websockets"), Peer("t5", client_id="shared"), \
        Peer("t4", client_id="shared")
    try:
        assert not board.connect(broker.port).is_failure
        board.subscribe("devetka/+/check")
        first.client.will_set("devetka/t5/check", "t5 pushed off", qos=1)
        assert not first.connect(broker.tables_port, "t5", venue.logins["t5"]).is_failure
        first.client.reconnect_delay_set(60, 60)  # pushed off, it stays off: no tug of war during the test
        assert not second.connect(broker.tables_port, "t4", venue.logins["t4"]).is_failure
        second.publish("devetka/t4/check", "t4 connected")
        heard = {board.live()[1] for _ in range(2 if drop else 1)}
        assert ("t5 pushed off" in heard) == bool(drop), heard
    finally:
        for peer in (board, first, second):
            peer.close()
        broker.close()


def test_a_table_added_later_logs_in_after_a_reload_and_the_others_stay_connected(venue, tmp_path):
    """install.sh --venue-add-table on a running venue only reloads Mosquitto (SIGHUP: password file and ACLs read
    again, per listener): the new table's login works and a bridge already there is not dropped."""
    broker = variant(venue, tmp_path, "")
    board, there = Peer("board", transport="websockets"), Peer("t5")
    try:
        assert not board.connect(broker.port).is_failure
        board.subscribe("devetka/+/check")
        there.client.will_set("devetka/t5/check", "t5 dropped", qos=1)
        assert not there.connect(broker.tables_port, "t5", venue.logins["t5"]).is_failure
        there.client.reconnect_delay_set(60, 60)
        run = install(tmp_path / "root", "--venue-add-table", "t6")
        assert run.returncode == 0, run.stderr
        steps = run.stdout.splitlines()  # the venue's broker reloaded, not restarted; then the director restarted
        assert "would run: systemctl reload-or-restart mosquitto.service" in steps
        assert "would run: systemctl restart mosquitto.service" not in steps
        broker.process.send_signal(signal.SIGHUP)  # what Debian's unit does on reload
        new = Peer("t6")
        try:
            deadline = time.monotonic() + TIMEOUT  # the reload is read at the broker's next loop
            while refused(new.connect(broker.tables_port, "t6", venue_logins(tmp_path / "root")["t6"])):
                new.close()
                assert time.monotonic() < deadline, "t6 was never let in after the reload"
                time.sleep(0.1)
                new = Peer("t6")
            new.publish("devetka/t6/check", "t6 in")
            assert board.live() == ("devetka/t6/check", "t6 in")
        finally:
            new.close()
        there.publish("devetka/t5/check", "t5 still here")
        assert board.live() == ("devetka/t5/check", "t5 still here")
    finally:
        for peer in (board, there):
            peer.close()
        broker.close()


@pytest.mark.parametrize("anonymous", [False, True], ids=["shipped", "control"])
def test_a_guest_on_the_page_listener_pushes_no_table_off(venue, tmp_path, anonymous):
    """Issue 29: client ids are shared by every listener of a broker. The page's listener lets no one in but the
    operator (whose login is its client id), so a guest there with a table's id (its login) is refused; the
    control lets anonymous clients in there, as the readers'
    listeners of this broker did before, and the guest pushes the table off (its will goes out)."""
    root = tmp_path / "root"
    shutil.copytree(venue.root, root, symlinks=True)
    config = root / bridge.VENUE_BROKER_FILE.lstrip("/")
    shipped = "protocol websockets\nallow_anonymous false\nuse_username_as_clientid true\n"
    assert shipped in config.read_text()
    if anonymous:  # as before issue 29: anonymous clients in, each with the client id it asks for
        config.write_text(config.read_text().replace(shipped, "protocol websockets\nallow_anonymous true\n"))
    broker = VenueBroker(root, tmp_path)
    board, table, guest = Peer("board", transport="websockets"), Peer("t5"), Peer("guest", transport="websockets",
                                                                               client_id="t5")
    try:
        assert not board.connect(broker.port).is_failure  # the readers' WebSocket
        board.subscribe("devetka/+/check")
        table.client.will_set("devetka/t5/check", "t5 pushed off", qos=1)
        assert not table.connect(broker.tables_port, "t5", venue.logins["t5"]).is_failure
        table.client.reconnect_delay_set(60, 60)  # pushed off, it stays off
        assert refused(guest.connect(broker.page_port)) != anonymous
        if anonymous:
            assert board.live() == ("devetka/t5/check", "t5 pushed off")
        else:
            table.publish("devetka/t5/check", "t5 still here")
            assert board.live() == ("devetka/t5/check", "t5 still here")
    finally:
        for peer in (board, table, guest):
            peer.close()
        broker.close()


@pytest.mark.parametrize("drop", ["", "upgrade_outgoing_qos true"], ids=["shipped", "control"])
def test_the_readers_broker_acknowledges_every_message_of_the_link_even_a_qos_0_state(venue, tmp_path, drop):
    """The venue's bridge socket keeps Nagle's algorithm (Mosquitto 2.0.11 sets TCP_NODELAY only on sockets it
    accepts): a message the readers' broker does not answer held the next one on the link back until its delayed
    ACK, up to 40 ms. Sent at QoS 1, each is answered (PUBACK) at once; a reader subscribed at QoS 1 on the readers'
    broker gets a table's QoS 0 state at the QoS the link sent it with. The control sends it on at QoS 0."""
    broker = variant(venue, tmp_path, drop)
    reader, table = Peer("reader"), Peer("t4")
    got: list[tuple[str, int]] = []
    try:
        assert not reader.connect(broker.readers_port).is_failure
        reader.client.on_message = lambda client, userdata, message: got.append((message.topic, message.qos))
        reader.subscribe("devetka/+/state")
        assert not table.connect(broker.tables_port, "t4", venue.logins["t4"]).is_failure
        deadline = time.monotonic() + TIMEOUT
        while not got and time.monotonic() < deadline:  # the link may still be connecting: sent until one arrives
            table.client.publish("devetka/t4/state", '{"seq": 1}', qos=0).wait_for_publish(TIMEOUT)
            time.sleep(0.2)
        assert got, "no state crossed the link"
        assert got[0] == ("devetka/t4/state", 0 if drop else 1)
    finally:
        for peer in (reader, table):
            peer.close()
        broker.close()
