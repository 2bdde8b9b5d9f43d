"""The words of the results screen: tonight's matches at this table as the daemon serves them (``{"cmd":
"results"}``: a ``Tonight``, each match a compact result), and what the QR code beside them holds. No Kivy here, so
it is tested alone.

>>> from scoreboard.contract.read import read
>>> from scoreboard.contract.records import Tonight
>>> rows = night_rows(read(Tonight, {"since": "2026-11-29T08:00:00+00:00", "matches": [
...     {"match": 4, "started": "2026-11-29T20:15:00+00:00", "players": ["Ana", "Ben"], "scoring": "racks",
...      "score": [3, 1], "winner": 0, "racks": 4},
...     {"match": 5, "started": "2026-11-29T21:30:00+00:00", "players": ["Mia", "Noa"], "scoring": "apa",
...      "score": [1, 0], "points": [12, 3], "targets": [38, 31], "winner": None, "racks": 1}]}), local=UTC)
>>> [row.match for row in rows]
[5, 4]
>>> print(rows[0].text)
21:30  not over yet
Mia 12/38 – 3/31 Noa
>>> print(rows[1].text)
20:15  Ana won
Ana 3 – 1 Ben
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo

from scoreboard.contract.read import given
from scoreboard.contract.records import Tonight, TonightsMatch
from scoreboard.i18n.catalog import catalog
from scoreboard.ui.qr import Code

UTC = timezone.utc


@dataclass(frozen=True)
class NightRow:
    """One of tonight's matches on the results screen: its id (a tap shows its code) and its words."""

    match: int
    text: str


def night_rows(results: Tonight | None, local: tzinfo | None = None, language: str | None = None
               ) -> tuple[NightRow, ...]:
    """Tonight's matches, the latest first (the one just played on top): when each began (the table's clock,
    ``local``: the machine's time zone by default), who won, and the score in racks or in APA points of the
    targets, in ``language``."""
    _ = catalog(language).gettext
    rows = []
    for row in results.matches if results is not None else ():
        began = _began(row, local)
        names = row.players
        if given(row.error) is not None:
            unread = _("{time}  cannot be read").format(time=began)
            rows.append(NightRow(row.match, f"{unread}\n{names[0]} – {names[1]}"))
            continue
        winner = given(row.winner)
        outcome = _("{name} won").format(name=names[winner]) if winner is not None else _("not over yet")
        rows.append(NightRow(row.match, f"{began}  {outcome}\n{_score(row)}"))
    return tuple(reversed(rows))


def unfinished(results: Tonight | None, current: int | None, local: tzinfo | None = None,
               language: str | None = None) -> NightRow | None:
    """The match of tonight to offer to resume: the latest not over (and readable) but the one on the table now,
    as the resume button says it.

    >>> from scoreboard.contract.read import read
    >>> print(unfinished(read(Tonight, {"since": "2026-11-29T08:00:00+00:00", "matches": [
    ...     {"match": 4, "started": "2026-11-29T20:15:00+00:00", "players": ["Ana", "Ben"], "scoring": "racks",
    ...      "score": [2, 1], "winner": None, "racks": 3},
    ...     {"match": 5, "started": "2026-11-29T21:30:00+00:00", "players": ["Mia", "Noa"], "scoring": "racks",
    ...      "score": [0, 0], "winner": None, "racks": 0}]}), 5, local=UTC).text)
    Resume Ana 2 – 1 Ben
    (begun 20:15)
    """
    _ = catalog(language).gettext
    for row in reversed(results.matches if results is not None else ()):
        if given(row.error) is not None or given(row.winner) is not None or row.match == current:
            continue
        return NightRow(row.match, _("Resume {score}\n(begun {time})").format(score=_score(row),
                                                                             time=_began(row, local)))
    return None


def _began(row: TonightsMatch, local: tzinfo | None) -> str:
    """When the match began, on the table's clock (``local``); "--:--" where the store has no time for it."""
    if row.started is None:
        return "--:--"
    return datetime.fromisoformat(row.started).astimezone(local).strftime("%H:%M")


def _score(row: TonightsMatch) -> str:
    """A match's score as tonight's list says it: racks, or APA points of the targets."""
    names = row.players
    points, targets = given(row.points), given(row.targets)
    if points is not None and targets is not None:
        return f"{names[0]} {points[0]}/{targets[0]} – {points[1]}/{targets[1]} {names[1]}"
    score = given(row.score) or [0, 0]
    return f"{names[0]} {score[0]} – {score[1]} {names[1]}"


def chosen_row(rows: tuple[NightRow, ...], current: int | None) -> int | None:
    """The match whose code shows first: the one just played (the state's match), else tonight's latest.

    >>> chosen_row((NightRow(5, ""), NightRow(4, "")), 4), chosen_row((NightRow(5, ""), NightRow(4, "")), 9)
    (4, 5)
    >>> chosen_row((), 9) is None
    True
    """
    if any(row.match == current for row in rows):
        return current
    return rows[0].match if rows else None


def code_note(match: int, code: Code, language: str | None = None) -> str:
    """What the code beside the list holds, said under it.

    >>> code_note(4, Code("{}", ((True,),), 1, False))
    "Match 4's result with every rack: scan it with a phone"
    >>> code_note(4, Code("{}", ((True,),), 1, True))
    "Match 4's totals (with every rack it would not fit one code): scan it with a phone"
    >>> code_note(4, Code("", (), None, True))
    "Match 4's result is too long for a QR code: devetka export --result gives it"
    """
    _ = catalog(language).gettext
    if not code.rows:
        return _("Match {match}'s result is too long for a QR code: devetka export --result gives it").format(
            match=match)
    if code.compact:
        return _("Match {match}'s totals (with every rack it would not fit one code): scan it with a phone").format(
            match=match)
    return _("Match {match}'s result with every rack: scan it with a phone").format(match=match)


def board_note(match: int, fits: bool, language: str | None = None) -> str:
    """What the code holds when it opens the match's page on the venue's board.

    >>> board_note(4, True)
    "Match 4 on the venue's board: scan it to open its page"
    >>> board_note(4, False)
    "Match 4's page on the venue's board has too long an address for a QR code"
    """
    _ = catalog(language).gettext
    if not fits:
        return _("Match {match}'s page on the venue's board has too long an address for a QR code").format(
            match=match)
    return _("Match {match} on the venue's board: scan it to open its page").format(match=match)
