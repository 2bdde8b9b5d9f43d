"""``devetka venue-demo``'s command line: a venue of simulated tables (``venue_demo``), or with ``--event`` a whole
event run by the director across them (``venue_event``); the one module that knows both."""

from __future__ import annotations

import argparse
import sys

from scoreboard.i18n.environment import _
from scoreboard.sim.venue_demo import ENGINES, VenueOptions, run_venue
from scoreboard.sim.venue_event import EventOptions, run_event


def run(args: argparse.Namespace) -> int:
    if args.event is not None:
        return run_event(EventOptions(args.event, args.players, args.tables, args.racks, args.speed, args.store_dir,
                                      args.engine), lambda line: print(line, flush=True))
    if args.tables < 1 or args.tables > 50:
        print(_("devetka venue-demo: --tables must be from 1 to 50"), file=sys.stderr)
        return 2
    if args.racks < 1:
        print(_("devetka venue-demo: --racks must be at least 1"), file=sys.stderr)
        return 2
    if not args.speed > 0:
        print(_("devetka venue-demo: --speed must be above 0"), file=sys.stderr)
        return 2

    def out(line: str) -> None:
        print(line, flush=True)

    return run_venue(VenueOptions(tables=args.tables, racks=args.racks, speed=args.speed, store_dir=args.store_dir,
                                  headless=args.headless, engine=args.engine), out)


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``venue-demo`` to the ``devetka`` command."""
    vd = commands.add_parser("venue-demo",
                             help=_("a venue on this machine: a venue broker, simulated tables, the board"),
                             description=_("A venue broker, N simulated tables (each the real daemon with its own "
                                           "Mosquitto bridged to the venue) and the board, on this machine."))
    vd.add_argument("--tables", type=int, default=4, metavar="N", help=_("how many tables (default 4, at most 50)"))
    vd.add_argument("--racks", type=int, default=1, metavar="R", help=_("racks each table plays (default 1)"))
    vd.add_argument("--speed", type=float, default=10.0, metavar="X", help=_("time runs X times faster (default 10)"))
    vd.add_argument("--store-dir", metavar="DIR", help=_("keep table ID's store at DIR/ID.sqlite3"))
    vd.add_argument("--headless", action="store_true", help=_("no browser on the board, even with a display"))
    vd.add_argument("--engine", choices=sorted(ENGINES), default="mosquitto",
                    help=_("the venue's broker: one Mosquitto (default), or a cluster of three NATS nodes"))
    vd.add_argument("--event", metavar="FORMAT", help=_("run a whole event with the director: single, double, "
                                                        "round-robin or apa-team (docs/events.md)"))
    vd.add_argument("--players", type=int, default=8, metavar="N", help=_("the event's players (default 8)"))
    vd.set_defaults(run=run)
