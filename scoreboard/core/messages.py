"""Words for people as gettext messages: the English source text (the msgid) and its arguments.

The core decides what is said, not in which language: a ruling, a refusal or an error is a ``Message``
(``msg``, ``msg_n``), put into words only when it is read, by ``render`` with a catalog the reader passes in
(``gettext.GNUTranslations`` loaded by ``scoreboard.i18n``; English, the source language, by default). The
core reads no file. ``to_json`` serves a message as its id and arguments, so a screen, the venue board or an
MQTT consumer can put it into another language (docs/match-log.md, "Rulings as messages").

>>> foul = msg("Foul {rules}: {reasons}.", rules="5.8", reasons=msg("the cue ball hit no ball"))
>>> render(foul)
'Foul 5.8: the cue ball hit no ball.'
>>> down = msg_n("the {balls} stays down", "the {balls} stay down", Balls((3, 5)).n, balls=Balls((3, 5)))
>>> str(down), to_json(down)["args"]
('the 3 and 5 stay down', {'n': 2, 'balls': {'balls': [3, 5]}})
>>> render(from_json(to_json(foul))) == render(foul), cited(foul)
(True, ('5.8',))
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, Union


class Catalog(Protocol):
    """What ``render`` needs of a translation: gettext's two lookups (``gettext.NullTranslations`` has them)."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


#: The source language: every message as written.
ENGLISH: Catalog = gettext.NullTranslations()
#: The languages Devetka speaks, the source language first (the catalogs: scoreboard/i18n).
LANGUAGES = ("en", "hr")

Arg = Union[str, int, "Message", "Balls", "Joined"]


@dataclass(frozen=True, slots=True)
class Message:
    """One sentence (or phrase) for a person: its msgid, the plural msgid and the count that picks the form,
    and the arguments its ``{names}`` stand for (themselves messages where they are words)."""

    text: str
    args: tuple[tuple[str, Arg], ...] = ()
    plural: str | None = None
    n: int = 1

    def __str__(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Balls:
    """Numbered balls named in a sentence: '3', '3 and 5', '2, 3 and 5'; the words around them (and the noun's
    form) are the message's own."""

    numbers: tuple[int, ...]

    @property
    def n(self) -> int:
        """The count a message about these balls takes its form from: 1 or 2. Named balls are one or several,
        never counted ("kugle 2, 3, 5, 6 i 7", not "kugli")."""
        return 1 if len(self.numbers) == 1 else 2


@dataclass(frozen=True, slots=True)
class Joined:
    """Several messages said one after another: the sentences of a ruling (" "), the reasons of a foul ("; ")."""

    parts: tuple[Arg, ...]
    separator: str = " "


def msg(text: str, /, **args: Arg) -> Message:
    """A message to say; the extraction of the catalogs finds every call by this name (scoreboard/i18n)."""
    return Message(text, tuple(args.items()))


def msg_n(singular: str, plural: str, n: int, /, **args: Arg) -> Message:
    """A message whose form follows the count ``n`` (English: 1 or more; Croatian: 1 kugla, 2 kugle, 5 kugli);
    ``{n}`` may stand in it for the count."""
    return Message(singular, (("n", n), *args.items()), plural, n)


def joined(parts: Iterable[Arg], separator: str = " ") -> Joined:
    return Joined(tuple(parts), separator)


def render(value: Arg, catalog: Catalog = ENGLISH) -> str:
    """The words of a message (or an argument) in the catalog's language."""
    if isinstance(value, Message):
        if value.plural is None:
            template = catalog.gettext(value.text)
        else:
            template = catalog.ngettext(value.text, value.plural, value.n)
        if not value.args:
            return template
        return template.format_map({name: render(arg, catalog) for name, arg in value.args})
    if isinstance(value, Joined):
        return value.separator.join(render(part, catalog) for part in value.parts)
    if isinstance(value, Balls):
        return _balls(value.numbers, catalog)
    return str(value)


def _balls(numbers: tuple[int, ...], catalog: Catalog) -> str:
    names = [str(number) for number in numbers]
    if len(names) == 1:
        return names[0]
    return catalog.gettext("{balls} and {last}").format(balls=", ".join(names[:-1]), last=names[-1])


def to_json(value: Arg) -> Any:
    """A message as served: ``{"id": msgid, "args": {...}}`` (with ``"plural"`` and ``"n"`` where it has a
    plural form), an argument as itself (a name, a number), ``{"balls": [...]}`` or
    ``{"join": separator, "parts": [...]}``."""
    if isinstance(value, Message):
        out: dict[str, Any] = {"id": value.text, "args": {name: to_json(arg) for name, arg in value.args}}
        if value.plural is not None:
            out["plural"] = value.plural
            out["n"] = value.n
        return out
    if isinstance(value, Joined):
        return {"join": value.separator, "parts": [to_json(part) for part in value.parts]}
    if isinstance(value, Balls):
        return {"balls": list(value.numbers)}
    return value


def from_json(raw: Any) -> Arg:
    """A served message back as a ``Message`` (for a screen to say it in its own language); what is not one
    of the served forms is taken as a word to show as it is."""
    if isinstance(raw, dict):
        if isinstance(raw.get("id"), str):
            args = raw["args"] if isinstance(raw.get("args"), dict) else {}
            plural = raw["plural"] if isinstance(raw.get("plural"), str) else None
            n = raw["n"] if type(raw.get("n")) is int else 1
            return Message(raw["id"], tuple((str(k), from_json(v)) for k, v in args.items()), plural, n)
        if isinstance(raw.get("balls"), list):
            return Balls(tuple(int(b) for b in raw["balls"] if type(b) is int))
        if isinstance(raw.get("parts"), list):
            return Joined(tuple(from_json(part) for part in raw["parts"]), str(raw.get("join", " ")))
    if isinstance(raw, str | int) and type(raw) is not bool:
        return raw
    return str(raw)


_RULE = re.compile(r"(?<![\w.])(5\.1[0-5]|5\.[1-9]|R1[01]|R[1-9]|TR20)(?![\w])")


def cited(value: Arg) -> tuple[str, ...]:
    """The rules a message cites (5.1 to 5.15, R1 to R11, TR20 for the shot clock), in the order it names them,
    each once; read from the English source, so the same in every language. Of the arguments only messages and
    ``rule``/``rules`` are read: a player may be called R2."""
    found: dict[str, None] = {}
    _cite(value, found)
    return tuple(found)


def _cite(value: Arg, found: dict[str, None]) -> None:
    if isinstance(value, Message):
        args = dict(value.args)
        for piece in re.split(r"(\{\w+\})", value.text):
            name = piece[1:-1] if piece.startswith("{") and piece.endswith("}") else None
            if name in ("rule", "rules") and isinstance(args.get(name), str):
                found.update(dict.fromkeys(_RULE.findall(str(args[name]))))
            elif name is not None and name in args:
                _cite(args[name], found)
            else:
                found.update(dict.fromkeys(_RULE.findall(piece)))
    elif isinstance(value, Joined):
        for part in value.parts:
            _cite(part, found)
