"""The rulings in words: what a player reads on the screen and in ``replay --explain``."""

import json

from scoreboard.core.rules.words import explain, shot_in_brief
from scoreboard.matchlog.replay import replay
from tests.folding import i, legal_break, shot, start


def words(*parts, **start_fields):
    lines = [start(**start_fields)]
    for part in parts:
        lines += part if isinstance(part, list) else [part]
    result = replay(json.dumps(line) for line in lines)
    return [explain(shot_line.verdict) for shot_line in result.final[1]]


def test_bad_hit_names_both_balls_and_who_has_ball_in_hand():
    text = words(legal_break(), shot(3, rails=(3,)))[-1]
    assert text == "Foul 5.8: the 3 was hit before the 1. Ana has ball in hand."


def test_legal_break_says_who_shoots_and_the_push_out():
    assert words(legal_break())[0] == "Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5)."


def test_break_foul_says_why():
    text = words(shot(1, rails=(2, 4)))[0]
    assert text.startswith("Foul 5.4: the break pocketed nothing and drove 2 balls to a rail, not four.")


def test_the_warning_is_in_words():
    bad, miss = shot(3, rails=(3,)), shot(1, rails=(1,))
    text = words(legal_break(), bad, miss, bad, miss)[-1]
    assert text.endswith("Ben is on two fouls: a third loses the rack (5.13).")


def test_a_rack_won_gives_the_score_and_the_next_breaker():
    text = words(legal_break(), shot(1, pockets=(9,)))[-1]
    assert text == "Ben pocketed the 9 and wins the rack (5.15). Score 0-1; Ben breaks rack 2."


def test_the_match_won():
    text = words(shot(1, pockets=(9,)), race=[1, 1])[-1]
    assert text.endswith("Ana wins the match 1-0.")


def test_respot_and_assumed_balls_are_told():
    text = words(legal_break(), shot(2, pockets=(None, 9)))[-1]
    assert "Respot the 9" in text and "taken as the 1" in text


def test_push_out_and_the_choice():
    text = words(legal_break(), i("push_out"), shot())[-1]
    assert text == "Push out (5.6) by Ben. Ana chooses: shoot from here, or pass it back (5.6)."


def test_foul_between_shots():
    text = words(legal_break(), i("push_out"), shot(), i("pass"), i("foul", reason="moved_ball"))[-1]
    assert text == "Foul 5.12 between shots by Ben: a ball was moved. Ana has ball in hand."


def test_push_out_says_which_balls_stay_down():
    text = words(legal_break(), i("push_out"), shot(pockets=(4,)))[-1]
    assert text.startswith("Push out (5.6) by Ben; the 4 stays down.")
    assert "the 4 and 5 stay down" in words(legal_break(), i("push_out"), shot(pockets=(4, 5)))[-1]


def test_several_unnamed_balls_are_told_in_the_plural():
    assert "unnamed balls were taken as the 1 and 2" in words(legal_break(), shot(1, pockets=(None, None)))[-1]


def brief(*parts, in_progress=False):
    lines = [start()]
    for part in parts:
        lines += part if isinstance(part, list) else [part]
    match = replay(json.dumps(line) for line in lines).match
    last = match.last_shot()
    assert last.in_progress == in_progress
    return shot_in_brief(last.verdict, last.in_progress)


def test_a_shot_in_brief_names_the_shooter_the_balls_down_and_the_foul():
    assert brief(legal_break(), shot(5, rails=(5,), pockets=(3,))) == "Ben's shot, the 3 pocketed, foul 5.8"
    assert brief(legal_break(pockets=(3, 5))) == "Ana's break, the 3 and 5 pocketed"
    assert brief(legal_break(), shot(1, rails=(1,))) == "Ben's shot"
    assert brief(legal_break(), i("push_out"), shot(None)) == "Ben's push out"


def test_a_shot_in_brief_still_in_progress_names_no_foul_yet():
    text = brief(legal_break(), shot(pockets=(2,), end=None), in_progress=True)
    assert text == "Ben's shot in progress, the 2 pocketed"


def _explained(*parts, **fields):
    lines = [start(**fields)] + [item for part in parts for item in (part if isinstance(part, list) else [part])]
    return replay(json.dumps(line) for line in lines).explain()


def test_apa_words_say_the_points_the_dead_balls_and_the_match_won_on_points():
    said = _explained(shot(1, pockets=(3, 4)), shot(1, pockets=(1, 2, 5, 6, 7, 8)), shot(9, pockets=(9,)),
                      shot(1, pockets=(2, 3, 4, 5)), rules={"scoring": "apa"}, apa_skill=[1, 9], race=None)
    assert said[0] == ("Rack 1, break, Ana: Legal break (5.4) by Ana: the 3 and 4 down, Ana shoots again. "
                       "Ana scores 2: Ana 2, Ben 0.")
    assert said[2].endswith("Ana scores 2: Ana 10, Ben 0. Score 1-0; Ana breaks rack 2.")
    assert said[3] == ("Rack 2, break, Ana: Legal break (5.4) by Ana: the 2, 3, 4 and 5 down. Ana scores 4: "
                       "Ana 14, Ben 0. Ana reaches the target and wins the match.")
    assert said[-1] == "Ana wins the match on points: Ana 14, Ben 0."


def test_a_failed_break_under_the_option_says_who_chooses():
    said = _explained(shot(1, rails=(2,)), i("rerack"), rules={"break_failure": "option"})
    assert said[0] == ("Rack 1, break, Ana: Failed break 5.4: the break pocketed nothing and drove 1 ball to a rail, "
                       "not four. Ben chooses: take the table as it lies, or have it re-racked and break.")
    assert said[1] == "Rack 1: The balls are racked again; Ben breaks rack 2."


def _cites(*parts, **fields):
    from scoreboard.core.rules.words import cites

    lines = [start(**fields)] + [item for part in parts for item in (part if isinstance(part, list) else [part])]
    return [cites(line.verdict) for line in replay(json.dumps(line) for line in lines).final[1]]


def test_a_ruling_cites_the_rules_its_words_name_and_the_league_rule_it_applied():
    between = _cites(legal_break(), i("push_out"), shot(), i("pass"), i("foul", reason="moved_ball"))
    assert between[-1] == ("5.12",)
    assert _cites(legal_break(), shot(3, rails=(3,)))[-1] == ("5.8",)
    behind = _cites(legal_break(pockets=(2,)), shot(1, rails=(1,), pockets=(0,)),
                    rules={"ball_in_hand": "behind_head_string"})
    assert behind[-1] == ("5.7", "ball_in_hand")
    assert _cites(legal_break(pockets=(9,)), rules={"nine_on_break": "spotted"})[0][-1] == "nine_on_break"
    assert _cites(shot(1, rails=(2,)), rules={"break_failure": "option"})[0] == ("5.4", "break_failure")
    three = _cites(legal_break(), [i("foul", reason="illegal_break")], rules={"break_requirement": "three_point"})
    assert three[0] == ("5.4", "break_requirement")
    apa = _cites(shot(1, pockets=(3,)), rules={"scoring": "apa"}, apa_skill=[3, 3], race=None)
    assert apa[0] == ("5.4", "scoring")


def test_tr20_an_extension_a_late_foul_gives_back_is_said_with_the_ruling_that_gave_it_back():
    """Ana extends her turn after pocketing the 1; the scratch on that shot is called late: the turn was Ben's."""
    said = _explained(i("shot_clock", on=True), legal_break(), shot(1, rails=(1,)),
                      shot(1, rails=(1,), pockets=(1,)), i("extension"), i("foul", reason="scratch"))
    assert "Rack 1, shot 3, Ana: Foul 5.7: scratch. Ben has ball in hand. Ana has the extension back: the turn it " \
           "was taken in was not theirs (TR20)." in said
    assert sum("extension back" in line for line in said) == 1


def test_a_late_input_that_gives_no_extension_back_says_nothing_of_one():
    said = _explained(i("shot_clock", on=True), legal_break(), shot(1, rails=(1,)),
                      shot(1, rails=(1,), pockets=(1,)), i("foul", reason="scratch"))
    assert not any("extension" in line for line in said)
