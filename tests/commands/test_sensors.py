"""``devetka sensors`` (scoreboard/commands/sensors.py): the installer's live view, JSON lines, sources, stop.

The command is run as the installed console script where it matters (signals, exit status); the view is
checked line by line. Reading a real microcontroller end to end is tests/firmware_bridge/test_end_to_end.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from scoreboard.commands.sensors import WiringView, json_line
from scoreboard.core.inputs import Cushion, Pocket, Strike
from scoreboard.sensing.interface import Health
from tests.commands.test_main import devetka, run

WAIT = 60.0


def test_the_view_shows_each_line_as_it_fires_with_the_counts_per_pocket():
    view = WiringView()
    lines = [
        view.show(Health("serial", "link", "online", "frames arriving on /dev/ttyACM0", t=10.0)),
        view.show(Strike(t=10.5, src="serial")),
        view.show(Cushion(None, "left_head", t=11.0, src="serial")),
        view.show(Pocket(3, "foot_left", t=11.25, src="serial")),
        view.show(Pocket(None, "foot_left", t=12.0, src="gpio")),
        view.show(Pocket(0, None, t=12.5, src="gpio")),
        view.show(Health("serial", "pocket:side_right", "missed_pockets", "counter went from 1 to 2", 1, t=13.0)),
    ]
    assert lines == [
        "    0.000  serial  ONLINE   link  frames arriving on /dev/ttyACM0",
        "    0.500  serial  strike",
        "    1.000  serial  cushion  rail left_head  ball ?",
        "    1.250  serial  pocket   foot_left   ball 3   | pockets HL 0  HR 0  SL 0  SR 0  FL 1  FR 0",
        "    2.000  gpio    pocket   foot_left   ball ?   | pockets HL 0  HR 0  SL 0  SR 0  FL 2  FR 0",
        "    2.500  gpio    pocket   ?           ball 0   | pockets HL 0  HR 0  SL 0  SR 0  FL 2  FR 0  ?? 1",
        "    3.000  serial  missed_pockets pocket:side_right [1]  counter went from 1 to 2",
    ]


def test_the_summary_tells_counts_links_and_the_faults_still_open():
    view = WiringView()
    view.show(Health("serial", "link", "offline", "unplugged", t=1.0))
    view.show(Health("gpio", "pocket:head_left", "fault", "line active for 5.0 s", t=2.0))
    view.show(Health("gpio", "strike", "fault", "line active for 5.0 s", t=2.0))
    view.show(Health("gpio", "strike", "ok", "line clear", t=3.0))
    view.show(Cushion(t=4.0, src="gpio"))
    assert view.summary() == [
        "pockets HL 0  HR 0  SL 0  SR 0  FL 0  FR 0",
        "cushions 1  strikes 0",
        "link serial: offline (unplugged)",
        "open faults: gpio pocket:head_left (line active for 5.0 s)",
    ]


def test_json_lines_are_match_log_inputs_and_health():
    assert json.loads(json_line(Pocket(None, "side_left", t=2.5, src="serial"))) == {
        "type": "pocket", "pocket": "side_left", "t": 2.5, "src": "serial"}
    assert json.loads(json_line(Health("serial", "link", "lost_frames", "gap", 3, t=1.0))) == {
        "type": "health", "source": "serial", "subject": "link", "status": "lost_frames", "detail": "gap",
        "count": 3, "t": 1.0}


@pytest.mark.parametrize(("args", "config", "message"), [
    ((), None, b"name a sensor source: --serial PATH"),
    (("--gpio",), None, b"--gpio takes its pins from [sensors.gpio] of a config file"),
    (("--config", "{config}"), "[sensors.gpio]\npockets = { foot_lft = 24 }\n",
     b"sensors.gpio.pockets.foot_lft"),
    (("--config", "{config}"), "[sensors.filter]\nlockout_ms = 20\n", b"turns on no sensor source"),
    (("--config", "{config}", "--gpio"), "[sensors.serial]\nport = '/dev/x'\n", b"--gpio takes its pins"),
])
def test_a_command_line_that_cannot_run_says_why(tmp_path, args, config, message):
    path = tmp_path / "table.toml"
    if config is not None:
        path.write_text(config)
    result = run("sensors", *[arg.format(config=path) for arg in args])
    assert result.returncode == 2
    assert result.stderr.startswith(b"devetka sensors: ") and message in result.stderr


def start(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([*devetka(), "sensors", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_it_runs_until_stopped_and_then_exits_with_0_and_a_summary(tmp_path, stop):
    port = tmp_path / "ttyACM0"
    process = start("--serial", str(port))
    assert process.stdout.readline().decode() == f"watching serial {port} (Ctrl-C stops)\n"
    first = process.stdout.readline().decode()
    assert first.split() == ["0.000", "serial", "OFFLINE", "link", "waiting", "for", str(port), "to", "appear"]
    process.send_signal(stop)
    out, err = process.communicate(timeout=WAIT)
    assert process.returncode == 0, err
    assert out.decode().splitlines() == [
        "--- stopped",
        "pockets HL 0  HR 0  SL 0  SR 0  FL 0  FR 0",
        "cushions 0  strikes 0",
        f"link serial: offline (waiting for {port} to appear)",
        "open faults: none",
    ]


def test_with_only_a_config_it_watches_the_sources_the_config_turns_on(tmp_path):
    port = tmp_path / "bridge"
    config = tmp_path / "table.toml"
    config.write_text(f"[sensors.serial]\nport = '{port}'\n")
    process = start("--config", str(config), "--json")
    line = json.loads(process.stdout.readline())
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=WAIT)
    assert process.returncode == 0
    assert (line["source"], line["status"], line["detail"]) == ("serial", "offline", f"waiting for {port} to appear")


def test_gpio_sensors_from_the_config_start_and_stop_cleanly(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text("[sensors.gpio]\npockets = { foot_left = 24 }\nstrike = 20\n")
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    process = start("--gpio", "--config", str(config), env=env)
    assert process.stdout.readline() == b"watching gpio pocket:foot_left, strike (Ctrl-C stops)\n"
    # Nothing fires on mock pins: it keeps watching until told to stop.
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=0.5)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=WAIT)
    assert process.returncode == 0, err
    assert b"Traceback" not in err
    assert out.decode().splitlines()[:2] == ["--- stopped", "pockets HL 0  HR 0  SL 0  SR 0  FL 0  FR 0"]
