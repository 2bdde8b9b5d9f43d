"""``devetka run`` (the rules daemon) and ``devetka tap`` (one request to it), and the config both read."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tomllib
from dataclasses import replace

import orjson

from scoreboard.adapters.local_api.client import request_once
from scoreboard.config.table import ApiConfig, Config, ConfigError, load
from scoreboard.i18n.environment import _, said
from scoreboard.referee.settings import Overrides, path_beside

DEFAULT_CONFIG = "/etc/devetka/table.toml"
DEFAULT_SOCKET = ApiConfig().socket

log = logging.getLogger("devetka.run")


def config_help() -> str:
    """``--config``'s help, for every command that reads the table's config."""
    return _("the table's config (default {path} if it exists)").format(path=DEFAULT_CONFIG)


def socket_help() -> str:
    """``--socket``'s help, for every client of the running daemon."""
    return _("the local API's Unix socket (default: the config's [api] socket, {path})").format(path=DEFAULT_SOCKET)


def config_path(args: argparse.Namespace) -> str | None:
    return args.config or (DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None)


def load_config(args: argparse.Namespace, command: str) -> Config | None:
    """The config the command runs with: ``--config``, else the Pi's file where it exists, else the defaults.

    Returns the config, or None after saying on stderr what is wrong with it.
    """
    path = config_path(args)
    if path is None:
        return Config()
    try:
        return load(path)
    except ConfigError as error:
        print(f"devetka {command}: {said(error.message)}", file=sys.stderr)
        return None


def with_overrides(args: argparse.Namespace, config: Config) -> tuple[Config, Overrides]:
    """The config with the screen's settings (``settings.json`` beside the store) over it, and those settings.

    A broken settings file is named on stderr and left out: the table starts on its config file alone.
    """
    path = config_path(args)
    base = {}
    if path is not None:
        with open(path, "rb") as file:
            base = tomllib.load(file)
    overrides, problem = Overrides.open(path_beside(args.store or config.store.path), base)
    if problem is not None:
        log.warning("%s; starting on the config file alone", problem)
        return config, overrides
    return overrides.effective(), overrides


def run(args: argparse.Namespace) -> int:
    """``devetka run``: the daemon until SIGTERM or SIGINT (then exit 0, the socket removed)."""
    config = load_config(args, "run")
    if config is None:
        return 2
    config, overrides = with_overrides(args, config)
    from scoreboard.daemon.serve import RESTART, serve
    from scoreboard.daemon.sources import SourceError, config_sources

    try:
        sources = config_sources(config)
    except SourceError as error:
        print(f"devetka run: {said(error.message)}", file=sys.stderr)
        return 2
    config = replace(config, store=replace(config.store, path=args.store or config.store.path),
                     api=replace(config.api, socket=args.socket or config.api.socket))
    status = asyncio.run(serve(config, sources, overrides=overrides, restartable=True))
    if status == RESTART:  # the settings screen's Restart: the same command again, in this process (systemd's pid)
        log.info("restarting, as the touchscreen asked")
        os.execv(sys.executable, sys.orig_argv)
    return status


def tap(args: argparse.Namespace) -> int:
    """``devetka tap``: exit 0 when the daemon accepted it, 1 when it refused it, 2 when it cannot be reached."""
    try:
        request = orjson.loads(args.request)
    except orjson.JSONDecodeError as error:
        print(_("devetka tap: not valid JSON: {error}").format(error=error), file=sys.stderr)
        return 2
    if args.socket is None:
        config = load_config(args, "tap")
        if config is None:
            return 2
        args.socket = config.api.socket
    try:
        answer = request_once(args.socket, dict(request, id=request.get("id", "tap")) if isinstance(request, dict)
                              else request)
    except OSError as error:
        print(_("devetka tap: cannot reach the daemon on {socket}: {error}").format(
            socket=args.socket, error=error.strerror or error), file=sys.stderr)
        return 2
    sys.stdout.buffer.write(orjson.dumps(answer, option=orjson.OPT_APPEND_NEWLINE))
    sys.stdout.flush()
    return 0 if answer.get("ok") else 1


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``run`` and ``tap`` to the ``devetka`` command."""
    rn = commands.add_parser("run", help=_("run the rules daemon: the store and the local API"),
                             description=_("Referee live: keep the store, serve the local API until SIGTERM."))
    rn.add_argument("--config", metavar="FILE", help=config_help())
    rn.add_argument("--store", metavar="FILE", help=_("the store (SQLite file); default: the config's [store] path"))
    rn.add_argument("--socket", metavar="PATH",
                    help=_("the local API's Unix socket; default: the config's [api] socket"))
    rn.set_defaults(run=run)
    tp = commands.add_parser("tap", help=_("send one input or command to the running daemon"),
                             description=_("Send one JSON input or command; print the answer. Exit 0 if "
                                           "accepted, 1 if refused, 2 if the daemon cannot be reached."))
    tp.add_argument("--config", metavar="FILE", help=config_help())
    tp.add_argument("--socket", metavar="PATH",
                    help=socket_help())
    tp.add_argument("request", metavar="JSON", help=_('an input or command, e.g. \'{"type": "strike"}\''))
    tp.set_defaults(run=tap)
