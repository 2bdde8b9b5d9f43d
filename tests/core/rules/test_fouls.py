"""Fouls (5.4, 5.7-5.12, R4, R10, R11): each sensed or called foul gives ball in hand to the opponent."""

from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, state


def test_5_8_bad_hit_gives_ball_in_hand():
    out = run(legal_break(), shot(3, rails=(3,)))
    line = last_shot(out)
    assert line["foul"] is True and "5.8" in line["rules"]
    assert line["shooter"] == 1 and line["next_shooter"] == 0 and line["ball_in_hand"] is True
    assert state(out)["shooter"] == 0 and state(out)["ball_in_hand"] is True


def test_5_8_contact_with_no_ball_is_a_bad_hit():
    line = last_shot(run(legal_break(), shot(None, rails=(0,))))
    assert line["foul"] is True and "5.8" in line["rules"]


def test_5_8_the_lowest_ball_is_the_one_on():
    out = run(legal_break(pockets=(1,)), shot(2, pockets=(2,)), shot(4, rails=(4,)), shot(3, rails=(5,)))
    verdicts = shots(out)
    assert [v["foul"] for v in verdicts] == [False, False, True, False]
    assert verdicts[2]["rules"] == ["5.8"]


def test_5_8_first_contact_not_sensed_is_taken_as_legal():
    line = last_shot(run(legal_break(), shot(rails=(5,))))
    assert line["foul"] is False


def test_5_8_called_bad_hit_overrides_a_legal_contact():
    line = last_shot(run(legal_break(), shot(1, rails=(1,), end=None), i("foul", reason="bad_hit"), i("settle")))
    assert line["foul"] is True and line["rules"] == ["5.8"]


def test_5_9_no_rail_and_nothing_pocketed_is_a_foul():
    line = last_shot(run(legal_break(), shot(1)))
    assert line["foul"] is True and line["rules"] == ["5.9"] and line["ball_in_hand"] is True


def test_5_9_a_pocketed_ball_needs_no_rail():
    line = last_shot(run(legal_break(), shot(1, pockets=(1,))))
    assert line["foul"] is False and line["next_shooter"] == 1


def test_5_9_the_cue_ball_to_a_rail_is_enough():
    assert last_shot(run(legal_break(), shot(1, rails=(0,))))["foul"] is False


def test_5_9_an_unnamed_cushion_counts():
    assert last_shot(run(legal_break(), shot(1, rails=(None,))))["foul"] is False


def test_r10_a_cushion_before_the_first_contact_does_not_count():
    out = run(legal_break(), [i("strike"), i("cushion", ball=0), i("first_contact", ball=1), i("settle")])
    assert last_shot(out)["rules"] == ["5.9"]


def test_r10_without_a_sensed_contact_any_cushion_counts():
    out = run(legal_break(), [i("strike"), i("cushion", ball=0), i("settle")])
    assert last_shot(out)["foul"] is False


def test_5_9_miss_with_rail_sensors_and_no_cushion_is_a_foul():
    out = run(legal_break(), i("miss"))
    assert last_shot(out)["foul"] is True and last_shot(out)["rules"] == ["5.9"]


def test_5_9_rails_not_sensed_is_assumed_met():
    out = run(legal_break(), i("miss"), rules={"rails_sensed": False})
    assert last_shot(out)["foul"] is False and last_shot(out)["ball_in_hand"] is False


def test_5_9_called_no_rail_overrides_rails_not_sensed():
    out = run(legal_break(), i("miss"), i("foul", reason="no_rail"), rules={"rails_sensed": False})
    assert last_shot(out)["foul"] is True and last_shot(out)["rules"] == ["5.9"]


def test_r11_scratch_is_a_foul_on_any_shot():
    line = last_shot(run(legal_break(), shot(1, rails=(1,), pockets=(2, 0))))
    assert line["foul"] is True and line["scratch"] is True and line["rules"] == ["5.7"]
    assert line["pocketed"] == [2] and 2 not in line["on_table"]


def test_5_7_balls_pocketed_on_a_foul_stay_down_and_the_9_is_respotted():
    line = last_shot(run(legal_break(), shot(3, pockets=(2, 9))))
    assert line["foul"] is True and line["pocketed"] == [2, 9]
    assert line["respot_nine"] is True and line["on_table"] == [1, 3, 4, 5, 6, 7, 8, 9]


def test_5_7_several_fouls_on_one_shot_count_as_one():
    out = run(legal_break(), shot(3, pockets=(0,)))
    line = last_shot(out)
    assert line["rules"] == ["5.8", "5.9", "5.7"] and line["fouls_in_row"] == [0, 1]


def test_5_11_r4_ball_off_the_table_is_a_foul_and_stays_out():
    out = run(legal_break(), shot(1, rails=(1,), end=None), i("off_table", ball=5), i("settle"))
    line = last_shot(out)
    assert line["foul"] is True and line["rules"] == ["5.11"] and line["off_table"] == [5]
    assert 5 not in line["on_table"] and line["ball_in_hand"] is True


def test_r4_the_9_off_the_table_is_respotted():
    out = run(legal_break(), shot(1, rails=(1,), end=None), i("off_table", ball=9), i("settle"))
    line = last_shot(out)
    assert line["respot_nine"] is True and 9 in line["on_table"]


def test_5_11_the_cue_ball_off_the_table_is_a_scratch():
    out = run(legal_break(), shot(1, rails=(1,), end=None), i("off_table", ball=0), i("settle"))
    assert last_shot(out)["scratch"] is True and last_shot(out)["foul"] is True


def test_5_12_moved_ball_called_during_a_shot():
    out = run(legal_break(), shot(1, rails=(1,), end=None), i("foul", reason="moved_ball"), i("settle"))
    assert last_shot(out)["rules"] == ["5.12"]


def test_5_4_break_must_hit_the_1_first():
    line = shots(run(shot(3, rails=(2, 4, 6, 7))))[0]
    assert line["foul"] is True and line["rules"] == ["5.4"] and line["break"] is True


def test_5_4_break_needs_a_pocket_or_four_balls_to_a_rail():
    line = shots(run(shot(1, rails=(2, 4, 6))))[0]
    assert line["foul"] is True and line["rules"] == ["5.4"]
    assert line["next_shooter"] == 1 and line["ball_in_hand"] is True


def test_5_4_the_cue_ball_does_not_count_to_the_four():
    assert shots(run(shot(1, rails=(0, 2, 4, 6))))[0]["foul"] is True


def test_5_4_a_ball_to_a_rail_twice_counts_once():
    assert shots(run(shot(1, rails=(2, 2, 4, 6))))[0]["foul"] is True


def test_5_4_unnamed_cushions_count_toward_the_four():
    assert shots(run(shot(1, rails=(None, None, 2, 4))))[0]["foul"] is False


def test_5_4_a_pocketed_ball_makes_the_break_legal_without_rails():
    line = shots(run(shot(1, pockets=(5,))))[0]
    assert line["foul"] is False and line["next_shooter"] == 0


def test_5_4_rails_not_sensed_the_four_balls_are_assumed():
    line = shots(run(shot(1), rules={"rails_sensed": False}))[0]
    assert line["foul"] is False


def test_5_4_scratch_on_the_break():
    line = shots(run(shot(1, rails=(2, 4, 6, 7), pockets=(3, 0))))[0]
    assert line["foul"] is True and line["rules"] == ["5.4"] and line["pocketed"] == [3]


def test_5_4_object_ball_off_the_table_on_the_break_stays_out():
    out = run(shot(1, rails=(2, 4, 6, 7), end=None), i("off_table", ball=4), i("settle"))
    line = shots(out)[0]
    assert line["foul"] is True and 4 not in line["on_table"]


def test_5_4_the_9_off_the_table_on_the_break_is_respotted():
    out = run(shot(1, rails=(2, 4, 6, 7), end=None), i("off_table", ball=9), i("settle"))
    line = shots(out)[0]
    assert line["respot_nine"] is True and 9 in line["on_table"]


def test_5_4_called_illegal_break():
    out = run(legal_break(), i("foul", reason="illegal_break"))
    assert shots(out)[0]["foul"] is True and shots(out)[0]["rules"] == ["5.4"]


def test_5_4_illegal_break_called_on_another_shot_is_an_error():
    out = run(legal_break(), shot(1, rails=(1,)), i("foul", reason="illegal_break"))
    assert errors(out)[0]["error"] == "illegal_break only on the break (5.4)"
    assert last_shot(out)["foul"] is False


def test_5_6_bad_hit_cannot_be_called_on_a_push_out():
    out = run(legal_break(), i("push_out"), shot(5), i("foul", reason="bad_hit"))
    assert "push out" in errors(out)[0]["error"]
    assert last_shot(out)["foul"] is False and last_shot(out)["push_out"] is True


def test_5_6_a_scratch_on_a_push_out_is_a_foul():
    out = run(legal_break(), i("push_out"), shot(pockets=(0,)))
    line = last_shot(out)
    assert line["push_out"] is True and line["foul"] is True and line["ball_in_hand"] is True
    assert state(out)["awaiting_choice"] is False


def test_fouls_name_the_player_charged():
    out = run(legal_break(), shot(1, rails=(1,)), i("foul", reason="bad_hit", player=0))
    assert "charged to Ben" in errors(out)[0]["error"]
    assert last_shot(out)["foul"] is False


def test_5_10_ball_in_hand_lasts_until_the_incoming_player_shoots():
    fouled = run(legal_break(), shot(3, rails=(3,)), i("settle"))
    assert state(fouled)["ball_in_hand"] is True and state(fouled)["shooter"] == 0
    played = run(legal_break(), shot(3, rails=(3,)), shot(1, rails=(1,)))
    assert last_shot(played)["ball_in_hand"] is False and state(played)["ball_in_hand"] is False


# The 3-point rule (break_requirement: "three_point")

THREE_POINT = {"break_requirement": "three_point"}


def test_three_point_a_break_is_taken_as_meeting_it_until_a_player_taps_that_it_failed():
    assert last_shot(run(shot(1, rails=(2,)), rules=THREE_POINT))["foul"] is False  # no sensor sees the head string
    line = last_shot(run(shot(1, rails=(2,)), i("foul", reason="illegal_break"), rules=THREE_POINT))
    assert line["foul"] and line["rules"] == ["5.4"] and line["ball_in_hand"] and line["next_shooter"] == 1


def test_three_point_is_waived_when_two_balls_are_pocketed():
    out = run(shot(1, pockets=(2, 6)), i("foul", reason="no_rail"), rules=THREE_POINT)
    assert errors(out)[0]["error"] == ("no_rail cannot be called: the break pocketed two balls, so the 3-point "
                                       "rule is met")
    assert last_shot(out)["foul"] is False and last_shot(out)["next_shooter"] == 0


def test_three_point_still_needs_the_1_hit_first():
    line = last_shot(run(shot(3, rails=(2, 4, 5, 6)), rules=THREE_POINT))
    assert line["foul"] and line["rules"] == ["5.4"]
