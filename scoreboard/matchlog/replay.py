"""``devetka replay``: fold a match log and say what the rules decided, in the spec's lines or in words.

>>> out = replay(['{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}',
...               '{"type":"pass"}'])
>>> [line["type"] for line in out.lines()]
['error', 'state']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from scoreboard.core.inputs import InputError, MatchStart
from scoreboard.core.match import Match, ShotLine
from scoreboard.core.output import error_line, shot_line, state_line
from scoreboard.core.rules import RuleError, State, evolve, start
from scoreboard.core.rules.words import NOTED, explain, note
from scoreboard.matchlog.jsonl import parse_line


class Note(str):
    """A line of ``explain`` on an input between shots."""


@dataclass
class Replay:
    """A log read to its end: the match (if one started), the errors, and where the log ended."""

    match: Match | None = None
    errors: list[tuple[int, str]] = field(default_factory=list)
    end: int = 0

    @cached_property
    def final(self) -> tuple[State | None, list[ShotLine]]:
        """The state at the end of the log and every shot line, the last shot ended by the log's end."""
        if self.match is None:
            return None, []
        shots = self.match.shot_lines()
        closed = self.match.closed()
        if closed.verdict is not None:
            shots.append(ShotLine(self.end + 1, closed.verdict))
        return closed.state, shots

    def entries(self) -> list[tuple[int, ShotLine | str]]:
        """Shot lines and errors merged in log order."""
        shots = self.final[1]
        merged = [(shot.position, shot) for shot in shots] + list(self.errors)
        merged.sort(key=lambda entry: entry[0])
        return merged

    def lines(self) -> list[dict]:
        """The spec's output: shot and error lines in log order, then one state line."""
        out = [
            shot_line(entry.verdict) if isinstance(entry, ShotLine) else error_line(position, entry)
            for position, entry in self.entries()
        ]
        out.append(state_line(self.final[0]))
        return out

    def notes(self) -> list[tuple[int, Note]]:
        """Push outs, choices, stalemates and concessions in words, where they stand in the log."""
        if self.match is None:
            return []
        out = []
        state = start(self.match.match_start)
        for applied in self.match.history():
            after = evolve(state, applied.item).state
            if type(applied.item) in NOTED:
                text = note(state.setup.players, applied.item, after.table, state.table)
                if text is not None:
                    out.append((applied.position, Note(f"Rack {state.table.rack}: {text}")))
            state = after
        return out

    def explain(self) -> list[str]:
        """The same match for people: one line per shot with the ruling in words, and what came between."""
        out = []
        players = self.match.match_start.players if self.match else ("player 0", "player 1")
        entries = self.entries() + self.notes()
        entries.sort(key=lambda entry: entry[0])
        for position, entry in entries:
            if isinstance(entry, ShotLine):
                v = entry.verdict
                label = "between shots" if v.between_shots else ("break" if v.is_break else f"shot {v.shot}")
                out.append(f"Rack {v.rack}, {label}, {players[v.shooter]}: {explain(v)}")
            elif isinstance(entry, Note):
                out.append(entry)
            else:
                out.append(f"Line {position} not applied: {entry}.")
        out.append(summary(self.final[0]))
        return out


def summary(state: State | None) -> str:
    """The match in one sentence: the score and who is at the table."""
    if state is None:
        return "No match: the log has no valid match_start."
    table, players = state.table, state.setup.players
    score = f"{players[0]} {table.score[0]}, {players[1]} {table.score[1]}"
    if table.match_winner is not None:
        if state.setup.targets is not None and table.sheet is not None:
            points = table.sheet.points
            return f"{players[table.match_winner]} wins the match on points: {players[0]} {points[0]}, " \
                   f"{players[1]} {points[1]}."
        return f"{players[table.match_winner]} wins the match: {score}."
    extra = " with ball in hand" if table.ball_in_hand else ""
    targets = state.setup.targets
    if targets is not None and table.sheet is not None:
        points = table.sheet.points
        standing = f"Points {players[0]} {points[0]} of {targets[0]}, {players[1]} {points[1]} of {targets[1]}"
    else:
        standing = f"Score {score} (race to {'/'.join(str(n) for n in state.setup.race)})"
    return f"{standing}; rack {table.rack}, {players[table.shooter]} to shoot{extra}."


def replay(lines: Iterable[str]) -> Replay:
    """Read a match log line by line; inputs that are not applied become errors, as the spec says."""
    result = Replay()
    errors = result.errors
    apply = None
    position = 0
    for position, text in enumerate(lines, 1):
        if not text or text.isspace():
            continue
        try:
            item = parse_line(text)
            if apply is not None:
                apply(item, position)
            elif type(item) is MatchStart:
                result.match = Match(item)
                apply = result.match.apply
            else:
                raise RuleError("no match started: a match log begins with match_start")
        except (InputError, RuleError) as error:
            errors.append((position, str(error)))
    result.end = position
    return result
