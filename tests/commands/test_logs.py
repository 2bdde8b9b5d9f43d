"""One logging set-up for every command (scoreboard/commands/logs.py): what a person reads on stderr."""

from __future__ import annotations

import io
import logging
import os
import re

import pytest

from scoreboard.commands import logs


@pytest.fixture(autouse=True)
def fresh_loggers():
    yield
    for name in ("devetka", "devetka.mqtt.paho", "hardware"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.filters.clear()


def said(verbosity: int) -> list[str]:
    stream = io.StringIO()
    logs.setup("run", verbosity, stream)
    logging.getLogger("devetka.referee").debug("folded 3 inputs")
    logging.getLogger("devetka.referee").info("serving on /run/devetka/api.sock")
    logging.getLogger("devetka.mqtt").error("broker 127.0.0.1:1883 refused the login")
    logging.getLogger("devetka.mqtt.paho").error("Client is not connected. Socket: None")
    logging.getLogger("devetka.mqtt.paho").error("Caught exception in on_message: KeyError")
    logging.getLogger("hardware").warning("pin 24 stuck low")
    return stream.getvalue().splitlines()


def test_by_default_a_line_names_the_command_and_paho_says_only_our_own_bugs():
    assert said(0) == ["devetka run: serving on /run/devetka/api.sock",
                       "devetka run: broker 127.0.0.1:1883 refused the login",
                       "devetka run: Caught exception in on_message: KeyError",
                       "devetka run: pin 24 stuck low"]


def test_verbose_shows_the_debugging_lines_and_all_of_paho():
    lines = said(1)
    assert "devetka run: folded 3 inputs" in lines
    assert "devetka run: Client is not connected. Socket: None" in lines


def test_quiet_shows_only_the_errors():
    assert said(-1) == ["devetka run: broker 127.0.0.1:1883 refused the login",
                        "devetka run: Caught exception in on_message: KeyError"]


def test_at_a_terminal_a_line_starts_with_the_time_but_not_under_journald(monkeypatch):
    master, replica = os.openpty()
    try:
        with open(replica, "w", closefd=False) as terminal:
            monkeypatch.delenv("JOURNAL_STREAM", raising=False)
            logs.setup("ui", 0, terminal)
            logging.getLogger("devetka.ui").info("no connection to the referee")
            terminal.flush()
            assert re.fullmatch(rb"\d\d:\d\d:\d\d devetka ui: no connection to the referee\r\n", os.read(master, 200))
            monkeypatch.setenv("JOURNAL_STREAM", "8:1234")
            logs.setup("ui", 0, terminal)
            logging.getLogger("devetka.ui").info("connected")
            terminal.flush()
            assert os.read(master, 200) == b"devetka ui: connected\r\n"
    finally:
        os.close(master)
        os.close(replica)
