"""The settle timer (scoreboard/core/settle.py): explicit times through the real rules, no clock.

Each test plays inputs into a real ``Match`` (so "a shot is in progress" is the
rules' word, not the test's), tells the timer, and asks what is due when.
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from scoreboard.core.inputs import (
    Accept,
    Concede,
    Cushion,
    FirstContact,
    Foul,
    Identify,
    MatchStart,
    Miss,
    OffTable,
    Pass,
    Pocket,
    PushOut,
    RuleOptions,
    Settle,
    Stalemate,
    Strike,
    Undo,
    UndoShot,
)
from scoreboard.core.match import Match
from scoreboard.core.rules import RuleError
from scoreboard.core.settle import SENSOR_INPUTS, SettleTimer


class Table:
    """A match and its timer, driven the way the daemon will: apply, then tell the timer."""

    def __init__(self, settle_after=4.0, hold_back=0.0, strike_sensed=False):
        start = MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0, t=0.0,
                           options=RuleOptions(strike_sensed=strike_sensed))
        self.match = Match(start)
        self.timer = SettleTimer(settle_after, hold_back=hold_back)
        self.timer.seen(start, self.match.state)

    def play(self, *items):
        for item in items:
            self.match.apply(item)
            self.timer.seen(item, self.match.state)
        return self

    def settle_if_due(self, now):
        """What the daemon does on waking: apply the due settle, if any; returns it."""
        settle = self.timer.due(now)
        if settle is not None:
            self.play(settle)
        return settle


def test_a_settle_is_due_once_after_4_s_of_quiet_and_not_before():
    table = Table().play(Strike(t=10.0), FirstContact(1, t=10.2))
    assert table.timer.deadline == pytest.approx(14.2)
    assert table.timer.due(14.19) is None
    assert table.timer.due(14.2) == Settle(t=14.2, src=None)
    assert table.timer.due(14.3) is None and table.timer.due(100.0) is None
    assert table.timer.deadline is None


def test_the_settle_is_stamped_with_the_time_it_is_given():
    table = Table().play(Strike(t=10.0))
    assert table.timer.due(20.5) == Settle(t=20.5)


def test_no_shot_in_progress_no_deadline():
    table = Table()
    assert table.timer.deadline is None and table.timer.due(1000.0) is None


def test_a_cushion_at_3_9_s_pushes_the_deadline():
    table = Table().play(Strike(t=0.0), Cushion(t=3.9))
    assert table.timer.due(4.0) is None
    assert table.timer.deadline == pytest.approx(7.9)
    assert table.timer.due(7.9) is not None


@pytest.mark.parametrize("sensor", [Cushion(ball=3, t=2.0), Pocket(ball=3, t=2.0), FirstContact(2, t=2.0)])
def test_every_sensor_input_restarts_the_quiet_period(sensor):
    table = Table().play(Strike(t=0.0), sensor)
    assert table.timer.deadline == pytest.approx(6.0)


@pytest.mark.parametrize("tap", [Foul("other", t=3.0), Identify(1, t=3.0), OffTable(2, t=3.0)])
def test_taps_do_not_restart_the_quiet_period(tap):
    table = Table().play(Strike(t=0.0), FirstContact(1, t=0.1), Pocket(None, t=1.0), tap)
    assert table.match.state.shot is not None
    assert table.timer.deadline == pytest.approx(5.0)
    assert table.timer.due(5.0) is not None


@pytest.mark.parametrize("ending", [Settle(t=2.0), Miss(t=2.0)])
def test_a_settle_or_miss_from_elsewhere_cancels_the_timer(ending):
    table = Table().play(Strike(t=0.0), ending)
    assert table.match.state.shot is None
    assert table.timer.deadline is None and table.timer.due(10.0) is None


@pytest.mark.parametrize("ending", [Stalemate(t=11.0), Concede(player=1, t=11.0)])
def test_a_between_shots_input_ends_the_shot_in_progress_and_cancels_the_timer(ending):
    table = Table().play(*break_shot(0.0), Strike(t=10.0), FirstContact(1, t=10.1))
    assert table.timer.deadline is not None
    table.play(ending)
    assert table.match.state.shot is None and table.timer.deadline is None


def test_a_strike_ends_the_shot_and_arms_the_timer_afresh_for_the_next():
    table = Table().play(Strike(t=0.0), FirstContact(1, t=0.1))
    assert table.timer.due(4.1) is not None          # given, but the daemon has not applied it yet
    table.play(Strike(t=4.2))
    assert table.timer.deadline == pytest.approx(8.2)
    assert table.timer.due(8.2) is not None


def test_a_strike_that_ends_the_winning_shot_begins_none_and_cancels():
    table = Table().play(*nine_on_the_break_three_times())
    assert table.match.state.shot is not None and table.timer.deadline == pytest.approx(105.0)
    table.play(Strike(t=102.0))
    assert table.match.state.table.match_winner == 0 and table.match.state.shot is None
    assert table.timer.deadline is None and table.timer.due(200.0) is None


def test_undo_of_the_settle_brings_the_shot_back_and_arms_nothing():
    table = Table().play(Strike(t=0.0), Cushion(t=1.0))
    assert table.settle_if_due(5.0) is not None
    assert table.timer.deadline is None
    table.play(Undo(t=30.0))
    assert table.match.state.shot is not None and table.timer.reopened
    assert table.timer.deadline is None and table.timer.due(10_000.0) is None


@pytest.mark.parametrize("put_right", [Foul("bad_hit", t=40.0), Identify(3, t=40.0), OffTable(5, t=40.0),
                                       Pocket(None, t=40.0), Cushion(2, t=40.0)], ids=lambda item: item.TYPE)
def test_the_next_input_after_an_undo_arms_the_timer_from_its_time(put_right):
    table = Table().play(Strike(t=0.0), FirstContact(1, t=0.5), Pocket(None, t=1.0))   # an unnamed ball down
    table.settle_if_due(5.0)
    table.play(Undo(t=30.0))
    table.play(put_right)
    assert table.match.state.shot is not None and not table.timer.reopened
    assert table.timer.deadline == pytest.approx(44.0)
    assert table.timer.due(43.9) is None and table.timer.due(44.0) == Settle(t=44.0)


def test_a_player_ends_a_reopened_shot_with_a_settle():
    table = Table().play(Strike(t=0.0), Cushion(t=1.0))
    table.settle_if_due(5.0)
    table.play(Undo(t=30.0), Settle(t=31.0))
    assert table.match.state.shot is None and not table.timer.reopened and table.timer.deadline is None


def test_undo_shot_that_brings_back_the_shot_before_arms_nothing():
    table = Table().play(Strike(t=0.0), Cushion(t=1.0), Strike(t=3.0), Cushion(t=3.5))
    table.play(UndoShot(t=6.0))                                           # the second shot is gone, the first on
    assert table.match.state.shot is not None and len(table.match.state.shot.events) == 1
    assert table.timer.reopened and table.timer.deadline is None


def test_undo_inside_a_shot_arms_nothing_until_the_next_input():
    table = Table().play(Strike(t=0.0), Cushion(t=1.0), Strike(t=3.0))      # the second strike began a shot
    table.play(Undo(t=6.0))                                               # the first shot is back
    assert table.match.state.shot is not None and len(table.match.state.shot.events) == 1
    assert table.timer.deadline is None
    table.play(Undo(t=7.0), Cushion(t=8.0))                               # undone again, then a sensor input
    assert table.timer.deadline == pytest.approx(12.0)


def test_a_restart_keeps_a_reopened_shot_waiting_and_times_any_other_shot_from_the_start():
    table = Table().play(Strike(t=0.0), Cushion(t=1.0))
    table.settle_if_due(5.0)
    table.play(Undo(t=30.0))
    table.timer.resumed(100.0, table.match.state, Undo(t=30.0))
    assert table.timer.reopened and table.timer.deadline is None
    table.timer.resumed(100.0, table.match.state, Cushion(t=1.0))
    assert not table.timer.reopened and table.timer.deadline == pytest.approx(104.0)


def test_undo_that_leaves_no_shot_in_progress_arms_nothing():
    table = Table().play(Strike(t=0.0))
    table.play(Undo(t=1.0))
    assert table.match.state.shot is None and table.timer.deadline is None


def test_with_strike_sensed_a_slow_ball_after_the_settle_amends_and_does_not_rearm():
    table = Table(strike_sensed=True).play(*break_shot(0.0), Strike(t=10.0), FirstContact(1, t=10.1),
                                           Cushion(t=11.0))
    assert table.settle_if_due(15.0) is not None
    table.play(Pocket(None, t=16.0))                 # the slow ball drops: it belongs to that shot
    assert table.match.state.shot is None and table.match.state.last is not None
    assert table.timer.deadline is None and table.timer.due(100.0) is None


def test_without_strike_sensed_a_sensor_input_after_the_settle_begins_a_shot():
    table = Table().play(Strike(t=0.0), FirstContact(1, t=0.1), Cushion(t=1.0))
    assert table.settle_if_due(5.0) is not None
    table.play(Cushion(t=9.0))
    assert table.match.state.shot is not None
    assert table.timer.deadline == pytest.approx(13.0)


def test_hold_back_delays_the_deadline():
    table = Table(hold_back=1.0).play(Strike(t=0.0), Cushion(t=2.0))
    assert table.timer.deadline == pytest.approx(7.0)
    assert table.timer.due(6.9) is None and table.timer.due(7.0) is not None


def test_a_daemon_woken_past_the_deadline_waits_for_a_way_in_not_yet_heard_up_to_it():
    """Issue 28's race, on explicit times: the table promised nothing before 1.05 (its cushion's time), then
    its thread starved; the daemon wakes at 2.0, past the 1.4 deadline, and must not end the shot yet."""
    table = Table(settle_after=0.4).play(Strike(t=0.9), FirstContact(1, t=1.0))
    table.timer.heard("sim", 1.05)
    assert table.timer.deadline == pytest.approx(1.4)
    assert table.timer.next_look() is None            # the loop waits for the table's word, not the clock
    assert table.settle_if_due(2.0) is None
    table.play(Cushion(ball=1, t=2.01))               # sent as soon as the table's thread ran again
    table.timer.heard("sim", 2.06)
    assert table.timer.next_look() is None and table.settle_if_due(3.0) is None
    table.timer.heard("sim", float("inf"))            # quiet from here on, says the table
    assert table.timer.next_look() == pytest.approx(2.41)
    assert table.settle_if_due(2.40) is None
    assert table.settle_if_due(2.41) == Settle(t=2.41)
    assert [type(event).__name__ for event in table.match.state.last.events] == ["FirstContact", "Cushion"]


def test_without_a_word_from_any_way_in_the_clock_alone_decides():
    table = Table(settle_after=0.4).play(Strike(t=0.9), FirstContact(1, t=1.0))
    assert table.timer.known(2.0) == 2.0 and table.timer.next_look() == pytest.approx(1.4)
    assert table.settle_if_due(2.0) == Settle(t=2.0)


def test_the_way_in_heard_least_far_holds_the_settle_back():
    table = Table(settle_after=0.4).play(Strike(t=0.0))
    table.timer.heard("serial", 5.0)
    table.timer.heard("sim", 0.3)
    assert table.timer.known(5.0) == 0.3 and table.timer.due(5.0) is None
    table.timer.heard("sim", 0.45)
    assert table.timer.known(5.0) == 0.45 and table.timer.due(5.0) == Settle(t=5.0)


def test_a_late_sensor_input_counts_from_its_own_t_and_never_moves_the_deadline_back():
    table = Table(hold_back=1.0).play(Strike(t=0.0), Cushion(t=3.0))
    table.play(Pocket(None, t=2.5))                  # held by the GPIO source, arrives after the cushion
    assert table.timer.deadline == pytest.approx(8.0)
    table = Table(hold_back=1.0).play(Strike(t=0.0), Pocket(None, t=2.5))
    assert table.timer.deadline == pytest.approx(7.5)


def test_a_late_strike_with_an_earlier_t_arms_from_the_latest_sensor_input():
    table = Table().play(Cushion(t=5.0), Settle(t=9.5))          # a shot began at the cushion, settled
    table.play(Strike(t=10.0), Cushion(t=12.0))
    assert table.timer.deadline == pytest.approx(16.0)


def test_an_input_without_t_is_refused():
    timer = SettleTimer()
    with pytest.raises(ValueError, match="needs the time"):
        timer.seen(Strike(), Match(MatchStart(("Ana", "Ben"), (3, 3), 0)).apply(Strike()).state)


@pytest.mark.parametrize(("settle_after", "hold_back"), [(0, 0), (-1, 0), (4, -0.5), (float("nan"), 0)])
def test_bad_times_are_refused(settle_after, hold_back):
    with pytest.raises(ValueError):
        SettleTimer(settle_after, hold_back=hold_back)


def test_sensor_inputs_are_the_four_of_the_match_log():
    assert {cls.TYPE for cls in SENSOR_INPUTS} == {"strike", "first_contact", "cushion", "pocket"}


def break_shot(t):
    """A legal break from ``t`` with nothing pocketed, ended by a settle at t + 5."""
    return [Strike(t=t), FirstContact(1, t=t + 0.1), *(Cushion(ball, t=t + 0.5) for ball in (2, 3, 4, 5)),
            Settle(t=t + 5.0)]


def nine_on_the_break_three_times():
    out = []
    for rack in range(3):
        t = rack * 50.0
        out += [Strike(t=t), FirstContact(1, t=t + 0.1), Pocket(9, t=t + 1.0)]
        if rack < 2:
            out.append(Settle(t=t + 6.0))
    return out


# The property: random timelines through the real rules, the daemon's loop around the timer.

SETTLE_AFTER = 4.0

KINDS = ("strike", "first_contact", "cushion", "pocket", "foul", "identify", "off_table", "push_out",
         "accept", "pass", "miss", "settle", "undo", "undo_shot")


def make(kind, t, ball):
    return {
        "strike": lambda: Strike(t=t),
        "first_contact": lambda: FirstContact(ball, t=t),
        "cushion": lambda: Cushion(ball, t=t),
        "pocket": lambda: Pocket(None if ball == 9 else ball, t=t),
        "foul": lambda: Foul("other", t=t),
        "identify": lambda: Identify(ball, t=t),
        "off_table": lambda: OffTable(ball, t=t),
        "push_out": lambda: PushOut(t=t),
        "accept": lambda: Accept(t=t),
        "pass": lambda: Pass(t=t),
        "miss": lambda: Miss(t=t),
        "settle": lambda: Settle(t=t),
        "undo": lambda: Undo(t=t),
        "undo_shot": lambda: UndoShot(t=t),
    }[kind]()


timelines = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.floats(0.0, 6.0),                  # gap to the previous arrival
        st.floats(0.0, 1.0),                  # how late it arrives (its t is earlier), as a share of hold_back
        st.integers(1, 9),
    ),
    max_size=40,
)


@given(timelines, st.booleans(), st.sampled_from([0.0, 0.5, 1.0]), st.booleans())
def test_a_settle_comes_once_per_quiet_shot_and_never_while_balls_may_still_move(
        timeline, strike_sensed, hold_back, wakes_late):
    """Over random timelines: never a settle within ``settle_after`` of a sensor input, one per quiet shot.

    The daemon's loop is modelled as it will be: before each input arrives it wakes
    at the deadline (or, with ``wakes_late``, only after an input arrives) and
    applies the due settle. An independent reckoning (``quiet_from``: the latest
    sensor ``t``, or when the current shot began, or the first input after an undo
    brought it back: an undo itself arms nothing) says when the table has been
    known quiet for ``settle_after``; the timer must agree.
    """
    table = Table(SETTLE_AFTER, hold_back=hold_back, strike_sensed=strike_sensed)
    sensor_ts = []                      # t of every applied sensor input, late ones included
    settles = []                        # when each settle was given
    latest_sensor = None
    quiet_from = None                   # the reckoning; None: no shot in progress, its settle given, or reopened
    reopened = False                    # an undo brought the shot back: the next input arms
    now = 0.0

    def wake(at):
        nonlocal quiet_from
        expected = quiet_from is not None and at >= quiet_from + SETTLE_AFTER + hold_back
        settle = table.timer.due(at)
        assert (settle is not None) == expected, (at, quiet_from)
        if settle is not None:
            assert settle.t == at and table.match.state.shot is not None
            assert table.timer.due(at) is None and table.timer.due(at + 1000.0) is None   # once
            table.play(settle)
            assert table.match.state.shot is None          # the settle ended the shot
            settles.append(at)
            quiet_from = None

    for kind, gap, lateness, ball in timeline:
        now += gap
        deadline = table.timer.deadline
        if deadline is not None and deadline < now and not wakes_late:
            wake(deadline)
        sensor = kind in ("strike", "first_contact", "cushion", "pocket")
        t = now - lateness * hold_back if sensor else now
        item = make(kind, t, ball)
        in_shot_before = table.match.state.shot is not None
        try:
            table.match.apply(item)
        except RuleError:
            if wakes_late:
                wake(now)
            continue
        table.timer.seen(item, table.match.state)
        note(f"{now:.2f}: {item}")
        if sensor:
            sensor_ts.append(t)
            latest_sensor = t if latest_sensor is None else max(latest_sensor, t)
        if table.match.state.shot is None:
            quiet_from, reopened = None, False
        elif kind in ("undo", "undo_shot"):
            quiet_from, reopened = None, True
        elif not in_shot_before or reopened or kind == "strike":
            quiet_from, reopened = (t if latest_sensor is None else max(latest_sensor, t)), False
        elif sensor and quiet_from is not None:
            quiet_from = max(quiet_from, t)
        assert table.timer.deadline == (None if quiet_from is None else quiet_from + SETTLE_AFTER + hold_back)
        if wakes_late:              # a daemon that only looks when an input comes (ties: the input first)
            wake(now)

    if table.match.state.shot is not None and quiet_from is not None:
        wake(max(now, quiet_from + SETTLE_AFTER + hold_back))      # the last shot settles too
        assert table.match.state.shot is None
    for at in settles:          # known quiet: no sensor input, however late it came, within settle_after
        horizon = at - hold_back
        assert not any(horizon - SETTLE_AFTER + 1e-9 < t <= horizon for t in sensor_ts), (at, sensor_ts)
