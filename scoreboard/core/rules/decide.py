"""Deciding a shot from its facts: the verdict and the table after it (5.1-5.15, R1-R11)."""

from __future__ import annotations

from scoreboard.core.inputs import NINE
from scoreboard.core.rules import apa, push_out, racks, three_fouls
from scoreboard.core.rules.facts import read
from scoreboard.core.rules.fouls import fouls_on
from scoreboard.core.rules.state import Call, RequirementCall, Setup, Shot, Table, Verdict, other

_verdict = tuple.__new__  # every field is given: skip the named tuple's Python-level __new__ (once a shot)


def decide(setup: Setup, shot: Shot) -> tuple[Table, Verdict]:
    """The verdict on ``shot`` and the table it leaves; deciding again after a late input is the same call."""
    before = shot.before
    options = setup.options
    shooter = before.shooter
    assert shooter is not None  # a shot is begun only while the match is on
    is_break = before.shot_no == 0
    is_push_out = before.push_out
    facts = read(shot)
    calls = fouls_on(shot, facts, options)
    fouled = bool(calls)
    pocketed = facts.pocketed
    objects_off = facts.objects_off
    nine_down = NINE in pocketed or NINE in objects_off
    if pocketed or objects_off:
        on_table = tuple(ball for ball in before.on_table if ball not in pocketed and ball not in objects_off)
    else:
        on_table = before.on_table
    fouls = three_fouls.count_after(before.fouls_in_row, shooter, fouled)

    rack_winner = None
    spotted = False
    choice = False
    if fouled:
        rules = tuple(dict.fromkeys(call.rule for call in calls))
        if three_fouls.loses_rack(options, fouls, shooter):
            rack_winner = other(shooter)
            rules += ("5.13",)
        elif is_break and options.break_failure == "option" and _requirement_only(calls):
            choice = True  # the incoming player's option (break_choice.py): no foul, no count
            fouls = before.fouls_in_row
    elif is_push_out:
        rules = ("5.6",)
    elif NINE in pocketed:
        if is_break and options.nine_on_break == "spotted":
            spotted = True
            rules = ("5.4", "5.5")
        else:
            rack_winner = shooter
            rules = ("5.4", "5.15") if is_break else ("5.15",)
    elif is_break:
        rules = ("5.4", "5.5" if pocketed else "5.1")
    else:
        rules = ("5.1",)

    respot = rack_winner is None and nine_down and (fouled or is_push_out or spotted)
    if respot:
        on_table = tuple(sorted(on_table + (NINE,)))
    shot_no = before.shot_no + 1
    finished = None
    if rack_winner is not None:
        finished = Table(before.score, before.rack, before.breaker, shot_no, on_table, shooter, before.ball_in_hand,
                         before.push_out_allowed, False, False, fouls, None, before.sheet)
        after = racks.win_rack(setup, finished, rack_winner)
    elif choice:
        after = Table(before.score, before.rack, before.breaker, shot_no, on_table, other(shooter), False,
                      False, False, False, fouls, None, before.sheet, False, True)
    elif fouled:
        after = Table(before.score, before.rack, before.breaker, shot_no, on_table, other(shooter), True,
                      is_break and push_out.allowed_after_break(options, True), False, False, fouls, None,
                      before.sheet, facts.scratch and options.ball_in_hand == "behind_head_string")
    elif is_push_out:
        after = Table(before.score, before.rack, before.breaker, shot_no, on_table, other(shooter), False,
                      False, False, True, fouls, None, before.sheet)
    else:
        after = Table(before.score, before.rack, before.breaker, shot_no, on_table,
                      shooter if pocketed else other(shooter), False,
                      is_break and push_out.allowed_after_break(options, False), False, False, fouls, None,
                      before.sheet, False, False, False, is_break)

    warning = rack_winner is None and three_fouls.warning(options, fouls, after.shooter)
    verdict = _verdict(Verdict, (
        before.rack, shot_no, shooter, is_break, is_push_out, pocketed, facts.scratch, facts.off_table,
        fouled and not choice, rules, respot, on_table, facts.assumed, after.shooter, after.ball_in_hand,
        after.push_out_allowed, fouls, warning, rack_winner, False, setup.players, tuple(calls), after,
        None, None, False, None,
    ))
    if setup.targets is not None:  # APA points (rules/apa.py): a race of racks pays only this test
        return apa.score(setup, shot, verdict, finished)
    return after, verdict


def _requirement_only(calls: list[Call]) -> bool:
    """The break's one fault is its requirement (four balls to a rail, the 3-point rule), nothing else."""
    return len(calls) == 1 and isinstance(calls[0], RequirementCall)


def foul_between_shots(setup: Setup, table: Table, call: Call) -> tuple[Table, Verdict]:
    """R5: a foul between shots by the player due to shoot (a moved ball, or the shot clock run out, TR20) ends
    his inning and counts for 5.13."""
    options = setup.options
    player = table.shooter
    assert player is not None  # a foul between shots is taken only while the match is on
    fouls = three_fouls.count_after(table.fouls_in_row, player, True)
    rules = [call.rule]
    rack_winner = None
    finished = table._replace(fouls_in_row=fouls, push_out=False, awaiting_choice=False, after_push_out=False)
    if three_fouls.loses_rack(options, fouls, player):
        rack_winner = other(player)
        rules.append("5.13")
        after = racks.win_rack(setup, finished, rack_winner)
    else:
        after = finished._replace(shooter=other(player), ball_in_hand=True, push_out_allowed=False,
                                  behind_head_string=False, break_choice=False)
    warning = rack_winner is None and three_fouls.warning(options, fouls, after.shooter)
    verdict = Verdict(
        rack=table.rack, shot=table.shot_no, shooter=player, is_break=False, push_out=False,
        pocketed=(), scratch=False, off_table=(), foul=True, rules=tuple(rules), respot_nine=False,
        on_table=table.on_table, assumed=(), next_shooter=after.shooter,
        ball_in_hand=after.ball_in_hand, push_out_allowed=after.push_out_allowed,
        fouls_in_row=fouls, warning=warning, rack_winner=rack_winner,
        between_shots=True, players=setup.players, calls=(call,), after=after,
    )
    if setup.targets is not None:  # APA points (rules/apa.py)
        return apa.score(setup, Shot(table), verdict, finished if rack_winner is not None else None)
    return after, verdict
