"""The settle timer: turns a quiet table into a ``settle`` input, so the turn passes untouched.

Pure logic with explicit times, no clock and no asyncio inside: the daemon calls
``seen`` with each input it applied (its ``t``) and the state after it, sleeps
until ``deadline``, and applies what ``due(now)`` returns. Keeping the clock out
lets tests walk through any timeline in microseconds and lets ``devetka demo
--speed`` compress time by handing in scaled times.

What counts (docs/match-log.md, "A shot begins ... ends"):

- The timer is armed while the state has a shot in progress, and only then:
  ``settle``, ``miss`` and every input that ends the shot disarm it, since the
  state says so; a slow ball with ``strike_sensed`` amends the last shot and
  begins none, so it arms nothing.
- Only sensor inputs (``strike``, ``first_contact``, ``cushion``, ``pocket``)
  mean the balls are still moving; taps (``foul``, ``identify``, ``off_table``
  ...) come from players standing at a still table and do not restart the quiet
  period.
- A shot beginning (including a ``strike`` that ends one shot and begins the
  next) arms it afresh.
- An undo (``undo``, ``undo_shot``) never arms it. Players undo because a
  ruling was wrong: a shot an undo brings back stays open while they put it
  right, and the next input arms the timer, whatever it is (a late foul, an
  identify, a pocket the sensor missed), its quiet period running from then.
  A player may also end the shot with a tap (``settle``: "Shot over").
  ``reopened`` says a shot is waiting so.
- Sensor inputs can arrive late, with an earlier ``t``: the GPIO source holds a
  pocket beam's input up to ``cue_merge_ms`` waiting for the cue-return sensor,
  and sends inputs in order of ``t``, so everything behind a held pocket waits
  too (hardware/sensors.py). The quiet period runs from the latest sensor ``t``
  seen, and ``hold_back`` (that window, in seconds) is added to the deadline:
  at ``now`` only inputs up to ``now - hold_back`` are surely in, so the timer
  fires once ``settle_after`` of *known* quiet has passed. Without it, a settle
  could end the shot while the ball that dropped in it is still held; the
  pocket would then count for the next shot, or for nobody.
- A way in can say how far it has been heard (``heard``): "every input of mine
  up to ``t`` has been handed in, and none earlier will come". Then quiet counts
  only up to there: a daemon starved of the CPU for seconds wakes past its
  deadline, but a way in that has not yet been heard up to it may still hold an
  input from inside the quiet period (``devetka demo``'s simulated table says
  so while it is starved itself). The settle waits until every way in that
  speaks so has been heard up to the deadline (``next_look`` is None meanwhile).

>>> from scoreboard.core.inputs import Cushion, MatchStart, Strike
>>> from scoreboard.core.match import Match
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> timer = SettleTimer(settle_after=4.0)
>>> for item in (Strike(t=10.0), Cushion(t=11.5)):
...     timer.seen(item, match.apply(item).state)
>>> timer.deadline
15.5
>>> timer.due(15.4) is None, timer.due(15.5), timer.due(16.0)
(True, Settle(t=15.5, src=None), None)
"""

from __future__ import annotations

from scoreboard.core.inputs import Cushion, FirstContact, Input, MatchStart, Pocket, Settle, Strike, Undo, UndoShot
from scoreboard.core.rules import State

#: Inputs from the table's sensors: the balls are still moving.
SENSOR_INPUTS = (Strike, FirstContact, Cushion, Pocket)
#: Inputs that take back: they never arm the timer.
UNDOS = (Undo, UndoShot)

DEFAULT_SETTLE_AFTER = 4.0


class SettleTimer:
    """When is the table quiet? ``seen`` each applied input, sleep until ``deadline``, apply ``due(now)``.

    ``settle_after``: seconds with no sensor input after which a shot is over.
    ``hold_back``: the longest a sensor input can reach the daemon after its
    ``t`` (the GPIO source's ``cue_merge_ms`` plus its poll lag), added to the
    deadline so the timer never fires while such an input may still be on its way.

    >>> from scoreboard.core.inputs import MatchStart, Strike
    >>> from scoreboard.core.match import Match
    >>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    >>> timer = SettleTimer(4.0, hold_back=1.0)
    >>> timer.seen(Strike(t=0.0), match.apply(Strike(t=0.0)).state)
    >>> timer.deadline
    5.0
    """

    def __init__(self, settle_after: float = DEFAULT_SETTLE_AFTER, hold_back: float = 0.0) -> None:
        if not settle_after > 0:
            raise ValueError(f"settle_after must be > 0 seconds, not {settle_after!r}")
        if not hold_back >= 0:
            raise ValueError(f"hold_back must be >= 0 seconds, not {hold_back!r}")
        self.settle_after = float(settle_after)
        self.hold_back = float(hold_back)
        self._latest_sensor: float | None = None   # the latest sensor t seen in this match
        self._in_shot = False                       # the last state seen had a shot in progress
        self._quiet_from: float | None = None      # None: not armed (no shot, its settle given, or reopened)
        self._reopened = False                      # a shot brought back by undo: armed by the next input
        self._heard: dict[str, float] = {}          # each way in that says so: heard up to this t

    def seen(self, item: Input, state_after: State) -> None:
        """Record an input the daemon applied (with its ``t``) and the match state after it.

        Give it only applied inputs: a rejected one changed nothing on the table's
        record, so it moves nothing here either.
        """
        t = item.t
        if t is None:
            raise ValueError(f"{item.TYPE} has no t: the settle timer needs the time of every input")
        if isinstance(item, MatchStart):
            self._latest_sensor = None       # a new match: its times start afresh
        sensor = isinstance(item, SENSOR_INPUTS)
        if sensor:
            self._latest_sensor = t if self._latest_sensor is None else max(self._latest_sensor, t)
        if state_after.shot is None:
            self._in_shot = self._reopened = False
            self._quiet_from = None
            return
        if isinstance(item, UNDOS):
            self._in_shot = self._reopened = True
            self._quiet_from = None
        elif not self._in_shot or self._reopened or isinstance(item, Strike):   # a shot begins, or is put right
            self._in_shot, self._reopened = True, False
            self._quiet_from = t if self._latest_sensor is None else max(self._latest_sensor, t)
        elif sensor and self._quiet_from is not None:
            self._quiet_from = max(self._quiet_from, t)

    def resumed(self, t: float, state: State, last: Input) -> None:
        """The daemon started on a stored match (``last`` its last input): a shot in progress is quiet from ``t``,
        unless an undo brought it back, when it waits for the next input as it did before."""
        self._in_shot = state.shot is not None
        self._reopened = self._in_shot and isinstance(last, UNDOS)
        self._quiet_from = t if self._in_shot and not self._reopened else None

    def heard(self, way_in: str, t: float) -> None:
        """``way_in`` has handed in every input up to ``t``, and will hand in none earlier (its latest word counts).

        >>> timer = SettleTimer(4.0)
        >>> timer.heard("table", 3.0); timer.known(10.0)
        3.0
        """
        self._heard[way_in] = float(t)

    def known(self, now: float) -> float:
        """Up to when every input is surely in: ``now``, or earlier where a way in has not been heard up to it."""
        return min(now, *self._heard.values()) if self._heard else now

    def next_look(self) -> float | None:
        """When the settle loop should look again: the deadline, or None while a way in is not yet heard up to it
        (its next ``heard`` is the time to look) or no settle is due."""
        deadline = self.deadline
        if deadline is None or self.known(deadline) < deadline:
            return None
        return deadline

    @property
    def reopened(self) -> bool:
        """A shot an undo brought back is open, and no settle comes until the next input (or a player's tap)."""
        return self._reopened

    @property
    def deadline(self) -> float | None:
        """When the next settle is due, if nothing else comes; None when none is (no shot, or given)."""
        if self._quiet_from is None:
            return None
        return self._quiet_from + self.settle_after + self.hold_back

    def due(self, now: float) -> Settle | None:
        """The ``settle`` to apply at ``now``, once per shot; None before the deadline (of known quiet) and after."""
        deadline = self.deadline
        if deadline is None or self.known(now) < deadline:
            return None
        self._quiet_from = None              # given: nothing more until a new shot
        return Settle(t=now, src=None)
