"""``devetka matches`` and ``devetka export`` (scoreboard/commands/store.py): the league operator's results."""

from __future__ import annotations

import csv
import io
import re

import orjson

from scoreboard.referee.referee import Referee
from tests.cli import devetka as in_process
from tests.paths import EXAMPLES, REPO

#: Three matches: two refereed in racks, one in APA points (the examples' logs, played through the referee).
PLAYED = ["01-push-out-pass", "11-apa-points", "08-stalemate-concede"]


def devetka(*args: str, stdin: bytes | None = None) -> bytes:
    """``devetka ARGS``'s standard output, run in this process (tests/cli.py); it must succeed."""
    done = in_process(*args, stdin=stdin)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def store_of_three(tmp_path):
    path = tmp_path / "night.sqlite3"
    referee = Referee.open(path)
    try:
        for name in PLAYED:
            start, *inputs = [orjson.loads(line) for line in (EXAMPLES / f"{name}.jsonl").read_text().splitlines()
                              if line.strip()]
            start.pop("t", None)
            assert referee.handle({"cmd": "new_match", "match_start": start}).ok
            for item in inputs:
                referee.handle(item)  # the examples' error lines are refused here as in replay
    finally:
        referee.close()
    return path


def replayed(path, match_id: int) -> dict:
    export = devetka("export", "--store", str(path), "--match", str(match_id))
    return orjson.loads(devetka("replay", "-", stdin=export).splitlines()[-1])


def test_the_csv_has_a_row_per_match_whose_figures_are_its_replays(tmp_path):
    path = store_of_three(tmp_path)
    rows = list(csv.DictReader(io.StringIO(devetka("matches", "--csv", "--store", str(path)).decode())))
    assert [row["match"] for row in rows] == ["1", "2", "3"]
    for row in rows:
        final = replayed(path, int(row["match"]))
        assert [row["player0"], row["player1"]] == final["players"]
        if final.get("points") is not None:
            assert row["scoring"] == "apa"
            assert [int(row["score0"]), int(row["score1"])] == final["points"]
            assert [int(row["target0"]), int(row["target1"])] == final["targets"]
        else:
            assert row["scoring"] == "racks"
            assert [int(row["score0"]), int(row["score1"])] == final["score"]
            assert [int(row["target0"]), int(row["target1"])] == final["race"]
        winner = final["match_winner"]
        assert row["winner"] == ("" if winner is None else final["players"][winner])
    assert rows[1]["scoring"] == "apa" and rows[1]["score0"] == "3" and rows[1]["score1"] == "2"


def test_a_result_is_the_documented_json_and_counts_each_rack(tmp_path):
    path = store_of_three(tmp_path)
    outcome = orjson.loads(devetka("export", "--result", "--store", str(path), "--match", "2"))
    final = replayed(path, 2)
    assert outcome["points"] == final["points"] and outcome["targets"] == final["targets"]
    assert outcome["dead_balls"] == final["dead_balls"]
    assert sum(rack["points"][0] + rack["points"][1] for rack in outcome["racks"]) <= sum(final["points"])
    doc = (REPO / "docs" / "league.md").read_text()
    schema = orjson.loads(re.search(r"```json\n(\{\n  \"\$schema\".*?)```", doc, re.DOTALL).group(1))
    assert set(schema["required"]) <= set(outcome) <= set(schema["properties"])
    rack_schema = schema["properties"]["racks"]["items"]
    for rack in outcome["racks"]:
        assert set(rack_schema["required"]) <= set(rack) <= set(rack_schema["properties"])
    racks = orjson.loads(devetka("export", "--result", "--store", str(path), "--match", "1"))
    assert racks["scoring"] == "racks" and "points" not in racks
    assert all(set(rack_schema["required"]) <= set(rack) for rack in racks["racks"])


def pots(*balls: int) -> list[dict]:
    """One shot per ball: hit it first, pocket it."""
    return [item for ball in balls for item in ({"type": "strike"}, {"type": "first_contact", "ball": ball},
                                                {"type": "pocket", "ball": ball}, {"type": "settle"})]


BREAK_AND_RUN = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 1},
                 {"type": "pocket", "ball": 2}, {"type": "settle"}, *pots(*range(3, 10))]
#: Ben's rack: Ana breaks dry (four rails), Ben fouls once (a bad hit), Ana misses, Ben runs 1-9.
BENS_RACK = [{"type": "strike"}, {"type": "first_contact", "ball": 1},
             *[{"type": "cushion", "ball": ball} for ball in (2, 3, 4, 5)], {"type": "settle"},
             {"type": "strike"}, {"type": "first_contact", "ball": 4}, {"type": "cushion", "ball": 4},
             {"type": "settle"},
             {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1},
             {"type": "settle"},
             *pots(*range(1, 10))]


def test_stats_of_two_players_agree_with_a_hand_count_and_an_alias_merges_a_misspelt_name(tmp_path):
    path = tmp_path / "night.sqlite3"
    referee = Referee.open(path)
    try:
        for players, inputs in ((["Ana", "Ben"], BREAK_AND_RUN), (["Anna", "Ben"], BENS_RACK)):
            start = {"type": "match_start", "v": 1, "players": players, "race": [1, 1], "breaker": 0}
            assert referee.handle({"cmd": "new_match", "match_start": start}).ok
            for item in inputs:
                assert referee.handle(item).ok, item
    finally:
        referee.close()
    lines = devetka("stats", "--store", str(path), "--alias", "Anna=Ana").splitlines()
    figures = {row["player"]: row for row in map(orjson.loads, lines)}
    # By hand: match 1, Ana breaks and runs the rack (9 balls, 1 visit); match 2, Ana breaks dry, Ben fouls, Ana
    # misses, Ben runs the 1 to the 9 (Ana 2 visits, Ben 2). Ana: 3 visits, 9 balls; Ben: 2 visits, 9 balls, 1 foul.
    assert figures["Ana"] == {"player": "Ana", "matches": 2, "matches_won": 1, "racks": 2, "racks_won": 1,
                              "racks_broken": 2, "break_and_runs": 1, "balls": 9, "visits": 3, "fouls": 0,
                              "nines_on_break": 0, "break_and_run_rate": 0.5, "balls_per_inning": 3.0,
                              "fouls_per_rack": 0.0}
    assert figures["Ben"] == {"player": "Ben", "matches": 2, "matches_won": 1, "racks": 2, "racks_won": 1,
                              "racks_broken": 0, "break_and_runs": 0, "balls": 9, "visits": 2, "fouls": 1,
                              "nines_on_break": 0, "break_and_run_rate": 0.0, "balls_per_inning": 4.5,
                              "fouls_per_rack": 0.5}
    only = orjson.loads(devetka("stats", "--store", str(path), "--player", "Anna"))  # unmerged: her one match
    assert only["matches"] == 1 and only["racks_broken"] == 1
