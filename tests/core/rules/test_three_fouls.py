"""Three consecutive fouls (5.13, R5, R6)."""

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.rules.three_fouls import count_after, loses_rack, warning
from tests.folding import i, last_shot, legal_break, run, shot, shots, state

BAD = shot(3, rails=(3,))
MISS = shot(1, rails=(1,))


def test_5_13_three_fouls_in_a_row_lose_the_rack():
    out = run(legal_break(), BAD, MISS, BAD, MISS, BAD)
    line = last_shot(out)
    assert line["rules"] == ["5.8", "5.13"] and line["rack_winner"] == 0 and line["fouls_in_row"] == [0, 3]
    assert state(out)["score"] == [1, 0] and state(out)["rack"] == 2 and state(out)["fouls_in_row"] == [0, 0]


def test_5_13_warning_before_the_third_foul():
    out = run(legal_break(), BAD, MISS, BAD, MISS)
    assert last_shot(out)["warning"] is True and state(out)["warning"] is True
    assert state(out)["shooter"] == 1


def test_5_13_no_warning_when_the_other_player_is_to_shoot():
    out = run(legal_break(), BAD, MISS, BAD)
    assert last_shot(out)["warning"] is False and last_shot(out)["fouls_in_row"] == [0, 2]


def test_5_13_r6_a_legal_shot_clears_the_players_count():
    out = run(legal_break(), BAD, MISS, BAD, MISS, MISS, MISS, BAD)
    assert shots(out)[5]["shooter"] == 1 and shots(out)[5]["fouls_in_row"] == [0, 0]
    assert last_shot(out)["fouls_in_row"] == [0, 1] and last_shot(out)["rack_winner"] is None


def test_r6_the_count_is_reset_with_each_rack():
    out = run(legal_break(), BAD, MISS, BAD, i("concede", player=0))
    assert state(out)["fouls_in_row"] == [0, 0] and state(out)["rack"] == 2


def test_r5_a_foul_between_shots_counts_toward_three():
    push_out_passed_back = [i("push_out"), *shot(), i("pass")]
    out = run(legal_break(), push_out_passed_back, i("foul", reason="moved_ball"), MISS, BAD, MISS, BAD)
    first = shots(out)[2]
    assert first["between_shots"] is True and first["shooter"] == 1 and first["fouls_in_row"] == [0, 1]
    assert last_shot(out)["rules"] == ["5.8", "5.13"] and last_shot(out)["rack_winner"] == 0


def test_5_13_option_off_no_loss_and_no_warning():
    out = run(legal_break(), BAD, MISS, BAD, MISS, BAD, rules={"three_foul_rule": False})
    line = last_shot(out)
    assert line["rack_winner"] is None and line["fouls_in_row"] == [0, 3] and line["warning"] is False
    assert shots(out)[4]["warning"] is False


def test_count_after_counts_and_clears():
    assert count_after((1, 2), 1, True) == (1, 3)
    assert count_after((1, 2), 0, False) == (0, 2)


def test_loses_rack_and_warning_follow_the_option():
    assert loses_rack(RuleOptions(), (0, 3), 1) is True
    assert loses_rack(RuleOptions(three_foul_rule=False), (0, 3), 1) is False
    assert warning(RuleOptions(), (2, 0), 0) is True
    assert warning(RuleOptions(), (2, 0), None) is False
