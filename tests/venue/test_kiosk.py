"""The TV's kiosk unit (deploy/systemd/devetka-board.service) booted for real: its ``ExecStart``, read from the unit
itself, runs cage (Debian's 0.1.4, wlroots 0.15) with Chromium on Wayland, against the staged venue broker serving
the board, and the picture cage composes is taken with grim (the wlr-screencopy protocol) and compared with the
board as Chromium draws it headless: what a person at the TV would see.

What the check keeps of the unit: ``ExecStart`` word for word (no DevTools port added: the picture is the check),
a user that is not root (``User=``; cage refuses to run as root) with its own ``HOME`` (``Environment=HOME``, the
unit's StateDirectory) and a runtime directory for the Wayland socket (pam_systemd's /run/user/UID). What it
replaces: the seat. ``PAMName=login``, ``TTYPath=/dev/tty1`` and ``StandardInput=tty-fail`` give cage the TV's
DRM output and the input devices through logind on a real box; here there is no tty1 nor GPU, so wlroots runs its
headless backend with the pixman renderer (``WLR_BACKENDS=headless``, ``WLR_RENDERER=pixman``,
``WLR_LIBINPUT_NO_DEVICES=1``).

Two headless outputs, not one: cage 0.1.4 scans a fullscreen client's buffer out directly when it is the size of
the output (its count of the view's surfaces never counts: ``n++`` on the pointer), and on the headless backend
that succeeds for Chromium's shared-memory buffers, so nothing is composed and screencopy returns the last
composed frame (Chromium's first, empty 532x129 window: found by hand). On a TV's DRM output a shared-memory
buffer cannot be scanned out, so cage composes every frame, as it does here across two outputs (1280x720 each,
the window 2560x720 across both).
"""

from __future__ import annotations

import io
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from PIL import Image, ImageChops

from scoreboard.referee.referee import Referee
from scoreboard.venue.bridge import VENUE_PAGE_PORT
from tests.deploy.staging import install
from tests.deploy.test_units import BOARD_UNIT, unit
from tests.live import ANA_BEN, TIMEOUT
from tests.venue.browser import Browser
from tests.venue.hall import VenueBroker, venue_logins

#: The headless backend's outputs: each 1280x720 (wlroots 0.15's fixed size), side by side.
OUTPUTS, OUTPUT_WIDTH, OUTPUT_HEIGHT = 2, 1280, 720
HEADLESS = {"WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": str(OUTPUTS)}
#: The breaker pockets the 9 on the break: Ana wins the rack, 1 of 3.
NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1},
                     {"type": "pocket", "ball": 9, "pocket": "foot_left"}, {"type": "settle"}]
#: How much of the picture may differ from the reference: the tile's clock ticks between the two.
MOST_DIFFERENT = 0.01
#: board.css's --tile and --bg.
TILE, BACKGROUND = (0x14, 0x1C, 0x26), (0x05, 0x08, 0x0C)


def board_user() -> pwd.struct_passwd:
    """Who runs cage: the caller, or ``nobody`` when that is root (cage refuses root: 'Unable to drop root')."""
    return pwd.getpwnam("nobody") if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())


class Kiosk:
    """The unit's ExecStart under cage's headless backend, as ``user``, in a temporary home; ``picture()`` is grim's
    PNG of every output. ``close`` ends Chromium, after which cage exits by itself and removes its Xwayland socket
    (SIGTERM to cage 0.1.4 aborts it in wl_display_terminate and leaves /tmp/.X11-unix/X<n> behind)."""

    def __init__(self, command: list[str], user: pwd.struct_passwd) -> None:
        self.user = user
        self._home = tempfile.TemporaryDirectory(prefix="devetka-kiosk-")
        self.home = Path(self._home.name)
        runtime = self.home / "run"
        runtime.mkdir(mode=0o700)
        for path in (self.home, runtime):
            os.chown(path, user.pw_uid, user.pw_gid)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "XDG_RUNTIME_DIR": str(runtime), **HEADLESS}
        self.log = self.home / "cage.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, env=self.env, cwd=self.home, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log, start_new_session=True,
                                            **self._as_user())

    def _as_user(self) -> dict:
        if os.geteuid() != 0:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def picture(self) -> Image.Image | None:
        """grim's picture of cage's outputs, or None while cage has no Wayland socket yet."""
        assert self.process.poll() is None, f"cage exited with status {self.process.returncode}:\n{self.output()}"
        if not (Path(self.env["XDG_RUNTIME_DIR"]) / "wayland-0").exists():
            return None
        shot = subprocess.run(["grim", "-"], env={**self.env, "WAYLAND_DISPLAY": "wayland-0"}, capture_output=True,
                              timeout=TIMEOUT, **self._as_user())
        assert shot.returncode == 0, f"grim: {shot.stderr.decode(errors='replace')}\ncage:\n{self.output()}"
        return Image.open(io.BytesIO(shot.stdout)).convert("RGB")

    def close(self) -> None:
        try:
            for child in subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(self.process.pid)],
                                        capture_output=True, text=True).stdout.splitlines():
                pid, name = child.split(None, 1)
                if name.startswith("chromium"):
                    os.kill(int(pid), signal.SIGTERM)
            try:
                self.process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        finally:
            self._home.cleanup()


def different(picture: Image.Image, reference: Image.Image) -> float:
    """The share of pixels that differ visibly (by more than 24 of 255 in a channel) between two pictures."""
    if picture.size != reference.size:
        return 1.0
    mask = ImageChops.difference(picture, reference).convert("L").point(lambda value: 255 if value > 24 else 0)
    return mask.histogram()[255] / (picture.width * picture.height)


def test_the_board_unit_boots_under_cage_and_the_tv_shows_the_board(tmp_path):
    """The unit's own command under cage shows the tile of a table with its score, as the board draws it."""
    for program in ("cage", "grim", "Xwayland"):
        assert shutil.which(program) or Path("/usr/bin", program).exists(), \
            f"{program} is missing: scripts/setup.sh installs cage, grim and xwayland"
    command = unit(BOARD_UNIT)["ExecStart"][0].split()
    url = command[-1]
    assert url == f"http://127.0.0.1:{VENUE_PAGE_PORT}/", url
    assert command[:3] == ["/usr/bin/cage", "-s", "--"] and "--ozone-platform=wayland" in command, command

    root = tmp_path / "root"
    staged = install(root, "--venue-server", "--venue-add-table", "bar1")
    assert staged.returncode == 0, staged.stderr
    venue = VenueBroker(root, tmp_path)
    try:
        referee = Referee.open(tmp_path / "table.sqlite3")
        assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
        for event in NINE_ON_THE_BREAK:
            assert referee.handle(event).ok
        state = dict(referee.state(), type="state")
        referee.close()
        table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bar1-kiosk-test")
        table.username_pw_set("bar1", venue_logins(root)["bar1"])
        table.connect(venue.host, venue.tables_port)
        table.loop_start()
        table.publish("devetka/bar1/availability", "online", qos=1, retain=True).wait_for_publish(TIMEOUT)
        table.publish("devetka/bar1/state", orjson.dumps(state), qos=1, retain=True).wait_for_publish(TIMEOUT)
        table.loop_stop()
        table.disconnect()
        # The page's port moved, and the readers' WebSocket it reads by default (port 9002) too.
        here = url.replace(str(VENUE_PAGE_PORT), str(venue.page_port)) + f"?broker=ws://127.0.0.1:{venue.port}/mqtt"

        width, height = OUTPUTS * OUTPUT_WIDTH, OUTPUT_HEIGHT
        with Browser() as browser:  # the board as it draws itself, on a window the size of cage's
            browser.open(here)
            tile = "document.querySelector('[data-table=\"bar1\"]')"
            browser.wait_for(f"{tile}?.dataset.online === 'true'")
            words = browser.evaluate(f"{tile}.innerText").split()
            assert {"bar1", "ONLINE", "Ana", "Ben"} <= set(words) and "1" in words, words
            reference = Image.open(browser.screenshot(tmp_path / "reference.png", width, height)).convert("RGB")

        # Control: a blank screen, as cage's before Chromium draws, is nowhere near the board.
        assert different(Image.new("RGB", reference.size), reference) > 0.5
        kiosk = Kiosk([*command[:-1], here], board_user())
        try:
            seen, deadline = [], time.monotonic() + 2 * TIMEOUT
            while True:
                picture = kiosk.picture()
                if picture is not None:
                    seen.append(different(picture, reference))
                    if seen[-1] <= MOST_DIFFERENT:
                        break
                assert time.monotonic() < deadline, (
                    f"cage's picture never became the board (share of pixels different, in order: {seen});"
                    f" last picture in {picture and picture.save(tmp_path / 'kiosk.png') or tmp_path}\n"
                    f"{kiosk.output()[-4000:]}")
                time.sleep(0.5)
            folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path)  # scripts/board-screenshots.sh
            picture.save(folder / f"kiosk-cage-{width}x{height}.png")
            # The one table's tile fills the TV (board.css: --tile), framed by the page's --bg.
            assert max(picture.getcolors(width * height))[1] == TILE, max(picture.getcolors(width * height))
            assert picture.getpixel((0, 0)) == picture.getpixel((width - 1, height - 1)) == BACKGROUND
        finally:
            kiosk.close()
    finally:
        venue.close()
