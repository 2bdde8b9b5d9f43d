"""The event file's checks (scoreboard/event/core/spec.py; docs/events.md, "The event file")."""

import pytest

from scoreboard.core.checks import ConfigError
from scoreboard.event.core.spec import spec_of

PLAYERS = ["Ana", "Ben", "Cvita", "Dino"]


def roster(*skills):
    return [{"name": f"P{skills}{i}", "skill": s} for i, s in enumerate(skills)]


def test_races_by_round_then_final_then_side_then_default():
    spec = spec_of({"name": "N", "format": "double", "players": PLAYERS,
                    "race": {"default": 6, "winners": 7, "losers": 5, "final": 9, "rounds": {"W2": 8}}})
    races = spec.races
    assert races.race("W1", "winners", False) == 7
    assert races.race("W2", "winners", False) == 8
    assert races.race("L1", "losers", False) == 5
    assert races.race("GF", "final", True) == 9
    assert races.race("K1", "playoff", False) == 6


def test_a_handicap_chart_gives_each_pair_its_race_either_way_round():
    spec = spec_of({"name": "N", "format": "single", "players": PLAYERS,
                    "handicap": {"levels": {"Ana": 3, "Ben": 5, "Cvita": 5, "Dino": 3},
                                 "races": {"3-5": [4, 7], "3-3": [5, 5], "5-5": [6, 6]}}})
    assert spec.handicap.race("Ana", "Ben") == (4, 7)
    assert spec.handicap.race("Ben", "Ana") == (7, 4)
    assert spec.handicap.race("Ben", "Cvita") == (6, 6)


@pytest.mark.parametrize(("raw", "said"), [
    ({"name": "N", "format": "triple", "players": PLAYERS}, "format: expected one of single, double"),
    ({"name": "N", "format": "single", "players": ["Ana"]}, "players: an event needs from 2 to 256 players"),
    ({"name": "N", "format": "single", "players": ["Ana", "ana"]}, "players: ana is named twice"),
    ({"name": "N", "format": "single", "players": PLAYERS, "race": {"loosers": 5}}, "race.loosers: expected one of"),
    ({"name": "N", "format": "single", "players": PLAYERS, "race": 0}, "race: expected racks to win"),
    ({"name": "N", "format": "single", "players": PLAYERS, "final": "true_double"},
     "final: only double elimination"),
    ({"name": "N", "format": "round_robin", "players": PLAYERS, "round_robin": {"groups": 3}},
     "round_robin.groups: 4 players make no 3 groups"),
    ({"name": "N", "format": "single", "players": PLAYERS,
      "handicap": {"levels": {"Ana": 3, "Ben": 5, "Cvita": 5, "Dino": 3}, "races": {"3-5": [4, 7]}}},
     "handicap.races: no race for levels 3 and 3"),
    ({"name": "N", "format": "apa_team", "teams": [{"name": "A", "players": roster(2, 3, 4, 5, 6)}]},
     "teams: an APA team night has two teams"),
    ({"name": "N", "format": "apa_team", "teams": [{"name": "A", "players": roster(5, 5, 5, 5, 5)},
                                                  {"name": "B", "players": roster(2, 3, 4, 5, 2)}]},
     "teams[0].players: no five of this roster add up to 23 or less"),
    ({"name": "N", "format": "apa_team", "teams": [{"name": "A", "players": roster(2, 2, 6, 7, 6, 6)},
                                                  {"name": "B", "players": roster(2, 3, 4, 5, 2)}]},
     "teams[0].players: a roster needs at least three players below skill level 6"),
    ({"name": "N", "format": "apa_team", "teams": [{"name": "A", "players": roster(2, 2, 10, 2, 2)},
                                                  {"name": "B", "players": roster(2, 3, 4, 5, 2)}]},
     "teams[0].players[2].skill: expected an APA 9-ball skill level from 1 to 9"),
    ({"name": "N", "format": "single", "players": PLAYERS, "tabels": ["t1"]}, "tabels: not a key of an event file"),
])
def test_a_wrong_event_file_is_refused_naming_the_key(raw, said):
    with pytest.raises(ConfigError) as error:
        spec_of(raw)
    assert str(error.value).startswith(said), str(error.value)


def test_the_stored_form_reads_back_the_same():
    for raw in ({"name": "N", "format": "round_robin", "players": PLAYERS, "round_robin": {"groups": 2, "advance": 1},
                 "tables": ["t1", "t2"], "seeding": "drawn"},
                {"name": "N", "format": "apa_team", "teams": [{"name": "A", "players": roster(2, 2, 3, 7, 6)},
                                                             {"name": "B", "players": roster(2, 3, 4, 5, 2)}]}):
        spec = spec_of(raw)
        assert spec_of(spec.to_json()) == spec
