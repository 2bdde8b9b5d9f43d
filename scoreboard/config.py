"""The table's TOML config as typed, frozen settings; a wrong key or value names its key.

A table is set up once, by someone wiring sensors under it, and then runs for
months: a typo that is silently ignored (``foot_lft = 24``) would referee with
a dead pocket. So every key is known, every value is checked, and the first
problem stops the start with a message that names the key path and what was
expected. TOML syntax errors name the line.

Each section is a frozen dataclass; each field says its default and the small
check that turns a raw TOML value into its type (``setting(default, check)``).
Adding a section is one dataclass and one field in its parent.

>>> config = parse('''
... [sensors.gpio]
... pockets = { foot_left = 24, foot_right = 25 }
... strike = 20
... ''')
>>> dict(config.sensors.gpio.pockets), config.sensors.gpio.strike, config.sensors.serial.enabled
({'foot_left': 24, 'foot_right': 25}, 20, False)
>>> parse("[sensors.filter]\\nlockout_ms = 'x'")
Traceback (most recent call last):
...
scoreboard.config.ConfigError: sensors.filter.lockout_ms: expected a number of milliseconds >= 0, got "x"
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from types import MappingProxyType
from typing import Any

from scoreboard.inputs import BREAK_ORDERS, POCKETS, RAILS, MatchStart, RuleOptions

#: BCM numbers a sensor may use: 0 and 1 are the HAT ID EEPROM's I2C bus.
GPIO_PINS = range(2, 28)

#: The kinds of sensor line; each has its own polarity (``active_high``).
LINE_KINDS = ("pocket", "cue_return", "cushion", "strike")


class ConfigError(ValueError):
    """A config that cannot be used; ``key`` is the dotted key path the message starts with.

    >>> ConfigError("sensors.serial.baud", "expected a whole number > 0, got 0").key
    'sensors.serial.baud'
    """

    def __init__(self, key: str, problem: str, *, file: str | None = None) -> None:
        self.key = key
        self.problem = problem
        message = f"{key}: {problem}" if key else problem
        super().__init__(f"{file}: {message}" if file else message)


Check = Callable[[Any, str], Any]
"""Turns a raw TOML value at a key path into its typed value, or raises ``ConfigError``."""


def setting(default: Any, check: Check) -> Any:
    """A dataclass field read from TOML: its default and the check its raw value goes through."""
    if isinstance(default, Mapping | list | dict) or dataclasses.is_dataclass(default):
        return field(default_factory=lambda: default, metadata={"check": check})
    return field(default=default, metadata={"check": check})


def _show(value: Any) -> str:
    """A raw value as the message shows it: strings quoted, booleans as TOML writes them."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)          # nan, inf, -inf: as TOML writes them
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# One small check per kind of value.


def boolean(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, f"expected true or false, got {_show(value)}")
    return value


def gpio_pin(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in GPIO_PINS:
        raise ConfigError(key, f"expected a BCM GPIO number from 2 to 27 (0 and 1 belong to the HAT "
                               f"EEPROM), got {_show(value)}")
    return value


def millis(value: Any, key: str) -> float:
    if not _is_number(value) or value < 0:
        raise ConfigError(key, f"expected a number of milliseconds >= 0, got {_show(value)}")
    return float(value)


def seconds(value: Any, key: str) -> float:
    if not _is_number(value) or value <= 0:
        raise ConfigError(key, f"expected a number of seconds > 0, got {_show(value)}")
    return float(value)


def whole_number(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(key, f"expected a whole number > 0, got {_show(value)}")
    return value


def text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, f"expected a non-empty string, got {_show(value)}")
    return value


def table_id(value: Any, key: str) -> str:
    """A table's id goes into MQTT topics and file names: ASCII letters, digits, '-' and '_' only."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise ConfigError(key, f"expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), "
                               f"got {_show(value)}")
    return value


def port_number(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        raise ConfigError(key, f"expected a TCP port from 1 to 65535, got {_show(value)}")
    return value


def topic_prefix(value: Any, key: str) -> str:
    """MQTT topic levels that others subscribe under: no wildcards, no empty level, no leading or trailing '/'."""
    if (not isinstance(value, str) or not value or any(c in value for c in "+#\0")
            or "" in value.split("/")):
        raise ConfigError(key, f"expected MQTT topic levels such as \"devetka\" or \"venue/devetka\" (no '+', "
                               f"'#', empty level or leading or trailing '/'), got {_show(value)}")
    return value


#: The longest path a Unix socket can be bound to on Linux (``sun_path`` is 108 bytes with its NUL).
SOCKET_PATH_MAX = 107


def socket_path(value: Any, key: str) -> str:
    """A Unix socket's path: the kernel refuses a longer one only when the daemon binds it, so check here."""
    value = text(value, key)
    if len(value.encode()) > SOCKET_PATH_MAX:
        raise ConfigError(key, f"a Unix socket path must be at most {SOCKET_PATH_MAX} bytes, "
                               f"got {len(value.encode())}")
    return value


def player_names(value: Any, key: str) -> tuple[str, str]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(name, str) and name.strip() for name in value)):
        raise ConfigError(key, f"expected two non-empty names, got {_show(value)}")
    return value[0].strip(), value[1].strip()


def race_pair(value: Any, key: str) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value)):
        raise ConfigError(key, f"expected [n0, n1], racks each player needs to win, each a whole number >= 1, "
                               f"got {_show(value)}")
    return value[0], value[1]


def rule_options(value: Any, key: str) -> RuleOptions:
    """``[match.rules]``: the match log's rule options under their JSON names, so config and log agree."""
    values = {}
    for name, raw in _table(value, key).items():
        attr = RuleOptions.JSON_NAMES.get(name)
        if attr is None:
            raise _unknown(key, name, list(RuleOptions.JSON_NAMES))
        if name == "break":
            if raw not in BREAK_ORDERS or not isinstance(raw, str):
                raise ConfigError(f"{key}.{name}", f"expected \"winner\" or \"alternate\", got {_show(raw)}")
            values[attr] = raw
        else:
            values[attr] = boolean(raw, f"{key}.{name}")
    return RuleOptions(**values)


def _table(value: Any, key: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(key, f"expected a table, got {_show(value)}")
    return value


def _unknown(key: str, name: str, known: tuple[str, ...] | list[str]) -> ConfigError:
    return ConfigError(f"{key}.{name}" if key else name, f"unknown key (known: {', '.join(known)})")


def pin_table(names: tuple[str, ...]) -> Check:
    """A table of GPIO pins keyed by a fixed set of names (pockets, rails); any subset of them."""

    def check(value: Any, key: str) -> Mapping[str, int]:
        pins = {}
        for name, pin in _table(value, key).items():
            if name not in names:
                raise _unknown(key, name, names)
            pins[name] = gpio_pin(pin, f"{key}.{name}")
        return MappingProxyType({name: pins[name] for name in names if name in pins})

    return check


def section(cls: type) -> Check:
    """A table read into the dataclass ``cls``: known keys only, each through its field's check."""

    def check(value: Any, key: str) -> Any:
        return build(cls, _table(value, key), key)

    return check


def build(cls: type, raw: dict, key: str = "") -> Any:
    """``cls`` from a TOML table; then its ``validate(key)``, for rules that span several fields."""
    known = {f.name: f for f in dataclasses.fields(cls) if "check" in f.metadata}
    values = {}
    for name, value in raw.items():
        spec = known.get(name)
        if spec is None:
            raise _unknown(key, name, list(known))
        values[name] = spec.metadata["check"](value, f"{key}.{name}" if key else name)
    built = cls(**values)
    validate = getattr(built, "validate", None)
    if validate is not None:
        validate(key)
    return built


# The sections.


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
                              f"give either one shared cushion line or [{key}.cushions] per rail, not both")
        if self.enabled and not self.lines():
            raise ConfigError(key, "enabled, but no sensor pins given (pockets, cue_return, cushions, "
                                   "cushion_shared, strike)")
        used: dict[int, str] = {}
        for line in self.lines():
            if line.pin in used:
                raise ConfigError(f"{key}.{line.key}", f"GPIO {line.pin} is already used by {key}.{used[line.pin]}; "
                                                       f"each line needs its own pin")
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


@dataclass(frozen=True)
class SensorsConfig:
    """``[sensors]``: the GPIO lines, their filter, the serial bridge.

    >>> SensorsConfig().gpio.enabled, SensorsConfig().serial.enabled
    (False, False)
    """

    gpio: GpioConfig = setting(GpioConfig(enabled=False), section(GpioConfig))
    filter: FilterConfig = setting(FilterConfig(), section(FilterConfig))
    serial: SerialConfig = setting(SerialConfig(enabled=False), section(SerialConfig))


@dataclass(frozen=True)
class TableConfig:
    """``[table]``: the table's id, which names it in MQTT topics and in its match logs.

    >>> TableConfig().id
    'table1'
    """

    id: str = setting("table1", table_id)


@dataclass(frozen=True)
class StoreConfig:
    """``[store]``: the SQLite file that keeps every applied input of every match.

    >>> StoreConfig().path
    '/var/lib/devetka/devetka.sqlite3'
    """

    path: str = setting("/var/lib/devetka/devetka.sqlite3", text)


@dataclass(frozen=True)
class ApiConfig:
    """``[api]``: the Unix socket of the local API, the touchscreen's way in.

    >>> ApiConfig().socket
    '/run/devetka/api.sock'
    """

    socket: str = setting("/run/devetka/api.sock", socket_path)


@dataclass(frozen=True)
class MatchConfig:
    """``[match]``: what a new match starts with unless the screen says otherwise.

    The rule options are ``scoreboard.inputs.RuleOptions`` under the match log's
    names (``[match.rules] break = "alternate"``), so what the config sets is what
    the ``match_start`` line records.

    >>> start = MatchConfig(race=(3, 3)).match_start(breaker=1, table="table1")
    >>> start.players, start.race, start.breaker, start.options.break_order
    (('Player 1', 'Player 2'), (3, 3), 1, 'winner')
    """

    players: tuple[str, str] = setting(("Player 1", "Player 2"), player_names)
    race: tuple[int, int] = setting((5, 5), race_pair)
    rules: RuleOptions = setting(RuleOptions(), rule_options)

    def match_start(self, breaker: int, table: str | None = None, t: float | None = None) -> MatchStart:
        """The ``match_start`` of a match with these defaults; ``breaker`` is the lag winner's choice."""
        return MatchStart(players=self.players, race=self.race, breaker=breaker, options=self.rules,
                          table=table, t=t)


@dataclass(frozen=True)
class ShotsConfig:
    """``[shots]``: how long the table must be quiet (no sensor input) before a shot is over.

    >>> ShotsConfig().settle_after_s
    4.0
    """

    settle_after_s: float = setting(4.0, seconds)


def pin_code(value: Any, key: str) -> str:
    """A PIN typed on the touchscreen's keypad: 4 to 8 digits, as a string (a leading 0 counts)."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4,8}", value):
        raise ConfigError(key, f"expected 4 to 8 digits in quotes, e.g. \"4711\", got {_show(value)}")
    return value


@dataclass(frozen=True)
class UiConfig:
    """``[ui]``: the touchscreen (``devetka ui``); its settings open only with this PIN.

    >>> UiConfig().pin, parse('[ui]\\npin = "4711"').ui.pin
    ('0000', '4711')
    """

    pin: str = setting("0000", pin_code)


@dataclass(frozen=True)
class MqttTlsConfig:
    """``[mqtt.tls]``: TLS to the broker, on when written; the broker's name is checked against its certificate.

    ``ca_file`` is the CA that signed the broker's certificate (left out: the system's
    CAs); ``certfile`` and ``keyfile`` are this table's own certificate, for a broker
    that asks for one (``keyfile`` may be left out when ``certfile`` holds the key too).

    >>> MqttTlsConfig().ca_file is None, Config().mqtt.tls.enabled
    (True, False)
    """

    enabled: bool = setting(True, boolean)
    ca_file: str | None = setting(None, text)
    certfile: str | None = setting(None, text)
    keyfile: str | None = setting(None, text)

    def validate(self, key: str) -> None:
        if self.keyfile is not None and self.certfile is None:
            raise ConfigError(f"{key}.keyfile", "a client key needs its certificate: give certfile too")


@dataclass(frozen=True)
class MqttConfig:
    """``[mqtt]``: the broker the table publishes to (``docs/mqtt.md``); on when written, off when absent.

    Topics are ``<prefix>/<table id>/...``; Home Assistant finds the table under
    ``<discovery_prefix>/...`` when ``discovery`` is on. The broker notices a table
    that vanished without closing its connection (power cut) after 1.5 x ``keepalive_s``.

    >>> MqttConfig().host, MqttConfig().port, MqttConfig().prefix, Config().mqtt.enabled
    ('localhost', 1883, 'devetka', False)
    """

    enabled: bool = setting(True, boolean)
    host: str = setting("localhost", text)
    port: int = setting(1883, port_number)
    username: str | None = setting(None, text)
    password: str | None = setting(None, text)
    client_id: str | None = setting(None, text)
    keepalive_s: int = setting(15, whole_number)
    prefix: str = setting("devetka", topic_prefix)
    discovery: bool = setting(True, boolean)
    discovery_prefix: str = setting("homeassistant", topic_prefix)
    tls: MqttTlsConfig = setting(MqttTlsConfig(enabled=False), section(MqttTlsConfig))

    def validate(self, key: str) -> None:
        if self.password is not None and self.username is None:
            raise ConfigError(f"{key}.password", "a password needs its username: give username too")


@dataclass(frozen=True)
class Config:
    """The whole config of one table.

    >>> Config().sensors.filter.min_pulse_ms, Config().table.id
    (1.0, 'table1')
    """

    table: TableConfig = setting(TableConfig(), section(TableConfig))
    store: StoreConfig = setting(StoreConfig(), section(StoreConfig))
    api: ApiConfig = setting(ApiConfig(), section(ApiConfig))
    match: MatchConfig = setting(MatchConfig(), section(MatchConfig))
    shots: ShotsConfig = setting(ShotsConfig(), section(ShotsConfig))
    sensors: SensorsConfig = setting(SensorsConfig(), section(SensorsConfig))
    mqtt: MqttConfig = setting(MqttConfig(enabled=False), section(MqttConfig))
    ui: UiConfig = setting(UiConfig(), section(UiConfig))

    @property
    def settle_hold_back_s(self) -> float:
        """How long a sensor input may reach the daemon after its ``t``: the settle timer's ``hold_back``.

        The GPIO source holds a pocket beam's input up to ``cue_merge_ms`` waiting
        for the cue-return sensor, and what came after it waits too; a settle given
        inside that window could end the shot before the ball that dropped in it.
        (The source's poll lag, a fraction of a second, is the daemon's to add.)

        Only pocket beams are held, so a table whose GPIO has none holds nothing back.

        >>> parse("[sensors.gpio.pockets]\\nfoot_left = 5").settle_hold_back_s
        1.0
        >>> parse("[sensors.gpio]\\nstrike = 20").settle_hold_back_s, Config().settle_hold_back_s
        (0.0, 0.0)
        """
        gpio = self.sensors.gpio
        return self.sensors.filter.cue_merge_ms / 1000 if gpio.enabled and gpio.pockets else 0.0


def parse(text: str) -> Config:
    """The config in a TOML string, or ``ConfigError`` naming the first wrong key or the bad line."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("", f"not valid TOML: {error}") from None
    return build(Config, raw)


def load(path: str | PathLike[str]) -> Config:
    """The config in the TOML file at ``path``; a ``ConfigError`` message starts with the file name."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError("", f"cannot read the config: {error}", file=str(path)) from None
    try:
        return parse(text)
    except ConfigError as error:
        raise ConfigError(error.key, error.problem, file=str(path)) from None
