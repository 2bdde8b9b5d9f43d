"""A match's result (scoreboard/core/results.py): each rack counted as a league sheet counts it."""

from scoreboard.core.inputs import (
    Concede,
    Cushion,
    FirstContact,
    Foul,
    MatchStart,
    Miss,
    Pocket,
    Settle,
    Strike,
)
from scoreboard.core.match import Match
from scoreboard.core.results import COLUMNS, csv_row, result


def played(*items) -> Match:
    match = Match(MatchStart(players=("Ana", "Ben"), race=(2, 2), breaker=0))
    for item in items:
        match.apply(item)
    return match


BREAK_AND_RUN = [Strike(), FirstContact(1), Pocket(1), Pocket(2), Settle(),
                 *[step for ball in range(3, 10) for step in (Strike(), FirstContact(ball), Pocket(ball), Settle())]]


def test_a_rack_run_by_the_breaker_is_a_break_and_run_and_not_a_nine_on_the_break():
    (rack,) = result(played(*BREAK_AND_RUN))["racks"]
    assert rack == {"rack": 1, "breaker": 0, "winner": 0, "break_and_run": True, "nine_on_break": False,
                    "fouls": [0, 0], "conceded": False}


def test_a_foul_spoils_the_run_and_is_counted_to_its_player():
    match = played(Strike(), FirstContact(1), Pocket(1), Pocket(2), Settle(),
                   Strike(), FirstContact(5), Cushion(5), Settle(),  # Ana: bad hit (5.8)
                   Strike(), FirstContact(3), Pocket(9), Settle())  # Ben: combination on the 9
    (rack,) = result(match)["racks"]
    assert rack["winner"] == 1 and rack["fouls"] == [1, 0] and not rack["break_and_run"]


def test_an_unfinished_rack_is_not_listed_and_the_csv_row_says_no_winner():
    outcome = result(played(Strike(), FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Settle(),
                            Miss(), Foul("other")))
    assert outcome["racks"] == [] and outcome["winner"] is None
    row = dict(zip(COLUMNS, csv_row(7, outcome), strict=True))
    assert row["match"] == 7 and row["winner"] == "" and row["score0"] == 0 and row["target0"] == 2


def test_a_conceded_rack_is_listed_won_by_the_opponent_with_its_fouls_r9():
    match = played(Strike(), FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Settle(),  # legal break
                   Strike(), FirstContact(4), Cushion(4), Settle(),  # Ben: bad hit (5.8)
                   Concede(player=0, scope="rack"),  # Ana, with ball in hand, gives the rack up
                   Concede(player=1, scope="rack"))  # rack 2, before its break: Ben gives it up too
    outcome = result(match)
    assert outcome["score"] == [1, 1]
    assert outcome["racks"] == [
        {"rack": 1, "breaker": 0, "winner": 1, "break_and_run": False, "nine_on_break": False, "fouls": [0, 1],
         "conceded": True},
        {"rack": 2, "breaker": 1, "winner": 0, "break_and_run": False, "nine_on_break": False, "fouls": [0, 0],
         "conceded": True}]
    assert dict(zip(COLUMNS, csv_row(1, outcome), strict=True))["racks"] == 2
