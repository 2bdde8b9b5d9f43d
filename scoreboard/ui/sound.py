"""The shot clock heard: a tone at the warning, a tick each second of the last five, a tone when time is up.

The sounds follow what the daemon serves and nothing else: the deadline and the warning it serves (the face the
screen counts down, ``ShotClockFace``) on the same wall clock, the time foul it proposes, and the time foul it
rules (with a strike sensor the daemon applies it at the deadline, usually before this screen's count reaches 0).
``Cues`` says which sound a moment calls for, each once (pure: no Kivy, no clock of its own); ``Speaker`` plays
them through Kivy's ``SoundLoader`` (SDL2's mixer), and where the Pi has no sound device it stays silent and
says so once.

>>> from scoreboard.ui.viewmodel import ShotClockFace
>>> cues, face = Cues(), ShotClockFace(deadline_ms=60_000, warning_ms=50_000, proposed=False)
>>> [cues.at(face, ms) for ms in (30_000, 50_050, 50_150, 54_900, 55_000, 55_100, 56_000, 59_950, 60_000, 60_100)]
[None, 'warning', None, None, 'tick', None, 'tick', 'tick', 'expiry', None]
"""

from __future__ import annotations

import logging
import math
import re
import sys
from pathlib import Path
from typing import Any

from scoreboard.ui.viewmodel import SHOT_CLOCK_LATE_S, ShotClockFace

SOUNDS = Path(__file__).with_name("sounds")
NAMES = ("warning", "tick", "expiry")
_UNSEEN = object()


#: What makes a sound once: its name and the deadline it is for (a tick also its second): ("tick", deadline, 3).
Key = tuple[Any, ...]

class Cues:
    """Which sound the shot clock calls for: asked every frame with the face and the wall clock (``at``), and told
    every state's time foul (``ruled``); each sound of a turn comes once, and none for a moment already past when
    the screen first saw it (a screen started 8 s before the deadline does not sound the warning). A screen that
    saw the turn before its warning and drew no frame in the warning's second (starved on a slow Pi) sounds the
    warning at its next frame, in place of any tick that frame calls for."""

    def __init__(self) -> None:
        self._played: set[Key] = set()
        self._deadline: int | None = None
        self._before_warning = False
        """This turn was seen before its warning: a warning it missed is still owed."""
        self._foul: Any = _UNSEEN

    def at(self, face: ShotClockFace | None, now_ms: float) -> str | None:
        """The sound for this moment, if one is due and not yet played."""
        if face is None or face.deadline_ms is None:
            return None
        if face.deadline_ms != self._deadline:  # another turn, or an extension moved it: its own sounds
            self._deadline = face.deadline_ms
            self._played = {key for key in self._played if key[1] == face.deadline_ms}
            self._before_warning = False
        if face.warning_ms is not None and now_ms < face.warning_ms:
            self._before_warning = True
        key = _due(face, now_ms)
        owed = ("warning", face.deadline_ms)
        if self._before_warning and owed not in self._played and (key is None or key[0] == "tick") \
                and face.warning_ms is not None and now_ms >= face.warning_ms:
            if key is not None:
                self._played.add(key)  # that second's tick gives way to it, as in the warning's own second
            key = owed
        if key is None or key in self._played:
            return None
        self._played.add(key)
        return str(key[0])

    def ruled(self, time_foul: tuple[int, int, int] | None) -> str | None:
        """The expiry tone for a time foul the daemon ruled, unless this screen sounded it at its count's end
        (or the foul was there when the screen first heard the daemon)."""
        first, fresh = self._foul is _UNSEEN, time_foul != self._foul
        self._foul = time_foul
        if first or not fresh or time_foul is None:
            return None
        key = ("expiry", self._deadline)
        if key in self._played:
            return None
        self._played.add(key)
        return "expiry"


def _due(face: ShotClockFace, now_ms: float) -> Key | None:
    """The sound this moment calls for, with the key that makes it once: expiry at 0 (or the time foul proposed),
    the warning in the second it begins (a tick that second gives way to it), a tick in each of the last five."""
    deadline = face.deadline_ms
    assert deadline is not None  # Cues.at asks only with a deadline
    left = math.ceil((deadline - now_ms) / 1000)
    if face.proposed or left <= 0:
        return "expiry", deadline
    warning = face.warning_ms
    if warning is not None and warning <= now_ms < warning + 1000:
        return "warning", deadline
    if left <= SHOT_CLOCK_LATE_S:
        return "tick", deadline, left
    return None


class Speaker:
    """The tones through Kivy's SoundLoader, loaded at the first need (a table that never plays on the clock
    opens no sound device). With none to open it plays nothing and logs one line, once."""

    def __init__(self, folder: Path = SOUNDS) -> None:
        self.folder = folder
        self.sounds: dict[str, Any] | None = None
        """The loaded tones by name; None before the first need; empty when the Pi has no sound device."""
        self.problem: str | None = None
        """Why the touchscreen is silent, when it is."""

    def ready(self) -> bool:
        """Load the tones if not yet tried; True when they can be played."""
        if self.sounds is None:
            self.sounds = self._load()
        return bool(self.sounds)

    def play(self, name: str) -> None:
        if not self.ready() or self.sounds is None:
            return
        sound = self.sounds[name]
        sound.stop()  # a tick still ringing when the next is due starts again
        sound.play()

    def _load(self) -> dict[str, Any]:
        from kivy.core.audio import SoundLoader
        from kivy.logger import Logger

        heard = _AudioWords()
        Logger.addFilter(heard)
        try:
            loaded = {name: SoundLoader.load(str(self.folder / f"{name}.wav")) for name in NAMES}
        finally:
            Logger.removeFilter(heard)
        if all(sound is not None and sound.length > 0 for sound in loaded.values()):
            return loaded
        self.problem = heard.words[0] if heard.words else "Kivy has no audio provider"
        print(f"devetka ui: no sound device, the shot clock is silent ({self.problem})", file=sys.__stderr__,
              flush=True)  # Kivy may wrap stderr
        return {}


class _AudioWords(logging.Filter):
    """Keeps Kivy's audio lines (the mixer that could not open, each file it then could not load) out of the
    log, and their first words for the one line the touchscreen says instead."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith("AudioSDL2"):
            return True
        self.words.append(re.sub(r"""\bb(["'])(.*?)\1""", r"\2", message.split(":", 1)[-1].strip()))
        return False
