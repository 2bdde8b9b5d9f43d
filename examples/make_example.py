"""Write examples/match.jsonl: a race to 3 between Ana and Ben, played on the simulated table.

The table has a strike sensor, cushion sensors, a camera for the first contact,
and pocket sensors that cannot tell one ball in five (so players tap
``identify``). The seed is one whose match shows what the example is for (see
``WANTED``); ``--search`` lists the seeds that show all of it.

    python examples/make_example.py            # rewrite examples/match.jsonl
    python examples/make_example.py --search 3000        # or --search FROM TO
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scoreboard.core.inputs import Accept, Foul, Identify, Pass, Pocket, RuleOptions, Undo, parse, to_json
from scoreboard.core.match import Match
from scoreboard.sim.table import Sensors, SimulatedTable

SEED = 22380
PLAYERS = ("Ana", "Ben")
RACE = (3, 3)
RULES = RuleOptions(strike_sensed=True)
SENSORS = Sensors(ball_ids=0.8)
OUT = Path(__file__).resolve().parent / "match.jsonl"

WANTED = {
    "push out passed back",
    "foul with ball in hand",
    "late foul",
    "late foul reopens the rack",
    "9 on a combination or the break",
    "unidentified ball named",
    "undo",
}


def table(seed: int = SEED) -> SimulatedTable:
    return SimulatedTable(seed, players=PLAYERS, race=RACE, rules=RULES, sensors=SENSORS)


def lines(seed: int = SEED) -> list[str]:
    """The example as JSON Lines, one input per line, as the daemon's store would export it."""
    return [json.dumps(to_json(item), ensure_ascii=False, separators=(",", ":")) for item in table(seed).play_match()]


def features(log: list[dict]) -> set[str]:
    """What a match log (decoded JSON objects) shows, in the words of ``WANTED`` and a few more."""
    items = [parse(raw) for raw in log]
    match = Match(items[0])
    shown = set()
    for item, following in zip(items[1:], items[2:] + [None], strict=True):
        step = match.apply(item)
        if isinstance(item, Undo):
            shown.add("undo")
        if isinstance(following, Undo):
            continue  # a mistaken tap, taken back
        verdict = step.verdict
        if isinstance(item, Pass):
            shown.add("push out passed back")
        if isinstance(item, Accept):
            shown.add("push out accepted")
        if isinstance(item, Identify):
            shown.add("unidentified ball named")
        if isinstance(item, Pocket) and step.amends:
            shown.add("slow ball after the settle")
        if isinstance(item, Foul) and step.amends:
            shown.add("late foul")
            if verdict.respot_nine:
                shown.add("late foul reopens the rack")
        if verdict is None:
            continue
        if verdict.foul and verdict.ball_in_hand and verdict.rack_winner is None:
            shown.add("foul with ball in hand")
        if verdict.between_shots:
            shown.add("foul between shots")
        if verdict.rack_winner is not None and not verdict.foul and (verdict.is_break or verdict.on_table):
            shown.add("9 on a combination or the break")
    return shown


def search(seeds: range) -> None:
    for seed in seeds:
        text = lines(seed)
        shown = features([json.loads(line) for line in text])
        if WANTED <= shown:
            print(seed, f"{len(text)} lines", ", ".join(sorted(shown - WANTED)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", type=int, nargs="+", metavar="N",
                        help="list the seeds below N (or from N to M) whose match shows WANTED")
    args = parser.parse_args(argv)
    if args.search:
        search(range(*args.search))
        return 0
    text = lines()
    missing = WANTED - features([json.loads(line) for line in text])
    if missing:
        print(f"make_example: seed {SEED} no longer shows {', '.join(sorted(missing))}; "
              "pick another with --search", file=sys.stderr)
        return 1
    OUT.write_text("\n".join(text) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(text)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
