"""What the benchmarks share: running on one core, and saying what machine and code the figures come from."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def pin_to_one_core() -> str:
    """Run on CPU 0 only (child processes inherit it); says what was done."""
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {0})
            return "pinned to CPU 0 with os.sched_setaffinity"
        except OSError as error:
            return f"not pinned ({error.strerror})"
    return "not pinned (no os.sched_setaffinity on this system)"


def machine() -> dict[str, str]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "code": code_version(),
        "cpus": str(os.cpu_count()),
        "cpu": model,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "system": platform.platform(),
    }


def code_version() -> str:
    """The commit measured, and whether the scoreboard package had changes not committed."""
    import scoreboard

    root = Path(scoreboard.__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "scoreboard"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"scoreboard from {root} (not a git checkout)"
    return commit + (" with uncommitted changes in scoreboard/" if dirty else "")


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: other work on the machine skews the figures."""
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def print_header(pinned: str) -> None:
    """The lines every benchmark begins with: the code, the machine, the affinity, the load."""
    info = machine()
    print(f"code: {info['code']}")
    print(f"machine: {info['cpus']} CPUs, {info['cpu']}; {info['python']}; {info['system']}")
    print(f"affinity: {pinned}")
    print(f"load average: {load_average()} (other work on the machine skews the figures)")


def subscriber(port: int, topics: list[tuple[str, int]], on_message: Callable[..., None], name: str,
               websocket: bool = False) -> Any:
    """A started paho client on 127.0.0.1:``port`` (MQTT, or a WebSocket listener at ``/mqtt``), subscribed to
    ``topics`` at every connect, handing each message to ``on_message(client, userdata, message)``: the benches'
    stamps of what a broker carried."""
    import secrets

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{name}-{secrets.token_hex(3)}",
                         transport="websockets" if websocket else "tcp")
    if websocket:
        client.ws_set_options(path="/mqtt")
    client.on_connect = lambda c, u, f, r, p: c.subscribe(topics)
    client.on_message = on_message
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


LAN_MTU = 1500


def on_a_lan(loopback: bool) -> str:
    """Run this bench again inside a network namespace of its own whose loopback has a LAN's MTU, unless
    ``loopback``; says which network the figures come from.

    A hall's tables reach the venue over a LAN, where a 5 KB state is four TCP segments; the machine's own loopback
    (MTU 65,536) makes it one, and then the tables' bridges, whose sockets Mosquitto leaves to Nagle's algorithm,
    wait for the venue's delayed ACK (docs/venue.md, "Nagle on the bridges"): a wait no hall has."""
    if loopback:
        return "the machine's loopback (MTU 65,536; --loopback)"
    if os.environ.get("DEVETKA_BENCH_MTU") == str(LAN_MTU):
        return f"a network namespace of its own, loopback at a LAN's MTU ({LAN_MTU})"
    user = [] if os.geteuid() == 0 else ["-r"]  # a user namespace too: root inside it may make the network
    tried = subprocess.run(["unshare", *user, "-n", "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        raise SystemExit(f"{Path(sys.argv[0]).name}: cannot make a network namespace ({tried.stderr.strip()}): "
                         "run it as root, or pass --loopback to measure on the machine's own loopback")
    command = ["unshare", *user, "-n", "sh", "-c", f'ip link set lo mtu {LAN_MTU} up && exec "$@"', "sh",
               sys.executable, *sys.argv]
    raise SystemExit(subprocess.run(command, env={**os.environ, "DEVETKA_BENCH_MTU": str(LAN_MTU)}).returncode)


def add_loopback_option(parser: Any) -> None:
    """``--loopback``: the venue benches' choice of network (``on_a_lan``)."""
    parser.add_argument("--loopback", action="store_true",
                        help="measure on the machine's own loopback (MTU 65,536), not in a namespace at a LAN's MTU")


def venue_header(loopback: bool) -> None:
    """Run on a LAN's MTU unless ``loopback`` (``on_a_lan``), then say what machine and code, and which network."""
    network = on_a_lan(loopback)
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    print(f"network: {network}")
