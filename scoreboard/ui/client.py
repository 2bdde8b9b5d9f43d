"""The touchscreen's handle on the local API: the one client, its handlers run on Kivy's main thread.

Kivy widgets may only be touched on the main thread, and a read on the socket blocks, so the
client's reader thread hands every message to ``kivy_deliver``, which schedules the handler
for the next frame.
"""

from __future__ import annotations

from collections.abc import Callable


def kivy_deliver(call: Callable[[], None]) -> None:
    """Run ``call`` on Kivy's main thread at the next frame."""
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: call(), 0)
