"""``devetka export`` and ``devetka matches``: read the store, never write it.

Both open the store read-only, so they can run beside the daemon (WAL lets a
reader see the last commit while the daemon writes) and never move a file or
create one. ``export`` writes a match as the match log ``devetka replay``
reads; ``matches`` lists every stored match, one JSON line each.

>>> import tempfile
>>> from scoreboard.core.inputs import MatchStart
>>> from scoreboard.referee.store import Store
>>> path = tempfile.mkdtemp() + "/devetka.db"
>>> with Store.open(path, now=lambda: "2026-11-29T20:00:00+00:00") as store:
...     _ = store.start_match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> export_lines(path, None)
['{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}']
"""

from __future__ import annotations

import argparse
import os
import sys

import orjson

from scoreboard.i18n.environment import _, said


def export_lines(path: str, match_id: int | None) -> list[str]:
    """The match's log as JSON lines, ``match_start`` first; the latest match when ``match_id`` is None."""
    from scoreboard.core.inputs import to_json
    from scoreboard.referee.store import Store, StoreError

    with Store.open_readonly(path) as store:
        if match_id is None:
            current = store.current_match()
            if current is None:
                raise StoreError(f"the store {path} holds no match yet")
            log = current[1]
        else:
            log = store.log(match_id)
    return [orjson.dumps(to_json(item)).decode() for item in log]


def matches_lines(path: str) -> list[str]:
    """One JSON line per stored match, oldest first (none for a store with no match)."""
    from scoreboard.referee.store import Store

    with Store.open_readonly(path) as store:
        return [orjson.dumps(summary.to_json()).decode() for summary in store.matches()]


def csv_text(path: str) -> list[str]:
    """``devetka matches --csv``: a header and one row per stored match (results.COLUMNS), oldest first."""
    import csv
    import io

    from scoreboard.core.results import COLUMNS, csv_row
    from scoreboard.referee.results import stored_result
    from scoreboard.referee.store import Store

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    with Store.open_readonly(path) as store:
        for summary in store.matches():
            if summary.error is not None:
                continue  # a match whose log no longer folds has no result to give; matches (JSON) names it
            writer.writerow(csv_row(summary.id, stored_result(store, summary)))
    return out.getvalue().splitlines()


def result_lines(path: str, match_id: int | None) -> list[str]:
    """``devetka export --result``: one match's result as one JSON object (the latest match by default)."""
    from scoreboard.referee.results import result_text
    from scoreboard.referee.store import Store

    with Store.open_readonly(path) as store:
        return [result_text(store, match_id)]


def stats_lines(path: str, player: str | None, since: str | None, aliases: dict[str, str]) -> list[str]:
    """``devetka stats``: one JSON line per player over the stored matches (since ``since``, an ISO date)."""
    from scoreboard.core.match import Match
    from scoreboard.core.stats import player_figures
    from scoreboard.referee.store import Store

    def named(name: str) -> str:
        name = " ".join(name.split())
        return aliases.get(name, name)

    played = []
    with Store.open_readonly(path) as store:
        for summary in store.matches():
            if summary.error is not None or (since is not None and summary.started[:10] < since):
                continue
            match = Match.resume(store.log(summary.id), store.rules_version(summary.id))
            verdicts = [line.verdict for line in match.shot_lines()]
            players = (named(summary.players[0]), named(summary.players[1]))
            played.append((players, match.closed().state.table.match_winner, verdicts))
    figures = player_figures(played)
    chosen = sorted(figures) if player is None else [named(player)]
    return [orjson.dumps({"player": name, **figures.get(name, {})}).decode() for name in chosen]


def _alias(text: str) -> tuple[str, str]:
    wrong, equals, right = text.partition("=")
    if not equals or not wrong.strip() or not right.strip():
        raise argparse.ArgumentTypeError(_("--alias takes MISSPELT=NAME, e.g. 'Ana K=Ana Kovač', not {text}").format(
            text=repr(text)))
    return " ".join(wrong.split()), " ".join(right.split())


def _date(text: str) -> str:
    import datetime

    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(_("--since takes a date as YYYY-MM-DD, not {text}").format(
            text=repr(text))) from None


def run_stats(args: argparse.Namespace) -> int:
    return _print("stats", lambda: stats_lines(args.store, args.player, args.since, dict(args.alias or ())))


def _print(name: str, make) -> int:
    from scoreboard.referee.store import StoreError  # here, not at the top: devetka replay need not load sqlite3

    try:
        lines = make()
    except StoreError as error:
        print(f"devetka {name}: {said(error.message)}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the reader left (| head): not an error
    return 0


def run_export(args: argparse.Namespace) -> int:
    if args.result:
        return _print("export", lambda: result_lines(args.store, args.match))
    return _print("export", lambda: export_lines(args.store, args.match))


def run_matches(args: argparse.Namespace) -> int:
    if args.csv:
        return _print("matches", lambda: csv_text(args.store))
    return _print("matches", lambda: matches_lines(args.store))


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``export`` and ``matches`` to the ``devetka`` command."""
    export = commands.add_parser(
        "export", help=_("print a stored match as a match log that devetka replay reads"),
        description=_("Print a match from the store as JSON Lines, match_start first (default: the latest match)."))
    export.add_argument("--store", required=True, metavar="FILE", help=_("the daemon's store (SQLite file)"))
    export.add_argument("--match", type=int, metavar="ID", help=_("the match id (see devetka matches)"))
    export.add_argument("--result", action="store_true",
                        help=_("the match's result as one JSON object (docs/league.md) instead of its log"))
    export.set_defaults(run=run_export)
    listing = commands.add_parser(
        "matches", help=_("list the stored matches, one JSON line each"),
        description=_("One JSON line per stored match: id, started, players, race, score, winner (null while "
                      "unfinished)."))
    listing.add_argument("--store", required=True, metavar="FILE", help=_("the daemon's store (SQLite file)"))
    listing.add_argument("--csv", action="store_true", help=_("one CSV row per match, a header first (docs/league.md)"))
    listing.set_defaults(run=run_matches)
    stats = commands.add_parser(
        "stats", help=_("each player's figures across the stored matches, one JSON line each"),
        description=_("Matches and racks played and won, break-and-run rate, balls per inning, fouls per rack and "
                      "nines on the break of each player (docs/league.md). Names are matched as stored, spaces "
                      "collapsed; --alias merges a misspelt one."))
    stats.add_argument("--store", required=True, metavar="FILE", help=_("the daemon's store (SQLite file)"))
    stats.add_argument("--player", metavar="NAME", help=_("only this player"))
    stats.add_argument("--since", type=_date, metavar="YYYY-MM-DD", help=_("only matches begun on or after this day"))
    stats.add_argument("--alias", type=_alias, action="append", metavar="MISSPELT=NAME",
                       help=_("count MISSPELT as NAME (repeatable)"))
    stats.set_defaults(run=run_stats)
