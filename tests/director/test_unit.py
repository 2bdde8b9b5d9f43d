"""The director's systemd unit (deploy/systemd/devetka-director.service): systemd's own exposure check, and an
ExecStart that the real command line takes."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

from scoreboard.commands.main import parser
from tests.paths import REPO

UNIT = REPO / "deploy" / "systemd" / "devetka-director.service"


def test_the_unit_is_hardened_as_the_tables_daemon_is():
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: scripts/setup.sh installs the systemd package"
    out = subprocess.run([tool, "security", "--offline=yes", str(UNIT)], capture_output=True, text=True)
    exposure = float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out.stdout).group(1))
    assert exposure <= 3.0, out.stdout


def test_its_execstart_is_a_director_command_line():
    line = next(line for line in UNIT.read_text().splitlines() if line.startswith("ExecStart="))
    argv = shlex.split(line.removeprefix("ExecStart="))
    assert argv[0] == "/opt/devetka/venv/bin/devetka"
    args = parser().parse_args(argv[1:])
    assert (args.command, args.store, args.socket, args.mqtt_host, args.mqtt_port) == (
        "director", "/var/lib/devetka-director/director.sqlite3", "/run/devetka/director.sock", "127.0.0.1", 1883)
    # The password install.sh makes for the director's login (deploy/venue-director.sh; tests/deploy/
    # test_venue_director.py installs the unit on either engine).
    assert (args.mqtt_user, args.mqtt_password_file) == ("director", "/etc/devetka/venue-director")
