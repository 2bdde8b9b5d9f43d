"""The event's fold (scoreboard/event/core/fold.py): results, corrections, calls, APA team nights; a refused
record changes nothing."""

from __future__ import annotations

import pytest

from scoreboard.event.core.fold import Event, drawn_order
from scoreboard.event.core.records import Called, Corrected, Created, Draw, EventError, Moved, PutUpRecord, Result

FOUR = ["Ana", "Ben", "Cvita", "Dino"]


def single(**extra):
    return Event.fold([Created({"name": "N", "format": "single", "players": FOUR, "race": 3, **extra}),
                       Draw(tuple(FOUR))])


def refused(event, record, said):
    before = event.to_json()
    with pytest.raises(EventError) as error:
        event.apply(record)
    assert str(error.value) == said
    assert event.to_json() == before


def test_a_result_must_end_the_race():
    event = single()
    refused(event, Result("W1-1", (2, 1)),
            "2-1 does not end a race to 3-3: the winner has his race, the loser less")
    refused(event, Result("W2-1", (3, 1)), "W2-1 waits for its players")
    refused(event, Result("X-1", (3, 1)), "no match X-1 in this event")


def test_a_tables_result_counts_once_and_names_its_stored_match():
    event = single()
    assert event.apply(Result("W1-1", (3, 1), "a1b2c3", 4))
    assert not event.apply(Result("W1-1", (3, 1), "a1b2c3", 4))
    refused(event, Result("W1-2", (3, 1), "a1b2c3", 4), "table store a1b2c3 match 4 is the result of W1-1 already")
    refused(event, Result("W1-1", (3, 2)), "W1-1 has its result already (3-1): correct it with a reason")
    assert event.match("W1-1").store == "a1b2c3" and event.match("W1-1").match_id == 4


def test_a_correction_needs_a_reason_and_may_not_undo_a_match_begun_on_it():
    event = single()
    event.apply(Result("W1-1", (3, 1)))
    event.apply(Result("W1-2", (0, 3)))
    assert event.apply(Corrected("W1-1", (3, 2), "the 9 on the break was missed"))
    assert event.match("W1-1").score == (3, 2) and event.match("W1-1").corrections == ("the 9 on the break was missed",)
    refused(event, Corrected("W1-1", (3, 2), "again"), "W1-1's result is 3-2 already")
    event.apply(Called("W2-1", "t1"))
    refused(event, Corrected("W1-1", (1, 3), "wrong winner"), "W1-1 cannot be corrected: W2-1 has begun on its result")
    assert event.apply(Corrected("W1-1", (3, 0), "racks miscounted"))  # the winner stays: nothing to undo


def test_calls_and_moves_follow_the_match():
    event = single(tables=["t1", "t2"])
    refused(event, Called("W1-1", "t9"), "no table t9 in this event (its tables: t1, t2)")
    event.apply(Called("W1-1", "t1"))
    assert event.match("W1-1").status == "called" and event.match("W1-1").table == "t1"
    refused(event, Moved("W1-1", "t1"), "W1-1 is at table t1 already")
    event.apply(Moved("W1-1", "t2"))
    assert event.match("W1-1").table == "t2"


def test_a_true_double_lists_the_reset_only_once_the_losers_side_wins_the_first_final():
    event = Event.fold([Created({"name": "N", "format": "double", "players": ["Ana", "Ben"], "race": 2,
                                 "final": "true_double"}), Draw(("Ana", "Ben"))])
    event.apply(Result("W1-1", (2, 0)))
    assert [m.id for m in event.matches()] == ["W1-1", "GF-1"]
    event.apply(Result("GF-1", (0, 2)))
    assert [m.id for m in event.matches()] == ["W1-1", "GF-1", "GF-2"] and event.champion() is None
    event.apply(Result("GF-2", (2, 1)))
    assert event.champion() == "Ana"


def test_a_drawn_seeding_records_its_seed_and_the_order_it_made():
    players = tuple(FOUR)
    order = drawn_order(players, 7)
    assert sorted(order) == sorted(players) and drawn_order(players, 7) == order
    event = Event.fold([Created({"name": "N", "format": "single", "players": FOUR, "seeding": "drawn"}),
                        Draw(order, 7)])
    assert event.seed == 7 and event.order == order
    refused(event, Draw(order, 7), "the event is drawn already")
    fresh = Event.fold([Created({"name": "N", "format": "single", "players": FOUR})])
    refused(fresh, Draw(order, 7), "this event is seeded in the given order: its draw is the players as listed")


def test_an_apa_night_puts_up_players_and_splits_each_matchs_twenty_points():
    teams = [{"name": "Cue Tips", "players": [{"name": n, "skill": s} for n, s in
                                              (("Ana", 7), ("Ben", 3), ("Cvita", 4), ("Dino", 2), ("Ema", 5))]},
             {"name": "Rails", "players": [{"name": n, "skill": s} for n, s in
                                           (("Fran", 4), ("Goran", 4), ("Hana", 4), ("Ivo", 4), ("Jura", 4))]}]
    event = Event.fold([Created({"name": "N", "format": "apa_team", "teams": teams})])
    refused(event, Result("APA-1", (55, 10)), "APA-1 waits for its players")
    event.apply(PutUpRecord(0, "Ana"))
    refused(event, PutUpRecord(0, "Ben"), "Cue Tips has put up its player for this match: the other captain puts "
                                          "up next")
    event.apply(PutUpRecord(1, "Fran"))
    refused(event, Result("APA-1", (54, 30)), "APA points 54-30: exactly one player reaches his target (55 and 31)")
    event.apply(Result("APA-1", (55, 20)))
    view = event.match("APA-1")
    assert view.skills == (7, 4) and view.winner == 0 and view.match_points == (15, 5)
    assert event.team_totals() == (15, 5)


def test_each_match_says_where_its_sides_come_from_before_its_players_are_known():
    """Issue 32: the board says "winner of W1-1" in a cell still waiting for its player."""
    event = Event.fold([Created({"name": "N", "format": "double", "players": ["Ana", "Ben", "Cvita"], "race": 3}),
                        Draw(("Ana", "Ben", "Cvita"))])
    served = {m["match"]: m["from"] for m in event.to_json()["matches"]}
    assert served["W1-2"] == [{"seed": 2}, {"seed": 3}]
    assert served["W2-1"] == [{"winner_of": "W1-1"}, {"winner_of": "W1-2"}]
    assert served["L2-1"] == [{"winner_of": "L1-1"}, {"loser_of": "W2-1"}]
    groups = Event.fold([Created({"name": "G", "format": "round_robin", "players": ["A", "B", "C", "D"],
                                  "round_robin": {"groups": 2, "advance": 1}, "race": 2})])
    assert {m["match"]: m["from"] for m in groups.to_json()["matches"]}["K1-1"] == [
        {"group": "A", "place": 1}, {"group": "B", "place": 1}]
    roster = [{"name": f"P{n}", "skill": 3} for n in range(5)]
    other = [dict(p, name=p["name"] + "b") for p in roster]
    apa = Event.fold([Created({"name": "APA", "format": "apa_team", "teams": [
        {"name": "One", "players": roster}, {"name": "Two", "players": other}]})])
    assert apa.to_json()["matches"][0]["from"] == [{"team": 0, "match": 1}, {"team": 1, "match": 1}]
