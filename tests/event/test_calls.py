"""Which match goes to which table (scoreboard/event/core/calls.py): venue order, pins, released calls, expiry."""

from __future__ import annotations

import pytest

from scoreboard.event.core.calls import call_of, expired, next_calls, parse_call_id
from scoreboard.event.core.fold import Event
from scoreboard.event.core.records import (
    Called,
    Created,
    Draw,
    EventError,
    PutUpRecord,
    Released,
    Result,
    Started,
)

PLAYERS = ("Ana", "Ben", "Cvita", "Dino")


def drawn(**spec) -> Event:
    return Event.fold([Created({"name": "N", "format": "single", "players": list(PLAYERS), "race": 3, **spec}),
                       Draw(PLAYERS)])


def test_ready_matches_go_to_the_free_tables_in_the_venue_s_order():
    event = drawn(tables=["t3", "t1", "t2"])
    assert next_calls(event, free=["t1", "t2", "t3"]) == [("W1-1", "t3"), ("W1-2", "t1")]
    assert next_calls(drawn(), free=["b", "a"]) == [("W1-1", "a"), ("W1-2", "b")]  # no order given: by id


def test_a_table_outside_the_event_s_tables_is_never_called():
    assert next_calls(drawn(tables=["t1"]), free=["t9", "t1"]) == [("W1-1", "t1")]


def test_a_pinned_match_waits_for_its_table_and_its_table_is_kept_for_it():
    event = drawn(tables=["t1", "tv"], pins={"W1-2": "tv", "W2-1": "tv"})
    assert next_calls(event, free=["t1"]) == [("W1-1", "t1")]
    assert next_calls(event, free=["tv"]) == [("W1-2", "tv")]
    assert next_calls(event, free=["tv", "t1"]) == [("W1-1", "t1"), ("W1-2", "tv")]


def test_a_pin_naming_no_match_is_refused():
    with pytest.raises(EventError, match="pins names no match GF-1"):
        drawn(pins={"GF-1": "tv"})


def test_a_table_with_a_standing_call_or_a_match_in_play_is_not_called_again():
    event = drawn()
    event.apply(Called("W1-1", "t1", 100.0))
    assert next_calls(event, free=["t1", "t2"]) == [("W1-2", "t2")]
    event.apply(Started("W1-1", "t1"))
    assert next_calls(event, free=["t1"]) == []


def test_a_released_match_goes_to_another_free_table_first():
    event = drawn()
    event.apply(Called("W1-1", "t1", 100.0))
    event.apply(Released("W1-1", "t1", "not_now"))
    assert next_calls(event, free=["t1", "t2"]) == [("W1-1", "t2"), ("W1-2", "t1")]
    assert next_calls(event, free=["t1"]) == [("W1-1", "t1")]  # no other table: back to the one it left


def test_a_call_runs_out_unanswered_only_while_its_match_has_not_begun():
    event = drawn()
    event.apply(Called("W1-1", "t1", 100.0))
    assert expired(event, 99.0) == [] and [v.id for v in expired(event, 100.0)] == ["W1-1"]
    event.apply(Started("W1-1", "t1"))
    assert expired(event, 500.0) == []


def test_a_call_is_released_only_from_the_table_it_stands_at():
    event = drawn()
    event.apply(Called("W1-1", "t1", 100.0))
    with pytest.raises(EventError, match="W1-1 is not called to table t2"):
        event.apply(Released("W1-1", "t2", "expired"))
    with pytest.raises(EventError, match="release that call first"):
        event.apply(Called("W1-1", "t2", 200.0))


def test_a_call_carries_its_id_its_match_start_and_its_expiry_and_a_new_call_has_a_new_id():
    event = drawn(profile="wpa")
    event.apply(Called("W1-1", "t1", 100.0))
    view = event.match("W1-1")
    call = call_of(event, "s1", 7, view)
    winning = {"match": "W2-1", "round": "W2", "side": "winners",
               "against": {"winner_of": "W1-2", "players": ["Ben", "Cvita"]}}  # where_next's: the table says it
    assert call == {"id": "s1/7/W1-1/2", "event": "N", "match": "W1-1", "round": "W1", "side": "winners",
                    "match_start": {"type": "match_start", "v": 1, "players": ["Ana", "Dino"], "breaker": 0,
                                    "race": [3, 3]}, "profile": "wpa", "expires": 100.0,
                    "start_on_strike": False, "next": [{"win": winning, "lose": {"out": True}}] * 2}
    event.apply(Released("W1-1", "t1", "expired"))
    event.apply(Called("W1-1", "t2", 200.0))
    assert call_of(event, "s1", 7, event.match("W1-1"))["id"] == "s1/7/W1-1/4"
    event.apply(Result("W1-1", (3, 1), "s1", 1))
    assert event.match("W1-1").call is None


def test_an_apa_match_is_called_with_the_skill_levels():
    teams = [{"name": "Sharks", "players": [{"name": n, "skill": 3} for n in ("Ana", "A2", "A3", "A4", "A5")]},
             {"name": "Jets", "players": [{"name": n, "skill": 5} for n in ("Ben", "B2", "B3", "B4")]
              + [{"name": "B5", "skill": 2}]}]
    event = Event.fold([Created({"name": "APA", "format": "apa_team", "teams": teams})])
    event.apply(PutUpRecord(0, "Ana"))
    event.apply(PutUpRecord(1, "Ben"))
    event.apply(Called("APA-1", "t1", 10.0))
    start = call_of(event, "s1", 1, event.match("APA-1"))["match_start"]
    assert start["apa_skill"] == [3, 5] and "race" not in start
    assert "next" not in call_of(event, "s1", 1, event.match("APA-1"))  # each player plays once


@pytest.mark.parametrize("text", ["s/1/W1-1", "s/x/W1-1/3", "s/1//3", None, 5, "s/1/W1-1/3/4", "t/1/W1-1/3"])
def test_anything_but_one_of_this_store_s_call_ids_is_not_one(text):
    assert parse_call_id(text, "s") is None
