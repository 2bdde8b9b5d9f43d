"""The replay output lines: the spec's field names and shapes."""

from scoreboard.core.inputs import MatchStart
from scoreboard.core.output import error_line, state_line
from scoreboard.core.rules import start

SHOT_FIELDS = {
    "type", "rack", "shot", "shooter", "break", "push_out", "pocketed", "foul", "rules", "respot_nine",
    "on_table", "next_shooter", "ball_in_hand", "push_out_allowed", "fouls_in_row", "warning", "rack_winner",
}
STATE_FIELDS = {
    "type", "score", "rack", "breaker", "match_winner", "on_table", "shooter", "ball_in_hand", "fouls_in_row",
    "warning",
}


def test_state_line_has_the_spec_fields():
    line = state_line(start(MatchStart(players=("Ana", "Ben"), race=(3, 2), breaker=1)))
    assert STATE_FIELDS <= set(line)
    assert line["players"] == ["Ana", "Ben"] and line["race"] == [3, 2] and line["shooter"] == 1


def test_state_line_with_no_match():
    line = state_line(None)
    assert STATE_FIELDS <= set(line) and line["shooter"] is None and line["match_winner"] is None


def test_error_line():
    assert error_line(3, "ball 1 is already down") == {"type": "error", "line": 3, "error": "ball 1 is already down"}


def test_shot_lines_have_the_spec_fields():
    from tests.folding import legal_break, run, shots
    for line in shots(run(legal_break())):
        assert SHOT_FIELDS <= set(line)


def test_a_match_under_the_first_releases_rules_serves_no_league_fields():
    line = state_line(start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0)))
    assert not {"points", "targets", "innings", "dead_balls", "behind_head_string", "break_choice",
                "profile"} & set(line)


def test_an_apa_match_serves_its_score_sheet_in_the_state_line():
    from scoreboard.core.inputs import RuleOptions
    apa = start(MatchStart(players=("Ana", "Ben"), race=(0, 0), breaker=0, apa_skill=(3, 5),
                           options=RuleOptions(scoring="apa", push_outs=False, three_foul_rule=False)))
    line = state_line(apa)
    assert {key: line[key] for key in ("race", "points", "targets", "innings", "dead_balls", "rack_dead_balls",
                                       "safeties", "timeouts_left", "apa_skill")} == {
        "race": None, "points": [0, 0], "targets": [25, 38], "innings": 0, "dead_balls": 0, "rack_dead_balls": 0,
        "safeties": [0, 0], "timeouts_left": [2, 1], "apa_skill": [3, 5]}
