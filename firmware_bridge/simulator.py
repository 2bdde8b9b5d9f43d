"""A fake microcontroller on a pseudo-terminal: it plays a match log's sensor inputs as frames.

``devetka simulate-mcu --link PATH --play LOG`` opens a pseudo-terminal,
puts its slave side in raw mode and makes ``PATH`` a symlink to it (replacing
a stale symlink, never a file), so the host opens ``PATH`` as it would open
``/dev/serial/by-id/...``. Like the firmware it sends a hello at boot and
answers every ``Ping`` with a hello and the counters; it waits for that first
ping (pyserial empties the input queue when it opens a port, so frames sent
before the host listens are lost), then sends the ``strike``, ``cushion`` and
``pocket`` inputs of the log as frames, spaced by their ``t`` divided by
``--speed`` (10 ms apart where an input has no ``t``), with heartbeats while
idle, the counters every second, and with probability ``--garbage`` a burst of
random bytes before a frame. It exits once the host has read everything
written: closing the master side sooner throws unread bytes away.

``Mcu`` (what the microcontroller would send) and ``schedule`` (when) are
pure; ``PtyMcu`` puts them on a pseudo-terminal.

>>> from scoreboard.core.inputs import Pocket, Settle, Strike
>>> [(offset, type(item).__name__) for offset, item in schedule(
...     [Strike(t=10.0), Settle(t=11.0), Pocket(3, "foot_left", t=12.0), Pocket(4)], speed=2.0)]
[(0.0, 'Strike'), (1.0, 'Pocket'), (1.01, 'Pocket')]
"""

from __future__ import annotations

import argparse
import fcntl
import math
import os
import random
import select
import signal
import struct
import sys
import termios
import time
import tty
from collections.abc import Callable, Iterable
from typing import TextIO

import orjson

from firmware_bridge.protocol import (
    HELLO_BOOT,
    HELLO_REPLY,
    HOST_MESSAGES,
    PROTOCOL_VERSION,
    Arm,
    ConfigState,
    Configure,
    Counters,
    CueStrike,
    CushionHit,
    Decoder,
    Heartbeat,
    Hello,
    Message,
    Ping,
    PocketDrop,
    Settings,
    encode,
)
from scoreboard.core.inputs import POCKETS, Cushion, Input, InputError, Pocket, Strike, parse

FIRMWARE = (0, 1, 0)  # the simulator's own "firmware" version
NO_T_GAP = 0.010  # seconds between played inputs where one has no t
COUNTERS_EVERY = 1.0
DRAIN_QUIET = 0.3  # the host's input queue must stay empty this long: the kernel moves bytes in steps
PLAYED = (Strike, Cushion, Pocket)


def schedule(items: Iterable[Input], speed: float = 1.0) -> list[tuple[float, Input]]:
    """The ``strike``, ``cushion`` and ``pocket`` inputs of ``items``, each with its offset (s) from the first."""
    if not speed > 0:
        raise ValueError("speed must be above 0")
    out: list[tuple[float, Input]] = []
    offset = 0.0
    last_t: float | None = None
    for item in items:
        if type(item) not in PLAYED:
            continue
        if out:
            if item.t is not None and last_t is not None:
                offset += max(0.0, item.t - last_t) / speed
            else:
                offset = round(offset + NO_T_GAP, 9)
        out.append((offset, item))
        last_t = item.t
    return out


class Mcu:
    """What the microcontroller sends: sequence numbers, per-pocket counters, armed or in rack mode.

    >>> mcu = Mcu(boot_id=7)
    >>> mcu.play(Pocket(3, "foot_left"))
    PocketDrop(boot_id=7, pocket='foot_left', ball=3, count=1)
    >>> mcu.answer(Arm(False)), mcu.play(Pocket(4, "foot_left")), mcu.counts
    ([], None, [0, 0, 0, 0, 1, 0])
    >>> [type(m).__name__ for m in mcu.answer(Ping())]
    ['Hello', 'Counters']
    """

    def __init__(self, boot_id: int, firmware: tuple[int, int, int] = FIRMWARE) -> None:
        self.boot_id = boot_id
        self.firmware = firmware
        self.seq = 0
        self.counts = [0] * len(POCKETS)
        self.armed = True
        self.settings = Settings()

    def frame(self, message: Message) -> tuple[int, bytes]:
        """The next frame on the wire for ``message``, and its sequence number."""
        seq = self.seq
        self.seq = (seq + 1) & 0xFF
        return seq, encode(message, seq)

    def hello(self, reason: int = HELLO_REPLY) -> Hello:
        return Hello(PROTOCOL_VERSION, self.firmware, self.boot_id, reason)

    def heartbeat(self, uptime: float) -> Heartbeat:
        return Heartbeat(self.boot_id, int(uptime * 1000), self.armed)

    def counters(self) -> Counters:
        return Counters(self.boot_id, tuple(self.counts))

    def play(self, item: Input) -> Message | None:
        """The frame a sensor input makes; ``None`` for a pocket in rack mode (or an input no sensor makes)."""
        kind = type(item)
        if kind is Strike:
            self.armed = True  # a strike ends rack mode, as on the host
            return CueStrike()
        if kind is Cushion:
            return CushionHit(item.rail, item.ball)
        if kind is Pocket:
            if not self.armed:
                return None
            if item.pocket is None:
                return PocketDrop(self.boot_id, None, item.ball, 0)
            index = POCKETS.index(item.pocket)
            self.counts[index] = (self.counts[index] + 1) & 0xFFFF
            return PocketDrop(self.boot_id, item.pocket, item.ball, self.counts[index])
        return None

    def answer(self, message: Message) -> list[Message]:
        """What the microcontroller sends back for a host message."""
        kind = type(message)
        if kind is Ping:
            return [self.hello(HELLO_REPLY), self.counters()]
        if kind is Arm:
            self.armed = message.armed
            return []
        if kind is Configure:
            self.settings = message.settings
            return [ConfigState(self.settings)]
        return []


def read_log(path: str) -> list[Input]:
    """The inputs of a match log file (or ``-`` for standard input); ``InputError`` names a bad line."""
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    items = []
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                items.append(parse(orjson.loads(line)))
            except orjson.JSONDecodeError as error:
                raise InputError(f"line {number}: not valid JSON: {error}") from None
            except InputError as error:
                raise InputError(f"line {number}: {error}") from None
    return items


def _queued(fd: int) -> int:
    """Bytes waiting to be read on a terminal."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def point_link(link: str, target: str) -> None:
    """Make ``link`` a symlink to ``target``, replacing a symlink already there; refuse to replace anything else."""
    if os.path.lexists(link) and not os.path.islink(link):
        raise FileExistsError(f"{link} exists and is not a symlink: not replacing it")
    temporary = f"{link}.{os.getpid()}.tmp"
    os.symlink(target, temporary)
    os.replace(temporary, link)


class Stalled(RuntimeError):
    """The host stopped reading: the pseudo-terminal stays full."""


class PtyMcu:
    """An ``Mcu`` on a pseudo-terminal reachable at ``link``: hello, wait for the host, play, drain.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with PtyMcu(os.path.join(folder, "mcu"), boot_id=7) as sim:
    ...         os.path.realpath(sim.link) == sim.slave_name
    True
    """

    def __init__(
        self,
        link: str,
        *,
        boot_id: int | None = None,
        garbage: float = 0.0,
        rng: random.Random | None = None,
        trace: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        stall: float = 30.0,
    ) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.mcu = Mcu(boot_id if boot_id is not None else self.rng.getrandbits(32))
        self.garbage = garbage
        self.trace = trace
        self.clock = clock
        self.stall = stall
        self.link = link
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.slave_name = os.ttyname(self.slave)
        self.decoder = Decoder(HOST_MESSAGES)
        self.started = clock()
        self.last_write = float("-inf")
        self.last_counters = self.started
        self.hosts = 0  # pings received
        self.pending: list[Message] = []  # answers to the host, sent between frames
        self.frames = 0
        self.bursts = 0
        try:
            point_link(link, self.slave_name)
        except OSError:
            os.close(self.master)
            os.close(self.slave)
            raise

    def __enter__(self) -> PtyMcu:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the symlink (if it is still ours) and close both sides: the host sees an unplug."""
        try:
            if os.readlink(self.link) == self.slave_name:
                os.unlink(self.link)
        except OSError:
            pass
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    # --- writing ------------------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = None
        while view:
            try:
                view = view[os.write(self.master, view):]
                deadline = None
                continue
            except BlockingIOError:
                pass
            now = self.clock()
            deadline = deadline if deadline is not None else now + self.stall
            if now >= deadline:
                raise Stalled(f"the host has read nothing for {self.stall:g} s")
            self._service(min(0.05, deadline - now), writable=True)

    def send(self, message: Message) -> None:
        """Write one frame (after a burst of garbage, with probability ``garbage``) and trace it."""
        if self.garbage and self.rng.random() < self.garbage:
            self.bursts += 1
            self._write(self.rng.randbytes(self.rng.randint(1, 8)))
        seq, frame = self.mcu.frame(message)
        self._write(frame)
        self.frames += 1
        self.last_write = self.clock()
        if self.trace is not None:
            line = {"seq": seq, "type": message.NAME, "ball": getattr(message, "ball", None), "t": time.monotonic()}
            self.trace.write(orjson.dumps(line).decode() + "\n")
            self.trace.flush()

    # --- the host's side ------------------------------------------------------------------------------

    def _service(self, timeout: float, writable: bool = False) -> None:
        """Wait up to ``timeout`` for the host's frames (or for room to write); queue the answers."""
        wanted = [self.master] if writable else []
        readable, _, _ = select.select([self.master], wanted, [], max(0.0, timeout))
        if not readable:
            return
        try:
            data = os.read(self.master, 4096)
        except OSError:
            return
        for frame in self.decoder.feed(data):
            if type(frame.message) is Ping:
                self.hosts += 1
                self.last_counters = self.clock()  # the answer carries them
            self.pending.extend(self.mcu.answer(frame.message))

    def _tick(self) -> None:
        """Send what is due: answers to the host, the counters each second, a heartbeat when quiet."""
        while self.pending:
            self.send(self.pending.pop(0))
        now = self.clock()
        if self.hosts and now - self.last_counters >= COUNTERS_EVERY:
            self.last_counters = now
            self.send(self.mcu.counters())
        elif now - self.last_write >= self.mcu.settings.heartbeat_ms / 1000:
            if self.hosts or _queued(self.slave) < 512:
                self.send(self.mcu.heartbeat(now - self.started))
            else:
                self.last_write = now  # nobody has listened yet: do not fill the queue with heartbeats

    def idle(self, until: float) -> None:
        """Serve the host until ``until`` (host clock), with heartbeats and counters as the firmware sends them."""
        while True:
            self._tick()
            now = self.clock()
            if now >= until:
                return
            due = self.last_write + self.mcu.settings.heartbeat_ms / 1000
            if self.hosts:
                due = min(due, self.last_counters + COUNTERS_EVERY)
            self._service(min(until, due) - now)

    # --- the whole run ------------------------------------------------------------------------------------

    def wait_for_host(self, timeout: float = math.inf) -> bool:
        """Boot (a hello), then serve heartbeats until the host's first ping; False if none came in time."""
        self.send(self.mcu.hello(HELLO_BOOT))
        deadline = self.clock() + timeout
        while not self.hosts:
            now = self.clock()
            if now >= deadline:
                return False
            self.idle(min(deadline, now + 0.05))
        return True

    def play(self, timed: list[tuple[float, Input]]) -> int:
        """Send each input's frame at its offset from now; the number of frames played."""
        start = self.clock()
        played = 0
        for offset, item in timed:
            self.idle(start + offset)
            message = self.mcu.play(item)
            if message is not None:
                self.send(message)
                played += 1
        return played

    def drain(self, timeout: float) -> bool:
        """Wait until the host has read all that was written (its queue empty for ``DRAIN_QUIET`` s)."""
        deadline = self.clock() + timeout
        empty_since = None
        while True:
            now = self.clock()
            if _queued(self.slave):
                empty_since = None
            elif empty_since is None:
                empty_since = now
            elif now - empty_since >= DRAIN_QUIET:
                return True
            if now >= deadline:
                return False
            self._service(0.01)
            while self.pending:
                self.send(self.pending.pop(0))
                empty_since = None


# --- the command ------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """``devetka simulate-mcu`` (arguments in ``scoreboard.commands.sensors``): 0 once the log was played and read,
    1 if the host never came or stopped reading, 2 for what cannot be played."""
    name = "devetka simulate-mcu"
    if not args.speed > 0:
        print(f"{name}: --speed must be above 0", file=sys.stderr)
        return 2
    if not 0.0 <= args.garbage <= 1.0:
        print(f"{name}: --garbage must be a probability from 0 to 1", file=sys.stderr)
        return 2
    try:
        timed = schedule(read_log(args.play), args.speed)
    except OSError as error:
        print(f"{name}: cannot read {args.play}: {error.strerror}", file=sys.stderr)
        return 2
    except InputError as error:
        print(f"{name}: {args.play}: {error}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(args.seed)
    try:
        sim = PtyMcu(args.link, garbage=args.garbage, rng=rng, trace=sys.stdout if args.trace else None)
    except OSError as error:
        print(f"{name}: cannot create {args.link}: {error}", file=sys.stderr)
        return 2
    with sim:
        print(f"{name}: {args.link} -> {sim.slave_name}, boot id {sim.mcu.boot_id:08x}; "
              f"waiting for a host to ping", file=sys.stderr)
        try:
            if not sim.wait_for_host(args.wait):
                print(f"{name}: no host pinged within {args.wait:g} s", file=sys.stderr)
                return 1
            played = sim.play(timed)
            drained = sim.drain(args.drain_timeout)
        except Stalled as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        print(f"{name}: played {played} of {len(timed)} sensor inputs, {sim.frames} frames, "
              f"{sim.bursts} garbage bursts", file=sys.stderr)
        if not drained:
            print(f"{name}: the host did not read everything within {args.drain_timeout:g} s", file=sys.stderr)
            return 1
    return 0
