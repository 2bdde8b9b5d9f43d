"""The daemon's shot clock: when the turn due now started, when it runs out, and what happens then (TR20).

The rules (``scoreboard.core.rules.clock``) say whether the turn due now is timed and for how long; this says
*when*, on explicit times as the settle timer does (``scoreboard.core.settle``): the referee calls ``seen`` with
the match's time of each input it applied and the state after it, sleeps until ``deadline``, and asks ``due(now)``.

- A turn is timed from the input that made it so: the ``settle`` that ended the shot before (the table quiet),
  or an ``accept``/``pass`` that ended a push-out choice, a time foul, the clock turned on. The next shooter is
  known then: the rules time no turn while a shot is in progress, before the break or while a choice is pending.
- It stops when the next shot begins: the strike (with a strike sensor), else the shot's first sensor input;
  a shot an undo reopens is a shot in progress, so the clock waits for it too.
- An extension moves the deadline on by its seconds; undoing it moves it back.
- After a restart the referee folds the stored log again through ``seen_stored``: each input at the match time
  the log gave it, so a turn goes on from where it was at the last stored input.
- At the deadline: with a strike sensor the daemon writes ``shot_clock`` ``expired`` itself (``due`` returns it);
  without one it cannot know whether the tip met the ball in time, so it only *proposes* the time foul
  (``proposed``), for a player to tap or to let pass.

A legal break that dropped a ball: its breaker's next shot has the break's 60 s (after a fouled break, 35 s).

- A pause (``pause``) stands the clock still while the players put a ruling right on the touchscreen (a foul
  called, a ball named, an undo): ``resume`` moves the deadline on by the time it stood still. It lapses by itself
  ``PAUSE_LAPSE_S`` after it was last asked for (a screen that crashed with its menu open holds the clock no
  longer), and a new turn, or none timed, ends it. It is the clock's matter, not the rules': nothing is stored.

>>> from scoreboard.core.inputs import FirstContact, MatchStart, Pocket, RuleOptions, Settle, Strike
>>> from scoreboard.core.match import Match
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0,
...                          options=RuleOptions(shot_clock=True, strike_sensed=True)))
>>> timer = ShotClockTimer()
>>> for item in (Strike(t=1.0), FirstContact(ball=1, t=1.2), Pocket(ball=2, t=1.5), Settle(t=6.0)):
...     timer.seen(item.t, match.apply(item).state)
>>> timer.deadline, timer.warning
(66.0, 56.0)
>>> timer.due(65.9), timer.due(66.0)
(False, ShotClock(on=None, expired=True, t=66.0, src=None))

A pause from 20 s to 50 s of match time moves the deadline on by those 30 s:

>>> timer = ShotClockTimer()
>>> timer.seen(6.0, match.state)
>>> timer.pause(20.0)
>>> timer.left(20.0), timer.due(70.0), timer.resume(50.0), timer.deadline
(46.0, False, True, 96.0)
"""

from __future__ import annotations

from scoreboard.core.inputs import Input, ShotClock
from scoreboard.core.rules import State
from scoreboard.core.rules.clock import turn_limit

#: A pause lapses this long after it was last asked for: a correction takes a minute or two, and a screen that
#: crashed or lost the daemon with its menu open must not hold the clock for the rest of the match.
PAUSE_LAPSE_S = 120.0


class ShotClockTimer:
    """When the turn due now runs out: ``seen`` each applied input, sleep until ``deadline``, act on ``due(now)``."""

    def __init__(self) -> None:
        self._turn: tuple[int, int, int] | None = None   # the turn timed (rack, shot number, shooter), if any
        self._started: float | None = None
        self._limit: int | None = None
        self._warning = 0
        self._strike_sensed = False
        self._given = False                               # run out and acted on (applied or proposed)
        self._last_t = 0.0                                # the last stored input's time (``seen_stored``)
        self.proposed = False
        """Run out on a table without a strike sensor: the time foul is proposed for a tap."""
        self._paused_at: float | None = None             # the match time the clock stood still at, while it does
        self._pause_ends: float | None = None            # when that pause lapses by itself

    def seen(self, t: float, state: State) -> None:
        """An input the daemon applied at match time ``t``, and the state after it."""
        limit = turn_limit(state)
        self._strike_sensed = state.setup.options.strike_sensed
        self._warning = state.setup.options.shot_clock_warning_s
        if limit is None:
            self._turn = self._started = self._limit = None
            self._given = self.proposed = False
            self._paused_at = self._pause_ends = None
            return
        table = state.table
        assert table.shooter is not None  # a timed turn is someone's
        turn = (table.rack, table.shot_no, table.shooter)
        if turn != self._turn:
            self._turn, self._started = turn, t
            self._given = self.proposed = False
            self._paused_at = self._pause_ends = None  # a new turn: the correction that made it is done
        if limit != self._limit:  # an extension taken, or taken back: the deadline moved
            self._given = self.proposed = False
        self._limit = limit

    def seen_stored(self, item: Input, state: State) -> None:
        """A stored input folded again when the daemon resumes its match (``Match.resume``'s ``seen``): timed at
        the match time the log gave it, as it was live, so a turn timed before a restart goes on from where it
        was (docs/rules.md, "The shot clock": the time the daemon was down is not counted)."""
        if item.t is not None:
            self._last_t = item.t
        self.seen(self._last_t, state)

    @property
    def running(self) -> bool:
        """A turn is being timed and has not run out."""
        return self._started is not None and not self._given

    @property
    def paused(self) -> bool:
        """The clock stands still: a correction is being made on the screen."""
        return self._paused_at is not None

    @property
    def pause_ends(self) -> float | None:
        """The match time the pause lapses at by itself; None when the clock is not paused."""
        return self._pause_ends

    def pause(self, now: float, lapse: float = PAUSE_LAPSE_S) -> None:
        """Stand the clock still from ``now`` (a pause asked again goes on, and lapses ``lapse`` after this ask).
        Only a running clock pauses: the referee refuses the rest."""
        assert self.running, "only a running clock pauses"
        self.lapsed(now)
        if self._paused_at is None:
            self._paused_at = now
        self._pause_ends = now + lapse

    def resume(self, now: float) -> bool:
        """The clock runs again from ``now`` (or from when its pause lapsed, if earlier), its deadline moved on by
        the time it stood still; False when it was not paused."""
        if self._paused_at is None or self._pause_ends is None or self._started is None:
            return False
        self._started += min(now, self._pause_ends) - self._paused_at
        self._paused_at = self._pause_ends = None
        return True

    def lapsed(self, now: float) -> bool:
        """End a pause whose time is up by ``now``, as from when it lapsed; True when one did."""
        if self._pause_ends is None or now < self._pause_ends:
            return False
        return self.resume(self._pause_ends)

    def left(self, now: float) -> float | None:
        """Seconds left on the clock at ``now`` (standing still while paused); None when no turn is timed."""
        deadline = self.deadline
        if deadline is None:
            return None
        return deadline - (now if self._paused_at is None else self._paused_at)

    @property
    def limit(self) -> int | None:
        return self._limit

    @property
    def started(self) -> float | None:
        return self._started

    @property
    def deadline(self) -> float | None:
        """The match time the turn runs out at (its extension included); None when no turn is timed."""
        if self._started is None or self._limit is None:
            return None
        return self._started + self._limit

    @property
    def warning(self) -> float | None:
        """The match time of the warning: ``shot_clock_warning_s`` before the deadline (TR20: 10 s)."""
        deadline = self.deadline
        return None if deadline is None else deadline - self._warning

    def next_wake(self) -> float | None:
        """When the referee must look again: the deadline, until it has been acted on; a pause's lapse."""
        if self._pause_ends is not None:
            return self._pause_ends
        return None if self._given else self.deadline

    def due(self, now: float) -> ShotClock | bool:
        """At the deadline, once a turn: the ``shot_clock`` ``expired`` to apply (a strike sensor fitted), or
        True, the time foul now ``proposed`` (none fitted); False before the deadline and after."""
        deadline = self.deadline
        if deadline is None or self._given or self.paused or now < deadline:
            return False
        self._given = True
        if self._strike_sensed:
            return ShotClock(expired=True, t=now)
        self.proposed = True
        return True

    def run_out(self, now: float) -> bool:
        """The turn has run out by ``now`` on this clock: a time foul may be written (never while paused)."""
        deadline = self.deadline
        return deadline is not None and not self.paused and now >= deadline
