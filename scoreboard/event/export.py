"""``devetka event export``: one row (CSV) or one JSON line per match of the event (docs/events.md, "Export").

Every figure is the event's fold: ``score`` is the pair the table's fold ended with (racks, or APA points),
``winner`` the winner's name, ``store`` and ``match_id`` the table's stored match (null for a result entered by
hand); an APA team night's rows add ``match_points``, that match's 20 points split by the APA's chart.

>>> from scoreboard.event.core.fold import Event
>>> from scoreboard.event.core.records import Created, Draw, Result
>>> event = Event.fold([Created({"name": "N", "format": "single", "players": ["Ana", "Ben"], "race": 2}),
...                     Draw(("Ana", "Ben")), Result("W1-1", (1, 2))])
>>> json_lines(event)
['{"match":"W1-1","round":"W1","side":"winners","players":["Ana","Ben"],"table":null,"score":[1,2],"winner":"Ben","store":null,"match_id":null}']
>>> csv_lines(event)[1]
'W1-1,W1,winners,Ana,Ben,,1,2,Ben,,'
"""

from __future__ import annotations

import csv
import io
from typing import Any

import orjson

from scoreboard.event.core.fold import Event

FIELDS = ("match", "round", "side", "players", "table", "score", "winner", "store", "match_id")
COLUMNS = ("match", "round", "side", "player0", "player1", "table", "score0", "score1", "winner", "store",
           "match_id")


def rows(event: Event) -> list[dict[str, Any]]:
    out = []
    for view in event.matches():
        served = view.to_json()
        row = {name: served[name] for name in FIELDS}
        if event.spec.format == "apa_team":
            row["match_points"] = served.get("match_points")
        out.append(row)
    return out


def json_lines(event: Event) -> list[str]:
    return [orjson.dumps(row).decode() for row in rows(event)]


def csv_lines(event: Event) -> list[str]:
    apa = event.spec.format == "apa_team"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS + (("match_points0", "match_points1") if apa else ()))
    for row in rows(event):
        players, score = row["players"], row["score"] or ["", ""]
        cells = [row["match"], row["round"], row["side"], players[0] or "", players[1] or "", row["table"] or "",
                 score[0], score[1], row["winner"] or "", row["store"] or "",
                 "" if row["match_id"] is None else row["match_id"]]
        if apa:
            cells.extend(row["match_points"] or ["", ""])
        writer.writerow(cells)
    return out.getvalue().splitlines()
