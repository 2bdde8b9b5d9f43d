"""The fake microcontroller (firmware_bridge/simulator.py): its timing, its frames, its pseudo-terminal, its command."""

from __future__ import annotations

import io
import json
import os
import random
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import Arm, ConfigState, Configure, CushionHit, Ping, PocketDrop, Settings
from firmware_bridge.simulator import Mcu, PtyMcu, point_link, schedule
from scoreboard.core.inputs import Cushion, FirstContact, Pocket, Settle, Strike
from scoreboard.sensing.interface import Health
from tests.commands.test_main import run

from .conftest import WAIT

# --- when ---------------------------------------------------------------------------------------------


def test_inputs_are_spaced_by_their_t_over_the_speed_and_other_inputs_are_not_played():
    log = [Strike(t=100.0), FirstContact(3, t=100.5), Cushion(3, "foot", t=101.0), Settle(t=103.0),
           Pocket(3, "foot_left", t=104.0)]
    assert [(offset, type(item)) for offset, item in schedule(log, speed=4.0)] == [
        (0.0, Strike), (0.25, Cushion), (1.0, Pocket)]


def test_inputs_with_no_t_are_10_ms_apart_and_time_never_runs_backwards():
    log = [Strike(), Cushion(), Pocket(1, t=50.0), Strike(t=40.0), Cushion(t=41.0)]
    assert [offset for offset, _ in schedule(log, speed=100.0)] == [0.0, 0.01, 0.02, 0.02, 0.03]


def test_the_speed_must_be_positive():
    with pytest.raises(ValueError):
        schedule([Strike()], speed=0)


# --- what it sends ----------------------------------------------------------------------------------------


def test_each_pocket_frame_carries_its_pockets_count_since_boot():
    mcu = Mcu(boot_id=9)
    frames = [mcu.play(item) for item in (Pocket(1, "head_left"), Pocket(None, "head_left"),
                                          Pocket(0), Pocket(2, "side_right"), Cushion(None, "head"))]
    assert frames == [PocketDrop(9, "head_left", 1, 1), PocketDrop(9, "head_left", None, 2),
                      PocketDrop(9, None, 0, 0), PocketDrop(9, "side_right", 2, 1), CushionHit("head", None)]
    assert mcu.counts == [2, 0, 0, 1, 0, 0]


def test_it_numbers_its_frames_and_answers_configure():
    mcu = Mcu(boot_id=9)
    assert [mcu.frame(Ping())[0] for _ in range(257)][-2:] == [255, 0]
    assert mcu.answer(Configure(Settings(heartbeat_ms=100))) == [ConfigState(Settings(heartbeat_ms=100))]
    assert mcu.answer(Arm(False)) == [] and not mcu.armed
    assert mcu.play(Strike()) is not None and mcu.armed


# --- the pseudo-terminal ---------------------------------------------------------------------------------


def test_the_link_replaces_a_stale_symlink_but_never_a_file(tmp_path):
    link = tmp_path / "mcu"
    link.symlink_to("/dev/pts/does-not-exist")
    point_link(str(link), "/dev/null")
    assert os.readlink(link) == "/dev/null"
    regular = tmp_path / "file"
    regular.write_text("keep me")
    with pytest.raises(FileExistsError):
        point_link(str(regular), "/dev/null")
    assert regular.read_text() == "keep me"


def test_closing_removes_its_symlink_and_the_host_sees_an_unplug(tmp_path):
    sim = PtyMcu(str(tmp_path / "mcu"), boot_id=1)
    link = SerialLink(str(tmp_path / "mcu"), retry=0.0)
    link.step()
    assert link.port is not None
    sim.close()
    assert not os.path.lexists(tmp_path / "mcu")
    deadline = time.monotonic() + WAIT
    reports: list = []
    while not any(type(r) is Health and r.detail.startswith("unplugged") for r in reports):
        assert time.monotonic() < deadline, reports
        reports += link.step()


def play_to_a_host(tmp_path: Path, log, **options) -> tuple[list, PtyMcu, str]:
    """Play ``log`` on a pseudo-terminal in a thread while a ``SerialLink`` reads it here; reports and trace."""
    trace = io.StringIO()
    sim = PtyMcu(str(tmp_path / "mcu"), boot_id=0xAB, trace=trace, **options)
    result: dict = {}

    def simulate():
        with sim:
            result["host"] = sim.wait_for_host(WAIT)
            result["played"] = sim.play(schedule(log, speed=1000.0))
            result["drained"] = sim.drain(WAIT)

    thread = threading.Thread(target=simulate)
    thread.start()
    link = SerialLink(str(tmp_path / "mcu"), retry=0.0)
    reports: list = []
    deadline = time.monotonic() + 2 * WAIT
    while thread.is_alive() or link.port is not None:  # until the simulator closed and the host saw it
        assert time.monotonic() < deadline, reports
        reports += link.step()
        if not thread.is_alive() and any(type(r) is Health and r.detail.startswith("unplugged") for r in reports):
            break
    thread.join()
    link.close()
    assert result == {"host": True, "played": len(schedule(log)), "drained": True}
    return reports, sim, trace.getvalue()


LOG = [Strike(t=1.0), Cushion(0, "head", t=1.2), Cushion(None, None, t=1.3), Pocket(5, "foot_left", t=1.9),
       Pocket(0, t=2.0), Strike(t=9.0), Pocket(None, "side_left", t=9.5)]


def test_the_host_reads_exactly_the_sensor_inputs_played_and_the_trace_tells_each_frame(tmp_path):
    reports, sim, trace = play_to_a_host(tmp_path, LOG)
    got = [(type(r), getattr(r, "ball", None), getattr(r, "pocket", None), getattr(r, "rail", None))
           for r in reports if type(r) is not Health]
    assert got == [(type(i), getattr(i, "ball", None), getattr(i, "pocket", None), getattr(i, "rail", None))
                   for i in LOG]
    lines = [json.loads(line) for line in trace.splitlines()]
    assert all(set(line) == {"seq", "type", "ball", "t"} for line in lines)
    assert [line["seq"] for line in lines] == list(range(len(lines)))
    assert lines[0]["type"] == "hello"
    played = [(line["type"], line["ball"]) for line in lines if line["type"] in ("strike", "cushion", "pocket")]
    assert played == [(i.TYPE, getattr(i, "ball", None)) for i in LOG]
    assert [line["t"] for line in lines] == sorted(line["t"] for line in lines)
    assert [r.status for r in reports if type(r) is Health and r.subject == "link"][:2] == ["online", "ok"]


def test_garbage_between_frames_loses_nothing_and_the_seed_repeats_it(tmp_path):
    first, sim, _ = play_to_a_host(tmp_path, LOG * 20, garbage=0.3, rng=random.Random(5))
    assert sim.bursts > 0
    with PtyMcu(str(tmp_path / "a"), rng=random.Random(5)) as a, PtyMcu(str(tmp_path / "b"), rng=random.Random(5)) as b:
        assert a.mcu.boot_id == b.mcu.boot_id  # --seed fixes the boot id too
    assert [type(r) for r in first if type(r) is not Health] == [type(i) for i in LOG * 20]
    assert any(type(r) is Health and r.status == "errors" for r in first)


# --- the command ----------------------------------------------------------------------------------------------


def test_simulate_mcu_refuses_what_it_cannot_play(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"type":"strike"}\n{"type":"pocket","ball":12}\n')
    result = run("simulate-mcu", "--link", str(tmp_path / "mcu"), "--play", str(log))
    assert result.returncode == 2
    assert b"line 2: pocket ball must be 0-9 or null, not 12" in result.stderr
    missing = run("simulate-mcu", "--link", str(tmp_path / "mcu"), "--play", str(tmp_path / "none"))
    assert missing.returncode == 2 and b"cannot read" in missing.stderr
    log.write_text('{"type":"strike"}\n')
    fast = run("simulate-mcu", "--link", str(tmp_path / "mcu"), "--play", str(log), "--speed", "0")
    assert fast.returncode == 2 and b"--speed must be above 0" in fast.stderr
    (tmp_path / "file").write_text("")
    taken = run("simulate-mcu", "--link", str(tmp_path / "file"), "--play", str(log))
    assert taken.returncode == 2 and b"is not a symlink" in taken.stderr


def test_simulate_mcu_gives_up_when_no_host_comes(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"type":"strike"}\n')
    result = run("simulate-mcu", "--link", str(tmp_path / "mcu"), "--play", str(log), "--wait", "0.3")
    assert result.returncode == 1
    assert b"no host pinged within 0.3 s" in result.stderr
    assert not os.path.lexists(tmp_path / "mcu")
