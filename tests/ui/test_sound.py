"""The shot clock heard (scoreboard/ui/sound.py): which tone is due, and ``devetka ui`` as its own process under
Xvfb beside a real ``devetka run``, its sound written by SDL2's disk audio driver (``SDL_AUDIODRIVER=disk``) to a
file of the test's own, read back as samples. Nothing asserts a wall-clock time: the tones are found in the
samples written, and the waits are for what the daemon serves."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from array import array
from pathlib import Path

from scoreboard.sim.touchscreen import start_ui
from scoreboard.ui.sound import Cues
from scoreboard.ui.viewmodel import ShotClockFace
from tests.live import LEGAL_BREAK, TIMEOUT

FACE = ShotClockFace(deadline_ms=100_000, warning_ms=90_000, proposed=False)


def heard(cues: Cues, face: ShotClockFace, start_ms: int, end_ms: int, step_ms: int = 100) -> list[tuple[int, str]]:
    """The tones asked for by a screen drawing every ``step_ms``, with the ms each came at."""
    return [(ms, name) for ms in range(start_ms, end_ms, step_ms) if (name := cues.at(face, ms)) is not None]


def test_tr20_a_tone_at_the_warning_a_tick_each_of_the_last_five_seconds_and_one_at_the_end():
    assert heard(Cues(), FACE, 80_000, 101_000) == [(90_000, "warning"), (95_000, "tick"), (96_000, "tick"),
                                                    (97_000, "tick"), (98_000, "tick"), (99_000, "tick"),
                                                    (100_000, "expiry")]


def test_a_warning_in_the_last_five_seconds_takes_that_second_s_tick():
    late_warning = ShotClockFace(deadline_ms=100_000, warning_ms=97_000, proposed=False)
    assert [name for _, name in heard(Cues(), late_warning, 94_000, 101_000)] == [
        "tick", "tick", "warning", "tick", "tick", "expiry"]


def test_a_screen_that_comes_in_late_sounds_only_what_is_due_now():
    assert heard(Cues(), FACE, 92_000, 96_500) == [(95_000, "tick"), (96_000, "tick")]  # no warning 2 s late
    assert heard(Cues(), FACE, 97_500, 98_000) == [(97_500, "tick")]  # that second's tick, at once


def test_a_screen_starved_through_the_warning_s_second_sounds_it_at_its_next_frame():
    """A slow Pi drew no frame from 1.2 s before the warning to 1.3 s after it: the warning comes late, not never,
    and that second's tick gives way to it (the suite saw the warning lost once, under load)."""
    cues = Cues()
    assert heard(cues, FACE, 88_000, 88_900) == []
    assert heard(cues, FACE, 91_300, 97_100) == [(91_300, "warning"), (95_000, "tick"), (96_000, "tick"),
                                                 (97_000, "tick")]
    tick_second = Cues()
    assert heard(tick_second, FACE, 89_000, 89_100) == []
    assert heard(tick_second, FACE, 95_200, 96_100) == [(95_200, "warning"), (96_000, "tick")]


def test_an_extension_moves_the_tones_with_the_deadline():
    cues = Cues()
    assert [name for _, name in heard(cues, FACE, 96_000, 97_100)] == ["tick", "tick"]  # 4 s and 3 s left
    extended = ShotClockFace(deadline_ms=125_000, warning_ms=115_000, proposed=False)
    assert heard(cues, extended, 97_100, 115_000) == []  # 28 s left: nothing until its warning
    assert heard(cues, extended, 115_000, 115_100) == [(115_000, "warning")]


def test_the_end_sounds_once_whether_the_count_the_proposal_or_the_ruling_comes_first():
    cues = Cues()
    cues.ruled(None)  # the first state: what it already shows is not news
    assert heard(cues, FACE, 99_900, 100_300) == [(99_900, "tick"), (100_000, "expiry")]
    proposed = ShotClockFace(deadline_ms=100_000, warning_ms=None, proposed=True)
    assert cues.at(proposed, 100_400) is None and cues.ruled((1, 3, 0)) is None
    # With a strike sensor the daemon rules the time foul at the deadline, before this screen's count got there.
    first = Cues()
    first.ruled(None)
    assert heard(first, FACE, 99_000, 99_900) == [(99_000, "tick")]
    assert first.ruled((1, 3, 0)) == "expiry"
    after = ShotClockFace(deadline_ms=160_000, warning_ms=150_000, proposed=False)  # the next turn
    assert first.at(after, 100_000) is None and first.ruled((1, 3, 0)) is None


def test_a_time_foul_already_ruled_when_the_screen_starts_is_not_sounded():
    cues = Cues()
    assert cues.ruled((1, 3, 0)) is None and cues.ruled((1, 3, 0)) is None
    assert cues.at(None, 0) is None


# --- devetka ui with its sound written to a file (SDL2's disk audio driver) -------------------------------------

QUICK = {"shot_clock": True, "shot_clock_s": 10, "shot_clock_warning_s": 5, "shot_clock_after_break_s": 10}
START = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0, "rules": QUICK}
#: SDL_mixer as Kivy opens it: 44100 frames a second, two channels of signed 16 bits.
SAMPLES_PER_S = 44100 * 2


class UiProcess:
    """``devetka ui`` on the daemon's socket, in the test's own X server, Kivy home and audio driver; its lines."""

    def __init__(self, daemon, display: str, tmp_path: Path, **audio: str) -> None:
        env = dict(os.environ, DISPLAY=display, KIVY_HOME=str(tmp_path / "kivy"), **audio)
        for name in ("KIVY_CLIPBOARD", "KIVY_NO_CONSOLELOG"):  # the suite's own: devetka ui makes its own
            env.pop(name, None)
        self.process = start_ui(daemon.socket, size="800x480", env=env, stderr=subprocess.PIPE,
                                stdout=subprocess.DEVNULL)
        self.lines: queue.Queue = queue.Queue()
        self.heard: list[str] = []
        threading.Thread(target=lambda: [self.lines.put(line.decode().rstrip()) for line in self.process.stderr],
                         daemon=True).start()

    def said(self, start: str) -> str:
        """devetka ui's next line that begins with ``start`` (every line kept in ``heard``)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            self.heard.append(line)
            if line.startswith(start):
                return line
        raise AssertionError(f"devetka ui never said {start!r}; it said {self.heard}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=TIMEOUT)
        while not self.lines.empty():
            self.heard.append(self.lines.get())


def until(client, seen, what: str) -> dict:
    """The daemon's broadcast states until one ``seen`` accepts; fail naming ``what``."""
    deadline = time.monotonic() + 3 * TIMEOUT
    while time.monotonic() < deadline:
        state = client.broadcast()
        if seen(state):
            return state
    raise AssertionError(f"the daemon never served {what}")


def on_the_clock(ui: UiProcess, client) -> None:
    """Once the screen is connected: a match on the quick clock, Ana's legal break; Ben's turn is timed, 10 s."""
    ui.said("devetka ui: connected to")
    assert client.request({"cmd": "new_match", "match_start": START})["ok"]
    for item in LEGAL_BREAK:
        assert client.request(item)["ok"]


def samples(path: Path, start: int = 0) -> array:
    """The 16-bit samples the driver has written from sample ``start`` on."""
    data = array("h")
    with path.open("rb") as file:
        file.seek(2 * start)
        raw = file.read()
    data.frombytes(raw[: len(raw) // 2 * 2])
    return data


def written(path: Path) -> int:
    return path.stat().st_size // 2 if path.exists() else 0


def bursts(data: array) -> list[float]:
    """The lengths in seconds of the runs of sound, runs closer than 0.1 s taken as one (the warning's two beeps)."""
    gap = SAMPLES_PER_S // 10
    runs: list[list[int]] = []
    for index, value in enumerate(data):
        if value == 0:
            continue
        if runs and index - runs[-1][1] <= gap:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return [round((end - begin) / SAMPLES_PER_S, 2) for begin, end in runs]


def wait_for_audio(path: Path, seconds: float) -> int:
    """Wait until the driver has written ``seconds`` more of sound (or silence): the audio's own time, not the
    wall clock's; returns where it had got to."""
    target = written(path) + int(seconds * SAMPLES_PER_S)
    deadline = time.monotonic() + TIMEOUT + seconds
    while written(path) < target:
        assert time.monotonic() < deadline, f"the audio driver stopped writing at {written(path)} samples"
        time.sleep(0.05)
    return written(path)


def test_devetka_ui_sounds_the_warning_the_ticks_and_the_end_and_nothing_with_the_sound_or_the_clock_off(
        display, daemon, tmp_path):
    """The real touchscreen on the daemon's real clock (its shortest limits, 10 s, the warning at 5 s): the tones
    are in the samples SDL wrote, in order; with the sound turned off on the daemon (the setting behind the PIN)
    a whole timed turn writes only silence, and so does the clock turned off with the sound on again."""
    audio = tmp_path / "audio.raw"
    ui = UiProcess(daemon, display, tmp_path, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=str(audio))
    client = daemon.client()
    try:
        on_the_clock(ui, client)
        until(client, lambda state: state["shot_clock"]["time_foul_proposed"], "Ben's time foul proposed")
        wait_for_audio(audio, 1.2)  # the expiry tone (0.9 s) written whole
        first_turn = bursts(samples(audio))
        assert len(first_turn) == 6, first_turn  # the warning, four ticks (at 4 to 1 s), the end
        warning, *ticks, expiry = first_turn
        assert abs(warning - 0.3) < 0.02 and all(abs(tick - 0.06) < 0.01 for tick in ticks), first_turn
        assert abs(expiry - 0.9) < 0.02, first_turn

        quiet = client.request({"cmd": "settings", "pin": "0000", "set": {"ui.sound": False}})
        assert quiet["ok"] and quiet["state"]["sound"] is False
        muted_from = written(audio)
        assert client.request({"type": "shot_clock", "expired": True})["ok"]  # Ana's turn now, 10 s, unheard
        until(client, lambda state: state["shot_clock"]["time_foul_proposed"] and state["shooter"] == 0,
              "Ana's time foul proposed")
        wait_for_audio(audio, 1.2)
        muted = samples(audio, muted_from)
        assert muted and not any(muted), bursts(muted)  # written while a whole turn ran out: all silence

        loud = client.request({"cmd": "settings", "pin": "0000", "set": {"ui.sound": True}})
        assert loud["ok"] and loud["state"]["sound"] is True
        assert client.request({"type": "shot_clock", "on": False})["ok"]
        off_from = written(audio)
        wait_for_audio(audio, 3)
        assert not any(samples(audio, off_from))  # the clock off: nothing to sound
    finally:
        client.close()
        ui.stop()
    assert not [line for line in ui.heard if "Traceback" in line or "no sound device" in line], ui.heard


def test_with_no_sound_device_devetka_ui_says_so_once_and_counts_on_silent(display, daemon, tmp_path):
    """No device to open (a driver SDL has not, as on a Pi without a sound card): one line, no crash, no stall:
    the screen goes on to show the clock run out (its red face, grabbed from the X server)."""
    from PIL import ImageGrab

    ui = UiProcess(daemon, display, tmp_path, SDL_AUDIODRIVER="none")
    client = daemon.client()
    try:
        on_the_clock(ui, client)
        line = ui.said("devetka ui: no sound device")
        assert line.startswith("devetka ui: no sound device, the shot clock is silent (") and "'none'" in line, line
        until(client, lambda state: state["shot_clock"]["time_foul_proposed"], "the time foul proposed")
        deadline = time.monotonic() + TIMEOUT
        while True:  # the face turns red: the screen drew on after the sound failed
            grab = ImageGrab.grab(xdisplay=display).convert("RGB")
            red = sum(count for count, pixel in grab.getcolors(1 << 20) if pixel == (213, 0, 0))  # #d50000
            if red > 1000:
                break
            assert time.monotonic() < deadline, f"the clock's face never turned red ({red} px)"
            time.sleep(0.2)
        assert ui.process.poll() is None
    finally:
        client.close()
        ui.stop()
    assert [said for said in ui.heard if "no sound device" in said] == [line], ui.heard  # once
    assert not [said for said in ui.heard if "AudioSDL2" in said or "Traceback" in said], ui.heard
