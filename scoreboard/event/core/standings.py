"""A round-robin group's standings and their tie-breaks (docs/events.md, "Round robin").

Ranked by, in turn: matches won; among players level on matches won, the matches won against each other (the
head-to-head, however many are level); rack difference (racks won less racks lost); racks won; the draw (the
higher seed). The last never leaves a tie, so a group always has one order.

>>> rows = standings(("Ana", "Ben", "Cvita"), [Game(("Ana", "Ben"), (3, 1)), Game(("Ben", "Cvita"), (3, 0)),
...                                            Game(("Cvita", "Ana"), (3, 2))])
>>> [(r.name, r.won, r.difference) for r in rows]
[('Ana', 1, 1), ('Ben', 1, 1), ('Cvita', 1, -2)]
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Game:
    """A played group match: its players, racks won by each, and which won (under a handicap race the winner may
    have fewer racks; by default the one with more)."""

    players: tuple[str, str]
    score: tuple[int, int]
    won_by: int | None = None

    @property
    def winner(self) -> str:
        side = self.won_by if self.won_by is not None else (0 if self.score[0] > self.score[1] else 1)
        return self.players[side]


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    played: int
    won: int
    racks_won: int
    racks_lost: int
    head_to_head: int = 0

    @property
    def difference(self) -> int:
        return self.racks_won - self.racks_lost

    def to_json(self) -> dict[str, object]:
        return {"player": self.name, "played": self.played, "won": self.won, "lost": self.played - self.won,
                "racks_won": self.racks_won, "racks_lost": self.racks_lost, "difference": self.difference,
                "head_to_head": self.head_to_head}


def standings(members: tuple[str, ...], games: list[Game]) -> tuple[Row, ...]:
    """The group's rows, first place first; ``members`` in seed order (the last tie-break)."""
    rows = {name: Row(name, 0, 0, 0, 0) for name in members}
    for game in games:
        for side, name in enumerate(game.players):
            row = rows[name]
            rows[name] = Row(name, row.played + 1, row.won + (game.winner == name),
                             row.racks_won + game.score[side], row.racks_lost + game.score[1 - side])
    level: dict[int, list[str]] = {}
    for row in rows.values():
        level.setdefault(row.won, []).append(row.name)
    for row in list(rows.values()):
        tied = set(level[row.won])
        h2h = sum(1 for g in games if set(g.players) <= tied and g.winner == row.name)
        rows[row.name] = Row(row.name, row.played, row.won, row.racks_won, row.racks_lost, h2h)
    seed = {name: i for i, name in enumerate(members)}
    return tuple(sorted(rows.values(), key=lambda r: (-r.won, -r.head_to_head, -r.difference, -r.racks_won,
                                                      seed[r.name])))
