"""The sensor sources a config turns on (scoreboard/daemon/sources.py), on gpiozero's MockFactory pins."""

from __future__ import annotations

import functools

import pytest
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

from firmware_bridge.source import SerialSource
from hardware.sensors import GpioSource
from scoreboard.config.table import parse
from scoreboard.daemon.sources import config_sources, opened

FOOT_LEFT = parse("[sensors.gpio]\npockets = { foot_left = 24 }\n").sensors


def gpio(factory: MockFactory) -> GpioSource:
    return GpioSource.from_config(FOOT_LEFT, pin_factory=factory, poll_every=None)


def test_a_source_that_cannot_be_made_closes_those_made_before_it():
    factory = MockFactory()
    with pytest.raises(GPIOPinInUse):
        opened([functools.partial(gpio, factory), functools.partial(gpio, factory)])  # pin 24 twice
    # The first source let go of pin 24 when the second could not be made: it can be taken again.
    again = gpio(factory)
    assert list(again.devices) == ["pocket:foot_left"]
    again.close()


def test_a_config_turns_on_its_serial_line_at_its_baud(tmp_path):
    config = parse(f"[sensors.serial]\nport = '{tmp_path / 'bridge'}'\nbaud = 9600\n")
    (source,) = config_sources(config)
    try:
        assert isinstance(source, SerialSource)
        assert (source.link.path, source.link.baudrate) == (str(tmp_path / "bridge"), 9600)
    finally:
        source.close()


def test_a_config_with_no_section_turns_on_nothing():
    assert config_sources(parse("")) == []
