"""The pulse filter of one sensor line: edges with timestamps in, counted pulses and faults out.

A ball crossing a pocket beam makes a 2-8 ms active pulse. The interrupt
handler only records each edge with its ``ticks_us``; the main loop feeds
them here, in order, and calls ``poll`` now and then. A pulse:

- is counted once it has ended (inactive for ``gap_us``: shorter gaps are
  contact bounce inside one pulse) if it lasted at least ``min_pulse_us``
  (shorter ones are glitches);
- is not counted if it began less than ``lockout_us`` after the start of the
  last counted pulse (one ball rattling in the pocket);
- is a fault if it lasts ``stuck_us`` or more (a ball resting in the beam, a
  dead sensor): reported once when it is found, and as cleared when the line
  lets go; such a pulse is not counted.

Pure: time is the caller's. ``diff(a, b)`` is ``a - b`` in microseconds;
MicroPython's ``time.ticks_diff`` is passed on the Pico, where ticks wrap.
Runs on MicroPython and CPython alike.

>>> line = LineFilter()
>>> line.edge(True, 1_000) + line.edge(False, 4_000) + line.poll(5_000)
['count']
>>> line.edge(True, 10_000) + line.edge(False, 10_400) + line.poll(20_000)  # 0.4 ms: a glitch
[]
"""

COUNT = "count"
STUCK = "stuck"
CLEARED = "cleared"


def _diff(a, b):
    return a - b


class LineFilter:
    """One line's pulses: ``edge`` and ``poll`` return the events they complete (``count``, ``stuck``, ``cleared``).

    >>> line = LineFilter(stuck_us=3_000_000)
    >>> line.edge(True, 0) + line.poll(3_000_000) + line.poll(4_000_000) + line.edge(False, 5_000_000)
    ['stuck']
    >>> line.poll(5_001_000)
    ['cleared']
    """

    def __init__(self, min_pulse_us=1000, gap_us=300, lockout_us=40000, stuck_us=3000000, diff=_diff):
        self.min_pulse_us = min_pulse_us
        self.gap_us = gap_us
        self.lockout_us = lockout_us
        self.stuck_us = stuck_us
        self.diff = diff
        self.start = None  # when the pulse under way began (None: the line is idle)
        self.release = None  # when it last went inactive, if it has
        self.last_count = None  # when the last counted pulse began
        self.stuck = False
        self.counted = 0

    def edge(self, active, t):
        """The line went active (``True``) or inactive at ``t``."""
        events = []
        if active:
            if self.start is None:
                self.start = t
            elif self.release is not None:
                if self.diff(t, self.release) < self.gap_us:
                    self.release = None  # a bounce: the same pulse goes on
                else:
                    self._end(events)
                    self.start = t
        elif self.start is not None and self.release is None:
            self.release = t
        return events

    def poll(self, now):
        """Finish a pulse that has ended, and find a line stuck active."""
        events = []
        if self.start is None:
            return events
        if self.release is not None:
            if self.diff(now, self.release) >= self.gap_us:
                self._end(events)
        elif not self.stuck and self.diff(now, self.start) >= self.stuck_us:
            self.stuck = True
            events.append(STUCK)
        return events

    def _end(self, events):
        width = self.diff(self.release, self.start)
        start = self.start
        self.start = self.release = None
        if self.stuck or width >= self.stuck_us:
            if not self.stuck:
                events.append(STUCK)
            self.stuck = False
            events.append(CLEARED)
            return
        if width < self.min_pulse_us:
            return
        if self.last_count is not None and self.diff(start, self.last_count) < self.lockout_us:
            return
        self.last_count = start
        self.counted += 1
        events.append(COUNT)
