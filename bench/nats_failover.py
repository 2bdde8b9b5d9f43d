"""How long a table's state takes to reach the venue again after the NATS node under its bridge dies.

    python bench/nats_failover.py [--kills 10] [--leader sess|meta|none]

Each kill is a fresh three-node cluster on loopback (scoreboard/sim/nats_cluster.py) and one table's Mosquitto bridged
to every node (scoreboard/venue/bridge.py with ``others``, as install.sh --venue writes it), the bridge on the node
to be killed. ``--leader`` picks that node: the one leading JetStream's MQTT session stream (``sess``, the worst
case: every MQTT connect reads it), the metadata leader (``meta``), or a node leading nothing of MQTT's if there is
one (``none``). The node is SIGKILLed, the table publishes its next state (QoS 1, retained) half a second later, and
the figure is when a QoS 0 reader on a surviving node gets it. This is the part of the board's failover that
JetStream's elections decide (tests/venue/test_nats.py and bench/venue_nats.py have the board itself).
"""

from __future__ import annotations

import argparse
import queue
import statistics
import sys
import time
import urllib.request
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from _common import load_average, machine
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.broker import ConfiguredBroker  # noqa: E402
from scoreboard.sim.nats_cluster import HOST, NatsCluster  # noqa: E402
from scoreboard.venue import bridge  # noqa: E402

TABLE, PASSWORD = "t1", "t1-bench-pw"
STATE = f"devetka/{TABLE}/state"
GIVE_UP_S = 60.0
STREAMS = {"sess": "$MQTT_sess", "meta": "meta"}


def leaders(cluster: NatsCluster) -> dict[str, str]:
    """Who leads JetStream's metadata and each MQTT stream, as the first live node's /jsz says."""
    for node in cluster.nodes:
        if node.process is None:
            continue
        with urllib.request.urlopen(f"http://{HOST}:{node.monitor_port}/jsz?accounts=true&streams=true",
                                    timeout=5) as answer:
            report = orjson.loads(answer.read())
        found = {"meta": report.get("meta_cluster", {}).get("leader", "")}
        for account in report.get("account_details", []):
            for stream in account.get("stream_detail", []):
                found[stream["name"]] = stream.get("cluster", {}).get("leader", "")
        return found
    raise RuntimeError("no node is running")


def client(address: tuple[str, int]) -> mqtt.Client:
    connection = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    connection.connect(*address, keepalive=30)
    connection.loop_start()
    return connection


def table_broker(cluster: NatsCluster, first: int) -> ConfiguredBroker:
    """The table's Mosquitto, its bridge listing node ``first`` first, up and bridged."""
    order = [cluster.nodes[first - 1].mqtt] + [n.mqtt for n in cluster.nodes if n.number != first]
    broker = ConfiguredBroker()
    text = bridge.render_table_bridge(TABLE, *order[0], TABLE, PASSWORD, others=order[1:])
    broker.config_text = f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n\n{text}"
    broker.start()
    return broker


def chosen(cluster: NatsCluster, leader: str) -> int:
    """The number of the node to kill, once the MQTT streams exist (made by the first connect)."""
    led = leaders(cluster)
    if leader == "none":
        busy = {led.get(name, "") for name in ("meta", "$MQTT_sess", "$MQTT_msgs", "$MQTT_rmsgs")}
        free = [n.number for n in cluster.nodes if f"devetka-{n.number}" not in busy]
        return free[0] if free else 1
    return int(led[STREAMS[leader]].removeprefix("devetka-"))


def one_kill(leader: str) -> tuple[float | None, int]:
    with NatsCluster({TABLE: PASSWORD}) as cluster:
        broker = table_broker(cluster, 1)
        try:
            time.sleep(3)  # the bridge connected: the session and the MQTT streams exist
            target = chosen(cluster, leader)
            if target != 1:
                broker.close()
                broker = table_broker(cluster, target)
                time.sleep(3)
            table = client((broker.host, broker.port))
            survivor = next(n for n in cluster.nodes if n.number != target)
            heard: queue.Queue[tuple[float, bytes]] = queue.Queue()
            reader = client(survivor.mqtt)
            reader.on_message = lambda c, u, message: heard.put((time.monotonic(), message.payload))
            reader.subscribe(STATE, 0)
            time.sleep(1)
            killed = time.monotonic()
            cluster.kill(target)
            time.sleep(0.5)
            table.publish(STATE, b'{"seq": 1}', qos=1, retain=True)
            try:
                while time.monotonic() - killed < GIVE_UP_S:
                    try:
                        at, payload = heard.get(timeout=1)
                    except queue.Empty:
                        continue
                    if payload == b'{"seq": 1}':
                        return at - killed, target
                return None, target
            finally:
                reader.loop_stop()
                table.loop_stop()
        finally:
            broker.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10, help="kills, each on a fresh cluster (default 10)")
    parser.add_argument("--leader", choices=("sess", "meta", "none"), default="sess",
                        help="which node dies: the session stream's leader (default), the metadata leader, or none")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    figures: list[float] = []
    for number in range(1, args.kills + 1):
        took, node = one_kill(args.leader)
        print(f"kill {number}: node {node} ({args.leader} leader): "
              + (f"the next state on a survivor {took:.2f} s after the kill" if took is not None
                 else f"nothing within {GIVE_UP_S:g} s") + f"; load average {load_average()}", flush=True)
        if took is not None:
            figures.append(took)
    if figures:
        print(f"{len(figures)} of {args.kills} came: median {statistics.median(figures):.2f} s, "
              f"min {min(figures):.2f} s, max {max(figures):.2f} s")


if __name__ == "__main__":
    main()
