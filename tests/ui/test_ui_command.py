"""``devetka ui`` (scoreboard/commands/ui.py) as its own process under Xvfb, beside a real ``devetka run``."""

from __future__ import annotations

import os
import queue
import subprocess
import threading

import pytest
from PIL import ImageGrab

from scoreboard.commands.main import parser
from scoreboard.sim.touchscreen import start_ui
from tests.live import TIMEOUT


def test_the_ui_process_waits_for_the_daemon_then_connects_and_stops_on_sigterm(display, daemon, tmp_path):
    daemon.stop()  # the UI first: it must wait for the daemon, not fail
    env = dict(os.environ, DISPLAY=display, KIVY_HOME=str(tmp_path / "kivy"))
    for name in ("KIVY_CLIPBOARD", "KIVY_NO_CONSOLELOG"):  # the suite's own choices: devetka ui makes its own
        env.pop(name, None)
    ui = start_ui(daemon.socket, size="640x400", env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in ui.stderr], daemon=True).start()
    heard: list[str] = []

    def said() -> str:
        while True:
            try:
                line = lines.get(timeout=TIMEOUT).decode().strip()
            except queue.Empty:
                raise AssertionError(f"devetka ui said nothing of the referee within {TIMEOUT} s") from None
            heard.append(line)
            if line.startswith("devetka ui:"):
                return line

    try:
        # Issue 14, bug 9: the window was black until every screen was built (a second or more); its first frame
        # is drawn at once now, saying the scoreboard is starting.
        assert said() == "devetka ui: window open, starting"
        first = ImageGrab.grab(xdisplay=display).convert("RGB")
        title = sum(count for count, pixel in first.getcolors(1 << 20) if pixel == (255, 212, 0))  # #ffd400
        assert title > 1000, f"the window's first frame shows no title ({title} px of its yellow)"
        assert said() == f"devetka ui: no referee on {daemon.socket}"
        daemon.start()
        assert said() == f"devetka ui: connected to {daemon.socket}"
        assert said() == "devetka ui: showing the referee's state (match None)"
        assert ui.poll() is None
    finally:
        ui.terminate()
        ui.communicate(timeout=TIMEOUT)
    assert ui.returncode is not None
    # Nothing alarming at start-up on a machine without xclip or xsel (the Pi's kiosk has neither).
    assert not [line for line in heard if "CRITICAL" in line or "Traceback" in line], heard


def test_a_bad_size_is_refused_with_what_was_expected(capsys):
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["ui", "--size", "big"])
    assert exit_.value.code == 2
    assert "expected WIDTHxHEIGHT in pixels, e.g. 800x480, got 'big'" in capsys.readouterr().err
    assert parser().parse_args(["ui", "--size", "1920x1080", "--fullscreen"]).size == (1920, 1080)
    assert parser().parse_args(["ui", "--note", "SIMULATED"]).note == "SIMULATED"
