"""The small checks a typed setting is read through: each turns a raw value at a key path into its type.

Pure (no file is read here): the table's config (``scoreboard.config.table``), the sensor wiring
(``scoreboard.sensing.wiring``) and the settings changed at the table all go through these, so a value
means the same wherever it is written. Players, race and rule options are decided by the match log's
own checks (``scoreboard.core.inputs``), only worded here for a key.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any

from scoreboard.core.inputs import (
    CHOICES,
    CLOCK_SECONDS,
    CLOCK_UNSET,
    NAME_MAX,
    PROFILE_NAMES,
    RACE_MAX,
    TIMEOUT_COUNTS,
    InputError,
    RuleOptions,
    apa_skill_of,
    check_option,
    players_of,
    race_of,
)
from scoreboard.core.messages import LANGUAGES, Message, msg

#: BCM numbers a sensor may use: 0 and 1 are the HAT ID EEPROM's I2C bus.
GPIO_PINS = range(2, 28)


class ConfigError(ValueError):
    """A config that cannot be used; ``key`` is the dotted key path the message starts with.

    The problem is a message (``scoreboard.core.messages``): ``str(error)`` is the English (the log's words),
    ``render(error.message, catalog)`` the same in another language (the settings screen, ``devetka run``).

    >>> error = ConfigError("sensors.serial.baud", msg("expected a whole number > 0, got {value}", value="0"))
    >>> error.key, str(error)
    ('sensors.serial.baud', 'sensors.serial.baud: expected a whole number > 0, got 0')
    """

    def __init__(self, key: str, problem: Message | str, *, file: str | None = None) -> None:
        self.key = key
        self.problem = problem
        self.file = file
        message: Message | str = msg("{key}: {problem}", key=key, problem=problem) if key else problem
        if file:
            message = msg("{file}: {problem}", file=file, problem=message)
        super().__init__(str(message))
        self.message = message


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
        raise ConfigError(key, msg("expected true or false, got {value}", value=_show(value)))
    return value


def gpio_pin(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in GPIO_PINS:
        raise ConfigError(key, msg("expected a BCM GPIO number from 2 to 27 (0 and 1 belong to the HAT EEPROM), "
                                   "got {value}", value=_show(value)))
    return value


def millis(value: Any, key: str) -> float:
    if not _is_number(value) or value < 0:
        raise ConfigError(key, msg("expected a number of milliseconds >= 0, got {value}", value=_show(value)))
    return float(value)


def seconds(value: Any, key: str) -> float:
    if not _is_number(value) or value <= 0:
        raise ConfigError(key, msg("expected a number of seconds > 0, got {value}", value=_show(value)))
    return float(value)


def whole_number(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(key, msg("expected a whole number > 0, got {value}", value=_show(value)))
    return value


def text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, msg("expected a non-empty string, got {value}", value=_show(value)))
    return value


def table_id(value: Any, key: str) -> str:
    """A table's id goes into MQTT topics and file names: ASCII letters, digits, '-' and '_' only."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise ConfigError(key, msg("expected a name of letters, digits, '-' and '_' (it goes into MQTT topics), "
                                   "got {value}", value=_show(value)))
    return value


def language(value: Any, key: str) -> str:
    """A language the players' words are said in (``scoreboard.core.messages.LANGUAGES``)."""
    if value not in LANGUAGES:
        raise ConfigError(key, msg("expected one of {choices}, got {value}", choices=", ".join(LANGUAGES),
                                   value=_show(value)))
    return str(value)


def port_number(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        raise ConfigError(key, msg("expected a TCP port from 1 to 65535, got {value}", value=_show(value)))
    return value


def topic_prefix(value: Any, key: str) -> str:
    """MQTT topic levels that others subscribe under: no wildcards, no empty level, no leading or trailing '/'."""
    if (not isinstance(value, str) or not value or any(c in value for c in "+#\0")
            or "" in value.split("/")):
        raise ConfigError(key, msg("expected MQTT topic levels such as \"devetka\" or \"venue/devetka\" (no '+', "
                                   "'#', empty level or leading or trailing '/'), got {value}", value=_show(value)))
    return value


#: The longest path a Unix socket can be bound to on Linux (``sun_path`` is 108 bytes with its NUL).
SOCKET_PATH_MAX = 107


def socket_path(value: object, key: str) -> str:
    """A Unix socket's path: the kernel refuses a longer one only when the daemon binds it, so check here."""
    value = text(value, key)
    if len(value.encode()) > SOCKET_PATH_MAX:
        raise ConfigError(key, msg("a Unix socket path must be at most {most} bytes, got {n}", most=SOCKET_PATH_MAX,
                                   n=len(value.encode())))
    return value


def player_names(value: Any, key: str) -> tuple[str, str]:
    """Decided by the match log's own check (``players_of``), worded for a config key."""
    try:
        return players_of(value if isinstance(value, list) else None)
    except InputError:
        raise ConfigError(key, msg("expected two non-empty names of at most {most} printable characters, got {value}",
                                   most=NAME_MAX, value=_show(value))) from None


def race_pair(value: Any, key: str) -> tuple[int, int]:
    """Decided by the match log's own check (``race_of``), worded for a config key."""
    try:
        return race_of(value if isinstance(value, list) else None)
    except InputError:
        raise ConfigError(key, msg("expected [n0, n1], racks each player needs to win, each a whole number from 1 to "
                                   "{most}, got {value}", most=RACE_MAX, value=_show(value))) from None


def rule_options(value: Any, key: str) -> RuleOptions:
    """``[match.rules]``: the match log's rule options under their JSON names, decided by the log's own check
    (``RuleOptions.from_json``) and worded here for a key, so config and log agree."""
    table = _table(value, key)
    for name, raw in table.items():
        if name not in RuleOptions.JSON_NAMES:
            raise _unknown(key, name, list(RuleOptions.JSON_NAMES))
        try:
            check_option(name, raw)
        except InputError:
            raise ConfigError(f"{key}.{name}", msg("expected {choices}, got {value}", choices=_expected(name),
                                                   value=_show(raw))) from None
    try:
        return RuleOptions.from_json(table)
    except InputError as error:
        raise ConfigError(key, error.message) from None


def _expected(option: str) -> Message:
    """What a rule option takes, as the config's messages say it."""
    if option == "profile":
        return msg("one of {choices}", choices=", ".join(PROFILE_NAMES))
    if option in CHOICES:
        *first, last = (f'"{choice}"' for choice in CHOICES[option])
        return msg("{choices} or {last}", choices=", ".join(first), last=last)
    bounds = CLOCK_SECONDS.get(option) or TIMEOUT_COUNTS.get(option)
    if bounds is not None:
        if option in CLOCK_UNSET:
            return msg("a whole number from {low} to {high}, or left out", low=bounds[0], high=bounds[1])
        return msg("a whole number from {low} to {high}", low=bounds[0], high=bounds[1])
    return msg("true or false")


def profile_name(value: Any, key: str) -> str:
    """``[match] profile``: one of the rule profiles (``scoreboard.core.profiles``)."""
    if value not in PROFILE_NAMES:
        raise ConfigError(key, msg("expected one of {choices}, got {value}", choices=", ".join(PROFILE_NAMES),
                                   value=_show(value)))
    return str(value)


def skill_pair(value: Any, key: str) -> tuple[int, int]:
    """``[match] apa_skill``: the two players' APA skill levels, decided by the match log's own check."""
    try:
        return apa_skill_of(value)
    except InputError:
        raise ConfigError(key, msg("expected [sl0, sl1], skill levels 1 to 9, got {value}",
                                   value=_show(value))) from None


def _table(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(key, msg("expected a table, got {value}", value=_show(value)))
    return value


def _unknown(key: str, name: str, known: tuple[str, ...] | list[str]) -> ConfigError:
    return ConfigError(f"{key}.{name}" if key else name, msg("unknown key (known: {known})", known=", ".join(known)))


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


def build(cls: type, raw: dict[str, Any], key: str = "") -> Any:
    """``cls`` from a TOML table (through its ``combine(values, raw, key)`` where it has one); then its
    ``validate(key)``, for rules that span several fields."""
    known = {f.name: f for f in dataclasses.fields(cls) if "check" in f.metadata}
    values = {}
    for name, value in raw.items():
        spec = known.get(name)
        if spec is None:
            raise _unknown(key, name, list(known))
        values[name] = spec.metadata["check"](value, f"{key}.{name}" if key else name)
    combine = getattr(cls, "combine", None)
    if combine is not None:  # values that depend on each other as written (a profile and the rules it fills)
        values = combine(values, raw, key)
    built = cls(**values)
    validate = getattr(built, "validate", None)
    if validate is not None:
        validate(key)
    return built
