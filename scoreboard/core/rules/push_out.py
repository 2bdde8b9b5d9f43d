"""5.6, R2, R3: who may push out, and the opponent's choice after it."""

from __future__ import annotations

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.messages import msg
from scoreboard.core.rules.state import RuleError, Table, other


def allowed_after_break(options: RuleOptions, break_fouled: bool) -> bool:
    """R2: the first shot after a legal break may be a push out; after a foul on the break only by option;
    never where push outs are not played (``push_outs: false``: APA, bar rules)."""
    if not options.push_outs:
        return False
    return options.push_out_after_break_foul if break_fouled else True


def announce(table: Table, options: RuleOptions | None = None) -> Table:
    """The shooter announces a push out for the next shot (5.6)."""
    if options is not None and not options.push_outs:
        raise RuleError(msg("no push outs under these rules (rules.push_outs is false)"),
                        msg("Push outs are not played under these rules."))
    if table.push_out:
        raise RuleError(msg("push out already announced"), msg("The push out is already announced: now shoot it."))
    if not table.push_out_allowed:
        raise RuleError(msg("push out only on the first shot after a legal break (5.6, R2)"),
                        msg("A push out may be announced only on the first shot after the break (5.6)."))
    return table._replace(push_out=True)


def accept(table: Table) -> Table:
    """The opponent shoots from the position the push out left (5.6), or takes the table after a failed break."""
    if table.break_choice:
        return table._replace(break_choice=False)
    if not table.awaiting_choice:
        raise RuleError(msg("accept without a push out to answer (5.6)"), msg("There is no push out to answer (5.6)."))
    return table._replace(awaiting_choice=False, after_push_out=True)


def pass_back(table: Table) -> Table:
    """The opponent hands the shot back: the player who pushed out must shoot (5.6, R3)."""
    if table.break_choice:
        raise RuleError(msg("pass answers a push out: after a failed break, accept the table or rerack"),
                        msg("After a failed break: take the table or have it re-racked."))
    if not table.awaiting_choice:
        raise RuleError(msg("pass without a push out to answer (5.6)"), msg("There is no push out to answer (5.6)."))
    assert table.shooter is not None  # a choice is awaited from the player due at the table
    return table._replace(awaiting_choice=False, shooter=other(table.shooter), after_push_out=True)
