"""Write a store the way the release at hand does: the daemon's Referee playing examples/match.jsonl.

Run with the release's own checkout on the path: ``python tests/data/stores/make_store.py OUT.sqlite3 [LOG ...]``:
one match per LOG, in order (examples/match.jsonl when none is named).
The stores it made are committed beside it (README.md): later releases must open, export and resume them
with the same verdicts.
"""

import sys
from datetime import datetime, timezone
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

try:
    from scoreboard.referee.referee import Referee
except ImportError:  # releases before the house's rooms
    from scoreboard.daemon import Referee


def main(out: str, *logs: str) -> None:
    referee = Referee.open(out, now=lambda: datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc))
    for log in logs or (str(REPO / "examples" / "match.jsonl"),):
        lines = Path(log).read_text().splitlines()
        start, *inputs = [orjson.loads(line) for line in lines if line.strip()]
        start.pop("t", None)
        assert referee.handle({"cmd": "new_match", "match_start": start}).ok
        for item in inputs:
            item.pop("t", None)
            reply = referee.handle(item)
            assert reply.ok, (item, reply.error)
    referee.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
