"""One press is one action: the touchscreen's guards against a double tap landing twice.

A finger on a 7" glass bounces, and a player taps again when the screen is slow: a button presses once per finger
(``OnePress``), and a touch beginning just after a tap changed the screen is not delivered to the new one
(``GuardedRoot``, the window's root). Both measure on ``touch_time``.
"""

from __future__ import annotations

import time
from typing import Any

from kivy.app import App
from kivy.uix.floatlayout import FloatLayout

#: One press is one action: a touch that begins this soon after a tap changed the screen is not delivered to the
#: new screen (a double tap must not land on what appears under the finger) ...
SCREEN_CHANGE_GUARD_S = 0.3
#: ... a screen change this soon after a finger left the glass counts as made by that tap ...
TAP_CAUSE_S = 1.0
#: ... and a button presses again only once released, and this long after its release.
REPEAT_GUARD_S = 0.15


def touch_time() -> float:
    """Now on the clock touches are stamped on (``touch.time_start``): Kivy's ``time.time()``, or the running app's
    ``touch_clock`` (a test's, which skips the guards' waits instead of waiting them out)."""
    return getattr(App.get_running_app(), "touch_clock", time.time)()



class OnePress:
    """A button pressed once per finger: not again while a finger is on it, nor within ``REPEAT_GUARD_S`` of
    its release (a double click on the PIN keypad types one digit)."""

    def __init__(self, **kwargs: Any) -> None:
        self.released_at = 0.0
        self._finger = None
        super().__init__(**kwargs)

    def on_touch_down(self, touch: Any) -> bool:
        if self.collide_point(*touch.pos) and not self.disabled:
            if self._finger is not None or touch.time_start - self.released_at < REPEAT_GUARD_S:
                return True  # swallowed: the same press again
            handled = super().on_touch_down(touch)
            if handled:
                self._finger = touch.uid
            return handled
        return super().on_touch_down(touch)

    def on_touch_up(self, touch: Any) -> bool:
        if touch.uid == self._finger:
            self._finger = None
            self.released_at = touch_time()
        return super().on_touch_up(touch)



class GuardedRoot(FloatLayout):
    """The window's root: drops a touch that begins within ``SCREEN_CHANGE_GUARD_S`` of a screen change made by
    a tap (the second click of a double click, which would land on the new screen), with its moves and release.

    A screen changed by the table (a sensor's input) is not guarded: nobody's finger caused it.
    """

    def __init__(self, **kwargs: Any) -> None:
        self.released_at = 0.0
        self.guard_until = 0.0
        """Touches beginning before this (``touch_time``) are not delivered."""
        self._dropped: set = set()
        super().__init__(**kwargs)

    def screen_changed(self) -> None:
        now = touch_time()
        if now - self.released_at < TAP_CAUSE_S:
            self.guard_until = now + SCREEN_CHANGE_GUARD_S

    def on_touch_down(self, touch: Any) -> bool:
        if touch.time_start < self.guard_until:
            self._dropped.add(touch.uid)
            return True
        return super().on_touch_down(touch)

    def on_touch_move(self, touch: Any) -> bool:
        if touch.uid in self._dropped:
            return True
        return super().on_touch_move(touch)

    def on_touch_up(self, touch: Any) -> bool:
        if touch.uid in self._dropped:
            self._dropped.discard(touch.uid)
            return True
        self.released_at = touch_time()  # before the handlers run: a screen they open is this tap's doing
        return super().on_touch_up(touch)
