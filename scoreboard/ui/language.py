"""The touchscreen's words in the players' language: ``tr._('New match')`` in the kv files, said again when the
language changes.

The kv files bind to ``tr._`` as to a property (the pattern of Kivy's gettext example): every rule that says
``tr._(...)`` is evaluated again when ``tr.switch`` changes the language, so a screen built in English speaks
Croatian the moment the daemon serves ``"language": "hr"``. The view model's words come from the same catalog
(``scoreboard.ui.viewmodel.view``, by the state's ``language``).

>>> words = Words()
>>> words._("New match"), words.switch("hr"), words._("New match")
('New match', True, 'Novi meč')

The language last served is kept in the touchscreen's own folder (``LastLanguage``): a table made Croatian on its
settings screen says so only through the daemon, and a screen started while the daemon is down must not say "NO
CONNECTION" in English.

>>> import tempfile
>>> kept = LastLanguage(Path(tempfile.mkdtemp()) / LAST_LANGUAGE_FILE)
>>> kept.read(), kept.keep("hr"), LastLanguage(kept.path).read()
(None, True, 'hr')
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from kivy.event import Observable

from scoreboard.core.messages import Catalog
from scoreboard.i18n.catalog import LANGUAGES, catalog, language_code
from scoreboard.ui.viewmodel import N_

#: The file in the touchscreen's folder (Kivy's home: /var/lib/devetka-ui on the Pi) with the language last served.
LAST_LANGUAGE_FILE = "last-language"

#: The language buttons' words (the setup and settings screens'): each language named in itself
#: ("Language" in English, "Jezik" in Croatian), so a player who reads only one of them finds it.
LANGUAGE_BUTTON = {"en": "Language: English", "hr": "Jezik: hrvatski"}
#: The on-screen keyboard's keys that are words (kv/keyboard.kv says them in the screen's language), and the
#: PIN keypad's.
KEY_WORDS = (N_("Shift"), N_("Delete"), N_("Space"), N_("Done"), N_("Clear"))

log = logging.getLogger("devetka.ui")


class Words(Observable):  # type: ignore[misc]  # Kivy ships no type hints: Observable is Any to mypy
    """The catalog of the language shown, observable by the kv rules that use ``_``."""

    def __init__(self, language: str = "en") -> None:
        super().__init__()
        self.language = language_code(language)
        self.catalog: Catalog = catalog(self.language)
        self._observers: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []

    def _(self, text: str) -> str:
        return self.catalog.gettext(text)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.catalog.ngettext(singular, plural, n)

    def fbind(self, name: str, func: Any, *args: Any, **kwargs: Any) -> Any:
        if name == "_":
            self._observers.append((func, args, kwargs))
            return 0
        return super().fbind(name, func, *args, **kwargs)

    def funbind(self, name: str, func: Any, *args: Any, **kwargs: Any) -> Any:
        if name == "_":
            entry = (func, args, kwargs)
            if entry in self._observers:
                self._observers.remove(entry)
            return None
        return super().funbind(name, func, *args, **kwargs)

    def switch(self, language: str | None) -> bool:
        """Speak ``language`` from now on; every kv rule saying ``tr._`` is said again. True if it changed."""
        code = language_code(language)
        if code == self.language:
            return False
        self.language, self.catalog = code, catalog(code)
        for func, args, _kwargs in list(self._observers):
            func(args[0] if len(args) == 1 else args, None, None)
        return True


    def forget(self) -> None:
        """Let go of every kv rule bound so far (the app stops: its widgets go with it)."""
        self._observers.clear()


#: The one instance the kv files import (``#:import tr scoreboard.ui.language.tr``).
tr = Words()


class LastLanguage:
    """The players' language the daemon last served, kept in a file of the touchscreen's own: spoken before the
    daemon is heard (a cold start while it is down), over the config file's, which the screen's settings override."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._kept: str | None = None

    def read(self) -> str | None:
        """The language kept, if any and one Devetka speaks."""
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        self._kept = text if text in LANGUAGES else None
        return self._kept

    def keep(self, language: Any) -> bool:
        """Keep ``language`` (written only when it changes); True when written. A folder that cannot be written
        costs the screen nothing but this memory."""
        if language not in LANGUAGES or language == self._kept:
            return False
        try:
            self.path.write_text(f"{language}\n", encoding="utf-8")
        except OSError as error:
            log.warning("cannot keep the language in %s: %s", self.path, error)
            return False
        self._kept = language
        return True
