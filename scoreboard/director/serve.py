"""``devetka director``'s wiring: the event store, the director, its socket and its link to the venue broker.

The director is the only writer of its store; a systemd unit runs it on the venue box (deploy/).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import secrets
import signal

from scoreboard.director.mqtt import DirectorLink
from scoreboard.director.server import DirectorServer
from scoreboard.director.service import Director
from scoreboard.event.store import EventStore

log = logging.getLogger("devetka.director")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


async def serve(store_path: str, socket_path: str, mqtt_host: str | None = None, mqtt_port: int = 1883,
                username: str | None = None, password: str | None = None) -> None:
    """Serve until SIGTERM or SIGINT."""
    director = Director(EventStore.open(store_path, now=_now), seed=lambda: secrets.randbelow(2**31))
    server = DirectorServer(director, socket_path)
    await server.start()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, server.stop)
    link = None
    if mqtt_host is not None:
        link = DirectorLink(director, loop, mqtt_host, mqtt_port, username, password)
        link.start()
    log.info("serving %s on %s", store_path, socket_path)
    print(f"devetka director: ready on {socket_path}", flush=True)
    try:
        await server.serve()
    finally:
        if link is not None:
            link.stop()
        director.close()
