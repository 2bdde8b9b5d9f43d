"""The GPIO sensors (hardware/sensors.py): MockFactory pins driven by hand, a clock the test sets.

MockFactory stamps each pin change, and answers ``ticks()``, with ``monotonic`` from its
own module; the ``clock`` fixture puts the test's clock there and gives the source the
same clock, so every edge happens at a time the test chose and nothing waits. What the
tests check is what the daemon would receive through ``emit``: match-log inputs and
health reports.
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import gpiozero.pins.mock
import pytest
from gpiozero.pins.mock import MockFactory

from hardware.sensors import IDLE_POLL_S, GpioSource, SensorLine
from scoreboard.config.table import load, parse
from scoreboard.core.inputs import Cushion, Pocket, Strike
from scoreboard.sensing.interface import FencedSource, Health, Heard
from scoreboard.sensing.wiring import FilterConfig, GpioConfig

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "table.example.toml"
POCKET_PINS = {"head_left": 17, "head_right": 27, "side_left": 22, "side_right": 23, "foot_left": 24,
               "foot_right": 25}
RAIL_PINS = {"head": 6, "foot": 12, "left_head": 13, "left_foot": 16, "right_head": 19, "right_foot": 26}
MS = 0.001


class FakeClock:
    """A monotonic clock that stands still until the test moves it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = FakeClock(1000.0)
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock)
    return clock


class Table:
    """A table's GPIO source on mock pins, every sensor at rest, reporting into ``seen``."""

    def __init__(self, clock: FakeClock, toml: str, **options) -> None:
        self.clock = clock
        self.factory = MockFactory()
        self.seen: list = []
        self.source = GpioSource.from_config(parse(toml).sensors, pin_factory=self.factory, clock=clock,
                                             poll_every=None, **options)
        for subject in self.source.devices:
            self.drive(subject, active=False)
        self.source.start(self.seen.append)

    def drive(self, subject: str, active: bool, at: float | None = None) -> None:
        """The sensor on ``subject``'s line goes ``active`` (or back to rest) at time ``at``."""
        if at is not None:
            self.clock.now = at
        device = self.source.devices[subject]
        if active == device.active_high:
            device.pin.drive_high()
        else:
            device.pin.drive_low()

    def pulse(self, subject: str, at: float, width: float = 4 * MS) -> None:
        self.drive(subject, True, at)
        self.drive(subject, False, at + width)

    def poll(self, now: float) -> list:
        self.clock.now = now
        self.source.poll(now)
        return self.seen

    def close(self) -> None:
        self.source.close()


ALL_POCKETS = "[sensors.gpio.pockets]\n" + "\n".join(f"{name} = {pin}" for name, pin in POCKET_PINS.items())
NO_MERGE = "\n[sensors.filter]\ncue_merge_ms = 0\n"


# Pockets and the cue return


def test_each_pocket_beam_gives_one_unidentified_pocket_with_its_name(clock):
    table = Table(clock, ALL_POCKETS)
    for index, name in enumerate(POCKET_PINS):
        table.pulse(f"pocket:{name}", at=1000.0 + index * 0.5, width=3 * MS)
    assert table.poll(1010.0) == [Pocket(None, name, 1000.0 + index * 0.5, "gpio")
                                  for index, name in enumerate(POCKET_PINS)]


def test_asked_how_far_it_is_heard_the_next_poll_says_its_time_after_what_it_let_out(clock):
    """The daemon's settle timer asks (``fence``) before it ends a shot; a pocket still held for the cue-return
    window is not out yet, and the word says only the poll's time, which the settle's hold-back allows for."""
    table = Table(clock, ALL_POCKETS)
    table.pulse("pocket:side_left", at=1000.0)
    table.pulse("pocket:foot_left", at=1000.2)
    assert isinstance(table.source, FencedSource)  # what the daemon checks before it asks (referee.fence)
    table.source.fence()
    assert table.poll(1001.1) == [Pocket(None, "side_left", 1000.0, "gpio"), Heard("gpio", 1001.1)]
    assert table.poll(1002.0)[2:] == [Pocket(None, "foot_left", 1000.2, "gpio")]  # unasked: no word


def test_a_pocket_beam_waits_for_the_cue_return_window_then_goes_out(clock):
    table = Table(clock, ALL_POCKETS)
    table.pulse("pocket:side_left", at=1000.0)
    assert table.poll(1000.999) == []
    assert table.poll(1001.001) == [Pocket(None, "side_left", 1000.0, "gpio")]


def test_with_no_merge_window_a_pocket_goes_out_at_once(clock):
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    table.pulse("pocket:foot_right", at=1000.0, width=8 * MS)
    assert table.seen == [Pocket(None, "foot_right", 1000.0, "gpio")]


def test_the_cue_return_alone_gives_the_cue_ball(clock):
    table = Table(clock, "[sensors.gpio]\ncue_return = 5")
    table.pulse("cue_return", at=1003.0, width=40 * MS)
    assert table.seen == [Pocket(0, None, 1003.0, "gpio")]


def test_a_pocket_beam_then_the_cue_return_within_the_window_is_one_cue_ball_pocket(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\ncue_return = 5")
    table.pulse("pocket:head_left", at=1000.0)
    table.pulse("cue_return", at=1000.8, width=40 * MS)
    assert table.seen == [Pocket(0, "head_left", 1000.0, "gpio")]
    assert table.poll(1005.0) == [Pocket(0, "head_left", 1000.0, "gpio")]


def test_a_cue_return_after_the_window_is_a_second_input(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\ncue_return = 5")
    table.pulse("pocket:head_left", at=1000.0)
    table.pulse("cue_return", at=1001.2, width=40 * MS)
    assert table.seen == [Pocket(None, "head_left", 1000.0, "gpio"), Pocket(0, None, 1001.2, "gpio")]


def test_the_cue_ball_joins_the_earliest_pocket_still_waiting(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\ncue_return = 5")
    table.pulse("pocket:foot_left", at=1000.0)
    table.pulse("pocket:side_right", at=1000.3)
    table.pulse("cue_return", at=1000.9)
    assert table.poll(1002.0) == [Pocket(0, "foot_left", 1000.0, "gpio"), Pocket(None, "side_right", 1000.3, "gpio")]


def test_inputs_after_a_waiting_pocket_wait_behind_it_in_time_order(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\ncushion_shared = 21")
    table.pulse("pocket:foot_left", at=1000.0)
    table.pulse("cushion", at=1000.2)
    assert table.seen == []
    assert table.poll(1001.5) == [Pocket(None, "foot_left", 1000.0, "gpio"), Cushion(None, None, 1000.2, "gpio")]


def test_a_strike_ends_the_wait_the_cue_ball_is_back_on_the_table(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\nstrike = 20")
    table.pulse("pocket:foot_left", at=1000.0)
    table.pulse("strike", at=1000.5)
    assert table.seen == [Pocket(None, "foot_left", 1000.0, "gpio"), Strike(1000.5, "gpio")]


def test_bounce_and_glitches_on_a_pocket_beam_give_one_input(clock):
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    table.pulse("pocket:side_right", at=1000.0, width=0.3 * MS)        # a spike on the cable
    for start in (1000.5000, 1000.5003, 1000.5006):                   # the beam flickers, then the ball
        table.pulse("pocket:side_right", at=start, width=0.1 * MS)
    table.pulse("pocket:side_right", at=1000.5010, width=5 * MS)
    table.pulse("pocket:side_right", at=1000.5062, width=0.2 * MS)    # bounce as it leaves
    table.pulse("pocket:side_right", at=1000.5600, width=5 * MS)      # a second ball, 59 ms later
    assert table.seen == [Pocket(None, "side_right", 1000.5010, "gpio"), Pocket(None, "side_right", 1000.5600, "gpio")]


# Cushions and the strike


def test_each_rail_gives_a_cushion_with_its_name(clock):
    table = Table(clock, "[sensors.gpio.cushions]\n" + "\n".join(f"{name} = {pin}" for name, pin in RAIL_PINS.items()))
    for index, rail in enumerate(RAIL_PINS):
        table.pulse(f"cushion:{rail}", at=1000.0 + index * 0.1, width=6 * MS)
    assert table.seen == [Cushion(None, rail, 1000.0 + index * 0.1, "gpio") for index, rail in enumerate(RAIL_PINS)]


def test_a_shared_cushion_line_gives_cushions_with_no_rail(clock):
    table = Table(clock, "[sensors.gpio]\ncushion_shared = 21")
    table.pulse("cushion", at=1000.0)
    table.pulse("cushion", at=1000.1)
    assert table.seen == [Cushion(None, None, 1000.0, "gpio"), Cushion(None, None, 1000.1, "gpio")]


def test_the_strike_line_gives_one_strike_however_it_chatters(clock):
    table = Table(clock, "[sensors.gpio]\nstrike = 20")
    for start_ms in (0, 6, 15, 40, 120, 240):           # an SW-420 rattling after the hit
        table.pulse("strike", at=1000.0 + start_ms * MS, width=3 * MS)
    table.pulse("strike", at=1004.0, width=3 * MS)      # the next shot
    assert table.seen == [Strike(1000.0, "gpio"), Strike(1004.0, "gpio")]


# Stuck lines


def test_a_stuck_line_is_one_fault_no_flood_and_recovers_by_itself(clock):
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    table.drive("pocket:foot_left", True, at=1000.0)          # a ball comes to rest in the beam
    for tenth in range(1, 300):                                # the timer, every 0.1 s for 30 s
        table.poll(1000.0 + tenth / 10)
    assert table.seen == [
        Pocket(None, "foot_left", 1000.0, "gpio"),
        Health("gpio", "pocket:foot_left", "fault", "line active for 5.0 s: a ball resting in the beam, or a dead "
               "or unplugged sensor; ignored until it clears", t=1005.0),
    ]
    table.drive("pocket:foot_left", False, at=1031.0)
    assert table.seen[2:] == [Health("gpio", "pocket:foot_left", "ok", "line clear again after 31.0 s", t=1031.0)]
    table.pulse("pocket:foot_left", at=1040.0)
    assert table.seen[3:] == [Pocket(None, "foot_left", 1040.0, "gpio")]


def test_an_unplugged_comparator_reads_active_and_is_reported_not_counted(clock):
    # Nothing drives the line: the pull-up holds it high, which reads as "active".
    seen = []
    source = GpioSource(GpioConfig(strike=20), pin_factory=MockFactory(), clock=clock, poll_every=None)
    source.start(seen.append)
    clock.now = 1006.0
    source.poll(1006.0)
    assert seen == [Health("gpio", "strike", "fault", "line active for 5.0 s: a ball resting in the beam, or a dead "
                           "or unplugged sensor; ignored until it clears", t=1005.0)]
    source.close()


# Rack mode


def test_rack_mode_drops_pockets_and_the_cue_ball_until_a_strike_ends_it(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.gpio]\ncue_return = 5\nstrike = 20\ncushion_shared = 21")
    table.source.set_rack_mode(True)
    table.pulse("pocket:head_left", at=1000.0)                  # hands fish the balls out
    table.pulse("pocket:foot_right", at=1000.5)
    table.pulse("cue_return", at=1001.0)
    table.pulse("cushion", at=1001.5)                           # racking knocks a cushion: still reported
    assert table.poll(1010.0) == [Cushion(None, None, 1001.5, "gpio")]
    assert table.source.rack_mode
    table.pulse("strike", at=1020.0)                            # the break
    assert not table.source.rack_mode
    table.pulse("pocket:side_left", at=1020.4)
    assert table.poll(1030.0)[1:] == [Strike(1020.0, "gpio"), Pocket(None, "side_left", 1020.4, "gpio")]


def test_rack_mode_can_be_ended_by_a_command(clock):
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    table.source.set_rack_mode(True)
    table.pulse("pocket:head_right", at=1000.0)
    table.source.set_rack_mode(False)
    table.pulse("pocket:head_right", at=1001.0)
    assert table.seen == [Pocket(None, "head_right", 1001.0, "gpio")]


# Config to source wiring


def test_the_example_config_wires_every_line_to_its_pin(clock):
    source = GpioSource.from_config(load(EXAMPLE).sensors, pin_factory=MockFactory(), clock=clock, poll_every=None)
    pins = {subject: device.pin.info.name for subject, device in source.devices.items()}
    assert pins == {**{f"pocket:{name}": f"GPIO{pin}" for name, pin in POCKET_PINS.items()},
                    "cue_return": "GPIO5",
                    **{f"cushion:{rail}": f"GPIO{pin}" for rail, pin in RAIL_PINS.items()},
                    "strike": "GPIO20"}
    assert [device.active_high for device in source.devices.values()] == [False] * 6 + [True] * 8
    assert all(device.pin.pull == "up" for device in source.devices.values())
    source.close()


def test_each_configured_pin_reports_on_its_own_line(clock):
    table = Table(clock, EXAMPLE.read_text())
    pins = {device.pin.info.name: subject for subject, device in table.source.devices.items()}
    for index, pin in enumerate(sorted(pins)):
        table.pulse(pins[pin], at=1000.0 + 2 * index)   # apart: no cue-ball merging
    table.poll(1100.0)
    fired = sorted((item.t, item.TYPE, getattr(item, "pocket", None) or getattr(item, "rail", None))
                   for item in table.seen)
    expected = sorted((1000.0 + 2 * index, *_what(pins[pin])) for index, pin in enumerate(sorted(pins)))
    assert fired == expected


def _what(subject: str) -> tuple:
    kind, _, name = subject.partition(":")
    return {"pocket": ("pocket", name), "cue_return": ("pocket", None), "cushion": ("cushion", name),
            "strike": ("strike", None)}[kind]


def test_active_high_and_pull_come_from_the_config(clock):
    table = Table(clock, "[sensors.gpio]\npull_up = false\n[sensors.gpio.pockets]\nfoot_left = 24\n"
                         "[sensors.gpio.active_high]\npocket = true" + NO_MERGE)
    device = table.source.devices["pocket:foot_left"]
    assert device.pin.pull == "down" and device.active_high
    device.pin.drive_high()
    clock.now += 3 * MS
    device.pin.drive_low()
    assert table.seen == [Pocket(None, "foot_left", 1000.0, "gpio")]


def test_the_filter_times_come_from_the_config(clock):
    table = Table(clock, ALL_POCKETS + "\n[sensors.filter]\nmin_pulse_ms = 5\nlockout_ms = 100\ncue_merge_ms = 0")
    table.pulse("pocket:foot_left", at=1000.0, width=4 * MS)      # too short for 5 ms
    table.pulse("pocket:foot_left", at=1001.0, width=6 * MS)
    table.pulse("pocket:foot_left", at=1001.06, width=6 * MS)     # inside a 100 ms lockout
    assert table.seen == [Pocket(None, "foot_left", 1001.0, "gpio")]


# Edge times: the pin's own


def test_an_edge_delivered_late_keeps_the_time_the_pin_stamped(clock, monkeypatch):
    # As lgpio does on a Pi: the kernel stamps the edge, a thread delivers it later, and
    # the factory's ticks run on their own base (here 5000 s ahead of the source's clock).
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: clock.now + 5000.0)
    factory = MockFactory()
    edges = []
    line = SensorLine(24, active_high=False, pin_factory=factory, clock=clock)
    line.when_edge = lambda active, t: edges.append((active, t))
    clock.now = 1000.010
    line.pin.when_changed(6000.002, False)        # low (beam broken) at 1000.002, delivered 8 ms late
    line.pin.when_changed(6000.006, True)
    assert edges == [(True, pytest.approx(1000.002, abs=1e-9)), (False, pytest.approx(1000.006, abs=1e-9))]
    line.close()


def test_an_edge_stamped_on_another_clock_is_taken_when_it_arrives(clock):
    factory = MockFactory()
    edges = []
    line = SensorLine(24, active_high=False, pin_factory=factory, clock=clock)
    line.when_edge = lambda active, t: edges.append((active, t))
    clock.now = 1000.0
    line.pin.when_changed(1.7e9, False)           # a wall-clock stamp: in the "future"
    line.pin.when_changed(900.0, True)            # 100 s old: no edge arrives that late
    assert edges == [(True, 1000.0), (False, 1000.0)]
    line.close()


def test_mock_pin_edges_reach_the_source_with_the_pins_timestamps(clock, monkeypatch):
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: clock.now + 5000.0)
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    table.pulse("pocket:foot_left", at=1000.25, width=2 * MS)
    assert table.seen == [Pocket(None, "foot_left", 1000.25, "gpio")]


def test_gpiozero_bounce_time_is_never_set_and_a_2_ms_pulse_gets_through(clock):
    table = Table(clock, ALL_POCKETS + NO_MERGE)
    assert all(device.pin.bounce is None for device in table.source.devices.values())
    assert all(device.pin.edges == "both" for device in table.source.devices.values())
    table.pulse("pocket:head_left", at=1000.0, width=2 * MS)
    assert table.seen == [Pocket(None, "head_left", 1000.0, "gpio")]


# The source's life


def test_edges_before_start_and_after_close_report_nothing(clock):
    factory = MockFactory()
    seen = []
    source = GpioSource(GpioConfig(pockets={"foot_left": 24}, cue_return=5), pin_factory=factory, clock=clock,
                        poll_every=None)
    beam = factory.pin(24)
    beam.drive_low()
    clock.now += 4 * MS
    beam.drive_high()
    source.start(seen.append)
    source.close()
    clock.now += 1.0
    beam.drive_low()
    clock.now += 4 * MS
    beam.drive_high()
    assert seen == []


def test_close_lets_a_waiting_pocket_out_then_frees_the_pins(clock):
    table = Table(clock, ALL_POCKETS)
    table.pulse("pocket:side_left", at=1000.0)
    assert table.seen == []
    table.close()
    assert table.seen == [Pocket(None, "side_left", 1000.0, "gpio")]
    assert all(device.closed for device in table.source.devices.values())
    SensorLine(22, pin_factory=table.factory).close()     # the pin can be claimed again
    table.close()                                         # closing twice is harmless


def test_a_source_starts_once(clock):
    table = Table(clock, ALL_POCKETS)
    with pytest.raises(RuntimeError):
        table.source.start(table.seen.append)
    table.close()


def test_poll_with_no_time_looks_at_the_clock_less_the_lag(clock):
    table = Table(clock, ALL_POCKETS, poll_lag=0.1)
    table.pulse("pocket:side_right", at=1000.0)
    clock.now = 1001.05                       # the window ended at 1001.0, but not 0.1 s ago
    table.source.poll()
    assert table.seen == []
    clock.now = 1001.15
    table.source.poll()
    assert table.seen == [Pocket(None, "side_right", 1000.0, "gpio")]


def test_a_pin_that_is_taken_fails_the_source_and_frees_what_it_took(clock):
    factory = MockFactory()
    taken = SensorLine(20, pin_factory=factory)
    with pytest.raises(gpiozero.GPIOPinInUse):
        GpioSource(GpioConfig(pockets={"foot_left": 24}, strike=20), pin_factory=factory, clock=clock)
    SensorLine(24, pin_factory=factory).close()           # GPIO24 was given back
    taken.close()


def test_the_timer_polls_on_its_own_thread(clock):
    factory = MockFactory()
    faulted = threading.Event()
    source = GpioSource(GpioConfig(strike=20), pin_factory=factory, clock=clock, poll_every=0.001)
    source.start(lambda report: faulted.set() if isinstance(report, Health) else None)
    clock.now += 10.0                                     # the unplugged line has been active 10 s
    assert faulted.wait(timeout=5.0)
    source.close()


class CountingClock:
    """The real monotonic clock, counting how often it is read: a poll reads it once."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return time.monotonic()


def test_an_idle_source_sleeps_and_an_edge_or_a_fence_wakes_its_timer():
    """With no line active, no input held and no fence asked, the timer sleeps (``IDLE_POLL_S``) instead of
    polling every ``poll_every``: an idle table costs the Pi a wake-up a second. An edge wakes it for the pocket
    held for the cue-return sensor, and a fence is answered."""
    factory, clock, seen = MockFactory(), CountingClock(), queue.Queue()
    source = GpioSource(GpioConfig(pockets={"side_left": 24}, cue_return=5), FilterConfig(cue_merge_ms=200),
                        pin_factory=factory, clock=clock, poll_every=0.01)
    beam = factory.pin(24)
    beam.drive_high()  # the beam whole (an IR receiver: low while broken)
    factory.pin(5).drive_low()  # the cue-return sensor at rest
    source.start(seen.put)
    began, reads = time.monotonic(), clock.reads
    time.sleep(0.5)
    slept = time.monotonic() - began
    assert clock.reads - reads <= 1 + slept / IDLE_POLL_S  # polling all along, it would have read it 50 times
    beam.drive_low()
    time.sleep(0.01)
    beam.drive_high()  # a ball through the beam: held 0.2 s for the cue-return sensor, let go by a poll
    assert seen.get(timeout=10).pocket == "side_left"
    source.fence()
    assert isinstance(seen.get(timeout=10), Heard)
    source.close()
