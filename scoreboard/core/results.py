"""A match's result as a league operator types it in: who played, under which rules, the score (or the APA
points against the targets), the winner, and each rack (who broke, who won, break-and-runs, nines on the
break, fouls, and under APA innings, safeties and dead balls). Pure: the same fold as ``devetka replay``.

>>> from scoreboard.core.inputs import MatchStart, Strike, FirstContact, Pocket, Settle
>>> from scoreboard.core.match import Match
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(1, 1), breaker=0))
>>> for item in (Strike(t=1.0), FirstContact(1, t=1.1), Pocket(9, t=2.0), Settle(t=5.0)):
...     _ = match.apply(item)
>>> outcome = result(match)
>>> outcome["score"], outcome["winner"], outcome["racks"][0]["nine_on_break"], outcome["duration_s"]
([1, 0], 0, True, 4.0)
"""

from __future__ import annotations

from typing import Any

from scoreboard.core.inputs import Concede
from scoreboard.core.match import Match
from scoreboard.core.rules import Verdict
from scoreboard.core.scoresheet import score_sheet

#: The CSV's columns (``devetka matches --csv``), one row per match.
COLUMNS = ("match", "started", "table", "player0", "player1", "profile", "scoring", "score0", "score1",
           "target0", "target1", "winner", "racks", "duration_s")


def _rack(number: int, shots: list[Verdict], concession: tuple[int, int] | None = None) -> dict[str, Any]:
    """One rack's figures; ``concession`` (winner, breaker) for a rack a player conceded."""
    played = [shot for shot in shots if not shot.between_shots]
    conceded_to = None if concession is None else concession[0]
    breaker = played[0].shooter if played else (None if concession is None else concession[1])
    winner = shots[-1].rack_winner if conceded_to is None else conceded_to
    fouls = [0, 0]
    for shot in shots:
        if shot.foul:
            fouls[shot.shooter] += 1
    run = (conceded_to is None and breaker is not None and played[0].is_break and winner == breaker
           and all(shot.shooter == breaker and not shot.foul for shot in shots))
    nine = bool(conceded_to is None and played and played[0].is_break and winner == breaker
                and shots[-1] is played[0])
    return {"rack": number, "breaker": breaker, "winner": winner, "break_and_run": run, "nine_on_break": nine,
            "fouls": fouls, "conceded": conceded_to is not None}


def _conceded(match: Match) -> dict[int, tuple[int, int]]:
    """The racks a player conceded (R9): rack -> (the opponent who won it, its breaker). No verdict ends them."""
    return {before.table.rack: (1 - applied.item.player, before.table.breaker) for applied, before, _ in match.steps()
            if type(applied.item) is Concede and applied.item.scope == "rack"}


def result(match: Match, *, started: str | None = None, table: str | None = None) -> dict[str, Any]:
    """The match's result: the fold's own figures, per rack; ``started`` and ``table`` as the store keeps them."""
    setup, table_now = match.state.setup, match.closed().state.table
    verdicts = [line.verdict for line in match.shot_lines()]
    closing = match.closed().verdict
    if match.state.shot is not None and closing is not None:
        verdicts.append(closing)  # the log ends in a shot: it is over (the spec)
    by_rack: dict[int, list[Verdict]] = {}
    for verdict in verdicts:
        by_rack.setdefault(verdict.rack, []).append(verdict)
    conceded = _conceded(match)
    racks = [_rack(number, by_rack.get(number, []), conceded.get(number))
             for number in sorted(set(by_rack) | set(conceded))
             if number in conceded or by_rack[number][-1].rack_winner is not None]
    options = setup.options
    times = [applied.item.t for applied in match.history() if applied.item.t is not None]
    start_t = match.match_start.t if match.match_start.t is not None else (times[0] if times else None)
    out: dict[str, Any] = {
        "players": list(setup.players), "table": table if table is not None else setup.table, "started": started,
        "profile": options.profile, "scoring": options.scoring, "race": list(setup.race),
        "score": list(table_now.score), "winner": table_now.match_winner, "racks": racks,
        "duration_s": round(times[-1] - start_t, 3) if times and start_t is not None else 0.0,
    }
    if setup.targets is not None:
        sheet = score_sheet(match)
        out.update(race=None, points=list(sheet["points"]), targets=list(setup.targets),
                   innings=sheet["innings"], dead_balls=sheet["dead_balls"])
        by_number = {row["rack"]: row for row in sheet["racks"]}
        for rack in racks:
            row = by_number.get(rack["rack"])
            if row is not None:
                rack.update(points=row["points"], innings=row["innings"], safeties=row["safeties"],
                            dead_balls=row["dead_balls"])
    return out


#: The per-rack figures a compact result totals per player.
TOTALLED = ("fouls", "safeties")
#: The per-rack flags a compact result counts per winner, and the name of each count.
COUNTED = {"break_and_run": "break_and_runs", "nine_on_break": "nines_on_break"}


def compact(outcome: dict[str, Any]) -> dict[str, Any]:
    """The result with its racks totalled per player instead of listed: what still fits one QR code a phone reads
    off the touchscreen when a long match's full result does not. ``racks`` becomes the number of racks finished.

    >>> full = {"players": ["Ana", "Ben"], "score": [2, 1], "racks": [
    ...     {"rack": 1, "breaker": 0, "winner": 0, "break_and_run": True, "nine_on_break": False, "fouls": [0, 1]},
    ...     {"rack": 2, "breaker": 1, "winner": 1, "break_and_run": False, "nine_on_break": True, "fouls": [0, 0]},
    ...     {"rack": 3, "breaker": 0, "winner": 0, "break_and_run": False, "nine_on_break": False, "fouls": [2, 0]}]}
    >>> compact(full)
    {'players': ['Ana', 'Ben'], 'score': [2, 1], 'racks': 3, 'break_and_runs': [1, 0], 'nines_on_break': [0, 1], \
'fouls': [2, 1], 'racks_left_out': True}
    """
    racks = outcome["racks"]
    out = {key: value for key, value in outcome.items() if key != "racks"}
    out["racks"] = len(racks)
    for flag, name in COUNTED.items():
        wins = [0, 0]
        for rack in racks:
            if rack[flag]:
                wins[rack["winner"]] += 1
        out[name] = wins
    for figure in TOTALLED:
        if any(figure in rack for rack in racks):
            out[figure] = [sum(rack.get(figure, (0, 0))[side] for rack in racks) for side in (0, 1)]
    out["racks_left_out"] = True
    return out


def csv_row(match_id: int, outcome: dict[str, Any]) -> list[Any]:
    """The match as one row of ``COLUMNS``: the score is racks won, or APA points with their targets."""
    points = outcome.get("points") or outcome["score"]
    targets = outcome.get("targets") or outcome["race"] or [None, None]
    winner = outcome["winner"]
    return [match_id, outcome["started"] or "", outcome["table"] or "", *outcome["players"], outcome["profile"] or "",
            outcome["scoring"], *points, *targets, "" if winner is None else outcome["players"][winner],
            len(outcome["racks"]), outcome["duration_s"]]
