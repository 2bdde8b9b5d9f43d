"""The matches of each format as drawn: who feeds each side of each match (docs/events.md, "Formats").

A bracket is a tuple of ``Plan``: a match's id, round, side and its two feeds, each a seed, the winner or
loser of an earlier match, a group's place or an APA team's put-up player. Nothing here knows a result; the
fold (``scoreboard.event.core.fold``) follows the feeds.

Seeds are placed the standard way (1 meets the last seed, and the top two can meet only in the final); a
bracket is the next power of two, and the seeds past the players are byes, so the byes go to the top seeds.

>>> positions(8)
(1, 8, 4, 5, 2, 7, 3, 6)
>>> [(p.id, p.feeds) for p in single(3)]
[('W1-1', (Seed(n=1), Bye())), ('W1-2', (Seed(n=2), Seed(n=3))), ('W2-1', (Winner(match='W1-1'), Winner(match='W1-2')))]
>>> len(double(8, true_double=False)), len(double(8, true_double=True))
(14, 15)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scoreboard.event.core.spec import APA_MATCHES, GROUP_NAMES


@dataclass(frozen=True, slots=True)
class Seed:
    """The ``n``-th entrant of the draw (1 is the top seed)."""

    n: int


@dataclass(frozen=True, slots=True)
class Bye:
    """No one: the other side goes through without a match."""


@dataclass(frozen=True, slots=True)
class Winner:
    match: str


@dataclass(frozen=True, slots=True)
class Loser:
    match: str


@dataclass(frozen=True, slots=True)
class Place:
    """The player a group's standings put at ``place`` (1 first), once every match of the group is played."""

    group: str
    place: int


@dataclass(frozen=True, slots=True)
class PutUp:
    """The player APA team ``team`` (0 or 1) put up for its ``slot``-th match (1 to 5)."""

    team: int
    slot: int


Feed = Seed | Bye | Winner | Loser | Place | PutUp


@dataclass(frozen=True, slots=True)
class Plan:
    """One match of the event as drawn. ``final``: the race's ``final`` applies; ``reset``: a true double's second
    final, played only when the losers' side's player wins the first."""

    id: str
    round: str
    side: str
    feeds: tuple[Feed, Feed]
    final: bool = False
    reset: bool = False


def positions(size: int) -> tuple[int, ...]:
    """The seeds in bracket order for a bracket of ``size`` (a power of two): neighbours meet in round 1."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order) + 1
        order = [x for seed in order for x in (seed, n - seed)]
    return tuple(order)


def bracket_size(entrants: int) -> int:
    size = 2
    while size < entrants:
        size *= 2
    return size


def single(entrants: int, prefix: str = "W", side: str = "winners",
           entrant: Callable[[int], Feed] = Seed, last_is_final: bool = True) -> tuple[Plan, ...]:
    """Single elimination over ``entrants`` seeds; ``entrant(n)`` is the feed of seed ``n``."""
    size = bracket_size(entrants)
    order = positions(size)
    plans: list[Plan] = []
    rounds = size.bit_length() - 1
    feeds: list[Feed] = [entrant(n) if n <= entrants else Bye() for n in order]
    for r in range(1, rounds + 1):
        label = f"{prefix}{r}"
        current = []
        for i in range(len(feeds) // 2):
            plan = Plan(f"{label}-{i + 1}", label, side, (feeds[2 * i], feeds[2 * i + 1]),
                        final=last_is_final and r == rounds)
            current.append(plan)
        plans.extend(current)
        feeds = [Winner(p.id) for p in current]
    return tuple(plans)


def double(entrants: int, true_double: bool) -> tuple[Plan, ...]:
    """Double elimination: the winners' side, the losers' side fed by its losers, and the grand final ``GF-1``
    (and ``GF-2``, the reset between the same two, sides kept, when ``true_double``).

    The losers' side of a bracket of 2^k has 2(k-1) rounds: its odd rounds pair its own winners (the first pairs
    the winners' round 1 losers), its even rounds meet the losers dropping from the winners' next round, in
    reverse order so that two players who met do not meet again at once.
    """
    winners = single(entrants, last_is_final=False)
    size = bracket_size(entrants)
    k = size.bit_length() - 1
    by_round: dict[int, list[Plan]] = {}
    for plan in winners:
        by_round.setdefault(int(plan.round[1:]), []).append(plan)
    losers: list[Plan] = []
    if k == 1:
        champion: Feed = Loser(by_round[1][0].id)
    else:
        feeds: list[Feed] = [Loser(p.id) for p in by_round[1]]
        number = 1
        feeds = _pairs(feeds, number, losers)
        for r in range(2, k + 1):
            number += 1
            dropping = [Loser(p.id) for p in reversed(by_round[r])]
            label = f"L{number}"
            current = [Plan(f"{label}-{i + 1}", label, "losers", (feeds[i], dropping[i])) for i in range(len(feeds))]
            losers.extend(current)
            feeds = [Winner(p.id) for p in current]
            if r < k:
                number += 1
                feeds = _pairs(feeds, number, losers)
        champion = feeds[0]
    grand = [Plan("GF-1", "GF", "final", (Winner(winners[-1].id), champion), final=True)]
    if true_double:
        grand.append(Plan("GF-2", "GF", "final", grand[0].feeds, final=True, reset=True))
    return (*winners, *losers, *grand)


def _pairs(feeds: list[Feed], number: int, out: list[Plan]) -> list[Feed]:
    label = f"L{number}"
    current = [Plan(f"{label}-{i + 1}", label, "losers", (feeds[2 * i], feeds[2 * i + 1]))
               for i in range(len(feeds) // 2)]
    out.extend(current)
    return [Winner(p.id) for p in current]


def groups_of(entrants: int, groups: int) -> tuple[tuple[int, ...], ...]:
    """Seeds into groups by the snake (1 to A, 2 to B, ..., then back), so each group is as strong as the next.

    >>> groups_of(8, 2)
    ((1, 4, 5, 8), (2, 3, 6, 7))
    """
    members: list[list[int]] = [[] for _ in range(groups)]
    for i in range(entrants):
        lap, at = divmod(i, groups)
        members[at if lap % 2 == 0 else groups - 1 - at].append(i + 1)
    return tuple(tuple(m) for m in members)


def round_robin(entrants: int, groups: int, advance: int) -> tuple[Plan, ...]:
    """Every pair of each group once, round by round (the circle method: each plays at most once a round), then
    single elimination of the top ``advance`` of each group, seeded by place, then group (A1, B1, A2, B2, ...).
    With one group and one to go through, the group's winner wins the event and there is no bracket."""
    plans: list[Plan] = []
    for g, members in enumerate(groups_of(entrants, groups)):
        name = GROUP_NAMES[g]
        for r, pairs in enumerate(_circle(members), start=1):
            label = f"{name}{r}"
            plans.extend(Plan(f"{label}-{i + 1}", label, "group", (Seed(a), Seed(b)))
                         for i, (a, b) in enumerate(pairs))
    qualifiers = groups * advance
    if qualifiers > 1:
        def place(n: int) -> Feed:
            rank, group = divmod(n - 1, groups)
            return Place(GROUP_NAMES[group], rank + 1)
        plans.extend(single(qualifiers, prefix="K", side="playoff", entrant=place))
    return tuple(plans)


def _circle(members: tuple[int, ...]) -> list[list[tuple[int, int]]]:
    """Rounds of pairs where everyone meets everyone once (a bye where the count is odd)."""
    ring: list[int | None] = list(members)
    if len(ring) % 2:
        ring.append(None)
    rounds = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        pairs = [(a, b) for a, b in zip(ring[:half], reversed(ring[half:]), strict=True)
                 if a is not None and b is not None]
        rounds.append([(min(a, b), max(a, b)) for a, b in pairs])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def team_night() -> tuple[Plan, ...]:
    """An APA team night: five matches, each between the players the two captains put up for it."""
    return tuple(Plan(f"APA-{n}", "APA", "team", (PutUp(0, n), PutUp(1, n))) for n in range(1, APA_MATCHES + 1))
