"""The firmware's pulse filter (firmware/counting.py) on edge sequences with explicit timestamps (µs)."""

from __future__ import annotations

from firmware_bridge.firmware.counting import CLEARED, COUNT, STUCK, LineFilter

MS = 1000


def run(edges, end, **settings):
    """Feed ``(active, t)`` edges, polling every 100 µs as the main loop would, up to ``end``; the events."""
    line = LineFilter(**settings)
    events = []
    pending = sorted(edges, key=lambda edge: edge[1])
    t = 0
    while t <= end:
        while pending and pending[0][1] <= t:
            active, when = pending.pop(0)
            events += line.edge(active, when)
        events += line.poll(t)
        t += 100
    return events


def pulse(start, width):
    return [(True, start), (False, start + width)]


def test_clean_2_ms_and_8_ms_pulses_count_once_each():
    assert run(pulse(0, 2 * MS), 50 * MS) == [COUNT]
    assert run(pulse(0, 8 * MS), 50 * MS) == [COUNT]


def test_contact_bounce_inside_one_pulse_counts_once():
    bouncy = [(True, 0), (False, 150), (True, 250), (False, 300), (True, 400), (False, 5 * MS),
              (True, 5 * MS + 100), (False, 5 * MS + 200)]
    assert run(bouncy, 50 * MS) == [COUNT]


def test_two_balls_60_ms_apart_count_twice():
    assert run(pulse(0, 4 * MS) + pulse(60 * MS, 4 * MS), 200 * MS) == [COUNT, COUNT]


def test_a_ball_rattling_within_the_lockout_counts_once():
    assert run(pulse(0, 4 * MS) + pulse(20 * MS, 3 * MS), 200 * MS) == [COUNT]


def test_sub_millisecond_glitches_are_ignored():
    glitches = pulse(0, 300) + pulse(10 * MS, 900) + pulse(30 * MS, 50)
    assert run(glitches, 100 * MS) == []


def test_a_line_stuck_active_is_one_fault_then_cleared_and_never_counted():
    events = run(pulse(0, 10_000 * MS), 10_100 * MS, stuck_us=3_000 * MS)
    assert events == [STUCK, CLEARED]
    # And a ball afterwards counts again.
    line = LineFilter(stuck_us=3_000 * MS)
    line.edge(True, 0)
    assert line.poll(3_000 * MS) == [STUCK]
    assert line.poll(6_000 * MS) == []
    line.edge(False, 7_000 * MS)
    assert line.poll(7_001 * MS) == [CLEARED]
    assert line.edge(True, 7_100 * MS) + line.edge(False, 7_104 * MS) + line.poll(7_105 * MS) == [COUNT]


def test_a_pulse_that_ends_at_the_next_edge_is_counted_without_a_poll():
    line = LineFilter()
    assert line.edge(True, 0) + line.edge(False, 3 * MS) == []
    assert line.edge(True, 100 * MS) == [COUNT]  # the earlier pulse was over long ago
    assert line.counted == 1


def test_ticks_that_wrap_around_are_read_with_the_boards_diff():
    period = 1 << 30  # MicroPython's ticks_us wraps here; ticks_diff gives the signed difference

    def ticks_diff(a, b):
        return ((a - b + period // 2) % period) - period // 2

    line = LineFilter(diff=ticks_diff)
    start = period - 1 * MS
    events = line.edge(True, start) + line.edge(False, (start + 3 * MS) % period)
    events += line.poll((start + 4 * MS) % period)
    assert events == [COUNT]
