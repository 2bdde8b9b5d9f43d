"""``devetka director``: the venue box's daemon that keeps the night's events (docs/events.md, "The director")."""

from __future__ import annotations

import argparse
import asyncio
import sys

from scoreboard.i18n.environment import _


def run(args: argparse.Namespace) -> int:
    from scoreboard.director.serve import serve
    from scoreboard.director.server import DirectorApiError
    from scoreboard.event.store import EventStoreError
    from scoreboard.i18n.environment import said

    password = None
    if args.mqtt_password_file is not None:
        try:
            with open(args.mqtt_password_file, encoding="utf-8") as stream:
                password = stream.read().strip()
        except OSError as error:
            print(_("devetka director: cannot read {file}: {error}").format(file=args.mqtt_password_file,
                                                                            error=error.strerror), file=sys.stderr)
            return 2
    try:
        asyncio.run(serve(args.store, args.socket, args.mqtt_host, args.mqtt_port, args.mqtt_user, password,
                          args.answer_within, args.start_on_strike,
                          **({} if args.heartbeat is None else {"heartbeat_s": args.heartbeat})))
    except EventStoreError as error:
        print(f"devetka director: {said(error.message)}", file=sys.stderr)
        return 1
    except DirectorApiError as error:
        print(f"devetka director: {error}", file=sys.stderr)
        return 1
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    from scoreboard.commands.event import DEFAULT_SOCKET, DEFAULT_STORE

    director = commands.add_parser("director", help=_("the venue box's daemon that keeps the night's events"),
                                   description=_("Keep the events' store (its only writer), answer devetka event on "
                                                 "a Unix socket and publish each event on the venue broker."))
    director.add_argument("--store", default=DEFAULT_STORE, metavar="FILE",
                          help=_("the event store (SQLite file; default: {path})").format(path=DEFAULT_STORE))
    director.add_argument("--socket", default=DEFAULT_SOCKET, metavar="PATH",
                          help=_("the director's socket (default: {path})").format(path=DEFAULT_SOCKET))
    director.add_argument("--mqtt-host", metavar="HOST", help=_("the venue broker (default: none)"))
    director.add_argument("--mqtt-port", type=int, default=1883, metavar="PORT", help=_("its port (default: 1883)"))
    director.add_argument("--mqtt-user", metavar="NAME", help=_("the director's login on the venue broker"))
    director.add_argument("--mqtt-password-file", metavar="FILE",
                          help=_("a file holding its password (never on the command line, where ps shows it)"))
    director.add_argument("--answer-within", type=float, metavar="SECONDS",
                          help=_("how long a called table has to answer before the match is called elsewhere "
                                 "(default: {seconds})").format(seconds=60))
    director.add_argument("--start-on-strike", action="store_true",
                          help=_("the break's strike at a called table begins the called match, as Start does"))
    director.add_argument("--heartbeat", type=_seconds, metavar="SECONDS",
                          help=_("how often the director tells the venue it is alive; the board takes it as "
                                 "offline after three missed (default: {seconds})").format(seconds=10))
    director.set_defaults(run=run)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError(_("{value} is not a number of seconds from 0.1 to 3600").format(value=text))
    return value
