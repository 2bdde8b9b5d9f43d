"""A match as its log: append inputs, undo without limit, resume from a log.

Appending folds one input onto the current state. Undo takes back the last
input that changed the state, and ``undo_shot`` every input of the last shot
(from the one that began it); both fold again from the nearest checkpoint, so
their cost does not grow with the length of the match.

>>> from scoreboard.core.inputs import MatchStart, Strike, Undo
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> _ = match.apply(Strike())
>>> match.state.shot is not None
True
>>> _ = match.apply(Undo())
>>> match.state.shot is None
True
>>> from scoreboard.core.inputs import Pocket, Settle, UndoShot
>>> for item in (Strike(), Pocket(3), Pocket(5), Settle()):
...     _ = match.apply(item)
>>> _ = match.apply(UndoShot())
>>> match.state == Match(match.match_start).state
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import NamedTuple

from scoreboard.core.inputs import Concede, Input, MatchStart, Miss, Settle, Strike, Undo, UndoShot
from scoreboard.core.messages import msg
from scoreboard.core.rules import RULES_VERSION, RuleError, State, Step, Table, Verdict, evolve, start
from scoreboard.core.rules.decide import decide

CHECKPOINT_EVERY = 64
_applied = tuple.__new__  # builds an Applied without its Python-level __new__: apply is the hot path


class Applied(NamedTuple):
    """An input that changed the state, where it stood in the log, and the shot verdict it gave."""

    item: Input
    position: int | None
    verdict: Verdict | None
    amends: bool


class LastShot(NamedTuple):
    """What ``undo_shot`` would take back: the inputs from the one that began the last shot, and its ruling.

    ``verdict`` is the shot's ruling as it stands (late inputs included; for a shot still in progress, the
    ruling it would get if it ended now, and ``in_progress`` is true).
    """

    inputs: tuple[Input, ...]
    verdict: Verdict
    in_progress: bool = False


class Conceded(NamedTuple):
    """A concession (R9) and the tables before and after it: no verdict ends a conceded rack, so the match keeps
    these for the screens to say what ended it."""

    item: Concede
    before: Table
    after: Table


class ShotLine(NamedTuple):
    """A shot's final verdict and the log position of the input that ended it."""

    position: int | None
    verdict: Verdict


class Match:
    """One match: ``apply`` inputs (``Undo`` included); ``state`` is always the fold of what is left."""

    def __init__(self, match_start: MatchStart, rules_version: int = RULES_VERSION) -> None:
        self.match_start = match_start
        self._state = start(match_start, rules_version)
        self._applied: list[Applied] = []
        self._shot_starts: list[int] = []   # where in _applied each shot's first input stands
        self._checkpoints: list[State] = [self._state]
        self._concessions: list[tuple[int, Conceded]] = []   # where in _applied each concession stands

    @classmethod
    def resume(cls, log: Iterable[Input], rules_version: int = RULES_VERSION,
               seen: Callable[[Input, State], None] | None = None) -> Match:
        """Fold a stored log (its first input the ``match_start``) under the rules it was played by; a rejected
        input raises ``RuleError``. ``seen`` is told each input after it and the state it left, as the daemon saw
        them live (its shot clock times the turn due from the log's times)."""
        items = iter(log)
        first = next(items, None)
        if not isinstance(first, MatchStart):
            raise RuleError(msg("a match log begins with match_start"))
        match = cls(first, rules_version)
        for item in items:
            match.apply(item)
            if seen is not None:
                seen(item, match.state)
        return match

    @property
    def state(self) -> State:
        return self._state

    @property
    def undo_target(self) -> Input | None:
        """The input that ``undo`` would take back, or None at the start of the match."""
        return self._applied[-1].item if self._applied else None

    def apply(self, item: Input, position: int | None = None) -> Step:
        """Fold ``item`` in; ``position`` (its log line) places the verdicts it gives. Raises ``RuleError``."""
        kind = type(item)
        if kind is Undo:
            if not self._applied:
                raise RuleError(msg("nothing to undo"), msg("Nothing to take back yet."))
            return self._keep(len(self._applied) - 1)
        if kind is UndoShot:
            if not self._shot_starts:
                raise RuleError(msg("undo_shot with no shot to take back"), msg("No shot to take back yet."))
            return self._keep(self._shot_starts[-1])
        if kind is MatchStart:
            raise RuleError(msg("a second match_start: one match per log"))
        before = self._state
        state, verdict, amends = step = evolve(before, item)
        if state is before:
            return step
        applied = self._applied
        if (before.shot is None or kind is Strike) and (state.shot is not None or kind is Miss):   # a shot began
            self._shot_starts.append(len(applied))
        applied.append(_applied(Applied, (item, position, verdict, amends)))
        if isinstance(item, Concede):
            self._concessions.append((len(applied) - 1, Conceded(item, before.table, state.table)))
        self._state = state
        if len(applied) % CHECKPOINT_EVERY == 0:
            self._checkpoints.append(state)
        return step

    def trial(self, item: Input) -> RuleError | None:
        """Would ``item`` be applied now? None if so, else why not; nothing is kept (the served ``actions``)."""
        if type(item) is Undo:
            return None if self._applied else RuleError(msg("nothing to undo"), msg("Nothing to take back yet."))
        if type(item) is UndoShot:
            return None if self._shot_starts else RuleError(msg("undo_shot with no shot to take back"),
                                                            msg("No shot to take back yet."))
        if type(item) is MatchStart:
            return RuleError(msg("a second match_start: one match per log"))
        try:
            evolve(self._state, item)
        except RuleError as error:
            return error
        return None

    def _keep(self, count: int) -> Step:
        """Take back every input after the first ``count`` and fold again from the nearest checkpoint."""
        del self._applied[count:]
        starts = self._shot_starts
        while starts and starts[-1] >= count:
            starts.pop()
        while self._concessions and self._concessions[-1][0] >= count:
            self._concessions.pop()
        kept = count // CHECKPOINT_EVERY
        del self._checkpoints[kept + 1:]
        state = self._checkpoints[kept]
        for applied in self._applied[kept * CHECKPOINT_EVERY:]:
            state = evolve(state, applied.item).state
        self._state = state
        return Step(state)

    def last_shot(self) -> LastShot | None:
        """What ``undo_shot`` would take back now, or None before the first shot."""
        if not self._shot_starts:
            return None
        taken = self._applied[self._shot_starts[-1]:]
        verdict = None
        for applied in taken[1:] if type(taken[0].item) is Strike else taken:  # a strike's verdict: the shot before
            if applied.verdict is None:
                continue
            if verdict is None or applied.amends:
                verdict = applied.verdict
            else:
                break   # a foul between shots after it: the shot's own ruling is the one before
        inputs = tuple(applied.item for applied in taken)
        if verdict is not None:
            return LastShot(inputs, verdict)
        shot = self._state.shot   # nothing ended it: the shot is still in progress, ruled as if it ended now
        if shot is None:
            raise AssertionError("a shot began, gave no verdict and is not in progress")
        return LastShot(inputs, decide(self._state.setup, shot)[1], in_progress=True)

    @property
    def applied_count(self) -> int:
        """How many inputs make the state as it is (undone ones left out)."""
        return len(self._applied)

    def last_verdict(self) -> Verdict | None:
        """The final verdict of the last shot (a late input's amendment included), without listing them all."""
        for applied in reversed(self._applied):
            if applied[2] is not None:
                return applied[2]
        return None

    def last_concession(self) -> Conceded | None:
        """The concession that ended the last rack (or the match), while no shot has been ruled since (a late
        ball amending the shot before it does not count): what the screens say in place of that shot's ruling."""
        if not self._concessions:
            return None
        index, conceded = self._concessions[-1]
        ruled = any(applied.verdict is not None and not applied.amends
                    for applied in islice(self._applied, index + 1, None))
        return None if ruled else conceded

    def history(self) -> tuple[Applied, ...]:
        """The inputs that made the state as it is, in order (undone ones left out)."""
        return tuple(self._applied)

    def steps(self) -> Iterator[tuple[Applied, State, State]]:
        """Each input of ``history`` with the state before and after it, folded again from the start: for the
        figures no verdict carries (a rack ended by a concession, R9)."""
        state = self._checkpoints[0]
        for applied in self._applied:
            after = evolve(state, applied.item).state
            yield applied, state, after
            state = after

    def shot_lines(self) -> list[ShotLine]:
        """Every shot of the match so far with its final verdict, in the order the shots ended."""
        lines: list[ShotLine] = []
        for applied in self._applied:
            if applied.verdict is None:
                continue
            if applied.amends:
                lines[-1] = ShotLine(lines[-1].position, applied.verdict)
            else:
                lines.append(ShotLine(applied.position, applied.verdict))
        return lines

    def closed(self) -> Step:
        """The match as a log that ends here leaves it: a shot still in progress is over (the spec)."""
        return evolve(self._state, Settle()) if self._state.shot is not None else Step(self._state)
