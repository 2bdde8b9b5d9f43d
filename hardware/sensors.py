"""The table's sensors on the Pi's GPIO header, through gpiozero: pockets, cue return, cushions, strike.

``SensorLine`` is one gpiozero input device that reports each edge with the
time it happened. ``GpioSource`` is every line of ``[sensors.gpio]`` behind the
``Source`` shape of ``scoreboard.sensing.interface``: each line's edges go through its own
``GlitchFilter`` (``hardware.filters``), counted pulses become match-log inputs
(``src`` ``"gpio"``), stuck lines become ``Health`` reports, and rack mode drops
pocket inputs until the next strike.

Pins come from an injected pin factory (``MockFactory`` in tests, ``LGPIOFactory``
on a Pi): nothing here touches hardware by itself.

Times. Every ``t`` is on one monotonic clock (``time.monotonic`` unless
another is injected), the clock the daemon and the serial bridge use too. An
edge's time is the pin's own timestamp, moved onto that clock by its age:
``t = clock() - ticks_diff(factory.ticks(), ticks)``. On a Pi, lgpio stamps each
edge in the kernel and hands it over from its own thread, sometimes
milliseconds later; stamping at delivery would stretch or shrink 2-8 ms pulses
by that delay, the age does not. gpiozero's ticks are opaque (compared only
with ``ticks_diff``) and wrap on some factories; an edge's age is small, so
neither matters. An age over ``MAX_EDGE_AGE`` (a driver stamping edges on
another clock than its factory's ticks) falls back to the delivery time.

>>> from gpiozero.pins.mock import MockFactory
>>> from scoreboard.sensing.wiring import GpioConfig
>>> factory, seen, now = MockFactory(), [], [100.0]
>>> source = GpioSource(GpioConfig(pockets={"foot_left": 24}), pin_factory=factory,
...                    clock=lambda: now[0], poll_every=None)
>>> source.start(seen.append)
>>> beam = factory.pin(24)                  # an IR receiver: low while the beam is broken
>>> beam.drive_low(); now[0] += 0.004; beam.drive_high()
>>> source.poll(102.0)                      # after the cue-return sensor's window
>>> [(item.ball, item.pocket, round(item.t, 3), item.src) for item in seen]
[(None, 'foot_left', 100.0, 'gpio')]
>>> source.close()
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from gpiozero import InputDevice

from hardware.filters import Clear, Count, Event, GlitchFilter, Stuck
from scoreboard.core.inputs import CUE_BALL, Cushion, Input, Pocket, Strike
from scoreboard.sensing.interface import Emit, Health, Heard, RackGate
from scoreboard.sensing.wiring import FilterConfig, GpioConfig, Line, SensorsConfig

SOURCE = "gpio"

#: An edge older than this when it arrives cannot be real: its stamp and the factory's
#: ticks are on different clocks, and the edge is taken at its delivery instead.
MAX_EDGE_AGE = 2.0
#: The longest the poll timer sleeps with nothing to look at (no line active, no input held, no fence asked).
IDLE_POLL_S = 1.0

log = logging.getLogger(__name__)


class SensorLine(InputDevice):
    """One sensor line: calls ``when_edge(active, t)`` at each edge, ``t`` on ``clock``'s time.

    ``active_high`` says which level means a ball (or a hit) is there, whatever
    the pull: gpiozero ties polarity to the pull, sensor modules do not.
    gpiozero's ``bounce_time`` is never set: it would drop the short pulses the
    glitch filter must see.

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory, edges = MockFactory(), []
    >>> beam = SensorLine(24, active_high=False, pin_factory=factory, clock=lambda: 7.5)
    >>> beam.when_edge = lambda active, t: edges.append((active, round(t, 3)))
    >>> factory.pin(24).drive_low()
    >>> beam.is_active, edges
    (True, [(True, 7.5)])
    >>> beam.close()
    """

    def __init__(self, pin: int | str, *, active_high: bool = True, pull_up: bool = True,
                 clock: Callable[[], float] = time.monotonic, pin_factory=None) -> None:
        super().__init__(pin, pull_up=pull_up, pin_factory=pin_factory)
        self.active_high = active_high
        self.clock = clock
        self.when_edge: Callable[[bool, float], None] | None = None
        try:
            self.pin.bounce = None
            self.pin.edges = "both"
            self.pin.when_changed = self._changed
        except BaseException:
            self.close()
            raise

    @property
    def value(self) -> int:
        """1 while a ball (or a hit) is there, by ``active_high``; else 0."""
        return int(bool(self.pin.state) == self.active_high)

    def _changed(self, ticks, state) -> None:
        if state not in (0, 1):         # lgpio's level 2 is a watchdog timeout, not an edge
            return
        factory = self.pin_factory
        age = factory.ticks_diff(factory.ticks(), ticks)
        if not 0.0 <= age <= MAX_EDGE_AGE:
            age = 0.0       # stamped on another clock than the factory's ticks: take the delivery time
        t = self.clock() - age
        handler = self.when_edge
        if handler is not None:
            handler(bool(state) == self.active_high, t)


@dataclass
class _Wire:
    """A configured line, its device and (once started) its filter."""

    line: Line
    device: SensorLine
    filter: GlitchFilter | None = None


@dataclass
class _Waiting:
    """An input not yet emitted; a pocket is ``held`` until a cue return could no longer join it."""

    t: float
    item: Input
    held_until: float | None = None


class GpioSource:
    """The GPIO sensors of ``[sensors.gpio]`` as a ``Source``: edges in, filtered inputs and health out.

    A pocket beam's input waits ``cue_merge_ms`` for the cue-return sensor: if it
    fires, the two are one ``pocket`` with ball 0 (in that pocket); a cue return
    with no pocket beam before it is ``pocket`` ball 0 with no pocket. Inputs
    leave in the order of their ``t``, so a held pocket holds back what came
    after it; a strike ends every wait (the cue ball is back on the table).

    ``poll`` runs every ``poll_every`` seconds on a timer thread once started (none
    with ``None``: then the caller polls, as tests do) while there is something to
    look at: a line active, an input held, a fence asked. Otherwise the timer sleeps
    until an edge or a fence wakes it (or ``IDLE_POLL_S``): an idle table costs the Pi
    one wake-up a second, not twenty. A poll looks at the lines as
    they were ``poll_lag`` seconds ago, so an edge still on its way from the
    kernel is never overtaken. ``emit`` is called under a lock, from gpiozero's
    or the timer's thread: it should hand over and return.

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory, seen, now = MockFactory(), [], [3.0]
    >>> source = GpioSource(GpioConfig(strike=20), pin_factory=factory, clock=lambda: now[0], poll_every=None)
    >>> strike = factory.pin(20)
    >>> strike.drive_low()                # the sensor at rest drives the line low
    >>> source.start(seen.append)
    >>> strike.drive_high(); now[0] += 0.005; strike.drive_low()
    >>> [type(item).__name__ for item in seen]
    ['Strike']
    >>> source.close()
    """

    def __init__(self, gpio: GpioConfig, filter: FilterConfig | None = None, *, pin_factory,
                 clock: Callable[[], float] = time.monotonic, poll_every: float | None = 0.05,
                 poll_lag: float = 0.1) -> None:
        self.gpio = gpio
        self.filter = filter or FilterConfig()
        self.clock = clock
        self.poll_every = poll_every
        self.poll_lag = poll_lag
        self._lock = threading.RLock()
        self._gate = RackGate()
        self._emit: Emit | None = None
        self._waiting: list[_Waiting] = []
        self._stop = threading.Event()
        self._poke = threading.Event()  # something to look at (an edge, a fence, the stop): the timer wakes
        self._timer: threading.Thread | None = None
        self._closed = False
        self._fence_wanted = False
        self.name = SOURCE
        self._wires: list[_Wire] = []
        try:
            for line in gpio.lines():
                device = SensorLine(line.pin, active_high=getattr(gpio.active_high, line.kind),
                                    pull_up=gpio.pull_up, clock=clock, pin_factory=pin_factory)
                wire = _Wire(line, device)
                device.when_edge = self._edge_handler(wire)
                self._wires.append(wire)
        except BaseException:
            for wire in self._wires:
                wire.device.close()
            raise

    @classmethod
    def from_config(cls, sensors: SensorsConfig, *, pin_factory, **options) -> GpioSource:
        """The source for a table's sensor wiring (its ``[sensors.gpio]`` and ``[sensors.filter]``).

        Whether to use it at all (``enabled``) is the caller's choice.

        >>> from gpiozero.pins.mock import MockFactory
        >>> from scoreboard.sensing.wiring import SensorsConfig
        >>> sensors = SensorsConfig(gpio=GpioConfig(cue_return=5))
        >>> source = GpioSource.from_config(sensors, pin_factory=MockFactory(), poll_every=None)
        >>> list(source.devices)
        ['cue_return']
        >>> source.close()
        """
        return cls(sensors.gpio, sensors.filter, pin_factory=pin_factory, **options)

    @property
    def devices(self) -> Mapping[str, SensorLine]:
        """Each line's device by its subject (``pocket:foot_left``, ``cushion``, ``strike``)."""
        return MappingProxyType({wire.line.subject: wire.device for wire in self._wires})

    @property
    def rack_mode(self) -> bool:
        """True while pocket inputs are dropped (players racking); a strike ends it."""
        return self._gate.rack_mode

    # The Source shape.

    def start(self, emit: Emit) -> None:
        """Start reporting to ``emit``; each line's filter starts from the line's level now."""
        with self._lock:
            if self._closed or self._emit is not None:
                raise RuntimeError("a GpioSource starts once, before it is closed")
            now = self.clock()
            for wire in self._wires:
                wire.filter = self._filter_for(wire.line, wire.device.is_active, now)
            self._emit = emit
        if self.poll_every is not None:
            self._timer = threading.Thread(target=self._run, name="devetka-gpio-poll", daemon=True)
            self._timer.start()

    def set_rack_mode(self, on: bool) -> None:
        with self._lock:
            self._gate.rack_mode = on

    def close(self) -> None:
        """Stop: inputs still waiting are emitted first, then every pin is released."""
        self._stop.set()
        self._poke.set()
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.join()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._emit is not None:
                self._release(float("inf"))
            self._emit = None
        # Outside the lock: closing a pin waits for lgpio's callback thread, which may be
        # waiting for the lock in an edge handler.
        for wire in self._wires:
            wire.device.close()

    def poll(self, now: float | None = None) -> None:
        """Tell every line the time (default: ``clock() - poll_lag``): stuck lines, waits that end."""
        with self._lock:
            if self._emit is None:
                return
            if now is None:
                now = self.clock() - self.poll_lag
            for wire in self._wires:
                self._report(wire, wire.filter.poll(now))
            self._release(now)
            if self._fence_wanted:
                self._fence_wanted = False
                self._emit(Heard(SOURCE, now))

    def fence(self) -> None:
        """Say, after the reports of the next poll, how far this source has been heard (``Heard``: the poll's
        time): the daemon's settle timer asks before it ends a shot, since a starved poll may not have run yet."""
        self._fence_wanted = True
        self._poke.set()

    # Inside.

    def _filter_for(self, line: Line, active: bool, now: float) -> GlitchFilter:
        times = self.filter
        lockout = times.strike_lockout_ms if line.kind == "strike" else times.lockout_ms
        return GlitchFilter(times.min_pulse_ms / 1000, lockout / 1000, times.stuck_after_s,
                            active=active, now=now)

    def _edge_handler(self, wire: _Wire) -> Callable[[bool, float], None]:
        def edge(active: bool, t: float) -> None:
            with self._lock:
                if self._emit is None:
                    return
                self._report(wire, wire.filter.edge(active, t))
                self._release(t)
            self._poke.set()

        return edge

    def _run(self) -> None:
        """Poll every ``poll_every`` while there is something to look at; else sleep until poked."""
        while True:
            pause = self.poll_every  # at most one poll a poll_every, however often poked
            if not self._busy():
                if not self._poke.wait(IDLE_POLL_S):
                    pause = 0.0  # slept a whole IDLE_POLL_S: poll now
                self._poke.clear()  # a poke after this finds the state it told of, which _busy reads next time
            if self._stop.wait(pause):
                return
            try:
                self.poll()
            except Exception:
                log.exception("polling the GPIO sensor lines failed; polling goes on")

    def _busy(self) -> bool:
        """Whether a poll may have something to do: a line active (a pulse to count, a line to call stuck), an
        input held (its wait to end), a fence asked."""
        with self._lock:
            return self._fence_wanted or bool(self._waiting) or any(
                wire.filter is not None and wire.filter.active for wire in self._wires)

    def _report(self, wire: _Wire, events: list[Event]) -> None:
        for event in events:
            if type(event) is Count:
                self._counted(wire.line, event.t)
            elif type(event) is Stuck:
                held = event.t - event.since
                self._emit(Health(SOURCE, wire.line.subject, "fault",
                                  f"line active for {held:.1f} s: a ball resting in the beam, or a dead "
                                  f"or unplugged sensor; ignored until it clears", t=event.t))
            elif type(event) is Clear:
                self._emit(Health(SOURCE, wire.line.subject, "ok",
                                  f"line clear again after {event.t - event.since:.1f} s", t=event.t))

    def _counted(self, line: Line, t: float) -> None:
        if line.kind == "pocket":
            item = Pocket(None, line.name, t, SOURCE)
            if self._gate.admit(item):
                merge = self.filter.cue_merge_ms / 1000
                self._wait(_Waiting(t, item, t + merge if merge > 0 else None))
        elif line.kind == "cue_return":
            item = Pocket(CUE_BALL, None, t, SOURCE)
            if self._gate.admit(item) and not self._merge_cue_ball(t):
                self._wait(_Waiting(t, item))
        elif line.kind == "cushion":
            self._wait(_Waiting(t, Cushion(None, line.name, t, SOURCE)))
        else:
            item = Strike(t, SOURCE)
            self._gate.admit(item)          # ends rack mode
            for waiting in self._waiting:
                waiting.held_until = None
            self._wait(_Waiting(t, item))

    def _merge_cue_ball(self, t: float) -> bool:
        """Turn the earliest pocket still held with ``t`` in its window into the cue ball's."""
        for waiting in self._waiting:
            if waiting.held_until is not None and waiting.t <= t <= waiting.held_until:
                waiting.item = replace(waiting.item, ball=CUE_BALL)
                waiting.held_until = None
                return True
        return False

    def _wait(self, waiting: _Waiting) -> None:
        self._waiting.insert(bisect.bisect_right(self._waiting, waiting.t, key=lambda w: w.t), waiting)

    def _release(self, now: float) -> None:
        """Emit, in order, every input from the front that is not held past ``now``."""
        while self._waiting and (self._waiting[0].held_until is None or self._waiting[0].held_until < now):
            self._emit(self._waiting.pop(0).item)
