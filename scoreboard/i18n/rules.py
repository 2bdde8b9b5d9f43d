"""The rules' texts, for "Why?": the rule a ruling cites, in the players' language.

Rules 5.1 to 5.15 in Croatian are the seed's own text (``rules/devetka-pravila.txt``, a verbatim copy of the
project's Croatian source) with its typos corrected (``SEED_TYPOS``), in English the project's rendering of it;
Devetka's rulings R1 to R11 and the league options' rules (by the option's name: ``ball_in_hand``, ``scoring``
...) are in our own words in both languages (``rules/rules.en.txt``, ``rules/rules.hr.txt``). Package data, read
with ``importlib.resources``: an installed Devetka has them too.

>>> text("5.8", "hr").title, text("5.8", "en").title
('POGREŠAN UDARAC', 'Bad hit')
>>> text("R3", "hr").number, text("nine_on_break", "en").title
('R3', 'The 9 on the break spotted (league option)')
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import NamedTuple

from scoreboard.i18n.catalog import language_code

SEED = "devetka-pravila.txt"
#: The seed's typos, shown to players corrected (docs/i18n.md lists them); the seed file keeps them, as the source.
SEED_TYPOS = (
    ("jedinicu i atim ili", "jedinicu, a zatim ili"),  # 5.4
    ("onda se vranca na stol", "onda se vraća na stol"),  # 5.4
    ("četiri igrače kugle", "četiri igraće kugle"),  # 5.4: 'igraći' (object, as in 5.1's 'igraćih kugli')
    ("(izreci)", "(izreći)"),  # 5.6
    ("KUGLA IZBACENA SA STOLA", "KUGLA IZBAČENA SA STOLA"),  # 5.11
    ("bijela preskoci ili", "bijela preskoči ili"),  # 5.12
    ("u slijedeće tri", "u sljedeće tri"),  # 5.14
)
_SEED_RULE = re.compile(r"^(5\.\d+) (.*)$")
_UPPER = re.compile(r"^[^a-zčćđšž]+$")


class RuleText(NamedTuple):
    """One rule: its number (5.8, R3) or option name, its title and its text."""

    number: str
    title: str
    body: str


def _read(name: str) -> str:
    return resources.files("scoreboard.i18n").joinpath("rules", name).read_text(encoding="utf-8")


def seed(text: str) -> dict[str, RuleText]:
    """The seed's rules: each begins a line with its number and its title in capitals, the text following; a line
    with no number goes on the rule before it (5.4 is broken across two lines); the stray '|' that ends the
    file is no rule's text.

    >>> seed("5.3 RAZBIJANJE (BREAK) Pobjednik u bliškanju kugli ima izbor.\\n|")["5.3"].title
    'RAZBIJANJE (BREAK)'
    """
    rules: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        found = _SEED_RULE.match(line)
        if found:
            current = found.group(1)
            rules[current] = [found.group(2)]
        elif current is not None and line and line != "|":
            rules[current].append(line)
    out = {}
    for number, lines in rules.items():
        words = " ".join(lines).split(" ")
        cut = next((i for i, word in enumerate(words) if not _UPPER.match(word)), len(words))
        out[number] = RuleText(number, " ".join(words[:cut]), " ".join(words[cut:]))
    return out


def blocks(text: str) -> dict[str, RuleText]:
    """Our own rules' files: blocks parted by a blank line, each "NUMBER Title" and then its text.

    >>> blocks("R9 Concession\\nA player may concede a rack or the match.\\n")["R9"].body
    'A player may concede a rack or the match.'
    """
    out = {}
    for block in re.split(r"\n\s*\n", text.strip()):
        head, _, body = block.strip().partition("\n")
        number, _, title = head.partition(" ")
        out[number] = RuleText(number, title.strip(), " ".join(body.split()))
    return out


def corrected(text: str) -> str:
    """The seed with ``SEED_TYPOS`` corrected; a typo that is not there once is an error (the seed was changed).

    >>> seed(corrected(_read(SEED)))["5.11"].title
    'KUGLA IZBAČENA SA STOLA'
    """
    for typo, right in SEED_TYPOS:
        if text.count(typo) != 1:
            raise ValueError(f"the seed's typo {typo!r} is there {text.count(typo)} times, not once")
        text = text.replace(typo, right)
    return text


@functools.cache
def texts(language: str) -> dict[str, RuleText]:
    """Every rule's text in ``language`` (English for a language we have none in)."""
    code = language_code(language)
    own = blocks(_read(f"rules.{code}.txt"))
    if code == "hr":
        return {**seed(corrected(_read(SEED))), **own}
    return own


def text(number: str, language: str) -> RuleText | None:
    """The rule ``number`` (5.8, R3, an option's name) in ``language``, or None if there is no such rule."""
    return texts(language).get(number)


def board_rules(language: str) -> dict[str, dict[str, str]]:
    """The rules as the venue board reads them (scoreboard/venue/board/i18n/LANG.json)."""
    return {number: {"title": rule.title, "text": rule.body} for number, rule in texts(language).items()}
