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
scoreboard.core.checks.ConfigError: sensors.filter.lockout_ms: expected a number of milliseconds >= 0, got "x"
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from os import PathLike
from types import MappingProxyType
from typing import Any

from scoreboard.core import profiles
from scoreboard.core.checks import (
    ConfigError,
    _show,
    boolean,
    build,
    language,
    player_names,
    port_number,
    profile_name,
    race_pair,
    rule_options,
    seconds,
    section,
    setting,
    skill_pair,
    socket_path,
    table_id,
    text,
    topic_prefix,
    whole_number,
)
from scoreboard.core.inputs import InputError, MatchStart, RuleOptions
from scoreboard.core.messages import msg
from scoreboard.sensing.wiring import SensorsConfig

__all__ = ["Config", "ConfigError", "build", "load", "parse"]


@dataclass(frozen=True)
class TableConfig:
    """``[table]``: the table's id, which names it in MQTT topics and in its match logs.

    >>> TableConfig().id
    'table1'
    """

    id: str = setting("table1", table_id)
    name: str | None = setting(None, text)
    """What the venue calls the table on its board ("Table 3 (TV)"); unset: its id."""
    language: str = setting("en", language)
    """The players' language: the words the daemon serves and the touchscreen shows (docs/i18n.md)."""


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
    max_clients: int = setting(64, whole_number)
    """Clients served at once (the touchscreen, taps, a demo); one more is told so and closed."""


@dataclass(frozen=True)
class MatchConfig:
    """``[match]``: what a new match starts with unless the screen says otherwise.

    The rule options are ``scoreboard.core.inputs.RuleOptions`` under the match log's
    names (``[match.rules] break = "alternate"``), so what the config sets is what
    the ``match_start`` line records.

    >>> start = MatchConfig(race=(3, 3)).match_start(breaker=1, table="table1")
    >>> start.players, start.race, start.breaker, start.options.break_order
    (('Player 1', 'Player 2'), (3, 3), 1, 'winner')
    """

    players: tuple[str, str] = setting(("Player 1", "Player 2"), player_names)
    race: tuple[int, int] = setting((5, 5), race_pair)
    rules: RuleOptions = setting(RuleOptions(), rule_options)
    profile: str | None = setting(None, profile_name)
    locked: bool = setting(False, boolean)
    apa_skill: tuple[int, int] | None = setting(None, skill_pair)
    written: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The game options ``[match.rules]`` writes, as written: what the venue sets for what its profile leaves
    open (``scoreboard.core.profiles.compose``); not a key of the file."""

    @staticmethod
    def combine(values: dict[str, Any], raw: dict[str, Any], key: str) -> dict[str, Any]:
        """``profile`` fills in the options it fixes (``scoreboard/core/profiles.py``); a game option
        ``[match.rules]`` also writes must agree with them, and what the profile leaves open is the venue's."""
        given = raw.get("rules") or {}
        written = {option: value for option, value in given.items() if option in profiles.GAME_OPTIONS}
        values = {**values, "written": MappingProxyType(written)}
        name = values.get("profile")
        if name is None:
            return values
        fixed = profiles.PROFILES[name]
        for option, value in written.items():
            if option in fixed and value != fixed[option]:
                raise ConfigError(f"{key}.rules.{option}",
                                  msg('profile "{name}" sets it to {value}: leave it out, or leave out match.profile',
                                      name=name, value=_show(fixed[option])))
        try:
            chosen = profiles.compose({}, profile=name, written=written,
                                      sensed={option: getattr(values.get("rules", RuleOptions()), option)
                                              for option in profiles.SENSED})
        except InputError as error:
            raise ConfigError(f"{key}.rules", error.message) from None
        return {**values, "rules": chosen}

    def validate(self, key: str) -> None:
        if self.locked and self.profile is None:
            raise ConfigError(f"{key}.locked", msg("locks the profile: give match.profile too"))

    def match_start(self, breaker: int, table: str | None = None, t: float | None = None) -> MatchStart:
        """The ``match_start`` of a match with these defaults; ``breaker`` is the lag winner's choice."""
        return MatchStart(players=self.players, race=self.race, breaker=breaker, options=self.rules,
                          table=table, apa_skill=self.apa_skill if self.rules.apa else None, t=t)


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
        raise ConfigError(key, msg('expected 4 to 8 digits in quotes, e.g. "4711", got {value}', value=_show(value)))
    return value


@dataclass(frozen=True)
class UiConfig:
    """``[ui]``: the touchscreen (``devetka ui``); its settings change only with this PIN, checked by the daemon.

    None ships: until a PIN is chosen (here, or on the settings screen at the first start) the daemon
    takes no settings change but the one that chooses it.

    ``sound``: the touchscreen's shot clock tones (a tone at the warning, a tick each of the last 5 s, a tone when
    it runs out), where the Pi has a sound card; the bar staff turn them off on the settings screen.

    >>> UiConfig().pin, parse('[ui]\\npin = "4711"').ui.pin, UiConfig().sound
    (None, '4711', True)
    """

    pin: str | None = setting(None, pin_code)
    sound: bool = setting(True, boolean)


def web_address(value: Any, key: str) -> str:
    """An address a phone opens: http:// or https://, a host, no spaces."""
    if not isinstance(value, str) or not re.fullmatch(r"https?://[^\s/?#]+[^\s]*", value):
        raise ConfigError(key, msg("expected an http:// or https:// address, e.g. http://venue.local:9001/, got "
                                   "{value}", value=_show(value)))
    return value


@dataclass(frozen=True)
class VenueConfig:
    """``[venue]``: the venue this table plays in. ``url`` is the venue board's address (the venue broker's
    WebSockets listener serves it): the daemon serves its night's event's page and each match's page there, which
    the touchscreen shows as QR codes for phones (``scoreboard.referee.results``).

    >>> VenueConfig().url, parse('[venue]\\nurl = "http://venue.local:9001/"').venue.url
    (None, 'http://venue.local:9001/')
    """

    url: str | None = setting(None, web_address)


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
            raise ConfigError(f"{key}.keyfile", msg("a client key needs its certificate: give certfile too"))


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
            raise ConfigError(f"{key}.password", msg("a password needs its username: give username too"))


@dataclass(frozen=True)
class Config:
    """The whole config of one table.

    >>> Config().sensors.filter.min_pulse_ms, Config().table.id
    (1.0, 'table1')
    """

    table: TableConfig = setting(TableConfig(), section(TableConfig))
    store: StoreConfig = setting(StoreConfig(), section(StoreConfig))
    api: ApiConfig = setting(ApiConfig(), section(ApiConfig))
    match: MatchConfig = setting(MatchConfig(rules=RuleOptions(rails_sensed=False)), section(MatchConfig))
    """With no sensors written, no rail sensors: the sensed switches follow ``[sensors]`` (``combine``)."""
    shots: ShotsConfig = setting(ShotsConfig(), section(ShotsConfig))
    sensors: SensorsConfig = setting(SensorsConfig(), section(SensorsConfig))
    mqtt: MqttConfig = setting(MqttConfig(enabled=False), section(MqttConfig))
    ui: UiConfig = setting(UiConfig(), section(UiConfig))
    venue: VenueConfig = setting(VenueConfig(), section(VenueConfig))

    @staticmethod
    def combine(values: dict[str, Any], raw: dict[str, Any], key: str) -> dict[str, Any]:
        """The match's sensed switches are the table's sensors': ``[match.rules]`` may only agree with them."""
        sensors = values.get("sensors", SensorsConfig())
        match = values.get("match", MatchConfig())
        given = (raw.get("match") or {}).get("rules") or {}
        sensed = sensors.sensed()
        for option, has in sensed.items():
            if option in given and given[option] != has:
                raise ConfigError(f"match.rules.{option}", msg(
                    "the table's sensors decide it ({value} with these [sensors]): leave it out", value=_show(has)))
        return {**values, "match": replace(match, rules=replace(match.rules, **sensed))}

    @property
    def sensed(self) -> dict[str, bool]:
        """The table's sensed switches, as every match at it records them (``SensorsConfig.sensed``)."""
        return self.sensors.sensed()

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
        raise ConfigError("", msg("not valid TOML: {error}", error=str(error))) from None
    config: Config = build(Config, raw)
    return config


def load(path: str | PathLike[str]) -> Config:
    """The config in the TOML file at ``path``; a ``ConfigError`` message starts with the file name."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError("", msg("cannot read the config: {error}", error=str(error)), file=str(path)) from None
    try:
        return parse(text)
    except ConfigError as error:
        raise ConfigError(error.key, error.problem, file=str(path)) from None
