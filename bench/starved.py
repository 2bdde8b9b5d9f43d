"""What does a daemon starved of the CPU for 1-5 s do with a real shot, at the shipped 4 s settle?

    python bench/starved.py [--stalls 1,2,3,4,5] [--repeats N] [--quick]

Issue 28 asks whether a starved daemon can end a real shot early. Each trial is
``devetka run`` as a child process (tests/live.py's ``Daemon``) on a fresh store,
its settle timer at the shipped 4 s, reading a microcontroller on a
pseudo-terminal (``firmware_bridge.simulator.PtyMcu``, played by this process:
a real microcontroller does not starve with the Pi). One shot, the break, on a
table with a strike sensor (the strike is a frame, and the rule options say
``strike_sensed``) and on one without (the shot begins at its first sensor input):

    [strike]; a cushion at 0 s; the daemon stopped (SIGSTOP) at 1.0 s for D s;
    the ball drops at 1.5 s (a pocket frame, written while the daemon is stopped,
    well inside the 4 s quiet period); SIGCONT at 1.0 + D s.

The shot is refereed right when the pocket is in it, its settle after it. It
was ended early when the daemon's settle came first: then, with a strike
sensor, the pocket amends the settled shot as a slow ball; without one, it
begins a new shot, for the other player. The stored log says which. Every
(table, D) pair is tried ``--repeats`` times, all trials of one repeat at once.

Nothing here is asserted by the test suite but the output's shape.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
from _common import load_average, pin_to_one_core, print_header

from firmware_bridge.simulator import PtyMcu
from scoreboard.core.inputs import Cushion, Pocket, Strike

ROOT = Path(__file__).resolve().parent.parent
SETTLE_S = 4.0
STOP_AT = 1.0  # seconds after the cushion
POCKET_AT = 1.5


def suite_helpers():
    """tests/live.py: the suite's ``Daemon`` (``devetka run`` as a child process), reused here."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("tests.live")


Daemon = suite_helpers().Daemon


class Trial:
    """One shot on one daemon, stopped ``stall`` s in the middle of it."""

    def __init__(self, folder: Path, strike: bool, stall: float) -> None:
        self.strike, self.stall = strike, stall
        folder.mkdir()
        self.link = folder / "mcu"
        self.daemon = Daemon(folder, settle_after=SETTLE_S, config=f'[sensors.serial]\nport = "{self.link}"\n')
        self.stored: list[dict] = []
        self.error: str | None = None

    def run(self) -> None:
        try:
            with PtyMcu(str(self.link), boot_id=0x57A4) as mcu:
                self.daemon.start()
                try:
                    self._shot(mcu)
                finally:
                    self.daemon.kill()
            export = subprocess.run([str(Path(sys.executable).parent / "devetka"), "export", "--store",
                                     str(self.daemon.store)], capture_output=True, check=True)
            self.stored = [orjson.loads(line) for line in export.stdout.splitlines()][1:]
        except Exception as error:  # a trial that could not run is said, not counted
            self.error = repr(error)

    def _shot(self, mcu: PtyMcu) -> None:
        if not mcu.wait_for_host(60):
            raise RuntimeError("the daemon never pinged the microcontroller")
        client = self.daemon.client()
        states: queue.Queue = queue.Queue()

        def read() -> None:
            with contextlib.suppress(OSError, ValueError):
                while True:
                    states.put(client.broadcast())

        start = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
                 "options": {"strike_sensed": self.strike}}
        if not client.request({"cmd": "new_match", "match_start": start})["ok"]:
            raise RuntimeError("new_match refused")
        threading.Thread(target=read, daemon=True).start()  # from now on only broadcasts are read
        seq = 0
        if self.strike:
            mcu.send(mcu.mcu.play(Strike()))
            seq = self._until(states, mcu, lambda state: state["seq"] >= 1)["seq"]
        mcu.send(mcu.mcu.play(Cushion(ball=2, rail="head")))
        cushion = time.monotonic()
        seq = self._until(states, mcu, lambda state: state["seq"] > seq)["seq"]
        mcu.idle(cushion + STOP_AT)
        os.kill(self.daemon.process.pid, signal.SIGSTOP)
        try:
            mcu.idle(cushion + POCKET_AT)
            mcu.send(mcu.mcu.play(Pocket(ball=3, pocket="foot_left")))
            mcu.idle(cushion + STOP_AT + self.stall)
        finally:
            os.kill(self.daemon.process.pid, signal.SIGCONT)
        # Done once the pocket is stored and no shot is in progress (cushion, pocket and a settle, in some order).
        self._until(states, mcu, lambda state: state["seq"] >= seq + 2 and not state["shot_in_progress"])
        client.sock.shutdown(socket.SHUT_RDWR)  # the reading thread ends; then the stream may close
        client.close()

    @staticmethod
    def _until(states: queue.Queue, mcu: PtyMcu, ready) -> dict:
        """The first state broadcast that is ``ready``, the microcontroller answering the daemon meanwhile."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                state = states.get_nowait()
            except queue.Empty:
                mcu.idle(time.monotonic() + 0.01)
                continue
            if ready(state):
                return state
        raise RuntimeError("the daemon did not get there within 60 s")

    def outcome(self) -> str:
        """``in the shot``, or how the early settle left the pocket."""
        kinds = [item["type"] for item in self.stored]
        if kinds.index("pocket") < kinds.index("settle"):
            return "in the shot"
        return "amended as a slow ball" if self.strike else "began a new shot"

    def ended_after(self) -> float:
        """Seconds from the cushion to the settle that ended the shot, on the daemon's clock."""
        cushion = next(item["t"] for item in self.stored if item["type"] == "cushion")
        return next(item["t"] for item in self.stored if item["type"] == "settle") - cushion


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stalls", default="1,2,3,4,5", help="seconds the daemon is stopped (default 1,2,3,4,5)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="stalls 1 and 4, one repeat")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to CPU 0")
    args = parser.parse_args(argv)
    stalls = [1.0, 4.0] if args.quick else [float(s) for s in args.stalls.split(",")]
    repeats = 1 if args.quick else args.repeats
    print_header("not pinned (--no-pin)" if args.no_pin else pin_to_one_core())
    print(f"settle {SETTLE_S:g} s; cushion at 0 s, daemon stopped at {STOP_AT:g} s, pocket at {POCKET_AT:g} s, "
          f"resumed at {STOP_AT:g} + D s; {repeats} repeat(s)")
    trials: dict[tuple[bool, float], list[Trial]] = {(strike, stall): [] for strike in (True, False)
                                                    for stall in stalls}
    with tempfile.TemporaryDirectory(prefix="devetka-starved-") as tmp:
        for repeat in range(repeats):
            batch = [Trial(Path(tmp) / f"{repeat}-{strike}-{stall:g}", strike, stall) for strike, stall in trials]
            threads = [threading.Thread(target=trial.run) for trial in batch]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for trial in batch:
                trials[(trial.strike, trial.stall)].append(trial)
    failed = 0
    for (strike, stall), done in trials.items():
        ran = [trial for trial in done if trial.error is None]
        failed += len(done) - len(ran)
        outcomes: dict[str, int] = {}
        for trial in ran:
            outcomes[trial.outcome()] = outcomes.get(trial.outcome(), 0) + 1
        ended = [trial.ended_after() for trial in ran]
        table = "strike sensor" if strike else "no strike sensor"
        said = ", ".join(f"{outcome} {count}/{len(ran)}" for outcome, count in sorted(outcomes.items()))
        span = f"{min(ended):.2f}-{max(ended):.2f} s (median {statistics.median(ended):.2f})" if ended else "-"
        print(f"{table}, stopped {stall:g} s: pocket {said}; shot ended {span} after the cushion")
        for trial in done:
            if trial.error is not None:
                print(f"    a trial did not run: {trial.error}")
    print(f"load average after: {load_average()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
