"""The rule facts served beside the state line (scoreboard/core/facts.py), on real matches: what the screens used
to work out for themselves."""

from scoreboard.core.facts import LIMITS, facts
from scoreboard.core.inputs import (
    Accept,
    Concede,
    Cushion,
    FirstContact,
    MatchStart,
    Pass,
    Pocket,
    PushOut,
    RuleOptions,
    Settle,
    Strike,
)
from scoreboard.core.match import Match
from scoreboard.core.messages import render

START = MatchStart(players=("Ana", "Ben"), race=(2, 2), breaker=0)
LEGAL_BREAK = (Strike(), FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Settle())


def played(*items, start=START):
    match = Match(start)
    for item in items:
        match.apply(item)
    return match


def served(match):
    return facts(match.state, match.last_verdict())


def test_no_match_serves_empty_facts():
    assert facts(None, None) == {"ball_on": None, "hill": [False, False], "break_to_come": False,
                                 "rematch_breaker": None, "shot_dropped": [], "identify_candidates": [],
                                 "ruling_now": None, "conceded": None, "limits": LIMITS}


def test_the_ball_on_is_the_lowest_left_and_the_break_is_to_come_until_it_is_played():
    assert served(played())["break_to_come"] is True
    after = played(Strike(), FirstContact(1), Pocket(1), Cushion(2), Cushion(3), Cushion(4), Settle())
    assert served(after)["ball_on"] == 2 and served(after)["break_to_come"] is False
    assert served(played(Strike()))["break_to_come"] is False  # the break is being played


def test_what_a_shot_in_play_has_dropped_in_order_the_unnamed_as_none():
    assert served(played(Strike(), Pocket(3), Pocket(None), Pocket(0)))["shot_dropped"] == [3, None, 0]
    assert served(played(Strike(), Pocket(3), Pocket(None), Pocket(0), Settle()))["shot_dropped"] == []


def test_the_hill_the_rematch_breaker_and_no_ball_on_once_the_match_is_won():
    one_up = played(Concede(player=1, scope="rack"))
    assert served(one_up)["hill"] == [True, False]
    won = played(Concede(player=1, scope="match"))
    assert served(won)["rematch_breaker"] == 1 and served(won)["ball_on"] is None
    assert served(won)["hill"] == [False, False]


def test_the_hill_is_not_served_under_apa_points():
    apa = MatchStart(players=("Ana", "Ben"), breaker=0, apa_skill=(2, 2), race=(1, 1),
                     options=RuleOptions(scoring="apa"))
    assert served(played(start=apa))["hill"] == [False, False]


def test_an_unnamed_ball_offers_the_balls_on_the_table_before_the_shot():
    match = played(Strike(), FirstContact(1), Pocket(None), Cushion(2), Cushion(3), Cushion(4), Settle())
    assert served(match)["identify_candidates"] == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_once_a_push_out_is_answered_the_ruling_now_says_what_was_chosen():
    pushed = (*LEGAL_BREAK, PushOut(), Strike(), FirstContact(3), Cushion(4), Settle())
    assert served(played(*pushed))["ruling_now"] is None  # the question stands
    shot = served(played(*pushed, Accept()))["ruling_now"]
    assert render(shot) == "Push out (5.6) by Ben. Ana chose to shoot from here."
    passed = served(played(*pushed, Pass()))["ruling_now"]
    assert render(passed).endswith("Ana passed it back: Ben shoots.")


def test_a_conceded_rack_is_served_until_a_shot_is_ruled_after_it():
    """Issue 33, 1: no verdict ends a conceded rack, so the screens said the last shot's ruling in its place."""
    match = played(*LEGAL_BREAK, Concede(player=0, scope="rack"))
    conceded = served_with_concession(match)["conceded"]
    assert (conceded["player"], conceded["scope"], conceded["rack"], conceded["winner"], conceded["match_over"]) \
        == (0, "rack", 1, 1, False)
    assert render(conceded["message"]) == "Ana concedes the rack (R9). Score 0-1; Ben breaks rack 2."
    assert conceded["cites"] == ["R9"]
    match.apply(Strike())
    assert served_with_concession(match)["conceded"] is not None  # the next break is being played: not ruled yet
    for item in LEGAL_BREAK[1:]:
        match.apply(item)
    assert served_with_concession(match)["conceded"] is None


def test_a_rack_conceded_at_the_hill_ends_the_match_and_an_undo_takes_the_concession_back():
    match = played(Concede(player=1, scope="rack"), Concede(player=0, scope="rack"), Concede(player=0, scope="rack"))
    conceded = served_with_concession(match)["conceded"]
    assert conceded["match_over"] and conceded["winner"] == 1 and conceded["rack"] == 3
    assert render(conceded["message"]) == "Ana concedes the rack (R9). Ben wins the match 1-2."
    from scoreboard.core.inputs import Undo

    match.apply(Undo())
    assert served_with_concession(match)["conceded"]["rack"] == 2
    match.apply(Undo())
    match.apply(Undo())
    assert served_with_concession(match)["conceded"] is None


def served_with_concession(match):
    return facts(match.state, match.last_verdict(), match.last_concession())
