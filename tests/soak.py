"""How many times a soak test repeats its fault: a few in the suite, its full count in ``scripts/soak.sh``.

A test that kills a process a hundred times proves no more in every run of the suite than twenty times do, and
costs five times as long. ``scripts/soak.sh`` sets ``DEVETKA_SOAK=1`` and runs the tests marked ``soak`` at full
size; docs/reliability.md keeps the figures it gave.
"""

from __future__ import annotations

import os


def repeats(suite: int, full: int) -> int:
    """``full`` under ``scripts/soak.sh`` (``DEVETKA_SOAK=1``), else ``suite``."""
    return full if os.environ.get("DEVETKA_SOAK") == "1" else suite
