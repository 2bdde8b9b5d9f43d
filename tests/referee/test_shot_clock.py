"""The daemon's shot clock (scoreboard/referee/shot_clock.py) in the referee, on a real store, driven by a fake
clock injected into the referee: start at the settle, warning, extension, expiry, with and without a strike
sensor (TR20; docs/rules.md, "The shot clock")."""

from __future__ import annotations

import pytest

from scoreboard.referee.referee import Referee
from tests.fake_clock import FakeClock, FakeWall
from tests.live import LEGAL_BREAK

EPOCH = 1_800_000_000.0
MISS = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1}]


def clocked(tmp_path, strike_sensed: bool, **rules):
    clock = FakeClock(100.0)
    referee = Referee.open(tmp_path / "d.db", clock=clock, wall=FakeWall(clock, EPOCH), settle_after=4.0)
    start = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
             "rules": {"strike_sensed": strike_sensed, "shot_clock": True, **rules}}
    assert referee.handle({"cmd": "new_match", "match_start": start}).ok
    return referee, clock


def restarted(tmp_path, clock):
    """The referee a restarted daemon opens on the same store."""
    return Referee.open(tmp_path / "d.db", clock=clock, wall=FakeWall(clock, EPOCH), settle_after=4.0)


def time_foul_after(referee, clock, seconds):
    """Nothing 0.1 s before ``seconds`` from now; at ``seconds`` the daemon's clock rules the time foul."""
    clock.now += seconds - 0.1
    assert referee.shot_clock_if_due() is None
    clock.now += 0.1
    reply = referee.shot_clock_if_due()
    assert reply is not None and reply.state["last_verdict"]["time_foul"] is True
    return reply


def play(referee, clock, inputs):
    """Each input half a second after the last, then the table quiet until the settle timer ends the shot."""
    for item in inputs:
        clock.now += 0.5
        assert referee.handle(item).ok, item
    clock.now += 4.0
    reply = referee.settle_if_due()
    assert reply is not None and reply.ok
    return reply.state


def epoch_ms(clock_now: float) -> int:
    """What a screen reads: the daemon's clock at ``clock_now`` as epoch ms."""
    return round((EPOCH + clock_now) * 1000)


@pytest.mark.parametrize("strike_sensed", [True, False])
def test_the_clock_starts_when_the_table_settles_and_runs_60_s_after_the_break(tmp_path, strike_sensed):
    referee, clock = clocked(tmp_path, strike_sensed)
    assert referee.state()["shot_clock"]["running"] is False  # the break is not timed
    state = play(referee, clock, LEGAL_BREAK[:-1])
    settled = clock.now
    served = state["shot_clock"]
    assert served["running"] is True and served["limit"] == 60
    assert served["deadline"] == epoch_ms(settled + 60) and served["warning_at"] == epoch_ms(settled + 50)
    clock.now += 30
    assert referee.state()["shot_clock"]["deadline"] == served["deadline"]  # a deadline, not a countdown
    referee.close()


@pytest.mark.parametrize("strike_sensed", [True, False])
def test_the_clock_stops_when_the_next_shot_begins(tmp_path, strike_sensed):
    referee, clock = clocked(tmp_path, strike_sensed)
    play(referee, clock, LEGAL_BREAK[:-1])
    clock.now += 20
    first = {"type": "strike"} if strike_sensed else {"type": "first_contact", "ball": 1}
    served = referee.handle(first).state["shot_clock"]
    assert served["running"] is False and served["deadline"] is None
    clock.now += 100
    assert referee.shot_clock_if_due() is None  # the shot is being played: nothing runs out
    referee.close()


def test_no_extension_once_the_clock_has_run_out(tmp_path):
    referee, clock = clocked(tmp_path, False)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)
    clock.now += 35
    assert referee.state()["actions"]["extension"] == {"ok": False, "why": "The shot clock has run out."}
    assert referee.handle({"type": "extension"}).error == "the shot clock has run out: it is too late for an extension"
    referee.language = "hr"
    assert referee.handle({"type": "extension"}).words == "vrijeme za udarac je isteklo: za produženje je prekasno"
    referee.close()


def test_an_extension_moves_the_deadline_on_25_s_and_the_warning_with_it(tmp_path):
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    state = play(referee, clock, MISS)  # Ben misses the first shot after the break: Ana is on the clock, 35 s
    settled = clock.now
    assert state["shooter"] == 0 and state["shot_clock"]["deadline"] == epoch_ms(settled + 35)
    clock.now += 26  # past the warning at 25 s
    assert referee.state()["actions"]["extension"] == {"ok": True}
    served = referee.handle({"type": "extension"}).state["shot_clock"]
    assert served["deadline"] == epoch_ms(settled + 60) and served["warning_at"] == epoch_ms(settled + 50)
    assert served["extensions_left"] == [0, 1] and served["extended"] is True
    clock.now += 33.9
    assert referee.shot_clock_if_due() is None  # 59.9 s: not yet
    referee.close()


def test_with_a_strike_sensor_the_daemon_applies_the_time_foul_at_the_deadline(tmp_path):
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    reply = time_foul_after(referee, clock, 60)
    assert reply.ok and reply.changed
    verdict = reply.state["last_verdict"]
    assert verdict["time_foul"] is True and verdict["shooter"] == 1 and verdict["rules"] == ["TR20"]
    assert verdict["words"] == "Time foul (TR20) by Ben: the shot clock ran out. Ana has ball in hand."
    assert reply.state["shooter"] == 0 and reply.state["ball_in_hand"] is True
    log = referee.store.log(referee.match_id)
    assert type(log[-1]).__name__ == "ShotClock" and log[-1].expired and log[-1].src is None
    # Ana's turn is timed from the time foul; hers is still the first shot after the break: 60 s
    assert reply.state["shot_clock"]["deadline"] == epoch_ms(clock.now + 60)
    assert referee.shot_clock_if_due() is None  # once a turn
    referee.close()


def test_without_a_strike_sensor_the_time_foul_is_proposed_for_a_tap(tmp_path):
    referee, clock = clocked(tmp_path, False)
    play(referee, clock, LEGAL_BREAK[:-1])
    assert referee.state()["actions"]["time_foul"] == {"ok": False, "why": "The shot clock has not run out."}
    assert referee.handle({"type": "shot_clock", "expired": True}).error.startswith(
        "the shot clock has not run out: 60.0 s left")
    referee.language = "hr"
    assert referee.handle({"type": "shot_clock", "expired": True}).words == \
        "vrijeme za udarac još nije isteklo: preostaje 60,0 s"
    referee.language = "en"
    clock.now += 60
    reply = referee.shot_clock_if_due()
    assert reply.ok and reply.changed and reply.state["seq"] == 7  # nothing written: only proposed
    assert reply.state["shot_clock"]["time_foul_proposed"] is True and reply.state["shot_clock"]["running"] is False
    assert reply.state["actions"]["time_foul"] == {"ok": True}
    assert reply.state["actions"]["extension"]["ok"] is False
    tapped = referee.handle({"type": "shot_clock", "expired": True, "src": "touch"})
    assert tapped.ok and tapped.state["last_verdict"]["time_foul"] is True
    assert tapped.state["shot_clock"]["time_foul_proposed"] is False
    referee.close()


def test_without_a_strike_sensor_a_shot_played_after_the_proposal_clears_it(tmp_path):
    referee, clock = clocked(tmp_path, False)
    play(referee, clock, LEGAL_BREAK[:-1])
    clock.now += 61
    referee.shot_clock_if_due()
    state = referee.handle({"type": "first_contact", "ball": 1}).state
    assert state["shot_clock"]["time_foul_proposed"] is False and state["actions"]["time_foul"]["ok"] is False
    referee.close()


def test_the_clock_waits_while_the_push_out_choice_is_made_and_for_a_shot_reopened_by_undo(tmp_path):
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    assert referee.handle({"type": "push_out"}).ok
    state = play(referee, clock, [{"type": "strike"}])  # the push out: Ana chooses
    assert state["awaiting_choice"] is True and state["shot_clock"]["running"] is False
    clock.now += 120
    assert referee.shot_clock_if_due() is None
    assert referee.handle({"type": "accept"}).state["shot_clock"]["deadline"] == epoch_ms(clock.now + 35)
    state = play(referee, clock, MISS)
    assert state["shot_clock"]["running"] is True
    reopened = referee.handle({"type": "undo"}).state  # the settle taken back: Ana's shot is open again
    assert reopened["shot_reopened"] is True and reopened["shot_clock"]["running"] is False
    clock.now += 120
    assert referee.shot_clock_if_due() is None and referee.settle_if_due() is None
    referee.close()


@pytest.mark.parametrize("choice", ["accept", "pass"])
def test_the_shot_after_a_push_out_is_timed_from_the_choice_with_its_longer_limit(tmp_path, choice):
    referee, clock = clocked(tmp_path, True, shot_clock_after_push_out_s=50)
    play(referee, clock, LEGAL_BREAK[:-1])
    assert referee.handle({"type": "push_out"}).ok
    play(referee, clock, [{"type": "strike"}])
    clock.now += 12  # the choice takes its time: not the shooter's
    served = referee.handle({"type": choice}).state["shot_clock"]
    assert served["limit"] == 50 and served["deadline"] == epoch_ms(clock.now + 50)
    assert served["warning_at"] == epoch_ms(clock.now + 40)
    assert referee.state()["actions"]["extension"]["ok"] is False
    referee.close()


def test_after_a_restart_a_timed_turn_goes_on_from_the_time_the_log_gives_it(tmp_path):
    """The turn began at the settle and its extension was taken 20 s in, both stored with their match times: after
    a restart the turn has what was left at the last stored input (40 s), not its whole limit again; the time the
    daemon was down is not counted (docs/rules.md, "The shot clock")."""
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)  # Ana on the clock, 35 s
    clock.now += 20
    assert referee.handle({"type": "extension"}).state["shot_clock"]["deadline"] == epoch_ms(clock.now + 40)
    referee.close()
    clock.now += 500
    again = restarted(tmp_path, clock)
    served = again.state()["shot_clock"]
    assert served["running"] is True and served["extended"] is True
    assert served["deadline"] == epoch_ms(clock.now + 40) and served["warning_at"] == epoch_ms(clock.now + 30)
    time_foul_after(again, clock, 40)
    again.close()


def test_after_a_restart_on_the_settle_that_began_the_turn_the_turn_has_its_whole_limit(tmp_path):
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    referee.close()
    clock.now += 500
    again = restarted(tmp_path, clock)
    assert again.state()["shot_clock"]["deadline"] == epoch_ms(clock.now + 60)
    assert again.shot_clock_if_due() is None
    again.close()


# --- The pause while a ruling is put right (issue 33, item 3) --------------------------------------------------

def test_a_pause_stands_the_clock_still_and_resuming_gives_back_the_seconds_it_had(tmp_path):
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)  # Ana on the clock, 35 s
    clock.now += 15  # 20 s left
    before = referee.state()
    paused = referee.handle({"cmd": "clock_pause", "on": True})
    assert paused.ok and paused.changed
    served = paused.state["shot_clock"]
    assert served["paused"] is True and served["paused_left"] == 20_000 and served["running"] is True
    assert served["deadline"] is None and served["warning_at"] is None  # nothing to count down to
    assert served["pause_ends"] == epoch_ms(clock.now + 120)
    clock.now += 50  # the dispute takes 50 s: past the deadline the clock had
    assert referee.shot_clock_if_due() is None  # no time foul while it stands still
    assert referee.state()["shot_clock"]["paused_left"] == 20_000
    assert referee.state()["actions"]["time_foul"]["ok"] is False
    resumed = referee.handle({"cmd": "clock_pause", "on": False})
    assert resumed.ok and resumed.changed
    served = resumed.state["shot_clock"]
    assert served["paused"] is False and served["paused_left"] is None and served["pause_ends"] is None
    assert served["deadline"] == epoch_ms(clock.now + 20) and served["warning_at"] == epoch_ms(clock.now + 10)
    assert resumed.state["seq"] == before["seq"] and resumed.state["last_verdict"] == before["last_verdict"]
    time_foul_after(referee, clock, 20)
    referee.close()


def test_a_pause_lapses_by_itself_after_its_bound_from_when_it_was_last_asked(tmp_path):
    """A screen that crashed (or lost the daemon) with its menu open holds the clock PAUSE_LAPSE_S at most: the
    daemon's own loop ends the pause and the turn goes on from what it had; a pause asked again renews the bound."""
    from scoreboard.referee.shot_clock import PAUSE_LAPSE_S

    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)
    clock.now += 5  # 30 s left
    assert referee.handle({"cmd": "clock_pause", "on": True}).ok
    clock.now += 60
    renewed = referee.handle({"cmd": "clock_pause", "on": True}).state["shot_clock"]
    assert renewed["paused_left"] == 30_000 and renewed["pause_ends"] == epoch_ms(clock.now + PAUSE_LAPSE_S)
    assert referee.shot_clock.next_wake() == referee.now() + PAUSE_LAPSE_S  # the daemon's loop wakes for it
    clock.now += PAUSE_LAPSE_S - 0.1
    assert referee.shot_clock_if_due() is None
    clock.now += 10.1  # the loop woke late: the pause ended when it lapsed, 10 s ago
    lapsed = referee.shot_clock_if_due()
    assert lapsed.ok and lapsed.changed
    served = lapsed.state["shot_clock"]
    assert served["paused"] is False and served["deadline"] == epoch_ms(clock.now + 20)
    assert referee.handle({"cmd": "clock_pause", "on": False}).changed is False  # the screen's late resume: no-op
    referee.close()


def test_a_correction_that_keeps_the_turn_keeps_the_pause_and_one_that_ends_the_turn_ends_it(tmp_path):
    """A foul called on Ben's miss leaves Ana at the table (ball in hand): the same turn, still paused, its seconds
    kept. An undo that reopens a shot leaves no turn timed: the pause ends with it (the screen's resume is a no-op)."""
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)  # Ana on the clock, 35 s
    clock.now += 30
    assert referee.handle({"cmd": "clock_pause", "on": True}).ok
    clock.now += 40
    called = referee.handle({"type": "foul", "reason": "bad_hit"})
    assert called.ok, called.error
    assert called.state["shooter"] == 0 and called.state["ball_in_hand"] is True
    assert called.state["shot_clock"]["paused"] is True and called.state["shot_clock"]["paused_left"] == 5_000
    assert referee.handle({"type": "undo"}).state["shot_clock"]["paused"] is True  # the foul taken back
    reopened = referee.handle({"type": "undo"}).state  # the settle taken back: Ben's shot is open again
    assert reopened["shot_reopened"] is True
    assert reopened["shot_clock"]["paused"] is False and reopened["shot_clock"]["running"] is False
    referee.close()


@pytest.mark.parametrize(("request_", "code", "error"), [
    ({"cmd": "clock_pause", "on": "yes"}, "invalid_input", 'clock_pause needs on: true or false, not "yes"'),
    ({"cmd": "clock_pause"}, "invalid_input", "clock_pause needs on: true or false, not null"),
])
def test_a_pause_without_on_true_or_false_is_refused(tmp_path, request_, code, error):
    referee, clock = clocked(tmp_path, True)
    reply = referee.handle(request_)
    assert (reply.ok, reply.code, reply.error) == (False, code, error)
    referee.close()


def test_a_pause_with_no_clock_running_or_no_match_is_refused_and_changes_nothing(tmp_path):
    referee = Referee.open(tmp_path / "none.db")
    reply = referee.handle({"cmd": "clock_pause", "on": True})
    assert (reply.ok, reply.code, reply.error) == (False, "not_now",
                                                   "clock_pause: No match is being played: start one first.")
    referee.close()
    referee, clock = clocked(tmp_path, True)
    before = referee.state()
    reply = referee.handle({"cmd": "clock_pause", "on": True})  # before the break: no turn is timed
    assert (reply.ok, reply.code) == (False, "not_now")
    assert reply.error == ("clock_pause: no shot clock is running now (it is off, run out, or waits for the table to "
                           "be quiet)")
    referee.language = "hr"
    assert referee.handle({"cmd": "clock_pause", "on": True}).words != reply.error  # said in Croatian too
    referee.language = "en"
    assert referee.state()["shot_clock"] == before["shot_clock"] and referee.state()["seq"] == before["seq"]
    referee.close()


def test_a_pause_is_not_stored_so_a_restart_ends_it(tmp_path):
    """The pause is the clock's, not the rules': the match log has no line of it (docs/rules.md), and a restart
    goes on from the last stored input as ever."""
    referee, clock = clocked(tmp_path, True)
    play(referee, clock, LEGAL_BREAK[:-1])
    play(referee, clock, MISS)
    log = referee.store.log(referee.match_id)
    assert referee.handle({"cmd": "clock_pause", "on": True}).ok
    assert referee.store.log(referee.match_id) == log
    referee.close()
    again = restarted(tmp_path, clock)
    assert again.state()["shot_clock"]["paused"] is False
    again.close()


def _until(client, seen) -> dict:
    """The broadcast states until one that ``seen`` accepts (the daemon's own clock acts; nothing is sent)."""
    while True:
        state = client.broadcast()
        if seen(state):
            return state


def test_live_the_daemon_runs_the_clock_out_by_itself_through_the_local_api(tmp_path, monkeypatch):
    """``devetka run`` on its real clock, the shortest limits it takes (10 s): at a table with a strike sensor (a
    GPIO line on gpiozero's mock pins) the daemon writes the time foul; at a table without one it proposes it,
    and a player's tap applies it."""
    from tests.live import Daemon

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    start = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}
    quick = {"shot_clock": True, "shot_clock_s": 10, "shot_clock_warning_s": 5, "shot_clock_after_break_s": 10}
    (tmp_path / "strike").mkdir()
    daemon = Daemon(tmp_path / "strike", settle_after=0.3, config="[sensors.gpio]\nstrike = 20\n")
    daemon.start()
    try:
        client = daemon.client()
        assert client.request({"cmd": "new_match", "match_start": dict(start, rules=quick)})["ok"]
        for item in LEGAL_BREAK[:-1]:
            assert client.request(item)["ok"]
        running = _until(client, lambda state: state["shot_clock"]["running"])
        assert running["rules"]["strike_sensed"] is True
        assert running["shot_clock"]["deadline"] - running["shot_clock"]["warning_at"] == 5000
        fouled = _until(client, lambda state: (state["last_verdict"] or {}).get("time_foul"))
        words = fouled["last_verdict"]["words"]
        assert words == "Time foul (TR20) by Ben: the shot clock ran out. Ana has ball in hand."
        assert fouled["undo"]["type"] == "shot_clock" and fouled["undo"]["expired"] is True
        client.close()
    finally:
        daemon.stop()

    daemon = Daemon(tmp_path, settle_after=0.3)
    daemon.start()
    try:
        client = daemon.client()
        assert client.request({"cmd": "new_match", "match_start": dict(start, rules=quick)})["ok"]
        for item in LEGAL_BREAK[:-1]:
            assert client.request(item)["ok"]
        proposed = _until(client, lambda state: state["shot_clock"]["time_foul_proposed"])
        assert proposed["rules"]["strike_sensed"] is False
        assert "time_foul" not in proposed["last_verdict"] and proposed["actions"]["time_foul"] == {"ok": True}
        tapped = client.request({"type": "shot_clock", "expired": True, "src": "touch"})
        assert tapped["ok"] and tapped["state"]["last_verdict"]["time_foul"] is True
        client.close()
    finally:
        daemon.stop()
