"""Deciding a shot from its facts: the verdict and the table after it (5.1-5.15, R1-R11)."""

from __future__ import annotations

from dataclasses import replace

from scoreboard.inputs import NINE, Foul
from scoreboard.rules import push_out, racks, three_fouls, words
from scoreboard.rules.facts import read
from scoreboard.rules.fouls import fouls_on
from scoreboard.rules.state import Setup, Shot, Table, Verdict, other


def decide(setup: Setup, shot: Shot) -> tuple[Table, Verdict]:
    """The verdict on ``shot`` and the table it leaves; deciding again after a late input is the same call."""
    before = shot.before
    options = setup.options
    shooter = before.shooter
    facts = read(shot)
    calls = fouls_on(shot, facts, options)
    fouled = bool(calls)
    gone = set(facts.pocketed).union(facts.objects_off)
    on_table = tuple(ball for ball in before.on_table if ball not in gone)
    fouls = three_fouls.count_after(before.fouls_in_row, shooter, fouled)

    rack_winner = None
    if fouled:
        rules = list(dict.fromkeys(call.rule for call in calls))
        if three_fouls.loses_rack(options, fouls, shooter):
            rack_winner = other(shooter)
            rules.append("5.13")
    elif shot.is_push_out:
        rules = ["5.6"]
    elif NINE in facts.pocketed:
        rack_winner = shooter
        rules = ["5.4", "5.15"] if shot.is_break else ["5.15"]
    elif shot.is_break:
        rules = ["5.4", "5.5" if facts.pocketed else "5.1"]
    else:
        rules = ["5.1"]

    respot = rack_winner is None and NINE in gone and (fouled or shot.is_push_out)
    if respot:
        on_table = tuple(sorted(on_table + (NINE,)))
    finished = replace(before, shot_no=before.shot_no + 1, on_table=on_table, fouls_in_row=fouls,
                       push_out=False, awaiting_choice=False)
    if rack_winner is not None:
        after = racks.win_rack(setup, finished, rack_winner)
    elif fouled:
        after = replace(finished, shooter=other(shooter), ball_in_hand=True,
                        push_out_allowed=shot.is_break and push_out.allowed_after_break(options, True))
    elif shot.is_push_out:
        after = replace(finished, shooter=other(shooter), ball_in_hand=False, push_out_allowed=False,
                        awaiting_choice=True)
    else:
        after = replace(finished, shooter=shooter if facts.pocketed else other(shooter), ball_in_hand=False,
                        push_out_allowed=shot.is_break and push_out.allowed_after_break(options, False))

    warning = rack_winner is None and three_fouls.warning(options, fouls, after.shooter)
    verdict = Verdict(
        rack=before.rack, shot=before.shot_no + 1, shooter=shooter, is_break=shot.is_break,
        push_out=shot.is_push_out, pocketed=facts.pocketed, scratch=facts.scratch,
        off_table=facts.off_table, foul=fouled, rules=tuple(rules), respot_nine=respot,
        on_table=on_table, assumed=facts.assumed, next_shooter=after.shooter,
        ball_in_hand=after.ball_in_hand, push_out_allowed=after.push_out_allowed,
        fouls_in_row=fouls, warning=warning, rack_winner=rack_winner,
        words=words.shot(setup, shooter, shot.is_break, shot.is_push_out, calls, facts.pocketed,
                         facts.assumed, respot, rack_winner, after, warning),
    )
    return after, verdict


def foul_between_shots(setup: Setup, table: Table, foul: Foul) -> tuple[Table, Verdict]:
    """R5: a foul between shots by the player due to shoot ends his inning and counts for 5.13."""
    options = setup.options
    player = table.shooter
    call = words.foul_between(foul.reason)
    fouls = three_fouls.count_after(table.fouls_in_row, player, True)
    rules = [call.rule]
    rack_winner = None
    finished = replace(table, fouls_in_row=fouls, push_out=False, awaiting_choice=False)
    if three_fouls.loses_rack(options, fouls, player):
        rack_winner = other(player)
        rules.append("5.13")
        after = racks.win_rack(setup, finished, rack_winner)
    else:
        after = replace(finished, shooter=other(player), ball_in_hand=True, push_out_allowed=False)
    warning = rack_winner is None and three_fouls.warning(options, fouls, after.shooter)
    verdict = Verdict(
        rack=table.rack, shot=table.shot_no, shooter=player, is_break=False, push_out=False,
        pocketed=(), scratch=False, off_table=(), foul=True, rules=tuple(rules), respot_nine=False,
        on_table=table.on_table, assumed=(), next_shooter=after.shooter,
        ball_in_hand=after.ball_in_hand, push_out_allowed=after.push_out_allowed,
        fouls_in_row=fouls, warning=warning, rack_winner=rack_winner,
        words=words.between_shots(setup, player, call, rack_winner, after, warning),
        between_shots=True,
    )
    return after, verdict
