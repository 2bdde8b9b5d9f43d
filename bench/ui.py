"""How soon does the touchscreen show a state change, how long does ``devetka ui`` take to start, what memory
does it take?

    python bench/ui.py [--quick] [--changes N] [--starts N]

Each part runs under an Xvfb of its own (800x480x24, rendered by Mesa's llvmpipe: no GPU here), against
``devetka run`` as a child process (tests/live.py's ``Daemon``, the settle timer at an hour):

(a) a state change to the screen: the app is built in this process into its window, and the event loop
    is pumped as ``App.run`` does (``EventLoop.idle``: the clock, then input, then a frame, at most 60 a
    second). A second client of the local API turns rack mode on and off, N times; each time is from
    just before the request is written to the first frame swapped (``Window.on_flip``) after the live
    screen's banner text changed. p50, p95 and max, in ms and in frames of 60 Hz.
(d) tap to screen: in the same app, a real touch (``kivy.tests.UnitTestTouch``, through the window and every
    parent, as the suite's touches) on the live screen's Racking button: from just before the finger lifts
    (the release sends the request) to the first frame swapped after the banner shows the daemon's answer.
    T taps, each after the button's one-press guard (150 ms) has let go. p50, p95 and max.
(e) a screen's first opening: in the same app, after (a) and (d), real touches open the More screen from the
    live screen, then the setup screen (New match) and the settings screen from More, each for the first time:
    from just before the finger lifts to the first frame swapped with that screen current. The app makes the
    screens not shown one a frame once its first state is shown (``make_ahead``); ``--no-make-ahead`` builds it
    without, so a first opening pays for making its screen in the tap's frame.
(f) the frames while the screens are made ahead: from the first state on the screen until every screen is made
    (one a frame, ``make_ahead``), the longest pass of the event loop (a touch that comes during a pass is read in
    the next: the most a tap in those frames waits beyond a frame's own), and how long the making took. Without
    ``make_ahead`` nothing is made.
(b) cold start: ``devetka ui`` spawned (``scoreboard.sim.touchscreen.start_ui``) to its stderr line "devetka ui:
    showing the referee's state", written at the first frame swapped with the state on it. K times.
(c) the resident memory of a ``devetka ui`` process (VmRSS, VmHWM from /proc/PID/status): once showing,
    and after N more state changes (rack mode on and off) have reached it.

Not pinned to a core: the UI, its X server and the daemon are three processes, as on the Pi (four cores).
Nothing here is asserted by the test suite but the output's shape.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoreboard.commands.ui import KIVY_ENV  # noqa: E402

os.environ.update(KIVY_ENV)  # (a) runs the app in this process: as devetka ui does

from bench._common import print_header  # noqa: E402
from tests.live import TIMEOUT, Daemon  # noqa: E402
from tests.ui.conftest import start_xvfb  # noqa: E402 (also sets Kivy's environment: no log, a fresh KIVY_HOME)

FRAME_MS = 1000 / 60


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def change_to_screen(socket_path: Path, changes: int, taps: int, make_ahead: bool = True
                     ) -> tuple[list[float], list[float], dict[str, float], tuple[float, float, int]]:
    """(a): ms from each request to the first frame swapped after the screen showed its state; (d): ms from
    each tap's release to the first frame swapped after the screen showed the daemon's answer; (e) the first
    openings; (f) the longest frame while the screens were made ahead, the ms the making took, the frames."""
    from kivy.base import EventLoop
    from kivy.config import Config

    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    for name, _ in Config.items("input"):
        Config.remove_option("input", name)
    from kivy.core.window import Window

    from scoreboard.ui.app import DevetkaApp
    from tests.live import Client

    EventLoop.ensure_window()
    app = DevetkaApp(socket_path=str(socket_path), **({} if make_ahead else {"make_ahead": False}))
    root = app.build()
    app.root = root
    Window.add_widget(root)
    app.connect()
    flips: list[float] = []
    Window.bind(on_flip=lambda *_args: flips.append(time.perf_counter()))
    deadline = time.monotonic() + TIMEOUT
    while not app.view.has_match:
        EventLoop.idle()
        if time.monotonic() > deadline:
            raise SystemExit("bench/ui.py: the app never showed the match")
    making = ahead(app) if make_ahead else (0.0, 0.0, 0)
    banner = app.manager.get_screen("live").ids.warning
    shown: list[float] = []
    banner.bind(text=lambda *_args: shown.append(time.perf_counter()))
    table = Client(socket_path)
    table.line()  # the state on connecting
    latencies = []
    for n in range(changes):
        on = n % 2 == 0
        for _ in range(3):
            EventLoop.idle()  # the frame of the last change is out: nothing pending
        shown.clear()
        flips.clear()
        start = time.perf_counter()
        answer = table.request({"cmd": "rack_mode", "on": on})
        assert answer["ok"], answer
        while not shown or not [t for t in flips if t >= shown[0]]:
            EventLoop.idle()
            if time.perf_counter() - start > TIMEOUT:
                raise SystemExit("bench/ui.py: a change never reached the screen")
        assert banner.text.startswith("RACKING") == on
        latencies.append((min(t for t in flips if t >= shown[0]) - start) * 1000)
    table.close()
    tapped = tap_to_screen(app, Window, banner, shown, flips, taps)
    opened = first_openings(app, Window, flips)
    app.dispatch("on_stop")
    return latencies, tapped, opened, making


def ahead(app) -> tuple[float, float, int]:
    """(f): pump the event loop from the first state shown until every screen is made; the longest pass of the
    loop (ms: a touch waits for the pass it came in to end before the next reads it), the ms until the last screen
    was made, and the passes (frames) it took."""
    from kivy.base import EventLoop

    manager = app.manager
    passes = [time.perf_counter()]
    while any(not manager.made(name) for name in manager.makeable):
        EventLoop.idle()
        passes.append(time.perf_counter())
        if passes[-1] - passes[0] > TIMEOUT:
            raise SystemExit("bench/ui.py: the screens were never all made")
    gaps = [(b - a) * 1000 for a, b in zip(passes, passes[1:], strict=False)]
    return max(gaps, default=0.0), (passes[-1] - passes[0]) * 1000, len(gaps)


def first_openings(app, window, flips: list[float]) -> dict[str, float]:
    """(e): ms from the release of a button that opens a screen, opened for the first time, to the first frame
    swapped with it current."""
    from kivy.base import EventLoop
    from kivy.tests.common import UnitTestTouch

    from scoreboard.ui.touch import REPEAT_GUARD_S

    opened = {}
    for from_screen, button_id, target in (("live", "more", "more"), ("more", "new_match", "setup"),
                                           ("more", "settings", "settings")):
        if app.manager.current != from_screen:
            app.go(from_screen)
        button = app.manager.get_screen(from_screen).ids[button_id]
        ready = max(app.root.guard_until, button.released_at + REPEAT_GUARD_S) + 0.01
        while time.time() < ready:
            EventLoop.idle()
        for _ in range(3):
            EventLoop.idle()
        touch = UnitTestTouch(*button.to_window(*button.center))
        touch.touch_down()
        EventLoop.idle()
        flips.clear()
        start = time.perf_counter()
        touch.touch_up()
        while app.manager.current != target or not flips:
            if app.manager.current == target:
                flips.clear()  # a frame swapped before the screen changed does not count
            EventLoop.idle()
            if time.perf_counter() - start > TIMEOUT:
                raise SystemExit(f"bench/ui.py: the {target} screen never opened")
        opened[target] = (flips[0] - start) * 1000
    return opened


def tap_to_screen(app, window, banner, shown: list[float], flips: list[float], taps: int) -> list[float]:
    """(d): a finger on the Racking button, its release to the frame with the daemon's answer on it."""
    from kivy.base import EventLoop
    from kivy.tests.common import UnitTestTouch

    from scoreboard.ui.touch import REPEAT_GUARD_S

    button = app.manager.get_screen("live").ids.rack_mode
    latencies = []
    for _ in range(taps):
        on = not banner.text.startswith("RACKING")
        ready = max(app.root.guard_until, button.released_at + REPEAT_GUARD_S) + 0.01
        while time.time() < ready:
            EventLoop.idle()
        touch = UnitTestTouch(*button.to_window(*button.center))
        touch.touch_down()
        EventLoop.idle()
        shown.clear()
        flips.clear()
        start = time.perf_counter()
        touch.touch_up()
        while not shown or not [t for t in flips if t >= shown[0]]:
            EventLoop.idle()
            if time.perf_counter() - start > TIMEOUT:
                raise SystemExit("bench/ui.py: a tap's answer never reached the screen")
        assert banner.text.startswith("RACKING") == on, banner.text
        latencies.append((min(t for t in flips if t >= shown[0]) - start) * 1000)
    return latencies


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0])
    return out


def start_process(socket_path: Path, display: str, home: str) -> tuple[subprocess.Popen, float, queue.Queue]:
    """(b): spawn ``devetka ui``; seconds until it says the state is drawn."""
    from scoreboard.sim.touchscreen import start_ui

    env = dict(os.environ, DISPLAY=display, KIVY_HOME=home)
    lines: queue.Queue = queue.Queue()
    start = time.perf_counter()
    ui = start_ui(socket_path, size="800x480", env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    threading.Thread(target=lambda: [lines.put(line) for line in ui.stderr], daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=TIMEOUT).decode()
        except queue.Empty:
            ui.kill()
            raise SystemExit("bench/ui.py: devetka ui never said it was showing the state") from None
        if line.startswith("devetka ui: showing"):
            return ui, time.perf_counter() - start, lines


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="few changes and starts (the suite's check)")
    options.add_argument("--changes", type=int, default=300, help="state changes timed in (a) and sent in (c)")
    options.add_argument("--starts", type=int, default=5, help="cold starts timed in (b)")
    options.add_argument("--taps", type=int, default=200, help="taps timed in (d)")
    options.add_argument("--no-make-ahead", dest="make_ahead", action="store_false",
                         help="(a), (d), (e) in an app that makes no screen before it is opened")
    args = options.parse_args()
    if args.quick:
        args.changes, args.starts, args.taps = 10, 1, 5
    print_header("not pinned: the UI, Xvfb and the daemon are separate processes, as on the Pi")
    xvfb, display = start_xvfb()
    os.environ["DISPLAY"] = display
    try:
        with tempfile.TemporaryDirectory(prefix="devetka-bench-ui-") as folder:
            daemon = Daemon(Path(folder))
            daemon.start()
            try:
                client = daemon.client()
                assert client.request({"cmd": "new_match"})["ok"]
                client.close()
                report(daemon.socket, display, folder, args)
            finally:
                daemon.kill()
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=TIMEOUT)
    return 0


def report(socket_path: Path, display: str, folder: str, args: argparse.Namespace) -> None:
    from tests.live import Client

    starts, ui = [], None
    for n in range(args.starts):
        ui, seconds, lines = start_process(socket_path, display, os.path.join(folder, f"kivy{n}"))
        starts.append(seconds)
        if n < args.starts - 1:
            ui.terminate()
            ui.wait(timeout=TIMEOUT)
    print(f"(b) cold start, spawn to the state drawn: min {min(starts):.2f} s, median "
          f"{statistics.median(starts):.2f} s, max {max(starts):.2f} s ({len(starts)} starts)")
    at_start = memory(ui.pid)
    table = Client(socket_path)
    table.line()
    for n in range(args.changes):
        assert table.request({"cmd": "rack_mode", "on": n % 2 == 0})["ok"]
    time.sleep(2.0)  # let the UI catch up with the last broadcasts: it says nothing per frame
    after = memory(ui.pid)
    table.close()
    ui.terminate()
    ui.wait(timeout=TIMEOUT)
    print(f"(c) devetka ui resident memory: {at_start['VmRSS'] / 1024:.1f} MiB once showing; "
          f"{after['VmRSS'] / 1024:.1f} MiB after {args.changes} more changes (peak {after['VmHWM'] / 1024:.1f} MiB)")
    latencies, tapped, opened, making = change_to_screen(socket_path, args.changes, args.taps, args.make_ahead)
    p50, p95, worst = statistics.median(latencies), percentile(latencies, 0.95), max(latencies)
    print(f"(a) state change to the screen: p50 {p50:.1f} ms ({p50 / FRAME_MS:.2f} frames), p95 {p95:.1f} ms "
          f"({p95 / FRAME_MS:.2f} frames), max {worst:.1f} ms ({len(latencies)} changes, frames of 60 Hz)")
    p50, p95, worst = statistics.median(tapped), percentile(tapped, 0.95), max(tapped)
    print(f"(d) tap to screen: p50 {p50:.1f} ms ({p50 / FRAME_MS:.2f} frames), p95 {p95:.1f} ms "
          f"({p95 / FRAME_MS:.2f} frames), max {worst:.1f} ms ({len(tapped)} taps; goal p95 within 100 ms)")
    firsts = ", ".join(f"{name} {ms:.1f} ms" for name, ms in opened.items())
    print(f"(e) a screen's first opening, tap to screen: {firsts}"
          + ("" if args.make_ahead else " (no screen made ahead)"))
    if args.make_ahead:
        longest, took, frames = making
        print(f"(f) screens made ahead after the first state: the longest frame {longest:.1f} ms "
              f"({longest / FRAME_MS:.2f} frames of 60 Hz), all made in {took:.0f} ms over {frames} frames")


if __name__ == "__main__":
    sys.exit(main())
