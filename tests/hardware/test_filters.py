"""The glitch filter of one line (hardware/filters.py), fed edge sequences with explicit times.

The sequences are the issue's: clean 2 ms and 8 ms pulses counted once, contact bounce
counted once, two balls 60 ms apart counted twice, sub-millisecond glitches ignored, a
stuck line reported once and recovered. Then properties over any sequence.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.filters import Clear, Count, GlitchFilter, Stuck

MS = 0.001


def feed(edges, line=None, *, until=None):
    """Run (active, t) edges through a filter with the default times; every event, in order."""
    line = line or GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0)
    events = []
    for active, t in edges:
        events += line.edge(active, t)
    if until is not None:
        events += line.poll(until)
    return events


def pulse(start, width):
    """One pulse: active at ``start`` (seconds), inactive ``width`` seconds later."""
    return [(True, start), (False, start + width)]


def counts(events):
    return [event.t for event in events if type(event) is Count]


# The sequences


@pytest.mark.parametrize("width_ms", [2, 8])
def test_a_clean_ball_pulse_counts_once_at_its_start(width_ms):
    assert feed(pulse(10.0, width_ms * MS), until=20.0) == [Count(t=10.0)]


def test_contact_bounce_counts_once():
    # Make: three short bounces, then the solid pulse; break: three more bounces.
    edges = [(True, 0.0000), (False, 0.0002), (True, 0.0004), (False, 0.0005), (True, 0.0007), (False, 0.0008),
             (True, 0.0010), (False, 0.0060),
             (True, 0.0062), (False, 0.0064), (True, 0.0067), (False, 0.0068), (True, 0.0075), (False, 0.0090)]
    assert feed(edges, until=1.0) == [Count(t=0.0010)]


def test_a_beam_flickering_at_the_balls_edge_counts_once():
    # The beam half-sees the ball's edge: active 1.2 ms, a 0.1 ms dropout, active again 2 ms.
    assert counts(feed(pulse(0.0, 1.2 * MS) + pulse(1.3 * MS, 2 * MS), until=1.0)) == [0.0]


def test_two_balls_60_ms_apart_count_twice():
    assert counts(feed(pulse(0.0, 8 * MS) + pulse(0.060, 8 * MS), until=1.0)) == [0.0, 0.060]


def test_a_second_pulse_inside_the_lockout_does_not_count():
    # A ball rattling back into the beam 20 ms after it left it.
    assert counts(feed(pulse(0.0, 8 * MS) + pulse(0.028, 5 * MS), until=1.0)) == [0.0]


def test_the_lockout_runs_from_the_end_of_the_counted_pulse():
    # A slow ball (50 ms); a pulse 20 ms after it left is in the lockout, one 50 ms after is not.
    assert counts(feed(pulse(0.0, 50 * MS) + pulse(0.070, 3 * MS) + pulse(0.100, 3 * MS), until=1.0)) == [0.0, 0.100]


@pytest.mark.parametrize("width_us", [10, 300, 999])
def test_sub_millisecond_glitches_are_ignored(width_us):
    assert feed(pulse(3.0, width_us * 1e-6), until=10.0) == []


def test_a_glitch_does_not_start_a_lockout():
    # A 0.3 ms spike, then a ball 5 ms later: the ball counts.
    assert counts(feed(pulse(0.0, 0.3 * MS) + pulse(0.005, 4 * MS), until=1.0)) == [0.005]


def test_a_stuck_line_is_reported_once_counts_once_and_recovers_when_it_clears():
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0)
    events = line.edge(True, 100.0)
    for tenth in range(1, 200):                  # a timer polling every 0.1 s for 20 s
        events += line.poll(100.0 + tenth / 10)
    assert events == [Count(t=100.0), Stuck(t=105.0, since=100.0)]
    assert line.stuck
    assert line.edge(False, 120.0) == [Clear(t=120.0, since=100.0)]
    assert not line.stuck
    # It works as before: the next ball counts, and nothing more is said about health.
    assert feed(pulse(121.0, 3 * MS), line, until=130.0) == [Count(t=121.0)]


def test_a_stuck_line_is_caught_up_at_its_next_edge_if_no_poll_came():
    assert feed(pulse(0.0, 6.0)) == [Count(t=0.0), Stuck(t=5.0, since=0.0), Clear(t=6.0, since=0.0)]


def test_a_line_active_at_start_is_not_counted_but_can_be_stuck():
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0, active=True, now=50.0)
    assert line.poll(51.0) == []
    assert line.poll(55.5) == [Stuck(t=55.0, since=50.0)]
    assert line.edge(False, 56.0) == [Clear(t=56.0, since=50.0)]
    assert counts(feed(pulse(56.01, 2 * MS), line)) == [56.01]


def test_a_ball_resting_in_the_beam_counts_when_polled_before_it_leaves():
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0)
    assert line.edge(True, 7.0) == []
    assert line.poll(7.0005) == []
    assert line.poll(7.002) == [Count(t=7.0)]
    assert line.edge(False, 7.5) == []


def test_a_repeated_level_is_no_edge():
    assert counts(feed([(True, 0.0), (True, 0.0002), (False, 0.003), (False, 0.004)])) == [0.0]


def test_an_edge_stamped_before_the_last_poll_is_taken_at_the_poll():
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0)
    line.poll(10.0)
    assert line.edge(True, 9.999) == []
    assert line.edge(False, 10.0005) == []       # 0.5 ms from the poll: a glitch


def test_bad_times_are_refused():
    with pytest.raises(ValueError):
        GlitchFilter(min_pulse=-1)
    with pytest.raises(ValueError):
        GlitchFilter(stuck_after=0)


# Properties over any edge sequence


@st.composite
def edge_runs(draw):
    """Alternating edges (starting with a rise) at increasing times, ending inactive, with poll times."""
    gaps = draw(st.lists(st.integers(min_value=1, max_value=80_000), min_size=0, max_size=40))  # microseconds
    if len(gaps) % 2:
        gaps.append(draw(st.integers(min_value=1, max_value=80_000)))
    times, now = [], 0
    for gap in gaps:
        now += gap
        times.append(now / 1e6)
    edges = [(index % 2 == 0, t) for index, t in enumerate(times)]
    polls = sorted(draw(st.lists(st.integers(min_value=0, max_value=now + 10), max_size=20)))
    return edges, [p / 1e6 for p in polls]


def pulses_of(edges):
    """The (rise, fall) times of an alternating edge list that starts with a rise and ends inactive."""
    return [(rise, fall) for (_, rise), (_, fall) in zip(edges[::2], edges[1::2], strict=True)]


def run_with_polls(edges, polls, stuck_after=5.0):
    """Edges and polls merged in time order through one filter; the events in order."""
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=stuck_after)
    steps = sorted([(t, 0, active) for active, t in edges] + [(t, 1, None) for t in polls])
    events = []
    for t, is_poll, active in steps:
        events += line.poll(t) if is_poll else line.edge(active, t)
    return events


@settings(deadline=None)
@given(edge_runs())
def test_never_more_counts_than_pulses_that_meet_the_minimum_width(run):
    edges, polls = run
    starts = [rise for rise, fall in pulses_of(edges) if fall - rise >= 1 * MS]
    found = counts(run_with_polls(edges, polls))
    assert len(found) <= len(starts)
    # ... and each count is the start of a different one of those pulses.
    assert set(found) <= set(starts) and len(set(found)) == len(found)


@settings(deadline=None)
@given(start=st.floats(min_value=0, max_value=1e6), width=st.floats(min_value=0, max_value=0.00099),
       polls=st.lists(st.floats(min_value=0, max_value=0.002), max_size=5))
def test_a_lone_glitch_never_counts(start, width, polls):
    line = GlitchFilter(min_pulse=1 * MS, lockout=30 * MS, stuck_after=5.0, now=start)
    fall = start + width
    events = line.edge(True, start)
    for offset in sorted(polls):
        if start + offset < fall:
            events += line.poll(start + offset)
    events += line.edge(False, fall) + line.poll(fall + 10.0)
    assert counts(events) == []


@settings(deadline=None)
@given(edge_runs())
def test_what_is_reported_does_not_depend_on_when_it_is_polled(run):
    edges, polls = run
    assert run_with_polls(edges, polls, stuck_after=0.05) == run_with_polls(edges, [], stuck_after=0.05)


@settings(deadline=None)
@given(edge_runs())
def test_well_spaced_long_pulses_all_count(run):
    # Every pulse of 1 ms or more that starts 30 ms or more after the last counted one ended counts.
    edges, polls = run
    expected, quiet_until = [], float("-inf")
    for rise, fall in pulses_of(edges):
        if fall - rise >= 1 * MS and rise >= quiet_until:
            expected.append(rise)
            quiet_until = fall + 30 * MS
    assert counts(run_with_polls(edges, polls)) == expected
