"""The sensor sources a table's config turns on: the one place that knows ``hardware`` and ``firmware_bridge``."""

from __future__ import annotations

from scoreboard.referee.config import Config
from scoreboard.sensing.interface import Source


class SourceError(Exception):
    """A sensor source that cannot be started: the message says why and what to try."""


def config_sources(config: Config) -> list[Source]:
    """The sources a table's config turns on: ``[sensors.serial]`` and ``[sensors.gpio]`` (what the daemon runs)."""
    sources: list[Source] = []
    try:
        if config.sensors.serial.enabled:
            from firmware_bridge.source import SerialSource

            sources.append(SerialSource(config.sensors.serial.port, baudrate=config.sensors.serial.baud))
        if config.sensors.gpio.enabled:
            sources.append(gpio_source(config))
    except BaseException:
        for source in sources:
            source.close()
        raise
    return sources


def gpio_source(config: Config) -> Source:
    """The GPIO sensors of the config (``hardware.sensors.GpioSource``), on gpiozero's default pin factory."""
    from gpiozero.exc import GPIOZeroError

    from hardware.sensors import GpioSource

    try:
        return GpioSource.from_config(config.sensors, pin_factory=None)
    except (GPIOZeroError, OSError) as error:
        raise SourceError(f"cannot use the GPIO pins: {error} (not a Raspberry Pi? GPIOZERO_PIN_FACTORY=mock "
                    f"tries the software without one)") from None
