"""``devetka event``: create an event from its file, draw it, put up APA players, record results, correct and move
matches, show it and export it (docs/events.md). Each change is one record taken by the event store.

Until the director (the venue box's daemon) serves the event, these write the store themselves; every record
is folded and committed inside one SQLite write transaction (``EventStore.take``), so two at once are safe.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tomllib
from collections.abc import Callable
from typing import Any

import orjson

from scoreboard.i18n.environment import _, said

#: Where the director keeps its store on the venue box (docs/events.md).
DEFAULT_STORE = "/var/lib/devetka/director.sqlite3"


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _score(text: str) -> tuple[int, int]:
    """A score typed as ``7-5`` (or ``7:5``, as Croatian writes it)."""
    for separator in ("-", ":"):
        left, found, right = text.partition(separator)
        if found and left.strip().isdigit() and right.strip().isdigit():
            return int(left), int(right)
    raise argparse.ArgumentTypeError(_("a score is written as 7-5 (or 7:5), not {text}").format(text=repr(text)))


def _open(args: argparse.Namespace, write: bool):
    from scoreboard.event.store import EventStore

    if write:
        return EventStore.open(args.store, now=_now)
    return EventStore.open_readonly(args.store)


def _event_id(store, args: argparse.Namespace) -> int:
    from scoreboard.core.messages import msg
    from scoreboard.event.store import EventStoreError

    if args.event is not None:
        return int(args.event)
    latest = store.latest()
    if latest is None:
        raise EventStoreError(msg("no event in the store {path} yet: devetka event new FILE", path=str(args.store)))
    return int(latest)


def _run(args: argparse.Namespace, act: Callable[[Any], list[str]], write: bool = True) -> int:
    from scoreboard.core.checks import ConfigError
    from scoreboard.event.core.records import EventError
    from scoreboard.event.store import EventStoreError

    try:
        with _open(args, write) as store:
            lines = act(store)
    except (EventError, EventStoreError, ConfigError) as error:
        print(f"devetka event {args.action}: {said(error.message)}", file=sys.stderr)
        return 1
    try:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def run_new(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as stream:
            raw = tomllib.load(stream)
    except OSError as error:
        print(_("devetka event new: cannot read {file}: {error}").format(file=args.file, error=error.strerror),
              file=sys.stderr)
        return 2
    except tomllib.TOMLDecodeError as error:
        print(_("devetka event new: {file} is not TOML: {error}").format(file=args.file, error=error),
              file=sys.stderr)
        return 2

    def act(store) -> list[str]:
        from scoreboard.core.checks import ConfigError
        from scoreboard.core.messages import msg
        from scoreboard.event.core.records import EventError

        try:
            event_id = store.create(raw)
        except EventError as error:
            raise ConfigError("", msg("{file}: {problem}", file=args.file, problem=error.message)) from None
        event = store.event(event_id)
        return [_("event {id} created: {name}, {matches} matches").format(
            id=event_id, name=event.spec.name, matches=len(event.plans))]
    return _run(args, act)


def run_draw(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        from scoreboard.event.core.fold import drawn_order
        from scoreboard.event.core.records import Draw

        event_id = _event_id(store, args)
        spec = store.event(event_id).spec
        if spec.seeding == "drawn":
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            record = Draw(drawn_order(spec.players, seed), seed)
        else:
            record = Draw(spec.players)
        store.take(event_id, record)
        lines = [_("seed {seed}").format(seed=record.seed)] if record.seed is not None else []
        return lines + [f"{n}. {name}" for n, name in enumerate(record.order, start=1)]
    return _run(args, act)


def run_put_up(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        from scoreboard.core.messages import msg
        from scoreboard.event.core.records import EventError, PutUpRecord

        event_id = _event_id(store, args)
        teams = [t.name for t in store.event(event_id).spec.teams]
        if args.team not in teams:
            raise EventError(msg("no team {team} tonight (the teams: {teams})", team=args.team,
                                 teams=", ".join(teams)))
        store.take(event_id, PutUpRecord(teams.index(args.team), args.player))
        event = store.event(event_id)
        return _status_lines(event)
    return _run(args, act)


def run_result(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        from scoreboard.event.core.records import Corrected, Result

        event_id = _event_id(store, args)
        view = store.event(event_id).match(args.match)
        if args.reason is not None and view is not None and view.score is not None:
            record: Any = Corrected(args.match, args.score, args.reason)
        else:
            record = Result(args.match, args.score, args.table_store, args.match_id)
        counted = store.take(event_id, record)
        event = store.event(event_id)
        lines = [] if counted else [_("{match}: this result is counted already").format(match=args.match)]
        lines.append(_match_line(event.match(args.match)))
        if event.champion() is not None:
            lines.append(_("winner: {name}").format(name=event.champion()))
        return lines
    if (args.table_store is None) != (args.match_id is None):
        print(_("devetka event result: --table-store and --match-id come together"), file=sys.stderr)
        return 2
    return _run(args, act)


def run_move(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        from scoreboard.event.core.records import Called, Moved

        event_id = _event_id(store, args)
        view = store.event(event_id).match(args.match)
        record: Any = Moved(args.match, args.table) if view is not None and view.table else Called(args.match,
                                                                                                    args.table)
        store.take(event_id, record)
        return [_match_line(store.event(event_id).match(args.match))]
    return _run(args, act)


def run_status(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        event = store.event(_event_id(store, args))
        if args.json:
            return [orjson.dumps(event.to_json()).decode()]
        return _status_lines(event)
    return _run(args, act, write=False)


def run_export(args: argparse.Namespace) -> int:
    def act(store) -> list[str]:
        from scoreboard.event.export import csv_lines, json_lines

        event = store.event(_event_id(store, args))
        return csv_lines(event) if args.csv else json_lines(event)
    return _run(args, act, write=False)


def _status(view) -> str:
    return {"waiting": _("waiting for its players"), "ready": _("ready"), "called": _("called"),
            "playing": _("playing"), "done": _("played"), "bye": _("a bye")}[view.status]


def _match_line(view) -> str:
    """One match in words: id, round, players, race or skill levels, where, and its result."""
    a, b = (name if name is not None else "?" for name in view.players)
    parts = [f"{view.id:<6}", f"{a} - {b}"]
    if view.race is not None:
        parts.append(_("race {r0}-{r1}").format(r0=view.race[0], r1=view.race[1]))
    if view.skills is not None:
        parts.append(_("skill levels {s0}/{s1}").format(s0=view.skills[0], s1=view.skills[1]))
    if view.table is not None:
        parts.append(_("table {table}").format(table=view.table))
    if view.score is not None and view.winner is not None:
        parts.append(_("{s0}-{s1}, {name} wins").format(s0=view.score[0], s1=view.score[1],
                                                        name=view.players[view.winner]))
        if view.match_points is not None:
            parts.append(_("match points {p0}-{p1}").format(p0=view.match_points[0], p1=view.match_points[1]))
    else:
        parts.append(_status(view))
    return "  ".join(parts)


def _status_lines(event) -> list[str]:
    from scoreboard.event.core.spec import GROUP_NAMES

    spec = event.spec
    lines = [f"{spec.name} ({spec.format})"]
    if event.order is None:
        lines.append(_("not drawn yet: devetka event draw"))
    lines.extend(_match_line(view) for view in event.matches())
    if spec.format == "round_robin" and event.order:
        for g in range(spec.groups):
            group = GROUP_NAMES[g]
            lines.append(_("group {group}").format(group=group))
            for place, row in enumerate(event.standings(group), start=1):
                lines.append(_("  {place}. {name}: won {won} of {played}, racks {won_racks}-{lost_racks}").format(
                    place=place, name=row.name, won=row.won, played=row.played, won_racks=row.racks_won,
                    lost_racks=row.racks_lost))
    if spec.format == "apa_team":
        totals = event.team_totals()
        lines.append(_("team points: {team0} {p0}, {team1} {p1}").format(
            team0=spec.teams[0].name, p0=totals[0], team1=spec.teams[1].name, p1=totals[1]))
    champion = event.champion()
    if champion is not None:
        lines.append(_("winner: {name}").format(name=champion))
    return lines


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``event`` and its actions to the ``devetka`` command."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--store", default=DEFAULT_STORE, metavar="FILE",
                       help=_("the event store (SQLite file; default: {path})").format(path=DEFAULT_STORE))
    where.add_argument("--event", type=int, metavar="ID", help=_("the event's id (default: the latest)"))
    event = commands.add_parser("event", help=_("run a night's event: bracket, groups or an APA team night"),
                                description=_("Create an event from its file, draw it, record results and export "
                                              "them (docs/events.md)."))
    actions = event.add_subparsers(dest="action", required=True)
    new = actions.add_parser("new", parents=[where], help=_("create an event from its file (TOML)"))
    new.add_argument("file", metavar="FILE", help=_("the event file (docs/events.md)"))
    new.set_defaults(run=run_new)
    draw = actions.add_parser("draw", parents=[where], help=_("draw the event: the seeds in order, or shuffled"))
    draw.add_argument("--seed", type=int, metavar="N", help=_("the seed of a drawn seeding (default: a random one; "
                                                              "it is recorded either way)"))
    draw.set_defaults(run=run_draw)
    put_up = actions.add_parser("put-up", parents=[where], help=_("an APA captain puts up a player"))
    put_up.add_argument("team", metavar="TEAM", help=_("the team's name"))
    put_up.add_argument("player", metavar="PLAYER", help=_("the player's name"))
    put_up.set_defaults(run=run_put_up)
    result = actions.add_parser("result", parents=[where], help=_("record a match's result, or correct it"))
    result.add_argument("match", metavar="MATCH", help=_("the match's id (W1-1, L2-1, GF-1, A1-2, K1-1, APA-3)"))
    result.add_argument("score", metavar="SCORE", type=_score,
                        help=_("racks won by each player (APA: points), e.g. 7-5"))
    result.add_argument("--reason", metavar="TEXT", help=_("why a recorded result is corrected (required then)"))
    result.add_argument("--table-store", metavar="ID", help=_("the table store's id the result was played in"))
    result.add_argument("--match-id", type=int, metavar="N", help=_("the match's id in that table's store"))
    result.set_defaults(run=run_result)
    move = actions.add_parser("move", parents=[where], help=_("call a match to a table, or move it to another"))
    move.add_argument("match", metavar="MATCH", help=_("the match's id"))
    move.add_argument("table", metavar="TABLE", help=_("the table's id"))
    move.set_defaults(run=run_move)
    status = actions.add_parser("status", aliases=["show"], parents=[where], help=_("show the event as it stands"))
    status.add_argument("--json", action="store_true", help=_("the event as one JSON object"))
    status.set_defaults(run=run_status)
    export = actions.add_parser("export", parents=[where], help=_("one row or JSON line per match"))
    form = export.add_mutually_exclusive_group(required=True)
    form.add_argument("--csv", action="store_true", help=_("CSV, a header first"))
    form.add_argument("--json", action="store_true", help=_("JSON Lines"))
    export.set_defaults(run=run_export)
