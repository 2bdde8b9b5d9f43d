"""deploy/install.sh's venue flags in its staging mode (``--root DIR``), run for real: the table's bridge
(``--venue``, kept and made again on later runs, ``--no-venue``) and the venue's box (``--venue-server``, the
tables' logins): every file where docs/venue.md says, with its mode and owner in the manifest, the text of
scoreboard/venue/bridge.py, and a second run that changes nothing."""

from __future__ import annotations

import subprocess

import pytest

from scoreboard.venue import bridge, nats
from tests.deploy.staging import INSTALL, MANIFEST, install, manifest, tree
from tests.venue.hall import venue_logins

TABLE_FILES = {  # path -> (kind, mode, owner) on a table bridged to the venue
    "/etc/devetka/venue": ("file", "0644", "root:root"),
    "/etc/devetka/venue-password": ("file", "0600", "root:root"),
    bridge.TABLE_BRIDGE_FILE: ("file", "0640", "root:mosquitto"),
}
VENUE_FILES = {  # path -> (kind, mode, owner) on the venue's box
    "/etc/devetka/venue-tables": ("file", "0600", "root:root"),
    bridge.VENUE_BROKER_FILE: ("file", "0640", "root:mosquitto"),
    bridge.VENUE_TABLES_ACL_FILE: ("file", "0600", "mosquitto:mosquitto"),
    bridge.VENUE_PASSWORD_FILE: ("file", "0600", "mosquitto:mosquitto"),
    bridge.VENUE_LINK_SECRET_FILE: ("file", "0600", "root:root"),
    bridge.VENUE_PAGE_PASSWORD_FILE: ("file", "0600", "mosquitto:mosquitto"),
    bridge.VENUE_PAGE_ACL_FILE: ("file", "0600", "mosquitto:mosquitto"),
    "/etc/devetka/venue-director": ("file", "0600", "devetka-director:devetka"),  # the director's (its unit's user)
    "/etc/devetka/venue-operator": ("file", "0600", "root:root"),
    nats.NODE_CONFIG_FILE: ("file", "0640", "root:nats"),
    nats.READERS_STORE_DIR: ("dir", "0750", "nats:nats"),
}


def link_password(root) -> str:
    return at(root, bridge.VENUE_LINK_SECRET_FILE).read_text().strip()


def at(root, path: str):
    return root / path.lstrip("/")


def assert_the_manifest_is_the_tree(root) -> None:
    """Every staged file is in the manifest with its mode and checksum, and nothing else is."""
    recorded, found = manifest(root), tree(root)
    files = {path for path, (_, _, digest) in found.items() if digest != "-"} - {"/" + MANIFEST}
    assert files == {path for path, entry in recorded.items() if entry[0] == "file"}
    for path, (kind, mode, _, digest) in recorded.items():
        assert found[path][0] == mode, path
        if kind == "file":
            assert found[path][2] == digest, path


@pytest.fixture
def password(tmp_path):
    secret = tmp_path / "venue-password"
    secret.write_text("Tbl-1_pass\n")
    return secret


def bridged(root, password, *more: str):
    run = install(root, "--venue", "venue.local", "--venue-user", "table1", "--venue-password-file", str(password),
                  *more)
    assert run.returncode == 0, run.stderr
    return run


def test_venue_stages_the_bridge_of_bridge_py_and_a_second_run_without_flags_keeps_it(tmp_path, password):
    root = tmp_path / "root"
    bridged(root, password)
    assert at(root, bridge.TABLE_BRIDGE_FILE).read_text() == bridge.render_table_bridge(
        "table1", "venue.local", 1883, "table1", "Tbl-1_pass")
    recorded = manifest(root)
    for path, entry in TABLE_FILES.items():
        assert recorded[path][:3] == entry, path
    assert_the_manifest_is_the_tree(root)
    before = tree(root)
    again = install(root)
    assert again.returncode == 0, again.stderr
    assert tree(root) == before and "wrote" not in again.stderr
    again = bridged(root, password)
    assert tree(root) == before and "wrote" not in again.stderr


def test_the_bridge_follows_a_new_table_id(tmp_path, password):
    root = tmp_path / "root"
    bridged(root, password)
    config = at(root, "/etc/devetka/table.toml")
    config.write_text(config.read_text().replace('id = "table1"', 'id = "bar7"'))
    run = install(root)
    assert run.returncode == 0, run.stderr
    text = at(root, bridge.TABLE_BRIDGE_FILE).read_text()
    assert "topic devetka/bar7/state out 1" in text and "devetka/table1" not in text
    assert "note: the venue login table1 is not this table's id bar7" in run.stderr
    assert_the_manifest_is_the_tree(root)


def test_no_venue_removes_every_file_of_the_bridge(tmp_path, password):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    plain = tree(root)
    bridged(root, password, "--venue-tls-ca", str(password))  # any readable file stands for the CA here
    assert at(root, "/etc/mosquitto/certs/devetka-venue-ca.crt").exists()
    run = install(root, "--no-venue")
    assert run.returncode == 0, run.stderr
    for path in [*TABLE_FILES, "/etc/mosquitto/certs/devetka-venue-ca.crt"]:
        assert f"removed {path}" in run.stderr
        assert not at(root, path).exists() and path not in manifest(root)
    assert {path: entry for path, entry in tree(root).items() if path != "/" + MANIFEST} == \
        {path: entry for path, entry in plain.items() if path != "/" + MANIFEST} | \
        {"/etc/mosquitto/certs": tree(root)["/etc/mosquitto/certs"]}
    again = install(root, "--no-venue")
    assert again.returncode == 0 and "removed" not in again.stderr and "wrote" not in again.stderr


def test_tls_copies_the_ca_and_bridges_to_port_8883(tmp_path, password):
    root = tmp_path / "root"
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    bridged(root, password, "--venue-tls-ca", str(ca))
    text = at(root, bridge.TABLE_BRIDGE_FILE).read_text()
    assert "address venue.local:8883\n" in text
    assert "bridge_cafile /etc/mosquitto/certs/devetka-venue-ca.crt\n" in text
    assert manifest(root)["/etc/mosquitto/certs/devetka-venue-ca.crt"][:3] == ("file", "0644", "root:root")
    assert at(root, "/etc/mosquitto/certs/devetka-venue-ca.crt").read_text() == ca.read_text()
    before = tree(root)
    again = install(root)
    assert again.returncode == 0 and tree(root) == before and "wrote" not in again.stderr


def test_the_password_may_come_on_standard_input(tmp_path):
    root = tmp_path / "root"
    out = subprocess.run(["bash", str(INSTALL), "--root", str(root), "--venue", "10.0.0.2:1999", "--venue-user",
                          "table1", "--venue-password-file", "-"], input="from-stdin\n", capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert at(root, bridge.TABLE_BRIDGE_FILE).read_text() == bridge.render_table_bridge(
        "table1", "10.0.0.2", 1999, "table1", "from-stdin")


@pytest.mark.parametrize(("args", "message"), [
    (("--venue", "venue.local"), "--venue needs --venue-user USER"),
    (("--venue", "venue.local", "--venue-user", "table1"), "--venue needs --venue-password-file FILE"),
    (("--venue", "venue local", "--venue-user", "t", "--venue-password-file", "/dev/null"), "is not a host name"),
    (("--venue", "venue:99999", "--venue-user", "t", "--venue-password-file", "/dev/null"), "is not a port"),
    (("--venue", "venue", "--venue-user", "t", "--venue-password-file", "/nonexistent"), "cannot read /nonexistent"),
    (("--venue", "venue", "--venue-user", "t", "--venue-password-file", "/dev/null"), "is empty"),
    (("--venue-user", "table1"), "go with --venue HOST[:PORT]"),
    (("--no-venue", "--venue", "venue"), "--no-venue removes the bridge: it takes no --venue options"),
    (("--venue-server", "--venue", "venue"), "--venue-server is the venue's own box"),
    (("--venue-add-table", "bar 7"), "a table id must be letters, digits, '-' and '_', got \"bar 7\""),
])
def test_a_bad_venue_option_stops_the_install_before_anything_is_written(tmp_path, args, message):
    run = install(tmp_path / "root", *args)
    assert run.returncode != 0
    assert message in run.stderr
    assert not (tmp_path / "root" / "etc").exists()


def test_venue_server_stages_the_broker_and_the_tables_logins(tmp_path):
    root = tmp_path / "root"
    run = install(root, "--venue-add-table", "t1", "--venue-add-table", "t2")
    assert run.returncode == 0, run.stderr
    logins = venue_logins(root)
    assert set(logins) == {"t1", "t2"}
    for table_id, secret in logins.items():
        assert f"venue table {table_id}: login {table_id}, password {secret}" in run.stderr
    assert "venue tables: t1 t2" in run.stderr
    link = link_password(root)
    assert len(link) >= 24
    assert at(root, bridge.VENUE_BROKER_FILE).read_text() == bridge.render_venue_broker(link)
    assert at(root, nats.NODE_CONFIG_FILE).read_text() == nats.render_readers(link)
    assert at(root, bridge.VENUE_TABLES_ACL_FILE).read_text() == bridge.render_venue_acl(["t1", "t2"])
    assert not at(root, bridge.VENUE_BOARD_ACL_FILE).exists()
    # The tables' listener: each table's login and the director's; the page listener: the operator's alone.
    assert [line.split(":")[0] for line in at(root, bridge.VENUE_PASSWORD_FILE).read_text().splitlines()] == \
        ["t1", "t2", bridge.DIRECTOR_LOGIN]
    assert [line.split(":")[0] for line in at(root, bridge.VENUE_PAGE_PASSWORD_FILE).read_text().splitlines()] == \
        [bridge.OPERATOR_LOGIN]
    assert at(root, bridge.VENUE_PAGE_ACL_FILE).read_text() == bridge.render_page_acl()
    assert "the operator's page http://" in run.stderr
    assert "login operator, its password in /etc/devetka/venue-operator" in run.stderr
    recorded = manifest(root)
    for path, entry in VENUE_FILES.items():
        assert recorded[path][:3] == entry, path
    table_files = ("/etc/systemd/system/devetka.service", "/etc/systemd/system/devetka-ui.service", "/var/lib/devetka",
                   "/var/lib/devetka-ui", "/etc/devetka/table.toml", "/etc/mosquitto/conf.d/devetka.conf")
    assert not set(table_files) & set(recorded), "the venue's box got a table's files"
    assert_the_manifest_is_the_tree(root)
    # The readers' broker, the venue's, then the director that logs in to it (tests/deploy/test_venue_director.py).
    assert run.stdout.splitlines()[-7:-3] == ["would run: systemctl enable nats-server.service",
                                              "would run: systemctl reload-or-restart nats-server.service",
                                              "would run: systemctl enable mosquitto.service",
                                              "would run: systemctl restart mosquitto.service"]
    assert run.stdout.splitlines()[-3:] == ["would run: systemctl daemon-reload",
                                            "would run: systemctl enable devetka-director.service",
                                            "would run: systemctl restart devetka-director.service"]


def test_adding_a_table_keeps_the_others_and_a_second_run_changes_nothing(tmp_path):
    root = tmp_path / "root"
    assert install(root, "--venue-add-table", "t1").returncode == 0
    first = venue_logins(root)
    before = tree(root)
    again = install(root, "--venue-server", "--venue-add-table", "t1")
    assert again.returncode == 0 and tree(root) == before and "wrote" not in again.stderr
    assert "would run: systemctl reload-or-restart mosquitto.service" in again.stdout.splitlines()
    assert "would run: systemctl restart mosquitto.service" not in again.stdout.splitlines()
    assert install(root, "--venue-add-table", "t2").returncode == 0
    assert venue_logins(root)["t1"] == first["t1"] and "t2" in venue_logins(root)


def test_removing_a_table_takes_its_login_and_its_acl_away(tmp_path):
    root = tmp_path / "root"
    assert install(root, "--venue-add-table", "t1", "--venue-add-table", "t2").returncode == 0
    run = install(root, "--venue-remove-table", "t2")
    assert run.returncode == 0, run.stderr
    assert "venue table t2: login removed" in run.stderr
    assert set(venue_logins(root)) == {"t1"}
    logins = [line.split(":", 1)[0] for line in at(root, bridge.VENUE_PASSWORD_FILE).read_text().splitlines() if line]
    assert logins == ["t1", bridge.DIRECTOR_LOGIN]  # by login: a password hash may well hold the letters "t2"
    assert at(root, bridge.VENUE_TABLES_ACL_FILE).read_text() == bridge.render_venue_acl(["t1"])
    assert_the_manifest_is_the_tree(root)


def test_a_table_and_the_venues_broker_do_not_share_a_box(tmp_path):
    table, venue = tmp_path / "table", tmp_path / "venue"
    assert install(table).returncode == 0
    run = install(table, "--venue-server")
    assert run.returncode != 0 and "this machine is a table" in run.stderr
    assert install(venue, "--venue-server").returncode == 0
    run = install(venue)
    assert run.returncode != 0 and "this machine is the venue's broker" in run.stderr


def test_help_names_every_venue_flag():
    out = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True, timeout=30)
    for flag in ("--venue HOST[:PORT]", "--venue-user", "--venue-password-file", "--venue-tls-ca", "--no-venue",
                 "--venue-server", "--venue-add-table ID", "--venue-remove-table ID", "--director-node N"):
        assert flag in out.stdout, flag


def test_the_venues_certificate_adds_a_tls_listener_kept_until_no_tls(tmp_path):
    root = tmp_path / "root"
    cert, key = tmp_path / "venue.crt", tmp_path / "venue.key"
    cert.write_text("certificate\n")
    key.write_text("key\n")
    run = install(root, "--venue-add-table", "t1", "--venue-tls-cert", str(cert), "--venue-tls-key", str(key))
    assert run.returncode == 0, run.stderr
    assert at(root, bridge.VENUE_BROKER_FILE).read_text() == bridge.render_venue_broker(link_password(root), tls=True)
    recorded = manifest(root)
    assert recorded[bridge.VENUE_CERT_FILE][:3] == ("file", "0644", "root:root")
    assert recorded[bridge.VENUE_KEY_FILE][:3] == ("file", "0600", "mosquitto:mosquitto")
    assert_the_manifest_is_the_tree(root)
    before = tree(root)
    again = install(root, "--venue-server")
    assert again.returncode == 0 and tree(root) == before and "wrote" not in again.stderr
    off = install(root, "--venue-no-tls")
    assert off.returncode == 0, off.stderr
    assert at(root, bridge.VENUE_BROKER_FILE).read_text() == bridge.render_venue_broker(link_password(root))
    assert not at(root, bridge.VENUE_KEY_FILE).exists() and bridge.VENUE_KEY_FILE not in manifest(root)
    assert "would run: systemctl restart mosquitto.service" in off.stdout.splitlines()  # a listener went
    assert_the_manifest_is_the_tree(root)


@pytest.mark.parametrize(("args", "message"), [
    (("--venue-tls-cert", "/dev/null"), "--venue-tls-cert and --venue-tls-key go together"),
    (("--venue-tls-cert", "/nonexistent", "--venue-tls-key", "/dev/null"), "cannot read /nonexistent"),
    (("--venue-no-tls", "--venue-tls-cert", "/dev/null", "--venue-tls-key", "/dev/null"), "--venue-no-tls removes"),
])
def test_a_bad_venue_tls_option_stops_the_install_before_anything_is_written(tmp_path, args, message):
    run = install(tmp_path / "root", *args)
    assert run.returncode != 0 and message in run.stderr
    assert not (tmp_path / "root" / "etc").exists()
