"""The ``devetka`` command: ``devetka replay LOG`` today; the daemon, demo and UI join later."""

from __future__ import annotations

import argparse
import gc
import io
import sys

import orjson

from scoreboard.replay import replay


def _open_log(name: str):
    """The log as UTF-8 text (a byte-order mark is skipped), from a file or standard input."""
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="strict")
    return open(name, encoding="utf-8-sig", errors="strict")


def _replay(args: argparse.Namespace) -> int:
    try:
        stream = _open_log(args.log)
    except OSError as error:
        print(f"devetka replay: cannot read {args.log}: {error.strerror}", file=sys.stderr)
        return 2
    gc.disable()  # a long log makes millions of small objects that all live to the end: nothing to collect
    try:
        with stream:
            result = replay(stream)
    except UnicodeDecodeError as error:
        where = "standard input" if args.log == "-" else args.log
        print(f"devetka replay: {where} is not UTF-8 text: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"devetka replay: cannot read {args.log}: {error.strerror}", file=sys.stderr)
        return 2
    finally:
        gc.enable()
    out = sys.stdout.buffer
    if args.explain:
        out.write("\n".join(result.explain()).encode() + b"\n")
    else:
        out.write(b"\n".join(orjson.dumps(line) for line in result.lines()) + b"\n")
    out.flush()
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="devetka", description="A scoreboard that referees nine-ball.")
    commands = top.add_subparsers(dest="command", required=True)
    rp = commands.add_parser("replay", help="fold a match log and print what the rules decided")
    rp.add_argument("log", help="a match log (JSON Lines), or - for standard input")
    rp.add_argument("--explain", action="store_true", help="one line per shot with the ruling in words")
    rp.set_defaults(run=_replay)
    from scoreboard import sensors_cli

    sensors_cli.register(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
