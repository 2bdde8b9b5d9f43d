"""The ``devetka`` command: ``devetka replay LOG`` today; the daemon, demo and UI join later."""

from __future__ import annotations

import argparse
import json
import sys

from scoreboard.replay import replay


def _replay(args: argparse.Namespace) -> int:
    try:
        stream = sys.stdin if args.log == "-" else open(args.log, encoding="utf-8")
    except OSError as error:
        print(f"devetka replay: cannot read {args.log}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        with stream:
            result = replay(stream)
    except UnicodeDecodeError as error:
        print(f"devetka replay: {args.log} is not UTF-8 text: {error}", file=sys.stderr)
        return 2
    if args.explain:
        out = "\n".join(result.explain())
    else:
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        out = "\n".join(dumps(line) for line in result.lines())
    sys.stdout.write(out + "\n")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="devetka", description="A scoreboard that referees nine-ball.")
    commands = top.add_subparsers(dest="command", required=True)
    rp = commands.add_parser("replay", help="fold a match log and print what the rules decided")
    rp.add_argument("log", help="a match log (JSON Lines), or - for standard input")
    rp.add_argument("--explain", action="store_true", help="one line per shot with the ruling in words")
    rp.set_defaults(run=_replay)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
