"""One logging set-up for every command: ``devetka <command>: message`` lines on stderr.

Under systemd (``JOURNAL_STREAM``) a line carries no time stamp, since journald stamps each one; run
by hand at a terminal it starts with the time. ``--verbose`` shows the debugging lines (paho's own
among them), ``--quiet`` only the errors. paho's logger is ``devetka.mqtt.paho``: its chatter while a
broker is away stays below the default level or is filtered out (``OnlyCallbackErrors``), and our own lines
say each change of the link once.
"""

from __future__ import annotations

import logging
import sys

from scoreboard.adapters.systemd import under_journal

LEVELS = {-1: logging.ERROR, 0: logging.INFO, 1: logging.DEBUG}


class OnlyCallbackErrors(logging.Filter):
    """paho's errors but those about its connection, which ``devetka.mqtt`` says once per change of state.

    paho logs a fragment at ERROR on every reconnect attempt while a broker is away ("Client is not
    connected. Socket: None). Last known Connection State: ..."); an exception caught in one of our
    callbacks is a bug, and is let through.

    >>> record = logging.LogRecord("devetka.mqtt.paho", logging.ERROR, "", 0, "Client is not connected.", (), None)
    >>> OnlyCallbackErrors().filter(record)
    False
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return str(record.msg).startswith("Caught exception in ")


def setup(command: str, verbosity: int = 0, stream=None) -> None:
    """Route the ``devetka`` loggers to ``stream`` (stderr) at the level ``verbosity`` chooses (-1, 0, 1)."""
    stream = sys.stderr if stream is None else stream
    handler = logging.StreamHandler(stream)
    stamped = not under_journal() and hasattr(stream, "isatty") and stream.isatty()
    prefix = "%(asctime)s " if stamped else ""
    handler.setFormatter(logging.Formatter(f"{prefix}devetka {command}: %(message)s", "%H:%M:%S"))
    root = logging.getLogger("devetka")
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(LEVELS[max(-1, min(1, verbosity))])
    root.propagate = False
    paho = logging.getLogger("devetka.mqtt.paho")
    paho.setLevel(logging.DEBUG if verbosity > 0 else logging.ERROR)
    for old in [f for f in paho.filters if isinstance(f, OnlyCallbackErrors)]:
        paho.removeFilter(old)
    if verbosity <= 0:
        paho.addFilter(OnlyCallbackErrors())
    logging.getLogger("hardware").addHandler(handler)
    logging.getLogger("hardware").setLevel(root.level)
