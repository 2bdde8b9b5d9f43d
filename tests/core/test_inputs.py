"""The inputs of the match log (docs: shared spec match-log.md, "Inputs" and "Rule options").

Good forms parse to the right typed value and ``to_json`` writes them back; every bad form
raises ``InputError`` with a message that names the field and the problem.
"""

from __future__ import annotations

import json
import re

import pytest

from scoreboard.core.inputs import (
    Accept,
    Concede,
    Cushion,
    FirstContact,
    Foul,
    Identify,
    InputError,
    MatchStart,
    Miss,
    OffTable,
    Pass,
    Pocket,
    PushOut,
    RuleOptions,
    Settle,
    Stalemate,
    Strike,
    Undo,
    UndoShot,
    parse,
    to_json,
)
from scoreboard.matchlog.jsonl import parse_line

SPEC_POCKETS = ["head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right"]
SPEC_RAILS = ["head", "foot", "left_head", "left_foot", "right_head", "right_foot"]
SPEC_SOURCES = ["gpio", "serial", "touch", "mqtt", "camera", "replay"]
SPEC_FOUL_REASONS = ["bad_hit", "no_rail", "scratch", "off_table", "moved_ball", "illegal_break", "other"]

# Input types with no fields of their own, and their classes.
BARE_TYPES = {
    "strike": Strike,
    "push_out": PushOut,
    "accept": Accept,
    "pass": Pass,
    "miss": Miss,
    "settle": Settle,
    "stalemate": Stalemate,
    "undo": Undo,
    "undo_shot": UndoShot,
}


def match_start(**changes) -> dict:
    """A valid match_start object, with fields changed (or removed, with the value ``...``)."""
    raw = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}
    raw.update(changes)
    return {key: value for key, value in raw.items() if value is not ...}


def error_of(raw) -> str:
    """The message of the InputError that ``parse(raw)`` raises."""
    with pytest.raises(InputError) as caught:
        parse(raw)
    return str(caught.value)


def assert_error(raw, *words: str) -> None:
    message = error_of(raw)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


# One valid example of every input type (the smallest form), for the checks that cover all types.
ONE_OF_EACH = [
    match_start(),
    *({"type": name} for name in BARE_TYPES),
    {"type": "first_contact", "ball": 1},
    {"type": "cushion"},
    {"type": "pocket", "ball": 3},
    {"type": "identify", "ball": 4},
    {"type": "off_table", "ball": 0},
    {"type": "foul", "reason": "bad_hit"},
    {"type": "concede", "player": 1},
]
ALL_TYPES = [raw["type"] for raw in ONE_OF_EACH]


def test_every_input_type_of_the_spec_has_an_example_here():
    assert sorted(ALL_TYPES) == sorted([
        "match_start", "strike", "first_contact", "cushion", "pocket", "identify", "off_table",
        "push_out", "accept", "pass", "foul", "miss", "settle", "stalemate", "concede", "undo",
        "undo_shot",  # Devetka's v1 extension (docs/match-log.md)
    ])


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)


# --- Good forms ------------------------------------------------------------------------------------


def test_match_start_parses_players_race_breaker_and_version():
    item = parse(match_start(breaker=1, race=[5, 7]))
    assert item == MatchStart(players=("Ana", "Ben"), race=(5, 7), breaker=1)
    assert item.v == 1
    assert item.table is None
    assert item.t is None and item.src is None


def test_rule_options_default_to_the_spec_table_when_rules_absent():
    options = parse(match_start()).options
    assert options == RuleOptions()
    assert options.break_order == "winner"
    assert options.rails_sensed is True
    assert options.push_out_after_break_foul is False
    assert options.three_foul_rule is True
    assert options.strike_sensed is False


def test_empty_rules_object_keeps_every_default():
    assert parse(match_start(rules={})).options == RuleOptions()


@pytest.mark.parametrize(
    "rules, attribute, value",
    [
        ({"break": "winner"}, "break_order", "winner"),
        ({"break": "alternate"}, "break_order", "alternate"),
        ({"rails_sensed": False}, "rails_sensed", False),
        ({"rails_sensed": True}, "rails_sensed", True),
        ({"push_out_after_break_foul": True}, "push_out_after_break_foul", True),
        ({"three_foul_rule": False}, "three_foul_rule", False),
        ({"strike_sensed": True}, "strike_sensed", True),
    ],
)
def test_each_rule_option_is_read_and_the_others_keep_their_default(rules, attribute, value):
    options = parse(match_start(rules=rules)).options
    assert getattr(options, attribute) == value
    defaults = RuleOptions()
    for other in ("break_order", "rails_sensed", "push_out_after_break_foul", "three_foul_rule", "strike_sensed"):
        if other != attribute:
            assert getattr(options, other) == getattr(defaults, other)


def test_all_rule_options_together():
    rules = {
        "break": "alternate", "rails_sensed": False, "push_out_after_break_foul": True,
        "three_foul_rule": False, "strike_sensed": True,
    }
    assert parse(match_start(rules=rules)).options == RuleOptions(
        break_order="alternate", rails_sensed=False, push_out_after_break_foul=True,
        three_foul_rule=False, strike_sensed=True,
    )


def test_match_start_table_is_kept():
    assert parse(match_start(table="Table 3")).table == "Table 3"


@pytest.mark.parametrize("name, cls", BARE_TYPES.items())
def test_input_types_without_fields_parse_to_their_class(name, cls):
    assert parse({"type": name}) == cls()


@pytest.mark.parametrize("ball", [1, 2, 5, 9, None])
def test_first_contact_ball_is_1_to_9_or_null_for_none(ball):
    assert parse({"type": "first_contact", "ball": ball}) == FirstContact(ball=ball)


def test_cushion_ball_and_rail_are_optional():
    assert parse({"type": "cushion"}) == Cushion(ball=None, rail=None)


@pytest.mark.parametrize("ball", [0, 1, 9])
def test_cushion_ball_is_0_to_9(ball):
    assert parse({"type": "cushion", "ball": ball}) == Cushion(ball=ball)


@pytest.mark.parametrize("rail", SPEC_RAILS)
def test_cushion_rail_takes_each_rail_name_of_the_spec(rail):
    assert parse({"type": "cushion", "ball": 2, "rail": rail}) == Cushion(ball=2, rail=rail)


@pytest.mark.parametrize("ball", [0, 1, 5, 9])
def test_pocket_ball_is_0_for_the_cue_ball_or_1_to_9(ball):
    assert parse({"type": "pocket", "ball": ball}) == Pocket(ball=ball)


@pytest.mark.parametrize("raw", [{"type": "pocket"}, {"type": "pocket", "ball": None}])
def test_pocket_ball_null_or_absent_is_an_unidentified_object_ball(raw):
    assert parse(raw) == Pocket(ball=None)


@pytest.mark.parametrize("pocket", SPEC_POCKETS)
def test_pocket_takes_each_pocket_name_of_the_spec(pocket):
    assert parse({"type": "pocket", "ball": 3, "pocket": pocket}) == Pocket(ball=3, pocket=pocket)


@pytest.mark.parametrize("ball", range(1, 10))
def test_identify_ball_is_1_to_9(ball):
    assert parse({"type": "identify", "ball": ball}) == Identify(ball=ball)


@pytest.mark.parametrize("ball", range(0, 10))
def test_off_table_ball_is_0_to_9(ball):
    assert parse({"type": "off_table", "ball": ball}) == OffTable(ball=ball)


@pytest.mark.parametrize("reason", SPEC_FOUL_REASONS)
def test_foul_takes_each_reason_of_the_spec_and_player_is_optional(reason):
    assert parse({"type": "foul", "reason": reason}) == Foul(reason=reason, player=None)


@pytest.mark.parametrize("player", [0, 1])
def test_foul_may_name_the_player(player):
    assert parse({"type": "foul", "reason": "scratch", "player": player}) == Foul(reason="scratch", player=player)


@pytest.mark.parametrize("player", [0, 1])
def test_concede_scope_defaults_to_rack(player):
    assert parse({"type": "concede", "player": player}) == Concede(player=player, scope="rack")


@pytest.mark.parametrize("scope", ["rack", "match"])
def test_concede_scope_is_rack_or_match(scope):
    assert parse({"type": "concede", "player": 0, "scope": scope}) == Concede(player=0, scope=scope)


@pytest.mark.parametrize("raw", ONE_OF_EACH, ids=ALL_TYPES)
def test_t_and_src_are_optional_on_every_type(raw):
    item = parse(raw)
    assert item.t is None and item.src is None


@pytest.mark.parametrize("raw", ONE_OF_EACH, ids=ALL_TYPES)
def test_t_is_read_as_float_seconds_on_every_type(raw):
    item = parse({**raw, "t": 12.25})
    assert item.t == 12.25
    assert isinstance(item.t, float)


@pytest.mark.parametrize("t", [0, 7, 3600])
def test_t_given_as_a_whole_number_becomes_a_float(t):
    item = parse({"type": "strike", "t": t})
    assert item.t == float(t) and type(item.t) is float


@pytest.mark.parametrize("src", SPEC_SOURCES)
def test_src_takes_each_source_of_the_spec(src):
    assert parse({"type": "pocket", "ball": 1, "src": src}).src == src
    assert parse(match_start(src=src)).src == src


# --- to_json ---------------------------------------------------------------------------------------

ROUND_TRIP = [
    *ONE_OF_EACH,
    match_start(rules={"break": "alternate"}),
    match_start(rules={"rails_sensed": False, "strike_sensed": True, "three_foul_rule": False,
                       "push_out_after_break_foul": True}),
    match_start(table="Club table 2", t=0.0, src="touch", breaker=1, race=[2, 9]),
    {"type": "strike", "t": 1.5, "src": "gpio"},
    {"type": "first_contact", "ball": None},
    {"type": "first_contact", "ball": 9, "src": "camera"},
    {"type": "cushion", "ball": 0, "rail": "left_foot"},
    {"type": "cushion", "rail": "head"},
    {"type": "cushion", "ball": 7},
    {"type": "pocket"},
    {"type": "pocket", "ball": 0, "pocket": "side_right", "t": 3.0, "src": "serial"},
    {"type": "pocket", "pocket": "head_left"},
    {"type": "identify", "ball": 9, "src": "touch"},
    {"type": "off_table", "ball": 8},
    {"type": "foul", "reason": "moved_ball", "player": 0, "src": "mqtt"},
    {"type": "concede", "player": 0, "scope": "match"},
    {"type": "undo", "t": 99.0, "src": "replay"},
    {"type": "undo_shot", "t": 99.5, "src": "touch"},
]


@pytest.mark.parametrize("raw", ROUND_TRIP, ids=lambda raw: raw["type"])
def test_to_json_round_trips_through_parse(raw):
    item = parse(raw)
    written = to_json(item)
    assert written["type"] == raw["type"]
    assert parse(written) == item


@pytest.mark.parametrize("raw", ROUND_TRIP, ids=lambda raw: raw["type"])
def test_to_json_is_json_text_that_parse_line_reads_back(raw):
    item = parse(raw)
    assert parse_line(json.dumps(to_json(item))) == item


SPEC_EXAMPLE = """\
{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}
{"type":"strike"}
{"type":"first_contact","ball":1}
{"type":"cushion","ball":2}
{"type":"cushion","ball":5}
{"type":"pocket","ball":3,"pocket":"foot_left"}
{"type":"settle"}
{"type":"push_out"}
{"type":"strike"}
{"type":"cushion","ball":0}
{"type":"settle"}
{"type":"pass"}
"""


@pytest.mark.parametrize("line", SPEC_EXAMPLE.splitlines())
def test_to_json_writes_back_the_spec_example_lines(line):
    assert to_json(parse_line(line)) == json.loads(line)


def test_to_json_keeps_first_contact_with_no_ball_as_null():
    assert to_json(FirstContact(ball=None)) == {"type": "first_contact", "ball": None}


def test_to_json_keeps_non_default_rule_options():
    written = to_json(parse(match_start(rules={"break": "alternate", "rails_sensed": False})))
    assert written["rules"]["break"] == "alternate"
    assert written["rules"]["rails_sensed"] is False


# --- Unknown fields --------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ONE_OF_EACH, ids=ALL_TYPES)
def test_unknown_fields_are_ignored_on_every_type(raw):
    extra = {"colour": "red", "speed": 3.5, "nested": {"a": [1, 2]}, "flag": None}
    assert parse({**raw, **extra}) == parse(raw)


# --- Bad forms: the envelope -----------------------------------------------------------------------


@pytest.mark.parametrize("raw", [[], [{"type": "strike"}], 3, 1.5, "strike", True, None],
                         ids=["empty list", "list", "int", "float", "string", "bool", "null"])
def test_an_input_must_be_a_json_object(raw):
    assert_error(raw, "object")


@pytest.mark.parametrize("raw", [{}, {"ball": 3}, {"type": None}])
def test_missing_type_is_an_error(raw):
    assert_error(raw, "missing type")


@pytest.mark.parametrize("kind", [5, True, ["strike"], {"name": "strike"}])
def test_type_must_be_a_string(kind):
    assert_error({"type": kind}, "type", "string")


def test_unknown_type_is_named_in_the_error():
    assert error_of({"type": "teleport"}) == "unknown type 'teleport'"


@pytest.mark.parametrize("kind", ["Strike", "STRIKE", "shot", ""])
def test_type_names_are_exact(kind):
    assert_error({"type": kind}, "unknown type")


@pytest.mark.parametrize("t", ["1.5", True, False, [1], {"s": 1}, float("nan"), float("inf"), float("-inf")],
                         ids=["string", "true", "false", "list", "object", "nan", "inf", "-inf"])
def test_t_must_be_a_finite_number_of_seconds(t):
    assert_error({"type": "strike", "t": t}, "t must be", "number")


@pytest.mark.parametrize("src", ["sensor", "GPIO", "", 1, True, ["gpio"]])
def test_src_must_be_one_of_the_spec_sources(src):
    assert_error({"type": "settle", "src": src}, "src", "must be one of")


# --- Bad forms: ball -------------------------------------------------------------------------------

# The types with a ball, and the range of balls each takes (as its error message names it).
BALL_FIELDS = {
    "first_contact": "1-9",
    "cushion": "0-9",
    "pocket": "0-9",
    "identify": "1-9",
    "off_table": "0-9",
}

BAD_BALLS = [
    ("first_contact", 0), ("first_contact", 10), ("first_contact", -1),
    ("cushion", 10), ("cushion", -1),
    ("pocket", 10), ("pocket", -1), ("pocket", 15),
    ("identify", 0), ("identify", 10),
    ("off_table", 10), ("off_table", -1),
]


@pytest.mark.parametrize("kind, ball", BAD_BALLS)
def test_ball_out_of_range_is_an_error_naming_the_range(kind, ball):
    assert_error({"type": kind, "ball": ball}, kind, "ball", BALL_FIELDS[kind])


@pytest.mark.parametrize("kind", BALL_FIELDS)
@pytest.mark.parametrize("ball", ["3", 3.0, 1.0, True, False, [3], {"n": 3}],
                         ids=["string", "float 3.0", "float 1.0", "true", "false", "list", "object"])
def test_ball_must_be_an_integer_not_a_string_float_or_bool(kind, ball):
    assert_error({"type": kind, "ball": ball}, kind, "ball", BALL_FIELDS[kind])


@pytest.mark.parametrize("kind", ["first_contact", "identify", "off_table"])
def test_ball_is_required_where_the_spec_says_so(kind):
    assert_error({"type": kind}, kind, "ball", BALL_FIELDS[kind])


@pytest.mark.parametrize("kind", ["identify", "off_table"])
def test_ball_null_is_an_error_where_the_spec_allows_no_null(kind):
    assert_error({"type": kind, "ball": None}, kind, "ball", "null")


def test_pocket_ball_must_be_0_to_9_or_null():
    message = error_of({"type": "pocket", "ball": 11})
    assert "ball" in message and "0-9" in message and "null" in message


# --- Bad forms: names from a list --------------------------------------------------------------------


@pytest.mark.parametrize("pocket", ["corner", "foot", "FOOT_LEFT", "left_foot", "", 1, True])
def test_pocket_name_must_be_one_of_the_six_pockets(pocket):
    assert_error({"type": "pocket", "ball": 1, "pocket": pocket}, "pocket", "must be one of", "foot_left")


@pytest.mark.parametrize("rail", ["left", "side", "foot_left", "HEAD", "", 2, False])
def test_rail_name_must_be_one_of_the_six_rails(rail):
    assert_error({"type": "cushion", "ball": 1, "rail": rail}, "rail", "must be one of", "left_head")


@pytest.mark.parametrize("reason", ["push_out", "bad hit", "BAD_HIT", "", 1, True])
def test_foul_reason_must_be_one_of_the_spec_reasons(reason):
    assert_error({"type": "foul", "reason": reason}, "reason", "must be one of", "bad_hit")


@pytest.mark.parametrize("raw", [{"type": "foul"}, {"type": "foul", "reason": None}])
def test_foul_reason_is_required(raw):
    assert_error(raw, "foul", "reason")


@pytest.mark.parametrize("scope", ["game", "set", "Rack", "", 1, True])
def test_concede_scope_must_be_rack_or_match(scope):
    assert_error({"type": "concede", "player": 0, "scope": scope}, "scope", "rack", "match")


# --- Bad forms: player -----------------------------------------------------------------------------

BAD_PLAYERS = [2, -1, "0", "1", 1.0, 0.0, True, False, [0]]
BAD_PLAYER_IDS = ["2", "-1", "string 0", "string 1", "float 1.0", "float 0.0", "true", "false", "list"]


@pytest.mark.parametrize("player", BAD_PLAYERS, ids=BAD_PLAYER_IDS)
def test_foul_player_must_be_0_or_1(player):
    assert_error({"type": "foul", "reason": "bad_hit", "player": player}, "player", "0 or 1")


@pytest.mark.parametrize("player", BAD_PLAYERS, ids=BAD_PLAYER_IDS)
def test_concede_player_must_be_0_or_1(player):
    assert_error({"type": "concede", "player": player}, "player", "0 or 1")


@pytest.mark.parametrize("raw", [{"type": "concede"}, {"type": "concede", "player": None},
                                 {"type": "concede", "scope": "match"}])
def test_concede_player_is_required(raw):
    assert_error(raw, "concede", "player", "0 or 1")


# --- Bad forms: match_start ------------------------------------------------------------------------


@pytest.mark.parametrize("v", [..., None, 2, 0, "1", 1.0, True],
                         ids=["missing", "null", "2", "0", "string 1", "float 1.0", "true"])
def test_match_start_v_must_be_the_integer_1(v):
    assert_error(match_start(v=v), "v must be 1")


@pytest.mark.parametrize(
    "players",
    [..., None, ["Ana"], ["Ana", "Ben", "Cid"], [], ["Ana", ""], ["", "Ben"], ["Ana", "   "],
     ["Ana", 7], [None, "Ben"], ["Ana", ["Ben"]], "Ana and Ben", {"0": "Ana", "1": "Ben"}],
    ids=["missing", "null", "one name", "three names", "no names", "empty second", "empty first", "blank",
         "number", "null name", "list name", "string", "object"],
)
def test_match_start_players_must_be_two_non_empty_names(players):
    assert_error(match_start(players=players), "players", "2", "non-empty")


@pytest.mark.parametrize("players, words", [
    (["Ana", "B" * 41], ("players", "at most 40 characters, not 41")),
    (["A" * 100_000, "Ben"], ("players", "at most 40 characters, not 100000")),
    (["Ana", "Ben\x07"], ("players", "only printable characters, not '\\x07'")),
    (["Ana\nBen", "Cid"], ("players", "only printable characters, not '\\n'")),
    (["Ana", "Ben\x00"], ("players", "only printable characters, not '\\x00'")),
    (["Ana", "B\u202eneB"], ("players", "only printable characters")),
], ids=["41 characters", "100,000 characters", "bell", "newline", "nul", "right-to-left override"])
def test_match_start_names_are_bounded_and_printable(players, words):
    assert_error(match_start(players=players), *words)


def test_a_name_of_40_printable_characters_and_a_race_to_99_are_taken():
    item = parse(match_start(players=["Đorđe Petrović " + "x" * 25, "Ana"], race=[9999, 1]))
    assert item.players[0].startswith("Đorđe") and len(item.players[0]) == 40 and item.race == (9999, 1)


@pytest.mark.parametrize("race", [[10000, 2], [2, 9223372036854775808], [10**30, 1]],
                         ids=["10000", "2**63", "10**30"])
def test_match_start_race_is_at_most_9999(race):
    assert_error(match_start(race=race), "race", "at most 9999")


@pytest.mark.parametrize("table", ["t" * 41, "bar\x1b[2J"], ids=["41 characters", "escape"])
def test_match_start_table_is_bounded_and_printable(table):
    assert_error(match_start(table=table), "table", "at most 40 printable characters")


@pytest.mark.parametrize(
    "race",
    [..., None, [0, 3], [3, 0], [-1, 3], [3], [3, 3, 3], [], 3, "3,3", [3, "3"], [3.0, 3], [True, 3],
     {"0": 3, "1": 3}],
    ids=["missing", "null", "zero first", "zero second", "negative", "one number", "three numbers", "empty",
         "not a list", "string", "string number", "float", "bool", "object"],
)
def test_match_start_race_must_be_two_whole_numbers_at_least_1(race):
    assert_error(match_start(race=race), "race", "at least 1")


@pytest.mark.parametrize("breaker", [..., None, 2, -1, "0", 1.0, True, False, [0]],
                         ids=["missing", "null", "2", "-1", "string", "float", "true", "false", "list"])
def test_match_start_breaker_must_be_0_or_1(breaker):
    assert_error(match_start(breaker=breaker), "breaker", "0 or 1")


@pytest.mark.parametrize("rules", [[], ["break"], "winner", 1, True],
                         ids=["empty list", "list", "string", "number", "bool"])
def test_match_start_rules_must_be_an_object(rules):
    assert_error(match_start(rules=rules), "rules", "object")


@pytest.mark.parametrize("option", ["money_ball", "Break", "rails", "game_clock"])
def test_unknown_rule_option_is_an_error_naming_it(option):
    assert_error(match_start(rules={option: True}), "unknown rule option", option)


@pytest.mark.parametrize("option", ["rails_sensed", "push_out_after_break_foul", "three_foul_rule",
                                    "strike_sensed"])
@pytest.mark.parametrize("value", [1, 0, "true", None, "yes"], ids=["1", "0", "string true", "null", "yes"])
def test_boolean_rule_options_must_be_true_or_false(option, value):
    assert_error(match_start(rules={option: value}), f"rules.{option}", "true or false")


@pytest.mark.parametrize("value", ["loser", "Winner", "", None, True, 1, ["winner"]])
def test_rule_break_must_be_winner_or_alternate(value):
    assert_error(match_start(rules={"break": value}), "rules.break", "winner", "alternate")


@pytest.mark.parametrize("table", [3, True, ["Table 1"], {"name": "Table 1"}])
def test_match_start_table_must_be_a_string(table):
    assert_error(match_start(table=table), "table", "string")


# The league-night options and inputs (issue 19)


def test_a_match_start_under_first_release_options_writes_only_their_keys():
    from scoreboard.core.inputs import FIRST_OPTIONS, RuleOptions, parse, to_json
    start = parse({"type": "match_start", "v": 1, "players": ["A", "B"], "race": [2, 2], "breaker": 0,
                   "rules": {"break": "alternate"}})
    assert tuple(to_json(start)["rules"]) == FIRST_OPTIONS
    later = parse({"type": "match_start", "v": 1, "players": ["A", "B"], "race": [2, 2], "breaker": 0,
                   "rules": {"nine_on_break": "spotted"}})
    assert to_json(later)["rules"]["nine_on_break"] == "spotted" and "scoring" not in to_json(later)["rules"]
    assert RuleOptions.from_json(to_json(later)["rules"]) == later.options


@pytest.mark.parametrize("rules, message", [
    ({"scoring": "points"}, "rules.scoring must be 'racks' or 'apa', not \"points\""),
    ({"ball_in_hand": "kitchen"}, "rules.ball_in_hand must be 'anywhere' or 'behind_head_string', not \"kitchen\""),
    ({"break_requirement": 3}, "rules.break_requirement must be 'four_rails' or 'three_point', not 3"),
    ({"break_failure": "rerack"}, "rules.break_failure must be 'foul' or 'option', not \"rerack\""),
    ({"push_outs": "no"}, "rules.push_outs must be true or false"),
])
def test_a_bad_league_option_is_refused_by_name(rules, message):
    from scoreboard.core.inputs import InputError, parse
    with pytest.raises(InputError) as caught:
        parse({"type": "match_start", "v": 1, "players": ["A", "B"], "race": [2, 2], "breaker": 0, "rules": rules})
    assert str(caught.value) == message


def test_an_apa_match_start_may_leave_out_the_race_and_writes_none():
    from scoreboard.core.inputs import NO_RACE, parse, to_json
    raw = {"type": "match_start", "v": 1, "players": ["A", "B"], "breaker": 1, "rules": {"scoring": "apa"},
           "apa_skill": [3, 5]}
    start = parse(raw)
    assert start.race == NO_RACE and start.apa_skill == (3, 5) and "race" not in to_json(start)
    assert parse(to_json(start)) == start


def test_safety_timeout_and_rerack_are_bare_inputs():
    from scoreboard.core.inputs import Rerack, Safety, Timeout, parse, to_json
    for kind, cls in (("safety", Safety), ("timeout", Timeout), ("rerack", Rerack)):
        item = parse({"type": kind, "src": "touch"})
        assert item == cls(src="touch") and to_json(item) == {"type": kind, "src": "touch"}


def test_a_match_start_may_say_the_players_language_and_writes_it_back():
    from scoreboard.core.inputs import InputError, parse, to_json

    raw = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0, "language": "hr"}
    start = parse(raw)
    assert start.language == "hr" and to_json(start) == raw
    assert parse({**raw, "language": "en-GB"}).language == "en-GB"
    assert "language" not in to_json(parse({key: value for key, value in raw.items() if key != "language"}))
    for wrong in ("Hrvatski", "", 7, "hr_HR.UTF-8"):
        try:
            parse({**raw, "language": wrong})
        except InputError as error:
            assert str(error).startswith('match_start language must be a language tag such as "hr" or "en"')
        else:
            raise AssertionError(wrong)


@pytest.mark.parametrize("score, problem", [
    ([3, 0], "match_start start_score must be [n0, n1], racks won so far, each below its race [3, 3], not [3, 0]"),
    ([1], "match_start start_score must be [n0, n1], racks won so far, each below its race [3, 3], not [1]"),
    ([-1, 0], "match_start start_score must be [n0, n1], racks won so far, each below its race [3, 3], not [-1, 0]"),
])
def test_a_start_score_that_no_match_could_go_on_from_is_refused(score, problem):
    with pytest.raises(InputError, match=re.escape(problem)):
        parse({"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
               "start_score": score})


def test_a_start_score_is_kept_and_written_back():
    raw = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 1,
           "start_score": [2, 1], "call": "s/1/W1-1/5"}
    item = parse(raw)
    assert (item.start_score, item.call) == ((2, 1), "s/1/W1-1/5") and to_json(item) == raw
