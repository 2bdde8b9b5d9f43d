"""The daemon: the one place that wires the store, the referee, its sensor sources, the local API and MQTT.

``serve`` runs them on one event loop until SIGTERM or SIGINT. Sources and paho run threads of their own
and hand everything over with ``call_soon_threadsafe``, so the referee is only ever touched on the loop.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import signal
from collections.abc import Callable, Sequence

from scoreboard.adapters import systemd
from scoreboard.adapters.local_api.server import ApiError, Server
from scoreboard.config.table import Config
from scoreboard.referee.referee import Referee
from scoreboard.referee.service import Service
from scoreboard.referee.settings import Overrides
from scoreboard.referee.store import StoreError
from scoreboard.sensing.interface import FencedSource, Report, Source

log = logging.getLogger("devetka.run")

FILES_WANTED = 65536  # the soft limit of open files when the hard one is unbounded


async def settle_loop(service: Service, wake: asyncio.Event) -> None:
    """Apply the settle timer's ``settle`` once the table is quiet, and the shot clock's time foul once it runs out.

    It sleeps until the nearer of the two deadlines, or until an input may have moved them (``wake``). Past the
    settle's deadline on the clock, a source not yet heard up to it (a starved thread may not have read a ball
    that dropped in time) is asked how far it has been heard (``fence``), and the settle waits for its word
    (which wakes the loop too), as it waits for the word of a way in that says so unasked (the demo's table).
    """
    referee = service.referee
    timer = referee.timer
    while True:
        settle = timer.deadline
        if settle is not None and timer.known(referee.now()) < settle <= referee.now():
            referee.fence()  # past the deadline on the clock: are the sources heard up to it? Their word wakes us
            settle = None
        deadlines = [d for d in (settle, referee.shot_clock.next_wake()) if d is not None]
        timeout = None if not deadlines else max(0.0, min(deadlines) - referee.now())
        try:
            await asyncio.wait_for(wake.wait(), timeout)
        except TimeoutError:
            pass
        wake.clear()
        service.settle_if_due()
        service.shot_clock_if_due()


def raise_file_limit() -> None:
    """The soft limit of open files up to the hard one: a process starts at 1024, which clients, the store and
    the broker share. Where the hard limit is unbounded it goes to ``FILES_WANTED``; where it may not be raised,
    it stays."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILES_WANTED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as error:
            log.warning("cannot raise the open files limit from %d to %d: %s", soft, wanted, error)


#: ``serve``'s status when the touchscreen asked for a restart (``{"cmd": "restart"}``): ``devetka run`` starts again.
RESTART = 75


async def serve(config: Config, sources: Sequence[Source] = (), on_serving: Callable[[Server], None] | None = None,
                overrides: Overrides | None = None, restartable: bool = False) -> int:
    """The daemon for ``config`` (store, socket, settle timer, match defaults) with ``sources``, until stopped.

    ``on_serving`` is called with the ``Server`` once the store is replayed and the
    socket answers (``devetka demo`` starts its table then, and calls its ``stop``
    when done). Returns the exit status: 0 after a stop, 2 when it cannot start, ``RESTART`` after a ``restart``
    (taken only where ``restartable``: ``devetka run``, which then starts again).
    """
    restarting = False
    store = config.store.path
    socket_path = config.api.socket
    raise_file_limit()
    try:
        referee = Referee.open(store, settle_after=config.shots.settle_after_s,
                               hold_back=config.settle_hold_back_s, defaults=config.match,
                               language=config.table.language, sound=config.ui.sound, sensed=config.sensed,
                               table=config.table.id, table_name=config.table.name,
                               venue_url=config.venue.url)
    except (StoreError, OSError) as error:
        log.error("cannot open the store %s: %s", store, error)
        for source in sources:
            source.close()
        return 2
    referee.overrides = overrides
    try:
        if referee.moved_aside is not None:
            log.warning("the store was corrupt and was moved aside to %s; a new store is begun", referee.moved_aside)
        if referee.resume_problem is not None:
            log.warning("%s", referee.resume_problem)
        service = Service(referee)
        wake = asyncio.Event()
        service.woken = wake.set
        server = Server(service, socket_path, config.api.max_clients)
        loop = asyncio.get_running_loop()
        link = None
        if config.mqtt.enabled:
            from scoreboard.adapters.mqtt import MqttError, MqttLink

            try:
                link = MqttLink(config.mqtt, config.table.id, service, loop)
            except MqttError as error:
                log.error("%s", error)
                return 2
        try:
            await server.start()
        except ApiError as error:
            log.error("%s", error)
            return 2
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, server.stop)
        if restartable:
            def restart() -> None:
                nonlocal restarting
                restarting = True
                loop.call_soon(server.stop)  # after the answer is sent: closing a client flushes what it was sent

            referee.on_restart = restart
        log.info("serving %s on %s", store, socket_path)
        systemd.notify(b"READY=1")  # the store is replayed and the socket answers
        interval = systemd.watchdog_interval()
        pinger = asyncio.create_task(systemd.watchdog(interval)) if interval is not None else None
        settler = asyncio.create_task(settle_loop(service, wake))
        if link is not None:
            link.start()
        referee.sources = list(sources)
        for source in sources:
            if isinstance(source, FencedSource):  # heard up to nowhere yet: the settle timer asks it first
                referee.timer.heard(source.name, -math.inf)
        referee.sensors = {"gpio": config.sensors.gpio.enabled, "serial": config.sensors.serial.enabled}

        def emit(report: Report) -> None:
            loop.call_soon_threadsafe(service.report, report)

        for source in sources:
            source.start(emit)
        if on_serving is not None:
            on_serving(server)
        try:
            await server.serve()
        finally:
            settler.cancel()
            if link is not None:
                link.close()
            if pinger is not None:
                pinger.cancel()
            systemd.notify(b"STOPPING=1")
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
    finally:
        for source in sources:  # while the loop still runs: a source's last reports are handed to it
            source.close()
        referee.close()
    return RESTART if restarting else 0
