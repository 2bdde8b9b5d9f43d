"""How long does the touchscreen's first shot clock tone take to get ready, with a sound device and without one?

    python bench/sound.py [--runs N]

``Speaker.ready()`` (scoreboard/ui/sound.py) opens SDL2's mixer through Kivy's SoundLoader and loads the three
tones, once, on Kivy's main thread, at the first timed turn: a frame is late by that much, once. Each run is a
fresh process (SDL opens its audio once a process) with Kivy loaded, timed around ``ready()`` alone (Kivy's
audio provider imported, the mixer opened or refused, the three WAVs loaded), for each audio driver:
``disk`` (a device that opens: SDL writes the samples to a temp file), ``none`` (a driver SDL has not: no device
at all) and the machine's default (here: no /dev/snd, so ALSA fails). p50 and max in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import json, sys, time
import kivy.app  # the touchscreen has Kivy loaded; kivy.core.audio is first imported by ready()
from scoreboard.ui.sound import Speaker
speaker = Speaker()
began = time.perf_counter()
ready = speaker.ready()
print(json.dumps({"ms": (time.perf_counter() - began) * 1000, "ready": ready}), file=sys.__stdout__)
"""


def run(driver: str | None, folder: Path) -> dict:
    env = dict(os.environ, KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_NO_CONSOLELOG="1",
               KIVY_HOME=str(folder / "kivy"), PYTHONPATH=str(ROOT))
    env.pop("SDL_AUDIODRIVER", None)
    if driver is not None:
        env.update(SDL_AUDIODRIVER=driver, SDL_DISKAUDIOFILE=str(folder / "audio.raw"))
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=10)
    args = options.parse_args()
    with tempfile.TemporaryDirectory(prefix="devetka-bench-sound-") as folder:
        for driver in ("disk", "none", None):
            results = [run(driver, Path(folder)) for _ in range(args.runs)]
            times = [result["ms"] for result in results]
            ready = {result["ready"] for result in results}
            print(f"{driver or 'default'}: ready {sorted(ready)}, p50 {statistics.median(times):.1f} ms, "
                  f"max {max(times):.1f} ms ({args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
