"""The glossary kept (docs/i18n.md): a wording the Croatian proofread (issue 35) found saying the wrong thing, or
a second word for one thing, is named wherever a message or a rule's text uses it again.

``python -m scoreboard.i18n.build --check`` names each (tests/i18n/test_build.py runs it): a message added later in
another word fails there, not in a player's hands. The fix is the glossary's word; where the glossary is wrong, the
glossary is changed first, here and in docs/i18n.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple


class Avoided(NamedTuple):
    """A wording not to use in a translation whose English matches ``where`` (every one when None), and why."""

    where: re.Pattern[str] | None
    wording: re.Pattern[str]
    why: str


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: The wordings each language's glossary avoids (only Croatian has a glossary).
AVOIDED: dict[str, tuple[Avoided, ...]] = {"hr": (
    Avoided(_words(r"\b(an)?other foul|\bany other foul"), _words(r"(?<!neki )\bdrugi faul\b|\bsvakog drugog faula"),
            "another foul is 'neki drugi faul' ('bilo kojeg drugog faula'): 'drugi faul' reads as the second foul, "
            "'svakog drugog faula' as every second one"),
    Avoided(_words(r"\btake\b.*\bback\b|\btaken back\b|\bundo\b|\bpass(ed)? back\b|\bafter a pass\b"),
            _words(r"\bvra(ti|ć)\w*"),
            "a shot taken back is 'poništiti', a shot passed back 'prepustiti' (5.6): 'vratiti udarac' reads as "
            "handing the shot back"),
    Avoided(_words(r"\bgot \{"), _words(r"\bzadano\b"),
            "a wrong value is '..., a ne X' ('..., a ima N' for a count): 'zadano' is the help's word for a default"),
    Avoided(_words(r"\b(online|offline)\b"), _words(r"\b(u|is)ključen"),
            "online and offline are 'na vezi' and 'izvan veze': 'uključen' and 'isključen' are switched on and off"),
    Avoided(None, _words(r"\bdirektor"), "the director is 'voditelj natjecanja' (the command stays devetka director)"),
    Avoided(None, _words(r"\bdvoran"), "the venue is 'lokal'"),
    Avoided(None, _words(r"\bigrač"), "a player is 'natjecatelj', the seed's word"),
)}


def misworded(pairs: Iterable[tuple[str, str]], language: str) -> list[str]:
    """Each (English, translation) pair whose translation uses a wording ``language``'s glossary avoids, and why.

    >>> [said.split(": ")[0] for said in misworded([("Other foul", "Drugi faul"), ("Other foul", "Neki drugi faul")],
    ...                                              "hr")]
    ["'Drugi faul' for 'Other foul'"]
    """
    found = []
    for source, said in pairs:
        for avoided in AVOIDED.get(language, ()):
            if (avoided.where is None or avoided.where.search(source)) and avoided.wording.search(said):
                found.append(f"{said!r} for {source!r}: {avoided.why}")
    return found
