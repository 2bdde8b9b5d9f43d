"""What the benchmarks share: running on one core, so the figures are one core's."""

from __future__ import annotations

import os


def pin_to_one_core() -> str:
    """Run on CPU 0 only (child processes inherit it); says what was done."""
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {0})
            return "pinned to CPU 0 with os.sched_setaffinity"
        except OSError as error:
            return f"not pinned ({error.strerror})"
    return "not pinned (no os.sched_setaffinity on this system)"
