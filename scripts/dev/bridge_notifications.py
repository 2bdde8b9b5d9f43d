"""What a table's own Mosquitto says on ``devetka/<table>/bridge`` when the venue broker goes away and comes back
(docs/events.md, "The venue link at the table"): ``python scripts/dev/bridge_notifications.py term|kill|stop
[AWAY_S] [KEEPALIVE_S]``. Two real brokers on free loopback ports, the table's bridge as
``scoreboard/venue/bridge.py`` renders it (keepalive moved), a subscriber on the table's broker; prints each message
with the seconds since the start. ``stop`` freezes the venue (SIGSTOP, as a cut network looks) and thaws it."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from scoreboard.sim import children
from scoreboard.sim.ports import free_port
from scoreboard.venue import bridge


def main(how: str, away_s: float = 20.0, keepalive_s: int = 5) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bridge-notifications-"))
    venue_port, table_port = free_port(), free_port()
    (folder / "venue.conf").write_text(f"listener {venue_port} 127.0.0.1\nallow_anonymous true\n")
    rendered = bridge.render_table_bridge("t1", "127.0.0.1", venue_port, "t1", "pw").replace(
        f"keepalive_interval {bridge.KEEPALIVE_S}\n", f"keepalive_interval {keepalive_s}\n")
    (folder / "table.conf").write_text(f"listener {table_port} 127.0.0.1\nallow_anonymous true\n{rendered}")
    start = time.monotonic()

    def say(*words: object) -> None:
        print(f"{time.monotonic() - start:7.2f}", *words, flush=True)

    def broker(name: str) -> subprocess.Popen:
        return subprocess.Popen(["mosquitto", "-c", str(folder / f"{name}.conf")], stdout=subprocess.DEVNULL,
                                stderr=open(folder / f"{name}.log", "ab"))  # noqa: SIM115 (the child holds it)

    venue = broker("venue")
    time.sleep(0.3)
    table = broker("table")
    time.sleep(0.3)
    watcher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="watcher", protocol=mqtt.MQTTv311)
    watcher.on_connect = lambda client, *_: client.subscribe("devetka/t1/bridge", qos=1)
    watcher.on_message = lambda _c, _u, m: say("table broker:", m.topic, m.payload.decode(),
                                                "(retained)" if m.retain else "")
    watcher.connect("127.0.0.1", table_port)
    watcher.loop_start()
    try:
        time.sleep(2)
        say(f"=== the venue broker: {how}")
        if how == "stop":
            venue.send_signal(signal.SIGSTOP)
        else:
            venue.send_signal(signal.SIGTERM if how == "term" else signal.SIGKILL)
            venue.wait()
        time.sleep(away_s)
        say("=== the venue broker back")
        if how == "stop":
            venue.send_signal(signal.SIGCONT)
        else:
            venue = broker("venue")
        time.sleep(8)
    finally:
        watcher.loop_stop()
        watcher.disconnect()
        venue.send_signal(signal.SIGCONT)
        children.end(venue, 5)
        children.end(table, 5)
    print(f"logs: {folder}")


if __name__ == "__main__":
    main(sys.argv[1], *(float(a) for a in sys.argv[2:3]), *(int(a) for a in sys.argv[3:4]))
