"""The director's calls on a NATS venue (scoreboard/venue/nats.py): three real ``nats-server`` nodes as install.sh
configures them with the director's login, a table's Mosquitto bridged to every node (calls in at QoS 1, answers
out), its ``devetka run`` daemon, and ``devetka director`` logged in as ``director`` on node 1."""

from __future__ import annotations

import pytest

from scoreboard.director.server import ask
from scoreboard.sim.nats_cluster import NatsCluster, nats_server_binary
from scoreboard.sim.venue_demo import TableBroker
from scoreboard.venue import bridge
from tests.director.test_calls import NINE_ON_THE_BREAK, offered, until
from tests.director.test_serve import RunningDirector
from tests.live import Daemon

pytestmark = pytest.mark.skipif(nats_server_binary() is None, reason="nats-server is not installed")

DIRECTOR_PASSWORD = "d1rector-pw"


def test_a_nats_venue_carries_the_call_in_and_the_result_back(tmp_path):
    with NatsCluster({"t1": "t1-pw"}, director_password=DIRECTOR_PASSWORD) as cluster:
        (first, *others) = cluster.mqtt_addresses
        broker = TableBroker(bridge.render_table_bridge("t1", first[0], first[1], "t1", "t1-pw", others=others))
        with broker:
            folder = tmp_path / "t1"
            folder.mkdir()
            daemon = Daemon(folder, config=f'[table]\nid = "t1"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
            secret = tmp_path / "director.password"
            secret.write_text(DIRECTOR_PASSWORD + "\n")
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
