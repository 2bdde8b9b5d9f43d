"""How fast is ``devetka replay``, what does one undo cost deep in a long match, how much memory does folding take?

    python bench/replay.py [--racks N] [--runs K] [--undos M] [--profile]

A long match (5,000 racks by default, through the simulator's N-racks mode)
is written as JSON Lines to a temporary file, then measured on one core:

(a) inputs per second through the whole ``devetka replay`` path (read, parse,
    fold, shot lines, JSON out to /dev/null), in this process via
    ``scoreboard.commands.main.main`` and as a ``devetka replay FILE > /dev/null``
    process; and the parts alone: parsing, the fold, the output. Best of K runs.
(b) one ``undo`` at the end of the long log (a ``Match`` with the whole log
    applied), and putting the input back: medians over M undos in a row.
(c) peak memory while replaying the long match: tracemalloc's peak in this
    process, and the maximum resident set of the ``devetka replay`` process.

The goal (issue: replay speed) is 100,000 inputs per second through
``devetka replay`` on one core. Timings are best-of or medians, never
asserted: this is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from _common import pin_to_one_core, print_header

from scoreboard.commands import main as cli
from scoreboard.core.inputs import RuleOptions, Undo, to_json
from scoreboard.core.match import Match
from scoreboard.matchlog.jsonl import parse_line
from scoreboard.matchlog.replay import replay
from scoreboard.sim.table import Sensors, SimulatedTable

GOAL = 100_000  # inputs per second through devetka replay, JSON in and out, one core




def write_log(path: Path, racks: int, seed: int) -> tuple[int, float]:
    """The long match as a JSON Lines file, the way the daemon's store would export it: (inputs, seconds)."""
    table = SimulatedTable(seed, rules=RuleOptions(strike_sensed=True), sensors=Sensors(ball_ids=0.9))
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    start = time.perf_counter()
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for item in table.play_racks(racks):
            out.write(dumps(to_json(item)) + "\n")
            count += 1
    return count, time.perf_counter() - start


def best(runs: int, work, collect: bool = True) -> float:
    """The best (least) wall time of ``runs`` calls of ``work``; ``collect=False`` runs it with the GC off."""
    times = []
    for _ in range(runs):
        gc.collect()
        if not collect:
            gc.disable()
        try:
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def replay_in_process(path: Path) -> None:
    with open(os.devnull, "w", encoding="utf-8") as devnull, contextlib.redirect_stdout(devnull):
        status = cli.main(["replay", str(path)])
    if status != 0:
        raise SystemExit(f"devetka replay exited {status}")


def devetka_command() -> list[str]:
    script = Path(sys.executable).with_name("devetka")
    if script.exists():
        return [str(script)]
    found = shutil.which("devetka")
    return [found] if found else [sys.executable, "-m", "scoreboard.commands.main"]


def replay_process(path: Path) -> tuple[float, int]:
    """``devetka replay FILE > /dev/null``: wall time (Python start-up included) and peak resident memory (bytes)."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen([*devetka_command(), "replay", str(path)], stdout=devnull)
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        else:
            process.wait()
            peak = 0
    if process.returncode != 0:
        raise SystemExit(f"devetka replay exited {process.returncode}")
    return time.perf_counter() - start, peak


def fold_only(items) -> Match:
    match = Match(items[0])
    for position, item in enumerate(items[1:], 2):
        match.apply(item, position)
    return match


def undo_costs(match: Match, count: int) -> tuple[list[float], list[float]]:
    """Undo ``count`` inputs one after the other from the end of the log, then put them back: each timed."""
    undo = Undo()
    taken: list = []
    undos: list[float] = []
    for _ in range(count):
        taken.append(match.undo_target)
        start = time.perf_counter()
        match.apply(undo)
        undos.append(time.perf_counter() - start)
    redos: list[float] = []
    for item in reversed(taken):
        start = time.perf_counter()
        match.apply(item)
        redos.append(time.perf_counter() - start)
    return undos, redos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racks", type=int, default=5000, help="racks in the long match (default 5000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each timing; the best is kept (default 3)")
    parser.add_argument("--undos", type=int, default=1000, help="undos in a row at the end of the log (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="the simulator's seed (default 1)")
    parser.add_argument("--profile", action="store_true", help="also profile one in-process replay (cProfile)")
    args = parser.parse_args(argv)

    print_header(pin_to_one_core())

    with tempfile.TemporaryDirectory(prefix="devetka-bench-") as tmp:
        path = Path(tmp) / "long-match.jsonl"
        count, made = write_log(path, args.racks, args.seed)
        size = path.stat().st_size
        print(f"log: {args.racks} racks, {count} inputs, {size / 1e6:.1f} MB "
              f"(simulated and written in {made:.1f} s, {count / made:,.0f} inputs/s)")
        print()

        text = path.read_text(encoding="utf-8").splitlines()
        items = [parse_line(line) for line in text]
        result = replay(text)
        if result.errors:
            print(f"warning: {len(result.errors)} inputs were not applied (first: {result.errors[0]})")

        rows: list[tuple[str, str, str]] = []

        def rate(label: str, seconds: float, note: str = "") -> None:
            rows.append((label, f"{count / seconds:,.0f} inputs/s", f"{seconds:.3f} s{note}"))

        whole = best(args.runs, lambda: replay_in_process(path))
        rate("(a) devetka replay, in process (cli.main)", whole)
        processes = [replay_process(path) for _ in range(args.runs)]
        rate("(a) devetka replay FILE > /dev/null, process", min(t for t, _ in processes), " (with start-up)")
        # The parts alone, with the garbage collector off (as cli.py runs the fold).
        parse = best(args.runs, lambda: [parse_line(line) for line in text], collect=False)
        fold = best(args.runs, lambda: fold_only(items), collect=False)
        shot_and_state = best(args.runs, result.lines, collect=False)
        rate("    parse only (parse_line: JSON to inputs)", parse, ", GC off")
        rate("    fold only (Match.apply)", fold, ", GC off")
        rate("    shot and state lines only (Replay.lines)", shot_and_state, ", GC off")
        rest = whole - parse - fold - shot_and_state
        rows.append(("    the rest: reading, JSON out, GC, memory", "", f"{rest:.3f} s (by difference)"))
        rate("    fold only, GC on", best(args.runs, lambda: fold_only(items)), " (what the GC costs)")

        match = fold_only(items)
        undos, redos = undo_costs(match, min(args.undos, count - 1))
        pairs = [u + r for u, r in zip(undos, reversed(redos), strict=True)]
        rows.append(("(b) undo at the end of the log, median", f"{statistics.median(undos) * 1e6:,.0f} µs",
                     f"max {max(undos) * 1e6:,.0f} µs over {len(undos)}"))
        rows.append(("    undo + re-apply the input, median", f"{statistics.median(pairs) * 1e6:,.0f} µs",
                     f"re-apply alone {statistics.median(redos) * 1e6:,.0f} µs"))
        del match

        gc.collect()
        tracemalloc.start()
        replay_in_process(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append(("(c) peak memory, devetka replay in process", f"{peak / 2**20:,.1f} MiB",
                     "tracemalloc peak of cli.main"))
        rss = max(peak for _, peak in processes)
        if rss:
            rows.append(("(c) peak memory, devetka replay process", f"{rss / 2**20:,.1f} MiB",
                         "ru_maxrss of the process (os.wait4), largest of the runs"))

        width = max(len(row[0]) for row in rows)
        for label, figure, note in rows:
            print(f"{label:<{width}}  {figure:>18}  {note}")
        print()
        verdict = "met" if count / whole >= GOAL else "NOT met"
        print(f"goal: {GOAL:,} inputs/s through devetka replay on one core: {verdict} "
              f"({count / whole:,.0f} inputs/s in process)")

        if args.profile:
            print()
            profile = cProfile.Profile()
            profile.runcall(replay_in_process, path)
            pstats.Stats(profile).sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
