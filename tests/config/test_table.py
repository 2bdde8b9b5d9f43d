"""The table's TOML config (scoreboard/config/table.py): every section, its defaults, and errors that name the key.

Someone wiring a table reads only the message: each bad config is checked by the exact
message it stops the start with.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from scoreboard.config.table import (
    ApiConfig,
    Config,
    ConfigError,
    MatchConfig,
    MqttConfig,
    MqttTlsConfig,
    ShotsConfig,
    StoreConfig,
    TableConfig,
    load,
    parse,
)
from scoreboard.core.inputs import RuleOptions, to_json
from scoreboard.core.inputs import parse as parse_input
from scoreboard.core.profiles import SENSED
from scoreboard.core.settle import DEFAULT_SETTLE_AFTER
from scoreboard.sensing.wiring import ActiveHigh, FilterConfig, GpioConfig, SerialConfig
from tests.paths import REPO

EXAMPLE = REPO / "deploy" / "table.example.toml"


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse(text)
    return str(caught.value)


# Defaults


def test_an_empty_config_has_no_sensors_on_and_the_filter_defaults():
    config = parse("")
    assert config == Config()
    assert not config.sensors.gpio.enabled and not config.sensors.serial.enabled
    assert config.sensors.filter == FilterConfig(min_pulse_ms=1.0, lockout_ms=30.0, strike_lockout_ms=250.0,
                                                 stuck_after_s=5.0, cue_merge_ms=1000.0)


def test_a_written_section_is_on_unless_it_says_enabled_false():
    assert parse("[sensors.gpio]\nstrike = 20").sensors.gpio.enabled
    assert parse("[sensors.serial]").sensors.serial == SerialConfig(True, "/dev/devetka-bridge", 115200)
    assert not parse("[sensors.serial]\nenabled = false").sensors.serial.enabled
    assert not parse("[sensors.gpio]\nenabled = false").sensors.gpio.enabled


def test_the_polarity_defaults_fit_ir_receivers_and_comparator_modules():
    assert ActiveHigh() == ActiveHigh(pocket=False, cue_return=True, cushion=True, strike=True)
    assert parse("[sensors.gpio]\nstrike = 20").sensors.gpio.pull_up is True


# Reading the sensor sections


def test_every_key_of_the_sections_is_read():
    config = parse("""
        [sensors.gpio]
        pull_up = false
        cue_return = 5
        strike = 20
        [sensors.gpio.pockets]
        head_left = 17
        foot_right = 25
        [sensors.gpio.cushions]
        head = 6
        right_foot = 26
        [sensors.gpio.active_high]
        pocket = true
        strike = false
        [sensors.filter]
        min_pulse_ms = 0.5
        lockout_ms = 40
        strike_lockout_ms = 300
        stuck_after_s = 2
        cue_merge_ms = 1500
        [sensors.serial]
        port = "/dev/serial/by-id/usb-Raspberry_Pi_Pico-if00"
        baud = 230400
    """)
    gpio = config.sensors.gpio
    assert (gpio.enabled, gpio.pull_up, gpio.cue_return, gpio.strike, gpio.cushion_shared) == (True, False, 5, 20, None)
    assert dict(gpio.pockets) == {"head_left": 17, "foot_right": 25}
    assert dict(gpio.cushions) == {"head": 6, "right_foot": 26}
    assert gpio.active_high == ActiveHigh(pocket=True, cue_return=True, cushion=True, strike=False)
    assert config.sensors.filter == FilterConfig(0.5, 40.0, 300.0, 2.0, 1500.0)
    assert config.sensors.serial == SerialConfig(True, "/dev/serial/by-id/usb-Raspberry_Pi_Pico-if00", 230400)


def test_lines_list_pockets_cue_return_cushions_strike_in_that_order():
    gpio = parse("""
        [sensors.gpio]
        strike = 20
        cushion_shared = 21
        cue_return = 5
        pockets = { foot_right = 25, head_left = 17 }
    """).sensors.gpio
    assert [(line.kind, line.name, line.pin, line.subject) for line in gpio.lines()] == [
        ("pocket", "head_left", 17, "pocket:head_left"),
        ("pocket", "foot_right", 25, "pocket:foot_right"),
        ("cue_return", None, 5, "cue_return"),
        ("cushion", None, 21, "cushion"),
        ("strike", None, 20, "strike"),
    ]


def test_the_example_file_sets_every_key_and_loads():
    config = load(EXAMPLE)
    gpio = config.sensors.gpio
    assert set(gpio.pockets) == {"head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right"}
    assert set(gpio.cushions) == {"head", "foot", "left_head", "left_foot", "right_head", "right_foot"}
    assert gpio.cue_return is not None and gpio.strike is not None
    text = EXAMPLE.read_text()
    for key in ("enabled", "pull_up", "cushion_shared", "min_pulse_ms", "lockout_ms", "strike_lockout_ms",
                "stuck_after_s", "cue_merge_ms", "port", "baud", "pocket", "cue_return", "cushion", "strike"):
        assert re.search(rf"^#? ?{key} = ", text, re.MULTILINE), f"{key} is not in the example"
    # Its defaults are the code's: a commented-out key changes nothing.
    assert config.sensors.filter == FilterConfig()
    assert gpio.active_high == ActiveHigh()


# Errors that name the key


def test_an_unknown_key_is_named_with_the_keys_it_could_be():
    assert error_of("[sensors.gpio.pockets]\nfoot_lft = 24") == (
        "sensors.gpio.pockets.foot_lft: unknown key (known: head_left, head_right, side_left, side_right, "
        "foot_left, foot_right)")
    assert error_of("[sensors.gpio.cushions]\nleft = 6") == (
        "sensors.gpio.cushions.left: unknown key (known: head, foot, left_head, left_foot, right_head, right_foot)")
    assert error_of("[sensors.filter]\nlockout = 30") == (
        "sensors.filter.lockout: unknown key (known: min_pulse_ms, lockout_ms, strike_lockout_ms, stuck_after_s, "
        "cue_merge_ms)")
    assert error_of("[sensor.gpio]") == (
        "sensor: unknown key (known: table, store, api, match, shots, sensors, mqtt, ui, venue)")
    assert error_of("[sensors.gpio.active_high]\nbeam = true") == (
        "sensors.gpio.active_high.beam: unknown key (known: pocket, cue_return, cushion, strike)")


@pytest.mark.parametrize(("text", "message"), [
    ("[sensors.filter]\nlockout_ms = 'x'",
     'sensors.filter.lockout_ms: expected a number of milliseconds >= 0, got "x"'),
    ("[sensors.filter]\nmin_pulse_ms = -1",
     "sensors.filter.min_pulse_ms: expected a number of milliseconds >= 0, got -1"),
    ("[sensors.filter]\ncue_merge_ms = nan",
     "sensors.filter.cue_merge_ms: expected a number of milliseconds >= 0, got nan"),
    ("[sensors.filter]\nlockout_ms = true",
     "sensors.filter.lockout_ms: expected a number of milliseconds >= 0, got true"),
    ("[sensors.filter]\nstuck_after_s = 0",
     "sensors.filter.stuck_after_s: expected a number of seconds > 0, got 0"),
    ("[sensors.gpio]\nstrike = 40",
     "sensors.gpio.strike: expected a BCM GPIO number from 2 to 27 (0 and 1 belong to the HAT EEPROM), got 40"),
    ("[sensors.gpio]\ncue_return = 1",
     "sensors.gpio.cue_return: expected a BCM GPIO number from 2 to 27 (0 and 1 belong to the HAT EEPROM), got 1"),
    ("[sensors.gpio.pockets]\nfoot_left = '24'",
     'sensors.gpio.pockets.foot_left: expected a BCM GPIO number from 2 to 27 (0 and 1 belong to the HAT EEPROM), '
     'got "24"'),
    ("[sensors.gpio]\npull_up = 'yes'\nstrike = 20",
     'sensors.gpio.pull_up: expected true or false, got "yes"'),
    ("[sensors.gpio]\nstrike = 20\n[sensors.gpio.active_high]\nstrike = 1",
     "sensors.gpio.active_high.strike: expected true or false, got 1"),
    ("[sensors.gpio]\npockets = 24",
     "sensors.gpio.pockets: expected a table, got 24"),
    ("sensors = 1",
     "sensors: expected a table, got 1"),
    ("[sensors.serial]\nbaud = 0",
     "sensors.serial.baud: expected a whole number > 0, got 0"),
    ("[sensors.serial]\nport = ''",
     'sensors.serial.port: expected a non-empty string, got ""'),
])
def test_a_wrong_value_is_named_with_what_was_expected(text, message):
    assert error_of(text) == message


def test_a_pin_used_twice_names_both_keys():
    assert error_of("[sensors.gpio]\nstrike = 24\n[sensors.gpio.pockets]\nfoot_left = 24") == (
        "sensors.gpio.strike: GPIO 24 is already used by sensors.gpio.pockets.foot_left; each line needs its own pin")
    assert error_of("[sensors.gpio.cushions]\nhead = 6\nfoot = 6") == (
        "sensors.gpio.cushions.foot: GPIO 6 is already used by sensors.gpio.cushions.head; each line needs its own pin")


def test_cushions_are_per_rail_or_shared_not_both():
    assert error_of("[sensors.gpio]\ncushion_shared = 21\n[sensors.gpio.cushions]\nhead = 6") == (
        "sensors.gpio.cushion_shared: give either one shared cushion line or [sensors.gpio.cushions] per rail, "
        "not both")


def test_gpio_enabled_with_no_pins_is_an_error_but_disabled_is_fine():
    assert error_of("[sensors.gpio]") == (
        "sensors.gpio: enabled, but no sensor pins given (pockets, cue_return, cushions, cushion_shared, strike)")
    assert parse("[sensors.gpio]\nenabled = false").sensors.gpio == GpioConfig(enabled=False)


def test_a_toml_syntax_error_names_the_line():
    message = error_of("[sensors.gpio]\nstrike = 20\npockets = { foot_left = }\n")
    assert message.startswith("not valid TOML: ") and "line 3" in message


def test_load_names_the_file_in_front_of_the_key(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[sensors.filter]\nlockout_ms = 'x'\n")
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert str(caught.value) == f'{path}: sensors.filter.lockout_ms: expected a number of milliseconds >= 0, got "x"'
    assert caught.value.key == "sensors.filter.lockout_ms"


def test_load_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.toml: cannot read the config: .*No such file"):
        load(tmp_path / "missing.toml")


def test_settings_are_frozen():
    config = parse("[sensors.gpio]\nstrike = 20")
    with pytest.raises(AttributeError):
        config.sensors.gpio.strike = 21
    with pytest.raises(TypeError):
        config.sensors.gpio.pockets["foot_left"] = 24


def test_the_example_file_and_the_wiring_doc_give_the_same_pins():
    wiring = (EXAMPLE.parents[1] / "hardware" / "WIRING.md").read_text()
    documented = {key: int(pin) for key, pin in re.findall(r"^\| [^|]+ \| `sensors\.gpio\.([a-z_.]+)` \| (\d+) \|",
                                                            wiring, re.MULTILINE)}
    example = {line.key: line.pin for line in load(EXAMPLE).sensors.gpio.lines()}
    assert documented == {**example, "cushion_shared": 21}
    assert "# cushion_shared = 21" in EXAMPLE.read_text()


# The daemon's sections: [table], [store], [api], [match], [match.rules], [shots]


def test_the_daemon_sections_default_to_a_pi_install():
    config = parse("")
    assert config.table == TableConfig("table1")
    assert config.store == StoreConfig("/var/lib/devetka/devetka.sqlite3")
    assert config.api == ApiConfig("/run/devetka/api.sock")
    assert config.match == MatchConfig(("Player 1", "Player 2"), (5, 5), RuleOptions(rails_sensed=False))
    assert config.shots == ShotsConfig(4.0)


def test_the_settle_time_default_is_the_timers():
    assert ShotsConfig().settle_after_s == DEFAULT_SETTLE_AFTER


def test_every_key_of_the_daemon_sections_is_read():
    config = parse("""
        [table]
        id = "club-2_B"
        [store]
        path = "/srv/devetka/t2.sqlite3"
        [api]
        socket = "/tmp/devetka.sock"
        [match]
        players = [" Ana ", "Ben"]
        race = [7, 5]
        [match.rules]
        break = "alternate"
        rails_sensed = false
        push_out_after_break_foul = true
        three_foul_rule = false
        [shots]
        settle_after_s = 2.5
    """)
    assert config.table.id == "club-2_B"
    assert config.store.path == "/srv/devetka/t2.sqlite3"
    assert config.api.socket == "/tmp/devetka.sock"
    assert config.match.players == ("Ana", "Ben") and config.match.race == (7, 5)
    assert config.match.rules == RuleOptions(break_order="alternate", rails_sensed=False,
                                             push_out_after_break_foul=True, three_foul_rule=False)
    assert config.shots.settle_after_s == 2.5
    assert parse("[shots]\nsettle_after_s = 3").shots.settle_after_s == 3.0


def test_rule_options_are_the_match_logs_and_read_back_the_same():
    rules = parse('[match.rules]\nbreak = "alternate"\nrails_sensed = false').match.rules
    assert rules == RuleOptions(break_order="alternate", rails_sensed=False)
    assert RuleOptions.from_json(rules.to_json()) == rules
    assert set(RuleOptions.JSON_NAMES) == {"break", "rails_sensed", "push_out_after_break_foul", "three_foul_rule",
                                           "strike_sensed", "scoring", "ball_in_hand", "nine_on_break",
                                           "break_requirement", "break_failure", "push_outs", "shot_clock",
                                           "shot_clock_s", "shot_clock_warning_s", "shot_clock_extension_s",
                                           "shot_clock_extensions", "shot_clock_after_break_s",
                                           "shot_clock_after_push_out_s", "timeouts_skill_1_3",
                                           "timeouts_skill_4_9", "profile"}
    clocked = parse('[match.rules]\nshot_clock = true\nshot_clock_s = 40').match.rules
    assert clocked == RuleOptions(shot_clock=True, shot_clock_s=40, rails_sensed=False)
    assert parse('[match.rules]\nthree_foul_rule = false').match.rules == RuleOptions(three_foul_rule=False,
                                                                                      rails_sensed=False)


def test_the_match_defaults_make_a_match_start_the_replay_reads():
    config = parse('[table]\nid = "t7"\n[match]\nplayers = ["Ana", "Ben"]\nrace = [2, 3]\n'
                   '[sensors.gpio]\nstrike = 20')
    start = config.match.match_start(breaker=1, table=config.table.id, t=0.0)
    line = to_json(start)
    assert line["players"] == ["Ana", "Ben"] and line["race"] == [2, 3] and line["breaker"] == 1
    assert line["table"] == "t7" and line["rules"]["strike_sensed"] is True
    assert parse_input(line) == start


@pytest.mark.parametrize(("text", "message"), [
    ('[table]\nid = "table 1"',
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got \"table 1\""),
    ('[table]\nid = "t/1"',
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got \"t/1\""),
    ('[table]\nid = "t+"',
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got \"t+\""),
    ('[table]\nid = "stół"',
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got \"stół\""),
    ('[table]\nid = ""',
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got \"\""),
    ("[table]\nid = 1",
     "table.id: expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), got 1"),
    ('[table]\nnickname = "x"',
     "table.nickname: unknown key (known: id, name, language)"),
    ("table = 1",
     "table: expected a table, got 1"),
    ("[store]\npath = ''",
     'store.path: expected a non-empty string, got ""'),
    ("[store]\npath = 5",
     "store.path: expected a non-empty string, got 5"),
    ('[store]\nfile = "x"',
     "store.file: unknown key (known: path)"),
    ("[api]\nsocket = ' '",
     'api.socket: expected a non-empty string, got " "'),
    ("[api]\nsocket = false",
     "api.socket: expected a non-empty string, got false"),
    (f"[api]\nsocket = '/{'s' * 107}'",
     "api.socket: a Unix socket path must be at most 107 bytes, got 108"),
    ("[api]\nmax_clients = 0",
     "api.max_clients: expected a whole number > 0, got 0"),
    ('[api]\nport = 1',
     "api.port: unknown key (known: socket, max_clients)"),
    ('[match]\nplayers = ["Ana"]',
     'match.players: expected two non-empty names of at most 40 printable characters, got ["Ana"]'),
    ('[match]\nplayers = ["Ana", "Ben", "Cy"]',
     'match.players: expected two non-empty names of at most 40 printable characters, got ["Ana", "Ben", "Cy"]'),
    ('[match]\nplayers = ["Ana", " "]',
     'match.players: expected two non-empty names of at most 40 printable characters, got ["Ana", " "]'),
    ('[match]\nplayers = ["Ana", 2]',
     'match.players: expected two non-empty names of at most 40 printable characters, got ["Ana", 2]'),
    ('[match]\nplayers = "Ana"',
     'match.players: expected two non-empty names of at most 40 printable characters, got "Ana"'),
    ("[match]\nrace = [5]",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, got [5]"),
    ("[match]\nrace = [5, 0]",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, got [5, 0]"),
    ("[match]\nrace = [5, 2.5]",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, got [5, 2.5]"),
    ("[match]\nrace = [true, 5]",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, "
     "got [true, 5]"),
    ("[match]\nrace = [10000, 5]",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, "
     "got [10000, 5]"),
    ('[match]\nplayers = ["Ana", "Ben\\u0007"]',
     'match.players: expected two non-empty names of at most 40 printable characters, got ["Ana", "Ben\\u0007"]'),
    ("[match]\nrace = 5",
     "match.race: expected [n0, n1], racks each player needs to win, each a whole number from 1 to 9999, got 5"),
    ("[match]\nbreaker = 0",
     "match.breaker: unknown key (known: players, race, rules, profile, locked, apa_skill)"),
    ('[match.rules]\nbreak = "loser"',
     'match.rules.break: expected "winner" or "alternate", got "loser"'),
    ("[match.rules]\nbreak = true",
     'match.rules.break: expected "winner" or "alternate", got true'),
    ("[match.rules]\nrail_sensed = false",
     "match.rules.rail_sensed: unknown key (known: break, rails_sensed, push_out_after_break_foul, three_foul_rule, "
     "strike_sensed, scoring, ball_in_hand, nine_on_break, break_requirement, break_failure, push_outs, shot_clock, "
     "shot_clock_s, shot_clock_warning_s, shot_clock_extension_s, shot_clock_extensions, shot_clock_after_break_s, "
     "shot_clock_after_push_out_s, timeouts_skill_1_3, timeouts_skill_4_9, profile)"),
    ("[match.rules]\nbreak_order = 'winner'",
     "match.rules.break_order: unknown key (known: break, rails_sensed, push_out_after_break_foul, three_foul_rule, "
     "strike_sensed, scoring, ball_in_hand, nine_on_break, break_requirement, break_failure, push_outs, shot_clock, "
     "shot_clock_s, shot_clock_warning_s, shot_clock_extension_s, shot_clock_extensions, shot_clock_after_break_s, "
     "shot_clock_after_push_out_s, timeouts_skill_1_3, timeouts_skill_4_9, profile)"),
    ('[match.rules]\nrails_sensed = "no"',
     'match.rules.rails_sensed: expected true or false, got "no"'),
    ("[match.rules]\nstrike_sensed = 1",
     "match.rules.strike_sensed: expected true or false, got 1"),
    ("[match.rules]\ntimeouts_skill_1_3 = 10",
     "match.rules.timeouts_skill_1_3: expected a whole number from 0 to 9, got 10"),
    ("[match.rules]\nshot_clock_s = 90",
     "match.rules.shot_clock_s: expected a whole number from 10 to 60, got 90"),
    ("[match.rules]\npush_out_after_break_foul = 0",
     "match.rules.push_out_after_break_foul: expected true or false, got 0"),
    ("[match.rules]\nthree_foul_rule = 'yes'",
     'match.rules.three_foul_rule: expected true or false, got "yes"'),
    ("[match]\nrules = 1",
     "match.rules: expected a table, got 1"),
    ("[shots]\nsettle_after_s = 0",
     "shots.settle_after_s: expected a number of seconds > 0, got 0"),
    ("[shots]\nsettle_after_s = -4",
     "shots.settle_after_s: expected a number of seconds > 0, got -4"),
    ("[shots]\nsettle_after_s = inf",
     "shots.settle_after_s: expected a number of seconds > 0, got inf"),
    ('[shots]\nsettle_after_s = "4"',
     'shots.settle_after_s: expected a number of seconds > 0, got "4"'),
    ("[shots]\nsettle = 4",
     "shots.settle: unknown key (known: settle_after_s)"),
])
def test_a_wrong_daemon_setting_is_named_with_what_was_expected(text, message):
    assert error_of(text) == message


def test_the_example_file_sets_every_daemon_key_to_its_default():
    config = load(EXAMPLE)
    default = Config()
    sensed = replace(default.match, rules=replace(default.match.rules, **config.sensed))  # its [sensors]
    assert (config.table, config.store, config.api, config.match, config.shots) == (
        default.table, default.store, default.api, sensed, default.shots)
    text = EXAMPLE.read_text()
    unset = tuple(name for name, attr in RuleOptions.JSON_NAMES.items() if getattr(RuleOptions(), attr) is None)
    rule_keys = tuple(name for name in RuleOptions.JSON_NAMES  # TOML has no null: see below; the sensors decide
                      if name not in unset and name not in SENSED)  # the sensed switches: only named
    for section, keys in {"table": ("id",), "store": ("path",), "api": ("socket",),
                          "match": ("players", "race", "locked"), "match.rules": rule_keys,
                          "shots": ("settle_after_s",)}.items():
        body = re.search(rf"^\[{re.escape(section)}\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
        assert body, f"[{section}] is not in the example"
        for key in keys:
            assert re.search(rf"^{key} = ", body.group(1), re.MULTILINE), f"{section}.{key} is not in the example"
    rules = re.search(r"^\[match\.rules\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL).group(1)
    for key in set(unset) - {"profile"}:  # an option unset by default is shown, commented out, with a value
        assert re.search(rf"^# {key} = ", rules, re.MULTILINE), f"match.rules.{key} is not in the example"


def test_the_settle_hold_back_is_the_cue_merge_window_when_gpio_pockets_are_wired():
    pockets = "[sensors.gpio.pockets]\nfoot_left = 5\n"
    assert parse(pockets + "[sensors.filter]\ncue_merge_ms = 1500").settle_hold_back_s == 1.5
    assert parse(pockets + "[sensors.filter]\ncue_merge_ms = 0").settle_hold_back_s == 0.0
    assert parse("[sensors.gpio]\nstrike = 20\n[sensors.filter]\ncue_merge_ms = 1500").settle_hold_back_s == 0.0
    assert parse("[sensors.gpio]\nenabled = false\n[sensors.serial]").settle_hold_back_s == 0.0


# [mqtt] and [mqtt.tls]


def test_mqtt_is_off_without_a_section_and_on_when_written():
    assert parse("").mqtt == MqttConfig(enabled=False)
    assert parse("[mqtt]").mqtt == MqttConfig()
    assert parse("[mqtt]").mqtt.enabled and not parse("[mqtt]").mqtt.tls.enabled
    assert not parse("[mqtt]\nenabled = false").mqtt.enabled
    assert parse("[mqtt.tls]").mqtt.tls == MqttTlsConfig()  # and MQTT on: TOML makes [mqtt] for it


def test_every_key_of_mqtt_is_read():
    mqtt = parse("""
        [mqtt]
        host = "broker.venue"
        port = 8883
        username = "table2"
        password = "s3cret"
        client_id = "bar-2"
        keepalive_s = 30
        prefix = "venue/devetka"
        discovery = false
        discovery_prefix = "ha"
        [mqtt.tls]
        ca_file = "/etc/devetka/ca.crt"
        certfile = "/etc/devetka/t2.crt"
        keyfile = "/etc/devetka/t2.key"
    """).mqtt
    assert mqtt == MqttConfig(True, "broker.venue", 8883, "table2", "s3cret", "bar-2", 30, "venue/devetka", False, "ha",
                              MqttTlsConfig(True, "/etc/devetka/ca.crt", "/etc/devetka/t2.crt", "/etc/devetka/t2.key"))


def test_the_example_file_lists_every_mqtt_key_with_its_default():
    config = load(EXAMPLE)
    assert config.mqtt == MqttConfig(enabled=False, tls=MqttTlsConfig(enabled=False))
    text = EXAMPLE.read_text()
    for section, cls in {"mqtt": MqttConfig, "mqtt.tls": MqttTlsConfig}.items():
        body = re.search(rf"^\[{re.escape(section)}\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
        assert body, f"[{section}] is not in the example"
        for key in cls.__dataclass_fields__:
            if key != "tls":
                assert re.search(rf"^#? ?{key} = ", body.group(1), re.MULTILINE), f"{section}.{key} is not there"


PREFIX_PROBLEM = ("expected MQTT topic levels such as \"devetka\" or \"venue/devetka\" (no '+', '#', empty level "
                  "or leading or trailing '/'), got ")


@pytest.mark.parametrize(("text", "message"), [
    ("[mqtt]\nport = 0", "mqtt.port: expected a TCP port from 1 to 65535, got 0"),
    ("[mqtt]\nport = 70000", "mqtt.port: expected a TCP port from 1 to 65535, got 70000"),
    ('[mqtt]\nport = "1883"', 'mqtt.port: expected a TCP port from 1 to 65535, got "1883"'),
    ("[mqtt]\nhost = ''", 'mqtt.host: expected a non-empty string, got ""'),
    ("[mqtt]\nkeepalive_s = 0", "mqtt.keepalive_s: expected a whole number > 0, got 0"),
    ("[mqtt]\nkeepalive_s = 1.5", "mqtt.keepalive_s: expected a whole number > 0, got 1.5"),
    ('[mqtt]\nprefix = "devetka/#"', f'mqtt.prefix: {PREFIX_PROBLEM}"devetka/#"'),
    ('[mqtt]\nprefix = "+"', f'mqtt.prefix: {PREFIX_PROBLEM}"+"'),
    ('[mqtt]\nprefix = "/devetka"', f'mqtt.prefix: {PREFIX_PROBLEM}"/devetka"'),
    ('[mqtt]\nprefix = "a//b"', f'mqtt.prefix: {PREFIX_PROBLEM}"a//b"'),
    ('[mqtt]\ndiscovery_prefix = "ha/"', f'mqtt.discovery_prefix: {PREFIX_PROBLEM}"ha/"'),
    ('[mqtt]\ndiscovery_prefix = ""', f'mqtt.discovery_prefix: {PREFIX_PROBLEM}""'),
    ('[mqtt]\npassword = "x"', "mqtt.password: a password needs its username: give username too"),
    ('[mqtt]\nuser = "x"', "mqtt.user: unknown key (known: enabled, host, port, username, password, client_id, "
                            "keepalive_s, prefix, discovery, discovery_prefix, tls)"),
    ('[mqtt.tls]\nkeyfile = "k.pem"', "mqtt.tls.keyfile: a client key needs its certificate: give certfile too"),
    ('[mqtt.tls]\ncafile = "ca.pem"', "mqtt.tls.cafile: unknown key (known: enabled, ca_file, certfile, keyfile)"),
    ("[mqtt]\ndiscovery = 1", "mqtt.discovery: expected true or false, got 1"),
])
def test_a_wrong_mqtt_setting_is_named_with_what_was_expected(text, message):
    assert error_of(text) == message


# [match] profile, locked, apa_skill


def test_a_profile_fills_in_the_game_options_and_keeps_the_tables_sensors():
    match = parse('[match]\nprofile = "bar"\n[match.rules]\nrails_sensed = false\nbreak = "winner"\n'
                  'break_failure = "option"').match
    assert match.rules == RuleOptions(rails_sensed=False, ball_in_hand="behind_head_string", push_outs=False,
                                      three_foul_rule=False, nine_on_break="spotted", profile="bar",
                                      break_failure="option")  # open under bar: the venue's
    start = parse('[match]\nprofile = "apa9"\napa_skill = [2, 7]').match.match_start(breaker=0)
    assert start.options.scoring == "apa" and start.apa_skill == (2, 7)
    assert parse('[match]\napa_skill = [2, 7]').match.match_start(breaker=0).apa_skill is None  # racks: unused


@pytest.mark.parametrize("text, message", [
    ('[match]\nprofile = "apa"', 'match.profile: expected one of wpa, apa9, bar, got "apa"'),
    ("[match]\nlocked = true", "match.locked: locks the profile: give match.profile too"),
    ('[match]\nprofile = "apa9"\n[match.rules]\npush_outs = true',
     'match.rules.push_outs: profile "apa9" sets it to false: leave it out, or leave out match.profile'),
    ("[match]\napa_skill = [3, 10]", "match.apa_skill: expected [sl0, sl1], skill levels 1 to 9, got [3, 10]"),
    ('[match.rules]\nnine_on_break = "respot"',
     'match.rules.nine_on_break: expected "wins" or "spotted", got "respot"'),
    ('[match.rules]\nscoring = "apa"\nthree_foul_rule = true',
     'match.rules: rules.three_foul_rule must be false under rules.scoring "apa": APA 9-ball has none'),
    ('[match.rules]\nrails_sensed = true',
     "match.rules.rails_sensed: the table's sensors decide it (false with these [sensors]): leave it out"),
    ('[sensors.gpio]\nstrike = 20\n[match.rules]\nstrike_sensed = false',
     "match.rules.strike_sensed: the table's sensors decide it (true with these [sensors]): leave it out"),
])
def test_a_wrong_profile_setting_is_named(text, message):
    assert error_of(text) == message


def test_a_profile_leaves_the_shot_clock_to_the_venue():
    """Issue 26: the config once refused a profile beside [match.rules] shot_clock; the clock is open in every
    profile (docs/rules.md, "Profiles"), so the venue may set it and keep it."""
    match = parse('[match]\nprofile = "apa9"\nlocked = true\n[match.rules]\nshot_clock = true\n'
                  'shot_clock_s = 40').match
    assert (match.rules.scoring, match.rules.shot_clock, match.rules.shot_clock_s) == ("apa", True, 40)
    assert dict(match.written) == {"shot_clock": True, "shot_clock_s": 40}


@pytest.mark.parametrize("text, sensed", [
    ("", (False, False)),
    ("[sensors.gpio]\ncushion_shared = 21", (True, False)),
    ("[sensors.gpio]\nstrike = 20\n[sensors.gpio.cushions]\nhead = 6", (True, True)),
    ("[sensors.gpio]\nenabled = false\ncushion_shared = 21", (False, False)),
    ('[sensors.serial]\nport = "/dev/x"', (False, False)),  # the microcontroller's hello names no lines
    ('[sensors.serial]\nport = "/dev/x"\nrails = true\nstrike = true', (True, True)),
    ('[sensors.serial]\nenabled = false\nrails = true', (False, False)),
])
def test_the_match_records_the_sensors_the_config_wires(text, sensed):
    config = parse(text)
    assert config.sensed == {"rails_sensed": sensed[0], "strike_sensed": sensed[1]}
    assert (config.match.rules.rails_sensed, config.match.rules.strike_sensed) == sensed
def test_the_venue_board_address_is_an_http_address():
    assert parse('[venue]\nurl = "https://board.bar.hr/"').venue.url == "https://board.bar.hr/"
    assert parse("").venue.url is None
    assert error_of('[venue]\nurl = "venue.local:9001"') == (
        'venue.url: expected an http:// or https:// address, e.g. http://venue.local:9001/, got "venue.local:9001"')


def test_the_tables_name_is_what_the_venue_calls_it_and_optional():
    assert parse('[table]\nid = "t3"\nname = "Table 3 (TV)"\n').table.name == "Table 3 (TV)"
    assert parse('[table]\nid = "t3"\n').table.name is None
    with pytest.raises(ConfigError, match="table.name"):
        parse('[table]\nname = ""\n')
