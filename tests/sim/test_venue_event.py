"""``devetka venue-demo --event`` (scoreboard/sim/venue_event.py) as issue 31's "Done when" says: a whole event run by
the real director across simulated tables (each its own Mosquitto bridged to the venue's, and its own daemon), then
``devetka event export`` checked against each table's stored match, folded again by ``devetka replay``."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from scoreboard.sim.nats_cluster import nats_server_binary
from scoreboard.sim.venue_event import EventOptions, check, event_file
from tests.sim.test_venue_demo import lines_of, until

DEVETKA = [sys.executable, "-m", "scoreboard.commands.main"]
#: How long the demo may take to end its director, tables and venue after Ctrl-C before the test gives up: it ends
#: each child with SIGTERM and kills one still there after 30 s (scoreboard/sim/children.py).
STOP_TIMEOUT_S = 150


def descendants(pid: int) -> list[str]:
    """The command lines of a process's children and theirs (Linux /proc), to name what did not end."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in children:
                try:
                    found.append(Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:160])
                except OSError:
                    continue
                todo.append(int(child))
    return found


def drained(lines) -> list[str]:
    """What the demo said that nobody read yet."""
    said = []
    while not lines.empty():
        said.append(lines.get_nowait())
    return said


def run_event(tmp_path, *args: str) -> tuple[list[str], list[dict]]:
    """The demo to ``event done`` and Ctrl-C; the lines it said and the director's export. At ``--speed 500`` the
    players wait between shots only a 500th of the simulated gap (each input still answered before the next): the
    calls, results and exports are what is checked, and a night of 15 matches takes 15 s, not a minute."""
    process = subprocess.Popen([*DEVETKA, "venue-demo", *args, "--racks", "1", "--speed", "500", "--store-dir",
                                str(tmp_path), "--headless"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    said: list[str] = []
    try:
        lines = lines_of(process)
        done = until(lines, "venue-demo: event done: winner ", said)
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"venue-demo still running {STOP_TIMEOUT_S} s after Ctrl-C; its processes: "
                                 f"{descendants(process.pid)}; it said since: {drained(lines)}") from None
        assert code == 0, drained(lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    said.append(done)
    export = subprocess.run([*DEVETKA, "event", "export", "--store", str(tmp_path / "director.sqlite3"), "--json"],
                            capture_output=True, text=True, check=True)
    return said, [orjson.loads(line) for line in export.stdout.splitlines()]


def replayed(tmp_path, table: str, match_id: int) -> dict:
    """The table's stored match as ``devetka export --store ... --match ID | devetka replay -`` folds it."""
    log = subprocess.run([*DEVETKA, "export", "--store", str(tmp_path / f"{table}.sqlite3"), "--match",
                          str(match_id)], capture_output=True, check=True).stdout
    lines = subprocess.run([*DEVETKA, "replay", "-"], input=log, capture_output=True, check=True).stdout
    return orjson.loads(lines.splitlines()[-1])


def test_a_double_elimination_of_8_runs_to_its_winner_and_every_score_is_its_table_s_fold(tmp_path):
    said, rows = run_event(tmp_path, "--event", "double", "--players", "8", "--tables", "4")
    calls = [line for line in said if line.startswith("call: ")]
    assert len(rows) in (14, 15) and len(calls) >= len(rows)
    winner = said[-1].removeprefix("venue-demo: event done: winner ")
    assert winner == next(r["winner"] for r in rows if r["match"] == ("GF-2" if len(rows) == 15 else "GF-1"))
    for row in rows:
        assert row["winner"] in row["players"] and f"call: {row['match']} to {row['table']}" in calls
        state = replayed(tmp_path, row["table"], row["match_id"])
        assert state["players"] == row["players"] and state["score"] == row["score"], row
        assert row["store"] is not None


def test_an_apa_team_night_of_10_splits_its_100_points_and_every_score_is_its_table_s_fold(tmp_path):
    said, rows = run_event(tmp_path, "--event", "apa-team", "--players", "10", "--tables", "2")
    assert [r["match"] for r in rows] == ["APA-1", "APA-2", "APA-3", "APA-4", "APA-5"]
    assert sum(sum(r["match_points"]) for r in rows) == 100
    for row in rows:
        state = replayed(tmp_path, row["table"], row["match_id"])
        assert state["points"] == row["score"], row
    assert said[-1].removeprefix("venue-demo: event done: winner ") in ("Sharks", "Jets")


@pytest.mark.skipif(nats_server_binary() is None, reason="nats-server is not installed")
def test_on_a_nats_venue_a_single_elimination_of_4_runs_to_its_winner_with_the_director_on_node_1(tmp_path):
    """``--engine nats``: three nodes, each table bridged to all three, the director logged in on node 1 (its login
    in every node's config); the board and readers read every node."""
    said, rows = run_event(tmp_path, "--event", "single", "--players", "4", "--tables", "2", "--engine", "nats")
    assert len([line for line in said if line.startswith("venue node ")]) == 3
    assert said[[line.startswith("venue broker: ") for line in said].index(True)].count(",") == 2
    assert sorted(r["match"] for r in rows) == ["W1-1", "W1-2", "W2-1"]
    assert said[-1] == f"venue-demo: event done: winner {next(r['winner'] for r in rows if r['match'] == 'W2-1')}"
    for row in rows:
        state = replayed(tmp_path, row["table"], row["match_id"])
        assert state["players"] == row["players"] and state["score"] == row["score"], row


@pytest.mark.parametrize("options, problem", [
    (EventOptions("swiss", 8), "--event must be one of single, double, round-robin, apa-team"),
    (EventOptions("apa-team", 9), "--event apa-team needs --players 10 to 16, an even number (two rosters of 5 to 8)"),
    (EventOptions("single", 1), "--players must be from 2 to 64"),
])
def test_options_that_cannot_run_are_refused_by_name(options, problem):
    assert check(options) == problem


def test_every_race_is_the_demo_s_racks_and_apa_players_get_low_skill_levels():
    assert event_file(EventOptions("single", 4, racks=2), ["table1"])["race"] == 2
    teams = event_file(EventOptions("apa-team", 10), ["table1"])["teams"]
    assert [len(t["players"]) for t in teams] == [5, 5]
    assert {p["skill"] for t in teams for p in t["players"]} == {1, 2}
