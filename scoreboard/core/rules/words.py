"""The rulings in words a player understands at the table: one line per verdict.

A ruling is a message (``scoreboard.core.messages``): its sentences, each a msgid with its arguments, put into
words in the reader's language only when read (``explain(verdict, catalog)``), so folding a long log does not
pay for sentences nobody reads, and the daemon can serve the ruling as ids for another language. Players'
names are never declined: every sentence is built so that a name stands as it was typed ("Na potezu: Ana").
"""

from __future__ import annotations

from typing import cast

from scoreboard.core.inputs import (
    Accept,
    BetweenShots,
    Concede,
    Extension,
    Pass,
    PushOut,
    Rerack,
    ShotClock,
    Stalemate,
    Timeout,
)
from scoreboard.core.messages import ENGLISH, Arg, Balls, Catalog, Joined, Message, cited, joined, msg, msg_n, render
from scoreboard.core.rules.apa import points_of
from scoreboard.core.rules.clock import TIME_RULE
from scoreboard.core.rules.fouls import THREE_POINT_FAILED
from scoreboard.core.rules.state import Table, Verdict, other

NOTED = (PushOut, Accept, Pass, Stalemate, Concede, Rerack, Timeout, ShotClock, Extension)

#: The push-out question's msgid: the touchscreen says what was chosen in its place once it is answered.
CHOOSES_AFTER_PUSH_OUT = msg("{name} chooses: shoot from here, or pass it back (5.6).").text


def score(table: Table) -> Message:
    """The score as a sports result: '2-1' in English, '2:1' in Croatian."""
    return msg("{won0}-{won1}", won0=table.score[0], won1=table.score[1])


def _rack_result(players: tuple[str, str], table: Table, winner: int) -> Message:
    """What winning the rack means: the next break, or the match."""
    if table.match_winner is not None:
        return msg("{name} wins the match {score}.", name=players[winner], score=score(table))
    return msg("Score {score}; {name} breaks rack {rack}.", score=score(table), name=players[table.breaker],
               rack=table.rack)


def _next(players: tuple[str, str], after: Table, warning: bool) -> list[Message]:
    """Who is at the table next, and what they may do."""
    assert after.shooter is not None  # the rack goes on: someone is at the table
    name = players[after.shooter]
    said = []
    if after.awaiting_choice:
        said.append(Message(CHOOSES_AFTER_PUSH_OUT, (("name", name),)))
    elif after.break_choice:
        said.append(msg("{name} chooses: take the table as it lies, or have it re-racked and break.", name=name))
    elif after.ball_in_hand and after.behind_head_string:
        said.append(msg("{name} has ball in hand behind the head string.", name=name))
    elif after.ball_in_hand:
        said.append(msg("{name} has ball in hand.", name=name))
    if after.push_out_allowed:
        said.append(msg("{name} may push out (5.5).", name=name))
    if warning:
        said.append(msg("{name} is on two fouls: a third loses the rack (5.13).", name=name))
    return said


def explain(verdict: Verdict, catalog: Catalog = ENGLISH) -> str:
    """One line on a verdict, e.g. 'Foul 5.8: the 3 was hit before the 1. Ben has ball in hand.'."""
    return render(ruling(verdict), catalog)


def ruling(verdict: Verdict) -> Joined:
    """The verdict as the sentences a player reads, one message each; last, an extension a late input gave back."""
    said = _ruling(verdict)
    if verdict.extension_back is None:
        return said
    return joined([said, msg("{name} has the extension back: the turn it was taken in was not theirs (TR20).",
                             name=verdict.players[verdict.extension_back])])


def _ruling(verdict: Verdict) -> Joined:
    if verdict.between_shots:
        return joined(_between_shots(verdict))
    players, calls, after = verdict.players, verdict.calls, verdict.after
    assert after is not None  # the rules' verdicts say the table they leave
    name = players[verdict.shooter]
    pocketed = verdict.pocketed
    going_on = after.match_winner is None
    said: list[Arg] = []
    if calls and after.break_choice:
        said.append(msg("Failed break {rule}: {reason}.", rule=calls[0].rule, reason=calls[0].reason))
    elif calls:
        rules = ", ".join(dict.fromkeys(call.rule for call in calls))
        said.append(msg("Foul {rules}: {reasons}.", rules=rules, reasons=joined((call.reason for call in calls), "; ")))
        if verdict.rack_winner is not None:
            said.append(msg("Third foul in a row: {name} loses the rack (5.13).", name=name))
    elif verdict.push_out:
        down = Balls(tuple(ball for ball in pocketed if ball != 9))
        if down.numbers:
            said.append(msg_n("Push out (5.6) by {name}; the {balls} stays down.",
                              "Push out (5.6) by {name}; the {balls} stay down.", down.n, name=name, balls=down))
        else:
            said.append(msg("Push out (5.6) by {name}.", name=name))
    elif verdict.rack_winner is not None:
        if verdict.is_break:
            said.append(msg("{name} pocketed the 9 on the break and wins the rack (5.15).", name=name))
        else:
            said.append(msg("{name} pocketed the 9 and wins the rack (5.15).", name=name))
    elif verdict.is_break:
        said.append(_legal_break(name, Balls(pocketed), going_on))
    elif pocketed:
        down = Balls(pocketed)
        if going_on:
            said.append(msg_n("{name} pocketed the {balls} and shoots again.",
                              "{name} pocketed the {balls} and shoots again.", down.n, name=name, balls=down))
        else:
            said.append(msg_n("{name} pocketed the {balls}.", "{name} pocketed the {balls}.", down.n, name=name,
                              balls=down))
    else:
        said.append(msg("{name} missed (5.1).", name=name))
    if verdict.respot_nine:
        said.append(msg("Respot the 9 on the foot spot."))
    if verdict.points_scored is not None:
        said += _points(players, verdict)
        if after.match_winner is not None and verdict.rack_winner is None:
            said.append(_target_reached(name, verdict))
            return joined(said)
    if verdict.assumed:
        taken = Balls(verdict.assumed)
        said.append(msg_n("The unnamed ball was taken as the {balls}: tap the ball if it was another.",
                          "The unnamed balls were taken as the {balls}: tap the balls if they were others.",
                          taken.n, balls=taken))
    if verdict.rack_winner is not None:
        said.append(_rack_result(players, after, verdict.rack_winner))
        return joined(said)
    if not calls and not verdict.push_out and after.shooter != verdict.shooter:
        assert after.shooter is not None  # the rack goes on: someone is at the table
        said.append(msg("{name} to shoot.", name=players[after.shooter]))
    return joined([*said, *_next(players, after, verdict.warning)])


def cites(verdict: Verdict, said: Joined | None = None) -> tuple[str, ...]:
    """The rules a ruling cites, for "Why?": the numbers its words name (5.8, R3), then the league option whose rule
    it applied (by the option's name: ``ball_in_hand``, ``nine_on_break``, ``break_requirement``,
    ``break_failure``, ``scoring``), which the words do not number."""
    after = verdict.after
    league = []
    if after is not None and after.behind_head_string and verdict.ball_in_hand:
        league.append("ball_in_hand")
    if verdict.is_break and verdict.respot_nine and not verdict.foul and verdict.rack_winner is None:
        league.append("nine_on_break")
    if any(call.reason == THREE_POINT_FAILED for call in verdict.calls):
        league.append("break_requirement")
    if after is not None and after.break_choice:
        league.append("break_failure")
    if verdict.points_scored is not None:
        league.append("scoring")
    return (*cited(ruling(verdict) if said is None else said), *league)


def _legal_break(name: str, down: Balls, going_on: bool) -> Message:
    if not down.numbers:
        return msg("Legal break (5.4) by {name}.", name=name)
    if going_on:
        return msg_n("Legal break (5.4) by {name}: the {balls} down, {name} shoots again.",
                     "Legal break (5.4) by {name}: the {balls} down, {name} shoots again.", down.n, name=name,
                     balls=down)
    return msg_n("Legal break (5.4) by {name}: the {balls} down.", "Legal break (5.4) by {name}: the {balls} down.",
                 down.n, name=name, balls=down)


def _target_reached(name: str, verdict: Verdict) -> Message:
    """The match won on points mid-rack; what the shot made past the target is said not to count (rules/apa.py)."""
    past = points_of(verdict.pocketed) - (verdict.points_scored or 0)
    if past <= 0:
        return msg("{name} reaches the target and wins the match.", name=name)
    return msg_n("{name} reaches the target and wins the match; the {n} point past it is not scored.",
                 "{name} reaches the target and wins the match; the {n} points past it are not scored.", past,
                 name=name)


def _points(players: tuple[str, str], verdict: Verdict) -> list[Message]:
    """APA scoring: what the shot scored and the points each player has (rules/apa.py)."""
    after = verdict.after
    assert after is not None and after.sheet is not None  # APA verdicts carry the score sheet
    scored = verdict.points_scored or 0
    said = [msg("Safety.")] if verdict.safety else []
    if scored:
        points = after.sheet.points
        said.append(msg_n("{name} scores {n}: {name0} {points0}, {name1} {points1}.",
                          "{name} scores {n}: {name0} {points0}, {name1} {points1}.", scored,
                          name=players[verdict.shooter], name0=players[0], points0=points[0], name1=players[1],
                          points1=points[1]))
    if verdict.rack_dead:
        said.append(msg_n("Dead balls this rack: {n}.", "Dead balls this rack: {n}.", verdict.rack_dead))
    return said


def _between_shots(verdict: Verdict) -> list[Message]:
    """A foul between shots (R5): 'Foul 5.12 between shots by Ben: a ball was moved. Ana has ball in hand.'."""
    players, after = verdict.players, verdict.after
    assert after is not None  # the rules' verdicts say the table they leave
    name = players[verdict.shooter]
    call = verdict.calls[0]
    if call.rule == TIME_RULE:
        said = [msg("Time foul ({rule}) by {name}: {reason}.", rule=call.rule, name=name, reason=call.reason)]
    else:
        said = [msg("Foul {rule} between shots by {name}: {reason}.", rule=call.rule, name=name, reason=call.reason)]
    if verdict.rack_winner is not None:
        said.append(msg("Third foul in a row: {name} loses the rack (5.13).", name=name))
        return [*said, _rack_result(players, after, verdict.rack_winner)]
    return said + _next(players, after, verdict.warning)


def note(players: tuple[str, str], item: BetweenShots | ShotClock | Extension, after: Table,
         before: Table | None = None, catalog: Catalog = ENGLISH) -> str | None:
    """An input between shots in words (``noted``); None for the clock run out: its shot line says it."""
    said = noted(players, item, after, before)
    return None if said is None else render(said, catalog)


def noted(players: tuple[str, str], item: BetweenShots | ShotClock | Extension, after: Table,
          before: Table | None = None) -> Arg | None:
    """An input between shots as a message: a push out, the choice after it (or after a failed break), a
    stalemate, a concession, a re-rack, a timeout, the shot clock turned on or off, an extension. None for the
    clock run out: its shot line says it."""
    kind = type(item)
    if isinstance(item, ShotClock):
        if item.on is None:
            return None
        return msg("The shot clock is on (TR20).") if item.on else msg("The shot clock is off.")
    if kind is Extension:
        assert after.shooter is not None  # an extension is taken only while the match is on
        return msg("{name} takes an extension on the shot clock (TR20).", name=players[after.shooter])
    if kind is Accept and before is not None and before.break_choice:
        assert after.shooter is not None
        return msg("{name} takes the table as it lies after the failed break.", name=players[after.shooter])
    if kind is PushOut:
        assert after.shooter is not None  # a push out, and the choice after it, leave someone at the table
        return msg("{name} announces a push out (5.6).", name=players[after.shooter])
    if kind is Accept:
        assert after.shooter is not None
        return msg("{name} takes the shot after the push out (5.6).", name=players[after.shooter])
    if kind is Pass:
        assert after.shooter is not None
        return msg("{name} passes the shot back; {shooter} must shoot (5.6, R3).", name=players[other(after.shooter)],
                   shooter=players[after.shooter])
    if kind is Stalemate:
        return msg("Stalemate (5.14): the rack is replayed; {name} breaks rack {rack}.", name=players[after.breaker],
                   rack=after.rack)
    if kind is Rerack:
        return msg("The balls are racked again; {name} breaks rack {rack}.", name=players[after.breaker],
                   rack=after.rack)
    if kind is Timeout:
        assert after.shooter is not None
        return msg("{name} takes a timeout.", name=players[after.shooter])
    item = cast(Concede, item)  # the one kind left (mypy does not narrow item by kind)
    name = players[item.player]
    conceded = (msg("{name} concedes the match (R9).", name=name) if item.scope == "match"
                else msg("{name} concedes the rack (R9).", name=name))
    if after.match_winner is not None:
        return joined([conceded, msg("{name} wins the match {score}.", name=players[after.match_winner],
                                     score=score(after))])
    return joined([conceded, _rack_result(players, after, other(item.player))])


def shot_in_brief(verdict: Verdict, in_progress: bool = False, catalog: Catalog = ENGLISH) -> str:
    """A shot named in a few words, for what ``undo_shot`` takes back: 'Ben's shot, the 3 pocketed, foul 5.8'."""
    return render(shot_named(verdict, in_progress), catalog)


def shot_named(verdict: Verdict, in_progress: bool = False) -> Joined:
    """``shot_in_brief`` as a message. A shot still in progress is not ruled yet, so no foul is named for it."""
    name = verdict.players[verdict.shooter]
    if verdict.is_break:
        kind = msg("{name}'s break in progress", name=name) if in_progress else msg("{name}'s break", name=name)
    elif verdict.push_out:
        kind = (msg("{name}'s push out in progress", name=name) if in_progress
                else msg("{name}'s push out", name=name))
    else:
        kind = msg("{name}'s shot in progress", name=name) if in_progress else msg("{name}'s shot", name=name)
    parts: list[Arg] = [kind]
    if verdict.pocketed:
        down = Balls(verdict.pocketed)
        parts.append(msg_n("the {balls} pocketed", "the {balls} pocketed", down.n, balls=down))
    if verdict.foul and not in_progress:
        rules = dict.fromkeys(call.rule for call in verdict.calls) or dict.fromkeys(verdict.rules)
        parts.append(msg("foul {rules}", rules=", ".join(rules)))
    return joined(parts, ", ")
