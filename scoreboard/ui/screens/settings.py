"""The table's settings (``settings.kv``), behind the PIN typed on its keypad."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.properties import BooleanProperty, StringProperty

from scoreboard.contract.read import given
from scoreboard.contract.records import Answer, Refusal, Setting
from scoreboard.i18n.catalog import LANGUAGES
from scoreboard.ui.language import tr
from scoreboard.ui.viewmodel import View
from scoreboard.ui.widgets import DevetkaScreen, stand_in_row

if TYPE_CHECKING:  # the App imports the screens
    from scoreboard.ui.app import Heard, Unanswered


class SettingsScreen(DevetkaScreen):
    """The table's settings, shown once the PIN of ``[ui]`` is typed on the keypad; with no PIN chosen yet, one is
    chosen first, typed twice. Behind the PIN, the PIN can be changed (typed twice too) and a saved change that
    needs the daemon started again offers Restart."""

    pin = StringProperty("")
    """The digits typed on the keypad; once the settings are open, the PIN they were opened with."""
    unlocked = BooleanProperty(False)
    chosen = BooleanProperty(True)
    """A PIN is chosen (the served ``pin_chosen``): typed, the daemon checks it; else one is chosen, typed twice."""
    stage = StringProperty("enter")
    """What the keypad is for: ``enter`` the PIN, ``choose`` a new one, or type it ``again``."""
    first = StringProperty("")
    """The new PIN as typed the first time, while it is typed ``again``."""
    changing = BooleanProperty(False)
    """The new PIN is a change made behind the PIN (the settings were open), not the first one."""
    restart_due = BooleanProperty(False)
    """A change saved takes effect only when the daemon starts again (the answer's ``restart``): Restart is offered."""
    mqtt = BooleanProperty(False)
    gpio = BooleanProperty(False)
    serial = BooleanProperty(False)
    sound = BooleanProperty(True)
    """The shot clock's tones (``ui.sound``), saved with the rest."""
    language = StringProperty("en")
    """The table's language (``table.language``), changed by its button and saved with the rest."""
    effective: dict[str, Setting] = {}
    """The daemon's settings in effect (``{"cmd": "settings"}``): what Save compares the fields with."""
    typed_with = ""
    """The PIN the settings were opened with, while a new one is typed (``change_pin``)."""

    def on_kv_post(self, *_args: Any) -> None:
        self._restart_button = self.ids.restart.__self__  # the widget, not kv's weak proxy: out of the row at times
        self.bind(restart_due=self._place_restart)
        self._place_restart()

    def _place_restart(self, *_args: Any) -> None:
        """Restart stands beside Save while a saved change waits for it, and is out of the row (no gap) otherwise."""
        stand_in_row(self.ids.actions, self._restart_button, self.restart_due, index=0)

    def on_pre_enter(self, *_args: Any) -> None:
        self.unlocked = self.restart_due = self.changing = False
        self._keypad(self._served_chosen())

    def _served_chosen(self) -> bool:
        served = App.get_running_app().served
        return served is None or served.pin_chosen is not False

    def _keypad(self, chosen: bool) -> None:
        """The keypad cleared, to enter the PIN (one is chosen) or to choose one."""
        self.chosen = chosen
        self.stage = "enter" if chosen else "choose"
        self.pin = self.first = ""

    def show(self, current: View) -> None:
        """The served ``pin_chosen`` changed while the keypad is up (a PIN chosen at another screen, or the PIN file
        gone): the keypad asks what the daemon now wants."""
        if not self.unlocked and not self.changing and self._served_chosen() != self.chosen:
            self._keypad(self._served_chosen())

    def change_pin(self) -> None:
        """Behind the PIN: a new one, typed twice, sent with the PIN the settings were opened with."""
        self.changing, self.unlocked = True, False
        self.stage, self.first, self.typed_with = "choose", "", self.pin
        self.pin = ""

    def show_settings(self, effective: dict[str, Setting]) -> None:
        self.effective = effective
        self.ids.table_id.text = str(effective.get("table.id") or "")
        settle = effective.get("shots.settle_after_s")
        self.ids.settle.text = decimal(settle, tr.language) if isinstance(settle, int | float) else ""
        self.language = str(effective.get("table.language") or "en")
        self.ids.host.text = str(effective.get("mqtt.host") or "")
        self.ids.port.text = str(effective.get("mqtt.port") or "")
        self.mqtt = bool(effective.get("mqtt.enabled"))
        self.gpio = bool(effective.get("sensors.gpio.enabled"))
        self.serial = bool(effective.get("sensors.serial.enabled"))
        self.sound = effective.get("ui.sound") is not False

    def save(self) -> None:
        """Send what differs from the daemon's settings; the daemon checks it and says what it refuses."""
        fields = {"table.id": self.ids.table_id.text.strip(), "shots.settle_after_s": _number(self.ids.settle.text),
                  "mqtt.host": self.ids.host.text.strip(), "mqtt.port": _number(self.ids.port.text),
                  "mqtt.enabled": self.mqtt, "sensors.gpio.enabled": self.gpio, "sensors.serial.enabled": self.serial,
                  "ui.sound": self.sound, "table.language": self.language}
        changes = {key: value for key, value in fields.items() if value != self.effective.get(key)}
        app = App.get_running_app()
        if not changes:
            app.say(tr._("Nothing changed"))
            return
        app.send({"cmd": "settings", "set": changes, "pin": self.pin})

    def restart(self) -> None:
        """The daemon started again on the settings saved; the screen waits for it and comes back by itself."""
        App.get_running_app().send({"cmd": "restart", "pin": self.pin})

    def next_language(self) -> None:
        self.language = LANGUAGES[(LANGUAGES.index(self.language) + 1) % len(LANGUAGES)] \
            if self.language in LANGUAGES else "en"

    def press(self, key: str) -> None:
        app = App.get_running_app()
        if key == "Clear":
            self.pin = ""
        elif key == "OK" and self.stage == "enter":
            app.send({"cmd": "pin", "pin": self.pin})  # the daemon alone knows the PIN
        elif key == "OK" and self.stage == "choose":
            self.first, self.pin, self.stage = self.pin, "", "again"
        elif key == "OK" and self.pin != self.first:
            self.pin, self.first, self.stage = "", "", "choose"
            app.say(tr._("The two PINs typed differ: choose the PIN again"))
        elif key == "OK":
            request = {"cmd": "settings", "set": {"ui.pin": self.pin}}
            if self.changing:
                request["pin"] = self.typed_with
            app.send(request)
        elif len(self.pin) < 8:
            self.pin += key

    def answered_pin(self, heard: Heard) -> None:
        """The daemon's word on the typed PIN (``DevetkaApp.heard``): open the settings, have one chosen if none is,
        or refuse."""
        app = App.get_running_app()
        if isinstance(heard, Answer):
            self.unlocked = True
            app.send({"cmd": "settings"})
        else:
            self.refused(heard)

    def refused(self, heard: Refusal | Unanswered) -> None:
        """A PIN or a change refused: said by its ``code`` where the daemon's words name the protocol (no PIN chosen:
        the keypad asks for one to be chosen); else in the daemon's words, the keypad cleared."""
        app = App.get_running_app()
        code = heard.code if isinstance(heard, Refusal) else None
        if code == "pin_not_chosen":
            self.unlocked = self.changing = False
            self._keypad(False)
            app.say(tr._("No PIN is chosen yet: choose one, typed twice"))
        elif code in ("pin_required", "pin_wrong") and not self.unlocked:
            self.changing = False
            self._keypad(True)
            app.say(tr._("wrong PIN") if code == "pin_wrong" else tr._("A PIN is chosen now: enter it"))
        else:
            if self.stage == "again":
                self.stage = "choose"
            if not self.unlocked:
                self.pin = self.first = ""
            app.say(app.words_of(heard))

    def saved(self, answer: Answer, request: dict[str, Any]) -> None:
        """A change taken: a new PIN opens the settings on it; a change for the next start offers Restart."""
        app = App.get_running_app()
        restart = bool(given(answer.state.restart))
        settings = given(answer.state.settings)
        self.show_settings(settings.effective if settings is not None else {})
        if "ui.pin" in (request.get("set") or {}):
            self.pin, self.first, self.stage = request["set"]["ui.pin"], "", "enter"
            self.chosen = self.unlocked = True
            self.changing = False
            app.say(tr._("PIN chosen: the settings are open"))
            return
        if "set" in request:
            self.restart_due = self.restart_due or restart
            app.say(tr._("Saved: Restart for it to take effect") if restart else tr._("Saved"))


def decimal(value: float, language: str) -> str:
    """A number as the language writes it: 2.5 in English, 2,5 in Croatian.

    >>> decimal(2.5, "hr"), decimal(3.0, "hr"), decimal(2.5, "en")
    ('2,5', '3', '2.5')
    """
    text = f"{value:g}"
    return text.replace(".", ",") if language == "hr" else text


def _number(text: str) -> Any:
    """A typed number as JSON sends it (a decimal comma as a point); what is not a number goes as typed, for the
    daemon to refuse by name."""
    text = text.strip().replace(",", ".")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
