"""The APA 9-ball team night: who a captain may put up (the 23-rule, two senior skill levels) and how each match's
20 points are split (docs/league.md, "APA team nights", with the sources read and what was decided).

>>> match_points(loser_skill=4, loser_points=20)
(15, 5)
>>> match_points(loser_skill=4, loser_points=0)
(20, 0)
>>> [sum(match_points(skill, points)) for skill in range(1, 10) for points in (0, target(skill) - 1)] == [20] * 18
True
"""

from __future__ import annotations

from dataclasses import dataclass

from scoreboard.core.messages import Message, msg
from scoreboard.event.core.spec import APA_MATCHES, Team

#: Points a player of skill level 1 to 9 must reach (the Equalizer chart, as ``scoreboard.core.rules.apa``).
TARGETS = (14, 19, 25, 31, 38, 46, 55, 65, 75)
#: The 23-rule: the skill levels of a team's five players of a night add up to at most this.
SKILL_CAP = 23
#: Senior skill levels (6 to 9): at most ``SENIORS_MAX`` of them a night.
SENIOR = 6
SENIORS_MAX = 2

#: For a losing player of skill level 1 to 9, the least points that earn the loser 1, 2, ... 8 of the match's
#: 20 (below the first, the winner takes 20-0). Read from the APA's 9-ball match-point chart; docs/league.md
#: gives the sources and where they differ.
LOSER_STEPS: tuple[tuple[int, ...], ...] = (
    (3, 4, 5, 7, 8, 9, 11, 12),
    (4, 6, 8, 9, 11, 13, 15, 17),
    (5, 7, 10, 12, 15, 17, 20, 22),
    (6, 9, 12, 15, 19, 22, 25, 28),
    (7, 11, 15, 19, 23, 27, 30, 34),
    (9, 13, 18, 23, 28, 32, 37, 41),
    (11, 16, 22, 27, 33, 38, 44, 50),
    (14, 20, 27, 33, 40, 46, 53, 59),
    (18, 25, 32, 39, 47, 54, 61, 68),
)


def target(skill: int) -> int:
    return TARGETS[skill - 1]


def match_points(loser_skill: int, loser_points: int) -> tuple[int, int]:
    """The match's 20 points as (winner's, loser's), from what the loser scored toward his target."""
    earned = sum(1 for step in LOSER_STEPS[loser_skill - 1] if loser_points >= step)
    return 20 - earned, earned


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a step is allowed, and if not, why (a message for the captain, in any language)."""

    ok: bool
    why: Message | None = None


ALLOWED = Verdict(True)


def may_put_up(team: Team, put_up: tuple[str, ...], other_count: int, player: str) -> Verdict:
    """May the captain of ``team``, having put up ``put_up`` so far tonight, put up ``player`` now, while the
    other team has put up ``other_count``? Checked when the player is put up, as the league checks it: the
    roster, once a night, one at a time, the 23-rule (counting the least the team's remaining matches still
    need) and at most two senior skill levels.

    >>> from scoreboard.event.core.spec import Member
    >>> team = Team("Cue Tips", (Member("Ana", 7), Member("Ben", 6), Member("Cvita", 6), Member("Dino", 2),
    ...                          Member("Ema", 3), Member("Fran", 2)))
    >>> str(may_put_up(team, ("Ana", "Ben"), 2, "Cvita").why)
    'Cue Tips has put up 2 players of skill level 6 or more tonight: at most 2 may play a night'
    >>> may_put_up(team, ("Ana", "Ben"), 2, "Dino").ok
    True
    """
    skill = team.skill_of(player)
    if skill is None:
        return Verdict(False, msg("{player} is not on the roster of {team}", player=player, team=team.name))
    if player in put_up:
        return Verdict(False, msg("{player} has played for {team} tonight already", player=player, team=team.name))
    if len(put_up) >= APA_MATCHES:
        return Verdict(False, msg("{team} has put up its five players", team=team.name))
    if len(put_up) > other_count:
        return Verdict(False, msg("{team} has put up its player for this match: the other captain puts up next",
                                  team=team.name))
    skills = [team.skill_of(name) or 0 for name in put_up]
    seniors = sum(1 for s in skills if s >= SENIOR)
    if skill >= SENIOR and seniors >= SENIORS_MAX:
        return Verdict(False, msg("{team} has put up {seniors} players of skill level 6 or more tonight: at most 2 "
                                  "may play a night", team=team.name, seniors=seniors))
    left = APA_MATCHES - len(put_up) - 1
    rest = [m.skill for m in team.members if m.name not in put_up and m.name != player]
    fill = least_lineup(rest, left, SENIORS_MAX - seniors - (1 if skill >= SENIOR else 0))
    if fill is None:
        return Verdict(False, msg("with {player} put up, {team} could not fill its last {n} matches with at most "
                                  "two players of skill level 6 or more", player=player, team=team.name, n=left))
    total = sum(skills) + skill + fill
    if total > SKILL_CAP:
        return Verdict(False, msg("the 23-rule: with {player} (skill level {skill}) the skill levels of {team} "
                                  "tonight would add up to at least {total}, more than 23", player=player,
                                  skill=skill, team=team.name, total=total))
    return ALLOWED


def least_lineup(skills: list[int], count: int, seniors_may: int) -> int | None:
    """The least sum of ``count`` of ``skills`` with at most ``seniors_may`` senior skill levels among them, or
    None when no such choice exists.

    >>> least_lineup([7, 6, 2, 3], 3, 1), least_lineup([7, 6, 2], 3, 1)
    (11, None)
    """
    juniors = sorted(s for s in skills if s < SENIOR)
    seniors = sorted(s for s in skills if s >= SENIOR)
    taken_juniors = min(count, len(juniors))
    taken_seniors = count - taken_juniors
    if taken_seniors > min(seniors_may, len(seniors)):
        return None
    return sum(juniors[:taken_juniors]) + sum(seniors[:taken_seniors])
