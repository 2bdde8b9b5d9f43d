"""A failed break under ``break_failure: "option"`` (rules/break_choice.py): the incoming player takes the table
as it lies or has it re-racked and breaks."""

from tests.folding import errors, i, last_shot, run, shot, shots, state

OPTION = {"break_failure": "option"}
FAILED_BREAK = shot(1, rails=(2, 3))


def test_a_failed_break_is_the_incoming_players_choice_not_a_foul():
    out = run(FAILED_BREAK, rules=OPTION)
    line = last_shot(out)
    assert (line["foul"], line["break_choice"], line["next_shooter"], line["ball_in_hand"]) == (False, True, 1, False)
    assert line["fouls_in_row"] == [0, 0] and line["rules"] == ["5.4"] and state(out)["break_choice"] is True


def test_rerack_gives_the_incoming_player_a_new_rack_to_break():
    out = run(FAILED_BREAK, i("rerack"), rules=OPTION)
    end = state(out)
    assert (end["rack"], end["breaker"], end["shooter"], end["ball_in_hand"]) == (2, 1, 1, True)
    assert end["on_table"] == list(range(1, 10)) and end["score"] == [0, 0] and end["break_choice"] is False


def test_accept_or_a_shot_takes_the_table_as_it_lies():
    for taken in (run(FAILED_BREAK, i("accept"), shot(1, rails=(1,)), rules=OPTION),
                  run(FAILED_BREAK, shot(1, rails=(1,)), rules=OPTION)):
        assert [line["shooter"] for line in shots(taken)] == [0, 1] and last_shot(taken)["foul"] is False
        assert last_shot(taken)["push_out_allowed"] is False


def test_pass_and_a_late_rerack_are_refused_and_a_scratch_stays_a_foul():
    out = run(FAILED_BREAK, i("pass"), i("accept"), i("rerack"), rules=OPTION)
    assert [line["error"] for line in errors(out)] == [
        "pass answers a push out: after a failed break, accept the table or rerack",
        'rerack only after a break that failed its requirement, under break_failure "option"']
    scratched = last_shot(run(shot(1, rails=(2,), pockets=(0,)), rules=OPTION))
    assert scratched["foul"] and scratched["ball_in_hand"] and "break_choice" not in scratched
