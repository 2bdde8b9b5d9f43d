"""scoreboard/venue/bridge.py: the venue's Mosquitto config text, as install.sh runs it (the system's python3 on the
file, from the checkout) and as the tests render it: the same text. Mosquitto running it is tests/venue/test_faults."""

from __future__ import annotations

import subprocess

import pytest

from scoreboard.adapters.mqtt import Topics
from scoreboard.venue import bridge
from tests.deploy.staging import REPO

TEXT = bridge.render_table_bridge("bar7", "venue.local", 1883, "bar7", "s3cret")
LINK = "l1nk-pw"


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_the_bridge_sends_the_tables_topics_out_at_qos_1_with_a_session_that_outlives_a_drop():
    for line in ("connection devetka-venue", "address venue.local:1883", "bridge_protocol_version mqttv311",
                 f"remote_clientid {bridge.link_client_id('devetka-bridge-bar7', 's3cret')}", "remote_username bar7",
                 "remote_password s3cret",
                 "cleansession false", f"keepalive_interval {bridge.KEEPALIVE_S}", "restart_timeout 1 2",
                 "notifications true", "notification_topic devetka/bar7/bridge",
                 "topic devetka/bar7/state out 1", "topic devetka/bar7/event out 1",
                 "topic devetka/bar7/availability out 1"):
        assert line in lines(TEXT), line
    assert "bridge_cafile" not in TEXT


def test_a_links_client_id_takes_its_password_to_make():
    """A guest who knows a table's id and login cannot make its bridge's id; a new password makes a new id."""
    made = bridge.link_client_id("devetka-bridge-bar7", "s3cret")
    assert made.startswith("devetka-bridge-bar7-") and len(made) == len("devetka-bridge-bar7-") + 20
    assert made == bridge.link_client_id("devetka-bridge-bar7", "s3cret")
    assert made != bridge.link_client_id("devetka-bridge-bar7", "s3cret2")
    assert "s3cret" not in made


def test_only_the_daemons_own_topics_and_the_director_s_calls_and_beats_cross_not_the_bridges_notification():
    """What the daemon publishes (docs/mqtt.md) goes out, with its answers on cmd/result; only cmd (the director's
    calls) and the director's heartbeat come in; Home Assistant's discovery stays on the table, and so does the
    bridge topic's local copy, which 2.0.11 would otherwise send on after the live one."""
    daemon = Topics.of("devetka", "bar7", "homeassistant")
    topics = [line.split()[1:3] for line in lines(TEXT) if line.startswith("topic ")]
    assert topics == [[daemon.state, "out"], [daemon.event, "out"], [daemon.availability, "out"],
                      [daemon.cmd, "in"], [daemon.result, "out"], [daemon.heartbeat, "in"]]
    assert not any(topic.endswith("#") or "+" in topic for topic, _ in topics)


def test_tls_checks_the_venues_certificate_against_the_ca():
    text = bridge.render_table_bridge("bar7", "venue.local", 8883, "bar7", "s3cret", "/etc/mosquitto/certs/ca.crt")
    assert lines(text)[-3:] == ["bridge_cafile /etc/mosquitto/certs/ca.crt", "bridge_tls_version tlsv1.2",
                                "bridge_insecure false"]


@pytest.mark.parametrize(("args", "named"), [
    (("bar 7", "venue.local", 1883, "bar7", "s3cret"), "the table id"),
    (("bar7", "venue local", 1883, "bar7", "s3cret"), "the venue's host"),
    (("bar7", "venue.local", 0, "bar7", "s3cret"), "the venue's port"),
    (("bar7", "venue.local", 1883, "bar 7", "s3cret"), "the venue user"),
    (("bar7", "venue.local", 1883, "bar7", "two words"), "the venue password"),
    (("bar7", "venue.local", 1883, "bar7", "s3cret\nconnection evil"), "the venue password"),
])
def test_a_value_mosquitto_would_read_otherwise_is_refused_by_name(args, named):
    with pytest.raises(ValueError, match=named):
        bridge.render_table_bridge(*args)


def test_the_venue_broker_lets_no_anonymous_client_in_and_bridges_the_tables_one_way_to_its_readers_broker():
    text = lines(bridge.render_venue_broker(LINK))
    tables = text.index(f"listener {bridge.VENUE_TABLES_PORT}")
    page = text.index(f"listener {bridge.VENUE_PAGE_PORT}")
    link = text.index("connection devetka-readers")
    assert text[:tables] == ["per_listener_settings true", "persistence false", "upgrade_outgoing_qos true",
                             "set_tcp_nodelay true"]
    assert text[tables + 1:page] == ["allow_anonymous false", "use_username_as_clientid true",
                                     f"password_file {bridge.VENUE_PASSWORD_FILE}",
                                     f"acl_file {bridge.VENUE_TABLES_ACL_FILE}"]
    assert text[page + 1:link] == ["protocol websockets", "allow_anonymous false", "use_username_as_clientid true",
                                   f"password_file {bridge.VENUE_PAGE_PASSWORD_FILE}",
                                   f"acl_file {bridge.VENUE_PAGE_ACL_FILE}", f"http_dir {bridge.VENUE_BOARD_DIR}"]
    assert text[link + 1:] == [
        f"address 127.0.0.1:{bridge.VENUE_READERS_PORT}", "bridge_protocol_version mqttv311", "try_private false",
        f"remote_clientid {bridge.link_client_id('devetka-readers-link', LINK)}",
        f"remote_username {bridge.VENUE_LINK_USER}", f"remote_password {LINK}", "cleansession false",
        "keepalive_interval 10", "restart_timeout 1 2", "notifications true",
        f"notification_topic {bridge.VENUE_LINK_TOPIC}", "topic devetka/# out 1"]
    assert sum(line.startswith("allow_anonymous true") for line in text) == 0
    with pytest.raises(ValueError, match="the venue link's password"):
        bridge.render_venue_broker("two words")


def test_with_tls_the_tables_may_also_come_over_tls_with_the_same_logins_and_acl():
    plain, text = lines(bridge.render_venue_broker(LINK)), lines(bridge.render_venue_broker(LINK, tls=True))
    tables = plain.index(f"listener {bridge.VENUE_TABLES_PORT}")
    page = plain.index(f"listener {bridge.VENUE_PAGE_PORT}")
    tls = text.index(f"listener {bridge.VENUE_TLS_PORT}")
    assert text[:tls] == plain[:page]
    assert text[tls + 1:tls + 4] == [f"certfile {bridge.VENUE_CERT_FILE}", f"keyfile {bridge.VENUE_KEY_FILE}",
                                     "tls_version tlsv1.2"]
    assert text[tls + 4:tls + 4 + page - tables - 1] == plain[tables + 1:page]
    assert text[tls + 4 + page - tables - 1:] == plain[page:]


def test_a_venue_elsewhere_moves_only_its_ports_addresses_and_files():
    """What a demo or a test runs is the shipped text with those words changed, and nothing else."""
    shipped = bridge.render_venue_broker(LINK, tls=True)
    moved = bridge.render_venue_broker(LINK, tls=True, tables_port=11883, page_port=19001, readers_port=11884,
                                       tls_port=18883, bind="127.0.0.1", etc="/tmp/venue")
    for port, here in ((bridge.VENUE_TABLES_PORT, 11883), (bridge.VENUE_PAGE_PORT, 19001),
                       (bridge.VENUE_TLS_PORT, 18883)):
        shipped = shipped.replace(f"listener {port}\n", f"listener {here} 127.0.0.1\n")
    shipped = shipped.replace(f"address 127.0.0.1:{bridge.VENUE_READERS_PORT}\n", "address 127.0.0.1:11884\n")
    assert moved == shipped.replace(" /etc/mosquitto/", " /tmp/venue/")


def test_each_table_login_writes_under_its_own_id_reads_its_calls_and_browsers_only_read():
    assert lines(bridge.render_venue_acl(["t1", "t2"])) == [
        "user t1", "topic write devetka/t1/#", "topic read devetka/t1/cmd", "topic read devetka/director/heartbeat",
        "user t2", "topic write devetka/t2/#", "topic read devetka/t2/cmd", "topic read devetka/director/heartbeat",
        "user director", "topic readwrite devetka/director/#", "topic write devetka/+/cmd", "topic read devetka/#"]
    with pytest.raises(ValueError, match="a table id"):
        bridge.render_venue_acl(["t1", "t 2"])
    with pytest.raises(ValueError, match="a table id may not be 'operator': that is the operator's login"):
        bridge.render_venue_acl(["operator"])


def test_the_operator_writes_only_the_directors_requests_and_reads_only_the_director():
    assert lines(bridge.render_page_acl()) == [
        "user operator", "topic write devetka/director/request/#", "topic read devetka/director/#"]


def test_install_sh_gets_the_same_text_from_the_system_python(tmp_path):
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    run = [  # as deploy/venue.sh runs it: /usr/bin/python3 on the file, no venv, nothing of scoreboard imported
        "python3", str(REPO / "scoreboard/venue/bridge.py")]
    out = subprocess.run([*run, "table", "--table-id", "bar7", "--host", "venue.local", "--port", "1883",
                          "--user", "bar7", "--password-file", str(secret)],
                         capture_output=True, text=True, check=True, timeout=60, cwd=tmp_path)
    assert out.stdout == TEXT
    out = subprocess.run([*run, "table", "--table-id", "bar7", "--host", "venue.local", "--port", "1883",
                          "--user", "bar7", "--password-file", "-"], input="s3cret\n",
                         capture_output=True, text=True, check=True, timeout=60, cwd=tmp_path)
    assert out.stdout == TEXT
    link = tmp_path / "link"
    link.write_text(LINK + "\n")
    assert subprocess.run([*run, "venue", "--link-password-file", str(link)], capture_output=True, text=True,
                          check=True, timeout=60, cwd=tmp_path).stdout == bridge.render_venue_broker(LINK)
    refused = subprocess.run([*run, "venue-acl", "t 1"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (refused.returncode, refused.stderr) == (2, "install: error: a table id must be letters, digits, '-' "
                                                       "and '_', got 't 1'\n")


def test_no_table_may_take_the_directors_topic_level():
    with pytest.raises(ValueError, match="a table id may not be 'director': devetka/director/ is the director's"):
        bridge.render_venue_acl(["table1", "director"])
    with pytest.raises(ValueError, match="the table id may not be 'director'"):
        bridge.render_table_bridge("director", "venue.local", 1883, "director", "secret")
