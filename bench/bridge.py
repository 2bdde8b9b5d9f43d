"""How fast does the Pi decode the microcontroller's frames, and what does a full 115,200 baud line cost it?

    python bench/bridge.py [--seconds S] [--runs K]

The frames are those the simulated microcontroller sends for a long match
(``SimulatedTable`` inputs through ``firmware_bridge.simulator.Mcu``: strikes,
cushions, pockets) with a heartbeat and the counters mixed in as the firmware
would. Measured on one core (this process is pinned to CPU 0 where it can be):

(a) ``Decoder.feed``: frames and bytes per second, in 64-byte reads (what a
    serial read returns at line rate) and in 4,096-byte reads, clean and with
    5% garbage bursts between frames; against the line rate of 115,200 baud
    8N1 (11,520 bytes/s). The goal is at least 100 times the line rate.
(b) ``Receiver.feed``: the same bytes all the way to match-log inputs and
    health reports (what the source emits).
(c) The CPU a reader uses while the line runs full: frames written into a
    pseudo-terminal at exactly 11,520 bytes/s for S seconds, read by
    ``SerialSource`` in this process (its thread's CPU time) and by
    ``devetka sensors --serial PATH --json > /dev/null`` (the process's CPU
    time from /proc), as a share of one core.

Best of K runs for (a) and (b); nothing here is asserted: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import random
import select
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

from _common import pin_to_one_core, print_header

from firmware_bridge.protocol import HOST_MESSAGES, Counters, Decoder, Heartbeat, Ping, Receiver
from firmware_bridge.simulator import Mcu
from firmware_bridge.source import SerialSource
from scoreboard.core.inputs import RuleOptions
from scoreboard.sim.table import Sensors, SimulatedTable

LINE_RATE = 115_200 / 10  # bytes per second: 8N1 is 10 bits a byte
GOAL = 100  # times the line rate, one core




def match_frames(racks: int = 400, seed: int = 1) -> list[bytes]:
    """The frames of a long match as the microcontroller would send them, one heartbeat and counters per shot."""
    table = SimulatedTable(seed, rules=RuleOptions(strike_sensed=True), sensors=Sensors(ball_ids=0.5))
    mcu = Mcu(boot_id=0xBE7C4)
    frames = []
    for item in table.play_racks(racks):
        message = mcu.play(item)
        if message is not None:
            frames.append(mcu.frame(message)[1])
            if item.TYPE == "strike":
                frames.append(mcu.frame(Heartbeat(mcu.boot_id, len(frames), True))[1])
                frames.append(mcu.frame(Counters(mcu.boot_id, tuple(mcu.counts)))[1])
    return frames


def with_garbage(frames: list[bytes], share: float, seed: int = 2) -> bytes:
    rng = random.Random(seed)
    return b"".join((rng.randbytes(rng.randint(1, 8)) if rng.random() < share else b"") + f for f in frames)


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def chunks(wire: bytes, size: int) -> list[bytes]:
    return [wire[i:i + size] for i in range(0, len(wire), size)]


def decode_rate(wire: bytes, size: int, runs: int, receiver: bool) -> tuple[float, float, int]:
    """(frames per second, bytes per second, frames) for ``wire`` fed in ``size``-byte reads."""
    pieces = chunks(wire, size)
    frames = len(Decoder().feed(wire))

    def decode():
        decoder = Decoder()
        for piece in pieces:
            decoder.feed(piece)

    def receive():
        reader = Receiver()
        for piece in pieces:
            reader.feed(piece, 1.0)

    seconds = best(runs, receive if receiver else decode)
    return frames / seconds, len(wire) / seconds, frames


# --- (c): the line running full ---------------------------------------------------------------------------------


class FullLine:
    """A pseudo-terminal at ``path`` whose master writes ``frames`` at the line rate once the host has pinged."""

    def __init__(self, path: Path, frames: list[bytes]) -> None:
        self.path = path
        self.frames = frames
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), path)
        self.started = threading.Event()
        self.written = 0

    def run(self, seconds: float) -> None:
        decoder = Decoder(HOST_MESSAGES)
        while not any(frame.message == Ping() for frame in decoder.feed(os.read(self.master, 256))):
            pass
        self.started.set()
        start = time.monotonic()
        index, budget = 0, 0.0
        while (now := time.monotonic()) - start < seconds:
            budget = (now - start) * LINE_RATE - self.written
            out = bytearray()
            while len(out) < budget:
                out += self.frames[index % len(self.frames)]
                index += 1
            if out:
                os.write(self.master, out)
                self.written += len(out)
            while select.select([self.master], [], [], 0)[0]:
                os.read(self.master, 4096)  # the host's pings and arms
            time.sleep(0.005)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_in_process(seconds: float, frames: list[bytes]) -> tuple[float, int, int]:
    """A ``SerialSource`` reading the full line: (share of one core, bytes written, inputs emitted)."""
    with tempfile.TemporaryDirectory() as folder:
        line = FullLine(Path(folder) / "mcu", frames)
        source = SerialSource(str(line.path))
        reports: queue.SimpleQueue = queue.SimpleQueue()
        source.start(reports.put)
        writer = threading.Thread(target=line.run, args=(seconds,))
        writer.start()
        line.started.wait()
        clock = time.pthread_getcpuclockid(source._thread.ident)
        cpu0, wall0 = time.clock_gettime(clock), time.monotonic()
        writer.join()
        cpu1, wall1 = time.clock_gettime(clock), time.monotonic()
        source.close()
        line.close()
    emitted = 0
    while not reports.empty():
        emitted += type(reports.get()).__name__ in ("Strike", "Cushion", "Pocket")
    return (cpu1 - cpu0) / (wall1 - wall0), line.written, emitted


def cpu_of_the_command(seconds: float, frames: list[bytes]) -> tuple[float, int]:
    """``devetka sensors --serial PATH --json > /dev/null`` reading the full line: (share of one core, bytes)."""
    bindir = Path(sys.executable).parent
    command = [str(bindir / "devetka")] if (bindir / "devetka").is_file() else [sys.executable, "-m",
                                                                                 "scoreboard.commands.main"]
    with tempfile.TemporaryDirectory() as folder:
        line = FullLine(Path(folder) / "mcu", frames)
        reader = subprocess.Popen([*command, "sensors", "--serial", str(line.path), "--json"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        writer = threading.Thread(target=line.run, args=(seconds,))
        writer.start()
        line.started.wait()
        time.sleep(0.2)  # past the port's opening: measure the steady state only
        cpu0, wall0 = process_cpu(reader.pid), time.monotonic()
        writer.join()
        cpu1, wall1 = process_cpu(reader.pid), time.monotonic()
        reader.terminate()
        reader.wait(timeout=30)
        line.close()
    return (cpu1 - cpu0) / (wall1 - wall0), line.written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the line runs full in (c)")
    parser.add_argument("--runs", type=int, default=10, help="best of this many runs in (a) and (b)")
    args = parser.parse_args(argv)
    print_header(pin_to_one_core())
    frames = match_frames()
    clean = b"".join(frames)
    noisy = with_garbage(frames, 0.05)
    print(f"frames: {len(frames)} ({len(clean)} bytes, {len(clean) / len(frames):.1f} bytes a frame); "
          f"line rate {LINE_RATE:,.0f} bytes/s (115,200 baud 8N1), goal {GOAL}x")
    print()
    print("(a, b) decoding, one core, best of", args.runs)
    for name, receiver in (("Decoder.feed", False), ("Receiver.feed (to inputs and health)", True)):
        for label, wire in (("clean", clean), ("5% garbage", noisy)):
            for size in (64, 4096):
                rate, speed, _ = decode_rate(wire, size, args.runs, receiver)
                print(f"  {name:<38} {label:<10} {size:>5}-byte reads: {rate:>9,.0f} frames/s "
                      f"{speed / 1e6:6.2f} MB/s = {speed / LINE_RATE:5.0f}x line rate")
    print()
    print(f"(c) CPU while the line runs full for {args.seconds:g} s")
    share, written, emitted = cpu_in_process(args.seconds, frames)
    print(f"  SerialSource thread:          {share * 100:5.1f}% of one core "
          f"({written / args.seconds:,.0f} bytes/s written, {emitted / args.seconds:,.0f} inputs/s emitted)")
    share, written = cpu_of_the_command(args.seconds, frames)
    print(f"  devetka sensors --json:       {share * 100:5.1f}% of one core "
          f"({written / args.seconds:,.0f} bytes/s written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
