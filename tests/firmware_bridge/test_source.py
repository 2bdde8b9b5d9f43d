"""The microcontroller as the daemon's sensor source (firmware_bridge/source.py), on real pseudo-terminals."""

from __future__ import annotations

import queue
import time

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import HELLO_BOOT, Arm, CueStrike, CushionHit, Heartbeat, Hello, Ping, PocketDrop, encode
from firmware_bridge.source import SerialSource
from scoreboard.core.inputs import Cushion, Pocket, Strike
from scoreboard.sensing.interface import FencedSource, Health, Heard

from .conftest import WAIT


class Reports:
    """What the source emitted, gathered from its thread."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []

    def until(self, predicate, timeout: float = WAIT) -> list:
        """Everything emitted up to the first report for which ``predicate`` holds."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"not emitted within {timeout} s: {got}")
            try:
                report = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            got.append(report)
            self.seen.append(report)
            if predicate(report):
                return got


def is_status(status: str):
    return lambda r: type(r) is Health and r.status == status


def test_inputs_come_from_the_sources_thread_and_close_stops_it(plug):
    mcu = plug()
    source = SerialSource(str(mcu.path))
    reports = Reports()
    source.start(reports.queue.put)
    mcu.read_until(lambda frames: any(f.message == Ping() for f in frames))
    mcu.write(encode(Hello(1, (1, 0, 0), 3, HELLO_BOOT), 0) + encode(CueStrike(), 1)
              + encode(CushionHit("head", None), 2))
    got = reports.until(lambda r: type(r) is Cushion)
    assert [type(r).__name__ for r in got if type(r) is not Health] == ["Strike", "Cushion"]
    assert all(r.src == "serial" and r.t is not None for r in got if type(r) is not Health)
    source.close()
    assert not source._thread.is_alive()
    # The port is free again: another process-wide exclusive open succeeds.
    other = SerialLink(str(mcu.path))
    other.step()
    assert other.port is not None
    other.close()


def test_rack_mode_tells_the_microcontroller_and_gates_pockets_until_a_strike(plug):
    mcu = plug()
    source = SerialSource(str(mcu.path))
    reports = Reports()
    source.start(reports.queue.put)
    frames = mcu.read_until(lambda frames: len(frames) >= 2)
    assert [f.message for f in frames[:2]] == [Ping(), Arm(True)]  # greeted with the mode it is in
    mcu.write(encode(Heartbeat(3, 0), 0))
    reports.until(is_status("online"))

    source.set_rack_mode(True)
    mcu.read_until(lambda frames: frames[-1].message == Arm(False))
    # A pocket already on its way when rack mode began is dropped on the host.
    mcu.write(encode(PocketDrop(3, "head_left", None, 1), 1) + encode(CushionHit("foot", None), 2))
    got = reports.until(lambda r: type(r) is Cushion)
    assert [type(r) for r in got] == [Cushion]
    # The strike ends rack mode (on the MCU too, which arms itself); pockets count again.
    mcu.write(encode(CueStrike(), 3) + encode(PocketDrop(3, "head_left", 4, 2), 4))
    got = reports.until(lambda r: type(r) is Pocket)
    assert [(type(r), getattr(r, "ball", None)) for r in got] == [(Strike, None), (Pocket, 4)]
    assert source.gate.rack_mode is False
    source.close()


def test_a_restarted_microcontroller_is_told_the_rack_mode_again(plug):
    mcu = plug()
    source = SerialSource(str(mcu.path))
    reports = Reports()
    source.start(reports.queue.put)
    mcu.read_until(lambda frames: any(f.message == Ping() for f in frames))  # the port is open
    mcu.write(encode(Hello(1, (1, 0, 0), 3, HELLO_BOOT), 0))
    reports.until(is_status("online"))
    source.set_rack_mode(True)
    mcu.read_until(lambda frames: frames[-1].message == Arm(False))
    arms = sum(f.message == Arm(False) for f in mcu.received)
    mcu.write(encode(Hello(1, (1, 0, 0), 4, HELLO_BOOT), 0))  # it restarted: armed again by default
    reports.until(is_status("restarted"))
    mcu.read_until(lambda frames: sum(f.message == Arm(False) for f in frames) == arms + 1)
    source.close()


def test_it_keeps_reporting_across_an_unplug(plug):
    first = plug()
    source = SerialSource(str(first.path))
    reports = Reports()
    source.start(reports.queue.put)
    first.read_until(lambda frames: any(f.message == Ping() for f in frames))  # the port is open
    first.write(encode(Heartbeat(3, 0), 0))
    reports.until(is_status("online"))
    first.unplug()
    reports.until(is_status("offline"))
    second = plug()
    second.read_until(lambda frames: any(f.message == Ping() for f in frames))
    second.write(encode(Heartbeat(3, 900), 7) + encode(CueStrike(), 8))
    got = reports.until(lambda r: type(r) is Strike)
    assert [r.status for r in got if type(r) is Health] == ["online"]
    source.close()


def test_asked_how_far_it_is_heard_it_says_so_after_the_inputs_that_came_before_and_nothing_unasked(plug):
    """The daemon's settle timer asks (``fence``) before it ends a shot: the word comes after every input that was
    on the line when it was asked, and says a time no earlier than the asking."""
    mcu = plug()
    source = SerialSource(str(mcu.path))
    reports = Reports()
    source.start(reports.queue.put)
    mcu.read_until(lambda frames: any(f.message == Ping() for f in frames))
    mcu.write(encode(Heartbeat(3, 0), 0))
    reports.until(is_status("online"))
    mcu.write(encode(CushionHit("head", None), 1) + encode(PocketDrop(3, "head_left", 4, 1), 2))
    asked = time.monotonic()
    assert isinstance(source, FencedSource)  # what the daemon checks before it asks (referee.fence)
    source.fence()
    got = reports.until(lambda r: type(r) is Heard)
    assert [type(r) for r in got if type(r) is not Health] == [Cushion, Pocket, Heard]
    assert got[-1].source == "serial" and got[-1].t >= asked
    mcu.write(encode(CueStrike(), 3))
    got = reports.until(lambda r: type(r) is Strike)
    assert Heard not in [type(r) for r in got]  # unasked, it says nothing of the kind
    source.close()
    assert reports.until(lambda r: type(r) is Heard)[-1].t == float("inf")  # gone: it holds no settle back


def test_asked_on_a_quiet_line_it_answers_without_waiting_out_the_read(plug):
    """A fence cuts the thread's read short: with reads waiting up to a minute and nothing on the line, the word
    still comes (the suite's wait gives up after 20 s), so a longer read timeout costs the settle nothing."""
    mcu = plug()
    source = SerialSource(str(mcu.path), link=SerialLink(str(mcu.path), read_timeout=60.0))
    reports = Reports()
    source.start(reports.queue.put)
    mcu.read_until(lambda frames: any(f.message == Ping() for f in frames))
    mcu.write(encode(Heartbeat(3, 0), 0))
    reports.until(is_status("online"))
    for _ in range(3):  # each time, the thread is back in a read of its own
        asked = time.monotonic()
        source.fence()
        assert reports.until(lambda r: type(r) is Heard)[-1].t >= asked
    source.close()
