"""5.6, R2, R3: who may push out, and the opponent's choice after it."""

from __future__ import annotations

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.rules.state import RuleError, Table, other


def allowed_after_break(options: RuleOptions, break_fouled: bool) -> bool:
    """R2: the first shot after a legal break may be a push out; after a foul on the break only by option."""
    return options.push_out_after_break_foul if break_fouled else True


def announce(table: Table) -> Table:
    """The shooter announces a push out for the next shot (5.6)."""
    if table.push_out:
        raise RuleError("push out already announced", "The push out is already announced: now shoot it.")
    if not table.push_out_allowed:
        raise RuleError("push out only on the first shot after a legal break (5.6, R2)",
                        "A push out may be announced only on the first shot after the break (5.6).")
    return table._replace(push_out=True)


def accept(table: Table) -> Table:
    """The opponent shoots from the position the push out left (5.6)."""
    if not table.awaiting_choice:
        raise RuleError("accept without a push out to answer (5.6)", "There is no push out to answer (5.6).")
    return table._replace(awaiting_choice=False)


def pass_back(table: Table) -> Table:
    """The opponent hands the shot back: the player who pushed out must shoot (5.6, R3)."""
    if not table.awaiting_choice:
        raise RuleError("pass without a push out to answer (5.6)", "There is no push out to answer (5.6).")
    assert table.shooter is not None  # a choice is awaited from the player due at the table
    return table._replace(awaiting_choice=False, shooter=other(table.shooter))
