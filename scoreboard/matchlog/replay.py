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
from typing import Any

from scoreboard.core.inputs import InputError, MatchStart
from scoreboard.core.match import Match, ShotLine
from scoreboard.core.messages import ENGLISH, Arg, Catalog, Message, msg, msg_n, render
from scoreboard.core.output import error_line, shot_line, state_line
from scoreboard.core.rules import RULES_VERSION, RuleError, State, evolve, start
from scoreboard.core.rules.words import NOTED, noted, ruling
from scoreboard.matchlog.jsonl import parse_line


@dataclass(frozen=True)
class Note:
    """A line of ``explain`` on an input between shots: its rack and what was done, as a message."""

    rack: int
    said: Arg


@dataclass
class Replay:
    """A log read to its end: the match (if one started), the errors, and where the log ended."""

    match: Match | None = None
    errors: list[tuple[int, Message | str]] = field(default_factory=list)
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

    def entries(self) -> list[tuple[int, ShotLine | Message | str]]:
        """Shot lines and errors merged in log order."""
        shots = self.final[1]
        merged: list[tuple[int, ShotLine | Message | str]] = [(_placed(shot.position), shot) for shot in shots]
        merged += self.errors
        merged.sort(key=lambda entry: entry[0])
        return merged

    def lines(self) -> list[dict[str, Any]]:
        """The spec's output: shot and error lines in log order, then one state line."""
        out = [
            shot_line(entry.verdict) if isinstance(entry, ShotLine) else error_line(position, str(entry))
            for position, entry in self.entries()
        ]
        out.append(state_line(self.final[0]))
        return out

    def notes(self) -> list[tuple[int, Note]]:
        """Push outs, choices, stalemates and concessions, where they stand in the log."""
        if self.match is None:
            return []
        out: list[tuple[int, Note]] = []
        state = start(self.match.match_start)
        for applied in self.match.history():
            after = evolve(state, applied.item).state
            if isinstance(applied.item, NOTED):
                said = noted(state.setup.players, applied.item, after.table, state.table)
                if said is not None:
                    out.append((_placed(applied.position), Note(state.table.rack, said)))
            state = after
        return out

    def explain(self, catalog: Catalog = ENGLISH) -> list[str]:
        """The same match for people, in the catalog's language: one line per shot with the ruling in words,
        and what came between."""
        out = []
        players = self.match.match_start.players if self.match else None
        entries: list[tuple[int, ShotLine | Note | Message | str]] = [*self.entries(), *self.notes()]
        entries.sort(key=lambda entry: entry[0])
        for position, entry in entries:
            if isinstance(entry, ShotLine):
                assert players is not None  # a shot line comes only from a match
                out.append(render(_shot_heading(entry, players), catalog))
            elif isinstance(entry, Note):
                out.append(render(msg("Rack {rack}: {said}", rack=entry.rack, said=entry.said), catalog))
            else:
                out.append(render(msg("Line {line} not applied: {error}.", line=position, error=entry), catalog))
        out.append(render(summary(self.final[0]), catalog))
        return out


def _placed(position: int | None) -> int:
    """An input's log line: a replay places every input it applies."""
    assert position is not None
    return position


def _shot_heading(entry: ShotLine, players: tuple[str, str]) -> Message:
    verdict = entry.verdict
    said, name = ruling(verdict), players[verdict.shooter]
    if verdict.between_shots:
        return msg("Rack {rack}, between shots, {name}: {ruling}", rack=verdict.rack, name=name, ruling=said)
    if verdict.is_break:
        return msg("Rack {rack}, break, {name}: {ruling}", rack=verdict.rack, name=name, ruling=said)
    return msg("Rack {rack}, shot {shot}, {name}: {ruling}", rack=verdict.rack, shot=verdict.shot, name=name,
               ruling=said)


def summary(state: State | None) -> Message:
    """The match in one sentence: the score and who is at the table."""
    if state is None:
        return msg("No match: the log has no valid match_start.")
    table, players = state.table, state.setup.players
    if table.match_winner is not None:
        winner = players[table.match_winner]
        if state.setup.targets is not None and table.sheet is not None:
            points = table.sheet.points
            return msg("{name} wins the match on points: {name0} {points0}, {name1} {points1}.", name=winner,
                       name0=players[0], points0=points[0], name1=players[1], points1=points[1])
        return msg("{name} wins the match: {name0} {won0}, {name1} {won1}.", name=winner, name0=players[0],
                   won0=table.score[0], name1=players[1], won1=table.score[1])
    assert table.shooter is not None  # the match is on: someone is at the table
    standing = _standing(state)
    shooter = players[table.shooter]
    if table.ball_in_hand:
        return msg("{standing}; rack {rack}, {name} to shoot with ball in hand.", standing=standing, rack=table.rack,
                   name=shooter)
    return msg("{standing}; rack {rack}, {name} to shoot.", standing=standing, rack=table.rack, name=shooter)


def _standing(state: State) -> Message:
    """The points against the targets (APA), or the racks won against the race."""
    table, players, targets = state.table, state.setup.players, state.setup.targets
    if targets is not None and table.sheet is not None:
        points = table.sheet.points
        return msg("Points {name0} {points0} of {target0}, {name1} {points1} of {target1}", name0=players[0],
                   points0=points[0], target0=targets[0], name1=players[1], points1=points[1], target1=targets[1])
    race = state.setup.race
    race_text = "/".join(str(n) for n in race)
    return msg_n("Score {name0} {won0}, {name1} {won1} (race to {race})",
                 "Score {name0} {won0}, {name1} {won1} (race to {race})", race[1], name0=players[0],
                 won0=table.score[0], name1=players[1], won1=table.score[1], race=race_text)


def replay(lines: Iterable[str], rules_version: int = RULES_VERSION) -> Replay:
    """Read a match log line by line; inputs that are not applied become errors, as the spec says.

    ``rules_version`` is the rules the match is refereed under: the newest, or the one a store recorded for a
    match played before a ruling changed (``devetka replay --rules-version``, ``devetka matches``)."""
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
                result.match = Match(item, rules_version)
                apply = result.match.apply
            else:
                raise RuleError(msg("no match started: a match log begins with match_start"))
        except (InputError, RuleError) as error:
            errors.append((position, error.message))
    result.end = position
    return result
