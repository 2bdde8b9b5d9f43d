"""Fouls as small pure predicates: each returns a ``Call`` (the rule and why, in words) or None.

``fouls_on`` applies the ones a shot is subject to: the break (5.4), a push out
(5.6: no bad hit, no rail), or an ordinary shot (5.7-5.12, R10, R11). Facts that
are not sensed are assumed in the shooter's favour; a called foul overrides them.
"""

from __future__ import annotations

from scoreboard.core.inputs import CUE_BALL, RuleOptions
from scoreboard.core.messages import Balls, msg, msg_n
from scoreboard.core.rules.facts import NOT_SENSED, ShotFacts
from scoreboard.core.rules.state import Call, RequirementCall, Shot

#: The 3-point rule's failure: "Why?" tells it from 5.4's four balls by it (``words.cites``).
THREE_POINT_FAILED = msg("fewer than three balls passed the head string or were pocketed (3-point rule)")
BREAK_RAIL_BALLS = 4
THREE_POINT_WAIVED = 2


def bad_hit(shot: Shot, facts: ShotFacts) -> Call | None:
    """5.8: the first ball the cue ball contacts must be the lowest on the table."""
    lowest = min(shot.before.on_table)
    contact = facts.first_contact
    if contact is None:
        return Call("5.8", msg("the cue ball hit no ball"))
    if contact is not NOT_SENSED and contact != lowest:
        return Call("5.8", msg("the {contact} was hit before the {lowest}", contact=contact, lowest=lowest))
    if "bad_hit" in facts.called:
        return Call("5.8", msg("the {lowest} was not hit first", lowest=lowest))
    return None


def no_rail(facts: ShotFacts, options: RuleOptions) -> Call | None:
    """5.9 with R10: nothing pocketed and no ball to a rail after the first contact."""
    if "no_rail" in facts.called:
        return Call("5.9", msg("no ball reached a rail"))
    if facts.pocketed or not options.rails_sensed or facts.rail_after_contact:
        return None
    if facts.first_contact is NOT_SENSED:
        return Call("5.9", msg("no object ball was pocketed and no ball reached a rail"))
    return Call("5.9", msg("no object ball was pocketed and no ball reached a rail after contact"))


def scratch(facts: ShotFacts, rule: str = "5.7") -> Call | None:
    """5.7 with R11 (5.4 on the break): the cue ball pocketed or off the table."""
    if facts.cue_pocketed:
        return Call(rule, msg("the cue ball was pocketed"))
    if CUE_BALL in facts.off_table:
        return Call(rule, msg("the cue ball left the table"))
    if "scratch" in facts.called:
        return Call(rule, msg("scratch"))
    return None


def off_table(facts: ShotFacts, rule: str = "5.11") -> Call | None:
    """5.11 (5.4 on the break): an object ball driven off the table."""
    if facts.objects_off:
        off = Balls(facts.objects_off)
        return Call(rule, msg_n("the {balls} left the table", "the {balls} left the table", off.n, balls=off))
    if "off_table" in facts.called:
        return Call(rule, msg("a ball left the table"))
    return None


def moved_ball(facts: ShotFacts) -> Call | None:
    """5.12: a ball moved by hand, cue or bridge (in an unrefereed match, any moved ball)."""
    return Call("5.12", msg("a ball was moved")) if "moved_ball" in facts.called else None


def other_foul(facts: ShotFacts) -> Call | None:
    """5.7: a foul the sensors cannot name, called by a player or referee."""
    return Call("5.7", msg("a foul was called")) if "other" in facts.called else None


def break_requirement(facts: ShotFacts, options: RuleOptions) -> Call | None:
    """5.4: the breaker hits the 1 first, then pockets a ball or drives four object balls to a rail (or meets
    the 3-point rule, ``break_requirement: "three_point"``)."""
    contact = facts.first_contact
    if contact is None:
        return Call("5.4", msg("the break hit no ball"))
    if contact is not NOT_SENSED and contact != 1:
        return Call("5.4", msg("the break hit the {contact} before the 1", contact=contact))
    if "bad_hit" in facts.called:
        return Call("5.4", msg("the break did not hit the 1 first"))
    if options.break_requirement == "three_point":
        return three_point(facts)
    if "illegal_break" in facts.called:
        return Call("5.4", msg("illegal break"))
    if "no_rail" in facts.called:
        return RequirementCall("5.4", msg("the break drove fewer than four balls to a rail"))
    if not facts.pocketed and options.rails_sensed and facts.balls_to_rail < BREAK_RAIL_BALLS:
        return RequirementCall("5.4", msg_n("the break pocketed nothing and drove {n} ball to a rail, not four",
                                            "the break pocketed nothing and drove {n} balls to a rail, not four",
                                            facts.balls_to_rail))
    return None


def three_point(facts: ShotFacts) -> Call | None:
    """The 3-point rule, in place of 5.4's four balls: three object balls past the head string or pocketed,
    waived when two are pocketed. No sensor sees the head string: a called ``illegal_break`` (or ``no_rail``)
    says it failed, and is taken as met while two balls are pocketed."""
    called = facts.called
    if len(facts.pocketed) >= THREE_POINT_WAIVED or ("illegal_break" not in called and "no_rail" not in called):
        return None
    return RequirementCall("5.4", THREE_POINT_FAILED)


def fouls_on(shot: Shot, facts: ShotFacts, options: RuleOptions) -> list[Call]:
    """Every foul of the shot, in the order a player would name them."""
    if shot.is_break:
        found = [break_requirement(facts, options)]
        rule = "5.4"
    elif shot.is_push_out:
        found = []
        rule = None
    else:
        found = [bad_hit(shot, facts), no_rail(facts, options)]
        rule = None
    if facts.called or facts.cue_pocketed or facts.off_table:
        found += [scratch(facts, rule or "5.7"), off_table(facts, rule or "5.11"), moved_ball(facts),
                  other_foul(facts)]
    return [call for call in found if call is not None]


def foul_between(reason: str) -> Call:
    """A foul between shots (R5): moving a ball is 5.12; any other called foul is a standard foul (5.7)."""
    return Call("5.12", msg("a ball was moved")) if reason == "moved_ball" else Call("5.7", msg("a foul was called"))
