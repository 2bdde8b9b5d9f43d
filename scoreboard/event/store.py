"""The event store: every event's log in SQLite, a record committed before it is answered (docs/events.md).

Like a table's store (``scoreboard.referee.store``): WAL with ``synchronous=FULL``, so a commit survives a
crash or a power cut. A record is taken inside one write transaction: the event is folded from what is
stored, the record applied to it (that is the check), then written and committed; a refused record
writes nothing. Two writers at once are serialized by SQLite's write lock and each sees the other's records,
so a result sent twice counts once even then.

>>> import tempfile
>>> from scoreboard.event.core.records import Draw, Result
>>> store = EventStore.open(tempfile.mkdtemp() + "/director.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00")
>>> event_id = store.create({"name": "Friday", "format": "single", "players": ["Ana", "Ben"], "race": 3})
>>> store.take(event_id, Draw(("Ana", "Ben")))
True
>>> store.take(event_id, Result("W1-1", (3, 1), "a1b2c3", 7)), store.take(event_id, Result("W1-1", (3, 1), "a1b2c3", 7))
(True, False)
>>> store.event(event_id).champion(), len(store.records(event_id))
('Ana', 3)
>>> store.close()
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from scoreboard.core.messages import Message, msg
from scoreboard.event.core.fold import FOLD_VERSION, Event
from scoreboard.event.core.records import Created, EventError, Record, parse, to_json

SCHEMA_VERSION = 1
"""1: the first event store: ``events`` (one row an event), ``records`` (its log), ``store_info`` (the id)."""
#: SQLite's ``application_id`` for an event store, so a table's store (or any other file) is never taken for one.
APPLICATION_ID = 0x44565445  # "DVTE"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    event_id INTEGER NOT NULL REFERENCES events(id),
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (event_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_info (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class EventStoreError(Exception):
    """The store cannot do what was asked; ``message`` in any language."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


class EventStore:
    """Every event on one SQLite file."""

    def __init__(self, connection: sqlite3.Connection, path: Path, now: Callable[[], datetime | str] | None) -> None:
        self._db = connection
        self.path = path
        self._now = now

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, now: Callable[[], datetime | str] | None = None) -> EventStore:
        path = Path(path)
        try:
            connection = sqlite3.connect(path, isolation_level=None)
        except sqlite3.Error as error:
            raise EventStoreError(msg("cannot open the event store {path}: {error}", path=str(path),
                                      error=str(error))) from None
        try:
            _check(connection, path, create=True)
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise EventStoreError(msg("SQLite would not use WAL on {path} (journal mode {mode})", path=str(path),
                                          mode=str(mode)))
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            connection.executescript(f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version={SCHEMA_VERSION};"
                                     f"PRAGMA application_id={APPLICATION_ID};COMMIT;")
            connection.execute("INSERT OR IGNORE INTO store_info (key, value) VALUES ('id', ?)",
                               (secrets.token_hex(6),))
        except sqlite3.Error as error:
            connection.close()
            raise EventStoreError(msg("cannot open the event store {path}: {error}", path=str(path),
                                      error=str(error))) from None
        except BaseException:
            connection.close()
            raise
        return cls(connection, path, now)

    @classmethod
    def open_readonly(cls, path: str | os.PathLike[str]) -> EventStore:
        """Only to read (export, status beside a writer): nothing is created."""
        path = Path(path)
        if not path.is_file():
            raise EventStoreError(msg("no event store at {path}", path=str(path)))
        try:
            connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
            _check(connection, path, create=False)
        except sqlite3.Error as error:
            raise EventStoreError(msg("cannot read the event store {path}: {error}", path=str(path),
                                      error=str(error))) from None
        return cls(connection, path, None)

    def create(self, spec: dict[str, Any]) -> int:
        """A new event from its file's table (checked by the fold's own check); committed on return."""
        if self._now is None:
            raise EventStoreError(msg("the event store was opened read-only"))
        checked = Event(Created(spec, FOLD_VERSION))  # the check: an EventError leaves the store as it was
        record = Created(checked.spec.to_json(), FOLD_VERSION)
        now = self._now()
        created = now.isoformat() if isinstance(now, datetime) else str(now)
        with self._transaction():
            cursor = self._db.execute("INSERT INTO events (created, name) VALUES (?, ?)",
                                      (created, str(record.spec["name"])))
            event_id = cursor.lastrowid
            assert event_id is not None
            self._db.execute("INSERT INTO records (event_id, seq, record) VALUES (?, 0, ?)",
                             (event_id, _dumps(to_json(record))))
        return event_id

    def take(self, event_id: int, record: Record) -> bool:
        """Apply ``record`` to the event as stored and commit it; False for a result already counted (nothing
        written). ``EventError`` (the event's refusal) and ``EventStoreError`` leave the store as it was."""
        with self._transaction():
            event = Event.fold(self.records(event_id))
            if not event.apply(record):
                return False
            seq = self._db.execute("SELECT MAX(seq) FROM records WHERE event_id = ?", (event_id,)).fetchone()[0] + 1
            self._db.execute("INSERT INTO records (event_id, seq, record) VALUES (?, ?, ?)",
                             (event_id, seq, _dumps(to_json(record))))
        return True

    def records(self, event_id: int) -> list[Record]:
        rows = self._db.execute("SELECT seq, record FROM records WHERE event_id = ? ORDER BY seq",
                                (event_id,)).fetchall()
        if not rows:
            raise EventStoreError(msg("no event {event} in the store", event=event_id))
        out = []
        for seq, text in rows:
            try:
                out.append(parse(orjson.loads(text)))
            except (EventError, orjson.JSONDecodeError) as error:
                problem: Message | str = error.message if isinstance(error, EventError) else str(error)
                raise EventStoreError(msg("event {event} record {seq} cannot be read: {error}", event=event_id,
                                          seq=seq, error=problem)) from None
        return out

    def event(self, event_id: int) -> Event:
        """The event folded from its stored log."""
        try:
            return Event.fold(self.records(event_id))
        except EventError as error:
            raise EventStoreError(msg("event {event} does not fold: {error}", event=event_id,
                                      error=error.message)) from None

    def latest(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM events").fetchone()
        return None if row[0] is None else int(row[0])

    def events(self) -> list[tuple[int, str, str]]:
        """(id, name, created) of every event, oldest first."""
        return [(int(i), str(n), str(c)) for i, c, n in
                self._db.execute("SELECT id, created, name FROM events ORDER BY id")]

    @property
    def id(self) -> str | None:
        row = self._db.execute("SELECT value FROM store_info WHERE key = 'id'").fetchone()
        return None if row is None else str(row[0])

    def pragma(self, name: str) -> Any:
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("COMMIT")
        except BaseException as error:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(error, sqlite3.Error):
                raise EventStoreError(msg("the event store {path} could not be written: {error}",
                                          path=str(self.path), error=str(error))) from None
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _check(connection: sqlite3.Connection, path: Path, *, create: bool) -> None:
    """Refuse a file that is not an event store (a table's store, another program's database) or is damaged."""
    try:
        result = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
        app = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    except sqlite3.DatabaseError as error:
        connection.close()
        raise EventStoreError(msg("{path} is not a sound event store: {error}", path=str(path),
                                  error=str(error))) from None
    problem = None
    if result != ["ok"]:
        problem = "integrity check: " + "; ".join(result[:3])
    elif app == APPLICATION_ID and version > SCHEMA_VERSION:
        problem = f"written by a later release (schema {version}; this release reads {SCHEMA_VERSION})"
    elif app != APPLICATION_ID and (tables - {"sqlite_sequence"} or not create):
        problem = "not a Devetka event store"
    if problem is not None:
        connection.close()
        raise EventStoreError(msg("{path} is not a sound event store: {error}", path=str(path), error=problem))
