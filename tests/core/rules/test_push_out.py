"""Push out (5.5, 5.6, R2, R3): announced on the first shot after a legal break; the opponent chooses."""

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.rules import push_out
from scoreboard.core.rules.state import RuleError, rack_table
from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, state


def test_5_5_r2_after_a_legal_dry_break_the_opponent_may_push_out():
    line = shots(run(legal_break()))[0]
    assert line["next_shooter"] == 1 and line["push_out_allowed"] is True


def test_r2_after_a_break_that_pockets_the_breaker_may_push_out():
    line = shots(run(legal_break(pockets=(3,))))[0]
    assert line["next_shooter"] == 0 and line["push_out_allowed"] is True


def test_r2_no_push_out_after_a_foul_on_the_break():
    out = run(shot(1, rails=(2,)), i("push_out"))
    assert shots(out)[0]["push_out_allowed"] is False
    assert errors(out)[0]["error"] == "push out only on the first shot after a legal break (5.6, R2)"


def test_r2_option_push_out_after_break_foul():
    out = run(shot(1, rails=(2,)), i("push_out"), rules={"push_out_after_break_foul": True})
    assert shots(out)[0]["push_out_allowed"] is True and errors(out) == []
    assert state(out)["push_out"] is True


def test_5_6_push_out_only_on_the_first_shot_after_the_break():
    out = run(legal_break(), shot(1, rails=(1,)), i("push_out"))
    assert errors(out)[0]["line"] == 13


def test_5_6_push_out_needs_no_contact_and_no_rail():
    out = run(legal_break(), i("push_out"), shot("-"))
    line = last_shot(out)
    assert line["push_out"] is True and line["foul"] is False and line["rules"] == ["5.6"]
    assert line["next_shooter"] == 0 and line["ball_in_hand"] is False
    assert state(out)["awaiting_choice"] is True and state(out)["shooter"] == 0


def test_5_6_a_push_out_that_hits_a_higher_ball_is_no_bad_hit():
    assert last_shot(run(legal_break(), i("push_out"), shot(7)))["foul"] is False


def test_5_6_balls_pocketed_on_a_push_out_stay_down_and_the_shooter_does_not_continue():
    line = last_shot(run(legal_break(), i("push_out"), shot(4, pockets=(4,))))
    assert line["pocketed"] == [4] and 4 not in line["on_table"] and line["next_shooter"] == 0


def test_5_6_r1_the_9_pocketed_on_a_push_out_is_respotted():
    line = last_shot(run(legal_break(), i("push_out"), shot(9, pockets=(9,))))
    assert line["respot_nine"] is True and 9 in line["on_table"] and line["rack_winner"] is None


def test_5_6_accept_the_opponent_shoots():
    out = run(legal_break(), i("push_out"), shot(), i("accept"))
    assert state(out)["shooter"] == 0 and state(out)["awaiting_choice"] is False


def test_5_6_r3_pass_the_player_who_pushed_out_must_shoot():
    out = run(legal_break(), i("push_out"), shot(), i("pass"))
    assert state(out)["shooter"] == 1 and state(out)["ball_in_hand"] is False


def test_r3_a_foul_after_a_pass_is_an_ordinary_foul():
    out = run(legal_break(), i("push_out"), shot(), i("pass"), shot(4, rails=(4,)))
    line = last_shot(out)
    assert line["shooter"] == 1 and line["foul"] is True and line["next_shooter"] == 0
    assert line["ball_in_hand"] is True


def test_5_6_a_shot_while_the_choice_is_pending_counts_as_accept():
    out = run(legal_break(), i("push_out"), shot(), shot(1, rails=(1,)))
    assert last_shot(out)["shooter"] == 0


def test_5_6_pass_without_a_push_out_is_an_error():
    out = run(legal_break(), i("pass"))
    assert errors(out) == [{"type": "error", "line": 9, "error": "pass without a push out to answer (5.6)"}]


def test_5_6_accept_without_a_push_out_is_an_error():
    assert "push out" in errors(run(legal_break(), i("accept")))[0]["error"]


def test_5_6_a_push_out_announced_twice_is_an_error():
    out = run(legal_break(), i("push_out"), i("push_out"))
    assert errors(out)[0]["error"] == "push out already announced"


def test_5_6_announcing_ends_the_shot_in_progress():
    out = run(legal_break(pockets=(2,))[:-1], i("push_out"))
    assert shots(out)[0]["pocketed"] == [2] and state(out)["push_out"] is True


def test_announce_is_refused_where_the_table_does_not_allow_it():
    table = rack_table((0, 0), 1, 0)
    try:
        push_out.announce(table)
    except RuleError as error:
        assert "5.6" in str(error)
    else:
        raise AssertionError("a push out before the break was allowed")


def test_allowed_after_break_follows_the_option():
    assert push_out.allowed_after_break(RuleOptions(), False) is True
    assert push_out.allowed_after_break(RuleOptions(), True) is False
    assert push_out.allowed_after_break(RuleOptions(push_out_after_break_foul=True), True) is True


def test_with_push_outs_off_the_shot_after_the_break_is_an_ordinary_shot():
    out = run(legal_break(), i("push_out"), shot(1, rails=(1,)), rules={"push_outs": False})
    assert last_shot(out)["push_out"] is False and shots(out)[0]["push_out_allowed"] is False
    assert errors(out)[0]["error"] == "no push outs under these rules (rules.push_outs is false)"
    assert not push_out.allowed_after_break(RuleOptions(push_outs=False), False)
