"""A TCP relay between a table's bridge and the venue broker, in a process of its own: the network between them.
``freeze`` (SIGSTOP) is a cut network as both ends see it: the connections stay open and nothing crosses, so only
the keepalives tell. ``python -m tests.venue.relay LISTEN_PORT TARGET_PORT`` runs one (the tests start it)."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time

from scoreboard.sim import children
from scoreboard.sim.ports import free_port
from tests.live import TIMEOUT


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def _serve(listen_port: int, target_port: int) -> None:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    server = await asyncio.start_server(relay, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


class Relay:
    """The relay process on a free loopback port, to ``target_port``."""

    def __init__(self, target_port: int) -> None:
        self.port = free_port()
        self.process = subprocess.Popen([sys.executable, "-m", "tests.venue.relay", str(self.port), str(target_port)])
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert self.process.poll() is None and time.monotonic() < deadline, "the relay did not listen"
                time.sleep(0.05)

    def freeze(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        self.thaw()
        children.end(self.process, 5)


if __name__ == "__main__":
    asyncio.run(_serve(int(sys.argv[1]), int(sys.argv[2])))
