"""The daemon's settle loop (scoreboard/daemon/serve.py) when the daemon itself is starved: ``devetka run`` stopped
outright (SIGSTOP) in mid-shot while a real microcontroller (the simulator on a pseudo-terminal) goes on."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import threading
import time

import orjson
import pytest

from firmware_bridge.simulator import PtyMcu
from scoreboard.core.inputs import Cushion, Pocket, Strike
from tests.live import DEVETKA, TIMEOUT, Daemon

SETTLE_S = 0.5


def broadcasts(client) -> queue.Queue:
    states: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            while True:
                states.put(client.broadcast())
        except (OSError, ValueError):
            pass

    threading.Thread(target=read, daemon=True).start()
    return states


def until(states: queue.Queue, mcu: PtyMcu, ready) -> dict:
    """The first state broadcast that is ``ready``, the microcontroller answering the daemon meanwhile."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        assert time.monotonic() < deadline, "the daemon did not get there"
        try:
            state = states.get_nowait()
        except queue.Empty:
            mcu.idle(time.monotonic() + 0.01)
            continue
        if ready(state):
            return state


@pytest.mark.parametrize("strike_sensed", [True, False])
def test_a_daemon_stopped_past_the_settle_deadline_reads_the_ball_that_dropped_in_time_before_it_ends_the_shot(
        tmp_path, strike_sensed):
    """Issue 28: the ball drops 0.2 s after the cushion, inside the quiet period, while the daemon is stopped for
    four settle times; woken past the deadline, its settle timer used to end the shot before the serial source had
    read the pocket (the pocket then amended the shot as a slow ball, or, with no strike sensor, began the next)."""
    link = tmp_path / "mcu"
    daemon = Daemon(tmp_path, settle_after=SETTLE_S, config=f'[sensors.serial]\nport = "{link}"\n')
    with PtyMcu(str(link), boot_id=0x57A4) as mcu:
        daemon.start()
        try:
            assert mcu.wait_for_host(TIMEOUT)
            client = daemon.client()
            start = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
                     "options": {"strike_sensed": strike_sensed}}
            assert client.request({"cmd": "new_match", "match_start": start})["ok"]
            states = broadcasts(client)
            if strike_sensed:
                mcu.send(mcu.mcu.play(Strike()))
                until(states, mcu, lambda state: state["seq"] == 1)
            mcu.send(mcu.mcu.play(Cushion(ball=2, rail="head")))
            until(states, mcu, lambda state: state["seq"] == (2 if strike_sensed else 1))
            os.kill(daemon.process.pid, signal.SIGSTOP)
            try:
                mcu.idle(time.monotonic() + 0.2)
                mcu.send(mcu.mcu.play(Pocket(ball=3, pocket="foot_left")))
                mcu.idle(time.monotonic() + 4 * SETTLE_S)
            finally:
                os.kill(daemon.process.pid, signal.SIGCONT)
            last = 4 if strike_sensed else 3  # [strike], cushion, pocket, settle
            over = until(states, mcu, lambda state: state["seq"] >= last and not state["shot_in_progress"])
            client.sock.shutdown(socket.SHUT_RDWR)  # the reading thread ends; then the stream may close
            client.close()
        finally:
            daemon.kill()
    exported = subprocess.run([DEVETKA, "export", "--store", str(daemon.store)], capture_output=True, check=True)
    stored = [orjson.loads(line)["type"] for line in exported.stdout.splitlines()][1:]
    assert stored == ["strike", "cushion", "pocket", "settle"][0 if strike_sensed else 1:]
    assert over["seq"] == last and over["last_verdict"]["shot"] == 1
