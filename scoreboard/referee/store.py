"""The store: every applied input of every match, in SQLite, durable at each commit.

The state is always the fold of the log, so the store keeps only the log: one
row per applied input (its match-log JSON), numbered per match, and a row per
match for the listing. WAL with ``synchronous=FULL``: a commit survives a
crash or a power cut (with NORMAL the last commits can vanish). ``append``
returns only after its commit, so an input is acknowledged only once it is
safe. At open the file is checked; a corrupt one is moved aside and a fresh
store begun, and the store says so (``moved_aside``) instead of raising: the
daemon under the table must never crash-loop on a bad file.

The store takes no clock: the caller passes ``now``, which gives the
wall-clock time a match starts.

>>> import tempfile, datetime
>>> from scoreboard.core.inputs import MatchStart, Strike
>>> folder = tempfile.mkdtemp()
>>> clock = lambda: datetime.datetime(2026, 11, 29, 20, 0, tzinfo=datetime.timezone.utc)
>>> store = Store.open(folder + "/devetka.db", now=clock)
>>> match_id = store.start_match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> store.append(match_id, Strike(t=1.5))
1
>>> store.current_match() == (match_id, store.log(match_id))
True
>>> store.log(match_id)[1]
Strike(t=1.5, src=None)
>>> store.matches()[0].to_json()["started"], store.matches()[0].winner
('2026-11-29T20:00:00+00:00', None)
>>> store.close()
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from scoreboard.core.inputs import Input, InputError, MatchStart, to_json
from scoreboard.core.match import Match
from scoreboard.core.messages import Message, msg
from scoreboard.core.rules import RULES_VERSION, RuleError
from scoreboard.matchlog.jsonl import parse_line

SCHEMA_VERSION = 2
"""2 (this release): ``store_info`` gives each store a lasting id, and each match records the rules version it is
refereed under. 1: the release before; opened read-write, a version-1 store is migrated in place (its matches
were all played under rules version 1)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    players TEXT NOT NULL,
    race TEXT NOT NULL,
    table_id TEXT,
    rules_version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS store_info (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS inputs (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    input TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
"""

_CORRUPT_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class StoreError(Exception):
    """The store cannot do what was asked (no such match, no store file, a bad file read-only): ``str(error)`` in
    English, ``render(error.message, catalog)`` in the players' language."""

    def __init__(self, message: Message | str) -> None:
        super().__init__(str(message))
        self.message = message


class WriteError(StoreError):
    """SQLite could not write the store; ``disk_full`` when the disk holding it has no room left.

    >>> str(WriteError(Path("/var/lib/devetka/devetka.sqlite3"), sqlite3.OperationalError("database or disk is full")))
    'the disk holding the store /var/lib/devetka/devetka.sqlite3 is full (database or disk is full)'
    """

    def __init__(self, path: Path, error: sqlite3.Error) -> None:
        code = getattr(error, "sqlite_errorcode", None)
        self.disk_full = code == sqlite3.SQLITE_FULL or (code is None and "disk is full" in str(error))
        if self.disk_full:
            message = msg("the disk holding the store {path} is full ({error})", path=str(path), error=str(error))
        elif code is not None and code & 0xFF == sqlite3.SQLITE_READONLY:
            message = msg("the store {path} cannot be written: it is read-only ({error})", path=str(path),
                          error=str(error))
        else:
            message = msg("the store {path} could not be written: {error}", path=str(path), error=str(error))
        super().__init__(message)


class _Corrupt(Exception):
    """The file is not a sound Devetka store; the message says why."""


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One stored match for the listing; score and winner are the fold of its log, as replay shows it.

    >>> MatchSummary(1, "2026-11-29T20:00:00+00:00", ("Ana", "Ben"), (3, 3), None, (1, 0), None, 12).to_json()["score"]
    [1, 0]
    """

    id: int
    started: str
    players: tuple[str, str]
    race: tuple[int, int]
    table: str | None
    score: tuple[int, int] | None
    winner: int | None
    inputs: int
    error: str | None = None
    rules_version: int = 1
    """The rules the match is refereed under for good (``devetka replay --rules-version`` replays its export so)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "started": self.started, "players": list(self.players), "race": list(self.race),
            "table": self.table, "score": list(self.score) if self.score is not None else None,
            "winner": self.winner, "inputs": self.inputs, "rules_version": self.rules_version,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


class Store:
    """The match log of every match on one SQLite file; the daemon is its only writer.

    >>> import tempfile
    >>> store = Store.open(tempfile.mkdtemp() + "/new.db")
    >>> store.moved_aside is None, store.current_match(), store.matches()
    (True, None, [])
    >>> store.close()
    """

    def __init__(self, connection: sqlite3.Connection, path: Path, now: Callable[[], datetime | str] | None,
                 moved_aside: Path | None = None, problem: str | None = None) -> None:
        self._db = connection
        self.path = path
        self._now = now
        self.moved_aside = moved_aside
        """Where a corrupt file found at open was moved (None when the file was sound)."""
        self.problem = problem
        """What was wrong with that file."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, now: Callable[[], datetime | str] | None = None) -> Store:
        """Open or create the store; a corrupt or foreign file is moved aside and a new store begun.

        The check reads the file read-only, so a corrupt file goes aside as it was
        found, its WAL with it (a read-write close would checkpoint into it first).
        """
        path = Path(path)
        aside = problem = None
        if path.exists():
            problem = _inspect(path)
            if problem is not None:
                aside = _move_aside(path)
        try:
            try:
                connection = _connect(path)
            except _Corrupt as error:  # e.g. a stray WAL with no file of its own: set it aside too, once
                problem = str(error) if problem is None else problem
                aside = _move_aside(path) if aside is None else aside
                connection = _connect(path)
        except sqlite3.Error as error:  # sound but not writable here (a read-only disk, a locked file)
            raise StoreError(_unwritable(path, error)) from None
        return cls(connection, path, now, moved_aside=aside, problem=problem)

    @classmethod
    def open_readonly(cls, path: str | os.PathLike[str]) -> Store:
        """Open an existing store only to read it (export, listing): nothing is created or moved."""
        path = Path(path)
        if not path.is_file():
            raise StoreError(msg("no store at {path}", path=str(path)))
        connection = _connect_readonly(path)
        try:
            _check(connection, create=False)
        except (_Corrupt, sqlite3.Error) as error:
            connection.close()
            if isinstance(error, _Corrupt) or _is_corrupt(error):
                raise StoreError(msg("{path} is not a sound Devetka store: {error}", path=str(path),
                                     error=str(error))) from None
            raise StoreError(msg("cannot read the store {path}: {error}", path=str(path), error=str(error))) from None
        return cls(connection, path, None)

    def start_match(self, match_start: MatchStart, *, call: dict[str, Any] | None = None) -> int:
        """Begin a new match (it becomes the current one) and return its id; committed on return. ``call``: the
        venue director's call it is begun from, kept whole in the same transaction (``call_begun``)."""
        if not isinstance(match_start, MatchStart):
            raise StoreError("a match begins with match_start")
        if self._now is None:
            raise StoreError("the store was opened with no clock (now): it cannot date a new match")
        started = self._now()
        started = started.isoformat() if isinstance(started, datetime) else str(started)
        db = self._db
        with self._transaction():
            cursor = db.execute(
                "INSERT INTO matches (started, players, race, table_id, rules_version) VALUES (?, ?, ?, ?, ?)",
                (started, _dumps(list(match_start.players)), _dumps(list(match_start.race)), match_start.table,
                 RULES_VERSION))
            match_id = cursor.lastrowid
            assert match_id is not None, "an INSERT's cursor has the row's id"
            db.execute("INSERT INTO inputs (match_id, seq, input) VALUES (?, 0, ?)",
                       (match_id, _dumps(to_json(match_start))))
            db.execute("DELETE FROM store_info WHERE key = 'current'")  # the latest is the current one again
            if call is not None:
                db.execute("INSERT OR REPLACE INTO store_info (key, value) VALUES ('call_begun', ?)",
                           (_dumps({"match": match_id, "call": call}),))
        return match_id

    def call_begun(self, match_id: int) -> dict[str, Any] | None:
        """The director's call ``match_id`` was begun from, whole (its ``next`` says where its players go), when it
        is the last called match begun here; None otherwise. Kept so a restarted daemon still says where next."""
        try:
            row = self._db.execute("SELECT value FROM store_info WHERE key = 'call_begun'").fetchone()
        except sqlite3.OperationalError:  # a version-1 store read as it is: it has no store_info
            return None
        if row is None:
            return None
        kept = orjson.loads(row[0])
        return kept["call"] if isinstance(kept, dict) and kept.get("match") == match_id else None

    def resume_match(self, match_id: int) -> None:
        """Make a stored match the current one again (one left unfinished when another was begun); committed on
        return, so a restarted daemon plays on with it."""
        if self.started(match_id) is None:
            raise StoreError(msg("no match {match} in the store", match=match_id))
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO store_info (key, value) VALUES ('current', ?)", (str(match_id),))

    def append(self, match_id: int, item: Input) -> int:
        """Store one applied input and commit before returning its sequence number: then it is accepted.

        Only inputs the match applied belong here (undo included); a rejected one
        would stop the fold when the match is resumed.
        """
        if isinstance(item, MatchStart):
            raise StoreError("a match_start begins a new match: use start_match")
        text = _dumps(to_json(item))
        db = self._db
        with self._transaction():
            row = db.execute("SELECT MAX(seq) FROM inputs WHERE match_id = ?", (match_id,)).fetchone()
            if row[0] is None:
                raise StoreError(msg("no match {match} in the store", match=match_id))
            seq = int(row[0]) + 1
            db.execute("INSERT INTO inputs (match_id, seq, input) VALUES (?, ?, ?)", (match_id, seq, text))
        return seq

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write, committed or rolled back whole; SQLite's failure said as ``WriteError``, naming the store.

        A full disk makes SQLite roll back by itself, and a ROLLBACK then would hide why (it fails with
        "no transaction is active"), so it is sent only while a transaction is open.
        """
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
                    pass  # the first error is the one to say; SQLite has given the transaction up anyway
            if isinstance(error, sqlite3.Error):
                raise WriteError(self.path, error) from None
            raise

    @property
    def id(self) -> str | None:
        """The store's lasting id (None in a version-1 store opened read-only: it was never given one)."""
        try:
            row = self._db.execute("SELECT value FROM store_info WHERE key = 'id'").fetchone()
        except sqlite3.OperationalError:
            return None
        return row[0] if row else None

    def started(self, match_id: int) -> str | None:
        """When the match was begun (UTC, ISO 8601, as ``matches`` lists it); None for no such match."""
        row = self._db.execute("SELECT started FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else str(row[0])

    def rules_version(self, match_id: int) -> int:
        """The rules version the match was begun under, and is refereed under for good."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(matches)")}
        if "rules_version" not in columns:
            return 1
        row = self._db.execute("SELECT rules_version FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise StoreError(msg("no match {match} in the store", match=match_id))
        return int(row[0])

    def current_match(self) -> tuple[int, list[Input]] | None:
        """The current match and its log (``match_start`` first): the latest, unless an older one was resumed since
        (``resume_match``); None in an empty store."""
        try:
            resumed = self._db.execute("SELECT value FROM store_info WHERE key = 'current'").fetchone()
        except sqlite3.OperationalError:  # a version-1 store read as it is: it has no store_info
            resumed = None
        row = (int(resumed[0]),) if resumed else self._db.execute("SELECT MAX(id) FROM matches").fetchone()
        if row[0] is None:
            return None
        return row[0], self.log(row[0])

    def log(self, match_id: int) -> list[Input]:
        """The match's applied inputs in the order they were stored, ``match_start`` first."""
        rows = self._db.execute(
            "SELECT input FROM inputs WHERE match_id = ? ORDER BY seq", (match_id,)).fetchall()
        if not rows:
            raise StoreError(msg("no match {match} in the store", match=match_id))
        try:
            return [parse_line(text) for (text,) in rows]
        except InputError as error:
            raise StoreError(msg("match {match} holds an input that does not parse: {error}", match=match_id,
                                 error=error.message)) from None

    def player_names(self, limit: int = 8) -> list[str]:
        """Names that played here, the most recent first, each once: the setup screen offers them."""
        names: list[str] = []
        for (players,) in self._db.execute("SELECT players FROM matches ORDER BY id DESC LIMIT 200"):
            for name in orjson.loads(players):
                if name not in names:
                    names.append(name)
            if len(names) >= limit:
                break
        return names[:limit]

    def matches(self, since: str | None = None) -> list[MatchSummary]:
        """Every stored match, oldest first, or those begun at or after ``since`` (UTC, ISO 8601, as ``started``);
        score and winner folded from each log."""
        where, args = ("WHERE m.started >= ? ", (since,)) if since is not None else ("", ())
        rows = self._db.execute(
            "SELECT m.id, m.started, m.players, m.race, m.table_id, COUNT(i.seq) FROM matches m "
            f"LEFT JOIN inputs i ON i.match_id = m.id {where}GROUP BY m.id ORDER BY m.id", args).fetchall()
        return [self._summary(*row) for row in rows]

    def match(self, match_id: int | None = None) -> MatchSummary | None:
        """One stored match as ``matches`` lists it (the latest when ``match_id`` is None); None if there is none."""
        where, args = ("WHERE m.id = ? ", (match_id,)) if match_id is not None else (
            "WHERE m.id = (SELECT MAX(id) FROM matches) ", ())
        row = self._db.execute(
            "SELECT m.id, m.started, m.players, m.race, m.table_id, COUNT(i.seq) FROM matches m "
            f"LEFT JOIN inputs i ON i.match_id = m.id {where}GROUP BY m.id", args).fetchone()
        return None if row is None else self._summary(*row)

    def now(self) -> datetime:
        """The store's clock, the one that dates each match (UTC); a read-only store has none."""
        if self._now is None:
            raise StoreError("the store was opened with no clock (now)")
        now = self._now()
        return now if isinstance(now, datetime) else datetime.fromisoformat(now)

    def _summary(self, match_id: int, started: str, players: str, race: str, table: str | None,
                 count: int) -> MatchSummary:
        score = winner = error = None
        rules_version = self.rules_version(match_id)
        try:
            state = Match.resume(self.log(match_id), rules_version).closed().state
            score, winner = state.table.score, state.table.match_winner
        except (StoreError, RuleError) as problem:
            error = f"the log does not fold: {problem}"
        players_, race_ = orjson.loads(players), orjson.loads(race)
        return MatchSummary(match_id, started, (players_[0], players_[1]), (race_[0], race_[1]), table,
                            score, winner, count, error, rules_version)

    def pragma(self, name: str) -> Any:
        """A PRAGMA's value as SQLite reports it (tests check journal_mode and synchronous)."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _connect_readonly(path: Path) -> sqlite3.Connection:
    try:
        return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(msg("cannot open the store {path}: {error}", path=str(path), error=str(error))) from None


def _inspect(path: Path) -> str | None:
    """What is wrong with the file, read-only; None when it is a sound store or a new, empty database."""
    connection = _connect_readonly(path)
    try:
        _check(connection, create=True)
    except _Corrupt as error:
        return str(error)
    except sqlite3.Error as error:
        if _is_corrupt(error):
            return str(error)
        raise StoreError(msg("cannot check the store {path}: {error}", path=str(path), error=str(error))) from None
    finally:
        connection.close()
    return None


def _is_corrupt(error: sqlite3.Error) -> bool:
    """SQLite says the file is damaged or no database; a locked or unreadable file is not corrupt."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in _CORRUPT_CODES


def _connect(path: Path) -> sqlite3.Connection:
    """Open read-write, check the file, set WAL and FULL, create the schema; ``_Corrupt`` if the file is bad."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        _check(connection, create=True)
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(msg("SQLite would not use WAL on {path} (journal mode {mode})", path=str(path), mode=mode))
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA foreign_keys=ON")
        _migrate(connection)
        connection.executescript(f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
        connection.execute("INSERT OR IGNORE INTO store_info (key, value) VALUES ('id', ?)", (_new_store_id(),))
    except sqlite3.DatabaseError as error:
        connection.close()
        if _is_corrupt(error):
            raise _Corrupt(str(error)) from None
        raise
    except BaseException:
        connection.close()
        raise
    return connection


def _unwritable(path: Path, error: sqlite3.Error) -> Message | str:
    """Why a sound store cannot be opened for writing, in words: the filesystem, the file's rights, or SQLite's."""
    try:
        read_only = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        return msg("the filesystem holding it ({folder}) is mounted read-only ({error})", folder=str(path.parent),
                   error=str(error))
    if path.exists() and not os.access(path, os.W_OK):
        return msg("the file is not writable by this user ({error})", error=str(error))
    return str(error)


def _new_store_id() -> str:
    """A store's id, made once when the file is made: with the match id and seq it names a state for good."""
    return secrets.token_hex(6)


def _migrate(connection: sqlite3.Connection) -> None:
    """A version-1 store (the release before) gains the columns and table of version 2, its data untouched."""
    if connection.execute("PRAGMA user_version").fetchone()[0] != 1:
        return
    connection.executescript("BEGIN IMMEDIATE;"
                             "ALTER TABLE matches ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;"
                             f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")


def _check(connection: sqlite3.Connection, *, create: bool) -> None:
    """Raise ``_Corrupt`` unless the file passes SQLite's check and is a Devetka store (or new, if ``create``)."""
    result = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
    if result != ["ok"]:
        raise _Corrupt("integrity check: " + "; ".join(result[:3]))
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    if version in (1, SCHEMA_VERSION) and {"matches", "inputs"} <= tables:
        return
    if version == 0 and not tables - {"sqlite_sequence"}:
        if create:
            return
        raise _Corrupt("an empty database, no Devetka store in it")
    raise _Corrupt(f"not a Devetka store (schema version {version}, tables {sorted(tables)})")


def _move_aside(path: Path) -> Path:
    """Rename the file (and its WAL and shared-memory files) to ``PATH.corrupt-N``, the first N free.

    The WAL goes too: left in place, SQLite would replay the old file's pages into the new store.
    """
    n = 1
    while Path(f"{path}.corrupt-{n}").exists():
        n += 1
    aside = Path(f"{path}.corrupt-{n}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm", "-journal"):
        extra = Path(f"{path}{suffix}")
        if extra.exists():
            os.replace(extra, Path(f"{aside}{suffix}"))
    return aside
