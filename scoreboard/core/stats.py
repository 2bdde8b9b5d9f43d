"""What a rack or match summary counts, per player, from the shots' final verdicts: pure, no I/O.

Balls count when pocketed on a shot that was no foul (a ball down on a foul stays
down but earns nothing); a break-and-run is a rack won by its breaker with every
shot of it theirs and none a foul; a nine on the break is a break that won the rack.

>>> from scoreboard.core.match import Match
>>> from scoreboard.core.inputs import MatchStart, Strike, FirstContact, Pocket, Settle
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> for item in (Strike(), FirstContact(1), Pocket(9), Settle()):
...     _ = match.apply(item)
>>> counts([line.verdict for line in match.shot_lines()])
{'balls': [1, 0], 'fouls': [0, 0], 'break_and_runs': [1, 0], 'nines_on_break': [1, 0]}
"""

from __future__ import annotations

from collections.abc import Iterable

from scoreboard.core.rules import Verdict


def counts(verdicts: Iterable[Verdict], rack: int | None = None) -> dict[str, list[int]]:
    """Per player [0, 1]: balls pocketed, fouls, break-and-runs, nines on the break; of one ``rack`` if given."""
    out = {"balls": [0, 0], "fouls": [0, 0], "break_and_runs": [0, 0], "nines_on_break": [0, 0]}
    racks: dict[int, list[Verdict]] = {}
    for verdict in verdicts:
        if rack is not None and verdict.rack != rack:
            continue
        racks.setdefault(verdict.rack, []).append(verdict)
        if verdict.foul:
            out["fouls"][verdict.shooter] += 1
        elif not verdict.between_shots:
            out["balls"][verdict.shooter] += len(verdict.pocketed)
            if verdict.is_break and verdict.rack_winner == verdict.shooter:
                out["nines_on_break"][verdict.shooter] += 1
    for shots in racks.values():
        breaker = shots[0].shooter
        if (shots[0].is_break and shots[-1].rack_winner == breaker
                and all(shot.shooter == breaker and not shot.foul for shot in shots)):
            out["break_and_runs"][breaker] += 1
    return out
