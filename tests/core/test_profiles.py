"""Rule profiles (scoreboard/core/profiles.py): named sets of the game's options, the name only a label."""

import json

import pytest

from scoreboard.core.inputs import InputError, RuleOptions, parse, to_json
from scoreboard.core.profiles import (
    CLOCK_OPTIONS,
    GAME_OPTIONS,
    PROFILES,
    TIMEOUT_OPTIONS,
    Fixed,
    compose,
    fixes,
    options,
)
from tests.folding import run, shots


def test_wpa_is_todays_rules_and_replays_as_the_same_rulings():
    assert options("wpa") == RuleOptions(profile="wpa")
    log = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
           {"type": "settle"}]
    labelled = run(*log, rules=options("wpa").to_json())
    assert shots(labelled) == shots(run(*log)) and labelled[-1]["profile"] == "wpa"


def test_apa9_and_bar_set_what_their_rules_say():
    apa9, bar = options("apa9"), options("bar")
    assert (apa9.scoring, apa9.push_outs, apa9.three_foul_rule, apa9.break_order) == ("apa", False, False, "winner")
    assert (bar.ball_in_hand, bar.nine_on_break, bar.push_outs, bar.three_foul_rule) == (
        "behind_head_string", "spotted", False, False)


def test_a_profile_keeps_the_tables_sensor_options():
    assert options("bar", RuleOptions(rails_sensed=False, strike_sensed=True)).rails_sensed is False
    assert options("bar", RuleOptions(strike_sensed=True)).strike_sensed is True
    assert "rails_sensed" not in GAME_OPTIONS and "strike_sensed" not in GAME_OPTIONS


def test_a_match_start_records_every_options_value_and_reads_back_the_same():
    for name in PROFILES:
        start = parse({"type": "match_start", "v": 1, "players": ["A", "B"], "race": [2, 2], "breaker": 0,
                       "rules": options(name).to_json(), **({"apa_skill": [3, 3]} if name == "apa9" else {})})
        written = to_json(start)["rules"]
        assert set(written) == set(RuleOptions.JSON_NAMES) and written["profile"] == name
        assert parse(json.loads(json.dumps(to_json(start)))) == start


def test_each_profile_fixes_what_its_source_decides_and_leaves_the_clock_open():
    """The clock is open in every profile, and so is APA's timeout allowance (issue 34: leagues change it; it
    counts only under APA scoring)."""
    assert [option for option in GAME_OPTIONS if option not in PROFILES["wpa"]] == [
        "break", *CLOCK_OPTIONS, *TIMEOUT_OPTIONS]
    assert [option for option in GAME_OPTIONS if option not in PROFILES["apa9"]] == [*CLOCK_OPTIONS, *TIMEOUT_OPTIONS]
    assert [option for option in GAME_OPTIONS if option not in PROFILES["bar"]] == [
        "break_requirement", "break_failure", *CLOCK_OPTIONS, *TIMEOUT_OPTIONS]


def test_an_unknown_profile_is_refused_by_name():
    with pytest.raises(InputError, match="unknown profile 'apa8'"):
        options("apa8")
    with pytest.raises(InputError, match=r"rules.profile must be 'wpa', 'apa9' or 'bar', not \"apa8\""):
        RuleOptions.from_json({"profile": "apa8"})


def test_a_label_alone_means_its_profiles_rules():
    """Issue 34 part 1: {"profile": "bar"} is refereed as bar rules, not as WPA under a bar label."""
    bar = compose({"profile": "bar"})
    assert (bar.profile, bar.nine_on_break, bar.push_outs, bar.ball_in_hand) == (
        "bar", "spotted", False, "behind_head_string")
    assert compose({"profile": "apa9"}).scoring == "apa"


def test_an_option_against_its_label_is_refused_naming_both():
    with pytest.raises(Fixed, match=r'^rules.scoring: profile "apa9" sets it to "apa": leave it out, or pick '):
        compose({"profile": "apa9", "scoring": "racks", "three_foul_rule": True})
    with pytest.raises(Fixed, match='rules.push_outs: profile "bar" sets it to false'):
        compose({"push_outs": True}, profile="bar")  # the venue's profile, when the request names none
    assert compose({"profile": "wpa", "break": "alternate"}).break_order == "alternate"  # open under wpa
    assert compose({"profile": "bar", "break_requirement": "three_point"}).break_requirement == "three_point"


def test_the_merge_goes_profile_then_venue_then_request_key_by_key():
    venue = {"shot_clock": True, "shot_clock_s": 40, "three_foul_rule": False, "ball_in_hand": "behind_head_string"}
    plain = compose({"three_foul_rule": True}, written=venue)
    assert (plain.shot_clock, plain.shot_clock_s, plain.three_foul_rule, plain.ball_in_hand) == (
        True, 40, True, "behind_head_string")
    wpa = compose({"profile": "wpa"}, written=venue)  # the profile fixes what the venue wrote: the profile's
    assert (wpa.shot_clock, wpa.shot_clock_s, wpa.three_foul_rule, wpa.ball_in_hand) == (True, 40, True, "anywhere")
    assert compose({"profile": None}, profile="apa9").scoring == "racks"  # none asked for, where not locked


def test_a_locked_venue_keeps_its_profile_and_what_it_wrote():
    venue = {"profile": "apa9", "written": {"shot_clock": True}, "locked": True}
    assert compose({"shot_clock_s": 45}, **venue).shot_clock is True  # the clock's times still open
    with pytest.raises(Fixed, match="^rules.shot_clock: the venue locked it to true$"):
        compose({"shot_clock": False}, **venue)
    with pytest.raises(Fixed, match='^the venue locked the rules to profile "apa9": rules.profile must be "apa9"$'):
        compose({"profile": "bar"}, **venue)
    with pytest.raises(Fixed):
        compose({"profile": None}, **venue)
    assert compose({"shot_clock": True}, profile="apa9", locked=True).shot_clock is True  # open: not written
    assert fixes("apa9", {"shot_clock": True}, locked=True)[-1] == "shot_clock"
    assert "shot_clock" not in fixes("apa9", {"shot_clock": True}) and "break" not in fixes("wpa")


def test_the_tables_sensors_decide_the_sensed_switches():
    taps_only = {"rails_sensed": False, "strike_sensed": False}
    assert compose({}, sensed=taps_only).rails_sensed is False
    with pytest.raises(Fixed, match="^rules.rails_sensed: this table has no rail sensors: leave it out$"):
        compose({"rails_sensed": True}, sensed=taps_only)
    with pytest.raises(Fixed, match="^rules.strike_sensed: this table has no strike sensor: leave it out$"):
        compose({"strike_sensed": True}, sensed=taps_only)
    with pytest.raises(Fixed, match=r"^rules.rails_sensed: the table's sensors decide it \(true at this table\)"):
        compose({"rails_sensed": False}, sensed={"rails_sensed": True, "strike_sensed": False})
    assert compose({"rails_sensed": False, "profile": "bar"}, sensed=taps_only).rails_sensed is False  # agrees


def test_a_bad_option_is_an_input_error_not_a_fixed_one():
    for asked in ({"scoring": "points"}, {"colour": "red"}, ["profile"], {"shot_clock_s": 5}):
        with pytest.raises(InputError) as raised:
            compose(asked)
        assert not isinstance(raised.value, Fixed), asked


def test_a_stored_label_alone_replays_as_it_was_refereed():
    """Issue 34, "Stored matches": a log written before, with a label the daemon would now fill in (or refuse),
    still parses and replays with its verdicts: compose is the daemon's check of a new request, not the fold's."""
    nine_on_break = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"}]
    old = run(*nine_on_break, rules={"profile": "bar"})
    assert shots(old)[0]["rack_winner"] == 0  # refereed then as WPA under the label: the 9 on the break wins
    assert shots(run(*nine_on_break, rules=compose({"profile": "bar"}).to_json()))[0]["rack_winner"] is None
    mixed = run(*nine_on_break, rules={"profile": "apa9", "scoring": "racks", "three_foul_rule": True})
    assert shots(mixed) == shots(run(*nine_on_break))
