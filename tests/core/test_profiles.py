"""Rule profiles (scoreboard/core/profiles.py): named sets of the game's options, the name only a label."""

import json

import pytest

from scoreboard.core.inputs import InputError, RuleOptions, parse, to_json
from scoreboard.core.profiles import GAME_OPTIONS, PROFILES, differences, options
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


def test_differences_name_the_game_options_that_differ():
    assert differences(options("wpa"), options("apa9")) == ["three_foul_rule", "scoring", "push_outs"]
    assert differences(options("bar", RuleOptions(rails_sensed=False)), options("bar")) == []


def test_an_unknown_profile_is_refused_by_name():
    with pytest.raises(InputError, match="unknown profile 'apa8'"):
        options("apa8")
    with pytest.raises(InputError, match=r"rules.profile must be 'wpa', 'apa9' or 'bar', not \"apa8\""):
        RuleOptions.from_json({"profile": "apa8"})
