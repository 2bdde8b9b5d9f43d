"""The touchscreen's screen manager, which makes each screen the first time it is needed, not all at start.

Building a screen applies its kv rules to a few dozen to a few hundred widgets: all 14 took a second or more on a
Pi at start, and most matches never open half of them. A screen is made when it is first shown or asked for
(``current = name``, ``get_screen``, ``has_screen`` answer for every screen it can make), and ``on_made``
is dispatched before it is drawn, so the app shows it the current state first (``DevetkaApp``). ``make_next``
makes one screen not made yet: the app calls it once a frame after the first state is shown, so a player's first
tap on a big screen (setup, settings, results) finds it built.

Kivy's Factory must know each screen's class (``NAME`` ``take_back`` -> ``TakeBackScreen``): the app loads every
screen's kv rules at build; loading is cheap, applying them is what a screen costs.

>>> class_name("take_back"), class_name("live")
('TakeBackScreen', 'LiveScreen')
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import ListProperty
from kivy.uix.screenmanager import Screen, ScreenManager


def class_name(name: str) -> str:
    """The Factory class of the screen called ``name``."""
    return "".join(part.capitalize() for part in name.split("_")) + "Screen"


class ScreensOnDemand(ScreenManager):
    """A ScreenManager whose screens are made on first need, from ``makeable`` (their names)."""

    makeable = ListProperty()
    """The names of the screens this manager makes when asked; those made are in ``screens``, as Kivy's."""

    __events__ = ("on_made",)

    def __init__(self, **kwargs: Any) -> None:
        self._making: set[str] = set()
        super().__init__(**kwargs)

    def made(self, name: str) -> bool:
        """Whether the screen ``name`` exists already (``has_screen`` also says yes to one that can be made)."""
        return bool(super().has_screen(name))

    def has_screen(self, name: str) -> bool:
        return name in self.makeable or bool(super().has_screen(name))

    def get_screen(self, name: str) -> Screen:
        if name in self.makeable and not self.made(name):
            self.make(name)
        return super().get_screen(name)

    def make(self, name: str) -> Screen:
        """Build the screen ``name`` and add it; ``on_made`` runs before anything draws it."""
        if name in self._making:
            raise RuntimeError(f"the screen {name!r} asked for itself while it was being made")
        self._making.add(name)
        try:
            screen = Factory.get(class_name(name))(name=name)
        finally:
            self._making.discard(name)
        self.add_widget(screen)
        self.dispatch("on_made", screen)
        return screen

    def make_next(self) -> str | None:
        """Make the first screen of ``makeable`` not made yet; its name, or None when every one is made."""
        names: list[str] = list(self.makeable)
        for name in names:
            if not self.made(name):
                self.make(name)
                return name
        return None

    def on_made(self, screen: Screen) -> None:
        """A screen was made (bind to it to show it the current state before it is drawn)."""
