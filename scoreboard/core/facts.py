"""The rule facts a screen shows beside the state line, decided here once and served with every state.

The touchscreen and the board draw them and work none out: the ball on, who is on the hill, whether the rack's
break is still to come, who breaks a rematch, what the shot being played has dropped so far, which balls an
unnamed pocketed ball could have been, the last ruling with its push-out question answered, the concession that
ended the last rack or the match, and the bounds a setup screen keeps its numbers in.

>>> from scoreboard.core.inputs import MatchStart
>>> from scoreboard.core.match import Match
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> served = facts(match.state, None)
>>> served["ball_on"], served["hill"], served["break_to_come"], served["rematch_breaker"]
(1, [False, False], True, None)
"""

from __future__ import annotations

from typing import Any

from scoreboard.core.inputs import RACE_MAX, Pocket
from scoreboard.core.match import Conceded
from scoreboard.core.messages import Joined, Message, msg
from scoreboard.core.rules.state import State, Verdict, other
from scoreboard.core.rules.words import CHOOSES_AFTER_PUSH_OUT, noted, ruling

#: The numbers a setup screen offers: APA skill levels 1 to 9 (``apa_skill_of``), a race of 1 to ``RACE_MAX``.
LIMITS = {"apa_skill": [1, 9], "race": [1, RACE_MAX]}

NONE: dict[str, Any] = {"ball_on": None, "hill": [False, False], "break_to_come": False, "rematch_breaker": None,
                        "shot_dropped": [], "identify_candidates": [], "ruling_now": None, "conceded": None,
                        "limits": LIMITS}


def facts(state: State | None, last: Verdict | None, conceded: Conceded | None = None) -> dict[str, Any]:
    """The served facts of the fold ``state`` (None: no match) whose last ruling is ``last`` and whose last rack
    a concession ended with no shot ruled since (``Match.last_concession``); ``ruling_now`` and the concession's
    ``message`` are messages (the presenter says them in the players' language)."""
    if state is None:
        return dict(NONE)
    table, setup = state.table, state.setup
    over = table.match_winner is not None
    shot = state.shot
    return {
        "ball_on": None if over or not table.on_table else min(table.on_table),
        "hill": [not over and setup.targets is None and table.score[i] == setup.race[i] - 1 for i in (0, 1)],
        "break_to_come": not over and shot is None and (last is None or last.rack != table.rack),
        "rematch_breaker": None if table.match_winner is None else other(table.match_winner),
        "shot_dropped": [] if shot is None else [item.ball for item in shot.events if isinstance(item, Pocket)],
        "identify_candidates": [] if last is None or not last.assumed else
        sorted((set(last.on_table) | set(last.pocketed)) - {0}),
        "ruling_now": None if last is None else ruling_now(state, last),
        "conceded": None if conceded is None else concession(state, conceded),
        "limits": LIMITS,
    }


def concession(state: State, conceded: Conceded) -> dict[str, Any]:
    """The concession that ended the last rack or the match (R9), as a screen says it in place of the last shot's
    ruling: who conceded what, which rack, who won it, whether it ended the match, and in words.

    >>> from scoreboard.core.inputs import Concede, MatchStart
    >>> from scoreboard.core.match import Match
    >>> match = Match(MatchStart(players=("Ana", "Ben"), race=(1, 1), breaker=0))
    >>> _ = match.apply(Concede(player=0, scope="rack"))
    >>> said = concession(match.state, match.last_concession())
    >>> said["winner"], said["rack"], said["match_over"]
    (1, 1, True)
    """
    item, after = conceded.item, conceded.after
    said = noted(state.setup.players, item, after, None)
    assert said is not None  # a concession is always said
    return {"player": item.player, "scope": item.scope, "rack": conceded.before.rack, "winner": other(item.player),
            "match_over": after.match_winner is not None, "message": said, "cites": ["R9"]}


def ruling_now(state: State, last: Verdict) -> Joined | None:
    """The last ruling as said now, where that is not as it was given: once a push out is answered, what the
    chooser chose in place of the question (5.6); None otherwise."""
    chooser, shooter = last.next_shooter, state.table.shooter
    if not last.push_out or state.table.awaiting_choice or chooser is None or shooter is None:
        return None
    said = ruling(last)
    players = state.setup.players
    if shooter == chooser:
        answer = msg("{name} chose to shoot from here.", name=players[shooter])
    else:
        answer = msg("{name} passed it back: {shooter} shoots.", name=players[chooser], shooter=players[shooter])
    if not any(_asks(part) for part in said.parts):
        return None
    return Joined(tuple(answer if _asks(part) else part for part in said.parts), said.separator)


def _asks(part: Any) -> bool:
    return isinstance(part, Message) and part.text == CHOOSES_AFTER_PUSH_OUT
