"""The referee core (scoreboard/referee/referee.py) in-process, on real SQLite stores in a temporary folder."""

from __future__ import annotations

from scoreboard.config.table import parse
from scoreboard.referee.referee import COMMANDS, Referee
from scoreboard.referee.store import Store
from scoreboard.ui.viewmodel import view
from tests.disks import fill, small_disk
from tests.fake_clock import FakeClock
from tests.live import ANA_BEN, LEGAL_BREAK


def stored(path) -> list[str]:
    with Store.open_readonly(path) as store:
        current = store.current_match()
        return [] if current is None else [type(item).TYPE for item in current[1]]


def test_an_empty_store_serves_no_match(referee):
    state = referee.state()
    assert state["match_id"] is None and state["players"] is None and state["seq"] == 0
    assert state["last_verdict"] is None and state["undo"] is None
    assert referee.handle({"type": "strike"}).error.startswith("no match yet")


def test_a_legal_break_is_stored_and_served(referee, tmp_path):
    assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).changed
    for item in LEGAL_BREAK:
        reply = referee.handle(item)
        assert reply.ok and reply.changed, reply
    state = reply.state
    assert state["shooter"] == 1 and state["seq"] == len(LEGAL_BREAK)
    assert state["last_verdict"]["foul"] is False and "Legal break" in state["last_verdict"]["words"]
    assert _untimed(state["undo"]) == {"type": "settle"}
    assert state["rules"]["break"] == "winner" and state["players"] == ["Ana", "Ben"]
    assert stored(tmp_path / "devetka.db") == ["match_start", *(item["type"] for item in LEGAL_BREAK)]


def test_a_rejected_input_changes_nothing_and_is_not_stored(referee, tmp_path):
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    before = referee.state()
    for bad in ({"type": "pass"}, {"type": "pocket", "ball": 12}, {"type": "nonsense"}, ["strike"],
                {"type": "undo"}, ANA_BEN):
        reply = referee.handle(bad)
        assert not reply.ok and not reply.changed and reply.error, bad
    assert referee.state() == before
    assert stored(tmp_path / "devetka.db") == ["match_start"]


def test_an_input_that_changes_nothing_is_ok_but_not_stored(referee, tmp_path):
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    reply = referee.handle({"type": "settle"})  # no shot in progress: nothing to end
    assert reply.ok and not reply.changed and reply.state["seq"] == 0
    assert stored(tmp_path / "devetka.db") == ["match_start"]


def test_undo_is_stored_and_takes_back_the_last_change(referee, tmp_path):
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK:
        referee.handle(item)
    reply = referee.handle({"type": "undo"})
    assert reply.ok and reply.changed
    assert reply.state["shooter"] == 0 and _untimed(reply.state["undo"]) == {"type": "cushion", "ball": 5}
    assert reply.state["seq"] == len(LEGAL_BREAK) + 1
    assert stored(tmp_path / "devetka.db")[-1] == "undo"


BREAK_POCKETING_2_AND_3 = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 2},
                           {"type": "pocket", "ball": 3}, {"type": "settle"}]


def test_undo_shot_is_stored_and_gives_the_state_before_the_break(referee, tmp_path):
    before = referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).state
    for item in BREAK_POCKETING_2_AND_3:
        referee.handle(item)
    served = referee.state()["undo_shot"]
    assert {key: served[key] for key in ("shot", "inputs")} == {"shot": "Ana's break, the 2 and 3 pocketed",
                                                                 "inputs": 5}
    assert served["message"]["parts"][0] == {"id": "{name}'s break", "args": {"name": "Ana"}}
    reply = referee.handle({"type": "undo_shot"})
    assert reply.ok and reply.changed and reply.state["seq"] == len(BREAK_POCKETING_2_AND_3) + 1
    taken = reply.state["taken_back"]
    assert {key: taken[key] for key in ("type", "shot", "inputs")} == {"type": "undo_shot", "inputs": 5,
                                                                         "shot": "Ana's break, the 2 and 3 pocketed"}
    unchanged = ("seq", "taken_back", "actions")
    assert {k: v for k, v in reply.state.items() if k not in unchanged} == \
           {k: v for k, v in before.items() if k not in unchanged}
    assert reply.state["actions"]["undo_shot"] == {"ok": False, "why": "No shot to take back yet."}
    assert stored(tmp_path / "devetka.db")[-1] == "undo_shot"
    refused = referee.handle({"type": "undo_shot"})
    assert refused.error == "undo_shot with no shot to take back" and referee.state()["seq"] == reply.state["seq"]


def test_what_an_undo_took_back_is_served_until_the_next_change(referee):
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK:
        referee.handle(item)
    assert referee.state()["taken_back"] is None
    state = referee.handle({"type": "undo"}).state
    assert state["taken_back"]["type"] == "undo" and _untimed(state["taken_back"]["input"]) == {"type": "settle"}
    assert referee.handle({"type": "settle"}).state["taken_back"] is None


def test_a_shot_reopened_by_undo_waits_for_the_players_across_a_restart(tmp_path):
    clock = FakeClock()
    referee = Referee.open(tmp_path / "d.db", clock=clock, settle_after=4.0)
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK[:-1]:
        referee.handle(item)
    clock.now += 4.0
    assert referee.settle_if_due().state["shooter"] == 1
    state = referee.handle({"type": "undo"}).state
    assert state["shot_in_progress"] and state["shot_reopened"] and state["actions"]["settle"] == {"ok": True}
    clock.now += 600.0
    assert referee.settle_if_due() is None
    referee.close()
    again = Referee.open(tmp_path / "d.db", clock=clock, settle_after=4.0)
    clock.now += 600.0
    assert again.settle_if_due() is None and again.state()["shot_reopened"]
    assert again.handle({"type": "foul", "reason": "bad_hit"}).state["shot_reopened"] is False  # put right: armed
    clock.now += 4.0
    assert "Foul 5.4" in again.settle_if_due().state["last_verdict"]["words"]
    again.close()


def test_commands(referee):
    assert referee.handle({"cmd": "state"}).state == referee.state()
    known = ("(known: call, call_decline, call_start, clock_pause, names, new_match, pin, rack_mode, restart, result, "
             "results, resume, settings, state, stats, withdraw)")
    assert referee.handle({"cmd": "shutdown"}).error == f"unknown command 'shutdown' {known}"
    assert "cmd must be a string" in referee.handle({"cmd": 3}).error
    assert "match_start must be the match_start input" in referee.handle({"cmd": "new_match", "match_start": 3}).error
    assert "breaker" in referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, breaker=5)}).error
    assert "rail_sensed" in referee.handle(
        {"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"rail_sensed": True})}).error
    assert referee.state()["match_id"] is None


def test_every_profile_is_offered_with_the_tables_sensors_when_none_is_locked(referee):
    offered = referee.state()["profiles"]
    assert list(offered) == ["wpa", "apa9", "bar"] and referee.state()["profile_locked"] is False
    assert offered["apa9"]["scoring"] == "apa" and offered["bar"]["ball_in_hand"] == "behind_head_string"


def test_a_locked_profile_refuses_a_match_under_other_game_options(tmp_path):
    config = parse('[match]\nprofile = "apa9"\nlocked = true\napa_skill = [3, 5]\n[match.rules]\nrails_sensed = false')
    referee = Referee.open(tmp_path / "devetka.db", defaults=config.match)
    try:
        whole = referee.handle({"cmd": "new_match"}).state
        assert (whole["profile"], whole["points"], whole["targets"], whole["race"]) == ("apa9", [0, 0], [25, 38], None)
        assert whole["rules"]["rails_sensed"] is False and whole["rules"]["scoring"] == "apa"
        assert whole["actions"]["timeout"] == {"ok": True} and whole["actions"]["push_out"]["ok"] is False
        assert list(whole["profiles"]) == ["apa9"] and whole["profile_locked"] is True
        assert whole["profiles"]["apa9"]["rails_sensed"] is False  # the table's own sensors kept
        wpa = {"break": "winner", "push_outs": True}
        refused = referee.handle({"cmd": "new_match", "match_start": {"rules": wpa}})
        assert (refused.error, refused.code) == (
            'match_start: rules.push_outs: profile "apa9" sets it to false: leave it out, or pick another profile',
            "rule_fixed")
        bar = referee.handle({"cmd": "new_match", "match_start": {"rules": {"profile": "bar", "scoring": "apa"}}})
        assert bar.error == 'match_start: the venue locked the rules to profile "apa9": rules.profile must be "apa9"'
        referee.language = "hr"
        said = referee.handle({"cmd": "new_match", "match_start": {"rules": {"profile": "bar"}}})
        assert said.error == bar.error
        assert said.words == 'match_start: lokal je zaključao pravila na profil "apa9": rules.profile mora biti "apa9"'
        assert said.code == "rule_fixed"
        assert referee.state()["match_id"] == whole["match_id"]  # nothing changed
        skills = referee.handle({"cmd": "new_match", "match_start": {"apa_skill": [9, 1]}}).state
        assert skills["targets"] == [75, 14] and skills["match_id"] == whole["match_id"] + 1
    finally:
        referee.close()


def test_new_match_takes_what_it_leaves_out_from_the_config_match_section(tmp_path):
    config = parse('[match]\nplayers = ["Mira", "Tin"]\nrace = [4, 2]\n[match.rules]\nthree_foul_rule = false')
    referee = Referee.open(tmp_path / "devetka.db", defaults=config.match)
    try:
        whole = referee.handle({"cmd": "new_match"}).state
        assert (whole["players"], whole["race"], whole["rules"]["three_foul_rule"]) == (["Mira", "Tin"], [4, 2], False)
        named = referee.handle({"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"], "breaker": 1}}).state
        assert (named["players"], named["race"], named["shooter"]) == (["Ana", "Ben"], [4, 2], 1)
        assert (whole["match_id"], named["match_id"]) == (1, 2)
    finally:
        referee.close()


def test_new_match_without_type_and_a_second_match(referee):
    first = referee.handle({"cmd": "new_match", "match_start": {k: v for k, v in ANA_BEN.items() if k != "type"}})
    assert first.ok and first.state["match_id"] == 1
    referee.handle({"type": "strike"})
    second = referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, players=["Cy", "Di"])})
    assert second.state["match_id"] == 2 and second.state["seq"] == 0 and second.state["players"] == ["Cy", "Di"]
    assert second.state["undo"] is None


def test_an_unfinished_match_is_resumed_where_it_was_left_and_stays_current_across_a_restart(tmp_path):
    """Issue 33, 2: a match abandoned for a new one stayed "not over yet" for good."""
    path = tmp_path / "devetka.db"
    referee = Referee.open(path)
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK:
        referee.handle(item)
    left = referee.state()
    referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, players=["Cy", "Di"])})
    answer = referee.handle({"cmd": "resume", "match": 1})
    assert answer.ok and answer.state["match_id"] == 1 and answer.state["players"] == ["Ana", "Ben"]
    assert {key: answer.state[key] for key in ("seq", "score", "shooter", "on_table", "rack")} == \
        {key: left[key] for key in ("seq", "score", "shooter", "on_table", "rack")}
    assert referee.handle({"type": "strike"}).state["seq"] == left["seq"] + 1  # played on, stored in match 1
    referee.close()
    again = Referee.open(path)
    try:
        assert again.state()["match_id"] == 1 and again.state()["seq"] == left["seq"] + 1
        assert again.handle({"cmd": "new_match", "match_start": ANA_BEN}).state["match_id"] == 3  # the latest again
    finally:
        again.close()
    assert Referee.open(path).state()["match_id"] == 3


def test_resume_refuses_by_code_and_changes_nothing(referee):
    referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, race=[1, 1])})
    referee.handle({"type": "concede", "player": 0, "scope": "match"})
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    before = referee.state()
    for request, code, words in (
            ({"cmd": "resume"}, "invalid_input", "resume needs match: a stored match's id (a whole number), not None"),
            ({"cmd": "resume", "match": "1"}, "invalid_input", "not '1'"),
            ({"cmd": "resume", "match": 9}, "invalid_input", "no match 9 in the store"),
            ({"cmd": "resume", "match": 2}, "not_now", "match 2 is the match being played"),
            ({"cmd": "resume", "match": 1}, "not_now", "match 1 is over: there is nothing to resume")):
        answer = referee.handle(request)
        assert not answer.ok and answer.code == code and words in answer.error, (request, answer)
    assert referee.state() == before


def test_a_reopened_store_serves_the_same_state(tmp_path):
    path = tmp_path / "devetka.db"
    with_break = Referee.open(path)
    with_break.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"strike_sensed": True})})
    for item in LEGAL_BREAK:
        with_break.handle(item)
    before = with_break.state()
    with_break.close()
    again = Referee.open(path)
    try:
        assert again.state() == before and again.moved_aside is None
    finally:
        again.close()


def test_a_corrupt_store_is_moved_aside_and_said(tmp_path):
    path = tmp_path / "devetka.db"
    path.write_bytes(b"this is no SQLite file" * 200)
    ref = Referee.open(path)
    try:
        assert ref.moved_aside is not None and "devetka.db.corrupt-1" in ref.moved_aside
        assert ref.state()["match_id"] is None
    finally:
        ref.close()


def test_a_full_disk_refuses_the_input_by_name_keeps_the_match_and_says_so_in_the_health(tmp_path):
    with small_disk(tmp_path) as disk:
        ref = Referee.open(disk / "devetka.db")
        try:
            assert ref.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
            filler = fill(disk)
            accepted = ["match_start"]
            for item in LEGAL_BREAK * 50:  # the WAL takes a few inputs in the room it has; then the disk is full
                before = ref.state()
                reply = ref.handle(item)
                if not reply.ok:
                    break
                if reply.state["seq"] > before["seq"]:
                    accepted.append(item["type"])
            else:
                raise AssertionError("a full disk took 350 inputs")
            assert reply.error == ("the store could not save the input, so it was not applied: the disk holding "
                                   f"the store {disk / 'devetka.db'} is full (database or disk is full)")
            assert "rollback" not in reply.error and reply.changed
            state = ref.state()
            assert state["health"] == [{"type": "health", "source": "store", "subject": str(disk / "devetka.db"),
                                        "status": "full", "detail": reply.error.split("applied: ")[1]}]
            assert dict(state, health=[]) == before  # the match as it was
            shown = view(state)
            assert not shown.health_ok and shown.health_label == "DISK\nFULL"
            assert shown.health_text == f"STORE PROBLEM: the disk holding the store {disk / 'devetka.db'} is full " \
                                        "(database or disk is full)"
            assert not ref.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok  # no new match either
            filler.unlink()  # room again: the same input is taken and the health is clear
            again = ref.handle(item)
            assert again.ok and again.state["seq"] == before["seq"] + 1 and again.state["health"] == []
            accepted.append(item["type"])
        finally:
            ref.close()
        assert stored(disk / "devetka.db") == accepted


def test_a_stored_log_that_does_not_fold_is_said_and_no_match_served(tmp_path):
    from scoreboard.core.inputs import MatchStart, Pass

    path = tmp_path / "devetka.db"
    with Store.open(path, now=lambda: "2026-11-29T20:00:00+00:00") as store:
        match_id = store.start_match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
        store.append(match_id, Pass())  # the store takes it; the match never would
    ref = Referee.open(path)
    try:
        assert "does not fold" in ref.resume_problem and ref.state()["match_id"] is None
        assert ref.handle({"cmd": "new_match", "match_start": ANA_BEN}).state["match_id"] == match_id + 1
    finally:
        ref.close()


def _untimed(item: dict) -> dict:
    """The input as sent: the daemon stamps every input with the match's time ``t``."""
    assert isinstance(item["t"], float)
    return {key: value for key, value in item.items() if key != "t"}


def test_the_settle_timer_ends_a_quiet_shot_and_every_input_gets_the_matchs_time(tmp_path):
    clock = FakeClock()
    referee = Referee.open(tmp_path / "d.db", clock=clock, settle_after=4.0, hold_back=0.5)
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK[:-1]:
        clock.now += 0.25
        assert referee.handle(item).ok
    clock.now += 4.4
    assert referee.settle_if_due() is None  # 4.4 s quiet, but 0.5 s of it may still hold a pocket
    clock.now += 0.1
    reply = referee.settle_if_due()
    assert reply.ok and reply.changed and reply.state["shooter"] == 1
    assert reply.state["last_verdict"]["words"].startswith("Legal break")
    assert referee.settle_if_due() is None  # once a shot
    log = referee.store.log(referee.match_id)
    assert [item.t for item in log] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 6.0]
    referee.close()


def test_after_a_restart_the_matchs_time_goes_on_and_a_shot_in_progress_settles(tmp_path):
    clock = FakeClock(50.0)
    referee = Referee.open(tmp_path / "d.db", clock=clock, settle_after=4.0)
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    clock.now += 2.0
    referee.handle({"type": "strike"})
    referee.close()
    clock.now = 7.0  # the machine rebooted: its monotonic clock began again
    again = Referee.open(tmp_path / "d.db", clock=clock, settle_after=4.0)
    assert again.now() == 2.0 and again.settle_if_due() is None
    clock.now += 4.0
    assert again.settle_if_due().state["last_verdict"]["break"] is True
    assert [item.t for item in again.store.log(again.match_id)] == [0.0, 2.0, 6.0]
    again.close()



def test_rack_mode_is_told_to_the_sources_served_and_ended_by_a_strike(referee):
    from gpiozero.pins.mock import MockFactory

    from hardware.sensors import GpioSource
    from scoreboard.config.table import parse

    wiring = parse("[sensors.gpio]\nstrike = 20\n[sensors.gpio.pockets]\nfoot_left = 24\n").sensors
    source = GpioSource.from_config(wiring,
                                    pin_factory=MockFactory())
    try:
        referee.sources = [source]
        referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
        reply = referee.handle({"cmd": "rack_mode", "on": True})
        assert reply.ok and reply.changed and reply.state["rack_mode"] is True and source.rack_mode is True
        assert referee.handle({"cmd": "rack_mode", "on": "yes"}).error == "rack_mode needs on: true or false"
        assert referee.state()["rack_mode"] is True
        assert referee.handle({"type": "strike"}).state["rack_mode"] is False and source.rack_mode is False
    finally:
        source.close()


def test_stats_count_the_match_and_the_last_shots_rack(referee):
    assert referee.handle({"cmd": "stats"}).state["stats"] is None
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    bad_hit = [{"type": "strike"}, {"type": "first_contact", "ball": 5}, {"type": "cushion", "ball": 5},
               {"type": "settle"}]
    for item in [*LEGAL_BREAK, *bad_hit, {"type": "strike"}, {"type": "first_contact", "ball": 1},
                 {"type": "pocket", "ball": 1}, {"type": "pocket", "ball": 9}, {"type": "settle"},
                 {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
                 {"type": "settle"}]:
        assert referee.handle(item).ok, item
    stats = referee.handle({"cmd": "stats"}).state["stats"]
    assert stats["match"] == {"balls": [3, 0], "fouls": [0, 1], "break_and_runs": [1, 0], "nines_on_break": [1, 0]}
    assert stats["of_rack"] == 2 and stats["rack"]["nines_on_break"] == [1, 0] and stats["rack"]["fouls"] == [0, 0]


def test_names_played_here_are_offered_most_recent_first(referee):
    assert referee.handle({"cmd": "names"}).state["names"] == []
    for players in (["Ana", "Ben"], ["Mia", "Ana"]):
        referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, players=players)})
    assert referee.handle({"cmd": "names"}).state["names"] == ["Mia", "Ana", "Ben"]


def test_the_referee_s_own_refusals_are_said_in_the_players_language_and_change_nothing(tmp_path):
    """Each refusal of the referee itself (not the rules') keeps its English ``error`` and says it in Croatian."""
    referee = Referee.open(tmp_path / "devetka.db", language="hr")
    try:
        empty = referee.state()
        refused = [referee.handle(request) for request in ({"type": "strike"}, {"cmd": "result", "match": 1},
                                                          {"cmd": "result", "match": "last"}, {"cmd": 7})]
        assert referee.state() == empty
        referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
        before = referee.state()
        refused += [referee.handle(request) for request in (
            {"cmd": "result", "match": 9}, {"cmd": "pin", "pin": "1234"},
            {"cmd": "settings", "set": {"shots.settle_after_s": 3}}, {"cmd": "new_match", "match_start": [1]},
            {"cmd": "new_match", "match_start": {"type": "strike"}}, ANA_BEN)]
        assert referee.state() == before
    finally:
        referee.close()
    assert [(reply.error, reply.words) for reply in refused] == [
        ('no match yet: start one with {"cmd": "new_match", "match_start": {...}}',
         'još nema meča: započnite ga naredbom {"cmd": "new_match", "match_start": {...}}'),
        ("no match 1 in the store", "u spremištu nema meča 1"),
        ("result needs match: a stored match's id (a whole number), not 'last'",
         "result traži match: id spremljenog meča (cijeli broj), a ne 'last'"),
        (f"cmd must be a string naming a command ({COMMANDS})", f"cmd mora biti tekst s imenom naredbe ({COMMANDS})"),
        ("no match 9 in the store", "u spremištu nema meča 9"),
        ("pin: this daemon keeps no settings (started without a data directory)",
         "pin: ovaj sudac ne čuva postavke (pokrenut je bez mape s podacima)"),
        ("settings: this daemon keeps no settings file (started without a data directory)",
         "settings: ovaj sudac ne čuva datoteku postavki (pokrenut je bez mape s podacima)"),
        ("new_match: match_start must be the match_start input as an object",
         "new_match: match_start mora biti ulaz match_start, kao objekt"),
        ("new_match needs a match_start, not 'strike'", "new_match traži match_start, a ne 'strike'"),
        ('a match_start begins a new match: send {"cmd": "new_match", ...}',
         'match_start započinje novi meč: pošaljite {"cmd": "new_match", ...}'),
    ]


def test_the_ruling_is_served_in_the_players_language_as_messages_with_the_rules_it_cites(tmp_path):
    from scoreboard.core.messages import from_json, render
    from scoreboard.i18n.catalog import catalog

    referee = Referee.open(tmp_path / "devetka.db", language="hr")
    try:
        referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
        for item in LEGAL_BREAK:
            referee.handle(item)
        state = referee.handle({"type": "push_out"}).state
    finally:
        referee.close()
    verdict = state["last_verdict"]
    assert state["language"] == "hr"
    assert verdict["words"] == "Ana pravilno razbija (5.4). Na potezu: Ben. Ben smije igrati push out (5.5)."
    served = from_json(verdict["message"])
    assert render(served, catalog("hr")) == verdict["words"]
    assert render(served) == "Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5)."
    assert verdict["cites"] == ["5.4", "5.5"]
    assert state["actions"]["accept"] == {"ok": False, "why": "Nema push outa na koji treba odgovoriti (5.6)."}
    assert state["undo_shot"]["shot"] == "razbijanje (Ana)"


def test_a_match_may_be_said_in_its_own_language_whatever_the_table_s(tmp_path):
    referee = Referee.open(tmp_path / "devetka.db", language="hr")
    try:
        english = referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, language="en")}).state
        assert english["language"] == "en" and english["actions"]["pass"]["why"].startswith("There is no push out")
        croatian = referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).state
        assert croatian["language"] == "hr" and croatian["actions"]["pass"]["why"].startswith("Nema push outa")
        refused = referee.handle({"cmd": "new_match", "match_start": dict(ANA_BEN, language="Hrvatski!")})
        assert not refused.ok and refused.words.startswith("match_start: match_start language mora biti oznaka")
    finally:
        referee.close()
    with Store.open_readonly(tmp_path / "devetka.db") as store:
        assert store.log(1)[0].language == "en" and store.log(2)[0].language is None


def test_the_shot_clock_input_follows_the_venues_lock_as_a_new_match_does(tmp_path):
    """Issue 34 part 2: one rule for the clock on every way in. A venue locked to apa9 that leaves the clock open
    lets the players turn it on, in a new_match or by the input; one that wrote it keeps it."""
    open_clock = Referee.open(tmp_path / "open.db", defaults=parse(
        '[match]\nprofile = "apa9"\nlocked = true\napa_skill = [3, 3]').match)
    try:
        asked = open_clock.handle({"cmd": "new_match", "match_start": {"rules": {"shot_clock": True}}})
        assert asked.ok and asked.state["rules"]["shot_clock"] is True
        assert open_clock.handle({"type": "shot_clock", "on": False}).ok
        assert open_clock.handle({"type": "shot_clock", "on": True}).ok
    finally:
        open_clock.close()
    config = parse('[match]\nprofile = "apa9"\nlocked = true\napa_skill = [3, 3]\n[match.rules]\nshot_clock = true')
    kept = Referee.open(tmp_path / "kept.db", defaults=config.match, sensed=config.sensed, table="bar7")
    try:
        refused = kept.handle({"cmd": "new_match", "match_start": {"rules": {"shot_clock": False}}})
        assert (refused.error, refused.code) == ("match_start: rules.shot_clock: the venue locked it to true",
                                                 "rule_fixed")
        started = kept.handle({"cmd": "new_match"})
        assert started.state["rules"]["shot_clock"] is True and started.state["rules"]["rails_sensed"] is False
        off = kept.handle({"type": "shot_clock", "on": False})
        assert (off.error, off.code) == ("shot_clock: the venue locked rules.shot_clock to true", "rule_fixed")
        assert kept.state()["seq"] == 0 and kept.state()["shot_clock"]["on"] is True
        assert kept.state()["profile_fixes"]["apa9"][-1] == "shot_clock"
    finally:
        kept.close()


def test_the_state_serves_the_tables_name_and_when_its_match_began(tmp_path):
    """Issue 29: a board shows the venue's name for the table and the real time played, from served fields."""
    referee = Referee.open(tmp_path / "d.db", table_name="Table 3 (TV)", now=lambda: "2026-11-29T20:00:00+00:00")
    try:
        assert (referee.state()["table_name"], referee.state()["match_started"]) == ("Table 3 (TV)", None)
        referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
        assert referee.state()["match_started"] == "2026-11-29T20:00:00+00:00"
    finally:
        referee.close()
    again = Referee.open(tmp_path / "d.db")  # a restart serves the stored start, and no name unless configured
    try:
        assert (again.state()["match_started"], again.state()["table_name"]) == ("2026-11-29T20:00:00+00:00", None)
    finally:
        again.close()
