"""Racks and the match: 5.2, 5.3, 5.14, 5.15, R1, R7, R8, R9."""

from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, state

NINE_ON_BREAK = shot(1, pockets=(9,))


def test_5_2_5_3_the_match_starts_with_the_chosen_breaker_and_ball_in_hand():
    out = run(breaker=1)
    assert state(out)["shooter"] == 1 and state(out)["breaker"] == 1 and state(out)["ball_in_hand"] is True
    assert state(out)["on_table"] == [1, 2, 3, 4, 5, 6, 7, 8, 9] and state(out)["rack"] == 1


def test_5_15_r1_the_9_on_a_legal_shot_wins_the_rack():
    out = run(legal_break(pockets=(1,)), shot(2, pockets=(9,)))
    line = last_shot(out)
    assert line["rack_winner"] == 0 and line["on_table"] == [2, 3, 4, 5, 6, 7, 8]
    assert line["next_shooter"] == 0 and line["ball_in_hand"] is True
    assert state(out)["score"] == [1, 0] and state(out)["rack"] == 2 and state(out)["on_table"] == list(range(1, 10))


def test_r1_the_9_on_a_legal_break_wins():
    line = shots(run(NINE_ON_BREAK))[0]
    assert line["rack_winner"] == 0 and line["rules"] == ["5.4", "5.15"]


def test_r1_the_9_on_an_illegal_break_is_respotted():
    line = shots(run(shot(1, pockets=(9, 0))))[0]
    assert line["rack_winner"] is None and line["respot_nine"] is True and line["foul"] is True


def test_r1_the_9_by_combination_wins():
    assert last_shot(run(legal_break(), shot(1, pockets=(9,))))["rack_winner"] == 1


def test_r8_winner_breaks_by_default():
    out = run(legal_break(), shot(1, pockets=(9,)))
    assert state(out)["breaker"] == 1 and state(out)["shooter"] == 1


def test_r8_alternate_breaks():
    out = run(legal_break(), shot(1, pockets=(9,)), rules={"break": "alternate"})
    assert state(out)["breaker"] == 1
    out = run(NINE_ON_BREAK, rules={"break": "alternate"})
    assert state(out)["breaker"] == 1 and state(out)["score"] == [1, 0]


def test_r8_the_race_is_per_player():
    out = run(NINE_ON_BREAK, race=[1, 3], breaker=1)
    assert state(out)["match_winner"] is None and state(out)["score"] == [0, 1]
    out = run(NINE_ON_BREAK, race=[1, 3])
    assert state(out)["match_winner"] == 0


def test_5_1_the_match_ends_at_the_race_and_takes_no_more_input():
    out = run(NINE_ON_BREAK, NINE_ON_BREAK, race=[2, 2])
    line = last_shot(out)
    assert line["rack_winner"] == 0 and line["next_shooter"] is None
    assert state(out)["match_winner"] == 0 and state(out)["shooter"] is None and state(out)["score"] == [2, 0]
    out = run(NINE_ON_BREAK, NINE_ON_BREAK, i("strike"), race=[2, 2])
    assert "match is over" in errors(out)[0]["error"]


def test_5_15_a_late_foul_on_the_winning_shot_reopens_the_match():
    out = run(NINE_ON_BREAK, NINE_ON_BREAK, i("foul", reason="scratch"), race=[2, 2])
    assert state(out)["match_winner"] is None and state(out)["score"] == [1, 0]
    assert state(out)["on_table"] == list(range(1, 10)) and state(out)["shooter"] == 1


def test_5_14_r7_stalemate_replays_the_rack_with_the_same_breaker():
    out = run(legal_break(), i("stalemate"), rules={"break": "alternate"})
    assert state(out)["rack"] == 2 and state(out)["breaker"] == 0 and state(out)["score"] == [0, 0]
    assert state(out)["shooter"] == 0 and state(out)["ball_in_hand"] is True


def test_5_14_stalemate_before_the_break_is_an_error():
    out = run(i("stalemate"))
    assert "before the break" in errors(out)[0]["error"] and state(out)["rack"] == 1


def test_5_14_the_next_rack_after_a_replay_breaks_by_the_order():
    out = run(legal_break(), i("stalemate"), NINE_ON_BREAK, rules={"break": "alternate"})
    assert shots(out)[1]["rack"] == 2 and state(out)["rack"] == 3 and state(out)["breaker"] == 1


def test_r9_concede_the_rack():
    out = run(legal_break(), i("concede", player=1))
    assert state(out)["score"] == [1, 0] and state(out)["rack"] == 2 and state(out)["breaker"] == 0


def test_r9_concede_the_rack_before_the_break():
    out = run(i("concede", player=0))
    assert state(out)["score"] == [0, 1] and state(out)["breaker"] == 1


def test_r9_conceding_the_last_rack_wins_the_match():
    out = run(i("concede", player=0), race=[1, 1])
    assert state(out)["match_winner"] == 1 and state(out)["score"] == [0, 1]


def test_r9_concede_the_match_keeps_the_score():
    out = run(NINE_ON_BREAK, i("concede", player=0, scope="match"))
    assert state(out)["match_winner"] == 1 and state(out)["score"] == [1, 0] and state(out)["shooter"] is None


def test_5_15_a_strike_after_the_match_winning_shot_ends_it_and_begins_nothing():
    out = run(i("pocket", ball=9), i("strike"), i("foul", reason="other", player=1), race=[1, 1])
    assert shots(out)[0]["rack_winner"] == 0 and shots(out)[0]["next_shooter"] is None
    assert "charged to Ana" in errors(out)[0]["error"]
    assert state(out)["match_winner"] == 0 and state(out)["shooter"] is None
