"""deploy/install.sh in its staging mode (``--root DIR``), run for real: where the files land, their modes and
owners (set, or recorded in the manifest where the user does not exist here), the machine's own steps printed and
not run, and a second run that changes nothing while the config and the passwords are kept."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from scoreboard.config.table import load
from tests.deploy.staging import INSTALL, MANIFEST, REPO, credentials, exists_here, install, manifest, tree

# Where docs/deploy.md says each file goes, with the mode and owner it must have.
EXPECTED = {
    "/etc/devetka": ("dir", "0750", "root:devetka"),
    "/etc/devetka/table.toml": ("file", "0640", "root:devetka"),
    "/etc/devetka/mqtt-credentials": ("file", "0600", "root:root"),
    "/etc/devetka/mqtt-operators": ("file", "0644", "root:root"),
    "/var/lib/devetka": ("dir", "0750", "devetka:devetka"),
    "/var/lib/devetka-ui": ("dir", "0750", "devetka-ui:devetka-ui"),
    "/var/lib/devetka-ui/config.ini": ("file", "0644", "devetka-ui:devetka-ui"),
    "/etc/systemd/system/devetka.service": ("file", "0644", "root:root"),
    "/etc/systemd/system/devetka-ui.service": ("file", "0644", "root:root"),
    "/etc/udev/rules.d/99-devetka-bridge.rules": ("file", "0644", "root:root"),
    "/etc/mosquitto/conf.d/devetka.conf": ("file", "0644", "root:root"),
    "/etc/mosquitto/devetka.acl": ("file", "0600", "mosquitto:mosquitto"),
    "/etc/mosquitto/devetka.passwd": ("file", "0600", "mosquitto:mosquitto"),
    "/opt/devetka": ("dir", "0755", "root:root"),
}


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """A staging root after one run of install.sh, and that run."""
    root = tmp_path_factory.mktemp("stage") / "root"
    run = install(root)
    assert run.returncode == 0, run.stderr
    return root, run


def test_help_says_what_it_does_and_how_to_stage():
    out = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    assert out.stdout.startswith("Usage: sudo deploy/install.sh [--root DIR]")
    assert "--root DIR" in out.stdout and "/etc/devetka/table.toml" in out.stdout


def test_an_unknown_option_is_refused_by_name(tmp_path):
    run = install(tmp_path / "root", "--rooot")
    assert run.returncode != 0
    assert "install: error: unknown option: --rooot" in run.stderr
    assert not (tmp_path / "root" / "etc").exists()


def test_files_land_where_the_docs_say_with_their_modes_and_owners(staged):
    root, _ = staged
    recorded = manifest(root)
    for path, (kind, mode, owner) in EXPECTED.items():
        assert recorded[path][:3] == (kind, mode, owner), path
        assert (root / path.lstrip("/")).is_dir() == (kind == "dir"), path


def test_the_manifest_lists_every_staged_file_as_it_is(staged):
    """Modes always match; owners match where that user exists here, else the file is left to whoever ran it."""
    root, _ = staged
    recorded = manifest(root)
    found = tree(root)
    files = {path for path, (_, _, digest) in found.items() if digest != "-"}
    assert files - {"/" + MANIFEST} == {path for path, entry in recorded.items() if entry[0] == "file"}
    runner = f"{os.geteuid()}"
    for path, (kind, mode, owner, digest) in recorded.items():
        actual_mode, actual_owner, actual_digest = found[path]
        assert actual_mode == mode, path
        if kind == "file":
            assert actual_digest == digest, path
        if os.geteuid() == 0 and exists_here(owner):
            assert actual_owner == owner, path
        else:
            assert (root / path.lstrip("/")).stat().st_uid == int(runner), path


def test_the_machines_own_steps_are_printed_not_run(staged):
    root, run = staged
    steps = run.stdout.splitlines()
    assert all(step.startswith("would run: ") for step in steps), steps
    wanted = [r"apt-get install -y -q python3 python3-venv mosquitto mosquitto-clients .*libmtdev1",
              r"useradd --system .* devetka$", r"useradd --system .* devetka-ui$",
              r"usermod --append --groups gpio,dialout devetka$",
              r"python3 -m venv /opt/devetka/venv$",
              r"/opt/devetka/venv/bin/python -m pip install .* " + re.escape(str(REPO)) + " lgpio$",
              r"systemctl enable mosquitto.service devetka.service devetka-ui.service$",
              r"systemctl restart mosquitto.service devetka.service devetka-ui.service$"]
    for pattern in wanted:
        assert any(re.search(pattern, step) for step in steps), pattern
    assert not (root / "opt/devetka/venv").exists()


def test_a_second_run_changes_nothing(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    before = tree(root)
    again = install(root)
    assert again.returncode == 0, again.stderr
    assert tree(root) == before
    assert "wrote" not in again.stderr and "password set" not in again.stderr


def test_the_config_and_passwords_are_kept_and_the_acl_follows_the_table_id(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    config = root / "etc/devetka/table.toml"
    edited = config.read_text().replace('id = "table1"', 'id = "bar7"')
    config.write_text(edited)
    passwords = credentials(root)
    passwd = (root / "etc/mosquitto/devetka.passwd").read_text()

    run = install(root)
    assert run.returncode == 0, run.stderr
    assert config.read_text() == edited
    assert credentials(root) == passwords
    assert (root / "etc/mosquitto/devetka.passwd").read_text() == passwd
    acl = (root / "etc/mosquitto/devetka.acl").read_text()
    assert "topic write devetka/bar7/#" in acl and "devetka/table1" not in acl


def test_operators_get_a_password_and_commands_and_lose_both_when_removed(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    operators = root / "etc/devetka/mqtt-operators"
    template = operators.read_text()
    operators.write_text(template + "bar-manager\n")
    assert install(root).returncode == 0
    assert set(credentials(root)) == {"devetka", "touchscreen", "dashboard", "homeassistant", "bar-manager"}
    assert "bar-manager:" in (root / "etc/mosquitto/devetka.passwd").read_text()
    assert "user bar-manager\ntopic read devetka/#\ntopic write devetka/+/cmd\n" in \
        (root / "etc/mosquitto/devetka.acl").read_text()

    operators.write_text(template)
    run = install(root)
    assert run.returncode == 0, run.stderr
    assert "MQTT user bar-manager: removed" in run.stderr
    assert "bar-manager" not in credentials(root)
    assert "bar-manager" not in (root / "etc/mosquitto/devetka.passwd").read_text()
    assert "bar-manager" not in (root / "etc/mosquitto/devetka.acl").read_text()


def test_a_bad_operator_name_or_table_id_stops_the_install_by_name(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    (root / "etc/devetka/mqtt-operators").write_text("dashboard\n")
    run = install(root)
    assert run.returncode != 0
    assert "\"dashboard\" is one of Devetka's own users" in run.stderr
    (root / "etc/devetka/mqtt-operators").write_text("")
    (root / "etc/devetka/table.toml").write_text('[table]\nid = "bar 7"\n')
    run = install(root)
    assert run.returncode != 0
    assert "table.id must be letters, digits, '-' and '_', got \"bar 7\"" in run.stderr


def test_the_staged_config_is_the_template_with_mqtt_on_and_the_daemons_login(staged):
    root, _ = staged
    config = load(root / "etc/devetka/table.toml")
    assert (config.mqtt.enabled, config.mqtt.username) == (True, "devetka")
    assert config.mqtt.password == credentials(root)["devetka"]
    assert (config.mqtt.host, config.mqtt.port) == ("127.0.0.1", 1883)  # the broker's table listener
    assert config.store.path == "/var/lib/devetka/devetka.sqlite3"
    assert config.api.socket == "/run/devetka/api.sock"
    template = (REPO / "deploy/table.example.toml").read_text().splitlines()
    staged_lines = (root / "etc/devetka/table.toml").read_text().splitlines()
    changed = [(old, new) for old, new in zip(template, staged_lines, strict=True) if old != new]
    assert [new.split(" = ")[0] for _, new in changed] == ["enabled", "host", "username", "password"]


def test_a_kept_config_without_the_mqtt_login_is_left_alone_with_a_note(tmp_path):
    root = tmp_path / "root"
    (root / "etc/devetka").mkdir(parents=True)
    (root / "etc/devetka/table.toml").write_text('[table]\nid = "bar7"\n')
    run = install(root)
    assert run.returncode == 0, run.stderr
    assert (root / "etc/devetka/table.toml").read_text() == '[table]\nid = "bar7"\n'
    assert 'set [mqtt] username = "devetka" and its password from /etc/devetka/mqtt-credentials' in run.stderr


def test_staging_needs_no_root_and_leaves_owners_to_the_runner():
    """Run as an ordinary user (nobody), staging still works: modes set, owners recorded, not applied."""
    if os.geteuid() != 0:
        pytest.skip("already not root: the other tests here are this case")
    stage = Path(tempfile.mkdtemp(prefix="devetka-stage-"))  # /tmp itself: nobody may not enter pytest's tmp
    try:
        os.chmod(stage, 0o755)
        # A copy of deploy/: the checkout may be where nobody cannot read (a clone under /root).
        install = shutil.copytree(INSTALL.parent, stage / "repo" / "deploy") / INSTALL.name
        os.chmod(stage / "repo", 0o755)
        shutil.chown(stage, "nobody")
        out = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                              "bash", str(install), "--root", str(stage / "root")],
                             capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        assert manifest(stage / "root")["/etc/mosquitto/devetka.passwd"][2] == "mosquitto:mosquitto"
        assert tree(stage / "root")["/etc/mosquitto/devetka.passwd"][:2] == ("0600", "nobody:nogroup")
        assert tree(stage / "root")["/etc/devetka/table.toml"][:2] == ("0640", "nobody:nogroup")
    finally:
        shutil.rmtree(stage)
