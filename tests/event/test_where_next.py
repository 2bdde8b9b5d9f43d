"""Where each player of a match goes next (scoreboard/event/core/where_next.py): every format, byes passed through,
the true double's reset, a group's next match; and the worked example of docs/events.md, "Where next"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scoreboard.event.core.fold import Event
from scoreboard.event.core.records import Created, Draw, PutUpRecord, Result
from scoreboard.event.core.where_next import where_next

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"
SIX = ("Ana", "Ben", "Cvita", "Dino", "Ema", "Fran")


def drawn(players=SIX, **spec) -> Event:
    return Event.fold([Created({"name": "N", "race": 3, "players": list(players), **spec}), Draw(tuple(players))])


def at(match: str, round_: str, side: str, against: dict) -> dict:
    return {"match": match, "round": round_, "side": side, "against": against}


def test_single_elimination_a_win_goes_on_a_loss_is_out_the_final_wins_the_event():
    event = drawn(format="single")  # 6 in a bracket of 8: seeds 1 and 2 have byes
    dino_ema = where_next(event, "W1-2")
    assert dino_ema[0] == dino_ema[1] == {"win": at("W2-1", "W2", "winners", {"player": "Ana"}), "lose": {"out": True}}
    event.apply(Result("W1-2", (3, 0)))
    event.apply(Result("W1-4", (0, 3)))
    assert where_next(event, "W2-1")[0]["win"] == at("W3-1", "W3", "winners",
                                                       {"winner_of": "W2-2", "players": ["Ben", "Fran"]})
    event.apply(Result("W2-1", (3, 0)))
    event.apply(Result("W2-2", (3, 0)))
    assert where_next(event, "W3-1") == [{"win": {"won": True}, "lose": {"out": True}}] * 2


def test_double_elimination_a_loss_drops_to_the_losers_side_past_a_bye():
    event = drawn(format="double")
    # W1-1 and W1-3 are byes, so L1-1 and L1-2 are too: W1-2's loser goes on to L2-1, against W2-2's loser.
    assert where_next(event, "W1-2")[1]["lose"] == at("L2-1", "L2", "losers", {"loser_of": "W2-2"})
    assert where_next(event, "W1-4")[0]["lose"] == at("L2-2", "L2", "losers", {"loser_of": "W2-1"})
    for match, score in (("W1-2", (3, 1)), ("W1-4", (3, 1)), ("W2-1", (3, 1)), ("W2-2", (3, 1))):
        event.apply(Result(match, score))
    assert where_next(event, "L2-1")[0] == {"win": at("L3-1", "L3", "losers", {"winner_of": "L2-2",
                                                                                 "players": ["Fran", "Dino"]}),
                                            "lose": {"out": True}}
    assert where_next(event, "W3-1")[0] == {"win": at("GF-1", "GF", "final", {"winner_of": "L4-1"}),
                                            "lose": at("L4-1", "L4", "losers", {"winner_of": "L3-1"})}


def test_a_true_double_s_first_final_sends_each_player_to_the_reset_on_one_outcome():
    event = drawn(("Ana", "Ben"), format="double", final="true_double")
    event.apply(Result("W1-1", (3, 1)))
    assert where_next(event, "GF-1") == [
        {"win": {"won": True}, "lose": at("GF-2", "GF", "final", {"player": "Ben"})},
        {"win": at("GF-2", "GF", "final", {"player": "Ana"}), "lose": {"out": True}}]
    event.apply(Result("GF-1", (1, 3)))
    assert where_next(event, "GF-2") == [{"win": {"won": True}, "lose": {"out": True}}] * 2


def test_a_group_match_sends_each_player_to_their_next_group_match_then_to_the_standings():
    event = drawn(SIX[:4], format="round_robin", round_robin={"groups": 1, "advance": 1})
    first = where_next(event, "A1-1")  # Ana - Dino, then Ben - Cvita
    assert first[0]["win"] == first[0]["lose"] == at("A2-1", "A2", "group", {"player": "Cvita"})
    assert first[1]["win"] == at("A2-2", "A2", "group", {"player": "Ben"})
    for match in ("A1-1", "A2-1", "A2-2"):
        event.apply(Result(match, (3, 0)))
    assert where_next(event, "A3-1")[0] == {"win": {"standings": "A"}, "lose": {"standings": "A"}}


def test_a_playoff_from_groups_and_a_team_night():
    event = drawn(SIX[:4], format="round_robin", round_robin={"groups": 2, "advance": 1})
    assert where_next(event, "A1-1")[0]["win"] == {"standings": "A"}
    apa = Event.fold([Created({"name": "N", "format": "apa_team", "teams": [
        {"name": t, "players": [{"name": f"{t}{i}", "skill": 3} for i in range(5)]} for t in ("X", "Y")]})])
    apa.apply(PutUpRecord(0, "X0"))
    apa.apply(PutUpRecord(1, "Y0"))
    assert where_next(apa, "APA-1") is None  # each player plays once: nothing to say


def test_a_match_whose_players_are_not_known_has_no_next_to_say():
    assert where_next(drawn(format="single"), "W2-1") is None
    assert where_next(drawn(format="single"), "no-such") is None


EXAMPLE = re.compile(r"<!-- where-next -->.*?```toml\n(.*?)```.*?```sh\n(.*?)```.*?```json\n(.*?)```", re.S)


def test_the_worked_example_of_the_doc():
    import tomllib

    found = EXAMPLE.search(DOC.read_text(encoding="utf-8"))
    assert found, "docs/events.md has its where-next example"
    spec, results, expected = found.groups()
    event = drawn(**{k: v for k, v in tomllib.loads(spec).items() if k != "players"},
                  players=tuple(tomllib.loads(spec)["players"]))
    for line in results.strip().splitlines():
        match, score = line.split()[-2:]
        a, b = score.split("-")
        event.apply(Result(match, (int(a), int(b))))
    for line in expected.strip().splitlines():
        row = json.loads(line)
        assert where_next(event, row["match"]) == row["next"], row["match"]


@pytest.mark.parametrize("match", ["W1-1", "W1-2"])
def test_both_players_of_a_bracket_match_share_their_destinations(match):
    event = drawn(SIX[:4], format="double")
    both = where_next(event, match)
    assert both[0] == both[1] and both[0] is not both[1]
