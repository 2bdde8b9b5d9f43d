"""``devetka sensors`` (the installer's wiring check) and ``devetka simulate-mcu``, registered by ``main.py``.

``devetka sensors`` starts each sensor source named on the command line (a
microcontroller on ``--serial PATH``, the GPIO lines with ``--gpio``) or turned on
in the ``--config`` file, gathers what they report in one queue, and shows it: by default a
live view for the person wiring a table (each line as it fires, counts per
pocket, faults, the link), with ``--json`` one match-log JSON line per input
and one ``"type": "health"`` line per report. It runs across unplugs until
SIGINT or SIGTERM, then exits with status 0.

>>> view = WiringView()
>>> from scoreboard.core.inputs import Pocket
>>> view.show(Pocket(None, "foot_left", t=3.25, src="serial"))
'    0.000  serial  pocket   foot_left   ball ?   | pockets HL 0  HR 0  SL 0  SR 0  FL 1  FR 0'
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import queue
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable
from typing import TextIO

import orjson

from scoreboard.core.inputs import POCKETS, Cushion, Pocket, Strike, to_json
from scoreboard.core.messages import msg
from scoreboard.daemon.sources import SourceError, config_sources, gpio_source, opened, serial_source
from scoreboard.i18n.environment import _, said
from scoreboard.sensing.interface import Health, Heard, Report, Source

SHORT = {"head_left": "HL", "head_right": "HR", "side_left": "SL", "side_right": "SR",
         "foot_left": "FL", "foot_right": "FR"}


class WiringView:
    """The installer's live view: one line per input or report, with the counts per pocket after each pocket.

    Times are seconds from the first thing shown. At the end ``summary`` gives
    the counts, the faults still open and each source's last link status.

    >>> view = WiringView()
    >>> from scoreboard.sensing.interface import Health
    >>> view.show(Health("serial", "pocket:side_left", "fault", "stuck active", t=1.0))
    '    0.000  serial  FAULT    pocket:side_left  stuck active'
    >>> view.summary()[-1]
    'open faults: serial pocket:side_left (stuck active)'
    """

    def __init__(self) -> None:
        self.t0: float | None = None
        self.pockets: Counter[str] = Counter()
        self.cushions = 0
        self.strikes = 0
        self.faults: dict[tuple[str, str], str] = {}
        self.links: dict[str, str] = {}

    def _time(self, t: float | None) -> str:
        if t is None:
            return " " * 9
        if self.t0 is None:
            self.t0 = t
        return f"{t - self.t0:9.3f}"

    def counts(self) -> str:
        line = "  ".join(f"{SHORT[name]} {self.pockets[name]}" for name in POCKETS)
        if self.pockets["?"]:
            line += f"  ?? {self.pockets['?']}"
        return _("pockets {counts}").format(counts=line)

    def show(self, report: Report) -> str:
        """The line for one input or report."""
        when = self._time(report.t)
        if type(report) is Health:
            return self._health(report, when)
        src = report.src or "?"
        ball = getattr(report, "ball", None)
        ball = "?" if ball is None else ball
        if type(report) is Pocket:
            self.pockets[report.pocket or "?"] += 1
            return f"{when}  {src:<6}  pocket   {report.pocket or '?':<11} ball {ball}   | {self.counts()}"
        if type(report) is Cushion:
            self.cushions += 1
            return f"{when}  {src:<6}  cushion  rail {report.rail or '?':<10} ball {ball}"
        if type(report) is Strike:
            self.strikes += 1
            return f"{when}  {src:<6}  strike"
        return f"{when}  {src:<6}  {report.TYPE}"

    def _health(self, report: Health, when: str) -> str:
        key = (report.source, report.subject)
        if report.status == "fault":
            self.faults[key] = report.detail
        elif report.status == "ok":
            self.faults.pop(key, None)
        if report.subject == "link" and report.status in ("online", "offline"):
            self.links[report.source] = f"{report.status} ({report.detail})" if report.detail else report.status
        word = {"fault": "FAULT", "ok": "ok", "online": "ONLINE", "offline": "OFFLINE"}.get(report.status,
                                                                                          report.status)
        count = f" [{report.count}]" if report.count is not None else ""
        return f"{when}  {report.source:<6}  {word:<8} {report.subject}{count}  {report.detail}".rstrip()

    def summary(self) -> list[str]:
        """What the view saw in all: counts, the link of each source, faults still open."""
        lines = [self.counts(), _("cushions {cushions}  strikes {strikes}").format(cushions=self.cushions,
                                                                                  strikes=self.strikes)]
        lines += [_("link {source}: {status}").format(source=source, status=status)
                  for source, status in sorted(self.links.items())]
        if self.faults:
            lines.append(_("open faults: {faults}").format(faults="; ".join(
                f"{source} {subject} ({detail})" for (source, subject), detail in sorted(self.faults.items()))))
        else:
            lines.append(_("open faults: none"))
        return lines


def describe(source: Source) -> str:
    """What a source watches, in a few words: ``serial /dev/ttyACM0``, ``gpio pocket:foot_left, strike``."""
    link = getattr(source, "link", None)
    if link is not None:
        return f"serial {link.path}"
    devices = getattr(source, "devices", None)
    if devices is not None:
        return "gpio " + ", ".join(devices)
    return type(source).__name__


def json_line(report: Report) -> bytes:
    """One JSON line: a match-log input, or a ``"type": "health"`` report.

    >>> json_line(Strike(t=1.5, src="serial"))
    b'{"type":"strike","t":1.5,"src":"serial"}'
    """
    return orjson.dumps(report.to_json() if type(report) is Health else to_json(report))


def build_sources(args: argparse.Namespace) -> list[Source]:
    """The sources to watch: those named by ``--serial`` and ``--gpio``, else those the ``--config`` file turns on.

    ``--serial PATH`` needs nothing else; ``--gpio`` takes its pins from the config's ``[sensors.gpio]``.
    """
    config = None
    if args.config is not None:
        from scoreboard.config.table import ConfigError, load

        try:
            config = load(args.config)
        except ConfigError as error:
            raise SourceError(error.message) from None
    serial_ports = list(args.serial or ())
    gpio = args.gpio
    if not serial_ports and not gpio:
        if config is None:
            raise SourceError(msg("name a sensor source: --serial PATH (a microcontroller), --gpio with --config "
                                  "FILE, or --config FILE alone for the sources it turns on"))
        sources = config_sources(config)
        if not sources:
            raise SourceError(msg("{config} turns on no sensor source ([sensors.gpio] or [sensors.serial])",
                                  config=args.config))
        return sources
    if gpio and (config is None or not config.sensors.gpio.lines()):
        raise SourceError(msg("--gpio takes its pins from [sensors.gpio] of a config file: give --config FILE"))
    baud = config.sensors.serial.baud if config is not None else None
    makers: list[Callable[[], Source]] = [functools.partial(serial_source, path, baud) for path in serial_ports]
    if gpio:
        makers.append(functools.partial(gpio_source, config))
    return opened(makers)


def run_sensors(args: argparse.Namespace) -> int:
    """``devetka sensors``: show what the sources report until SIGINT or SIGTERM; 0 then."""
    try:
        sources = build_sources(args)
    except SourceError as error:
        print(f"devetka sensors: {said(error.message)}", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    reports: queue.SimpleQueue[Report] = queue.SimpleQueue()
    out: TextIO = sys.stdout
    view = None if args.json else WiringView()

    def show(report: Report) -> None:
        if type(report) is Heard:
            return  # how far a source has been heard is the settle timer's business, not a sensor's news
        if view is None:
            out.buffer.write(json_line(report) + b"\n")
            out.buffer.flush()
        else:
            out.write(view.show(report) + "\n")
            out.flush()

    try:
        if view is not None:
            watched = "; ".join(describe(source) for source in sources)
            out.write(_("watching {sources} (Ctrl-C stops)").format(sources=watched) + "\n")
            out.flush()
        for source in sources:
            source.start(reports.put)
        while not stop.is_set():
            try:
                report = reports.get(timeout=0.2)
            except queue.Empty:
                continue
            show(report)
    except BrokenPipeError:
        stop.set()
    finally:
        for source in sources:
            source.close()
    try:
        while True:
            show(reports.get_nowait())
    except queue.Empty:
        pass
    except BrokenPipeError:
        pass
    try:
        if view is not None:
            out.write("\n".join([_("--- stopped"), *view.summary()]) + "\n")
        out.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


def run_simulate_mcu(args: argparse.Namespace) -> int:
    from firmware_bridge import simulator

    return simulator.run(args)


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``devetka simulate-mcu`` (here, so that ``devetka replay`` does not import the simulator)."""
    parser.add_argument("--link", required=True, metavar="PATH",
                        help=_("the symlink to create to the pseudo-terminal (the host opens this path)"))
    parser.add_argument("--play", required=True, metavar="LOG",
                        help=_("a match log (JSON Lines), or - for standard input"))
    parser.add_argument("--speed", type=float, default=1.0, metavar="X",
                        help=_("play X times faster than the log's t (default 1; inf: as fast as the host reads)"))
    parser.add_argument("--garbage", type=float, default=0.0, metavar="P",
                        help=_("probability of a burst of random bytes before each frame (default 0)"))
    parser.add_argument("--seed", type=int, default=None, metavar="S", help=_("seed for the garbage and the boot id"))
    parser.add_argument("--trace", action="store_true",
                        help=_('print one JSON line per frame written: {"seq","type","ball","t"} '
                               "(t: time.monotonic())"))
    parser.add_argument("--wait", type=float, default=math.inf, metavar="SECONDS",
                        help=_("give up if no host pings within this time (default: wait for ever)"))
    parser.add_argument("--drain-timeout", type=float, default=30.0, metavar="SECONDS",
                        help=_("how long to wait at the end for the host to read what was written (default 30)"))


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``sensors`` and ``simulate-mcu`` to the ``devetka`` command."""
    sensors = commands.add_parser(
        "sensors", help=_("show what the sensors report, live: the installer's wiring check"),
        description=_("Show each sensor input as it fires, counts per pocket, faults and link status, "
                      "until stopped (Ctrl-C or SIGTERM)."))
    sensors.add_argument("--serial", action="append", metavar="PATH",
                         help=_("a microcontroller on this serial port (e.g. /dev/serial/by-id/...); may be repeated"))
    sensors.add_argument("--gpio", action="store_true",
                         help=_("the sensors wired to the Pi's GPIO header (pins from --config)"))
    sensors.add_argument("--config", metavar="FILE",
                         help=_("the table's TOML config: the GPIO pins, the serial port; with no --serial or --gpio, "
                                "the sources it turns on"))
    sensors.add_argument("--json", action="store_true",
                         help=_("one match-log JSON line per input, and health as lines of type health"))
    sensors.set_defaults(run=run_sensors)
    simulate = commands.add_parser(
        "simulate-mcu", help=_("a fake pocket-sensor microcontroller on a pseudo-terminal, playing a match log"),
        description=_("Create a pseudo-terminal reachable at --link, wait for a host to ping, play the strike, "
                      "cushion and pocket inputs of a match log as frames, and exit once the host has read them."))
    add_simulate_arguments(simulate)
    simulate.set_defaults(run=run_simulate_mcu)
