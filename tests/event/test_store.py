"""The event store (scoreboard/event/store.py): SQLite, WAL and FULL, a record committed before it is answered,
a refused record writing nothing, and nothing acknowledged lost to SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from scoreboard.event.core.records import Draw, EventError, Result
from scoreboard.event.store import EventStore, EventStoreError

SPEC = {"name": "Friday", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"], "race": 3}
NOW = "2026-12-01T20:00:00+00:00"


def test_the_store_is_wal_and_full(tmp_path):
    with EventStore.open(tmp_path / "director.sqlite3", now=lambda: NOW) as store:
        assert store.pragma("journal_mode") == "wal"
        assert store.pragma("synchronous") == 2  # FULL
        assert len(store.id) == 12


def test_a_refused_record_writes_nothing(tmp_path):
    with EventStore.open(tmp_path / "director.sqlite3", now=lambda: NOW) as store:
        event_id = store.create(SPEC)
        store.take(event_id, Draw(tuple(SPEC["players"])))
        with pytest.raises(EventError):
            store.take(event_id, Result("W1-1", (3, 3)))
        with pytest.raises(EventError):
            store.create({**SPEC, "format": "triple"})
        assert len(store.records(event_id)) == 2 and store.events() == [(1, "Friday", NOW)]


def test_a_second_writer_sees_the_first_so_a_result_counts_once(tmp_path):
    path = tmp_path / "director.sqlite3"
    first, second = EventStore.open(path, now=lambda: NOW), EventStore.open(path, now=lambda: NOW)
    event_id = first.create(SPEC)
    first.take(event_id, Draw(tuple(SPEC["players"])))
    assert first.take(event_id, Result("W1-1", (3, 1), "a1b2c3", 9))
    assert not second.take(event_id, Result("W1-1", (3, 1), "a1b2c3", 9))
    assert len(second.records(event_id)) == 3
    first.close()
    second.close()


def test_a_table_store_or_a_foreign_file_is_not_taken_for_an_event_store(tmp_path):
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE matches (id INTEGER)")
    with pytest.raises(EventStoreError) as error:
        EventStore.open(other, now=lambda: NOW)
    assert "is not a sound event store: not a Devetka event store" in str(error.value)
    with pytest.raises(EventStoreError):
        EventStore.open_readonly(tmp_path / "none.sqlite3")


WRITER = textwrap.dedent("""
    import sys
    from scoreboard.event.core.records import Draw, Result
    from scoreboard.event.store import EventStore
    players = tuple(f"P{i}" for i in range(64))
    store = EventStore.open(sys.argv[1], now=lambda: "2026-12-01T20:00:00+00:00")
    event_id = store.create({"name": "Big", "format": "single", "players": list(players), "race": 1})
    store.take(event_id, Draw(players))
    for i in range(32):
        store.take(event_id, Result(f"W1-{i + 1}", (1, 0), "a1b2c3", i))
        print(i, flush=True)
""")


def test_every_acknowledged_record_survives_sigkill(tmp_path):
    path = tmp_path / "director.sqlite3"
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    for line in child.stdout:
        acknowledged = int(line)
        if acknowledged == 10:
            os.kill(child.pid, signal.SIGKILL)
            break
    child.wait()
    child.stdout.close()
    with EventStore.open(path, now=lambda: NOW) as store:
        event = store.event(1)
        done = [m.id for m in event.matches() if m.status == "done"]
        assert len(done) >= acknowledged + 1
        assert done == [f"W1-{i + 1}" for i in range(len(done))]
        next_one = len(done)
        assert store.take(1, Result(f"W1-{next_one + 1}", (1, 0), "a1b2c3", next_one)) if next_one < 32 else True
