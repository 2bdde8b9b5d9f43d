"""How the sensors are wired: the ``[sensors]`` sections, typed and frozen; what ``hardware`` and
``firmware_bridge`` read to set themselves up (they know no other part of the config)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from scoreboard.core.checks import (
    ConfigError,
    boolean,
    gpio_pin,
    millis,
    pin_table,
    seconds,
    section,
    setting,
    text,
    whole_number,
)
from scoreboard.core.inputs import POCKETS, RAILS
from scoreboard.core.messages import msg

#: The kinds of sensor line; each has its own polarity (``active_high``).
LINE_KINDS = ("pocket", "cue_return", "cushion", "strike")


@dataclass(frozen=True)
class ActiveHigh:
    """Per kind of line, whether the line reads high while a ball (or a hit) is there.

    The defaults fit the modules of ``hardware/WIRING.md``: IR break-beam receivers
    pull their output low when the beam is broken; slotted opto-interrupter,
    piezo-comparator and SW-420 modules drive it high on an event.

    >>> ActiveHigh().pocket, ActiveHigh().strike
    (False, True)
    """

    pocket: bool = setting(False, boolean)
    cue_return: bool = setting(True, boolean)
    cushion: bool = setting(True, boolean)
    strike: bool = setting(True, boolean)


_NO_PINS: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True)
class GpioConfig:
    """``[sensors.gpio]``: which BCM pin each sensor line is on (any subset), and how lines read.

    Cushions are either one line per rail (``[sensors.gpio.cushions]``) or one shared
    line (``cushion_shared``). A section that is written is on unless it says
    ``enabled = false``; with no section, GPIO sensing is off.

    >>> gpio = GpioConfig(pockets={"foot_left": 24}, cushion_shared=21)
    >>> [(line.key, line.pin) for line in gpio.lines()]
    [('pockets.foot_left', 24), ('cushion_shared', 21)]
    """

    enabled: bool = setting(True, boolean)
    pull_up: bool = setting(True, boolean)
    pockets: Mapping[str, int] = setting(_NO_PINS, pin_table(POCKETS))
    cue_return: int | None = setting(None, gpio_pin)
    cushions: Mapping[str, int] = setting(_NO_PINS, pin_table(RAILS))
    cushion_shared: int | None = setting(None, gpio_pin)
    strike: int | None = setting(None, gpio_pin)
    active_high: ActiveHigh = setting(ActiveHigh(), section(ActiveHigh))

    def lines(self) -> list[Line]:
        """Every configured line, in a fixed order: pockets, cue return, cushions, strike."""
        out = [Line("pocket", name, pin, f"pockets.{name}") for name, pin in self.pockets.items()]
        if self.cue_return is not None:
            out.append(Line("cue_return", None, self.cue_return, "cue_return"))
        out += [Line("cushion", name, pin, f"cushions.{name}") for name, pin in self.cushions.items()]
        if self.cushion_shared is not None:
            out.append(Line("cushion", None, self.cushion_shared, "cushion_shared"))
        if self.strike is not None:
            out.append(Line("strike", None, self.strike, "strike"))
        return out

    def validate(self, key: str) -> None:
        if self.cushions and self.cushion_shared is not None:
            raise ConfigError(f"{key}.cushion_shared",
                              msg("give either one shared cushion line or [{key}.cushions] per rail, not both",
                                  key=key))
        if self.enabled and not self.lines():
            raise ConfigError(key, msg("enabled, but no sensor pins given (pockets, cue_return, cushions, "
                                       "cushion_shared, strike)"))
        used: dict[int, str] = {}
        for line in self.lines():
            if line.pin in used:
                other = f"{key}.{used[line.pin]}"
                raise ConfigError(f"{key}.{line.key}", msg("GPIO {pin} is already used by {key}; each line needs its "
                                                           "own pin", pin=line.pin, key=other))
            used[line.pin] = line.key


@dataclass(frozen=True)
class Line:
    """One configured sensor line: its kind, its pocket or rail name (or None), its pin, its key.

    >>> Line("pocket", "foot_left", 24, "pockets.foot_left").subject
    'pocket:foot_left'
    """

    kind: str
    name: str | None
    pin: int
    key: str

    @property
    def subject(self) -> str:
        """The name health reports use for this line: ``pocket:foot_left``, ``cushion``, ``strike``."""
        return self.kind if self.name is None else f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class FilterConfig:
    """``[sensors.filter]``: the glitch filter's times, the same on every line but the strike's lockout.

    A pulse counts once it has lasted ``min_pulse_ms``; after a counted pulse the
    line is ignored for ``lockout_ms`` (``strike_lockout_ms`` on the strike line,
    whose vibration sensor chatters for a while after a hit). A line active for
    ``stuck_after_s`` is reported as a fault. A cue-return pulse within
    ``cue_merge_ms`` after a pocket beam is the cue ball crossing both: one input.

    >>> FilterConfig().lockout_ms, FilterConfig().cue_merge_ms
    (30.0, 1000.0)
    """

    min_pulse_ms: float = setting(1.0, millis)
    lockout_ms: float = setting(30.0, millis)
    strike_lockout_ms: float = setting(250.0, millis)
    stuck_after_s: float = setting(5.0, seconds)
    cue_merge_ms: float = setting(1000.0, millis)


@dataclass(frozen=True)
class SerialConfig:
    """``[sensors.serial]``: the microcontroller bridge's port; on when written, off when absent.

    >>> SerialConfig().port, SerialConfig().baud
    ('/dev/devetka-bridge', 115200)
    """

    enabled: bool = setting(True, boolean)
    port: str = setting("/dev/devetka-bridge", text)
    baud: int = setting(115200, whole_number)
    rails: bool = setting(False, boolean)
    """The microcontroller has rail (cushion) sensors: its hello names no lines, so the config says so."""
    strike: bool = setting(False, boolean)
    """The microcontroller has a strike sensor (likewise)."""


@dataclass(frozen=True)
class SensorsConfig:
    """``[sensors]``: the GPIO lines, their filter, the serial bridge.

    >>> SensorsConfig().gpio.enabled, SensorsConfig().serial.enabled
    (False, False)
    """

    gpio: GpioConfig = setting(GpioConfig(enabled=False), section(GpioConfig))
    filter: FilterConfig = setting(FilterConfig(), section(FilterConfig))
    serial: SerialConfig = setting(SerialConfig(enabled=False), section(SerialConfig))

    def sensed(self) -> dict[str, bool]:
        """The match's sensed switches at this table: rail sensors on a GPIO line or the microcontroller
        (``[sensors.serial] rails``), likewise a strike sensor; none with no sensor section (taps only).

        >>> SensorsConfig().sensed()
        {'rails_sensed': False, 'strike_sensed': False}
        >>> SensorsConfig(gpio=GpioConfig(cushion_shared=21)).sensed()
        {'rails_sensed': True, 'strike_sensed': False}
        """
        gpio, serial = self.gpio, self.serial
        rails = (gpio.enabled and bool(gpio.cushions or gpio.cushion_shared is not None)) or (
            serial.enabled and serial.rails)
        strike = (gpio.enabled and gpio.strike is not None) or (serial.enabled and serial.strike)
        return {"rails_sensed": rails, "strike_sensed": strike}
