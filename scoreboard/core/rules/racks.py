"""Racks and the match: who wins a rack, who breaks the next (R8), stalemate (5.14, R7), concession (R9)."""

from __future__ import annotations

from scoreboard.core.rules.state import Setup, Table, other, rack_table


def next_breaker(setup: Setup, table: Table, winner: int) -> int:
    """R8: the winner of the rack breaks, or the players alternate."""
    if setup.options.break_order == "alternate":
        return other(table.breaker)
    return winner


def win_rack(setup: Setup, table: Table, winner: int) -> Table:
    """Score the rack for ``winner``: the next rack is racked, or the match is over and frozen as it ended."""
    counts = list(table.score)
    counts[winner] += 1
    score = (counts[0], counts[1])
    if setup.targets is None and score[winner] >= setup.race[winner]:  # APA: points decide (apa.py)
        return table._replace(score=score, match_winner=winner, shooter=None, ball_in_hand=False,
            push_out_allowed=False, push_out=False, awaiting_choice=False,
        )
    return rack_table(score, table.rack + 1, next_breaker(setup, table, winner))


def stalemate(table: Table) -> Table:
    """5.14, R7: the rack is drawn; it is racked again, the same player breaks, no one scores."""
    return rack_table(table.score, table.rack + 1, table.breaker)


def concede_match(table: Table, player: int) -> Table:
    """R9: the match goes to the opponent; the score stays as it is."""
    return table._replace(match_winner=other(player), shooter=None, ball_in_hand=False,
        push_out_allowed=False, push_out=False, awaiting_choice=False,
    )
