"""A finger on the Kivy window: real touch events at a widget's place on screen, and what the screen shows.

A tap is a ``UnitTestTouch`` (Kivy's own test touch) posted through the event
loop at the widget's window coordinates, so it reaches the widget the way a
finger would: through the window, the screen manager and every parent. A
widget that is hidden, disabled or on another screen cannot be tapped, and
the helper says so instead of tapping through it.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

from tests.live import TIMEOUT

#: A wait's pause between frames: what it waits on (the daemon's answer, a state the client's thread hands to the
#: next frame) comes from another process or thread, which a wait spinning frames flat out starved of the CPU it
#: burnt (about 1,300 frames a test, a third of a core).
IDLE_S = 0.002


def screenshot_folder() -> Path:
    """Where screenshots go: ``DEVETKA_SCREENSHOTS`` (``scripts/screenshots.sh`` names docs/screenshots/),
    else a temporary folder: the suite never writes into the checkout."""
    global _FOLDER
    named = os.environ.get("DEVETKA_SCREENSHOTS")
    if named:
        return Path(named)
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="devetka-screenshots-"))
    return _FOLDER


_FOLDER: Path | None = None


class TouchClock:
    """The clock the app's touches are stamped on and its one-press guards measure with (``DevetkaApp``'s
    ``touch_clock``): ``time.time()`` plus the time the test skipped. A player's pause before the next tap is
    skipped, not waited out, so a test does not spend 0.3 s of real time on every screen it opens."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.time() + self.skipped

    def skip_to(self, moment: float) -> None:
        """Move the clock on to ``moment`` (never back)."""
        self.skipped += max(0.0, moment - self())


class Touchscreen:
    """The app's window as a player sees and touches it."""

    def __init__(self, app, window) -> None:
        self.app = app
        self.window = window
        assert isinstance(app.touch_clock, TouchClock), "build the app with touch_clock=TouchClock()"
        self.clock: TouchClock = app.touch_clock

    def frames(self, count: int = 1) -> None:
        from kivy.base import EventLoop

        for _ in range(count):
            EventLoop.idle()

    def wait_for(self, check, what: str, timeout: float = TIMEOUT):
        """Run frames until ``check()`` is true (returns its value); fail naming ``what`` and the screen."""
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {what} within {timeout} s; it shows {self.describe()}")
            self.frames()
            time.sleep(IDLE_S)

    @property
    def current(self) -> str:
        return self.app.manager.current

    def widget(self, id_: str, screen: str | None = None):
        """The widget with kv id ``id_`` on ``screen`` (default: the one shown), or of the root."""
        root = self.app.root
        if screen is None and id_ in root.ids:
            return root.ids[id_]
        ids = self.app.manager.get_screen(screen or self.current).ids
        assert id_ in ids, f"no widget {id_!r} on {self.describe()}"
        return ids[id_]

    def text(self, id_: str, screen: str | None = None) -> str:
        return self.widget(id_, screen).text

    def visible(self, widget) -> bool:
        """On the window, not transparent, not collapsed to nothing: a player can see it."""
        node = widget
        while node is not None and node is not self.window:
            if node.opacity == 0:
                return False
            node = node.parent
        return node is self.window and widget.width > 1 and widget.height > 1

    def tap(self, widget) -> None:
        """Touch down and up at the widget's centre, a frame apart, as a finger does: as a player would, after
        the screen's one-press guards (``SCREEN_CHANGE_GUARD_S`` after a tap changed the screen,
        ``REPEAT_GUARD_S`` after this button's last release) have let go: the pause is skipped on the touch clock."""
        from scoreboard.ui.touch import REPEAT_GUARD_S

        self.frames()
        assert self.visible(widget), f"cannot tap {widget!r}: it is not on the screen ({self.describe()})"
        assert not widget.disabled, f"cannot tap {getattr(widget, 'text', widget)!r}: it is disabled"
        ready = max(self.app.root.guard_until, getattr(widget, "released_at", 0.0) + REPEAT_GUARD_S)
        self.clock.skip_to(ready + 0.005)
        self.touch_at(*widget.to_window(*widget.center))
        if getattr(widget, "state", "normal") != "normal":  # Kivy holds a quick press down for min_state_time
            self.wait_for(lambda: widget.state == "normal", f"{getattr(widget, 'text', widget)!r} let go")

    def touch_at(self, x: float, y: float, hold_frames: int = 1, began: float | None = None) -> None:
        """A finger down and up at window pixel (x, y), with no wait for any guard: a double tap, as it comes.

        ``began``: when the finger came down on the touch clock (default: now), for a click spaced from the last by
        the test, however slowly this machine draws its frames."""
        from kivy.tests.common import UnitTestTouch

        touch = UnitTestTouch(x, y)
        touch.time_start = touch.time_update = self.clock() if began is None else began
        touch.touch_down()
        self.frames(hold_frames)
        touch.touch_up()
        self.frames()

    def tap_id(self, id_: str, screen: str | None = None) -> None:
        self.tap(self.widget(id_, screen))

    def tap_text(self, text: str) -> None:
        """Tap the one visible button that reads ``text`` on the screen shown."""
        matches = [w for w in self.app.manager.get_screen(self.current).walk()
                   if getattr(w, "text", None) == text and self.visible(w) and hasattr(w, "state")]
        assert len(matches) == 1, f"{len(matches)} visible buttons read {text!r} on {self.describe()}"
        self.tap(matches[0])

    def type_pin(self, pin: str = "0000") -> None:
        """Type the PIN on the settings screen's keypad and tap OK (the suite's daemons have PIN 0000)."""
        for key in pin:
            self.tap_text(key)
        self.tap_text("OK")

    def tap_key(self, key: str) -> None:
        """Tap a key of the on-screen keyboard (``Done``, ``Shift``, ``Delete``, ``Space`` or a letter)."""
        keys = [w for w in self.app.root.ids.keyboard.walk() if getattr(w, "key", None) == key]
        assert len(keys) == 1, f"no key {key!r} on the keyboard"
        self.tap(keys[0])

    def type(self, text: str) -> None:
        """Type into the focused field, as the (on-screen) keyboard does."""
        self.window.dispatch("on_textinput", text)
        self.frames()

    def balls(self, id_: str = "balls", screen: str | None = None) -> list[int]:
        """The numbers of the balls drawn in a ball row, left to right."""
        row = self.widget(id_, screen)
        return [int(ball.number) for ball in sorted(row.children, key=lambda w: w.x)]

    def ball(self, number: int, id_: str, screen: str | None = None):
        row = self.widget(id_, screen)
        (found,) = [ball for ball in row.children if ball.number == number]
        return found

    def cut(self) -> list[str]:
        """The texts on the screen shown that a player cannot read whole: lines dropped, words cut off, or the
        drawn text larger than its widget (what Kivy clips or spills over the next widget)."""
        from kivy.uix.label import Label

        cut = []
        for w in self.app.root.walk():
            if not isinstance(w, Label) or not w.text or not self.visible(w):
                continue
            w.texture_update()
            drawn = "".join(word.text for line in w._label._cached_lines for word in line.words)
            shown = _unmarked(w.text) if w.markup else w.text
            whole = "".join(drawn.split()) == "".join(shown.split())
            if not whole or w.texture_size[0] > w.width + 1 or w.texture_size[1] > w.height + 1:
                cut.append(w.text)
        return cut

    def describe(self) -> str:
        """The screen shown and its visible texts: the failure message of a wait."""
        texts = [w.text for w in self.app.root.walk() if getattr(w, "text", "") and self.visible(w)]
        return f"screen {self.current!r}: {texts}"

    def screenshot(self, name: str) -> Path:
        """Save the whole window as NAME-WxH.png in the screenshot folder."""
        self.frames(2)
        width, height = self.window.size
        path = screenshot_folder() / f"{name}-{width}x{height}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.app.root.export_to_png(str(path))
        return path


def _unmarked(text: str) -> str:
    """A Kivy markup text as it is drawn: its tags gone, its escapes said."""
    bare = re.sub(r"\[/?(b|i|u|s|sub|sup|color|size|font|ref|anchor)(=[^\]]*)?\]", "", text)
    return bare.replace("&bl;", "[").replace("&br;", "]").replace("&amp;", "&")


def cap_height(label) -> int:
    """The cap height of a label's text as drawn, in window pixels: the rows an ``H`` in its font and size fills."""
    from kivy.core.text import Label as CoreLabel

    h = CoreLabel(text="H", font_size=label.font_size, bold=label.bold, font_name=label.font_name)
    h.refresh()
    texture = h.texture
    pixels, (width, height) = texture.pixels, texture.size
    rows = [y for y in range(height) if any(pixels[(y * width + x) * 4 + 3] > 127 for x in range(width))]
    return rows[-1] - rows[0] + 1 if rows else 0
