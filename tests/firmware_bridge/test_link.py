"""The serial port kept open by path (firmware_bridge/link.py), on real pseudo-terminals.

An unplug is the master side closing (pyserial then reads an error, or nothing
after "readable"); a replug is a new pseudo-terminal at the same path. Silence is
judged by the injected clock, never by sleeping.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    HELLO_BOOT,
    Arm,
    Configure,
    CueStrike,
    CushionHit,
    Heartbeat,
    Hello,
    Ping,
    PocketDrop,
    Settings,
    encode,
)
from scoreboard.core.inputs import Pocket, Strike
from scoreboard.sensing.interface import Health

from .conftest import WAIT


def step_until(link: SerialLink, predicate, timeout: float = WAIT) -> list:
    """Step the link until ``predicate(reports so far)``; fail after ``timeout`` seconds of real time."""
    reports: list = []
    deadline = time.monotonic() + timeout
    while not predicate(reports):
        if time.monotonic() > deadline:
            raise AssertionError(f"not reported within {timeout} s: {reports}")
        reports += link.step()
    return reports


def has(status: str):
    return lambda reports: any(type(r) is Health and r.status == status for r in reports)


def statuses(reports) -> list[str]:
    return [r.status for r in reports if type(r) is Health and r.subject == "link"]


def kinds(reports) -> list[str]:
    return [type(r).__name__ for r in reports]


def test_frames_on_the_port_become_inputs_and_the_link_comes_online(plug, clock):
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock, greeting=lambda: [Arm(False)],
                      configure=Configure(Settings(lockout_ms=50)))
    assert link.step() == []  # opens the port and greets the MCU
    sent = mcu.read_until(lambda frames: len(frames) >= 3)
    assert [(frame.seq, frame.message) for frame in sent] == [
        (0, Ping()), (1, Arm(False)), (2, Configure(Settings(lockout_ms=50)))]
    mcu.write(encode(Hello(1, (1, 0, 0), 7, HELLO_BOOT), 0) + encode(CueStrike(), 1)
              + encode(PocketDrop(7, "foot_right", 9, 1), 2))
    reports = step_until(link, lambda r: any(type(x) is Pocket for x in r))
    assert statuses(reports) == ["online", "ok"]
    assert [(type(r).__name__, r.t, r.src) for r in reports if type(r) is not Health] == [
        ("Strike", 1000.0, "serial"), ("Pocket", 1000.0, "serial")]
    assert link.online
    link.close()


def test_silence_is_offline_after_one_second_of_the_injected_clock(plug, clock):
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock)
    link.step()
    mcu.write(encode(Heartbeat(7, 0), 0))
    step_until(link, has("online"))
    clock.now += 0.9
    assert statuses(link.step()) == []
    clock.now += 0.1
    reports = link.step()
    assert [(r.status, r.detail) for r in reports] == [("offline", f"no frames for 1 s on {mcu.path}")]
    assert statuses(link.step()) == []  # told once
    # While offline it pings every half second of the clock, and the next frame brings it back.
    clock.now += 0.5
    link.step()
    mcu.read_until(lambda frames: sum(f.message == Ping() for f in frames) >= 2)
    mcu.write(encode(Heartbeat(7, 2000), 1))
    assert statuses(step_until(link, has("online"))) == ["online"]
    link.close()


def test_an_unplug_is_offline_at_once_and_a_replug_reconnects_by_itself(plug, clock):
    first = plug()
    link = SerialLink(str(first.path), clock=clock, retry=0.0)
    link.step()
    first.write(encode(Heartbeat(7, 0), 0) + encode(PocketDrop(7, "head_left", 1, 1), 1))
    step_until(link, lambda r: any(type(x) is Pocket for x in r))
    first.unplug()
    reports = step_until(link, has("offline"))  # the clock has not moved: this is the read failing
    (offline,) = [r for r in reports if type(r) is Health]
    assert offline.detail.startswith("unplugged (")
    assert link.port is None and not link.online
    second = plug()
    step_until(link, lambda r: link.port is not None)
    second.read_until(lambda frames: any(f.message == Ping() for f in frames))
    # The same boot, further on: the sequence starts over without a false gap; the drop made while
    # unplugged shows in the counter and is added, unidentified.
    second.write(encode(PocketDrop(7, "head_left", 3, 3), 40))
    reports = step_until(link, lambda r: sum(type(x) is Pocket for x in r) >= 2)
    assert statuses(reports) == ["online"]
    assert [(r.subject, r.status, r.count) for r in reports if type(r) is Health and r.subject != "link"] == [
        ("pocket:head_left", "missed_pockets", 1)]
    assert [(r.ball, r.pocket) for r in reports if type(r) is Pocket] == [(None, "head_left"), (3, "head_left")]
    link.close()


def test_a_frame_cut_by_the_unplug_is_not_joined_to_the_next_connection(plug, clock):
    first = plug()
    link = SerialLink(str(first.path), clock=clock, retry=0.0)
    link.step()
    frame = encode(CushionHit("foot", 2), 0)
    first.write(encode(Heartbeat(7, 0), 5) + frame[:4])
    step_until(link, has("online"))
    first.unplug()
    step_until(link, has("offline"))
    second = plug()
    step_until(link, lambda r: link.port is not None)
    second.write(frame[4:] + encode(CueStrike(), 1))
    reports = step_until(link, lambda r: any(type(x) is Strike for x in r))
    assert [type(r) for r in reports if type(r) is not Health] == [Strike]


def test_it_waits_for_the_path_to_appear_and_says_so_once(plug, clock, tmp_path):
    path = tmp_path / "ttyMCU"
    link = SerialLink(str(path), clock=clock, retry=0.0)
    reports = link.step() + link.step() + link.step()
    assert [(r.status, r.detail) for r in reports] == [("offline", f"waiting for {path} to appear")]
    mcu = plug()
    step_until(link, lambda r: link.port is not None)
    mcu.write(encode(CueStrike(), 0))
    assert kinds(step_until(link, lambda r: any(type(x) is Strike for x in r))) == ["Health", "Strike"]
    link.close()


def test_the_port_is_opened_for_one_process_alone(plug, clock):
    mcu = plug()
    first = SerialLink(str(mcu.path), clock=clock)
    first.step()
    assert first.port is not None
    second = SerialLink(str(mcu.path), clock=clock)
    (report,) = second.step()
    assert (report.status, report.detail.startswith(f"cannot open {mcu.path}: ")) == ("offline", True)
    assert "lock" in report.detail
    first.close()
    assert second.step() == [] and second.port is None  # it tries again 0.2 s later, by its clock
    clock.now += 0.2
    second.step()
    assert second.port is not None
    second.close()


def test_a_microcontroller_restarting_mid_stream_is_told(plug, clock):
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock)
    link.step()
    mcu.write(encode(Hello(1, (1, 0, 0), 7, HELLO_BOOT), 0) + encode(PocketDrop(7, "side_left", 2, 1), 1))
    step_until(link, lambda r: any(type(x) is Pocket for x in r))
    mcu.write(encode(Hello(1, (1, 0, 0), 8, HELLO_BOOT), 0) + encode(PocketDrop(8, "side_left", 5, 1), 1))
    reports = step_until(link, lambda r: any(type(x) is Pocket for x in r))
    assert statuses(reports) == ["restarted", "ok"]
    assert [(r.ball, r.pocket) for r in reports if type(r) is Pocket] == [(5, "side_left")]
    link.close()


def test_sending_with_no_port_open_says_so(tmp_path):
    link = SerialLink(str(tmp_path / "none"))
    assert link.send(Ping()) is False


@pytest.mark.parametrize("garbage", [b"\x7e\x09\x01\x00", random.Random(3).randbytes(64)], ids=["header", "noise"])
def test_garbage_on_the_line_is_skipped_and_counted(plug, clock, garbage):
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock)
    link.step()
    mcu.write(garbage + encode(CueStrike(), 0) + garbage + encode(CueStrike(), 1))
    reports = step_until(link, lambda r: sum(type(x) is Strike for x in r) == 2)
    errors = [r for r in reports if type(r) is Health and r.status == "errors"]
    assert errors and errors[0].detail.startswith(f"{errors[0].count} corrupt frames or garbage runs skipped so far")
    assert link.receiver.decoder.errors == 2
    assert [type(r) for r in reports if type(r) is not Health] == [Strike, Strike]
    link.close()


def test_a_step_that_does_not_wait_takes_every_byte_on_the_line_even_with_a_wake_pending(plug, clock):
    """A fence reads without waiting (``step(wait=False)``) after a ``wake`` cut the last read short; pyserial ends
    the read after a cancel empty, so the bytes that came before must be read all the same: a fence that says
    "heard" while a pocket waits unread would let the settle end the shot without it."""
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock, read_timeout=60.0)
    link.step()
    mcu.write(encode(Heartbeat(3, 0), 0))
    step_until(link, has("online"))
    mcu.write(encode(PocketDrop(3, "head_left", 4, 1), 1))
    on_the_line(link)
    link.wake()  # the fence's cut, with no read under way to take it
    assert [type(r) for r in link.step(wait=False) if type(r) is not Health] == [Pocket]
    link.close()


def on_the_line(link: SerialLink) -> None:
    """Wait until the bytes written reach the port's side (a pseudo-terminal passes them on a kernel worker)."""
    deadline = time.monotonic() + WAIT
    while not link.port.in_waiting:
        assert time.monotonic() < deadline, "the bytes written never reached the port"
        time.sleep(0.001)


def test_a_wake_cuts_a_read_waiting_for_bytes_short(plug, clock):
    """The read waits up to ``read_timeout`` for bytes (a quarter second: few wake-ups on a quiet line); a stop or a
    fence cannot wait that long. With a minute's timeout and a silent line, a wake from another thread ends it."""
    mcu = plug()
    link = SerialLink(str(mcu.path), clock=clock, read_timeout=60.0)
    link.step()
    mcu.write(encode(Heartbeat(3, 0), 0))
    step_until(link, has("online"))
    cut = threading.Timer(0.2, link.wake)
    cut.start()
    assert link.step() == []  # returned, nothing read: not a minute later (the suite would give up first)
    cut.join()
    link.close()
