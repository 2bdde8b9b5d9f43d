"""Kivy under Xvfb for the UI tests: one X server and one window per test session, a fresh app per test.

Kivy reads its environment when first imported and opens one window per
process, so the environment is set here, at collection, before any test
module imports it; the window is made once (``kivy_window``) and each test
builds a new ``DevetkaApp`` into it against a real ``devetka run``.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from tests.live import TIMEOUT
from tests.served import valid
from tests.ui.touchscreen import TouchClock, Touchscreen

SCREEN = (1920, 1080)  # the largest window the tests open: the TV layout
KIVY_HOME = tempfile.mkdtemp(prefix="devetka-kivy-home-")
atexit.register(shutil.rmtree, KIVY_HOME, True)  # an xdist worker imports this file even if it runs no UI test
# KIVY_HOME is a fresh folder, so Kivy's default config: nothing of the machine's ~/.kivy. The clock is
# devetka ui's own (command.KIVY_ENV). The shot clock's tones go to SDL's silent audio driver: a machine with a
# sound card must not beep through the suite (tests/ui/test_sound.py hears them through the disk driver).
os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", KIVY_NO_FILELOG="1", KIVY_HOME=KIVY_HOME,
                  KCFG_KIVY_KIVY_CLOCK="interrupt", KIVY_CLIPBOARD="sdl2,dummy", SDL_AUDIODRIVER="dummy")


def start_xvfb() -> tuple[subprocess.Popen, str]:
    """An X server on a free display (Xvfb picks it and writes it to a pipe: no race for a number)."""
    read_end, write_end = os.pipe()
    try:
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0",
                                 f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
                                pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    deadline = time.monotonic() + TIMEOUT
    number = b""
    with os.fdopen(read_end, "rb") as pipe:
        while not number.endswith(b"\n"):
            chunk = pipe.read(1)
            if not chunk:
                break
            number += chunk
            assert time.monotonic() < deadline, "Xvfb did not say its display number"
    if not number.strip().isdigit():
        xvfb.kill()
        raise AssertionError(f"Xvfb did not start: {xvfb.communicate(timeout=TIMEOUT)[1].decode()[-2000:]}")
    return xvfb, ":" + number.decode().strip()


@pytest.fixture(scope="session")
def kivy_window():
    """The one Kivy window of this process, 800x480, on its own Xvfb; no input but the tests' touches; its frames
    run (the clock, layout, touches) but not drawn on the X screen."""
    xvfb, display = start_xvfb()
    os.environ["DISPLAY"] = display
    try:
        from kivy.config import Config

        Config.set("graphics", "width", "800")
        Config.set("graphics", "height", "480")
        for name, _ in Config.items("input"):
            Config.remove_option("input", name)  # the X mouse must not touch the screens
        from kivy.base import EventLoop
        from kivy.core.window import Window

        EventLoop.ensure_window()
        Window.close = lambda *args: None
        # Frames are neither drawn into the window's buffer (on_draw) nor swapped onto the X screen: nothing in this
        # process reads either (a screenshot renders the root into a framebuffer of its own, export_to_png, so every
        # test that looks at pixels still draws them; touches come through Kivy's input). On Mesa's llvmpipe the swap
        # cost 80 ms a frame at 800x480 and 330 ms at 1920x1080, and drawing the frames a third of the touchscreen
        # tests' CPU time. The tests that read the X screen run devetka ui in a process of its own (``display``).
        Window.flip = lambda: None
        Window.on_draw = lambda: None
        # What the process holds by now (Kivy, the window, the collected tests) lives until it ends: frozen out of the
        # garbage collector's sight, so the full collection that frees an earlier test's app (about 150,000 objects in
        # cycles, one or two collections a test) does not walk these 200,000-odd objects each time.
        gc.collect()
        gc.freeze()
        yield Window
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=TIMEOUT)
        shutil.rmtree(KIVY_HOME, ignore_errors=True)


@pytest.fixture
def display():
    """An X server of the test's own, for a process of its own (``devetka ui``, ``devetka demo``)."""
    xvfb, number = start_xvfb()
    yield number
    xvfb.terminate()
    xvfb.wait(timeout=TIMEOUT)


class Table:
    """The table's sensors: inputs sent to the daemon over the local API, as ``devetka run``'s sources would."""

    def __init__(self, daemon) -> None:
        self.client = daemon.client()

    def play(self, *inputs: dict) -> dict:
        for item in inputs:
            answer = self.client.request(item)
            assert answer["ok"], (item, answer)
        return answer["state"]


@pytest.fixture
def size():
    """The window size: the Pi's 7" touchscreen unless a test asks for another."""
    return (800, 480)


@pytest.fixture
def screen(kivy_window, daemon, size, tmp_path):
    from kivy.app import App

    from scoreboard.ui.app import DevetkaApp

    app = DevetkaApp(socket_path=str(daemon.socket), touch_clock=TouchClock(),
                     last_language=tmp_path / "last-language",  # not the session's Kivy home: a test's own
                     make_ahead=False)  # a screen is made when the test opens it, never by how far a frame got
    kivy_window.size = size
    root = app.build()
    app.root = root
    kivy_window.add_widget(root)
    app.connect()
    touch = Touchscreen(app, kivy_window)
    touch.wait_for(lambda: app.view.connected, "the referee's state")
    yield touch
    if app.state is not None:
        valid("state", app.state)  # the last state the touchscreen drew from fits the contract (tests/served.py)
    app.dispatch("on_stop")  # also lets go of the app in kv's `app` (ProxyApp caches it until on_stop)
    kivy_window.remove_widget(root)
    App._running_app = None


@pytest.fixture
def table(daemon):
    t = Table(daemon)
    yield t
    t.client.close()
