"""A private Mosquitto on a free loopback port: for the tests, the benchmarks and ``devetka demo``.

Mosquitto 2 listens on nothing until told, and lets no one in anonymously once
a listener is named; so the config written here always names its listener on
127.0.0.1 and says who may connect. Started as root, Mosquitto drops to the
``mosquitto`` user, which cannot read files in a root-only temporary folder:
the config then says ``user root``.

>>> if PrivateBroker.available():
...     with PrivateBroker() as broker:
...         broker.running()
... else:
...     True
True
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scoreboard.sim.children import die_with_parent, end
from scoreboard.sim.ports import free_port

#: Where Debian puts the broker (``/usr/sbin`` is not on every user's PATH).
_PLACES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
START_TIMEOUT = 30.0  # generous: a loaded two-core machine


class BrokerError(RuntimeError):
    """The broker is not installed or did not start; the message says why (with its log).

    >>> str(BrokerError("mosquitto is not installed"))
    'mosquitto is not installed'
    """


@dataclass(frozen=True)
class BrokerTls:
    """The broker's TLS listener: its CA, certificate and key; ``require_certificate`` asks clients for theirs.

    >>> BrokerTls("ca.crt", "broker.crt", "broker.key").require_certificate
    False
    """

    ca_file: str
    certfile: str
    keyfile: str
    require_certificate: bool = False


def mosquitto_binary() -> str | None:
    """The ``mosquitto`` program, or None when it is not installed."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((place for place in _PLACES if os.access(place, os.X_OK)), None)


#: What Mosquitto's log says when a listener's port was taken by the time it bound it.
PORT_TAKEN = ("Address already in use", "Unable to create websockets listener")


class PrivateBroker:
    """``mosquitto -c`` with a config of its own in a temporary folder, on 127.0.0.1; ``stop`` ends it.

    With no ``users`` anyone may connect; with ``users`` ({name: password}) only
    they may, and ``acl`` (the text of a Mosquitto ACL file) says what each may
    read and write. ``port`` is kept across ``stop`` and ``start``, so clients
    reconnect to the same address after a restart.
    """

    def __init__(self, *, port: int | None = None, users: dict[str, str] | None = None, acl: str | None = None,
                 tls: BrokerTls | None = None) -> None:
        self.host = "127.0.0.1"
        self._fixed_port = port is not None
        self.port = port if port is not None else free_port()
        self.users = dict(users or {})
        self.acl = acl
        self.tls = tls
        self._folder = tempfile.TemporaryDirectory(prefix="devetka-mosquitto-")
        self.folder = Path(self._folder.name)
        self.process: subprocess.Popen | None = None

    @staticmethod
    def available() -> bool:
        return mosquitto_binary() is not None

    def __enter__(self) -> PrivateBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def log(self) -> str:
        """What the broker said so far (its log file)."""
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _write_config(self) -> Path:
        lines = [f"listener {self.port} {self.host}", "persistence false", "log_dest stderr",
                 "log_type error", "log_type warning", "log_type notice", "log_type information"]
        if os.geteuid() == 0:
            lines.append("user root")
        if self.users:
            passwords = self.folder / "passwords"
            passwords.write_text("")
            for name, password in self.users.items():
                subprocess.run([_passwd_binary(), "-b", str(passwords), name, password], check=True,
                               capture_output=True, timeout=START_TIMEOUT)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if self.acl is not None:
            acl = self.folder / "acl"
            acl.write_text(self.acl)
            lines.append(f"acl_file {acl}")
        if self.tls is not None:
            lines += [f"cafile {self.tls.ca_file}", f"certfile {self.tls.certfile}", f"keyfile {self.tls.keyfile}",
                      f"require_certificate {'true' if self.tls.require_certificate else 'false'}"]
        config = self.folder / "mosquitto.conf"
        config.write_text("\n".join(lines) + "\n")
        return config

    def start(self) -> None:
        """Start the broker and return once it accepts connections; ``BrokerError`` with its log if it cannot.

        A port picked here that something else took meanwhile (another process of the run drew it too) is swapped for
        another free one: Mosquitto says "Address already in use" for its own listeners, libwebsockets "Unable to
        create websockets listener" for a WebSockets one.
        """
        for attempt in range(3):
            try:
                self._start()
                return
            except BrokerError as error:
                taken = any(words in str(error) for words in PORT_TAKEN)
                if self._fixed_port or not taken or attempt == 2:
                    raise
                self.new_ports()

    def new_ports(self) -> None:
        """Free ports in place of those picked (a subclass with more listeners swaps theirs too)."""
        self.port = free_port()

    def _start(self) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        config = self._write_config()
        log_path = self.folder / "mosquitto.log"
        log_path.write_bytes(b"")
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen([binary, "-c", str(config)], stdin=subprocess.DEVNULL,
                                            preexec_fn=die_with_parent,
                                            stdout=log, stderr=log)
        deadline = time.monotonic() + START_TIMEOUT
        while " running" not in self.log:  # "mosquitto version 2.0.11 running": its listener is open
            status = self.process.poll()
            if status is not None:
                self.process = None
                raise BrokerError(f"mosquitto exited with status {status}:\n{self.log}")
            if time.monotonic() > deadline:
                self.stop()
                raise BrokerError(f"mosquitto did not start on port {self.port} within {START_TIMEOUT:g} s:\n"
                                  f"{self.log}")
            time.sleep(0.01)

    def running(self) -> bool:
        """True when our broker is up and its port takes a connection."""
        if self.process is None or self.process.poll() is not None:
            return False
        try:
            with socket.create_connection((self.host, self.port), timeout=1.0):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        """End the broker (SIGTERM, again each second, then SIGKILL if it lingers); the folder is kept for a ``start``
        again. Mosquitto 2.0.11 can lose a SIGTERM that comes just after it says it is running."""
        process, self.process = self.process, None
        end(process, START_TIMEOUT, again_every=1.0)

    def close(self) -> None:
        """Stop the broker and remove its folder."""
        self.stop()
        self._folder.cleanup()


class ConfiguredBroker(PrivateBroker):
    """A Mosquitto on config text of the caller's (a venue's listeners, a table's bridge), in its own folder.

    ``write`` and ``write_passwords`` put the files the text names into ``folder`` first; the broker logs to its
    folder and, as root, stays root (see the module's docstring). ``port`` is where ``running`` probes it.

    >>> if ConfiguredBroker.available():
    ...     broker = ConfiguredBroker()
    ...     broker.config_text = f"listener {broker.port} 127.0.0.1\\nallow_anonymous true\\n"
    ...     with broker:
    ...         broker.running()
    ... else:
    ...     True
    True
    """

    config_text: str = ""

    def write(self, name: str, text: str) -> Path:
        path = self.folder / name
        path.write_text(text)
        return path

    def write_passwords(self, name: str, users: dict[str, str]) -> Path:
        """A Mosquitto password file of ``users`` ({login: password}), made by ``mosquitto_passwd``."""
        path = self.write(name, "")
        for login, password in users.items():
            subprocess.run([_passwd_binary(), "-b", str(path), login, password], check=True, capture_output=True,
                           timeout=START_TIMEOUT)
        return path

    def _write_config(self) -> Path:
        tail = ["log_dest stderr", "log_type error", "log_type warning", "log_type notice", "log_type information"]
        if os.geteuid() == 0:
            tail.append("user root")
        return self.write("mosquitto.conf", self.config_text.rstrip("\n") + "\n" + "\n".join(tail) + "\n")


def _passwd_binary() -> str:
    found = shutil.which("mosquitto_passwd") or next(
        (place for place in ("/usr/bin/mosquitto_passwd", "/usr/sbin/mosquitto_passwd") if os.access(place, os.X_OK)),
        None)
    if found is None:
        raise BrokerError("mosquitto_passwd is not installed (Debian: apt-get install mosquitto)")
    return found
