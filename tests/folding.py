"""Small builders for match logs in tests: each returns JSON objects of the spec."""

from __future__ import annotations

import json

from scoreboard.matchlog.replay import replay


def start(**fields) -> dict:
    line = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}
    rules = fields.pop("rules", None)
    if rules:
        line["rules"] = rules
    line.update(fields)
    return line


def i(kind: str, **fields) -> dict:
    """One input: ``i("pocket", ball=3)``."""
    return {"type": kind, **fields}


def shot(first: int | None | str = "-", rails=(), pockets=(), end: str | None = "settle") -> list[dict]:
    """A shot: strike, first contact (``"-"``: not sensed), cushions, pockets, and how it ended."""
    out = [i("strike")]
    if first != "-":
        out.append(i("first_contact", ball=first))
    out += [i("cushion", ball=ball) for ball in rails]
    out += [i("pocket", ball=ball) for ball in pockets]
    if end:
        out.append(i(end))
    return out


def legal_break(pockets=()) -> list[dict]:
    """A legal break: the 1 first, four balls to a rail."""
    return shot(1, rails=(2, 4, 6, 7), pockets=pockets)


def run(*parts, **start_fields) -> list[dict]:
    """Replay ``start(**start_fields)`` then the parts (inputs or lists of inputs): the output lines."""
    lines = [start(**start_fields)]
    for part in parts:
        lines += part if isinstance(part, list) else [part]
    return replay(json.dumps(line) for line in lines).lines()


def shots(out: list[dict]) -> list[dict]:
    return [line for line in out if line["type"] == "shot"]


def errors(out: list[dict]) -> list[dict]:
    return [line for line in out if line["type"] == "error"]


def state(out: list[dict]) -> dict:
    assert out[-1]["type"] == "state"
    return out[-1]


def last_shot(out: list[dict]) -> dict:
    return shots(out)[-1]
