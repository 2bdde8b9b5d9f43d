"""The APA score sheet of a match (``scoring: "apa"``): per rack and per player the points, innings and
safeties, and the rack's dead balls, with the match's totals; as JSON and as a printable page.

Made by folding the match's inputs once more and reading the score sheet (``Table.sheet``) before and after
each: what an input changed belongs to the rack it was played in (a late foul that reopens a rack included).

>>> from scoreboard.core.inputs import MatchStart, RuleOptions, Strike, FirstContact, Pocket, Settle
>>> from scoreboard.core.match import Match
>>> apa = RuleOptions(scoring="apa", push_outs=False, three_foul_rule=False)
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(0, 0), breaker=0, options=apa, apa_skill=(3, 5)))
>>> for item in (Strike(), FirstContact(1), Pocket(3), Pocket(9), Settle()):
...     _ = match.apply(item)
>>> score_sheet(match)["racks"]
[{'rack': 1, 'points': [3, 0], 'innings': 0, 'safeties': [0, 0], 'dead_balls': 7}]
"""

from __future__ import annotations

from html import escape
from typing import Any

from scoreboard.core.inputs import Settle
from scoreboard.core.match import Match
from scoreboard.core.messages import ENGLISH, Catalog, Message, msg, render
from scoreboard.core.rules import evolve, start
from scoreboard.core.rules.apa import EMPTY_SHEET


def score_sheet(match: Match) -> dict[str, Any]:
    """The score sheet as JSON; a match not scored in APA points is refused with ``ValueError``."""
    state = start(match.match_start, match.state.setup.rules_version)
    setup = state.setup
    if setup.targets is None or setup.apa_skill is None:
        raise ValueError(msg('a score sheet needs APA scoring (rules.scoring "apa")'))
    racks: dict[int, dict[str, Any]] = {}
    states = [state]
    for applied in match.history():
        state = evolve(state, applied.item).state
        states.append(state)
    if state.shot is not None:  # the log ends in a shot: it is over (the spec)
        states.append(evolve(state, Settle()).state)
    closed = states[-1]
    for before, after in zip(states, states[1:], strict=False):
        was, now = before.table.sheet or EMPTY_SHEET, after.table.sheet or EMPTY_SHEET
        rack = min(before.table.rack, after.table.rack)
        row = racks.setdefault(rack, {"rack": rack, "points": [0, 0], "innings": 0, "safeties": [0, 0],
                                      "dead_balls": 0})
        for player in (0, 1):
            row["points"][player] += now.points[player] - was.points[player]
            row["safeties"][player] += now.safeties[player] - was.safeties[player]
        row["innings"] += now.innings - was.innings
        row["dead_balls"] += now.dead_balls - was.dead_balls
    final = closed.table.sheet or EMPTY_SHEET
    return {
        "type": "score_sheet", "players": list(setup.players), "apa_skill": list(setup.apa_skill),
        "targets": list(setup.targets), "lag_winner": setup.first_breaker,
        "racks": [racks[number] for number in sorted(racks)],
        "points": list(final.points), "innings": final.innings, "safeties": list(final.safeties),
        "dead_balls": final.dead_balls, "match_winner": closed.table.match_winner,
    }


def printable(sheet: dict[str, Any], catalog: Catalog = ENGLISH, language: str = "en") -> str:
    """The score sheet as a page to print (HTML, its own styles, no script), in ``catalog``'s language (``language``
    its code, for the page's ``lang``): every word a message, as every other screen's."""
    players = sheet["players"]

    def said(message: Message) -> str:
        return escape(render(message, catalog))

    def cell(value: Any) -> str:
        return f"<td>{escape(str(value))}</td>"

    safeties = said(msg("safeties"))
    names = [said(msg("{name} (SL {skill}, target {target})", name=name, skill=skill, target=target))
             for name, skill, target in zip(players, sheet["apa_skill"], sheet["targets"], strict=True)]
    head = "".join(f"<th>{name}</th><th>{safeties}</th>" for name in names)
    rows = "".join(
        "<tr>" + cell(row["rack"]) + "".join(cell(row["points"][p]) + cell(row["safeties"][p]) for p in (0, 1))
        + cell(row["innings"]) + cell(row["dead_balls"]) + "</tr>"
        for row in sheet["racks"])
    total_word = said(msg("Total"))
    total = (f"<tr class=total><td>{total_word}</td>"
             + "".join(cell(sheet["points"][p]) + cell(sheet["safeties"][p]) for p in (0, 1))
             + cell(sheet["innings"]) + cell(sheet["dead_balls"]) + "</tr>")
    winner = sheet["match_winner"]
    result = said(msg("{name} wins the match.", name=players[winner]) if winner is not None
                  else msg("The match is not over."))
    lag = said(msg("Lag won by {name} (top line); innings are the turns of the other player that ended.",
                   name=players[sheet["lag_winner"]]))
    title = said(msg("APA 9-ball score sheet"))
    heading = said(msg("APA 9-ball score sheet: {name0} v {name1}", name0=players[0], name1=players[1]))
    rack, innings, dead = said(msg("Rack")), said(msg("innings")), said(msg("dead balls"))
    columns = f"<th>{rack}</th>{head}<th>{innings}</th><th>{dead}</th>"
    return (
        f"<!DOCTYPE html><html lang={escape(language)}><head><meta charset=utf-8><title>{title}</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}th,td{border:1px solid #000;"
        "padding:.3em .8em;text-align:center}.total{font-weight:bold}</style></head><body>"
        f"<h1>{heading}</h1><p>{lag}</p><table><tr>{columns}</tr>{rows}{total}</table>"
        f"<p>{result}</p></body></html>\n"
    )
