"""``devetka ui``: the touchscreen as its own process (``scoreboard.sim.touchscreen`` starts one beside a demo).

Kivy is imported only when the command runs, so ``devetka --help`` and the
other commands stay quick and quiet.

>>> parse_size("800x480"), parse_size("1920X1080")
((800, 480), (1920, 1080))
"""

from __future__ import annotations

import argparse
import os

from scoreboard.i18n.environment import _

#: Kivy's settings for ``devetka ui``, read when Kivy is first imported: our arguments are not Kivy's; Kivy
#: logs but leaves stderr alone; the clock's wait between frames ends as soon as a state is handed over
#: (the "interrupt" clock), so a change is drawn at the next frame rather than one frame later.
KIVY_ENV = {"KIVY_NO_ARGS": "1", "KIVY_LOG_MODE": "MIXED", "KCFG_KIVY_KIVY_CLOCK": "interrupt",
            "KIVY_CLIPBOARD": "sdl2,dummy"}


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` in pixels, each at least 320x240 (smaller cannot hold the screens)."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(_("expected WIDTHxHEIGHT in pixels, e.g. 800x480, got {text}").format(
            text=repr(text))) from None
    if width < 320 or height < 240:
        raise argparse.ArgumentTypeError(_("the window must be at least 320x240, got {text}").format(text=repr(text)))
    return width, height


def run(args: argparse.Namespace) -> int:
    from scoreboard.commands.run import load_config

    config = load_config(args, "ui")
    if config is None:
        return 2
    socket_path = args.socket or config.api.socket
    for name, value in KIVY_ENV.items():
        os.environ.setdefault(name, value)
    from scoreboard.ui.app import run as run_app

    return run_app(socket_path, config=config, size=args.size, fullscreen=args.fullscreen, note=args.note)


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``ui`` to the ``devetka`` command."""
    from scoreboard.commands.run import config_help, socket_help

    ui = commands.add_parser("ui", help=_("the touchscreen scoreboard (Kivy), a client of the running daemon"),
                             description=_("Show the match on the touchscreen and send the players' taps to "
                                           "the daemon (devetka run) over the local API."))
    ui.add_argument("--config", metavar="FILE", help=config_help())
    ui.add_argument("--socket", metavar="PATH",
                    help=socket_help())
    ui.add_argument("--size", metavar="WxH", type=parse_size, default=(800, 480),
                    help=_("the window size in pixels (default 800x480)"))
    ui.add_argument("--fullscreen", action="store_true", help=_("fill the screen (the Pi's touchscreen, a TV)"))
    ui.add_argument("--note", metavar="TEXT", default="",
                    help=_("a word shown on the live screen under the rack (devetka demo: SIMULATED)"))
    ui.set_defaults(run=run)
