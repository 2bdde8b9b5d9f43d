"""scoreboard/sim/readers.py: the readers' nats-server of a Mosquitto venue, run for real on free loopback ports."""

from __future__ import annotations

from scoreboard.sim.readers import ReadersBroker
from tests.deploy.broker import Peer


def test_the_venues_link_writes_and_an_anonymous_reader_reads_over_mqtt_and_websocket():
    with ReadersBroker() as readers:
        link, reader, browser = Peer("link"), Peer("reader"), Peer("browser", transport="websockets")
        try:
            assert not link.connect(readers.mqtt_port, "venue", readers.link_password).is_failure
            link.publish("devetka/t1/state", '{"seq": 3}', retain=True)
            assert not reader.connect(readers.mqtt_port).is_failure
            assert not browser.connect(readers.websocket_port).is_failure
            for peer in (reader, browser):
                peer.subscribe("devetka/+/state")
                assert peer.next() == ("devetka/t1/state", '{"seq": 3}', True)
            reader.publish("devetka/t1/state", '{"forged": true}', retain=True)  # acknowledged and dropped
            link.publish("devetka/t1/state", '{"seq": 4}', retain=True)
            assert browser.live() == ("devetka/t1/state", '{"seq": 4}')
        finally:
            for peer in (link, reader, browser):
                peer.close()


def test_a_wrong_link_password_is_refused():
    with ReadersBroker() as readers:
        link = Peer("link")
        try:
            assert link.connect(readers.mqtt_port, "venue", readers.link_password + "x").is_failure
        finally:
            link.close()
