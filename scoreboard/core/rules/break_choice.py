"""A break that failed its requirement, under ``break_failure: "option"``: the incoming player's choice.

Instead of a foul with ball in hand (5.4, the default), the incoming player takes the table as it lies
(``accept``, or simply shooting: ``push_out.accept``) or has the balls racked again and breaks them
himself (``rerack``).
"""

from __future__ import annotations

from scoreboard.core.messages import msg
from scoreboard.core.rules.state import RuleError, Table, rack_table


def rerack(table: Table) -> Table:
    """The incoming player has the balls racked again and breaks: a new rack number, as after a stalemate."""
    if not table.break_choice:
        raise RuleError(msg("rerack only after a break that failed its requirement, under break_failure \"option\""),
                        msg("A re-rack may be asked for only after a failed break."))
    assert table.shooter is not None  # the choice is the player's due at the table
    return rack_table(table.score, table.rack + 1, table.shooter)._replace(sheet=table.sheet)
