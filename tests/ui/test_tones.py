"""The shot clock's tones (scoreboard/ui/tones.py): the committed WAV files are the generator's output."""

from __future__ import annotations

import wave
from array import array

import pytest

from scoreboard.ui.tones import RATE, SOUNDS, TONES, samples, write


@pytest.mark.parametrize("name", list(TONES))
def test_the_committed_tone_is_what_the_generator_makes(name):
    """Sample by sample, within one step of 16 bits: another machine's libm may round a sine the other way."""
    with wave.open(str(SOUNDS / f"{name}.wav"), "rb") as file:
        assert (file.getnchannels(), file.getsampwidth(), file.getframerate()) == (1, 2, RATE)
        committed = array("h", file.readframes(file.getnframes()))
    made = samples(TONES[name])
    assert len(committed) == len(made), f"run python -m scoreboard.ui.tones: {name}.wav is not its output"
    assert max(abs(a - b) for a, b in zip(committed, made, strict=True)) <= 1


def test_the_tones_are_told_apart_by_length_and_pitch():
    """Two beeps at the warning, a short pip a second, a long low buzz at the end: a player hears which."""
    lengths = {name: len(samples(tone)) for name, tone in TONES.items()}
    assert lengths["tick"] < lengths["warning"] < lengths["expiry"]
    assert TONES["expiry"].pitch < TONES["warning"].pitch < TONES["tick"].pitch
    assert len(TONES["warning"].beeps) == 2


def test_the_generator_writes_a_wav_file_of_each_tone(tmp_path):
    written = write(tmp_path)
    assert sorted(path.name for path in written) == ["expiry.wav", "tick.wav", "warning.wav"]
    for path in written:
        with wave.open(str(path), "rb") as file:
            assert array("h", file.readframes(file.getnframes())) == samples(TONES[path.stem])
