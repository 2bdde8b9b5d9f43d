"""The simulated table plays whole nine-ball matches that the rules accept, and plays them plausibly.

Each match is checked the way a user would check it: written as JSON Lines with
``to_json`` and read back by ``devetka replay``; an ``error`` line would mean the
simulator produced an input the daemon rejects.
"""

import doctest
import importlib.util
import itertools
import json
from collections import Counter

import pytest

import scoreboard.sim.table
from scoreboard.core.inputs import (
    Cushion,
    FirstContact,
    Foul,
    Identify,
    MatchStart,
    Pocket,
    RuleOptions,
    Settle,
    Strike,
    Undo,
    to_json,
)
from scoreboard.core.match import Match
from scoreboard.matchlog.replay import replay
from scoreboard.sim.table import Sensors, SimulatedTable
from tests.paths import REPO

ROOT = REPO


def replayed(inputs):
    """The inputs as a log file holds them, and what ``devetka replay`` prints for it."""
    log = list(inputs)
    text = [json.dumps(to_json(item)) for item in log]
    return log, replay(text).lines()


def shot_lines(lines):
    return [line for line in lines if line["type"] == "shot"]


def errors(lines):
    return [line for line in lines if line["type"] == "error"]


TABLES = [
    pytest.param(rails, strike, ids, camera, id=f"rails={rails}-strike={strike}-ids={ids}-camera={camera}")
    for rails, strike, ids, camera in itertools.product((True, False), (False, True), (1.0, 0.5, 0.0), (True, False))
]


@pytest.mark.parametrize(("rails", "strike", "ids", "camera"), TABLES)
def test_every_input_is_accepted_and_every_match_is_won(rails, strike, ids, camera):
    rules = RuleOptions(rails_sensed=rails, strike_sensed=strike)
    for seed in range(4):
        table = SimulatedTable(seed, race=(3, 2), breaker=seed % 2, rules=rules,
                               sensors=Sensors(ball_ids=ids, camera=camera))
        log, lines = replayed(table.play_match())
        assert errors(lines) == [], (seed, errors(lines)[:1])
        state = lines[-1]
        winner = state["match_winner"]
        assert winner in (0, 1), seed
        assert state["score"][winner] == (3, 2)[winner]
        assert state["score"][1 - winner] < (3, 2)[1 - winner]


@pytest.mark.parametrize("rules", [
    RuleOptions(break_order="alternate"),
    RuleOptions(three_foul_rule=False),
    RuleOptions(push_out_after_break_foul=True),
    RuleOptions(break_order="alternate", rails_sensed=False, strike_sensed=True, three_foul_rule=False),
], ids=["alternate", "no-three-fouls", "push-out-after-break-foul", "all"])
def test_other_rule_options_are_played_to_the_end(rules):
    for seed in range(8):
        log, lines = replayed(SimulatedTable(seed, rules=rules).play_match())
        assert errors(lines) == []
        assert lines[-1]["match_winner"] in (0, 1)
        assert log[0].options == rules


def test_after_a_break_foul_the_push_out_option_is_used_when_the_rules_allow_it():
    lines = shot_lines(replayed(SimulatedTable(11, rules=RuleOptions(push_out_after_break_foul=True))
                                .play_racks(150))[1])
    after_break_foul = [b for a, b in itertools.pairwise(lines) if a["break"] and a["foul"] and b["rack"] == a["rack"]]
    assert any(line["push_out"] for line in after_break_foul)


def test_a_seed_always_gives_the_same_match():
    table = SimulatedTable(42, skill=(0.7, 0.5))
    first = list(table.play_match())
    assert list(table.play_match()) == first
    assert list(SimulatedTable(42, skill=(0.7, 0.5)).play_match()) == first
    assert list(SimulatedTable(43, skill=(0.7, 0.5)).play_match()) != first


def test_the_first_input_starts_the_match_as_asked():
    rules = RuleOptions(rails_sensed=False)
    log = list(SimulatedTable(1, players=("Iva", "Marko"), race=(4, 2), breaker=1, rules=rules).play_match())
    start = log[0]
    assert isinstance(start, MatchStart)
    assert (start.players, start.race, start.breaker, start.options) == (("Iva", "Marko"), (4, 2), 1, rules)
    assert not any(isinstance(item, MatchStart) for item in log[1:])


def test_times_start_at_zero_and_always_increase():
    log = list(SimulatedTable(5).play_match())
    times = [item.t for item in log]
    assert times[0] == 0.0
    assert all(b > a for a, b in itertools.pairwise(times))
    # A match of nine-ball between amateurs takes minutes, not seconds or days.
    assert 5 * 60 < times[-1] < 5 * 3600


def test_pockets_that_cannot_name_the_ball_change_the_taps_not_the_game():
    """The same seed plays the same shots: players name the balls the rules would take for others."""
    for seed in range(12):
        seen = {}
        for ids in (1.0, 0.4, 0.0):
            log, lines = replayed(SimulatedTable(seed, sensors=Sensors(ball_ids=ids)).play_match())
            assert errors(lines) == []
            seen[ids] = [{k: v for k, v in line.items() if k != "assumed"} for line in shot_lines(lines)]
            unnamed = [item for item in log if isinstance(item, Pocket) and item.ball is None]
            if ids == 1.0:
                assert unnamed == [] and not any(isinstance(item, Identify) for item in log)
            if ids == 0.0:
                assert all(item.ball in (0, None) for item in log if isinstance(item, Pocket))
        assert seen[0.4] == seen[1.0] == seen[0.0], seed


@pytest.mark.parametrize(("rails", "strike", "camera"), list(itertools.product((True, False), repeat=3)))
def test_the_table_reports_only_what_its_sensors_can_see(rails, strike, camera):
    rules = RuleOptions(rails_sensed=rails, strike_sensed=strike)
    log, lines = replayed(SimulatedTable(3, rules=rules, sensors=Sensors(camera=camera)).play_racks(20))
    kinds = Counter(type(item) for item in log)
    assert (kinds[Cushion] > 0) == rails
    assert (kinds[FirstContact] > 0) == camera
    if strike:
        # With a strike sensor every shot begins with a strike (and only a strike begins one).
        assert kinds[Strike] == sum(1 for line in shot_lines(lines) if not line.get("between_shots"))
    else:
        assert kinds[Strike] == 0
    if camera:
        assert all(item.ball is not None for item in log if isinstance(item, Cushion))
    else:
        assert all(item.ball is None for item in log if isinstance(item, Cushion))


def test_play_racks_plays_that_many_racks_whatever_the_race():
    table = SimulatedTable(8, race=(1, 1))
    log, lines = replayed(table.play_racks(25))
    state = lines[-1]
    assert errors(lines) == []
    racks_over = state["rack"] - 1 + (state["match_winner"] is not None)
    assert racks_over == 25
    assert log[0].race == (25, 25)


@pytest.fixture(scope="module")
def long_match():
    """Four hundred racks between two players of equal skill, with pocket sensors that sometimes cannot tell."""
    table = SimulatedTable(2024, sensors=Sensors(ball_ids=0.8), rules=RuleOptions(strike_sensed=True))
    log, lines = replayed(table.play_racks(400))
    assert errors(lines) == []
    return log, shot_lines(lines)


def kept(log):
    """The inputs left once each undo and the input it took back are removed (the simulator undoes at once)."""
    return [item for item, following in zip(log, log[1:] + [None], strict=True)
            if not isinstance(item, Undo) and not isinstance(following, Undo)]


def test_every_rack_ends(long_match):
    log, shots = long_match
    names = Counter(type(item).__name__ for item in kept(log))
    won = Counter(line["rack"] for line in shots if line["rack_winner"] is not None)
    assert set(won.values()) == {1}  # no rack is won twice
    assert {line["rack"] for line in shots} == set(range(1, 401))  # every rack is broken
    assert len(won) + names["Stalemate"] + names["Concede"] == 400  # ... and won, drawn or conceded


def test_the_statistics_are_those_of_real_nine_ball(long_match):
    log, shots = long_match
    racks = [line for line in shots if line["rack_winner"] is not None]
    breaks = [line for line in shots if line["break"]]
    winners = Counter(line["rack_winner"] for line in racks)
    assert min(winners.values()) > 0.4 * len(racks)  # equal skill: both win racks, neither all
    assert 6 < len(shots) / len(breaks) < 25  # shots per rack
    fouls = [line for line in shots if line["foul"]]
    assert 0.2 < len(fouls) / len(breaks) < 2  # a foul in most racks, not a dozen
    assert 0.4 < sum(1 for line in breaks if line["pocketed"]) / len(breaks) < 0.8
    nine_on_break = [line for line in breaks if line["rack_winner"] is not None]
    assert 0.005 < len(nine_on_break) / len(breaks) < 0.08
    push_outs = [line for line in shots if line["push_out"]]
    assert 0.1 < len(push_outs) / len(breaks) < 0.5
    kinds = Counter(type(item).__name__ for item in log)
    assert kinds["Pass"] > 0 and kinds["Accept"] > 0
    assert kinds["Undo"] > 0 and kinds["Identify"] > 0 and kinds["Stalemate"] > 0
    assert any(line.get("between_shots") for line in shots)
    assert any(line.get("scratch") for line in shots) and any(line.get("off_table") for line in shots)
    assert any(line["respot_nine"] for line in shots)
    assert any("5.13" in line["rules"] for line in shots) or any(line["warning"] for line in shots)


def test_fouls_are_called_late(long_match):
    log, _ = long_match
    match = Match(log[0])
    late = 0
    for item, following in zip(log[1:], log[2:] + [None], strict=True):
        step = match.apply(item)
        if isinstance(item, Foul) and step.amends and not isinstance(following, Undo):
            late += 1
    assert late > 0


def test_a_slow_ball_drops_after_the_table_seemed_still(long_match):
    log, _ = long_match
    assert any(isinstance(a, Settle) and isinstance(b, Pocket) for a, b in itertools.pairwise(log))


def test_the_better_player_wins_more_matches_but_not_all_racks():
    wins = Counter()
    racks = Counter()
    for seed in range(30):
        _, lines = replayed(SimulatedTable(seed, skill=(0.9, 0.35), race=(3, 3)).play_match())
        wins[lines[-1]["match_winner"]] += 1
        racks.update(line["rack_winner"] for line in shot_lines(lines) if line["rack_winner"] is not None)
    assert wins[0] >= 24
    assert racks[1] > 0


def test_players_of_equal_skill_both_win_matches():
    wins = Counter(replayed(SimulatedTable(seed).play_match())[1][-1]["match_winner"] for seed in range(30))
    assert wins[0] >= 8 and wins[1] >= 8


@pytest.mark.parametrize("kwargs", [
    {"skill": (1.2, 0.5)},
    {"skill": (0.5,)},
    {"race": (0, 3)},
    {"breaker": 2},
    {"sensors": Sensors(ball_ids=1.5)},
])
def test_nonsense_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        SimulatedTable(1, **kwargs)


def test_play_racks_needs_a_rack():
    with pytest.raises(ValueError):
        list(SimulatedTable(1).play_racks(0))


def test_the_docstring_examples_run():
    result = doctest.testmod(scoreboard.sim.table)
    assert result.attempted >= 3 and result.failed == 0


def _make_example():
    spec = importlib.util.spec_from_file_location("make_example", ROOT / "examples" / "make_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bundled_example_replays_cleanly_and_shows_what_its_readme_promises():
    path = ROOT / "examples" / "match.jsonl"
    text = path.read_text(encoding="utf-8").splitlines()
    lines = replay(text).lines()
    assert errors(lines) == []
    assert lines[-1]["players"] == ["Ana", "Ben"] and lines[-1]["race"] == [3, 3]
    assert lines[-1]["match_winner"] in (0, 1)
    times = [json.loads(line)["t"] for line in text]
    assert all(b > a for a, b in itertools.pairwise(times))
    shown = _make_example().features([json.loads(line) for line in text])
    assert _make_example().WANTED <= shown
