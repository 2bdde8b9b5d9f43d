"""The glitch filter of one sensor line, and stuck-line detection: pure code, explicit times.

A ball crossing a pocket beam gives a 2-8 ms pulse; contacts bounce, cables pick
up sub-millisecond spikes, a ball can come to rest in a beam. gpiozero's
``bounce_time`` would drop the short pulses, so the filter is ours. It is fed
edges (the line went active or inactive, at a time in seconds) and told the
time when nothing happens (``poll``), and answers with what it saw:

- ``Count``: a pulse that lasted ``min_pulse`` seconds; its ``t`` is when it
  began. After a counted pulse ends the line is ignored for ``lockout``
  seconds (release bounce, a ball rattling in the pocket); a pulse that begins
  in the lockout is never counted.
- ``Stuck``: the line has been active for ``stuck_after`` seconds; said once.
- ``Clear``: a stuck line went inactive again; the line works as before.

A pulse is counted as soon as it is known to be long enough, at an edge or at
a poll, so a ball that stops in the beam still counts. What the filter reports
does not depend on how often it is polled, only when: every edge first
catches up to its own time. Time never runs backwards: an edge stamped before
the last time the filter was told is taken at that time.

>>> line = GlitchFilter(min_pulse=0.001, lockout=0.030, stuck_after=5.0)
>>> line.edge(True, 10.000), line.edge(False, 10.004)
([], [Count(t=10.0)])
>>> line.edge(True, 10.010), line.edge(False, 10.015)
([], [])
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Count:
    """A pulse that counts: one ball, one hit; ``t`` is when the line went active.

    >>> Count(t=1.5).t
    1.5
    """

    t: float


@dataclass(frozen=True, slots=True)
class Stuck:
    """The line has been active since ``since`` and is stuck as of ``t``: a fault, reported once.

    >>> Stuck(t=6.0, since=1.0).t - Stuck(t=6.0, since=1.0).since
    5.0
    """

    t: float
    since: float


@dataclass(frozen=True, slots=True)
class Clear:
    """A stuck line went inactive at ``t`` after being active since ``since``: it recovered.

    >>> Clear(t=8.0, since=1.0).since
    1.0
    """

    t: float
    since: float


Event = Count | Stuck | Clear


class GlitchFilter:
    """One line's filter: a minimum pulse width, a lockout after a counted pulse, stuck detection.

    Times are seconds on any clock that does not jump (``time.monotonic``). The
    line starts in the state ``active`` at time ``now``; a line that starts
    active is not counted (its pulse began unseen) but may become stuck.

    >>> line = GlitchFilter(min_pulse=0.001, lockout=0.030, stuck_after=5.0)
    >>> line.edge(True, 1.0), line.poll(1.002), line.poll(6.5), line.edge(False, 7.0)
    ([], [Count(t=1.0)], [Stuck(t=6.0, since=1.0)], [Clear(t=7.0, since=1.0)])
    """

    def __init__(self, min_pulse: float = 0.001, lockout: float = 0.030, stuck_after: float = 5.0, *,
                 active: bool = False, now: float = 0.0) -> None:
        if min_pulse < 0 or lockout < 0 or stuck_after <= 0:
            raise ValueError("min_pulse and lockout must be >= 0 and stuck_after > 0")
        self.min_pulse = min_pulse
        self.lockout = lockout
        self.stuck_after = stuck_after
        self._now = now
        self._active = active
        self._began = now              # when the current (or last) pulse began
        self._spent = active           # the current pulse was counted or can no longer count
        self._counted = False          # the current pulse was counted
        self._stuck = False
        self._quiet_until = float("-inf")   # the lockout's end

    @property
    def active(self) -> bool:
        """The line's level as the filter last saw it."""
        return self._active

    @property
    def stuck(self) -> bool:
        """True from a ``Stuck`` report until the line clears."""
        return self._stuck

    def poll(self, now: float) -> list[Event]:
        """What the line has done by ``now`` with no new edge: a pulse long enough, a line stuck."""
        now = max(now, self._now)
        self._now = now
        out: list[Event] = []
        if self._active:
            held = now - self._began
            if not self._spent and held >= self.min_pulse:
                self._spent = self._counted = True
                out.append(Count(self._began))
            if not self._stuck and held >= self.stuck_after:
                self._stuck = True
                out.append(Stuck(self._began + self.stuck_after, self._began))
        return out

    def edge(self, active: bool, t: float) -> list[Event]:
        """The line went ``active`` (or inactive) at ``t``; a repeated level is no edge."""
        out = self.poll(t)
        t = self._now
        if active == self._active:
            return out
        self._active = active
        if active:
            self._began = t
            self._counted = False
            self._spent = t < self._quiet_until
            return out
        if self._counted:
            self._quiet_until = t + self.lockout
        if self._stuck:
            self._stuck = False
            out.append(Clear(t, self._began))
        return out
