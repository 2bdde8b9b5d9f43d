"""The APA team night's checks and chart (scoreboard/event/core/apa_team.py; docs/league.md, "APA team nights")."""

from __future__ import annotations

import pytest

from scoreboard.event.core.apa_team import LOSER_STEPS, TARGETS, least_lineup, match_points, may_put_up
from scoreboard.event.core.spec import Member, Team

TEAM = Team("Cue Tips", (Member("Ana", 7), Member("Ben", 6), Member("Cvita", 6), Member("Dino", 2),
                         Member("Ema", 3), Member("Fran", 2), Member("Goran", 5)))


def test_the_chart_splits_twenty_and_rises_with_the_losers_points():
    for skill, steps in enumerate(LOSER_STEPS, start=1):
        assert list(steps) == sorted(set(steps)) and steps[-1] < TARGETS[skill - 1]
        split = [match_points(skill, points) for points in range(TARGETS[skill - 1])]
        assert all(sum(pair) == 20 for pair in split)
        assert split[0] == (20, 0) and split[-1] == (12, 8)
        assert [loser for _, loser in split] == sorted(loser for _, loser in split)


@pytest.mark.parametrize(("skill", "points", "split"), [
    (1, 2, (20, 0)), (1, 3, (19, 1)), (1, 13, (12, 8)),
    (4, 14, (17, 3)), (4, 15, (16, 4)), (5, 26, (15, 5)), (5, 27, (14, 6)),
    (9, 17, (20, 0)), (9, 18, (19, 1)), (9, 74, (12, 8)),
])
def test_the_chart_at_its_edges(skill, points, split):
    assert match_points(skill, points) == split


def test_a_player_may_be_put_up_once_a_night_from_the_roster_one_at_a_time():
    assert not may_put_up(TEAM, (), 0, "Zoran").ok
    assert "not on the roster" in str(may_put_up(TEAM, (), 0, "Zoran").why)
    assert "tonight already" in str(may_put_up(TEAM, ("Dino",), 1, "Dino").why)
    assert "other captain puts up next" in str(may_put_up(TEAM, ("Dino",), 0, "Ema").why)
    assert may_put_up(TEAM, ("Dino",), 1, "Ema").ok


def test_at_most_two_senior_skill_levels_a_night():
    verdict = may_put_up(TEAM, ("Ana", "Ben"), 2, "Cvita")
    assert not verdict.ok and "at most 2 may play a night" in str(verdict.why)


def test_the_23_rule_counts_what_the_remaining_matches_still_need():
    # 7 + 6 + 5 = 18, and the two matches left need at least 2 + 2: 22 is fine
    assert may_put_up(TEAM, ("Ana", "Ben"), 2, "Goran").ok
    # 7 + 6 + 3 + 5 = 21, and the last match needs at least 2: 23 is the most
    assert may_put_up(TEAM, ("Ana", "Ben", "Ema"), 3, "Goran").ok
    team = Team("Heavy", (Member("A", 7), Member("B", 6), Member("C", 5), Member("D", 5), Member("E", 4),
                          Member("F", 4)))
    verdict = may_put_up(team, ("A", "B"), 2, "C")
    assert not verdict.ok
    assert str(verdict.why) == ("the 23-rule: with C (skill level 5) the skill levels of Heavy tonight would add up "
                                "to at least 26, more than 23")


def test_the_least_lineup_keeps_to_two_seniors():
    assert least_lineup([7, 6, 2, 3], 3, 1) == 11
    assert least_lineup([7, 6, 2], 3, 1) is None
    assert least_lineup([], 0, 0) == 0


def test_docs_league_md_prints_the_chart_the_code_uses():
    from tests.paths import REPO

    lines = [line for line in (REPO / "docs" / "league.md").read_text().splitlines()
             if line.startswith("| ") and "(" in line.split("|")[1] and line.split("|")[1].strip()[0].isdigit()]
    assert len(lines) == 9
    for skill, line in enumerate(lines, start=1):
        cells = [c.strip() for c in line.strip("|").split("|")[1:]]
        firsts = [int(c.split("-")[0]) for c in cells]
        assert tuple(firsts[1:]) == LOSER_STEPS[skill - 1]
        assert int(cells[-1].split("-")[-1]) == TARGETS[skill - 1] - 1
