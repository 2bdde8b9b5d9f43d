"""Nine-ball as a pure fold: no I/O, no clock, nothing outside the standard library.

``start(match_start)`` gives the first state; ``evolve(state, input)`` the next
``Step`` (state, and the verdict of a shot the input ended or amended), or a
``RuleError`` that leaves the match as it was.
"""

from scoreboard.core.rules.fold import evolve, start
from scoreboard.core.rules.state import RULES_VERSION, RuleError, Setup, Shot, State, Step, Table, Verdict

__all__ = ["RULES_VERSION", "RuleError", "Setup", "Shot", "State", "Step", "Table", "Verdict", "evolve", "start"]
