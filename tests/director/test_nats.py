"""The director's calls on a NATS venue (scoreboard/venue/nats.py): three real ``nats-server`` nodes as install.sh
configures them with the director's login, a table's Mosquitto bridged to every node (calls in at QoS 1, answers
out), its ``devetka run`` daemon, and ``devetka director`` logged in as ``director`` on node 1; and node 1 lost with
the director on it (docs/venue.md, "The director on a NATS venue")."""

from __future__ import annotations

import queue
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.director.server import ask
from scoreboard.sim.nats_cluster import NatsCluster, nats_server_binary
from scoreboard.sim.venue_demo import TableBroker
from scoreboard.venue import bridge
from tests.director.test_calls import NINE_ON_THE_BREAK, offered, until
from tests.director.test_serve import RunningDirector
from tests.live import TIMEOUT, Daemon

pytestmark = pytest.mark.skipif(nats_server_binary() is None, reason="nats-server is not installed")

DIRECTOR_PASSWORD = "d1rector-pw"


def table_t1(tmp_path: Path, broker: TableBroker) -> Daemon:
    """Table t1's daemon (not started) on its own broker, the one bridged to the venue's nodes."""
    folder = tmp_path / "t1"
    folder.mkdir()
    return Daemon(folder, config=f'[table]\nid = "t1"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')


def director_secret(tmp_path: Path) -> Path:
    """The director's password file, as install.sh leaves it for the unit."""
    secret = tmp_path / "director.password"
    secret.write_text(DIRECTOR_PASSWORD + "\n")
    return secret


def test_a_nats_venue_carries_the_call_in_and_the_result_back(tmp_path):
    with NatsCluster({"t1": "t1-pw"}, director_password=DIRECTOR_PASSWORD) as cluster:
        (first, *others) = cluster.mqtt_addresses
        broker = TableBroker(bridge.render_table_bridge("t1", first[0], first[1], "t1", "t1-pw", others=others))
        with broker:
            daemon, secret = table_t1(tmp_path, broker), director_secret(tmp_path)
            director = RunningDirector(tmp_path, "--mqtt-host", first[0], "--mqtt-port", str(first[1]), "--mqtt-user",
                                       "director", "--mqtt-password-file", str(secret))
            try:
                daemon.start()
                director.start()
                spec = {"name": "N", "format": "single", "players": ["Ana", "Ben"], "race": 1, "tables": ["t1"]}
                assert ask(director.socket, {"cmd": "new", "spec": spec})["ok"]
                assert ask(director.socket, {"cmd": "draw"})["ok"]
                call = offered(daemon)
                assert call["words"] == "Called: Ana - Ben, race to 1, winners' round 1"
                screen = daemon.client()
                try:
                    assert screen.request({"cmd": "call_start", "call": call["id"]})["ok"]
                    for item in NINE_ON_THE_BREAK:
                        won = screen.request(item)["state"]
                finally:
                    screen.close()
                done = until(lambda: ask(director.socket, {"cmd": "status"})["state"]["matches"][0],
                             lambda m: m["status"] == "done")
                assert (done["score"], done["winner"], done["store"], done["match_id"]) == (
                    [1, 0], "Ana", won["store"], won["match_id"])
            finally:
                daemon.kill()
                director.stop()


def test_the_directors_node_lost_mid_match_the_table_plays_on_and_its_result_is_taken_when_both_return(tmp_path):
    """docs/venue.md, "The director on a NATS venue": the director's node (nats-server node 1 and the director on it)
    dies while a called match is played at a table bridged to the other nodes. The table referees the match to its
    end meanwhile and no new call reaches it; node 1 and the director (the same store) started again, the result is
    taken from the table's retained ``called_results`` and the next match is called."""
    with NatsCluster({"t1": "t1-pw"}, director_password=DIRECTOR_PASSWORD) as cluster:
        node1, node2, node3 = cluster.mqtt_addresses
        broker = TableBroker(bridge.render_table_bridge("t1", node2[0], node2[1], "t1", "t1-pw",
                                                        others=[node3, node1]))
        with broker:
            daemon, secret = table_t1(tmp_path, broker), director_secret(tmp_path)
            login = ("--mqtt-host", node1[0], "--mqtt-port", str(node1[1]), "--mqtt-user", "director",
                     "--mqtt-password-file", str(secret))
            director = RunningDirector(tmp_path, *login)
            again = RunningDirector(tmp_path, *login)  # the same store and socket, after the node's return
            try:
                daemon.start()
                director.start()
                spec = {"name": "N", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"], "race": 1,
                        "tables": ["t1"]}
                assert ask(director.socket, {"cmd": "new", "spec": spec})["ok"]
                assert ask(director.socket, {"cmd": "draw"})["ok"]
                first = offered(daemon)
                screen = daemon.client()
                try:
                    assert screen.request({"cmd": "call_start", "call": first["id"]})["ok"]
                    until(lambda: ask(director.socket, {"cmd": "status"})["state"]["matches"][0],
                          lambda m: m["status"] == "playing")
                    cluster.kill(1)  # the director's box: its node and the director with it
                    director.kill()
                    for item in NINE_ON_THE_BREAK:
                        answer = screen.request(item)
                        assert answer["ok"], answer
                    won = answer["state"]
                    assert (won["match_winner"], won["call"]["id"]) == (0, first["id"])
                    assert [r["call"] for r in won["called_results"]] == [first["id"]]
                    assert won["call"]["status"] != "offered"  # nothing new called while the director is away
                finally:
                    screen.close()
                # Its last will went down with its node: the nodes left keep the director's "online" retained.
                assert retained(node2, "devetka/director/availability") == "online"
                cluster.start_node(1)
                again.start()
                done = until(lambda: ask(again.socket, {"cmd": "status"})["state"]["matches"][0],
                             lambda m: m["status"] == "done")
                assert (done["match"], done["score"], done["winner"], done["store"], done["match_id"]) == (
                    "W1-1", [1, 0], "Ana", won["store"], won["match_id"])
                following = offered(daemon)
                assert following["id"] != first["id"] and following["match"] == "W1-2"
            finally:
                daemon.kill()
                again.stop()
                if director.process is not None and director.process.poll() is None:
                    director.kill()


def retained(node: tuple[str, int], topic: str) -> str:
    """What a board reading ``node`` gets first on ``topic`` (QoS 0: granted while JetStream elects its leaders)."""
    got: queue.Queue = queue.Queue()
    reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-board", protocol=mqtt.MQTTv311)
    reader.on_connect = lambda client, userdata, flags, reason, properties: client.subscribe(topic, qos=0)
    reader.on_message = lambda client, userdata, message: got.put(bytes(message.payload).decode())
    reader.connect(*node)
    reader.loop_start()
    try:
        return got.get(timeout=TIMEOUT)
    finally:
        reader.disconnect()
        reader.loop_stop()
