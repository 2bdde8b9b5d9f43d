"""Settings changed on the touchscreen: kept as ``settings.json`` beside the store, over the config file.

The config file is written once, by whoever installs the table; the bar staff
change the table id, the broker or the settle time on the screen later. Those
changes are a flat JSON object of dotted keys (``{"table.id": "bar2"}``) in the
daemon's data directory (the store's folder), laid over the config file's TOML
and checked by the very same ``build(Config, ...)``: a value the file would
refuse is refused here, naming its key, and nothing is written.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> settings = Overrides(f"{folder}/settings.json", {"table": {"id": "bar1"}})
>>> settings.set({"table.id": "bar2", "shots.settle_after_s": 3}).table.id
'bar2'
>>> settings.set({"shots.settle_after_s": 0})
Traceback (most recent call last):
...
scoreboard.core.checks.ConfigError: shots.settle_after_s: expected a number of seconds > 0, got 0
>>> Overrides.open(f"{folder}/settings.json", {})[0].values
{'table.id': 'bar2', 'shots.settle_after_s': 3}
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from scoreboard.config.table import Config, ConfigError, build
from scoreboard.core.messages import Message, msg

FILE_NAME = "settings.json"

#: The keys the screen may change (behind the PIN, ``ui.pin`` itself included); the rest (store, socket, pins,
#: TLS) stay the installer's.
SETTABLE = ("table.id", "table.language", "shots.settle_after_s", "mqtt.enabled", "mqtt.host", "mqtt.port",
            "sensors.gpio.enabled", "sensors.serial.enabled", "ui.sound", "ui.pin")

#: Settings never shown back: a PIN is checked, not read.
SECRET = ("ui.pin",)

#: Keys that apply at once; the others at the daemon's next start.
LIVE = ("shots.settle_after_s", "table.language", "ui.sound", "ui.pin")


def _acl_names_table(config: Config, table: str) -> Message:
    """Why the screen may not rename a table that logs in to its broker: install.sh wrote the broker's ACL (and the
    venue's bridge) for this id, and the broker drops, without a word, what a login may not publish."""
    return msg("not changed here: the broker's ACL lets the login {user} publish only under {prefix}/{table}/, so "
               "under another id every message would be dropped; change [table] id in the config file and run "
               "'sudo deploy/install.sh' again, which writes the ACL (and a venue bridge) for the new id",
               user=repr(config.mqtt.username), prefix=config.mqtt.prefix, table=table)


def path_beside(store_path: str | os.PathLike[str]) -> Path:
    """Where the overrides of a daemon live: its data directory, the folder of its store."""
    return Path(store_path).parent / FILE_NAME


def _overlay(raw: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The config file's TOML tables with the dotted ``values`` written into them (a copy)."""
    merged = copy.deepcopy(raw)
    for dotted, value in values.items():
        *sections, name = dotted.split(".")
        table = merged
        for section in sections:
            table = table.setdefault(section, {})
        table[name] = value
    return merged


def _value(config: Config, dotted: str) -> Any:
    for name in dotted.split("."):
        config = getattr(config, name)
    return config


class Overrides:
    """The overrides file of one daemon over the raw TOML of its config file (``base``).

    >>> Overrides("/nonexistent/settings.json", {}).set({"store.path": "/tmp/x"})
    Traceback (most recent call last):
    ...
    scoreboard.core.checks.ConfigError: store.path: not a setting the screen may change (it may change table.id, \
table.language, shots.settle_after_s, mqtt.enabled, mqtt.host, mqtt.port, sensors.gpio.enabled, \
sensors.serial.enabled, ui.sound, ui.pin)
    """

    def __init__(self, path: str | os.PathLike[str], base: dict[str, Any],
                 values: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.base = base
        self.values: dict[str, Any] = dict(values or {})

    @classmethod
    def open(cls, path: str | os.PathLike[str], base: dict[str, Any]) -> tuple[Overrides, ConfigError | None]:
        """The overrides in ``path`` (none if absent); a broken file gives none and the error naming file and key."""
        settings = cls(path, base)
        try:
            text = settings.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return settings, None
        except (OSError, UnicodeDecodeError) as error:
            return settings, ConfigError("", msg("cannot read the settings: {error}", error=str(error)), file=str(path))
        try:
            values = json.loads(text)
        except ValueError as error:
            return settings, ConfigError("", msg("not valid JSON: {error}", error=str(error)), file=str(path))
        if not isinstance(values, dict):
            return settings, ConfigError("", msg("expected a JSON object of settings"), file=str(path))
        try:
            settings.effective(values)
        except ConfigError as error:
            return settings, ConfigError(error.key, error.problem, file=str(path))
        settings.values = values
        return settings, None

    def effective(self, values: dict[str, Any] | None = None) -> Config:
        """The config file with ``values`` (default: the stored ones) over it; ``ConfigError`` names a bad key."""
        values = self.values if values is None else values
        for key in values:
            if key not in SETTABLE:
                raise ConfigError(key, msg("not a setting the screen may change (it may change {keys})",
                                           keys=", ".join(SETTABLE)))
        config: Config = build(Config, _overlay(self.base, values))
        return config

    def shown(self) -> dict[str, Any]:
        """What the ``settings`` command answers: the overrides, the values in effect, and the file."""
        config = self.effective()
        return {"overrides": {key: value for key, value in self.values.items() if key not in SECRET},
                "effective": {key: _value(config, key) for key in SETTABLE if key not in SECRET},
                "pin_chosen": config.ui.pin is not None, "file": str(self.path)}

    def pin(self) -> str | None:
        """The PIN in effect: the screen's choice over the config file's; None until one is chosen."""
        return self.effective().ui.pin

    def set(self, changes: Any) -> Config:
        """Check ``changes`` over the stored overrides, then write them all or (on any error) none."""
        if not isinstance(changes, dict) or not changes:
            raise ConfigError("set", msg("expected an object of settings, e.g. {example}",
                                         example='{"table.id": "bar2"}'))
        values = {**self.values, **changes}
        config = self.effective(values)
        before = self.effective()
        if config.table.id != before.table.id and config.mqtt.enabled and config.mqtt.username is not None:
            raise ConfigError("table.id", _acl_names_table(config, before.table.id))
        self._write(values)
        self.values = values
        return config

    def _write(self, values: dict[str, Any]) -> None:
        """Write a temporary file, fsync it, rename it over: a power cut leaves the old file or the new one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(values, file, indent=2, ensure_ascii=False)
                file.write("\n")
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
