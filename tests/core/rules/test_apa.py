"""APA 9-ball scoring (rules/apa.py): points against a skill level's target, dead balls, innings, safeties and
timeouts, as the replay's shot and state lines show them."""

import json

import pytest

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.rules.apa import TARGETS, target, timeouts_per_rack, value
from scoreboard.matchlog.replay import replay
from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, start, state

APA = {"scoring": "apa"}


def apa(*parts, skills=(3, 5), breaker=0):
    return run(*parts, rules=APA, apa_skill=list(skills), breaker=breaker, race=None)


def test_the_targets_are_the_equalizer_chart_by_skill_level():
    assert [target(skill) for skill in range(1, 10)] == [14, 19, 25, 31, 38, 46, 55, 65, 75] == list(TARGETS)
    assert [value(ball) for ball in range(1, 10)] == [1] * 8 + [2]
    assert [timeouts_per_rack(RuleOptions(), skill) for skill in range(1, 10)] == [2, 2, 2, 1, 1, 1, 1, 1, 1]


def test_done_when_points_targets_and_dead_balls():
    """The issue's done-when: breaker 0 pockets the 3 and 4 on the break, then the 1, then misses; the
    opponent pockets the 9 with the 2, 5, 6, 7, 8 on the table."""
    out = apa(shot(1, pockets=(3, 4)), shot(1, pockets=(1,)), shot(2, rails=(2,)), shot(2, rails=(5,), pockets=(9,)))
    end = state(out)
    assert (end["points"], end["targets"], end["dead_balls"]) == ([3, 2], [25, 38], 5)
    assert [line["points_scored"] for line in shots(out)] == [2, 1, 0, 2]
    assert last_shot(out)["dead_balls"] == 5 and last_shot(out)["rack_winner"] == 1
    assert end["race"] is None and end["match_winner"] is None and end["rack"] == 2


def test_balls_pocketed_on_a_foul_are_dead_and_only_the_9_is_spotted():
    out = apa(legal_break(), shot(1, pockets=(1, 9, 0)))
    line = last_shot(out)
    assert line["foul"] and line["points_scored"] == 0 and line["respot_nine"]
    assert line["on_table"] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert state(out)["dead_balls"] == 1 and state(out)["rack_dead_balls"] == 1 and state(out)["points"] == [0, 0]


def test_the_match_ends_the_moment_a_player_reaches_his_target_mid_rack():
    out = apa(shot(1, pockets=(1, 2, 3, 4, 5, 6, 7, 8)), shot(9, pockets=(9,)), shot(1, pockets=(1, 2, 3, 4)),
              skills=(1, 9))
    line, end = last_shot(out), state(out)
    assert end["points"] == [14, 0] and end["match_winner"] == 0 and end["shooter"] is None
    assert line["next_shooter"] is None and line["rack_winner"] is None and line["dead_balls"] == 0
    assert end["rack"] == 2 and end["on_table"] == [5, 6, 7, 8, 9]  # frozen as it ended
    assert "only undo" in errors(apa(shot(1, pockets=tuple(range(1, 9))), shot(9, pockets=(9,)),
                                     shot(1, pockets=(1, 2, 3, 4)), i("timeout"), skills=(1, 9)))[0]["error"]


def test_an_inning_is_marked_each_time_the_lag_losers_turn_ends():
    # Ana (player 0) breaks: Ben lost the lag. Ben's misses mark innings; Ana's do not; Ben's 9 keeps his turn.
    out = apa(legal_break(), shot(1, rails=(1,)), shot(1, rails=(1,)))
    assert state(out)["innings"] == 1
    assert state(apa(legal_break(), shot(1, rails=(1,)), shot(1, rails=(1,)), shot(1, rails=(1,))))["innings"] == 2
    out = apa(legal_break(), shot(1, pockets=(9,)))
    assert state(out)["innings"] == 0 and state(out)["shooter"] == 1 and state(out)["rack"] == 2
    assert state(apa(legal_break(), shot(1, pockets=(9,)), legal_break()))["innings"] == 1


def test_a_safety_is_counted_for_its_shooter_and_belongs_to_a_shot():
    out = apa(legal_break(), shot(1, rails=(1,)), i("safety"))
    assert last_shot(out)["safety"] is True and state(out)["safeties"] == [0, 1]
    refused = [line["error"] for line in errors(apa(legal_break(), i("safety"), shot(1, rails=(1,)), i("safety"),
                                                    i("safety")))]
    assert refused == ["the break is not a defensive shot", "this shot is already marked as a safety"]
    assert "only under APA scoring" in errors(run(legal_break(), i("safety")))[0]["error"]


def test_timeouts_per_rack_by_skill_level_and_again_each_rack():
    out = apa(legal_break(), i("timeout"), i("timeout"), skills=(3, 4))  # Ben, skill level 4: one a rack
    assert [line["error"] for line in errors(out)] == ["Ben has taken the 1 timeout of this rack (skill level 4)"]
    assert state(out)["timeouts_left"] == [2, 0]
    out = apa(legal_break(), i("timeout"), shot(1, pockets=(9,)), skills=(3, 4))
    assert state(out)["timeouts_left"] == [2, 1] and state(out)["rack"] == 2
    assert "only under APA scoring" in errors(run(legal_break(), i("timeout")))[0]["error"]


def test_a_leagues_own_timeout_allowance_is_counted_per_rack():
    """Issue 34: APA's two a rack for skill levels 1-3 and one for 4 and up is the default; a league sets its own
    (here one for everyone, and none at all for 4 and up)."""
    league = {**APA, "timeouts_skill_1_3": 1}
    out = run(legal_break(), i("timeout"), i("timeout"), rules=league, apa_skill=[3, 2], race=None)
    assert [line["error"] for line in errors(out)] == ["Ben has taken the 1 timeout of this rack (skill level 2)"]
    assert state(out)["timeouts_left"] == [1, 0]
    none = {**APA, "timeouts_skill_4_9": 0}
    out = run(legal_break(), i("timeout"), rules=none, apa_skill=[3, 5], race=None)
    assert state(out)["timeouts_left"] == [2, 0]
    assert errors(out)[0]["error"] == ("Ben has no timeouts under these rules (skill level 5: "
                                       "rules.timeouts_skill_4_9 is 0)")


@pytest.mark.parametrize("value", [-1, 10, 1.5, True, "2", None])
def test_a_timeout_allowance_out_of_bounds_is_refused_by_name(value):
    out = run(rules={**APA, "timeouts_skill_1_3": value}, apa_skill=[3, 5], race=None)
    assert errors(out)[0]["error"].startswith("rules.timeouts_skill_1_3 must be a whole number from 0 to 9, not ")


def test_the_apa9_profile_leaves_the_timeouts_open_with_apas_default():
    from scoreboard.core.profiles import compose, options

    assert (options("apa9").timeouts_skill_1_3, options("apa9").timeouts_skill_4_9) == (2, 1)
    league = compose({"profile": "apa9", "timeouts_skill_4_9": 2})
    assert league.timeouts_skill_4_9 == 2 and league.scoring == "apa"
    assert compose({}, profile="apa9", written={"timeouts_skill_1_3": 3}).timeouts_skill_1_3 == 3


def test_no_push_outs_and_no_three_foul_rule_under_apa():
    out = apa(legal_break(), i("push_out"), shot(2), shot(2), shot(2), shot(2), shot(2))
    assert errors(out)[0]["error"] == "no push outs under these rules (rules.push_outs is false)"
    assert all(line["rack_winner"] is None for line in shots(out)) and state(out)["warning"] is False


def test_a_stalemate_leaves_the_balls_on_the_table_dead():
    out = apa(legal_break(pockets=(2,)), i("stalemate"))
    assert state(out)["dead_balls"] == 8 and state(out)["points"] == [1, 0] and state(out)["rack"] == 2


@pytest.mark.parametrize("start, error", [
    ({"rules": APA}, "match_start apa_skill must be [sl0, sl1], skill levels 1 to 9, not null"),
    ({"rules": APA, "apa_skill": [0, 5]}, "match_start apa_skill must be [sl0, sl1], skill levels 1 to 9, not [0, 5]"),
    ({"apa_skill": [3, 5]}, 'match_start apa_skill needs rules.scoring "apa" (points against a skill level\'s target)'),
    ({"rules": {"scoring": "apa", "push_outs": True}, "apa_skill": [3, 5]},
     'rules.push_outs must be false under rules.scoring "apa": APA 9-ball has none'),
])
def test_a_bad_apa_match_start_is_refused_by_name(start, error):
    out = run(i("strike"), **start)
    assert errors(out)[0] == {"type": "error", "line": 1, "error": error} and state(out)["players"] is None


TO_TWELVE = (shot(1, pockets=(1, 2)), shot(3, pockets=(3, 4, 5, 6, 7, 8)), shot(9, pockets=(9,)),
             shot(1, pockets=(1, 2)))


def test_points_past_the_target_on_the_winning_shot_are_not_scored():
    """Issue 34: at 12 of 14 a shot that pockets three balls ends the match at 14, not 15; the sheet's winner line
    reads his target ([S6]: the match is over the moment the needed points are reached)."""
    out = apa(*TO_TWELVE, shot(3, pockets=(3, 4, 5)), skills=(1, 5))
    assert state(out)["points"] == [14, 0] and state(out)["match_winner"] == 0
    assert last_shot(out)["points_scored"] == 2 and last_shot(out)["pocketed"] == [3, 4, 5]


def test_the_9_worth_two_when_one_point_is_needed_scores_the_one():
    out = apa(*TO_TWELVE, shot(3, pockets=(3,)), shot(4, pockets=(9,)), skills=(1, 5))
    assert state(out)["points"] == [14, 0] and last_shot(out)["points_scored"] == 1
    assert last_shot(out)["rack_winner"] == 0 and state(out)["match_winner"] == 0


def test_a_match_stored_under_rules_version_1_keeps_the_points_past_the_target():
    lines = [start(rules=APA, apa_skill=[1, 5], race=None)]
    for part in (*TO_TWELVE, shot(3, pockets=(3, 4, 5))):
        lines += part
    old = replay((json.dumps(line) for line in lines), rules_version=1).lines()
    assert state(old)["points"] == [15, 0] and last_shot(old)["points_scored"] == 3
