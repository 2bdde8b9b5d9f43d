"""``devetka replay`` gives the spec's worked examples and follows its output rules."""

import json

import pytest

from scoreboard.core.scoresheet import score_sheet
from scoreboard.matchlog.replay import replay
from tests.paths import EXAMPLES as EXAMPLES_DIR

EXAMPLES = EXAMPLES_DIR
LOGS = sorted(p for p in EXAMPLES.glob("*.jsonl") if not p.name.endswith(".out.jsonl"))
NOT_COMPARED = {"rules", "error"}


def test_all_worked_examples_are_here():
    assert len(LOGS) == 25


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_worked_example(log):
    expected = [json.loads(line) for line in log.with_name(log.stem + ".out.jsonl").read_text().splitlines()]
    got = replay(log.read_text().splitlines()).lines()
    assert [line["type"] for line in got] == [line["type"] for line in expected]
    for want, have in zip(expected, got, strict=True):
        assert {k: have.get(k) for k in want if k not in NOT_COMPARED} == {
            k: v for k, v in want.items() if k not in NOT_COMPARED
        }


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_worked_example_rule_numbers(log):
    expected = [json.loads(line) for line in log.with_name(log.stem + ".out.jsonl").read_text().splitlines()]
    got = replay(log.read_text().splitlines()).lines()
    assert [line.get("rules") for line in got] == [line.get("rules") for line in expected]


def test_the_shot_clock_example_ends_with_the_time_foul_and_the_extensions_used():
    """Example 21, as worked out by hand: Ana extends her third turn, Ben runs out of time (TR20), the clock off."""
    out = replay((EXAMPLES / "21-shot-clock.jsonl").read_text().splitlines()).lines()
    time_foul = [line for line in out if line.get("time_foul")]
    assert [(line["shooter"], line["next_shooter"], line["ball_in_hand"]) for line in time_foul] == [(1, 0, True)]
    assert [line["line"] for line in out if line["type"] == "error"] == [2, 8, 14, 20, 22]
    assert out[-1]["shot_clock"] == {"on": False, "limit": None, "warning": 10, "extension": 25,
                                     "extensions_left": [0, 1], "extended": False}
    assert out[-1]["fouls_in_row"] == [0, 1] and out[-1]["shooter"] == 0


def test_the_push_out_example_times_the_shot_after_it_longer_and_gives_a_late_fouls_extension_back():
    """Example 22: Ben's shot after his push out has its own 60 s and no extension; Ana's extension, taken in the
    turn a late scratch gave Ben, is hers again; Ben's is used on his turn, and he runs out of time (TR20)."""
    out = replay((EXAMPLES / "22-shot-clock-after-push-out.jsonl").read_text().splitlines()).lines()
    assert [line["line"] for line in out if line["type"] == "error"] == [14]
    assert [(line["shooter"], line["rules"]) for line in out if line.get("time_foul")] == [(1, ["TR20"])]
    assert out[-1]["shot_clock"]["extensions_left"] == [1, 0] and out[-1]["shot_clock"]["limit"] == 35


def test_the_fouled_break_example_gives_the_incoming_player_an_ordinary_turn_and_version_1_the_longer_one():
    """Example 24: after Ana's scratch on the break Ben's turn is an ordinary one (TR20 as the Norwegian rule 10.3.15
    gives it: the longer limit after a legal break only), so he extends it; a match stored under rules version 1
    refused that extension, and replays so."""
    log = (EXAMPLES / "24-shot-clock-after-fouled-break.jsonl").read_text().splitlines()
    now, before = replay(log).lines(), replay(log, rules_version=1).lines()
    assert [line["line"] for line in now if line["type"] == "error"] == [12]
    assert now[-1]["shot_clock"]["extensions_left"] == [1, 0] and now[-1]["shot_clock"]["limit"] == 35
    assert [line["line"] for line in before if line["type"] == "error"] == [7]
    assert before[-1]["shot_clock"]["limit"] == 60 and before[-1]["shot_clock"]["extended"] is True


def test_the_points_past_the_target_example_ends_the_match_at_the_target_and_version_1_past_it():
    """Example 25: Ana (skill level 1, target 14) at 12 pockets three balls on one shot: 14, the match over; a match
    stored under rules version 1 recorded 15, and replays so."""
    log = (EXAMPLES / "25-apa-points-past-the-target.jsonl").read_text().splitlines()
    now, before = replay(log).lines(), replay(log, rules_version=1).lines()
    assert now[-1]["points"] == [14, 0] and now[-2]["points_scored"] == 2 and now[-1]["match_winner"] == 0
    assert before[-1]["points"] == [15, 0] and before[-2]["points_scored"] == 3
    sheet = score_sheet(replay(log).match)
    assert sheet["points"] == [14, 0] and [rack["points"] for rack in sheet["racks"]] == [[10, 0], [4, 0]]


def test_a_log_stored_before_the_push_out_option_replays_as_it_did():
    """Example 18's match_start names every option of its release (a profile writes them all), none of the shot
    clock's, ``shot_clock_after_push_out_s`` added since: a missing key is its default (unset, the shot after a
    push out an ordinary turn), and the output is the one it always was."""
    start = json.loads((EXAMPLES / "18-profile-wpa.jsonl").read_text().splitlines()[0])
    assert "profile" in start["rules"] and "shot_clock_after_push_out_s" not in start["rules"]
    got = replay((EXAMPLES / "18-profile-wpa.jsonl").read_text().splitlines()).lines()
    expected = [json.loads(line) for line in (EXAMPLES / "18-profile-wpa.out.jsonl").read_text().splitlines()]
    assert got == expected


def test_blank_lines_are_skipped_but_counted():
    log = ['{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}', "", "  ", '{"type":"pass"}']
    assert replay(log).lines()[0] == {"type": "error", "line": 4, "error": "pass without a push out to answer (5.6)"}


def test_inputs_before_match_start_and_a_wrong_version_are_errors():
    log = ['{"type":"strike"}', '{"type":"match_start","v":2,"players":["A","B"],"race":[1,1],"breaker":0}']
    out = replay(log).lines()
    assert [line["line"] for line in out[:-1]] == [1, 2]
    assert "match_start" in out[0]["error"] and "v must be 1" in out[1]["error"]
    assert out[-1]["type"] == "state" and out[-1]["players"] is None


def test_a_second_match_start_is_an_error():
    start = '{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}'
    out = replay([start, start]).lines()
    assert out[0] == {"type": "error", "line": 2, "error": "a second match_start: one match per log"}


def test_malformed_json_is_an_error_line():
    start = '{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}'
    out = replay([start, "{not json"]).lines()
    assert out[0]["line"] == 2 and out[0]["error"].startswith("not valid JSON")


def test_a_shot_ended_by_the_end_of_the_log_comes_after_every_error():
    start = '{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}'
    out = replay([start, '{"type":"strike"}', '{"type":"pass"}']).lines()
    assert [line["type"] for line in out] == ["error", "shot", "state"]


def test_explain_has_one_line_per_shot_and_error_and_a_summary():
    log = (EXAMPLES / "06-errors.jsonl").read_text().splitlines()
    text = replay(log).explain()
    assert text[0].startswith("Rack 1, break, Ana: Legal break (5.4)")
    assert text[1] == "Line 9 not applied: pass without a push out to answer (5.6)."
    assert text[-1] == "Score Ana 0, Ben 0 (race to 3/3); rack 1, Ben to shoot."
    assert len(text) == 8


def test_explain_tells_the_inputs_between_shots():
    text = replay((EXAMPLES / "05-foul-between-shots.jsonl").read_text().splitlines()).explain()
    assert "Rack 1: Ben announces a push out (5.6)." in text
    assert text.index("Rack 1: Ana passes the shot back; Ben must shoot (5.6, R3).") == 3
    text = replay((EXAMPLES / "08-stalemate-concede.jsonl").read_text().splitlines()).explain()
    assert "Rack 1: Stalemate (5.14): the rack is replayed; Ben breaks rack 2." in text
    assert "Rack 3: Ana concedes the match (R9). Ben wins the match 0-1." in text
