"""A group's standings and tie-breaks (scoreboard/event/core/standings.py; docs/events.md, "Round robin")."""

from scoreboard.event.core.standings import Game, standings


def names(rows):
    return [r.name for r in rows]


def test_matches_won_rank_first():
    games = [Game(("Ana", "Ben"), (1, 3)), Game(("Ana", "Cvita"), (1, 3)), Game(("Ben", "Cvita"), (3, 2))]
    assert names(standings(("Ana", "Ben", "Cvita"), games)) == ["Ben", "Cvita", "Ana"]


def test_head_to_head_breaks_a_tie_before_racks():
    # Ana and Ben each won 2; Ben beat Ana, though Ana's rack difference is better
    games = [Game(("Ana", "Ben"), (2, 3)), Game(("Ana", "Cvita"), (3, 0)), Game(("Ana", "Dino"), (3, 0)),
             Game(("Ben", "Cvita"), (3, 2)), Game(("Ben", "Dino"), (2, 3)), Game(("Cvita", "Dino"), (3, 2))]
    rows = standings(("Ana", "Ben", "Cvita", "Dino"), games)
    assert [(r.name, r.won, r.head_to_head) for r in rows[:2]] == [("Ben", 2, 1), ("Ana", 2, 0)]


def test_a_three_way_tie_goes_to_rack_difference_then_racks_won_then_seed():
    games = [Game(("Ana", "Ben"), (3, 1)), Game(("Ben", "Cvita"), (3, 0)), Game(("Cvita", "Ana"), (3, 2))]
    rows = standings(("Ana", "Ben", "Cvita"), games)
    assert [(r.name, r.difference, r.racks_won) for r in rows] == [("Ana", 1, 5), ("Ben", 1, 4), ("Cvita", -2, 3)]
    level = [Game(("Ana", "Ben"), (3, 2)), Game(("Ben", "Cvita"), (3, 2)), Game(("Cvita", "Ana"), (3, 2))]
    assert names(standings(("Cvita", "Ana", "Ben"), level)) == ["Cvita", "Ana", "Ben"]


def test_a_group_with_nothing_played_is_in_seed_order():
    assert names(standings(("B", "A"), [])) == ["B", "A"]


def test_under_a_handicap_race_the_winner_may_have_fewer_racks():
    rows = standings(("Ana", "Ben"), [Game(("Ana", "Ben"), (4, 6), won_by=0)])
    assert [(r.name, r.won, r.difference) for r in rows] == [("Ana", 1, -2), ("Ben", 0, 2)]
