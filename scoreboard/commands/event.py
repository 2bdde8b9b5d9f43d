"""``devetka event``: create an event from its file, draw it, put up APA players, record results, correct and move
matches, show it and export it (docs/events.md).

Each is a request to the director over its socket (the director is the store's one writer); with ``--store``,
when no director runs, the same request is answered in this process by the same code (``Director.handle``).
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

#: Where the director keeps its store and listens on the venue box (docs/events.md).
DEFAULT_STORE = "/var/lib/devetka/director.sqlite3"
DEFAULT_SOCKET = "/run/devetka/director.sock"


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


def _ask(args: argparse.Namespace, request: dict[str, Any], write: bool = True) -> dict[str, Any]:
    """The request's answer: from the running director (``--socket``, the default), or from the store itself
    (``--store``, with no director running: the same code path, ``Director.handle``, in this process)."""
    if args.event is not None:
        request = {**request, "event": args.event}
    if args.store is None:
        from scoreboard.director.server import ask

        socket_path = args.socket or DEFAULT_SOCKET
        try:
            return ask(socket_path, request)
        except OSError as error:
            from scoreboard.core.messages import msg
            from scoreboard.director.service import refusal

            return refusal(msg("no director answers on {path} ({error}): start it (devetka director), or give "
                               "--store FILE when none runs", path=socket_path, error=str(error)))
    from scoreboard.director.service import Director, refusal
    from scoreboard.event.store import EventStore, EventStoreError

    try:
        store = EventStore.open(args.store, now=_now) if write else EventStore.open_readonly(args.store)
    except EventStoreError as error:
        return refusal(error.message)
    director = Director(store, seed=lambda: secrets.randbelow(2**31))
    try:
        return director.handle(request)
    finally:
        director.close()


def _run(args: argparse.Namespace, request: dict[str, Any], show: Callable[[dict[str, Any]], list[str]],
         write: bool = True) -> int:
    from scoreboard.core.messages import from_json

    answer = _ask(args, request, write)
    if not answer.get("ok"):
        print(f"devetka event {args.action}: {said(from_json(answer.get('message', answer.get('error'))))}",
              file=sys.stderr)
        return 1
    try:
        sys.stdout.write("".join(line + "\n" for line in show(answer)))
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

    def show(answer: dict[str, Any]) -> list[str]:
        state = answer["state"]
        return [_("event {id} created: {name}, {matches} matches").format(
            id=answer["event"], name=state["name"], matches=state["planned"])]
    return _run(args, {"cmd": "new", "spec": raw}, show)


def run_draw(args: argparse.Namespace) -> int:
    def show(answer: dict[str, Any]) -> list[str]:
        state = answer["state"]
        lines = [_("seed {seed}").format(seed=state["seed"])] if state["seed"] is not None else []
        return lines + [f"{n}. {name}" for n, name in enumerate(state["order"], start=1)]
    return _run(args, {"cmd": "draw", "seed": args.seed}, show)


def run_put_up(args: argparse.Namespace) -> int:
    return _run(args, {"cmd": "put_up", "team": args.team, "player": args.player},
                lambda answer: _status_lines(answer["state"]))


def run_result(args: argparse.Namespace) -> int:
    def show(answer: dict[str, Any]) -> list[str]:
        state = answer["state"]
        lines = [] if answer["counted"] else [_("{match}: this result is counted already").format(match=args.match)]
        lines.extend(_match_line(m) for m in state["matches"] if m["match"] == args.match)
        if state["winner"] is not None:
            lines.append(_("winner: {name}").format(name=state["winner"]))
        return lines
    if (args.table_store is None) != (args.match_id is None):
        print(_("devetka event result: --table-store and --match-id come together"), file=sys.stderr)
        return 2
    return _run(args, {"cmd": "result", "match": args.match, "score": list(args.score), "reason": args.reason,
                       "store": args.table_store, "match_id": args.match_id}, show)


def run_move(args: argparse.Namespace) -> int:
    return _run(args, {"cmd": "move", "match": args.match, "table": args.table},
                lambda answer: [_match_line(m) for m in answer["state"]["matches"] if m["match"] == args.match])


def run_status(args: argparse.Namespace) -> int:
    def show(answer: dict[str, Any]) -> list[str]:
        if args.json:
            return [orjson.dumps(answer["state"]).decode()]
        return _status_lines(answer["state"])
    return _run(args, {"cmd": "status"}, show, write=False)


def run_export(args: argparse.Namespace) -> int:
    return _run(args, {"cmd": "export", "csv": args.csv}, lambda answer: answer["lines"], write=False)


def _status(match: dict[str, Any]) -> str:
    return {"waiting": _("waiting for its players"), "ready": _("ready"), "called": _("called"),
            "playing": _("playing"), "done": _("played"), "bye": _("a bye")}[match["status"]]


def _match_line(match: dict[str, Any]) -> str:
    """One match in words: id, players, race or skill levels, where, and its result."""
    a, b = (name if name is not None else "?" for name in match["players"])
    parts = [f"{match['match']:<6}", f"{a} - {b}"]
    if match["race"] is not None:
        parts.append(_("race {r0}-{r1}").format(r0=match["race"][0], r1=match["race"][1]))
    if match.get("skills") is not None:
        parts.append(_("skill levels {s0}/{s1}").format(s0=match["skills"][0], s1=match["skills"][1]))
    if match["table"] is not None:
        parts.append(_("table {table}").format(table=match["table"]))
    if match["score"] is not None and match["winner"] is not None:
        parts.append(_("{s0}-{s1}, {name} wins").format(s0=match["score"][0], s1=match["score"][1],
                                                        name=match["winner"]))
        if match.get("match_points") is not None:
            parts.append(_("match points {p0}-{p1}").format(p0=match["match_points"][0],
                                                            p1=match["match_points"][1]))
    else:
        parts.append(_status(match))
    return "  ".join(parts)


def _status_lines(state: dict[str, Any]) -> list[str]:
    lines = [f"{state['name']} ({state['format']})"]
    if not state["drawn"]:
        lines.append(_("not drawn yet: devetka event draw"))
    lines.extend(_match_line(match) for match in state["matches"])
    for group, rows in state.get("groups", {}).items():
        lines.append(_("group {group}").format(group=group))
        for place, row in enumerate(rows, start=1):
            lines.append(_("  {place}. {name}: won {won} of {played}, racks {won_racks}-{lost_racks}").format(
                place=place, name=row["player"], won=row["won"], played=row["played"], won_racks=row["racks_won"],
                lost_racks=row["racks_lost"]))
    if "totals" in state:
        lines.append(_("team points: {team0} {p0}, {team1} {p1}").format(
            team0=state["teams"][0], p0=state["totals"][0], team1=state["teams"][1], p1=state["totals"][1]))
    if state["winner"] is not None:
        lines.append(_("winner: {name}").format(name=state["winner"]))
    return lines


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``event`` and its actions to the ``devetka`` command."""
    where = argparse.ArgumentParser(add_help=False)
    way = where.add_mutually_exclusive_group()
    way.add_argument("--socket", metavar="PATH",
                     help=_("the director's socket (default: {path})").format(path=DEFAULT_SOCKET))
    way.add_argument("--store", metavar="FILE",
                     help=_("the event store itself, when no director runs (SQLite file, e.g. {path})").format(
                         path=DEFAULT_STORE))
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
