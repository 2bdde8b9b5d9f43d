"""The board's WebSocket hop alone: does a page's MQTT.js get a director-sized message later than paho, and why?

    python bench/board_socket.py [--sizes 1,4,8,16,32] [--rate 5] [--count 30] [--qos 1] [--retain 1] [--busy 0]

The readers' broker as the venue runs it (scoreboard/sim/readers.py: nats-server on install.sh's text), headless
Chromium (tests/venue/browser.py) on a minimal page with the board's vendored MQTT.js subscribed to
``devetka/director/event/+`` as event.js is, and a paho WebSocket client on the same listener. A publisher on the
venue link's login sends ``--count`` messages of each size in KB (JSON, ``{"seq": N, "pad": ...}``) at ``--rate`` a
second, on the one retained topic the director uses for an event. ``--busy MS`` makes the page's message handler
hold the main thread that long, as drawing a whole bracket for every message did (docs/venue.md).

Per message, against the paho WebSocket client's arrival: when the page's WebSocket took the message's first frame
(DevTools' ``Network.webSocketFrameReceived``, which Blink's inspector stamps as the renderer's main thread takes the
frame, before any script: its monotonic clock set to the wall by the handshake's ``wallTime``), and when MQTT.js handed
the message to the page (``performance.timeOrigin + performance.now()``). A delay in the first is the main thread's
queue, not MQTT.js's stream or parser.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
from _common import load_average, machine, subscriber
from paho.mqtt.enums import CallbackAPIVersion
from venue import percentile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoreboard.sim.readers import ReadersBroker  # noqa: E402
from scoreboard.venue import nats  # noqa: E402
from tests.venue.browser import Browser  # noqa: E402

TOPIC = "devetka/director/event/1"
MQTT_JS = ROOT / "scoreboard" / "venue" / "board" / "vendor" / "mqtt.min.js"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><script src="%s"></script></head><body><script>
const params = new URLSearchParams(location.search);
const qos = Number(params.get("qos")), busy = Number(params.get("busy"));
window.arrived = [];
window.subscribed = false;
const client = mqtt.connect(params.get("broker"), { protocolVersion: 4, clean: true, keepalive: 10,
  reconnectPeriod: 1000, clientId: "bench-socket-" + Math.random().toString(16).slice(2, 10) });
client.on("connect", () => client.subscribe({ "devetka/director/event/+": { qos } },
  (error) => { window.subscribed = !error; }));
client.on("message", (topic, payload) => {
  const t = performance.timeOrigin + performance.now();
  window.arrived.push([JSON.parse(payload.toString()).seq, t]);
  const until = performance.now() + busy;
  while (performance.now() < until);
});
</script></body></html>
"""


class Listener:
    """A paho client on the readers' WebSocket listener: seq -> wall ms of arrival."""

    def __init__(self, port: int, qos: int) -> None:
        self.heard: dict[int, float] = {}
        self.lock = threading.Lock()
        self.client = subscriber(port, [("devetka/director/event/+", qos)], self._message, "bench-socket",
                                 websocket=True)

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        now = time.time() * 1000
        with self.lock:
            self.heard.setdefault(orjson.loads(message.payload)["seq"], now)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def frames_received(browser: Browser) -> dict[int, float]:
    """seq -> wall ms when the page's WebSocket (the renderer's main thread) took the frame beginning that message."""
    events = [e for e in browser.events if e["method"].startswith("Network.webSocket")]
    handshake = next(e["params"] for e in events if e["method"] == "Network.webSocketWillSendHandshakeRequest")
    offset = handshake["wallTime"] * 1000 - handshake["timestamp"] * 1000
    frames = {}
    for event in events:
        if event["method"] != "Network.webSocketFrameReceived":
            continue
        response = event["params"]["response"]
        data = base64.b64decode(response["payloadData"]) if response["opcode"] == 2 else b""
        at = data.find(b'{"seq":')
        if at >= 0:
            seq = int(data[at + 7:data.index(b",", at)])
            frames.setdefault(seq, event["params"]["timestamp"] * 1000 + offset)
    return frames


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.1f}, p90 {percentile(values, 0.9):.1f}, max {max(values):.1f}"


def run(args: argparse.Namespace) -> None:
    with ReadersBroker() as readers, Browser() as browser, tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        page.write_text(PAGE % MQTT_JS.as_uri())
        listener = Listener(readers.websocket_port, args.qos)
        publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-socket-director",
                                protocol=mqtt.MQTTv311)
        publisher.username_pw_set(nats.LINK, readers.link_password)
        publisher.connect(*readers.mqtt)
        publisher.loop_start()
        try:
            browser.send("Network.enable")
            browser.open(f"{page.as_uri()}?broker={readers.ws_url}&qos={args.qos}&busy={args.busy}")
            browser.wait_for("window.subscribed", timeout=60)
            for number, size in enumerate(int(kb) for kb in args.sizes.split(",")):
                sent = range(number * args.count, (number + 1) * args.count)
                for seq in sent:
                    publisher.publish(TOPIC, orjson.dumps({"seq": seq, "pad": "x" * (size * 1024)}), qos=1,
                                      retain=bool(args.retain))
                    time.sleep(1 / args.rate)
                browser.wait_for(f"window.arrived.some(([seq]) => seq === {sent[-1]})", timeout=120)
                arrived = {s: t for s, t in browser.evaluate("window.arrived")}
                frames = frames_received(browser)
                with listener.lock:
                    heard = dict(listener.heard)
                played = [s for s in sent if s in heard and s in arrived]
                network = [frames[s] - heard[s] for s in played if s in frames]
                handed = [arrived[s] - heard[s] for s in played]
                print(f"{size:3d} KB at {args.rate:g}/s (QoS {args.qos}, retained {args.retain}, page busy "
                      f"{args.busy:g} ms a message), {len(played)} of {args.count}, ms after the paho WebSocket "
                      f"client: the page's WebSocket {summary(network)}; the page's MQTT.js "
                      f"{summary(handed)}", flush=True)
        finally:
            publisher.loop_stop()
            publisher.disconnect()
            listener.close()
    print(f"load average {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,8,16,32", help="message sizes in KB, comma-separated")
    parser.add_argument("--rate", type=float, default=5.0, help="messages a second (default 5)")
    parser.add_argument("--count", type=int, default=30, help="messages of each size (default 30)")
    parser.add_argument("--qos", type=int, choices=(0, 1), default=1, help="the subscriptions' QoS (default 1)")
    parser.add_argument("--retain", type=int, choices=(0, 1), default=1, help="publish retained (default 1)")
    parser.add_argument("--busy", type=float, default=0.0, help="ms the page's handler holds the main thread")
    args = parser.parse_args()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    run(args)


if __name__ == "__main__":
    main()
