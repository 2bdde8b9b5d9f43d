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


def visits(verdicts: Iterable[Verdict]) -> list[int]:
    """Per player, how many times they came to the table (a run of their shots, a new rack starting a new one):
    the innings a league sheet counts, whatever the scoring.

    >>> from scoreboard.core.match import Match
    >>> from scoreboard.core.inputs import MatchStart, Strike, FirstContact, Cushion, Settle
    >>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    >>> for item in (Strike(), FirstContact(1), *[Cushion(b) for b in (2, 3, 4, 5)], Settle(),
    ...              Strike(), FirstContact(1), Cushion(1), Settle()):
    ...     _ = match.apply(item)
    >>> visits([line.verdict for line in match.shot_lines()])
    [1, 1]
    """
    out = [0, 0]
    last: tuple[int, int] | None = None
    for verdict in verdicts:
        if verdict.between_shots:
            continue
        here = (verdict.rack, verdict.shooter)
        if here != last:
            out[verdict.shooter] += 1
        last = here
    return out


def player_figures(matches: Iterable[tuple[tuple[str, str], int | None, list[Verdict]]]) -> dict[str, dict[str, float]]:
    """Each player's figures over ``matches`` (their players, winner, shots' final verdicts): matches and racks
    played and won, break-and-runs per rack broken, balls per visit, fouls per rack, nines on the break."""
    totals: dict[str, dict[str, float]] = {}
    for players, winner, verdicts in matches:
        counted = counts(verdicts)
        came = visits(verdicts)
        finished = [verdict for verdict in verdicts if verdict.rack_winner is not None]
        breakers: dict[int, int] = {}
        for verdict in verdicts:
            if verdict.is_break and not verdict.between_shots:
                breakers.setdefault(verdict.rack, verdict.shooter)
        for index, name in enumerate(players):
            row = totals.setdefault(name, dict.fromkeys(
                ("matches", "matches_won", "racks", "racks_won", "racks_broken", "break_and_runs", "balls",
                 "visits", "fouls", "nines_on_break"), 0))
            row["matches"] += 1
            row["matches_won"] += winner == index
            row["racks"] += len(finished)
            row["racks_won"] += sum(verdict.rack_winner == index for verdict in finished)
            row["racks_broken"] += sum(shooter == index for shooter in breakers.values())
            row["break_and_runs"] += counted["break_and_runs"][index]
            row["balls"] += counted["balls"][index]
            row["visits"] += came[index]
            row["fouls"] += counted["fouls"][index]
            row["nines_on_break"] += counted["nines_on_break"][index]
    for row in totals.values():
        row["break_and_run_rate"] = _per(row["break_and_runs"], row["racks_broken"])
        row["balls_per_inning"] = _per(row["balls"], row["visits"])
        row["fouls_per_rack"] = _per(row["fouls"], row["racks"])
    return totals


def _per(count: float, of: float) -> float:
    return round(count / of, 3) if of else 0.0
