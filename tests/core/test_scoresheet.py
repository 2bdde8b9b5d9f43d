"""The APA score sheet (scoreboard/core/scoresheet.py): per rack and per player, as JSON and as a page."""

import json

import pytest

from scoreboard.core.scoresheet import printable, score_sheet
from scoreboard.matchlog.replay import replay
from tests.folding import i, legal_break, shot, start
from tests.paths import EXAMPLES


def sheet_of(*parts, **fields):
    lines = [start(rules={"scoring": "apa"}, apa_skill=[3, 5], race=None, **fields)]
    lines += [item for part in parts for item in (part if isinstance(part, list) else [part])]
    return score_sheet(replay(json.dumps(line) for line in lines).match)


def test_the_issues_match_on_the_sheet():
    sheet = score_sheet(replay((EXAMPLES / "11-apa-points.jsonl").read_text().splitlines()).match)
    assert sheet["racks"] == [{"rack": 1, "points": [3, 2], "innings": 0, "safeties": [0, 0], "dead_balls": 5}]
    assert (sheet["points"], sheet["targets"], sheet["dead_balls"], sheet["match_winner"]) == ([3, 2], [25, 38],
                                                                                                5, None)


def test_each_rack_gets_what_was_played_in_it_a_stalemates_dead_balls_and_a_late_foul_included():
    sheet = sheet_of(legal_break(pockets=(2,)), shot(1, rails=(1,)), i("stalemate"), legal_break(),
                     shot(1, rails=(1,)), i("safety"), shot(1, pockets=(9,)), i("foul", reason="bad_hit"))
    assert sheet["racks"] == [
        {"rack": 1, "points": [1, 0], "innings": 0, "safeties": [0, 0], "dead_balls": 8},
        {"rack": 2, "points": [0, 0], "innings": 1, "safeties": [0, 1], "dead_balls": 0},
    ]
    assert sheet["innings"] == 1 and sheet["safeties"] == [0, 1] and sheet["dead_balls"] == 8


def test_the_printable_page_names_the_players_and_escapes_them():
    page = printable(sheet_of(legal_break(pockets=(2,)), players=["Ana <3", "Ben"]))
    assert page.startswith("<!DOCTYPE html>") and "Ana &lt;3 (SL 3, target 25)" in page and "<script" not in page


def test_the_printable_page_is_said_in_the_catalog_given_and_english_by_default():
    from scoreboard.i18n.catalog import catalog

    sheet = sheet_of(legal_break(pockets=(2,)), shot(1, rails=(1,)))
    english = printable(sheet)
    assert "<html lang=en>" in english and "<td>Total</td>" in english and "The match is not over." in english
    croatian = printable(sheet, catalog("hr"), "hr")
    assert "<html lang=hr>" in croatian and "<td>Ukupno</td>" in croatian and "Meč nije završen." in croatian


def test_a_match_of_racks_has_no_score_sheet():
    with pytest.raises(ValueError, match="needs APA scoring"):
        score_sheet(replay([json.dumps(start())]).match)
