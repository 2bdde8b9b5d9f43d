"""The sensor sources a table's config turns on: the one place that knows ``hardware`` and ``firmware_bridge``."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from scoreboard.config.table import Config
from scoreboard.core.messages import Message, msg
from scoreboard.sensing.interface import Source


class SourceError(Exception):
    """A sensor source that cannot be started: the message says why and what to try (``str(error)`` in English,
    ``render(error.message, catalog)`` in another language)."""

    def __init__(self, message: Message | str) -> None:
        super().__init__(str(message))
        self.message = message


def config_sources(config: Config) -> list[Source]:
    """The sources a table's config turns on: ``[sensors.serial]`` and ``[sensors.gpio]`` (what the daemon runs)."""
    makers: list[Callable[[], Source]] = []
    if config.sensors.serial.enabled:
        makers.append(lambda: serial_source(config.sensors.serial.port, config.sensors.serial.baud))
    if config.sensors.gpio.enabled:
        makers.append(lambda: gpio_source(config))
    return opened(makers)


def opened(makers: Iterable[Callable[[], Source]]) -> list[Source]:
    """Each source made in turn; when one cannot be, those already open are closed before the error goes on."""
    sources: list[Source] = []
    try:
        for make in makers:
            sources.append(make())
    except BaseException:
        for source in sources:
            source.close()
        raise
    return sources


def serial_source(port: str, baud: int | None = None) -> Source:
    """A microcontroller on a serial line (``firmware_bridge.source.SerialSource``), at ``baud`` or its default."""
    from firmware_bridge.source import SerialSource

    return SerialSource(port, baudrate=baud) if baud else SerialSource(port)


def gpio_source(config: Config) -> Source:
    """The GPIO sensors of the config (``hardware.sensors.GpioSource``), on gpiozero's default pin factory."""
    from gpiozero.exc import GPIOZeroError

    from hardware.sensors import GpioSource

    try:
        return GpioSource.from_config(config.sensors, pin_factory=None)
    except (GPIOZeroError, OSError) as error:
        raise SourceError(msg("cannot use the GPIO pins: {error} (not a Raspberry Pi? GPIOZERO_PIN_FACTORY=mock "
                              "tries the software without one)", error=str(error))) from None
