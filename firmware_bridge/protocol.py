"""The frames between the pocket-sensor microcontroller and the Pi (PROTOCOL.md), and what they mean.

Pure: no I/O and no clock. Three layers, each usable alone:

- the messages (``Hello``, ``PocketDrop``, ... ``Arm``, ``Ping``) and ``encode``;
- ``Decoder``: a byte stream in, whole frames out; garbage and corrupt frames
  are skipped and counted, and decoding starts again at the next frame;
- ``Receiver``: the host's view of the stream. It turns frames into
  match-log inputs (``src="serial"``, ``t`` given by the caller) and
  ``Health`` reports: lost frames (a gap in sequence numbers), a restarted
  microcontroller (a new boot id), pockets it missed (the cumulative counters
  went further than the pocket frames it saw), decoding errors.

>>> frame = encode(PocketDrop(boot_id=7, pocket="foot_left", ball=3, count=1), seq=0)
>>> frame.hex(" ")
'7e 08 02 00 00 00 00 07 04 03 00 01 4c 5f'
>>> Decoder().feed(b"junk" + frame)
[Frame(seq=0, message=PocketDrop(boot_id=7, pocket='foot_left', ball=3, count=1))]
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from typing import NamedTuple

from scoreboard.core.inputs import POCKETS, RAILS, Cushion, Pocket, Strike
from scoreboard.sensing.interface import Health, Report

PROTOCOL_VERSION = 1
SYNC = 0x7E
OVERHEAD = 6  # sync, length, type, seq ... crc (2 bytes)
UNKNOWN = 0xFF  # a ball, pocket or rail the hardware cannot tell
COUNTER_MODULO = 1 << 16
HELLO_BOOT, HELLO_REPLY = 0, 1  # why a hello was sent: the microcontroller started, or it answers a ping

# Fault lines: the high nibble says what kind of line, the low nibble which one.
LINE_POCKET, LINE_RAIL, LINE_STRIKE = 0x00, 0x10, 0x20
FAULT_STUCK = 1
FAULT_CODES = {FAULT_STUCK: "stuck active"}


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), in C through ``binascii``.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return crc_hqx(data, 0xFFFF)


class ProtocolError(ValueError):
    """A frame whose checksum is right but whose content is not (an unknown pocket id, a ball 12)."""


def _ball_id(ball: int | None) -> int:
    return UNKNOWN if ball is None else ball


def _ball(byte: int) -> int | None:
    if byte <= 9:
        return byte
    if byte == UNKNOWN:
        return None
    raise ProtocolError(f"ball id {byte} (0-9, or 255 for unknown)")


def _name_id(name: str | None, names: tuple[str, ...]) -> int:
    return UNKNOWN if name is None else names.index(name)


def _name(byte: int, names: tuple[str, ...], what: str) -> str | None:
    if byte < len(names):
        return names[byte]
    if byte == UNKNOWN:
        return None
    raise ProtocolError(f"{what} id {byte} (0-{len(names) - 1}, or 255 for unknown)")


def line_subject(line: int) -> str:
    """The ``Health`` subject of a fault line id: ``pocket:foot_left``, ``rail:head``, ``strike``.

    >>> line_subject(0x04), line_subject(0x10), line_subject(0x20)
    ('pocket:foot_left', 'rail:head', 'strike')
    """
    kind, index = line & 0xF0, line & 0x0F
    if kind == LINE_POCKET and index < len(POCKETS):
        return f"pocket:{POCKETS[index]}"
    if kind == LINE_RAIL and index < len(RAILS):
        return f"rail:{RAILS[index]}"
    if line == LINE_STRIKE:
        return "strike"
    raise ProtocolError(f"line id 0x{line:02x}")


# --- messages: microcontroller to host ------------------------------------------------------------


class Hello(NamedTuple):
    """Who the microcontroller is: sent at boot (``reason`` 0) and as the answer to every ``Ping`` (1).

    >>> Hello.unpack(Hello(1, (1, 2, 3), 0xDEADBEEF, HELLO_BOOT).pack()).firmware
    (1, 2, 3)
    """

    protocol: int
    firmware: tuple[int, int, int]
    boot_id: int
    reason: int = HELLO_REPLY

    TYPE = 0x01
    SIZE = 9
    NAME = "hello"

    def pack(self) -> bytes:
        return struct.pack(">BBBBIB", self.protocol, *self.firmware, self.boot_id, self.reason)

    @classmethod
    def unpack(cls, payload: bytes) -> Hello:
        protocol, major, minor, patch, boot_id, reason = struct.unpack(">BBBBIB", payload)
        if reason not in (HELLO_BOOT, HELLO_REPLY):
            raise ProtocolError(f"hello reason {reason}")
        return cls(protocol, (major, minor, patch), boot_id, reason)


class PocketDrop(NamedTuple):
    """A ball dropped; ``count`` is that pocket's drops since boot (this one included), so none is lost unseen.

    >>> PocketDrop.unpack(PocketDrop(7, "side_left", None, 12).pack())
    PocketDrop(boot_id=7, pocket='side_left', ball=None, count=12)
    """

    boot_id: int
    pocket: str | None
    ball: int | None
    count: int

    TYPE = 0x02
    SIZE = 8
    NAME = "pocket"

    def pack(self) -> bytes:
        return struct.pack(">IBBH", self.boot_id, _name_id(self.pocket, POCKETS), _ball_id(self.ball), self.count)

    @classmethod
    def unpack(cls, payload: bytes) -> PocketDrop:
        boot_id, pocket, ball, count = struct.unpack(">IBBH", payload)
        return cls(boot_id, _name(pocket, POCKETS, "pocket"), _ball(ball), count)


class CushionHit(NamedTuple):
    """A ball hit a cushion: the rail and the ball where the hardware knows them.

    >>> CushionHit.unpack(CushionHit("left_foot", None).pack())
    CushionHit(rail='left_foot', ball=None)
    """

    rail: str | None
    ball: int | None

    TYPE = 0x03
    SIZE = 2
    NAME = "cushion"

    def pack(self) -> bytes:
        return bytes((_name_id(self.rail, RAILS), _ball_id(self.ball)))

    @classmethod
    def unpack(cls, payload: bytes) -> CushionHit:
        return cls(_name(payload[0], RAILS, "rail"), _ball(payload[1]))


class CueStrike(NamedTuple):
    """The strike sensor fired: the cue struck the cue ball.

    >>> CueStrike.unpack(CueStrike().pack())
    CueStrike()
    """

    TYPE = 0x04
    SIZE = 0
    NAME = "strike"

    def pack(self) -> bytes:
        return b""

    @classmethod
    def unpack(cls, payload: bytes) -> CueStrike:
        return cls()


class LineFault(NamedTuple):
    """A sensor line went bad (``active``) or recovered; ``line`` as in ``line_subject``.

    >>> LineFault.unpack(LineFault(0x04, True, FAULT_STUCK).pack()).active
    True
    """

    line: int
    active: bool
    code: int

    TYPE = 0x05
    SIZE = 3
    NAME = "fault"

    def pack(self) -> bytes:
        return bytes((self.line, 1 if self.active else 0, self.code))

    @classmethod
    def unpack(cls, payload: bytes) -> LineFault:
        line, active, code = payload
        line_subject(line)
        if active > 1:
            raise ProtocolError(f"fault active flag {active}")
        return cls(line, active == 1, code)


class Heartbeat(NamedTuple):
    """Sent when the line has been quiet for a while: the microcontroller is alive, and which boot it is.

    >>> Heartbeat.unpack(Heartbeat(7, 1500, armed=True).pack())
    Heartbeat(boot_id=7, uptime_ms=1500, armed=True, faulty=False)
    """

    boot_id: int
    uptime_ms: int
    armed: bool = True
    faulty: bool = False

    TYPE = 0x06
    SIZE = 9
    NAME = "heartbeat"

    def pack(self) -> bytes:
        return struct.pack(">IIB", self.boot_id, self.uptime_ms & 0xFFFFFFFF, self.armed | self.faulty << 1)

    @classmethod
    def unpack(cls, payload: bytes) -> Heartbeat:
        boot_id, uptime, flags = struct.unpack(">IIB", payload)
        return cls(boot_id, uptime, bool(flags & 1), bool(flags & 2))


class Counters(NamedTuple):
    """Each pocket's drops since boot, in the order of ``POCKETS``: sent after a hello and every second.

    >>> Counters.unpack(Counters(7, (0, 1, 0, 0, 2, 0)).pack()).counts
    (0, 1, 0, 0, 2, 0)
    """

    boot_id: int
    counts: tuple[int, ...]

    TYPE = 0x07
    SIZE = 4 + 2 * len(POCKETS)
    NAME = "counters"

    def pack(self) -> bytes:
        return struct.pack(">I6H", self.boot_id, *self.counts)

    @classmethod
    def unpack(cls, payload: bytes) -> Counters:
        boot_id, *counts = struct.unpack(">I6H", payload)
        return cls(boot_id, tuple(counts))


class Settings(NamedTuple):
    """The pulse filter and heartbeat settings: what ``Configure`` asks for and ``ConfigState`` reports.

    >>> Settings().min_pulse_us, Settings().lockout_ms
    (1000, 40)
    """

    min_pulse_us: int = 1000
    lockout_ms: int = 40
    stuck_ms: int = 3000
    heartbeat_ms: int = 250

    def pack(self) -> bytes:
        return struct.pack(">4H", *self)


class ConfigState(NamedTuple):
    """The settings in force on the microcontroller, sent in answer to ``Configure``.

    >>> ConfigState.unpack(ConfigState(Settings(lockout_ms=60)).pack()).settings.lockout_ms
    60
    """

    settings: Settings

    TYPE = 0x08
    SIZE = 8
    NAME = "config"

    def pack(self) -> bytes:
        return self.settings.pack()

    @classmethod
    def unpack(cls, payload: bytes) -> ConfigState:
        return cls(Settings(*struct.unpack(">4H", payload)))


# --- messages: host to microcontroller ---------------------------------------------------------------


class Arm(NamedTuple):
    """Arm the pocket sensors (``armed``), or disarm them for rack mode: hands in the pockets are not balls.

    >>> Arm.unpack(Arm(False).pack())
    Arm(armed=False)
    """

    armed: bool

    TYPE = 0x81
    SIZE = 1
    NAME = "arm"

    def pack(self) -> bytes:
        return b"\x01" if self.armed else b"\x00"

    @classmethod
    def unpack(cls, payload: bytes) -> Arm:
        if payload[0] > 1:
            raise ProtocolError(f"arm flag {payload[0]}")
        return cls(payload[0] == 1)


class Ping(NamedTuple):
    """Who are you? The microcontroller answers with ``Hello`` and ``Counters``.

    >>> Ping.unpack(Ping().pack())
    Ping()
    """

    TYPE = 0x82
    SIZE = 0
    NAME = "ping"

    def pack(self) -> bytes:
        return b""

    @classmethod
    def unpack(cls, payload: bytes) -> Ping:
        return cls()


class Configure(NamedTuple):
    """Set the pulse filter and heartbeat; answered with ``ConfigState`` (the values it could take).

    >>> Configure.unpack(Configure(Settings(stuck_ms=5000)).pack()).settings.stuck_ms
    5000
    """

    settings: Settings

    TYPE = 0x83
    SIZE = 8
    NAME = "configure"

    def pack(self) -> bytes:
        return self.settings.pack()

    @classmethod
    def unpack(cls, payload: bytes) -> Configure:
        return cls(Settings(*struct.unpack(">4H", payload)))


Message = (Hello | PocketDrop | CushionHit | CueStrike | LineFault | Heartbeat | Counters | ConfigState
           | Arm | Ping | Configure)
MCU_MESSAGES = (Hello, PocketDrop, CushionHit, CueStrike, LineFault, Heartbeat, Counters, ConfigState)
HOST_MESSAGES = (Arm, Ping, Configure)


class Frame(NamedTuple):
    """One decoded frame: its sequence number and its message."""

    seq: int
    message: Message


def encode(message: Message, seq: int) -> bytes:
    """The frame of ``message`` with sequence number ``seq`` (0-255), ready for the wire."""
    payload = message.pack()
    body = bytes((len(payload), message.TYPE, seq & 0xFF)) + payload
    return b"\x7e" + body + crc16(body).to_bytes(2, "big")


class Decoder:
    """A byte stream in, whole frames out, however the bytes are split; garbage is skipped and counted.

    A frame is taken only when its length is the one its type has and its CRC
    is right; otherwise decoding moves on by one byte and looks for the next
    sync byte, so a corrupt frame never hides the good frame after it.
    ``errors`` counts the runs of skipped bytes (a garbage burst or a corrupt
    frame is one error), ``skipped`` the bytes.

    >>> decoder = Decoder()
    >>> wire = encode(CueStrike(), 0) + b"\\x7e\\x00\\xff" + encode(CueStrike(), 1)
    >>> [frame.seq for frame in decoder.feed(wire[:5])], [frame.seq for frame in decoder.feed(wire[5:])]
    ([], [0, 1])
    >>> decoder.errors, decoder.skipped, decoder.frames
    (1, 3, 2)
    """

    def __init__(self, messages: tuple[type, ...] = MCU_MESSAGES) -> None:
        self._sizes = [-1] * 256
        self._kinds: list[type | None] = [None] * 256
        for kind in messages:
            self._sizes[kind.TYPE] = kind.SIZE
            self._kinds[kind.TYPE] = kind
        self._buffer = bytearray()
        self._in_garbage = False
        self.errors = 0
        self.skipped = 0
        self.frames = 0

    def reset(self) -> None:
        """Forget a partial frame: the bytes after this come from a new connection."""
        if self._buffer:
            self._skip(len(self._buffer))
            self._buffer.clear()
        self._in_garbage = False

    def _skip(self, count: int) -> None:
        self.skipped += count
        if not self._in_garbage:
            self._in_garbage = True
            self.errors += 1

    def _next_whole_frame(self, buffer: bytearray, pos: int, size: int) -> int:
        """Where the first complete frame with a good CRC and content starts at or after ``pos``, or -1."""
        sizes = self._sizes
        while True:
            start = buffer.find(b"\x7e", pos, size)
            if start < 0 or start + 4 > size:
                return -1
            kind = buffer[start + 2]
            end = start + OVERHEAD + buffer[start + 1]
            if sizes[kind] == buffer[start + 1] and end <= size and crc_hqx(
                    buffer[start + 1:end - 2], 0xFFFF) == buffer[end - 2] << 8 | buffer[end - 1]:
                try:
                    self._kinds[kind].unpack(bytes(buffer[start + 4:end - 2]))
                    return start
                except (ProtocolError, ValueError):
                    pass
            pos = start + 1

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data``; return the frames it completed, in order."""
        buffer = self._buffer
        buffer += data
        size = len(buffer)
        sizes = self._sizes
        frames: list[Frame] = []
        pos = 0
        while True:
            start = buffer.find(b"\x7e", pos)
            if start < 0:
                if pos < size:
                    self._skip(size - pos)
                pos = size
                break
            if start > pos:
                self._skip(start - pos)
            pos = start
            if size - pos < 4:
                break  # the header is not all here yet
            length = buffer[pos + 1]
            kind = buffer[pos + 2]
            if sizes[kind] != length:
                self._skip(1)
                pos += 1
                continue
            end = pos + OVERHEAD + length
            if end > size:
                # The rest may still be on its way, unless a whole good frame starts inside what this
                # header claims: then the header was garbage (a frame cut short by a reconnect).
                inner = self._next_whole_frame(buffer, pos + 1, size)
                if inner < 0:
                    break
                self._skip(inner - pos)
                pos = inner
                continue
            if crc_hqx(buffer[pos + 1:end - 2], 0xFFFF) != buffer[end - 2] << 8 | buffer[end - 1]:
                self._skip(1)
                pos += 1
                continue
            try:
                message = self._kinds[kind].unpack(bytes(buffer[pos + 4:end - 2]))
            except (ProtocolError, ValueError):
                self._skip(1)
                pos += 1
                continue
            frames.append(Frame(buffer[pos + 3], message))
            self._in_garbage = False
            pos = end
        if pos:
            del buffer[:pos]
        self.frames += len(frames)
        return frames


class Receiver:
    """The host's side of the stream: bytes in, match-log inputs and ``Health`` reports out.

    Every pocket the microcontroller counted reaches the match exactly once:
    a ``PocketDrop`` it saw is one ``Pocket`` input, and where the counters
    (in ``Counters`` and in each ``PocketDrop``) went further than the drops it
    saw, the missing ones become ``Pocket`` inputs with no ball, after a
    ``missed_pockets`` report. The first boot id it meets is taken as it is
    (what was counted before the host listened is not missed); a new boot id
    is a restart, counted from zero.

    >>> receiver = Receiver()
    >>> wire = encode(Hello(1, (1, 0, 0), 7, HELLO_BOOT), 0) + encode(PocketDrop(7, "foot_left", 3, 2), 1)
    >>> [(type(report).__name__, getattr(report, "status", None) or getattr(report, "ball", None))
    ...  for report in receiver.feed(wire, t=5.0)]
    [('Health', 'ok'), ('Health', 'missed_pockets'), ('Pocket', None), ('Pocket', 3)]
    """

    def __init__(self, source: str = "serial", error_interval: float = 1.0) -> None:
        self.source = source
        self.decoder = Decoder()
        self.boot_id: int | None = None
        self.hello: Hello | None = None
        self.seen: list[int | None] = [None] * len(POCKETS)
        self.error_interval = error_interval
        self._expect: int | None = None
        self._errors_told = 0
        self._errors_at: float | None = None

    def link_lost(self, t: float) -> list[Report]:
        """The connection broke: sequence numbers start over, a partial frame is dropped; errors not told yet."""
        self._expect = None
        self.decoder.reset()
        reports: list[Report] = []
        self._tell_errors(t, reports, now=True)
        return reports

    def feed(self, data: bytes, t: float) -> list[Report]:
        """Decode ``data`` received at host time ``t``; return its inputs and reports in order."""
        reports: list[Report] = []
        for frame in self.decoder.feed(data):
            self.frame(frame, t, reports)
        self._tell_errors(t, reports)
        return reports

    def frame(self, frame: Frame, t: float, reports: list[Report]) -> None:
        """Append what one frame means to ``reports``."""
        message = frame.message
        kind = type(message)
        restarted = False
        if kind is PocketDrop or kind is Heartbeat or kind is Counters or kind is Hello:
            restarted = self._boot(message, t, reports)
        if self._expect is not None and frame.seq != self._expect and not restarted:
            lost = (frame.seq - self._expect) & 0xFF
            reports.append(Health(self.source, "link", "lost_frames",
                                  f"sequence number {frame.seq} came where {self._expect} was due", lost, t))
        self._expect = (frame.seq + 1) & 0xFF
        if kind is CueStrike:
            reports.append(Strike(t, self.source))
        elif kind is CushionHit:
            reports.append(Cushion(message.ball, message.rail, t, self.source))
        elif kind is PocketDrop:
            self._drop(message, t, reports)
        elif kind is Counters:
            for index, count in enumerate(message.counts):
                self._count(index, count, t, reports)
        elif kind is LineFault:
            detail = FAULT_CODES.get(message.code, f"fault code {message.code}")
            reports.append(Health(self.source, line_subject(message.line), "fault" if message.active else "ok",
                                  detail if message.active else f"recovered ({detail})", None, t))
        elif kind is Hello:
            self.hello = message
            major, minor, patch = message.firmware
            detail = (f"firmware {major}.{minor}.{patch}, protocol {message.protocol}, "
                      f"boot id {message.boot_id:08x}")
            if message.protocol != PROTOCOL_VERSION:
                reports.append(Health(self.source, "link", "fault",
                                      f"{detail}: this host speaks protocol {PROTOCOL_VERSION}", None, t))
            else:
                reports.append(Health(self.source, "link", "ok", detail, None, t))

    def _boot(self, message: Message, t: float, reports: list[Report]) -> bool:
        """Note the message's boot id; True if it says the microcontroller restarted."""
        boot_id = message.boot_id
        if boot_id == self.boot_id:
            return False
        restarted = self.boot_id is not None
        if restarted:
            reports.append(Health(self.source, "link", "restarted",
                                  f"boot id {self.boot_id:08x} became {boot_id:08x}: counting again from zero",
                                  None, t))
        self.boot_id = boot_id
        # After a restart, or when the first thing heard is the boot's own hello, nothing was counted
        # before: every count is a drop. Else the first count heard of each pocket is where it starts.
        fresh = restarted or (type(message) is Hello and message.reason == HELLO_BOOT)
        self.seen = [0 if fresh else None] * len(POCKETS)
        return restarted

    def _drop(self, message: PocketDrop, t: float, reports: list[Report]) -> None:
        if message.pocket is None:  # no pocket named, so no counter to check it against
            reports.append(Pocket(message.ball, None, t, self.source))
            return
        index = POCKETS.index(message.pocket)
        count = message.count
        if self.seen[index] is None:
            self.seen[index] = (count - 1) % COUNTER_MODULO
        ahead = (count - self.seen[index]) % COUNTER_MODULO
        if ahead == 0:  # this drop was counted already (a frame repeated)
            return
        if ahead < COUNTER_MODULO // 2:
            self._count(index, (count - 1) % COUNTER_MODULO, t, reports)
        else:
            reports.append(Health(self.source, f"pocket:{message.pocket}", "fault",
                                  f"counter went back from {self.seen[index]} to {count}: counting on from there",
                                  None, t))
        self.seen[index] = count
        reports.append(Pocket(message.ball, message.pocket, t, self.source))

    def _count(self, index: int, count: int, t: float, reports: list[Report]) -> None:
        """Bring pocket ``index`` up to ``count`` drops: the ones not seen become unidentified pockets."""
        seen = self.seen[index]
        if seen is None:
            self.seen[index] = count
            return
        missed = (count - seen) % COUNTER_MODULO
        if missed == 0 or missed >= COUNTER_MODULO // 2:  # nothing new, or an older count than one already seen
            return
        name = POCKETS[index]
        reports.append(Health(self.source, f"pocket:{name}", "missed_pockets",
                              f"counter went from {seen} to {count} with no frame for "
                              f"{'it' if missed == 1 else 'them'}: added as unidentified balls", missed, t))
        reports.extend(Pocket(None, name, t, self.source) for _ in range(missed))
        self.seen[index] = count

    def _tell_errors(self, t: float, reports: list[Report], now: bool = False) -> None:
        """Report new decoding errors, at most once each ``error_interval`` unless ``now``."""
        errors = self.decoder.errors
        if errors == self._errors_told:
            return
        if not now and self._errors_at is not None and t - self._errors_at < self.error_interval:
            return
        reports.append(Health(self.source, "link", "errors",
                              f"{errors} corrupt frames or garbage runs skipped so far "
                              f"({self.decoder.skipped} bytes)", errors - self._errors_told, t))
        self._errors_told = errors
        self._errors_at = t
