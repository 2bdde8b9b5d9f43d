"""``devetka ARGS`` run in the test's own process: ``scoreboard.commands.main.main(argv)`` with its standard input,
output and error on buffers, its exit status as a subprocess's.

A Python process costs half a second of start-up and imports; a command that only reads files and writes its
answer (``replay``, ``export``, ``matches``) shows no more in a process of its own. A test whose subject is the
process (the console script, the environment's language, a signal, a daemon) starts one.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

from scoreboard.commands.main import main


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="", write_through=True)


def devetka(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``devetka ARGS`` in this process; stdout and stderr come back as bytes, as ``subprocess.run`` gives
    them."""
    saved = sys.stdin, sys.stdout, sys.stderr
    loggers = {name: list(logging.getLogger(name).handlers) for name in ("devetka", "hardware")}
    folder = os.getcwd()
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream(stdin or b""), out, err
    try:
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = main(list(args))
        except SystemExit as leaving:  # argparse's refusals, and a command that exits
            code = leaving.code if isinstance(leaving.code, int) else (0 if leaving.code is None else 1)
            if not isinstance(leaving.code, (int, type(None))):
                print(leaving.code, file=sys.stderr)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(folder)
        for name, handlers in loggers.items():  # main routes the loggers to the stderr it had
            logger = logging.getLogger(name)
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            for handler in handlers:
                logger.addHandler(handler)
    return subprocess.CompletedProcess(["devetka", *args], code, out.buffer.getvalue(), err.buffer.getvalue())
