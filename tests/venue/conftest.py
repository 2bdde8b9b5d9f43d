"""The venue of the fault tests, made once for tests/venue: a venue broker and three tables bridged to it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.deploy.staging import install
from tests.venue.hall import Board, VenueBroker, start_table, venue_logins

TABLE_IDS = ("t1", "t2", "t3")  # tables that play
SPARE_IDS = ("t4", "t5", "c1")  # logins with no table behind them: the security tests', the control bridge's


@pytest.fixture(scope="package")
def venue(tmp_path_factory):
    """The staged venue broker running (``.root``, ``.logins``: table id -> its password)."""
    folder = tmp_path_factory.mktemp("venue")
    root = folder / "root"
    adds = [word for table_id in TABLE_IDS + SPARE_IDS for word in ("--venue-add-table", table_id)]
    run = install(root, "--venue-server", *adds)
    assert run.returncode == 0, run.stderr
    broker = VenueBroker(root, folder)
    broker.root, broker.logins = root, venue_logins(root)
    yield broker
    broker.close()


@pytest.fixture(scope="package")
def tables(tmp_path_factory, venue):
    """The three tables, each bridged and seen up (``1`` on its bridge topic) by the venue."""
    started = {}
    folders = {table_id: tmp_path_factory.mktemp(table_id) for table_id in TABLE_IDS}
    try:
        with ThreadPoolExecutor(len(TABLE_IDS)) as pool:  # their installs and starts overlap: a shorter suite
            futures = {table_id: pool.submit(start_table, folders[table_id], table_id, venue, venue.logins[table_id])
                       for table_id in TABLE_IDS}
        failed = [future.exception() for future in futures.values() if future.exception() is not None]
        started.update({table_id: future.result() for table_id, future in futures.items()
                        if future.exception() is None})  # the ones that did start are closed below, whatever failed
        if failed:
            raise failed[0]
        board = Board(venue)
        try:
            for table_id in TABLE_IDS:
                board.wait_for(f"devetka/{table_id}/bridge", lambda value: value == 1)
        finally:
            board.close()
        yield started
    finally:
        for table in started.values():
            table.close()


@pytest.fixture
def board(venue):
    """A board on the venue's WebSockets listener, subscribed to every table's state, events and bridge."""
    watching = Board(venue)
    yield watching
    watching.close()
