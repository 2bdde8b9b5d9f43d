"""Deciding a shot (5.1, 5.5): who stays at the table, what is left on it."""

from scoreboard.core.inputs import Cushion, FirstContact, MatchStart, Pocket
from scoreboard.core.rules import start
from scoreboard.core.rules.decide import decide
from scoreboard.core.rules.state import Shot
from tests.folding import last_shot, legal_break, run, shot, state


def test_5_1_a_ball_pocketed_on_a_legal_shot_keeps_the_shooter_at_the_table():
    out = run(legal_break(), shot(1, pockets=(1, 4)))
    line = last_shot(out)
    assert line["pocketed"] == [1, 4] and line["next_shooter"] == 1 and line["ball_in_hand"] is False
    assert line["on_table"] == [2, 3, 5, 6, 7, 8, 9] and line["rules"] == ["5.1"]


def test_5_1_after_a_miss_the_opponent_plays_from_the_position_left():
    line = last_shot(run(legal_break(), shot(1, rails=(1,))))
    assert line["next_shooter"] == 0 and line["ball_in_hand"] is False and line["foul"] is False


def test_5_1_balls_need_not_be_pocketed_in_order():
    line = last_shot(run(legal_break(), shot(1, pockets=(6,))))
    assert line["foul"] is False and line["next_shooter"] == 1


def test_5_5_a_breaker_who_pockets_keeps_shooting():
    out = run(legal_break(pockets=(4,)), shot(1, pockets=(1,)), shot(2, rails=(2,)))
    assert [line["shooter"] for line in out if line["type"] == "shot"] == [0, 0, 0]
    assert state(out)["shooter"] == 1


def test_decide_is_the_same_for_the_same_shot():
    state0 = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    events = (FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Pocket(7))
    shot_ = Shot(state0.table, events)
    assert decide(state0.setup, shot_) == decide(state0.setup, shot_)
    table, verdict = decide(state0.setup, shot_)
    assert verdict.is_break and verdict.pocketed == (7,) and table.shooter == 0 and table.push_out_allowed


def test_nine_on_break_spotted_the_breaker_shoots_on_and_the_9_goes_back():
    line = last_shot(run(shot(1, pockets=(9,)), rules={"nine_on_break": "spotted"}))
    assert line["rack_winner"] is None and line["respot_nine"] and line["next_shooter"] == 0
    assert line["on_table"] == list(range(1, 10)) and line["rules"] == ["5.4", "5.5"] and line["foul"] is False
    assert last_shot(run(shot(1, pockets=(9,))))["rack_winner"] == 0  # the default: the 9 on the break wins


def test_ball_in_hand_behind_the_head_string_after_a_scratch_only():
    rules = {"ball_in_hand": "behind_head_string"}
    out = run(legal_break(), shot(1, rails=(1,), pockets=(0,)), rules=rules)
    assert last_shot(out)["behind_head_string"] is True and state(out)["behind_head_string"] is True
    out = run(legal_break(), shot(3, rails=(3,)), rules=rules)
    assert "behind_head_string" not in last_shot(out) and state(out)["behind_head_string"] is False
    assert "behind_head_string" not in state(run(legal_break(), shot(1, pockets=(0,))))  # the default: anywhere
