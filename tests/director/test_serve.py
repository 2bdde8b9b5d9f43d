"""``devetka director`` for real (scoreboard/director/serve.py): the worked examples of docs/events.md run to their
end through its socket alone; the director killed with SIGKILL between two results and started again loses and
doubles nothing; its events published retained on a real Mosquitto, the tables watched."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time

import orjson
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.commands.main import main
from scoreboard.director.server import ask
from tests.commands.test_event import EXAMPLES


class RunningDirector:
    def __init__(self, tmp_path, *extra: str) -> None:
        self.store = tmp_path / "director.sqlite3"
        self.socket = tmp_path / "director.sock"
        self.extra = extra
        self.process: subprocess.Popen | None = None

    def start(self) -> RunningDirector:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.commands.main", "director", "--store", str(self.store), "--socket",
             str(self.socket), *self.extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line == f"devetka director: ready on {self.socket}\n", self.process.stderr.read()
        return self

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            code = self.process.wait(timeout=20)
            assert code == 0, self.process.stderr.read()[-3000:]
            self.process.stdout.close()
            self.process.stderr.close()


@pytest.fixture
def director(tmp_path):
    running = RunningDirector(tmp_path).start()
    yield running
    running.stop()


def event(capsys, socket, *argv):
    code = main(["event", *argv, "--socket", str(socket)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_format_runs_to_its_end_through_the_director_as_the_doc_says(name, director, tmp_path, capsys,
                                                                          monkeypatch):
    toml, sh, shown = EXAMPLES[name]
    (tmp_path / f"{name}.toml").write_text(toml)
    monkeypatch.chdir(tmp_path)
    out = ""
    for line in sh.splitlines():
        argv = shlex.split(line, comments=True)
        code, out, err = event(capsys, director.socket, *argv[2:])
        refused = line.partition("# refused: ")[2].strip()
        assert (code, err) == ((1, f"devetka event {argv[2]}: {refused}\n") if refused else (0, "")), line
    assert out == shown


def test_sigkill_between_two_results_loses_and_doubles_nothing(tmp_path, capsys, monkeypatch):
    toml, sh, shown = EXAMPLES["double"]
    (tmp_path / "double.toml").write_text(toml)
    monkeypatch.chdir(tmp_path)
    running = RunningDirector(tmp_path).start()
    try:
        lines = [shlex.split(line, comments=True)[2:] for line in sh.splitlines() if "# refused" not in line]
        for n, argv in enumerate(lines):
            if argv[0] == "result":
                # each result comes from a table: its store id and match id, sent twice around a kill
                argv = [*argv, "--table-store", "c0ffee000001", "--match-id", str(n)]
            assert event(capsys, running.socket, *argv)[0] == 0
            if argv[:2] == ["result", "L2-1"]:
                running.kill()
                running.start()
                code, out, _ = event(capsys, running.socket, *argv)
                assert code == 0 and out.startswith("L2-1: this result is counted already\n")
        assert event(capsys, running.socket, "status")[1] == shown
        state = ask(running.socket, {"cmd": "status"})["state"]
        assert [(m["match"], m["score"], m["winner"]) for m in state["matches"]] == [
            ("W1-1", [5, 2], "Ana"), ("W1-2", [3, 5], "Cvita"), ("W2-1", [5, 4], "Ana"), ("L1-1", [4, 1], "Dino"),
            ("L2-1", [4, 2], "Dino"), ("GF-1", [5, 7], "Dino"), ("GF-2", [7, 6], "Ana")]
        assert state["records"] == 1 + 1 + 7  # created, the draw, seven results: none doubled
    finally:
        running.stop()


def test_a_second_director_on_the_same_socket_is_refused(director, tmp_path):
    second = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "director", "--store",
                             str(tmp_path / "other.sqlite3"), "--socket", str(director.socket)],
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 1
    assert second.stderr == f"devetka director: another director is listening on {director.socket}\n"


def test_no_director_running_is_said_and_nothing_is_written(tmp_path, capsys):
    code, out, err = event(capsys, tmp_path / "none.sock", "status")
    assert code == 1 and err.startswith(f"devetka event status: no director answers on {tmp_path / 'none.sock'}")


def test_the_director_publishes_each_event_retained_and_watches_the_tables(broker, tmp_path, capsys, monkeypatch):
    running = RunningDirector(tmp_path, "--mqtt-host", "127.0.0.1", "--mqtt-port", str(broker.port)).start()
    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1")
    table.connect("127.0.0.1", broker.port)
    table.loop_start()
    try:
        table.publish("devetka/t1/availability", "online", qos=1, retain=True).wait_for_publish(5)
        table.publish("devetka/t2/availability", "online", qos=1, retain=True).wait_for_publish(5)
        table.publish("devetka/t2/state", orjson.dumps({"players": ["Ana", "Ben"], "match_winner": None}),
                      qos=1, retain=True).wait_for_publish(5)
        toml, sh, _ = EXAMPLES["single"]
        (tmp_path / "single.toml").write_text(toml)
        monkeypatch.chdir(tmp_path)
        for line in sh.splitlines():
            event(capsys, running.socket, *shlex.split(line, comments=True)[2:])
        seen: dict[str, bytes] = {}
        reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board")
        reader.on_message = lambda client, userdata, message: seen.__setitem__(message.topic, message.payload)
        reader.connect("127.0.0.1", broker.port)
        reader.subscribe("devetka/director/#", qos=1)
        reader.loop_start()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and ("devetka/director/event/1" not in seen
                                               or b'"winner":"Ana"' not in seen["devetka/director/event/1"]):
            time.sleep(0.05)
        reader.loop_stop()
        reader.disconnect()
        assert seen["devetka/director/availability"] == b"online"
        published = orjson.loads(seen["devetka/director/event/1"])
        assert published == ask(running.socket, {"cmd": "status"})["state"] and published["winner"] == "Ana"
        tables = ask(running.socket, {"cmd": "tables"})["tables"]
        assert tables["free"] == ["t1"] and tables["seen"]["t2"] == {"online": True, "in_play": True}
    finally:
        table.loop_stop()
        table.disconnect()
        running.stop()
