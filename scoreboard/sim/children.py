"""Processes the simulation starts (brokers, NATS nodes, tables) end with the process that started them.

Without it a ``devetka venue-demo`` or a test that is killed (SIGKILL: no handler runs) leaves its brokers and
tables running for good. Linux's parent-death signal ends each child with SIGTERM as soon as its parent is gone.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """``preexec_fn`` for ``subprocess.Popen``: this child gets SIGTERM when its parent dies (Linux only)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the parent's own clean-up is all there is


def end(process: subprocess.Popen | None, timeout: float) -> None:
    """End a child: SIGTERM, then SIGKILL if it lingers past ``timeout`` seconds; nothing if it has ended."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
