"""The readers' broker of a Mosquitto venue on this machine: one ``nats-server`` on free loopback ports, on the
config ``scoreboard/venue/nats.py`` renders (``render_readers``, the text ``install.sh --venue-server`` installs),
its JetStream store in a temporary folder. The venue's Mosquitto bridges every table's topics to it; the board and
MQTT readers read it. For the tests, the benchmarks and ``devetka venue-demo``.
"""

from __future__ import annotations

import secrets
import subprocess
import tempfile
import time
from pathlib import Path

from scoreboard.sim.children import die_with_parent, end
from scoreboard.sim.nats_cluster import HOST, START_TIMEOUT, ClusterError, nats_server_binary, probe
from scoreboard.sim.ports import free_port
from scoreboard.venue import nats


class ReadersBroker:
    """``ReadersBroker()``: started by ``with`` or ``start``; ``link_password`` is the venue Mosquitto's login."""

    def __init__(self, link_password: str | None = None) -> None:
        self.binary = nats_server_binary()
        if self.binary is None:
            raise ClusterError("nats-server is not installed (Debian: apt-get install nats-server)")
        self.link_password = link_password or secrets.token_urlsafe(18)
        self.mqtt_port, self.websocket_port = free_port(), free_port()
        self.client_port, self.monitor_port = free_port(), free_port()
        self._folder = tempfile.TemporaryDirectory(prefix="devetka-readers-")
        self.folder = Path(self._folder.name)
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> ReadersBroker:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def mqtt(self) -> tuple[str, int]:
        return HOST, self.mqtt_port

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.websocket_port}/mqtt"

    @property
    def log(self) -> str:
        path = self.folder / "nats.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def config(self) -> str:
        return nats.render_readers(self.link_password, bind=HOST, mqtt_port=self.mqtt_port,
                                   websocket_port=self.websocket_port, client_port=self.client_port,
                                   monitor_port=self.monitor_port, store_dir=str(self.folder / "jetstream"))

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start it and return once an anonymous reader is let in and granted a QoS 1 subscription."""
        if self.process is not None and self.process.poll() is None:
            return
        path = self.folder / "nats.conf"
        path.write_text(self.config())
        with open(self.folder / "nats.log", "ab") as log:
            self.process = subprocess.Popen([self.binary, "-c", str(path)], stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=log, start_new_session=True, preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        why = "no answer"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ClusterError(f"the readers' nats-server exited:\n{self.log[-4000:]}")
            why = probe(self.mqtt, timeout=min(5.0, max(0.5, deadline - time.monotonic())))
            if why is None:
                return
            time.sleep(0.1)
        raise ClusterError(f"the readers' nats-server not ready within {timeout:g} s ({why}):\n{self.log[-4000:]}")

    def stop(self) -> None:
        process, self.process = self.process, None
        end(process, START_TIMEOUT)

    def close(self) -> None:
        self.stop()
        self._folder.cleanup()
