"""``devetka director``'s wiring: the event store, the director, its socket and its link to the venue broker.

The director is the only writer of its store; a systemd unit runs it on the venue box (deploy/).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import secrets
import signal
import time

from scoreboard.director.calls import Caller
from scoreboard.director.mqtt import HEARTBEAT_S, DirectorLink
from scoreboard.director.server import DirectorServer
from scoreboard.director.service import Director
from scoreboard.event.store import EventStore

log = logging.getLogger("devetka.director")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


#: How often the director looks for calls to make and calls run out.
TICK_S = 0.5
#: An offered call whose table is unreachable is kept this many heartbeats: the table holds its Start after three
#: missed (scoreboard.referee.calls.HEARTBEATS_MISSED), and one more covers a beat in flight and the ticks.
HOLD_OFFERED_BEATS = 4


def _say(line: str) -> None:
    print(line, flush=True)


async def _calling(caller: Caller) -> None:
    while True:
        try:
            caller.tick()
        except Exception:  # a bug costs one round of calls, not the director
            log.exception("calling the tables")
        await asyncio.sleep(TICK_S)


async def serve(store_path: str, socket_path: str, mqtt_host: str | None = None, mqtt_port: int = 1883,
                username: str | None = None, password: str | None = None,
                answer_within: float | None = None, start_on_strike: bool = False,
                heartbeat_s: float = HEARTBEAT_S) -> None:
    """Serve until SIGTERM or SIGINT; with a venue broker, call its tables to the event being played."""
    director = Director(EventStore.open(store_path, now=_now), seed=lambda: secrets.randbelow(2**31))
    server = DirectorServer(director, socket_path)
    await server.start()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, server.stop)
    link = calling = None
    if mqtt_host is not None:
        link = DirectorLink(director, loop, mqtt_host, mqtt_port, username, password, heartbeat_s=heartbeat_s)
        caller = Caller(director, time.time, link.send, say=_say, start_on_strike=start_on_strike,
                        hold_offered=HOLD_OFFERED_BEATS * heartbeat_s,
                        **({} if answer_within is None else {"answer_within": answer_within}))
        link.caller = caller
        link.start()
        calling = asyncio.ensure_future(_calling(caller))
    log.info("serving %s on %s", store_path, socket_path)
    print(f"devetka director: ready on {socket_path}", flush=True)
    try:
        await server.serve()
    finally:
        if calling is not None:
            calling.cancel()
        if link is not None:
            link.stop()
        director.close()
