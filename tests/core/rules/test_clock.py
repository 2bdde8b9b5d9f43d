"""The shot clock as the rules see it (WPA Tournament Regulation 20, TR20): timed turns, limits, extensions, the
time foul; no time in the fold (docs/rules.md, "The shot clock")."""

import json

import pytest

from scoreboard.core.inputs import InputError, parse
from scoreboard.matchlog.replay import replay
from tests.folding import errors, i, last_shot, legal_break, run, shot, shots, start, state

ON = i("shot_clock", on=True)
OFF = i("shot_clock", on=False)
EXPIRED = i("shot_clock", expired=True)
MISS = shot(1, rails=(1,))  # after a dry break the 1 is lowest: a miss that reaches a rail


def clock(out):
    return state(out)["shot_clock"]


def test_tr20_the_clock_is_off_until_turned_on_and_a_log_without_it_says_nothing_of_it():
    assert "shot_clock" not in state(run(legal_break()))
    assert errors(run(legal_break(), i("extension")))[0]["error"] == "the shot clock is off"
    assert clock(run(legal_break(), ON))["on"] is True


def test_tr20_on_from_the_start_when_the_rules_say_so():
    out = run(legal_break(), rules={"shot_clock": True})
    assert clock(out) == {"on": True, "limit": 60, "warning": 10, "extension": 25, "extensions_left": [1, 1],
                          "extended": False}


def test_tr20_the_break_is_not_timed():
    out = run(ON)
    assert clock(out)["limit"] is None
    assert errors(run(ON, EXPIRED))[0]["error"] == "the shot clock does not run for the break"


def test_tr20_the_first_shot_after_the_break_has_the_longer_limit_and_no_extension():
    out = run(ON, legal_break())
    assert clock(out)["limit"] == 60
    refused = errors(run(ON, legal_break(), i("extension")))[0]["error"]
    assert refused.startswith("no extension on the first shot after the break")


def test_tr20_later_shots_have_the_limit():
    assert clock(run(ON, legal_break(), MISS))["limit"] == 35


def test_tr20_an_extension_adds_its_seconds_to_this_turn_only_and_one_a_rack():
    out = run(ON, legal_break(), MISS, i("extension"))
    assert clock(out)["limit"] == 60 and clock(out)["extended"] is True
    assert clock(out)["extensions_left"] == [0, 1]  # Ana's dry break, Ben's miss: Ana is due, and extends
    after = run(ON, legal_break(), MISS, i("extension"), MISS)
    assert clock(after)["limit"] == 35 and clock(after)["extended"] is False  # Ben's turn: not extended
    again = run(ON, legal_break(), MISS, i("extension"), MISS, MISS, i("extension"))
    assert errors(again)[0]["error"] == "Ana has no extension left in this rack (TR20)"


def test_tr20_a_turn_has_one_extension():
    out = run(ON, legal_break(), MISS, i("extension"), i("extension"))
    assert errors(out)[0]["error"] == "this shot has its extension already"


def test_tr20_extensions_come_back_with_each_rack():
    nine = shot(1, pockets=(9,))  # Ana plays the 1 into the 9: her rack, her break
    out = run(ON, legal_break(), MISS, i("extension"), nine, legal_break(), rules={"break": "winner"})
    assert state(out)["rack"] == 2 and clock(out)["extensions_left"] == [1, 1]


def test_tr20_running_out_is_a_standard_foul_by_the_player_on_the_clock():
    out = run(ON, legal_break(), MISS, EXPIRED)
    line = last_shot(out)
    assert line["between_shots"] is True and line["time_foul"] is True and line["rules"] == ["TR20"]
    assert line["shooter"] == 0 and line["foul"] is True  # Ana was due after Ben's miss
    assert line["next_shooter"] == 1 and line["ball_in_hand"] is True and line["fouls_in_row"] == [1, 0]


def test_5_13_time_fouls_count_toward_three_fouls_in_a_row():
    # Ana runs out three times, each time after Ben's miss with ball in hand
    turn = [EXPIRED, *MISS]
    out = run(ON, legal_break(), MISS, *turn, *turn, EXPIRED)
    assert [line["rules"] for line in shots(out)][-1] == ["TR20", "5.13"]
    assert shots(out)[-1]["rack_winner"] == 1


def test_tr20_the_clock_stops_while_a_shot_is_played_and_waits_for_a_push_out_choice():
    playing = run(ON, legal_break(), [i("strike"), i("first_contact", ball=1), EXPIRED])
    assert errors(playing)[0]["error"].startswith("a shot is being played")
    choosing = run(ON, legal_break(), i("push_out"), shot("-"), EXPIRED)
    assert errors(choosing)[0]["error"] == "the shot clock waits while the choice is made"
    assert clock(run(ON, legal_break(), i("push_out"), shot("-")))["limit"] is None


def test_tr20_turned_on_mid_shot_the_shot_goes_on_as_it_was():
    out = run(ON, legal_break(), [i("strike"), i("first_contact", ball=1), OFF, i("cushion", ball=1), ON,
                                  i("settle")])
    assert errors(out) == [] and last_shot(out)["foul"] is False and clock(out)["on"] is True


def test_tr20_turning_it_twice_the_same_way_is_an_error():
    assert errors(run(ON, ON))[0]["error"] == "the shot clock is already on"
    assert errors(run(OFF))[0]["error"] == "the shot clock is already off"


def test_tr20_off_and_on_again_gives_no_extension_back():
    out = run(ON, legal_break(), MISS, i("extension"), OFF, ON)
    assert clock(out)["extensions_left"] == [0, 1]


def test_an_undo_takes_back_an_extension_and_a_time_foul():
    assert clock(run(ON, legal_break(), MISS, i("extension"), i("undo")))["extensions_left"] == [1, 1]
    out = run(ON, legal_break(), MISS, EXPIRED, i("undo"))
    assert state(out)["shooter"] == 0 and state(out)["fouls_in_row"] == [0, 0]


PUSH_OUT = [i("push_out"), *shot("-")]  # Ben pushes out after Ana's dry break: Ana chooses
LONGER_AFTER_PUSH_OUT = {"shot_clock_after_push_out_s": 60}


def test_tr20_by_default_the_shot_after_a_push_out_is_an_ordinary_turn():
    accepted = run(ON, legal_break(), PUSH_OUT, i("accept"))
    assert clock(accepted)["limit"] == 35 and state(accepted)["shooter"] == 0  # Ben pushed out, Ana takes it
    assert clock(run(ON, legal_break(), PUSH_OUT, i("accept"), i("extension")))["limit"] == 60  # its extension


@pytest.mark.parametrize("choice", ["accept", "pass"])
def test_tr20_a_longer_limit_after_a_push_out_for_whoever_shoots_it(choice):
    out = run(ON, legal_break(), PUSH_OUT, i(choice), rules=LONGER_AFTER_PUSH_OUT)
    assert clock(out)["limit"] == 60 and state(out)["shooter"] == (0 if choice == "accept" else 1)
    refused = errors(run(ON, legal_break(), PUSH_OUT, i(choice), i("extension"), rules=LONGER_AFTER_PUSH_OUT))
    assert refused[0]["error"] == "no extension on the shot after a push out: its longer limit is all it gets (TR20)"


def test_tr20_the_longer_limit_after_a_push_out_is_for_that_shot_only():
    after = run(ON, legal_break(), PUSH_OUT, i("accept"), MISS, rules=LONGER_AFTER_PUSH_OUT)
    assert clock(after)["limit"] == 35 and state(after)["shooter"] == 1
    timed_out = run(ON, legal_break(), PUSH_OUT, i("accept"), EXPIRED, rules=LONGER_AFTER_PUSH_OUT)
    assert clock(timed_out)["limit"] == 35 and state(timed_out)["ball_in_hand"] is True  # after the time foul
    fouled = run(ON, legal_break(), i("push_out"), shot("-", end=None), i("foul", reason="scratch"), i("settle"),
                 rules=LONGER_AFTER_PUSH_OUT)
    assert clock(fouled)["limit"] == 35  # a push out that fouled leaves no choice: ball in hand, an ordinary turn


def test_a_log_without_the_push_out_option_replays_as_before():
    """A match stored before the option existed has no key for it: the default, an ordinary turn after a push out."""
    from scoreboard.core.inputs import RuleOptions

    assert RuleOptions.from_json({"shot_clock": True}).shot_clock_after_push_out_s is None
    assert "shot_clock_after_push_out_s" not in RuleOptions(shot_clock=True).to_json()
    assert RuleOptions.from_json({"shot_clock_after_push_out_s": None}) == RuleOptions()


@pytest.mark.parametrize(("rules", "error"), [
    ({"shot_clock_s": 61}, "rules.shot_clock_s must be a whole number from 10 to 60, not 61"),
    ({"shot_clock_s": 30.5}, "rules.shot_clock_s must be a whole number from 10 to 60, not 30.5"),
    ({"shot_clock_warning_s": 35}, "rules.shot_clock_warning_s (35) must be less than rules.shot_clock_s (35)"),
    ({"shot_clock_s": 40, "shot_clock_after_break_s": 30},
     "rules.shot_clock_after_break_s must be from rules.shot_clock_s (40) to 60, not 30"),
    ({"shot_clock_after_break_s": 90}, "rules.shot_clock_after_break_s must be a whole number from 10 to 60, not 90"),
    ({"shot_clock_s": 40, "shot_clock_after_push_out_s": 30},
     "rules.shot_clock_after_push_out_s must be from rules.shot_clock_s (40) to 60, not 30"),
    ({"shot_clock_after_push_out_s": "60"},
     'rules.shot_clock_after_push_out_s must be a whole number from 10 to 60, not "60"'),
])
def test_tr20_clock_options_out_of_bounds_are_errors_naming_them(rules, error):
    with pytest.raises(InputError) as caught:
        parse({"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0, "rules": rules})
    assert str(caught.value) == error


def test_a_pro_event_clock_30_s_with_60_s_after_the_break():
    out = run(ON, legal_break(), rules={"shot_clock_s": 30, "shot_clock_warning_s": 10})
    assert clock(out)["limit"] == 60
    assert clock(run(ON, legal_break(), MISS, rules={"shot_clock_s": 30}))["limit"] == 30


@pytest.mark.parametrize("raw", [{"type": "shot_clock"}, {"type": "shot_clock", "on": 1},
                                 {"type": "shot_clock", "on": True, "expired": True},
                                 {"type": "shot_clock", "expired": False}])
def test_a_shot_clock_input_is_either_on_or_expired(raw):
    with pytest.raises(InputError) as caught:
        parse(raw)
    assert str(caught.value).startswith('shot_clock needs either "on": true or false')


def test_tr20_an_extension_taken_in_a_turn_a_late_foul_gives_away_is_given_back():
    """Ana pockets the 1 and extends her next turn; then the players see the cue ball had dropped unseen and call
    the scratch on her shot (5.7, late): the turn was never hers, nor the extension, so she has it back (and Ben,
    at the table now, is not extended)."""
    pocketed = shot(1, rails=(1,), pockets=(1,))
    extended = run(ON, legal_break(), MISS, pocketed, i("extension"))
    assert state(extended)["shooter"] == 0 and clock(extended)["extensions_left"] == [0, 1]
    called = run(ON, legal_break(), MISS, pocketed, i("extension"), i("foul", reason="scratch"))
    assert state(called)["shooter"] == 1 and state(called)["ball_in_hand"] is True
    assert clock(called)["extensions_left"] == [1, 1] and clock(called)["extended"] is False
    assert clock(called)["limit"] == 35


def test_tr20_a_late_input_that_keeps_the_turn_keeps_its_extension():
    unseen = [i("strike"), i("first_contact", ball=1), i("cushion", ball=1), i("pocket", pocket="foot_left"),
              i("settle")]  # a ball down the pocket could not name: taken as the 1 (R1), Ana on
    out = run(ON, legal_break(), MISS, unseen, i("extension"), i("identify", ball=1))
    assert errors(out) == [] and clock(out)["extensions_left"] == [0, 1] and clock(out)["extended"] is True


SCRATCH_BREAK = shot(1, rails=(3,), pockets=(0,))
DRY_BREAK = shot(1, rails=(3,))  # the 1 first, one ball to a rail: short of four


@pytest.mark.parametrize("fouled", [SCRATCH_BREAK, DRY_BREAK], ids=["scratch", "short_of_four_rails"])
def test_tr20_after_a_fouled_break_the_first_shot_is_an_ordinary_one(fouled):
    """The Norwegian federation's rule 10.3.15 gives the longer limit to the first shot after a *legal* break: after a
    scratch or a break short of its requirement the incoming player has 35 s and may take his extension."""
    out = run(fouled, rules={"shot_clock": True})
    assert clock(out)["limit"] == 35 and state(out)["ball_in_hand"] is True
    extended = run(fouled, i("extension"), rules={"shot_clock": True})
    assert errors(extended) == [] and clock(extended)["limit"] == 60 and clock(extended)["extended"] is True


def test_tr20_a_foul_between_shots_after_a_legal_break_leaves_the_first_shot_its_longer_limit():
    """A time foul (or a moved ball) before anyone has shot after a legal break: the next stroke is still the first
    after that break, and keeps its 60 s (10.3.15 read as written; so it was before issue 34)."""
    out = run(legal_break(), EXPIRED, rules={"shot_clock": True})
    assert state(out)["shooter"] == 0 and state(out)["ball_in_hand"] is True and clock(out)["limit"] == 60
    assert errors(run(legal_break(), EXPIRED, i("extension"), rules={"shot_clock": True}))[0]["error"].startswith(
        "no extension on the first shot after the break")


def test_tr20_after_a_failed_break_taken_as_it_lies_the_shot_is_an_ordinary_one():
    """``break_failure: "option"``: the break failed its requirement, so it was not a legal break (10.3.15)."""
    out = run(DRY_BREAK, i("accept"), rules={"shot_clock": True, "break_failure": "option"})
    assert clock(out)["limit"] == 35 and errors(out) == []


def test_tr20_the_breaker_who_pocketed_a_ball_still_has_the_longer_limit():
    out = run(legal_break(pockets=(3,)), rules={"shot_clock": True})
    assert state(out)["shooter"] == 0 and clock(out)["limit"] == 60


def test_a_match_under_rules_version_1_keeps_the_longer_limit_after_a_fouled_break():
    """Refereed before issue 34 (rules version 1): the first shot after any break had 60 s and no extension."""
    lines = [start(rules={"shot_clock": True}), *SCRATCH_BREAK, i("extension")]
    old = replay((json.dumps(line) for line in lines), rules_version=1).lines()
    assert [line["error"] for line in errors(old)] == [
        "no extension on the first shot after the break: its longer limit is all it gets (TR20)"]
    assert clock(old)["limit"] == 60
