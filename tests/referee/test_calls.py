"""The table's side of the director's calls (scoreboard/referee/calls.py): every call answered, each refusal with
its code, Start beginning exactly the called match, Not now giving it back; the referee in process."""

from __future__ import annotations

import pytest

from scoreboard.referee.referee import Referee
from tests.served import valid

NOW = 1_000_000.0
CALL = {"id": "5e1f0a9c3b2d/1/W2-1/7", "match": "W2-1", "round": "W2", "side": "winners", "profile": "apa9",
        "expires": NOW + 60,
        "match_start": {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "apa_skill": [3, 5], "breaker": 0}}


@pytest.fixture
def table(tmp_path):
    clock = [NOW]
    referee = Referee.open(tmp_path / "devetka.db", wall=lambda: clock[0])
    referee.clock = clock
    yield referee
    referee.close()


def call(referee, **changes):
    return referee.handle({"cmd": "call", "call": {**CALL, **changes}})


def test_a_call_is_offered_with_its_words_and_start_begins_exactly_its_match(table):
    answer = call(table)
    assert answer.ok and answer.changed
    offered = answer.state["call"]
    assert (offered["status"], offered["words"]) == ("offered", "Called: Ana - Ben, APA skill levels 3 and 5, "
                                                                "winners' round 2")
    assert table.match is None  # offered, not begun
    started = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert started.ok
    assert started.state["players"] == ["Ana", "Ben"] and started.state["match_call"] == CALL["id"]
    assert started.state["rules"]["profile"] == "apa9" and started.state["call"]["status"] == "started"
    _, log = table.store.current_match()
    assert log[0].call == CALL["id"] and log[0].apa_skill == (3, 5)


def test_the_same_call_twice_is_answered_the_same_and_begins_nothing_twice(table):
    assert call(table).ok and call(table).ok
    assert table.handle({"cmd": "call_start", "call": CALL["id"]}).ok
    match_id = table.match_id
    again = call(table)
    assert again.ok and table.match_id == match_id


def test_a_call_arriving_after_its_expiry_is_refused_expired(table):
    table.clock[0] = NOW + 61
    answer = call(table)
    assert (answer.ok, answer.code) == (False, "expired")
    assert answer.error == "call 5e1f0a9c3b2d/1/W2-1/7 expired before it arrived"
    assert answer.state is None and table.calls.offer is None
    assert table.state()["call"] == {"id": CALL["id"], "status": "refused", "match": "W2-1", "code": "expired"}


def test_a_withdrawn_call_arriving_late_is_refused_superseded(table):
    assert table.handle({"cmd": "withdraw", "call": CALL["id"]}).ok
    answer = call(table)
    assert (answer.ok, answer.code) == (False, "superseded")


def test_a_call_withdrawn_while_offered_is_taken_off_the_screen(table):
    call(table)
    assert table.handle({"cmd": "withdraw", "call": CALL["id"]}).ok
    assert table.state()["call"]["status"] == "withdrawn"
    refused = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert (refused.ok, refused.code) == (False, "no_call") and table.match is None


def test_any_call_is_refused_in_play_while_a_match_is_being_played(table):
    assert table.handle({"cmd": "new_match", "match_start": {"players": ["Eva", "Fran"], "race": [3, 3]}}).ok
    before = table.state()
    answer = call(table)
    assert (answer.ok, answer.code) == (False, "in_play")
    assert {k: v for k, v in table.state().items() if k != "call"} == {k: v for k, v in before.items() if k != "call"}


def test_a_second_call_while_one_is_offered_is_refused_call_pending(table):
    call(table)
    answer = call(table, id="5e1f0a9c3b2d/1/L1-1/8", match="L1-1")
    assert (answer.ok, answer.code) == (False, "call_pending")
    assert table.state()["call"]["id"] == CALL["id"]


@pytest.mark.parametrize("bad, said", [
    ({"id": 5}, "call: id must be a string of at most 64 printable characters"),
    ({"match_start": {"players": ["Ana"], "race": [3, 3], "breaker": 0}, "profile": None},
     "call: match_start players must be a list of 2 non-empty names"),
    ({"profile": "snooker"}, "call: unknown profile 'snooker' (known: wpa, apa9, bar)"),
    ({"expires": "soon"}, "call: expires must be seconds since the epoch or null"),
    ({"event": 7}, "call: event must be the event's name"),
    ({"next": [{"win": {"won": True}}]}, "call: next must be a list of two objects, one per player"),
])
def test_a_malformed_call_is_refused_invalid_input_naming_what_was_wrong(table, bad, said):
    answer = call(table, **bad)
    assert (answer.ok, answer.code, answer.error) == (False, "invalid_input", said)
    assert table.match is None and table.calls.offer is None


def test_not_now_gives_the_call_back(table):
    call(table)
    answer = table.handle({"cmd": "call_decline", "call": CALL["id"]})
    assert answer.ok and answer.state["call"] == {"id": CALL["id"], "status": "declined", "match": "W2-1"}
    assert table.match is None


def test_the_call_is_said_in_the_players_language(tmp_path):
    referee = Referee.open(tmp_path / "hr.db", wall=lambda: NOW, language="hr")
    try:
        shown = referee.handle({"cmd": "call", "call": {**CALL, "profile": "wpa", "match_start": {
            "players": ["Ana", "Ben"], "race": [7, 7], "breaker": 0}}}).state["call"]
        assert shown["words"] == "Poziv: Ana - Ben, igra se na 7, 2. kolo pobjedničke strane"
    finally:
        referee.close()


NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                     {"type": "settle"}]


def test_a_called_match_won_is_served_until_well_after_the_next_match_and_across_a_restart(tmp_path):
    path = tmp_path / "devetka.db"
    referee = Referee.open(path, wall=lambda: NOW)
    try:
        race_to_one = {"players": ["Ana", "Ben"], "race": [1, 1], "breaker": 0}
        referee.handle({"cmd": "call", "call": {**CALL, "profile": "wpa", "match_start": race_to_one}})
        assert referee.handle({"cmd": "call_start", "call": CALL["id"]}).ok
        assert referee.state()["called_results"] == []  # begun, not won
        for item in NINE_ON_THE_BREAK:
            state = referee.handle(item).state
        won = {"call": CALL["id"], "match_id": state["match_id"], "seq": state["seq"], "score": [1, 0], "winner": 0}
        assert state["called_results"] == [won]
        assert referee.handle({"cmd": "new_match", "match_start": {"players": ["Eva", "Fran"], "race": [3, 3]}}).ok
        assert referee.state()["called_results"] == [won]  # the next match (not called) does not hide it
    finally:
        referee.close()
    again = Referee.open(path, wall=lambda: NOW)
    try:
        assert again.state()["called_results"] == [won]
    finally:
        again.close()


def test_the_break_s_strike_begins_a_called_match_only_where_the_venue_says_so(table):
    import time

    from scoreboard.core.inputs import Strike
    from scoreboard.referee.service import Service

    service = Service(table)
    call(table)
    service.report(Strike(t=time.monotonic()))  # the venue did not say so: the players must press Start
    assert table.match is None and table.state()["call"]["status"] == "offered"
    table.handle({"cmd": "call_decline", "call": CALL["id"]})
    call(table, id="5e1f0a9c3b2d/1/W2-1/9", start_on_strike=True)
    service.report(Strike(t=time.monotonic()))
    state = table.state()
    assert (state["match_call"], state["seq"], state["shot_in_progress"]) == ("5e1f0a9c3b2d/1/W2-1/9", 1, True)


RACE_TO_ONE = {"players": ["Ana", "Ben"], "race": [1, 1], "breaker": 0}
TO_W3 = {"match": "W3-1", "round": "W3", "side": "winners", "against": {"winner_of": "W2-2", "players": ["Cvita",
                                                                                                          "Dino"]}}
TO_L2 = {"match": "L2-1", "round": "L2", "side": "losers", "against": {"player": "Ema"}}
NEXT = [{"win": TO_W3, "lose": TO_L2}, {"win": TO_W3, "lose": TO_L2}]


def won_called(referee, **changes) -> dict:
    """The call offered, begun and won by Ana on the 9 on the break: the state then."""
    offered = referee.handle({"cmd": "call", "call": {**CALL, "profile": "wpa", "match_start": RACE_TO_ONE,
                                                      **changes}}).state
    assert referee.handle({"cmd": "call_start", "call": CALL["id"]}).state["next_for"] is None  # begun, not won
    for item in NINE_ON_THE_BREAK:
        state = referee.handle(item).state
    return {"offered": valid("state", offered), "won": valid("state", state)}  # as docs/schema says


def test_a_called_match_won_serves_where_each_player_goes_next(table):
    states = won_called(table, event="Friday 9-ball", next=NEXT)
    assert states["offered"]["call"]["event"] == "Friday 9-ball"
    ana, ben = states["won"]["next_for"]
    assert (ana["words"], ana["match"]) == ("winners' round 3 against the winner of Cvita - Dino", "W3-1")
    assert (ben["words"], ben["match"]) == ("losers' round 2 against Ema", "L2-1")
    assert ana["message"]["id"] == "{round} against the winner of {a} - {b}"
    assert states["won"]["rematch_breaker"] is None  # the director calls them next: no rematch offered
    assert table.handle({"cmd": "new_match", "match_start": {"players": ["Eva", "Fran"], "race": [1, 1]}}).ok
    for item in NINE_ON_THE_BREAK:
        won = table.handle(item).state
    assert won["next_for"] is None  # a match not called: nothing to say
    assert won["rematch_breaker"] == 1  # and its loser breaks a rematch


@pytest.mark.parametrize("win, lose, said", [
    ({"won": True}, {"out": True}, ("the event's winner", "out of the event")),
    ({"standings": "A"}, {"match": "A3-2", "round": "A3", "side": "group", "against": {"player": "Cvita"}},
     ("group A's standings decide", "group A against Cvita")),
    ({"match": "K2-1", "round": "K2", "side": "playoff", "against": {"loser_of": "K1-2"}},
     {"match": "GF-2", "round": "GF", "side": "final", "against": {}},
     ("playoff round 2 against the loser of match K1-2", "the grand final (reset)")),
    ({"teleport": "moon"}, {"match": "K1-1", "round": "K1", "side": "playoff", "against": {"group": "B",
                                                                                          "place": 2}},
     (None, "playoff round 1 against number 2 of group B")),
])
def test_every_kind_of_destination_is_said_and_one_this_release_does_not_know_is_left_unsaid(table, win, lose, said):
    served = won_called(table, next=[{"win": win, "lose": lose}, {"win": win, "lose": lose}])["won"]["next_for"]
    assert tuple(None if n is None else n["words"] for n in served) == said


def test_a_call_without_event_or_next_from_an_older_director_is_offered_and_won_as_before(table):
    states = won_called(table)
    assert states["offered"]["call"]["event"] is None and states["won"]["next_for"] is None
    assert states["won"]["called_results"][0]["call"] == CALL["id"]


def test_where_next_is_said_in_the_players_language(tmp_path):
    referee = Referee.open(tmp_path / "hr.db", wall=lambda: NOW, language="hr")
    try:
        ana, ben = won_called(referee, next=NEXT)["won"]["next_for"]
        assert ana["words"] == "3. kolo pobjedničke strane, protivnik: pobjednik meča Cvita - Dino"
        assert ben["words"] == "2. kolo repasaža, protivnik: Ema"
    finally:
        referee.close()


def test_start_is_refused_venue_away_while_the_bridge_says_the_venue_is_away_and_nothing_changes(table):
    from scoreboard.referee.service import Service

    service = Service(table)
    watched: list[dict] = []
    service.watch(watched.append)
    assert table.calls.venue_reachable is None  # no bridge has spoken (no venue): Start is not held
    assert call(table).state["call"]["start"] == {"ok": True}
    service.venue_link(False)  # the table's bridge says 0: the director may call this match elsewhere meanwhile
    before = table.state()
    assert watched[-1]["call"] == before["call"]  # the screens are told at once
    refused = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert (refused.ok, refused.code, refused.changed) == (False, "venue_away", False)
    assert refused.error == ("the venue cannot be reached: this called match can start once it is back "
                             "(or ask the desk)")
    assert table.match is None and table.state() == before and before["call"]["status"] == "offered"
    assert before["call"]["start"] == {"ok": False, "why": refused.error}  # the screen's Start says why, unpressed
    service.venue_link(True)  # the bridge is back (1): the call, still offered, starts
    started = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert started.ok and started.state["match_call"] == CALL["id"]


def test_the_break_s_strike_begins_no_called_match_while_the_venue_is_away(table):
    import time

    from scoreboard.core.inputs import Strike
    from scoreboard.referee.service import Service

    service = Service(table)
    call(table, start_on_strike=True)
    service.venue_link(False)
    service.report(Strike(t=time.monotonic()))
    assert table.match is None and table.state()["call"]["status"] == "offered"
    service.venue_link(True)
    service.report(Strike(t=time.monotonic()))
    assert table.state()["match_call"] == CALL["id"]


def test_venue_away_is_said_in_the_players_language(tmp_path):
    from scoreboard.referee.service import Service

    referee = Referee.open(tmp_path / "hr.db", wall=lambda: NOW, language="hr")
    try:
        call(referee)
        Service(referee).venue_link(False)
        refused = referee.handle({"cmd": "call_start", "call": CALL["id"]})
        assert refused.code == "venue_away"
        assert referee.state()["call"]["start"]["why"] == refused.words == (
            "lokal nije dostupan: ovaj pozvani meč može početi kad lokal opet bude dostupan "
            "(ili pitajte voditelja natjecanja)")
    finally:
        referee.close()


def test_a_daemon_restarted_mid_match_still_says_where_next_and_sends_the_result(tmp_path):
    path = tmp_path / "devetka.db"
    referee = Referee.open(path, wall=lambda: NOW)
    try:
        referee.handle({"cmd": "call", "call": {**CALL, "profile": "wpa", "match_start": RACE_TO_ONE, "next": NEXT}})
        assert referee.handle({"cmd": "call_start", "call": CALL["id"]}).ok
    finally:
        referee.close()
    again = Referee.open(path, wall=lambda: NOW)
    try:
        for item in NINE_ON_THE_BREAK:
            state = again.handle(item).state
        assert [n["words"] for n in state["next_for"]] == ["winners' round 3 against the winner of Cvita - Dino",
                                                           "losers' round 2 against Ema"]
        assert state["called_results"][0]["call"] == CALL["id"]
    finally:
        again.close()


def test_a_daemon_restarted_after_the_won_match_still_says_where_next_until_a_new_match(tmp_path):
    path = tmp_path / "devetka.db"
    referee = Referee.open(path, wall=lambda: NOW)
    try:
        won = won_called(referee, next=NEXT)["won"]["next_for"]
    finally:
        referee.close()
    again = Referee.open(path, wall=lambda: NOW)
    try:
        assert again.state()["next_for"] == won
        assert again.handle({"cmd": "new_match", "match_start": {"players": ["Eva", "Fran"], "race": [3, 3]}}).ok
        assert again.state()["next_for"] is None
    finally:
        again.close()
    third = Referee.open(path, wall=lambda: NOW)
    try:
        assert third.state()["next_for"] is None  # the uncalled match is current: its players go nowhere next
    finally:
        third.close()


def test_a_called_match_the_full_disk_cannot_begin_keeps_no_call_either(tmp_path):
    """The call is kept in the match's own transaction: a store that cannot begin the match keeps no call."""
    from tests.disks import fill, small_disk

    with small_disk(tmp_path) as disk:
        referee = Referee.open(disk / "devetka.db", wall=lambda: NOW)
        try:
            referee.handle({"cmd": "call", "call": {**CALL, "profile": "wpa", "match_start": RACE_TO_ONE,
                                                    "next": NEXT}})
            filler = fill(disk)
            for _ in range(100):  # the WAL takes a few matches in the room it has; then the disk is full
                if not referee.handle({"cmd": "new_match", "match_start": RACE_TO_ONE}).ok:
                    break
            else:
                raise AssertionError("a full disk began 100 matches")
            before = referee.state()
            answer = referee.handle({"cmd": "call_start", "call": CALL["id"]})
            assert (answer.ok, answer.code) == (False, "store_failed")
            assert dict(referee.state(), health=[]) == dict(before, health=[])  # the match as it was
            assert referee.store.call_begun((before["match_id"] or 0) + 1) is None
            filler.unlink()
        finally:
            referee.close()
        again = Referee.open(disk / "devetka.db", wall=lambda: NOW)
        try:
            assert again.match_id == before["match_id"] and again.calls.begun is None
        finally:
            again.close()


def test_the_documented_offered_call_is_the_one_served(table):
    import re
    from pathlib import Path

    import orjson

    doc = (Path(__file__).resolve().parents[2] / "docs" / "mqtt.md").read_text()
    documented = next(block["call"] for block in
                      (orjson.loads(text) for text in re.findall(r"```json\n(.*?)```", doc, re.DOTALL))
                      if isinstance(block.get("call"), dict))
    call(table, id=documented["id"], profile="wpa", match_start={"players": ["Ana", "Ben"], "race": [7, 7]})
    from scoreboard.referee.service import Service

    Service(table).venue_link(False)
    assert table.state()["call"] == documented


def test_start_is_held_once_three_of_the_director_s_heartbeats_are_missed(table):
    """A cut network: the table's bridge says nothing, the director's heartbeats (bridged in) stop coming."""
    from scoreboard.referee.service import Service

    service = Service(table)
    watched: list[dict] = []
    service.watch(watched.append)
    call(table)
    assert service.director_heard(10) == 30  # the link vouched for 30 s
    table.clock[0] += 30
    assert table.state()["call"]["start"] == {"ok": True}
    table.clock[0] += 0.5  # three beats missed
    assert table.state()["call"]["start"]["ok"] is False
    refused = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert (refused.ok, refused.code) == (False, "venue_away") and table.match is None
    service.director_heard(10)  # heard again: the screens are told at once, and Start begins the match
    assert watched[-1]["call"]["start"] == {"ok": True}
    assert table.handle({"cmd": "call_start", "call": CALL["id"]}).ok


def test_the_bridge_back_up_vouches_for_the_link_as_a_heartbeat_would(table):
    """The venue away longer than three beats (killed, restarted): the bridge's 1 on its return lets Start go at once,
    not only once the director's next beat arrives; the beats' bound then runs from the bridge's 1."""
    from scoreboard.referee.service import Service

    service = Service(table)
    call(table)
    service.director_heard(10)
    service.venue_link(False)
    table.clock[0] += 45  # the venue away 45 s: no beat heard meanwhile
    assert table.state()["call"]["start"]["ok"] is False
    service.venue_link(True)
    assert table.state()["call"]["start"] == {"ok": True}
    table.clock[0] += 30.5  # and three beats missed after it: a cut network again
    refused = table.handle({"cmd": "call_start", "call": CALL["id"]})
    assert (refused.ok, refused.code) == (False, "venue_away") and table.match is None
