"""The fold: where a shot begins and ends, what a late input belongs to, and inputs that make no sense."""

import pytest

from scoreboard.core.inputs import MatchStart, Pass, Settle, Strike
from scoreboard.core.rules import RuleError, evolve, start
from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, state

STRIKE = {"strike_sensed": True}


def test_a_settle_with_no_shot_in_progress_is_ignored():
    first = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    step = evolve(first, Settle())
    assert step.state is first and step.verdict is None


def test_a_sensor_input_begins_a_shot_without_a_strike_sensor():
    out = run(i("first_contact", ball=1), *[i("cushion", ball=b) for b in (2, 3, 4, 5)], i("settle"))
    assert shots(out)[0]["break"] is True and shots(out)[0]["foul"] is False


def test_a_strike_ends_the_shot_in_progress():
    out = run(legal_break()[:-1], shot(1, rails=(1,)))
    assert [line["shot"] for line in shots(out)] == [1, 2]


def test_the_end_of_the_log_ends_the_shot_in_progress():
    out = run(legal_break()[:-1])
    assert len(shots(out)) == 1 and state(out)["shooter"] == 1


def test_a_sensor_input_after_settle_begins_the_next_shot():
    out = run(legal_break(), i("cushion", ball=3), i("settle"))
    assert len(shots(out)) == 2 and last_shot(out)["shooter"] == 1


def test_strike_sensed_a_slow_ball_after_settle_belongs_to_its_shot():
    out = run(legal_break(), shot(1, rails=(2,)), i("pocket", ball=2), rules=STRIKE)
    assert len(shots(out)) == 2 and last_shot(out)["pocketed"] == [2] and last_shot(out)["next_shooter"] == 1


def test_strike_sensed_a_sensor_input_before_any_strike_is_an_error():
    out = run(i("pocket", ball=3), rules=STRIKE)
    assert "strike" in errors(out)[0]["error"] and state(out)["on_table"] == list(range(1, 10))


def test_strike_sensed_a_miss_is_a_whole_shot():
    out = run(legal_break(), i("miss"), rules={**STRIKE, "rails_sensed": False})
    assert len(shots(out)) == 2 and last_shot(out)["foul"] is False


def test_a_miss_after_a_ball_was_pocketed_is_an_error():
    out = run(legal_break()[:-1], i("pocket", ball=3), i("miss"))
    assert errors(out)[0]["error"] == "miss after a ball was pocketed in the same shot"
    assert shots(out)[0]["pocketed"] == [3]


def test_a_late_foul_belongs_to_the_last_shot_after_settle():
    out = run(legal_break(), shot(1, rails=(1,)), i("settle"), i("foul", reason="scratch"))
    assert len(shots(out)) == 2 and last_shot(out)["foul"] is True and last_shot(out)["shooter"] == 1


def test_5_7_r5_a_foul_after_a_between_shots_input_is_a_foul_between_shots():
    out = run(legal_break(), i("push_out"), shot(), i("accept"), i("foul", reason="other"))
    line = last_shot(out)
    assert line["between_shots"] is True and line["shooter"] == 0 and line["rules"] == ["5.7"]
    assert line["shot"] == 2 and line["next_shooter"] == 1 and line["ball_in_hand"] is True


def test_r5_a_foul_between_shots_must_be_moved_ball_or_other():
    out = run(legal_break(), i("push_out"), shot(), i("accept"), i("foul", reason="bad_hit"))
    assert "moved_ball or other" in errors(out)[0]["error"]


def test_5_15_no_foul_before_the_rack_is_broken():
    out = run(i("foul", reason="moved_ball"))
    assert "before the rack's break" in errors(out)[0]["error"]


def test_off_table_with_no_shot_to_belong_to_is_an_error():
    out = run(i("off_table", ball=3))
    assert errors(out)[0]["error"] == "off_table with no shot to belong to"


def test_a_rejected_input_leaves_the_state_as_it_was():
    first = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    in_shot = evolve(first, Strike()).state
    with pytest.raises(RuleError, match="pass without a push out"):
        evolve(in_shot, Pass())
    assert in_shot.shot is not None and in_shot.table == first.table


def test_a_between_shots_input_that_is_rejected_does_not_end_the_shot():
    out = run(legal_break()[:-1], i("accept"), i("cushion", ball=5))
    assert errors(out)[0]["line"] == 8 and len(shots(out)) == 1
    assert shots(out)[0]["foul"] is False


def test_strike_sensed_a_slow_ball_after_a_push_out_announcement_still_belongs_to_its_shot():
    out = run(legal_break(), i("push_out"), i("pocket", ball=5), rules=STRIKE)
    assert errors(out) == []
    assert shots(out)[0]["pocketed"] == [5] and shots(out)[0]["next_shooter"] == 0
    assert state(out)["shooter"] == 0 and state(out)["push_out"] is True


def test_strike_sensed_a_slow_ball_that_undoes_the_choice_after_it_is_refused():
    push_out_passed = [i("push_out"), *shot(5, rails=(5,)), i("pass")]
    out = run(legal_break(), push_out_passed, i("pocket", ball=0), rules=STRIKE)
    assert "undo the pass first" in errors(out)[0]["error"]
    assert last_shot(out)["foul"] is False and state(out)["shooter"] == 1


def test_strike_sensed_a_foul_after_a_between_shots_input_is_still_between_shots():
    out = run(legal_break(), i("push_out"), shot(), i("pass"), i("foul", reason="moved_ball"), rules=STRIKE)
    assert last_shot(out)["between_shots"] is True and last_shot(out)["shooter"] == 1


def test_strike_sensed_a_slow_ball_after_a_stalemate_amends_the_drawn_rack():
    out = run(legal_break(), i("stalemate"), i("pocket", ball=3), rules=STRIKE)
    assert shots(out)[0]["pocketed"] == [3] and state(out)["rack"] == 2
    assert state(out)["on_table"] == list(range(1, 10))


def test_a_continued_match_goes_on_from_its_start_score_with_its_breaker_breaking_the_next_rack():
    begun = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=1, start_score=(2, 1)))
    assert (begun.table.score, begun.table.rack, begun.table.breaker, begun.table.shooter) == ((2, 1), 4, 1, 1)
    assert begun.table.ball_in_hand and begun.table.match_winner is None
    won = state(run(shot(1, pockets=(9,)), start_score=[2, 1]))
    assert (won["score"], won["match_winner"]) == ([3, 1], 0)  # the 9 on the break: Ana's third rack
