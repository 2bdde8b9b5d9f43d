"""Verdicts survive an upgrade (issue 12): stores written by earlier releases open, export and resume here
with the verdicts they were given.

``tests/data/stores/release-67566a6.sqlite3`` was written by the release before stores had an id and matches
a rules version (schema 1), ``release-issue12.sqlite3`` by the one that added them (schema 2); both by
``make_store.py`` playing examples/match.jsonl through the Referee. ``release-67566a6.replay.jsonl`` is what
that release's own ``devetka export | devetka replay -`` printed. ``release-0b79451.sqlite3`` was written by the
release before issue 34 (rules version 1) playing two logs whose verdicts version 2 changed. Every later release
must keep passing this; a copy is opened, never the committed file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from scoreboard.referee.referee import Referee
from tests.paths import REPO

STORES = REPO / "tests" / "data" / "stores"
DEVETKA = str(Path(sys.executable).parent / "devetka")
RELEASES = ["release-67566a6", "release-issue12"]
EXPECTED = [orjson.loads(line) for line in (STORES / "release-67566a6.replay.jsonl").read_text().splitlines()]


def copy_of(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name}.sqlite3"
    shutil.copy(STORES / f"{name}.sqlite3", path)
    return path


def replayed_export(path: Path) -> list[dict]:
    export = subprocess.run([DEVETKA, "export", "--store", str(path)], capture_output=True, check=True)
    replay = subprocess.run([DEVETKA, "replay", "-"], input=export.stdout, capture_output=True, check=True)
    return [orjson.loads(line) for line in replay.stdout.splitlines()]


@pytest.mark.parametrize("release", RELEASES)
def test_a_stored_match_exports_to_the_verdicts_it_was_given(release, tmp_path):
    assert replayed_export(copy_of(release, tmp_path)) == EXPECTED


@pytest.mark.parametrize("release", RELEASES)
def test_a_stored_match_resumes_under_its_rules_version_with_the_same_verdicts(release, tmp_path):
    referee = Referee.open(copy_of(release, tmp_path))
    try:
        state = referee.state()
        final = EXPECTED[-1]
        assert state["rules_version"] == 1 and isinstance(state["store"], str)
        for key in ("score", "rack", "match_winner", "on_table", "fouls_in_row"):
            assert state[key] == final[key], key
        assert referee.handle({"type": "undo"}).ok  # the winning shot taken back: the match plays on from there
        assert referee.state()["match_winner"] is None
    finally:
        referee.close()
    again = Referee.open(tmp_path / f"{release}.sqlite3")
    try:
        assert again.state()["store"] == state["store"]  # migrated once, named for good
    finally:
        again.close()


def test_matches_stored_before_issue_34_keep_the_verdicts_of_rules_version_1(tmp_path):
    """``release-0b79451.sqlite3``: the release before issue 34 (rules version 1) played example 25 (APA: at 12 of
    14, three balls on one shot) and example 24's fouled break with the clock on (make_store.py). Resumed, listed,
    exported and replayed here, they keep the verdicts they were given: 15 points, and 60 s with no extension on
    the first shot after the fouled break; a new match in the same store is refereed under version 2."""
    path = copy_of("release-0b79451", tmp_path)
    listed = subprocess.run([DEVETKA, "matches", "--store", str(path)], capture_output=True, check=True)
    assert [orjson.loads(line)["rules_version"] for line in listed.stdout.splitlines()] == [1, 1]
    export = subprocess.run([DEVETKA, "export", "--store", str(path), "--match", "1"], capture_output=True,
                            check=True)
    replayed = subprocess.run([DEVETKA, "replay", "--rules-version", "1", "-"], input=export.stdout,
                              capture_output=True, check=True)
    assert orjson.loads(replayed.stdout.splitlines()[-1])["points"] == [15, 0]
    referee = Referee.open(path)
    try:
        state = referee.state()
        assert state["rules_version"] == 1 and state["shooter"] == 1 and state["ball_in_hand"] is True
        assert state["shot_clock"]["limit"] == 60
        assert not referee.handle({"type": "extension"}).ok
        start = {"players": ["Ana", "Ben"], "race": [2, 2], "breaker": 0, "rules": {"shot_clock": True}}
        assert referee.handle({"cmd": "new_match", "match_start": start}).ok
        for item in ({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 0},
                     {"type": "settle"}):
            assert referee.handle(item).ok
        state = referee.state()
        assert state["rules_version"] == 2 and state["shot_clock"]["limit"] == 35
        assert referee.handle({"type": "extension"}).ok
    finally:
        referee.close()
