"""The ``devetka`` command: ``devetka replay LOG`` today; the daemon, demo and UI join later."""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys

import orjson

from scoreboard.commands import logs
from scoreboard.i18n.catalog import LANGUAGES, catalog, environment_language
from scoreboard.i18n.environment import _, speak_environment
from scoreboard.matchlog.replay import replay


def _open_log(name: str):
    """The log as UTF-8 text (a byte-order mark is skipped), from a file or standard input."""
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="strict")
    return open(name, encoding="utf-8-sig", errors="strict")


def _replay(args: argparse.Namespace) -> int:
    words = catalog(args.lang)
    _ = words.gettext
    try:
        stream = _open_log(args.log)
    except OSError as error:
        print(_("devetka replay: cannot read {log}: {error}").format(log=args.log, error=error.strerror),
              file=sys.stderr)
        return 2
    gc.disable()  # a long log makes millions of small objects that all live to the end: nothing to collect
    try:
        with stream:
            result = replay(stream, args.rules_version)
        if args.score_sheet:
            return _score_sheet(result, args.score_sheet, words, args.lang)
        _write(result, args.explain, words)
    except UnicodeDecodeError as error:
        where = _("standard input") if args.log == "-" else args.log
        print(_("devetka replay: {log} is not UTF-8 text: {error}").format(log=where, error=error), file=sys.stderr)
        return 2
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the reader left (| head): not an error
    except OSError as error:
        print(_("devetka replay: cannot read {log}: {error}").format(log=args.log, error=error.strerror),
              file=sys.stderr)
        return 2
    finally:
        gc.enable()
    return 0


def _score_sheet(result, form: str, words, language: str) -> int:
    """``--score-sheet``: the APA score sheet, or why there is none (exit status 1)."""
    from scoreboard.core.messages import render
    from scoreboard.core.scoresheet import printable, score_sheet

    _ = words.gettext
    if result.match is None:
        print(_("devetka replay: no score sheet: the log has no valid match_start"), file=sys.stderr)
        return 1
    try:
        sheet = score_sheet(result.match)
    except ValueError as error:
        reason = render(error.args[0], words) if error.args else str(error)
        print(_("devetka replay: no score sheet: {error}").format(error=reason), file=sys.stderr)
        return 1
    out = sys.stdout.buffer
    page = printable(sheet, words, language).encode() if form == "html" else None
    out.write(page if page is not None else orjson.dumps(sheet, option=orjson.OPT_APPEND_NEWLINE))
    out.flush()
    return 0


def _write(result, explain: bool, words) -> None:
    """Each line as it is made: joining them first would hold the whole output in memory."""
    out = sys.stdout.buffer
    if explain:
        for text in result.explain(words):
            out.write(text.encode() + b"\n")
    else:
        dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
        for line in result.lines():
            out.write(dumps(line, option=newline))
    out.flush()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="devetka", description=_("A scoreboard that referees nine-ball."))
    loudness = top.add_mutually_exclusive_group()
    loudness.add_argument("-v", "--verbose", action="store_const", const=1, dest="verbosity", default=0,
                          help=_("also the debugging lines (paho's among them)"))
    loudness.add_argument("-q", "--quiet", action="store_const", const=-1, dest="verbosity",
                          help=_("only the errors"))
    commands = top.add_subparsers(dest="command", required=True)
    rp = commands.add_parser("replay", help=_("fold a match log and print what the rules decided"))
    rp.add_argument("log", help=_("a match log (JSON Lines), or - for standard input"))
    rp.add_argument("--explain", action="store_true", help=_("one line per shot with the ruling in words"))
    rp.add_argument("--lang", choices=LANGUAGES, default=environment_language(),
                    help=_("the language of the words (--explain, the messages); the JSON lines are the same in every "
                           "language. Default: the environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else en"))
    rp.add_argument("--score-sheet", choices=("json", "html"), dest="score_sheet",
                    help=_("instead, the APA score sheet of the match (scoring \"apa\"): JSON, or a page to print"))
    from scoreboard.core.rules.state import RULES_VERSION

    rp.add_argument("--rules-version", type=int, choices=range(1, RULES_VERSION + 1), default=RULES_VERSION,
                    dest="rules_version", metavar="N",
                    help=_("referee the log under rules version N (1 to {newest}; default the newest), as a match "
                           "stored under it was: devetka matches shows each match's").format(newest=RULES_VERSION))
    rp.set_defaults(run=_replay)
    from scoreboard.commands import sensors as sensors_cli

    sensors_cli.register(commands)
    from scoreboard.commands import store as store_cli

    store_cli.register(commands)
    from scoreboard.commands import event as event_cli

    event_cli.register(commands)
    from scoreboard.commands import director as director_cli

    director_cli.register(commands)
    from scoreboard.commands import run

    run.register(commands)
    from scoreboard.sim import demo, venue_cli

    demo.register(commands)
    venue_cli.register(commands)
    from scoreboard.commands import ui as ui_command

    ui_command.register(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    speak_environment()
    args = parser().parse_args(argv)
    logs.setup(args.command, args.verbosity)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
