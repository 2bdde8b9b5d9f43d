"""The shot clock's tones as WAV files in ``sounds/``, made with the standard library (``python -m
scoreboard.ui.tones``).

The files are committed, as this generator makes them (``tests/ui/test_tones.py`` checks they still are), rather
than made at first use: the touchscreen's service runs on a read-only system with no home to cache in
(``deploy/systemd/devetka-ui.service``), so a file it had to write could fail there, and what is committed can be
listened to before it ships. Three tones a player tells apart across the room: two short high beeps at the
warning, a short pip each second of the last five, and a long low buzz when the time is up.

>>> {name: round(len(samples(tone)) / RATE, 2) for name, tone in TONES.items()}
{'warning': 0.3, 'tick': 0.06, 'expiry': 0.9}
>>> max(samples(TONES["tick"])) <= PEAK
True
"""

from __future__ import annotations

import io
import math
import wave
from array import array
from pathlib import Path
from typing import NamedTuple

RATE = 44100
"""Samples a second: SDL_mixer's own rate as Kivy opens it, so nothing is resampled."""
PEAK = round(0.45 * 32767)
"""Loud enough over a bar's noise from a 7" panel's speaker, with room for the harmonics."""
FADE_S = 0.005
"""Each beep fades in and out this long: a sine cut off mid-wave clicks."""
SOUNDS = Path(__file__).with_name("sounds")


class Tone(NamedTuple):
    """Beeps of one pitch: each ``(start, length)`` in seconds, within ``length``; ``harmonics`` weighs the odd
    harmonics (1st, 3rd, 5th, ...): one is a pure tone, more a buzzer."""

    pitch: float
    beeps: tuple[tuple[float, float], ...]
    length: float
    harmonics: tuple[float, ...] = (1.0,)


TONES = {
    "warning": Tone(880.0, ((0.0, 0.12), (0.18, 0.12)), 0.3),
    "tick": Tone(1320.0, ((0.0, 0.06),), 0.06),
    "expiry": Tone(440.0, ((0.0, 0.9),), 0.9, (1.0, 0.4, 0.2)),
}


def samples(tone: Tone) -> array[int]:
    """The tone as signed 16-bit mono samples at ``RATE``."""
    out = array("h", bytes(2 * round(tone.length * RATE)))
    weight = sum(tone.harmonics)
    fade = FADE_S * RATE
    for start, length in tone.beeps:
        first, count = round(start * RATE), round(length * RATE)
        for n in range(count):
            t = n / RATE
            wave_ = sum(w * math.sin(2 * math.pi * tone.pitch * (2 * k + 1) * t) for k, w in enumerate(tone.harmonics))
            envelope = min(1.0, n / fade, (count - 1 - n) / fade)
            out[first + n] = round(PEAK * envelope * wave_ / weight)
    return out


def wav_bytes(tone: Tone) -> bytes:
    """The tone as a whole WAV file."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(samples(tone).tobytes())  # native order: wave makes it little-endian
    return buffer.getvalue()


def write(folder: Path = SOUNDS) -> list[Path]:
    """Write every tone as ``NAME.wav`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, tone in TONES.items():
        path = folder / f"{name}.wav"
        path.write_bytes(wav_bytes(tone))
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write():
        print(written)
