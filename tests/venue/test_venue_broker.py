"""The venue broker's own choices (scoreboard/venue/bridge.py render_venue_broker), each against a control that
shows the test would see it missing: nothing kept on disk under Debian's ``persistence true``, and a table's login
as its client id, so a borrowed client id pushes no one off."""

from __future__ import annotations

import shutil

import pytest

from scoreboard.venue import bridge
from tests.deploy.broker import Peer
from tests.venue.hall import VenueBroker


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
        broker.stop()  # a clean stop: Mosquitto writes its database now, if it keeps one
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
        broker.stop()
