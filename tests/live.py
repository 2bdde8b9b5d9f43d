"""The daemon as a user meets it: ``devetka run`` as a child process on a temporary store and socket, and a
client of its local API. Shared by the tests of the local API and of MQTT."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from scoreboard.adapters.local_api.client import Connection, is_answer
from tests.served import valid

DEVETKA = str(Path(sys.executable).parent / "devetka")
TIMEOUT = 60.0  # generous: a loaded two-core machine
ANA_BEN = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}
LEGAL_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
               {"type": "cushion", "ball": 3}, {"type": "cushion", "ball": 4}, {"type": "cushion", "ball": 5},
               {"type": "settle"}]


class Client(Connection):
    """The one client's ``Connection``, with the suite's timeout and its asserts: an answer's id is checked, and
    every answer and state received fits the contract (docs/schema, tests/served.py)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, timeout=TIMEOUT)

    def line(self) -> dict:
        message = super().line()
        return valid("result" if is_answer(message) else "state", message)

    def request(self, message: dict) -> dict:
        answer = super().request(message)
        assert "id" not in message or answer["id"] == message["id"]
        return answer


class Daemon:
    """``devetka run`` as a child process; ``start`` returns once its socket answers."""

    def __init__(self, tmp_path: Path, settle_after: float = 3600.0, config: str = "",
                 files: tuple[int, int] | None = None) -> None:
        self.files = files
        """The open files limit (soft, hard) the daemon starts with; None: the test's own."""
        self.store = tmp_path / "devetka.db"
        self.socket = tmp_path / "api.sock"
        self.config = tmp_path / "table.toml"
        # No settle of its own unless a test asks: a slow, loaded machine must not end a test's shot.
        self.config.write_text(f"[shots]\nsettle_after_s = {settle_after}\n{config}")
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        self.process = subprocess.Popen([DEVETKA, "run", "--config", str(self.config), "--store", str(self.store),
                                         "--socket", str(self.socket)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                        preexec_fn=None if self.files is None else self._limit_files)
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.process.poll() is None, self.process.communicate()
            try:
                probe = Client(self.socket)
            except OSError:
                assert time.monotonic() < deadline, "the daemon's socket did not come up"
                time.sleep(0.01)
                continue
            assert probe.line()["type"] == "state"  # every client gets the state on connecting
            probe.close()
            return

    def _limit_files(self) -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, self.files)

    def client(self) -> Client:
        client = Client(self.socket)
        assert client.line()["type"] == "state"  # the state on connecting
        return client

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        _, self.stderr = self.process.communicate(timeout=TIMEOUT)
        return self.process.returncode

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=TIMEOUT)
