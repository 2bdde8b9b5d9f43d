"""5.13, R5, R6: three consecutive fouls by one player in one rack lose it; a legal shot clears the count."""

from __future__ import annotations

from scoreboard.core.inputs import RuleOptions

LOSING_FOULS = 3


def count_after(fouls_in_row: tuple[int, int], player: int, fouled: bool) -> tuple[int, int]:
    """The counts after ``player``'s shot: one more foul, or cleared by a legal shot (R6)."""
    counts = list(fouls_in_row)
    counts[player] = counts[player] + 1 if fouled else 0
    return counts[0], counts[1]


def loses_rack(options: RuleOptions, fouls_in_row: tuple[int, int], player: int) -> bool:
    """5.13: the third foul in a row loses the rack, where the rule is played."""
    return options.three_foul_rule and fouls_in_row[player] >= LOSING_FOULS


def warning(options: RuleOptions, fouls_in_row: tuple[int, int], shooter: int | None) -> bool:
    """5.13, R6: the player due to shoot stands on two fouls and must be told before he shoots."""
    return options.three_foul_rule and shooter is not None and fouls_in_row[shooter] == LOSING_FOULS - 1
