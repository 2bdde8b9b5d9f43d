"""How long does the daemon take to build the state it serves, in English and in Croatian?

    python bench/state.py [--quick] [--racks N] [--runs N] [--seed S] [--languages en,hr] [--no-pin]

``Referee.state()`` is what ``devetka run`` builds for every answer and broadcast: the state line, the served
actions (each tap tried on the fold, ``scoreboard/core/actions.py``), the last ruling and the undo's words, all
in the players' language (issue 22). A simulated match of N racks (the simulated table with a strike sensor, a
camera and pocket sensors naming half the balls) is applied to a ``Referee`` in this process, on a temporary
store, for a table whose ``[table] language`` is ``"en"`` and for one whose is ``"hr"``, the same inputs in the
same order, ``--runs`` times each (the languages taking turns), a fresh referee and store each time. After each
input the state is built once, as the daemon builds it for the input's answer and broadcast (a second build
would find what the first kept); an input's figure is the best of its runs (the least disturbed). Printed are
the median, p90 and max over the inputs in microseconds, for each language, and how much more Croatian costs
than English at the median. Timed too is ``Referee.handle`` alone, whose answer's state nobody reads (a test's
input, a daemon with no watcher): built lazily since issue 28, so no fold trials; before, the whole state.

Nothing is asserted on the figures (tests/test_bench_state.py checks only the output's shape).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import load_average, pin_to_one_core, print_header

from scoreboard.core.inputs import RuleOptions, to_json
from scoreboard.referee.referee import Referee
from scoreboard.sim.table import Sensors, SimulatedTable

LANGUAGES = ("en", "hr")


def match_log(racks: int, seed: int) -> list[dict]:
    simulated = SimulatedTable(seed, rules=RuleOptions(strike_sensed=True), sensors=Sensors(ball_ids=0.5))
    return [to_json(item) for item in simulated.play_racks(racks)]


def state_times(log: list[dict], language: str, folder: Path) -> tuple[list[float], list[float]]:
    """Seconds to build the state once after each input of ``log``, the table speaking ``language``; and seconds
    to handle each input, its answer's state not read."""
    spoken = {} if language == "en" else {"language": language}  # English needs no option: older code has none
    referee = Referee.open(folder / "devetka.sqlite3", settle_after=3600.0, **spoken)
    clock = time.perf_counter
    times, handled = [], []
    try:
        answer = referee.handle({"cmd": "new_match", "match_start": log[0]})
        assert answer.ok, answer.error
        for item in log[1:]:
            start = clock()
            answer = referee.handle(item)
            handled.append(clock() - start)
            assert answer.ok, (item, answer.error)
            start = clock()
            referee.state()
            times.append(clock() - start)
    finally:
        referee.close()
    return times, handled


def best_of_runs(log: list[dict], languages: list[str], runs: int) -> dict[tuple[str, str], list[float]]:
    """Each input's best time over ``runs`` runs of the whole match in each language, each on a store of its own,
    keyed by (what, language), what "state" or "handle"; the languages take turns, so that the machine's load and
    the process's state weigh on each alike."""
    best: dict[tuple[str, str], list[float]] = {}
    for _ in range(runs):
        for language in languages:
            gc.collect()  # each run from the same start: no garbage of the one before left to collect
            with tempfile.TemporaryDirectory(prefix="devetka-bench-state-") as folder:
                built, handled = state_times(log, language, Path(folder))
            for key, times in (("state", language), built), (("handle", language), handled):
                kept = best.get(key)
                best[key] = times if kept is None else [min(a, b) for a, b in zip(kept, times, strict=True)]
    return best


def figures(times: list[float]) -> tuple[float, float, float]:
    """Median, p90 and max in microseconds."""
    ordered = sorted(times)
    return (statistics.median(ordered) * 1e6, ordered[int(0.9 * (len(ordered) - 1))] * 1e6, ordered[-1] * 1e6)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run (seconds): 2 racks, 3 runs")
    parser.add_argument("--racks", type=int, help="racks of the simulated match (default 40)")
    parser.add_argument("--runs", type=int, help="runs of the match, each input's best kept (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="the simulator's seed (default 1)")
    parser.add_argument("--languages", default=",".join(LANGUAGES),
                        help="the tables' languages, comma-separated (default en,hr; en alone runs on the code "
                             "before issue 22 too, for a comparison: PYTHONPATH=OLD_CHECKOUT)")
    parser.add_argument("--no-pin", action="store_true", help="use every core (default: CPU 0 only)")
    args = parser.parse_args(argv)
    languages = args.languages.split(",")
    racks = args.racks or (2 if args.quick else 40)
    runs = args.runs or (3 if args.quick else 10)

    print_header("not pinned (--no-pin)" if args.no_pin else pin_to_one_core())
    log = match_log(racks, args.seed)
    print(f"a simulated match of {racks} racks: {len(log) - 1} inputs after its match_start; the state built once "
          f"after each, {runs} runs, each input's best kept")
    medians = {}
    best = best_of_runs(log, languages, runs)
    for language in languages:
        median, p90, most = figures(best[("state", language)])
        medians[language] = median
        print(f"state built, [table] language {language!r}: median {median:.0f} us, p90 {p90:.0f} us, "
              f"max {most:.0f} us")
    for language in languages:
        median, p90, most = figures(best[("handle", language)])
        print(f"input handled, its state not read, [table] language {language!r}: median {median:.0f} us, "
              f"p90 {p90:.0f} us, max {most:.0f} us")
    if {"en", "hr"} <= medians.keys():
        more = (medians["hr"] / medians["en"] - 1) * 100
        print(f"Croatian against English: {more:+.1f} % at the median")
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
