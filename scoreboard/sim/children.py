"""Processes the simulation starts (brokers, NATS nodes, tables) end with the process that started them.

Without it a ``devetka venue-demo`` or a test that is killed (SIGKILL: no handler runs) leaves its brokers and
tables running for good. Linux's parent-death signal ends each child with SIGTERM as soon as its parent is gone.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import time

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """``preexec_fn`` for ``subprocess.Popen``: this child gets SIGTERM when its parent dies (Linux only)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the parent's own clean-up is all there is


def end(process: subprocess.Popen | None, timeout: float, *, again_every: float | None = None) -> None:
    """End a child: SIGTERM, then SIGKILL if it lingers past ``timeout`` seconds; nothing if it has ended.

    ``again_every``: SIGTERM again at that interval until then, for a program that can lose one (Mosquitto 2.0.11
    does, just after it says it is running: 1 stop in about 4,300 right after a start lingered until killed)."""
    if process is None or process.poll() is not None:
        return
    deadline = time.monotonic() + timeout
    while True:
        process.terminate()
        try:
            process.wait(timeout=min(again_every or timeout, max(deadline - time.monotonic(), 0.0)))
            return
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                break
    process.kill()
    process.wait()
