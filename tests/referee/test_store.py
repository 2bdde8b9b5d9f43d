"""The store (scoreboard/referee/store.py) on real SQLite files, and ``devetka export`` / ``devetka matches``."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path
from random import Random

import orjson
import pytest

from scoreboard.core.inputs import MatchStart, Pass, Settle, Strike, Undo, to_json
from scoreboard.core.match import Match
from scoreboard.core.output import state_line
from scoreboard.core.rules import RuleError
from scoreboard.matchlog.replay import replay
from scoreboard.referee.store import Store, StoreError
from scoreboard.sim.table import SimulatedTable
from tests.soak import repeats

START = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)
ANA_BEN = MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0)


class Clock:
    """A wall clock for the store that moves a minute on each reading."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> datetime:
        self.readings += 1
        return START + timedelta(minutes=self.readings - 1)


def play(store: Store, seed: int, race: tuple[int, int] = (3, 3)) -> tuple[int, Match]:
    """Play a simulated match as the daemon would: apply each input, store only the applied ones."""
    inputs = SimulatedTable(seed=seed, race=race).play_match()
    live = Match(next(inputs))
    match_id = store.start_match(live.match_start)
    for item in inputs:
        try:
            live.apply(item)
        except RuleError:
            continue
        store.append(match_id, item)
    return match_id, live


def undo_seed() -> int:
    """The first seed whose simulated match has an undo in it (the round trip must cover undo)."""
    for seed in range(100):
        if any(isinstance(item, Undo) for item in SimulatedTable(seed=seed).play_match()):
            return seed
    raise AssertionError("no simulated match with an undo in seeds 0-99")


def test_a_whole_match_round_trips_and_resumes_to_the_live_state(tmp_path: Path) -> None:
    seed = undo_seed()
    with Store.open(tmp_path / "devetka.db", now=Clock()) as store:
        match_id, live = play(store, seed)
    with Store.open(tmp_path / "devetka.db", now=Clock()) as store:
        log = store.log(match_id)
        assert store.current_match() == (match_id, log)
    expected = list(SimulatedTable(seed=seed).play_match())
    assert log == expected  # every input, t and src included, in order
    assert any(isinstance(item, Undo) for item in log)
    resumed = Match.resume(log)
    assert resumed.state == live.state
    assert resumed.shot_lines() == live.shot_lines()
    assert live.state.table.match_winner in (0, 1)


def test_export_piped_into_replay_ends_in_the_live_state(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    with Store.open(path, now=Clock()) as store:
        _, live = play(store, undo_seed())
    exported = run("export", "--store", str(path))
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.decode().splitlines()
    assert orjson.loads(lines[0])["type"] == "match_start"
    result = replay(lines)
    assert result.errors == []
    assert result.lines()[-1] == state_line(live.closed().state)
    replayed = run("replay", "-", stdin=exported.stdout)
    assert orjson.loads(replayed.stdout.splitlines()[-1]) == state_line(live.closed().state)


def test_an_unfinished_match_resumes_and_appends_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    inputs = list(SimulatedTable(seed=5).play_match())
    with Store.open(path, now=Clock()) as store:
        match_id = store.start_match(inputs[0])
        for item in inputs[1:20]:
            store.append(match_id, item)
    with Store.open(path, now=Clock()) as store:
        current_id, log = store.current_match()
        assert current_id == match_id and log == inputs[:20]
        assert [store.append(match_id, item) for item in inputs[20:23]] == [20, 21, 22]
        assert store.log(match_id) == inputs[:23]
        summary = store.matches()[0]
        assert summary.winner is None and summary.to_json()["winner"] is None
        assert summary.inputs == 23


def test_every_match_is_kept_and_listed_with_its_score_and_winner(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    clock = Clock()
    with Store.open(path, now=clock) as store:
        played = [play(store, seed, race) for seed, race in ((1, (2, 2)), (2, (3, 3)), (3, (1, 2)))]
        unfinished = store.start_match(MatchStart(players=("Cid", "Dora"), race=(5, 5), breaker=1, table="t7"))
        store.append(unfinished, Strike(t=1.0))
        summaries = store.matches()
        assert [s.id for s in summaries] == [match_id for match_id, _ in played] + [unfinished]
        for (match_id, live), summary in zip(played, summaries, strict=False):
            assert summary.score == live.state.table.score
            assert summary.winner == live.state.table.match_winner
            assert summary.winner in (0, 1)
            assert summary.score[summary.winner] == live.match_start.race[summary.winner]
            assert store.log(match_id)[0] == live.match_start
        last = summaries[-1]
        assert (last.players, last.race, last.table, last.score, last.winner) == (
            ("Cid", "Dora"), (5, 5), "t7", (0, 0), None)
        assert [s.started for s in summaries] == [(START + timedelta(minutes=n)).isoformat() for n in range(4)]
        assert store.current_match()[0] == unfinished
    listed = run("matches", "--store", str(path))
    assert listed.returncode == 0, listed.stderr
    rows = [orjson.loads(line) for line in listed.stdout.splitlines()]
    assert rows == [s.to_json() for s in summaries]
    assert rows[-1]["winner"] is None and rows[0]["score"] == list(played[0][1].state.table.score)
    assert {"id", "started", "players", "race", "score", "winner"} <= set(rows[0])
    older = run("export", "--store", str(path), "--match", str(played[1][0]))
    assert replay(older.stdout.decode().splitlines()).lines()[-1] == state_line(played[1][1].closed().state)


def test_the_store_uses_wal_and_full_sync(tmp_path: Path) -> None:
    with Store.open(tmp_path / "devetka.db", now=Clock()) as store:
        assert store.pragma("journal_mode") == "wal"
        assert store.pragma("synchronous") == 2  # FULL
    with Store.open(tmp_path / "devetka.db", now=Clock()) as store:  # set again on every open
        assert store.pragma("journal_mode") == "wal"
        assert store.pragma("synchronous") == 2


def test_rejected_calls_store_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "devetka.db", now=Clock()) as store:
        with pytest.raises(StoreError, match="no match 9"):
            store.append(9, Strike())
        match_id = store.start_match(ANA_BEN)
        with pytest.raises(StoreError, match="start_match"):
            store.append(match_id, ANA_BEN)
        with pytest.raises(StoreError, match="no match 9"):
            store.log(9)
        assert store.log(match_id) == [ANA_BEN]
    with Store.open(tmp_path / "devetka.db") as store:
        with pytest.raises(StoreError, match="no clock"):
            store.start_match(ANA_BEN)
        assert len(store.matches()) == 1


def test_a_log_that_does_not_fold_is_listed_with_its_error(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    with Store.open(path, now=Clock()) as store:
        good, _ = play(store, 1, (1, 1))
        bad = store.start_match(ANA_BEN)
        store.append(bad, Pass())  # the store keeps what it is given: checking is the caller's part
        summaries = {s.id: s for s in store.matches()}
    assert summaries[good].error is None and summaries[good].winner in (0, 1)
    assert summaries[bad].score is None and "does not fold" in summaries[bad].error
    listed = run("matches", "--store", str(path))
    assert listed.returncode == 0
    assert [orjson.loads(line)["id"] for line in listed.stdout.splitlines()] == [good, bad]


def fill(path: Path, matches: int = 4) -> None:
    with Store.open(path, now=Clock()) as store:
        for seed in range(matches):
            play(store, seed)


def test_a_file_of_garbage_is_moved_aside_and_a_new_store_begins(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    garbage = Random(7).randbytes(10_000)
    path.write_bytes(garbage)
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside == tmp_path / "devetka.db.corrupt-1"
        assert "not a database" in store.problem
        assert store.current_match() is None
        match_id = store.start_match(ANA_BEN)
    assert (tmp_path / "devetka.db.corrupt-1").read_bytes() == garbage
    path.write_bytes(garbage)  # again: the next free name, the first one kept
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside == tmp_path / "devetka.db.corrupt-2"
    assert (tmp_path / "devetka.db.corrupt-1").read_bytes() == garbage
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside is None
        assert store.start_match(ANA_BEN) == match_id  # a fresh store counts from the start


@pytest.mark.parametrize("fraction", [0.02, 0.3, 0.5, 0.8, 0.97])
def test_a_store_cut_short_is_moved_aside(tmp_path: Path, fraction: float) -> None:
    path = tmp_path / "devetka.db"
    fill(path)
    assert not Path(f"{path}-wal").exists()  # checkpointed at close: the cut falls in the data itself
    whole = path.read_bytes()
    path.write_bytes(whole[: int(len(whole) * fraction)])
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside == tmp_path / "devetka.db.corrupt-1"
        assert store.problem
        assert store.matches() == []
        store.start_match(ANA_BEN)
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside is None and len(store.matches()) == 1


def test_a_database_that_is_not_a_store_is_moved_aside_with_its_wal(tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "photos.db")
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("CREATE TABLE photos (name TEXT)")
    other.commit()
    path = tmp_path / "devetka.db"
    path.write_bytes((tmp_path / "photos.db").read_bytes())  # a snapshot with the table only in the WAL
    Path(f"{path}-wal").write_bytes((tmp_path / "photos.db-wal").read_bytes())
    other.close()
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside == tmp_path / "devetka.db.corrupt-1"
        assert "not a Devetka store" in store.problem
        store.start_match(ANA_BEN)
    fresh = sqlite3.connect(path)
    assert sorted(row[0] for row in fresh.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")) == [
        "inputs", "matches", "sqlite_sequence", "store_info"]
    fresh.close()
    photos = sqlite3.connect(tmp_path / "devetka.db.corrupt-1")
    assert photos.execute("SELECT name FROM sqlite_schema").fetchall() == [("photos",)]
    photos.close()


def test_the_wal_of_a_corrupt_file_goes_aside_with_it(tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "photos.db")
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("CREATE TABLE photos (name TEXT)")
    other.commit()
    wal = (tmp_path / "photos.db-wal").read_bytes()
    other.close()
    path = tmp_path / "devetka.db"
    path.write_bytes(Random(3).randbytes(8192))
    Path(f"{path}-wal").write_bytes(wal)  # left in place, SQLite would read its pages into the new store
    with Store.open(path, now=Clock()) as store:
        assert store.moved_aside == tmp_path / "devetka.db.corrupt-1"
        assert store.matches() == []
        store.start_match(ANA_BEN)
    assert Path(f"{path}.corrupt-1-wal").read_bytes() == wal


CHILD = textwrap.dedent("""
    import sys
    from scoreboard.sim.table import SimulatedTable
    from scoreboard.referee.store import Store

    path, seed = sys.argv[1], int(sys.argv[2])
    inputs = list(SimulatedTable(seed=seed).play_match())
    store = Store.open(path, now=lambda: "2026-11-29T20:00:00+00:00")
    match_id = store.start_match(inputs[0])
    print("started", flush=True)
    for n, item in enumerate(inputs[1:], 1):
        store.append(match_id, item)
        print("ack", n, flush=True)
    print("done", flush=True)
    sys.stdin.read()
""")


@pytest.mark.soak
def test_no_acknowledged_input_is_lost_when_the_writer_is_killed(tmp_path: Path) -> None:
    rng = Random(11)
    for run_number in range(repeats(5, 20)):  # scripts/soak.sh: 20 writers killed
        path = tmp_path / f"crash-{run_number}.db"
        seed = run_number
        inputs = list(SimulatedTable(seed=seed).play_match())
        kill_after = rng.randrange(1, len(inputs) - 1)
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(seed)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            for line in child.stdout:
                if line.split() == [b"ack", str(kill_after).encode()]:
                    break
                assert not line.startswith(b"done"), "the child finished before it was killed"
            else:
                raise AssertionError(f"the child stopped early: {child.stderr.read().decode()}")
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.kill()
            child.wait()
            for stream in (child.stdin, child.stdout, child.stderr):
                stream.close()
        assert child.returncode == -signal.SIGKILL
        with Store.open(path, now=Clock()) as store:
            assert store.moved_aside is None
            match_id, log = store.current_match()
            assert len(log) >= kill_after + 1  # match_start and every acknowledged input
            assert log == inputs[: len(log)]


# ---- devetka export and devetka matches, run as the console script ----


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "devetka"
    return subprocess.run([str(script), *args], input=stdin, capture_output=True, timeout=60)


def test_export_and_matches_name_a_missing_store(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    for command in ("export", "matches"):
        done = run(command, "--store", str(missing))
        assert done.returncode == 2
        assert done.stderr.decode() == f"devetka {command}: no store at {missing}\n"
        assert done.stdout == b""
    assert not missing.exists()  # reading never creates a store


def test_export_of_an_empty_store_and_an_unknown_match_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    Store.open(path, now=Clock()).close()
    empty = run("export", "--store", str(path))
    assert (empty.returncode, empty.stdout) == (2, b"")
    assert empty.stderr.decode() == f"devetka export: the store {path} holds no match yet\n"
    listed = run("matches", "--store", str(path))
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, b"", b"")
    with Store.open(path, now=Clock()) as store:
        match_id = store.start_match(ANA_BEN)
        store.append(match_id, Strike(t=0.5))
        store.append(match_id, Settle(t=4.5))
    unknown = run("export", "--store", str(path), "--match", "42")
    assert (unknown.returncode, unknown.stdout) == (2, b"")
    assert unknown.stderr.decode() == "devetka export: no match 42 in the store\n"
    exported = run("export", "--store", str(path), "--match", str(match_id))
    assert exported.returncode == 0
    assert [orjson.loads(line) for line in exported.stdout.splitlines()] == [
        to_json(ANA_BEN), {"type": "strike", "t": 0.5}, {"type": "settle", "t": 4.5}]


def test_export_refuses_a_corrupt_store_and_leaves_it_where_it_is(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    path.write_bytes(b"this is not SQLite at all" * 100)
    for command in ("export", "matches"):
        done = run(command, "--store", str(path))
        assert done.returncode == 2
        message = done.stderr.decode()
        assert message.startswith(f"devetka {command}: {path} is not a sound Devetka store")
        assert "Traceback" not in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["devetka.db"]


def test_export_reads_a_store_the_daemon_holds_open(tmp_path: Path) -> None:
    path = tmp_path / "devetka.db"
    with Store.open(path, now=Clock()) as store:
        match_id = store.start_match(ANA_BEN)
        store.append(match_id, Strike(t=0.5))
        done = run("export", "--store", str(path))
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) == 2
        store.append(match_id, Settle(t=4.0))
        assert len(run("export", "--store", str(path)).stdout.splitlines()) == 3


def test_a_resumed_match_is_current_until_a_new_one_begins(tmp_path):
    now = lambda: "2026-11-29T20:00:00+00:00"  # noqa: E731
    with Store.open(tmp_path / "devetka.db", now=now) as store:
        first = store.start_match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
        store.append(first, Strike(t=1.0))
        second = store.start_match(MatchStart(players=("Cy", "Di"), race=(3, 3), breaker=0))
        store.resume_match(first)
        assert store.current_match() == (first, store.log(first))
        with pytest.raises(StoreError, match="no match 7 in the store"):
            store.resume_match(7)
        assert store.current_match()[0] == first
        third = store.start_match(MatchStart(players=("Ed", "Flo"), race=(3, 3), breaker=0))
        assert store.current_match()[0] == third > second
