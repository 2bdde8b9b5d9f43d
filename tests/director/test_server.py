"""The director's socket (scoreboard/director/server.py): a JSON line in, its answer out, the id echoed; a bad line
answered and the connection kept."""

from __future__ import annotations

import asyncio
import socket

import orjson

from scoreboard.director.server import DirectorServer
from scoreboard.director.service import Director
from scoreboard.event.store import EventStore


def test_lines_in_answers_out_and_a_bad_line_keeps_the_connection(tmp_path):
    async def scenario():
        director = Director(EventStore.open(tmp_path / "d.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00"))
        server = DirectorServer(director, tmp_path / "d.sock")
        await server.start()
        serving = asyncio.create_task(server.serve())
        reader, writer = await asyncio.open_unix_connection(str(tmp_path / "d.sock"))
        answers = []
        for line in (b"{not json\n", orjson.dumps({"id": 7, "cmd": "events"}) + b"\n"):
            writer.write(line)
            answers.append(orjson.loads(await reader.readline()))
        writer.close()
        server.stop()
        await serving
        director.close()
        return answers

    bad, good = asyncio.run(scenario())
    assert bad["ok"] is False and bad["error"].startswith("not valid JSON")
    assert good == {"id": 7, "ok": True, "events": []}
    assert not (tmp_path / "d.sock").exists()


def test_a_stale_socket_file_is_replaced(tmp_path):
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(tmp_path / "d.sock"))
    stale.close()

    async def scenario():
        director = Director(EventStore.open(tmp_path / "d.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00"))
        server = DirectorServer(director, tmp_path / "d.sock")
        await server.start()
        server.stop()
        await server.serve()
        director.close()

    asyncio.run(scenario())
