"""What the microcontroller does, without its pins: edges and host bytes in, frames out.

``main.py`` (Pico only) records edges in an interrupt and hands them here with
their ``ticks_us``, calls ``poll`` from its loop, passes what the host sent to
``receive`` and writes every frame returned to the serial line. Everything
else is here, in plain Python that CPython tests run: the pulse filter per
line, the cumulative per-pocket counters, rack mode (disarmed: a pocket pulse
is neither counted nor sent; a strike arms again), faults, the hello, the
heartbeat when the line has been quiet and the counters every second.

Line ids are the protocol's: pockets 0x00-0x05, rails 0x10-0x15, strike 0x20.

>>> board = Board(boot_id=7, lines=[0x04], now=0)
>>> [frame[2] for frame in board.boot()]  # hello, counters
[1, 7]
>>> board.edge(0x04, True, 1000) + board.edge(0x04, False, 5000)
[]
>>> [frame[2] for frame in board.poll(6000)]  # the pulse has ended: a pocket frame
[2]
"""

try:
    from . import frames
    from .counting import CLEARED, COUNT, STUCK, LineFilter
except ImportError:  # on the Pico the modules sit side by side at the top level
    import frames
    from counting import CLEARED, COUNT, STUCK, LineFilter

FIRMWARE = (1, 0, 0)
POCKET_LINES = (0x00, 0x01, 0x02, 0x03, 0x04, 0x05)
RAIL_LINES = (0x10, 0x11, 0x12, 0x13, 0x14, 0x15)
STRIKE_LINE = 0x20
FAULT_STUCK = 1
COUNTERS_EVERY_US = 1000000
GAP_US = 300

# (lowest, highest) for each setting the host may configure
LIMITS = ((100, 20000), (0, 1000), (200, 60000), (50, 500))


def _diff(a, b):
    return a - b


def clamp(settings):
    """The settings as the board takes them: each within ``LIMITS``.

    >>> clamp((50, 40, 3000, 2000))
    (100, 40, 3000, 500)
    """
    return tuple(min(max(settings[i], LIMITS[i][0]), LIMITS[i][1]) for i in range(len(LIMITS)))


class Board:
    """The firmware's state: one ``LineFilter`` per wired line, the counters, rack mode, the frame numbers.

    >>> board = Board(boot_id=7, lines=[0x20], now=0)
    >>> board.receive(frames.frame(frames.ARM, 0, b"\\x00"), 0), board.armed
    ([], False)
    >>> _ = board.edge(0x20, True, 1000) + board.edge(0x20, False, 3000)
    >>> [frame[2] for frame in board.poll(4000)], board.armed  # a strike, and armed again
    ([4], True)
    """

    def __init__(self, boot_id, lines, now=0, firmware=FIRMWARE, settings=(1000, 40, 3000, 250), diff=_diff):
        self.boot_id = boot_id
        self.firmware = firmware
        self.diff = diff
        self.out = frames.Encoder()
        self.host = frames.HostDecoder()
        self.filters = {}
        for line in lines:
            self.filters[line] = LineFilter(gap_us=GAP_US, diff=diff)
        self.counts = [0] * len(POCKET_LINES)
        self.armed = True
        self.faults = {}
        self.now = now
        self.uptime_us = 0
        self.last_sent = now
        self.last_counters = now
        self.configure(settings)

    def configure(self, settings):
        """Take new filter and heartbeat settings (clamped); they apply to pulses from now on."""
        self.settings = clamp(settings)
        min_pulse_us, lockout_ms, stuck_ms, heartbeat_ms = self.settings
        for line in self.filters.values():
            line.min_pulse_us = min_pulse_us
            line.lockout_us = lockout_ms * 1000
            line.stuck_us = stuck_ms * 1000
        self.heartbeat_us = heartbeat_ms * 1000

    def _sent(self, data):
        self.last_sent = self.now
        return data

    def boot(self):
        """The frames to send at power-up: a hello that says so, and the counters (all zero)."""
        return [self._sent(self.out.hello(self.firmware, self.boot_id, frames.HELLO_BOOT)),
                self._sent(self.out.counters(self.boot_id, self.counts))]

    def _clock(self, now):
        self.uptime_us += max(0, self.diff(now, self.now))
        self.now = now

    def edge(self, line, active, t):
        """An edge the interrupt recorded on ``line`` (active: the beam broken, the piezo or strike sensor firing)."""
        self._clock(t)
        return self._events(line, self.filters[line].edge(active, t))

    def poll(self, now):
        """End pulses that are over, find stuck lines; the heartbeat and the counters when due."""
        self._clock(now)
        out = []
        for line, filt in self.filters.items():
            out += self._events(line, filt.poll(now))
        if self.diff(now, self.last_counters) >= COUNTERS_EVERY_US:
            self.last_counters = now
            out.append(self._sent(self.out.counters(self.boot_id, self.counts)))
        if self.diff(now, self.last_sent) >= self.heartbeat_us:
            out.append(self._sent(self.out.heartbeat(self.boot_id, self.uptime_us // 1000, self.armed,
                                                     bool(self.faults))))
        return out

    def _events(self, line, events):
        out = []
        for event in events:
            if event == COUNT:
                out += self._pulse(line)
            elif event == STUCK:
                self.faults[line] = FAULT_STUCK
                out.append(self._sent(self.out.fault(line, True, FAULT_STUCK)))
            elif event == CLEARED:
                self.faults.pop(line, None)
                out.append(self._sent(self.out.fault(line, False, FAULT_STUCK)))
        return out

    def _pulse(self, line):
        if line in POCKET_LINES:
            if not self.armed:
                return []  # rack mode: a hand in the pocket
            index = line - POCKET_LINES[0]
            self.counts[index] = (self.counts[index] + 1) & 0xFFFF
            return [self._sent(self.out.pocket(self.boot_id, index, None, self.counts[index]))]
        if line in RAIL_LINES:
            return [self._sent(self.out.cushion(line - RAIL_LINES[0], None))]
        if line == STRIKE_LINE:
            self.armed = True  # a strike ends rack mode, as on the host
            return [self._sent(self.out.strike())]
        return []

    def receive(self, data, now):
        """Bytes from the host: answer a ping, take rack mode or new settings."""
        self._clock(now)
        out = []
        for kind, payload in self.host.feed(data):
            if kind == frames.PING:
                out.append(self._sent(self.out.hello(self.firmware, self.boot_id, frames.HELLO_REPLY)))
                out.append(self._sent(self.out.counters(self.boot_id, self.counts)))
                self.last_counters = now
            elif kind == frames.ARM:
                self.armed = payload[0] == 1
            elif kind == frames.CONFIGURE:
                values = [(payload[i] << 8) | payload[i + 1] for i in range(0, 8, 2)]
                self.configure(values)
                out.append(self._sent(self.out.config(*self.settings)))
        return out
