"""``devetka ui`` started as a child process beside a daemon: the demo's screen, the benchmarks' and the tests'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def start_ui(socket_path: str | os.PathLike, *, config: str | os.PathLike | None = None,
             size: str | None = "800x480", fullscreen: bool = False, env: dict[str, str] | None = None, note: str = "",
             **popen: object) -> subprocess.Popen:
    """Start ``devetka ui`` as a child process on ``socket_path`` (it waits for the daemon by itself).

    The caller owns the process: ``terminate()`` it when done. ``env`` defaults to
    this process's environment.
    """
    devetka = Path(sys.executable).parent / "devetka"
    command = [str(devetka), "ui", "--socket", str(socket_path)]
    if config is not None:
        command += ["--config", str(config)]
    if size is not None:
        command += ["--size", size]
    if fullscreen:
        command.append("--fullscreen")
    if note:
        command += ["--note", note]
    environment = dict(os.environ if env is None else env)
    return subprocess.Popen(command, env=environment, **popen)
