"""The local API (scoreboard/adapters/local_api/server.py) with the real parts: ``devetka run`` as a child process
on a temporary store and socket, clients on a real Unix socket, ``devetka tap`` as a child process."""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from scoreboard.referee.store import Store
from tests.disks import read_only
from tests.live import ANA_BEN, DEVETKA, LEGAL_BREAK, TIMEOUT, Daemon
from tests.soak import repeats


def tap(d: Daemon, message: str) -> subprocess.CompletedProcess:
    return subprocess.run([DEVETKA, "tap", "--socket", str(d.socket), message], capture_output=True,
                          timeout=TIMEOUT)


def stored_types(path: Path) -> list[str]:
    with Store.open_readonly(path) as store:
        return [type(item).TYPE for item in store.current_match()[1]]


def test_a_legal_break_through_the_socket(daemon):
    client = daemon.client()
    assert client.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
    for item in LEGAL_BREAK:
        answer = client.request(item)
        assert answer["ok"], answer
    state = answer["state"]
    assert state["shooter"] == 1 and state["seq"] == len(LEGAL_BREAK) and state["players"] == ["Ana", "Ben"]
    assert "Legal break" in state["last_verdict"]["words"]
    assert client.request({"cmd": "state"})["state"] == state
    client.close()


def test_a_rejected_input_is_answered_and_not_stored(daemon):
    client = daemon.client()
    client.request({"cmd": "new_match", "match_start": ANA_BEN})
    before = client.request({"cmd": "state"})["state"]
    answer = client.request({"type": "pass"})
    assert answer == {"id": client.last_id, "ok": False, "error": "pass without a push out to answer (5.6)",
                      "words": "pass without a push out to answer (5.6)", "code": "not_now"}  # words: the table's
    assert client.request({"cmd": "state"})["state"] == before
    assert client.request({"cmd": "shutdown"})["error"].startswith("unknown command 'shutdown'")
    client.close()
    assert daemon.stop() == 0
    assert stored_types(daemon.store) == ["match_start"]


def test_a_new_match_with_a_huge_race_or_a_bad_name_is_refused_with_the_reason(daemon):
    client = daemon.client()
    before = client.request({"cmd": "state"})["state"]
    for match_start, error in [
        (dict(ANA_BEN, race=[9223372036854775808, 2]), "match_start: match_start race: racks to win are at most 9999"),
        (dict(ANA_BEN, players=["A" * 100_000, "Ben"]), "match_start: match_start players: a name is at most 40"),
        (dict(ANA_BEN, players=["Ana", "Ben\x1b[2J"]), "match_start: match_start players: a name may hold only"),
    ]:
        answer = client.request({"cmd": "new_match", "match_start": match_start})
        assert not answer["ok"] and answer["error"].startswith(error), answer
        assert client.request({"cmd": "state"})["state"] == before
    client.close()
    assert daemon.stop() == 0
    with Store.open_readonly(daemon.store) as store:
        assert store.matches() == []


def test_bad_lines_are_answered_and_the_connection_stays_open(daemon):
    client = daemon.client()
    answer = client.send_raw(b"{not json\n")
    assert not answer["ok"] and answer["error"].startswith("not valid JSON") and answer["id"] is None
    answer = client.send_raw(b"[1, 2]\n")
    assert answer["error"] == "a request must be a JSON object, not list"
    client.send_raw(b"\n" + orjson.dumps({"id": "x", "type": "strike"}) + b"\n")  # a blank line is skipped
    assert client.request({"cmd": "state"})["ok"]
    client.close()


def test_undo_and_broadcasts_to_a_second_client(daemon):
    player, screen = daemon.client(), daemon.client()
    player.request({"cmd": "new_match", "match_start": ANA_BEN})
    assert screen.broadcast()["match_id"] == 1
    for item in LEGAL_BREAK:
        seq = player.request(item)["state"]["seq"]
        pushed = screen.broadcast()
        assert pushed["seq"] == seq and pushed["type"] == "state"
    assert pushed["shooter"] == 1
    undone = player.request({"type": "undo"})["state"]
    assert undone["shooter"] == 0 and _untimed(undone["undo"]) == {"type": "cushion", "ball": 5}
    assert screen.broadcast()["seq"] == undone["seq"] == len(LEGAL_BREAK) + 1
    assert not player.request({"type": "pass"})["ok"]  # no broadcast for a rejected input: the next is the strike
    player.request({"type": "settle"})
    assert screen.broadcast()["seq"] == undone["seq"] + 1
    player.close()
    screen.close()


def test_tap(daemon):
    result = tap(daemon, orjson.dumps({"cmd": "new_match", "match_start": ANA_BEN}).decode())
    assert result.returncode == 0, result.stderr
    assert orjson.loads(result.stdout)["state"]["players"] == ["Ana", "Ben"]
    refused = tap(daemon, '{"type": "pass"}')
    assert refused.returncode == 1 and orjson.loads(refused.stdout)["ok"] is False
    absent = subprocess.run([DEVETKA, "tap", "--socket", str(daemon.socket) + ".none", '{"cmd": "state"}'],
                            capture_output=True, timeout=TIMEOUT)
    assert absent.returncode == 2 and str(daemon.socket) + ".none" in absent.stderr.decode()
    garbled = tap(daemon, "{strike")
    assert garbled.returncode == 2 and "not valid JSON" in garbled.stderr.decode()


def test_the_socket_is_0660_and_removed_on_a_clean_stop(daemon):
    assert stat.S_IMODE(daemon.socket.stat().st_mode) == 0o660
    assert daemon.stop(signal.SIGINT) == 0
    assert not daemon.socket.exists()


def test_a_stale_socket_is_replaced_and_a_missing_folder_is_named(tmp_path):
    d = Daemon(tmp_path)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(d.socket))  # bound, never listening: what a killed daemon leaves
    stale.close()
    d.start()
    try:
        assert d.stop() == 0
    finally:
        d.kill()
    missing = subprocess.run([DEVETKA, "run", "--store", str(tmp_path / "s.db"), "--socket",
                              str(tmp_path / "no" / "api.sock")], capture_output=True, timeout=TIMEOUT)
    assert missing.returncode == 2 and "create " + str(tmp_path / "no") in missing.stderr.decode()


def test_a_restart_serves_the_same_state(daemon):
    client = daemon.client()
    client.request({"cmd": "new_match", "match_start": ANA_BEN})
    for item in LEGAL_BREAK + [{"type": "strike"}, {"type": "pocket", "ball": 1}]:
        client.request(item)
    before = client.request({"cmd": "state"})["state"]
    client.close()
    assert daemon.stop() == 0
    daemon.start()
    again = daemon.client()
    assert again.request({"cmd": "state"})["state"] == before
    again.close()


def test_kill_9_right_after_an_acknowledged_input_loses_nothing(daemon):
    inputs = LEGAL_BREAK + [{"type": "strike"}, {"type": "first_contact", "ball": 1},
                            {"type": "pocket", "ball": 1}, {"type": "settle"}, {"type": "undo"}]
    client = daemon.client()
    client.request({"cmd": "new_match", "match_start": ANA_BEN})
    for item in inputs:
        acknowledged = client.request(item)["state"]
        client.close()
        daemon.process.kill()  # SIGKILL: no clean-up, the socket file stays behind
        daemon.process.communicate(timeout=TIMEOUT)
        daemon.start()
        client = daemon.client()
        assert client.request({"cmd": "state"})["state"] == acknowledged
    client.close()
    assert os.path.exists(daemon.store)


def test_a_socket_path_that_is_a_file_or_in_use_is_refused(daemon, tmp_path):
    def run(sock: Path) -> subprocess.CompletedProcess:
        return subprocess.run([DEVETKA, "run", "--store", str(tmp_path / "other.db"), "--socket", str(sock)],
                              capture_output=True, timeout=TIMEOUT)

    in_use = run(daemon.socket)
    assert in_use.returncode == 2 and "another daemon is listening" in in_use.stderr.decode()
    plain = tmp_path / "plain"
    plain.write_text("keep me")
    refused = run(plain)
    assert refused.returncode == 2 and "is not a socket" in refused.stderr.decode()
    assert plain.read_text() == "keep me"
    assert daemon.client().request({"cmd": "state"})["ok"]  # the first daemon still serves


def test_a_corrupt_store_is_moved_aside_and_the_daemon_starts(tmp_path):
    d = Daemon(tmp_path)
    d.store.write_bytes(b"no SQLite here" * 500)
    d.start()
    try:
        assert d.client().request({"cmd": "state"})["state"]["match_id"] is None
        assert d.stop() == 0
        assert "moved aside" in d.stderr.decode()
    finally:
        d.kill()
    assert (tmp_path / "devetka.db.corrupt-1").exists()


def test_a_store_left_by_a_kill_on_a_read_only_disk_is_named_exit_2_and_kept_whole(tmp_path):
    daemon = Daemon(tmp_path)
    daemon.start()
    client = daemon.client()
    client.request({"cmd": "new_match", "match_start": ANA_BEN})
    served = client.request({"type": "strike"})["state"]
    daemon.process.kill()  # kill -9: the WAL and its index stay beside the store
    daemon.process.wait(TIMEOUT)
    client.close()
    left = {path.name: path.read_bytes() for path in tmp_path.glob("devetka.db*")}
    assert set(left) == {"devetka.db", "devetka.db-wal", "devetka.db-shm"}
    with read_only(tmp_path):
        run = subprocess.run([DEVETKA, "run", "--config", str(daemon.config), "--store", str(daemon.store),
                              "--socket", str(tmp_path / "other.sock")], capture_output=True, timeout=TIMEOUT)
        assert run.returncode == 2, run.stderr
        assert run.stderr.decode() == (f"devetka run: cannot open the store {daemon.store}: the filesystem holding it "
                                       f"({tmp_path}) is mounted read-only (attempt to write a readonly database)\n")
        assert {path.name: path.read_bytes() for path in tmp_path.glob("devetka.db*")} == left
    daemon.start()  # writable again: the match comes back as it was served
    assert daemon.client().request({"cmd": "state"})["state"] == served
    assert daemon.stop() == 0


def connect_raw(path: Path) -> socket.socket:
    """A client as a burst makes it: one non-blocking connect, no retry; a full listen backlog refuses it."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    sock.connect(str(path))
    sock.settimeout(TIMEOUT)
    return sock


def read_line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1 << 16)
        assert chunk, f"closed before a whole line: {data!r}"
        data += chunk
    return data


def test_a_burst_beyond_max_clients_is_queued_then_told_so_and_those_connected_are_served(tmp_path):
    daemon = Daemon(tmp_path, config="[api]\nmax_clients = 8\n")
    daemon.start()
    try:
        served = [daemon.client() for _ in range(8)]
        burst = [connect_raw(daemon.socket) for _ in range(1024)]  # no BlockingIOError: the backlog holds them
        refusal = {"id": None, "ok": False,
                   "error": "too many clients: the daemon serves 8 at once ([api] max_clients); try again later",
                   "words": "too many clients: the daemon serves 8 at once ([api] max_clients); try again later",
                   "code": "unavailable"}
        for sock in burst:
            assert orjson.loads(read_line(sock)) == refusal
            assert sock.recv(1) == b""  # and closed
            sock.close()
        assert served[0].request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        assert all(client.broadcast()["match_id"] == 1 for client in served)
        for client in served:
            client.close()
        assert daemon.stop() == 0
        said = [line for line in daemon.stderr.decode().splitlines() if "refused" in line]
        assert said == ["devetka run: a client was refused: 8 are connected, the most [api] max_clients allows"]
    finally:
        daemon.kill()


def test_out_of_file_descriptors_it_says_so_once_and_serves_the_clients_connected(tmp_path):
    daemon = Daemon(tmp_path, config="[api]\nmax_clients = 1000\n", files=(64, 64))  # a hard limit: not raised
    daemon.start()
    try:
        first = daemon.client()
        held = [connect_raw(daemon.socket) for _ in range(200)]  # more than the daemon has descriptors for
        time.sleep(2.5)  # asyncio tries the accept again every second: twice at least
        assert first.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        for sock in held:
            sock.close()
        first.close()
        assert daemon.stop() == 0
        stderr = daemon.stderr.decode()
        assert "Traceback" not in stderr and len(stderr) < 1000, stderr[:2000]
        said = [line for line in stderr.splitlines() if "no file descriptor left" in line]
        assert len(said) == 1 and "(Too many open files, " in said[0], stderr
    finally:
        daemon.kill()


def test_the_daemon_raises_its_soft_open_files_limit_to_the_hard_one(tmp_path):
    daemon = Daemon(tmp_path, files=(256, 4096))
    daemon.start()
    try:
        limits = Path(f"/proc/{daemon.process.pid}/limits").read_text()
        assert re.search(r"Max open files\s+4096\s+4096\s+files", limits), limits
    finally:
        daemon.kill()


def test_a_line_over_the_limit_is_refused_and_the_connection_closed(daemon):
    from scoreboard.referee.service import REQUEST_LIMIT as LINE_LIMIT

    client = daemon.client()
    try:
        client.sock.sendall(b'{"type": "' + b"x" * (LINE_LIMIT + 10) + b'"}\n')
    except (BrokenPipeError, ConnectionResetError):
        pass  # the daemon may close before the last bytes are sent; its answer is already on the way
    answer = client.line()
    assert not answer["ok"] and "longer than" in answer["error"]
    assert client.stream.readline() == b""
    client.close()
    assert daemon.client().request({"cmd": "state"})["ok"]


def test_systemd_ready_only_once_serving_and_watchdog_pings(tmp_path):
    d = Daemon(tmp_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.settimeout(TIMEOUT)
    env = dict(os.environ, NOTIFY_SOCKET=str(tmp_path / "notify"), WATCHDOG_USEC="100000")
    d.process = subprocess.Popen([DEVETKA, "run", "--store", str(d.store), "--socket", str(d.socket)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert listener.recv(64) == b"READY=1"
        assert d.client().request({"cmd": "state"})["ok"]  # ready means the socket answers
        assert listener.recv(64) == b"WATCHDOG=1"
        assert listener.recv(64) == b"WATCHDOG=1"
        assert d.stop() == 0
        messages = []
        listener.settimeout(0)
        while True:
            try:
                messages.append(listener.recv(64))
            except BlockingIOError:
                break
        assert messages[-1] == b"STOPPING=1"
    finally:
        d.kill()
        listener.close()


KILLS = repeats(20, 100)  # at random moments of a simulated match; scripts/soak.sh kills 100 times


@pytest.mark.soak
def test_kill_9_at_random_moments_of_a_simulated_match(daemon):
    """Kill while an input is in flight (sent, not yet answered): after the restart the state is the fold of
    the store, every acknowledged input is in it, and the in-flight one is in it or not, never half."""
    from random import Random

    from scoreboard.core.inputs import to_json
    from scoreboard.core.match import Match
    from scoreboard.core.output import state_line
    from scoreboard.sim.table import SimulatedTable

    rng = Random(4)
    table = SimulatedTable(seed=7, race=(3, 3))
    inputs = [to_json(item) for item in table.play_match()]
    client = daemon.client()
    client.request({"cmd": "new_match", "match_start": inputs[0]})
    acknowledged = client.request({"cmd": "state"})["state"]
    position, kills = 1, 0
    while position < len(inputs):
        if kills < KILLS and rng.random() < 0.5:
            client.sock.sendall(orjson.dumps(inputs[position]) + b"\n")  # in flight at the kill
            daemon.process.kill()
            daemon.process.communicate(timeout=TIMEOUT)
            client.close()
            kills += 1
            daemon.start()
            client = daemon.client()
            served = client.request({"cmd": "state"})["state"]
            with Store.open_readonly(daemon.store) as store:
                folded = Match.resume(store.current_match()[1]).state
            assert {k: served[k] for k in state_line(folded)} == state_line(folded)
            assert served["seq"] in (acknowledged["seq"], acknowledged["seq"] + 1)
            if served["seq"] == acknowledged["seq"]:
                assert served == acknowledged  # not stored: send it again, as a screen would
                continue
            acknowledged = served
        else:
            answer = client.request(inputs[position])
            assert answer["ok"], (position, answer)
            acknowledged = answer["state"]
        position += 1
    assert kills == KILLS
    final = client.request({"cmd": "state"})["state"]
    assert {k: final[k] for k in state_line(table.match.state)} == state_line(table.match.state)
    client.close()



def test_run_and_tap_take_the_store_and_socket_from_the_config(tmp_path):
    config = tmp_path / "table.toml"
    store, sock = tmp_path / "from-config.sqlite3", tmp_path / "c.sock"
    config.write_text(f'[store]\npath = "{store}"\n[api]\nsocket = "{sock}"\n')
    daemon = subprocess.Popen([DEVETKA, "run", "--config", str(config)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not sock.exists():
            assert daemon.poll() is None, daemon.communicate()
            assert time.monotonic() < deadline, "the daemon's socket did not come up"
            time.sleep(0.01)
        out = subprocess.run([DEVETKA, "tap", "--config", str(config), '{"cmd": "state"}'],
                             capture_output=True, timeout=TIMEOUT)
        assert out.returncode == 0 and orjson.loads(out.stdout)["ok"] is True
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.communicate(timeout=TIMEOUT)
    assert daemon.returncode == 0 and store.exists()


def test_run_with_a_broken_config_names_the_key_and_exits_2(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[store]\npaht = "x"\n')
    out = subprocess.run([DEVETKA, "run", "--config", str(config)], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 2 and "store.paht" in out.stderr and "Traceback" not in out.stderr



def test_a_quiet_table_ends_the_shot_by_itself(tmp_path):
    quick = Daemon(tmp_path, settle_after=0.3)
    quick.start()
    try:
        client = quick.client()
        assert client.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        for item in LEGAL_BREAK[:-1]:  # no settle sent: the daemon's timer must give it
            assert client.request(item)["ok"]
        while True:
            state = client.broadcast()
            if state["last_verdict"] is not None:
                break
        assert state["shooter"] == 1 and "Legal break" in state["last_verdict"]["words"]
        assert _untimed(state["undo"]) == {"type": "settle"}
        client.close()
    finally:
        quick.stop()
    with Store.open_readonly(quick.store) as store:
        log = store.log(store.current_match()[0])
    assert type(log[-1]).__name__ == "Settle" and log[-1].t >= log[-2].t + 0.3



def test_an_undo_after_the_timer_settled_leaves_the_shot_open_until_the_next_input(tmp_path):
    """Issue 13: the players undo because the ruling was wrong; the timer must not rule again before they act."""
    quick = Daemon(tmp_path, settle_after=0.5)
    quick.start()
    try:
        client = quick.client()
        assert client.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        for item in LEGAL_BREAK[:-1]:  # no settle sent: the daemon's timer gives it
            assert client.request(item)["ok"]
        while client.broadcast()["last_verdict"] is None:
            pass
        answer = client.request({"type": "undo"})
        assert answer["ok"] and answer["state"]["shot_in_progress"] is True and answer["state"]["shot_reopened"]
        seq = answer["state"]["seq"]
        time.sleep(3.0)  # nothing may happen: six settle periods pass with no input
        state = client.request({"cmd": "state"})["state"]
        assert state["seq"] == seq and state["shot_in_progress"] and state["last_verdict"] is None
        assert all(pushed["seq"] == seq for pushed in client.broadcasts)  # no change pushed in those 3 s either
        client.broadcasts.clear()
        called = client.request({"type": "foul", "reason": "bad_hit"})["state"]  # the next input: the timer runs
        assert called["seq"] == seq + 1 and called["shot_in_progress"] and not called["shot_reopened"]
        while (pushed := client.broadcast())["shot_in_progress"]:
            pass
        assert pushed["seq"] == seq + 2 and pushed["last_verdict"]["foul"] and pushed["shooter"] == 1
        client.close()
    finally:
        quick.stop()
    assert stored_types(quick.store)[-3:] == ["undo", "foul", "settle"]


def test_a_microcontroller_on_the_serial_line_feeds_the_daemon(tmp_path):
    """The real path: simulate-mcu on a pseudo-terminal, the daemon's serial source, the fold, the store."""
    from scoreboard.core.inputs import Cushion, MatchStart, Pocket, RuleOptions, Strike, to_json
    from scoreboard.core.match import Match
    from scoreboard.core.output import state_line
    from scoreboard.core.rules import RuleError
    from scoreboard.sim.table import Sensors, SimulatedTable

    table = SimulatedTable(seed=5, race=(2, 2), rules=RuleOptions(strike_sensed=True),
                           sensors=Sensors(ball_ids=1.0, camera=False))
    log = list(table.play_match())
    start = log[0]
    assert isinstance(start, MatchStart)
    sensed = [item for item in log if type(item) in (Strike, Cushion, Pocket)]
    expected = Match(start)
    for item in sensed:
        try:
            expected.apply(item)
        except RuleError:
            pass  # the taps are not on the wire, so the fold may refuse what they would have allowed
    played = tmp_path / "played.jsonl"
    played.write_bytes(b"".join(orjson.dumps(to_json(item)) + b"\n" for item in log))
    link = tmp_path / "mcu"
    quiet = Daemon(tmp_path)
    quiet.config.write_text(f'[shots]\nsettle_after_s = 3600\n[sensors.serial]\nport = "{link}"\n'
                            'rails = true\nstrike = true\n')  # the simulated table's sensors
    quiet.start()
    try:
        client = quiet.client()
        assert client.request({"cmd": "new_match", "match_start": to_json(start)})["ok"]
        mcu = subprocess.run([DEVETKA, "simulate-mcu", "--link", str(link), "--play", str(played), "--speed", "inf",
                              "--wait", str(TIMEOUT)], capture_output=True, text=True, timeout=TIMEOUT * 2)
        assert mcu.returncode == 0, mcu.stderr
        want = state_line(expected.state)
        deadline = time.monotonic() + TIMEOUT
        while True:
            state = client.request({"cmd": "state"})["state"]
            if {key: state[key] for key in want} == want:
                break
            assert time.monotonic() < deadline, (state, want)
            time.sleep(0.05)
        assert any(entry["subject"] == "link" for entry in state["health"])
        assert state["sensors"] == {"gpio": False, "serial": True}  # the config's sources, served for the screen
        client.close()
    finally:
        quiet.stop()
    with Store.open_readonly(quiet.store) as store:
        stored = store.log(store.current_match()[0])
    assert all(item.src == "serial" for item in stored[1:]) and len(stored) > 20


def _untimed(item: dict) -> dict:
    """The input as sent: the daemon stamps every input with the match's time ``t``."""
    assert isinstance(item["t"], float)
    return {key: value for key, value in item.items() if key != "t"}


# The daemon is the only judge (issue 12): what may be tapped is served with the state, decided on the fold.


def test_the_state_serves_what_may_be_tapped_and_why_not(daemon):
    client = daemon.client()
    fresh = client.request({"cmd": "new_match", "match_start": ANA_BEN})["state"]
    before_break = fresh["actions"]["push_out"]
    assert before_break["ok"] is False and isinstance(before_break["why"], str) and before_break["why"], before_break
    assert fresh["actions"]["foul"]["bad_hit"]["ok"] is False  # no foul before the break (5.15)
    for item in [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
                 {"type": "cushion", "ball": 3}, {"type": "pocket", "ball": 5}, {"type": "settle"}]:
        state = client.request(item)["state"]
    assert state["shooter"] == 0 and state["actions"]["push_out"] == {"ok": True}
    assert state["actions"]["accept"] == {"ok": False, "why": "There is no push out to answer (5.6)."}
    assert state["actions"]["identify"]["5"]["ok"] is False and state["actions"]["undo"] == {"ok": True}
    client.close()


def test_a_sent_t_does_not_move_the_matchs_clock(tmp_path):
    """One ``{"type": "strike", "t": 1e12}`` must not put the settle deadline out of reach."""
    daemon = Daemon(tmp_path, settle_after=0.3)
    daemon.start()
    try:
        client = daemon.client()
        client.request({"cmd": "new_match", "match_start": ANA_BEN})
        struck = client.request({"type": "strike", "t": 1e12})
        assert struck["ok"] and struck["state"]["shot_in_progress"] is True
        while True:  # the daemon's own timer ends the shot (the socket's timeout bounds the wait)
            state = client.broadcast()
            if state["last_verdict"] is not None:
                break
        assert state["last_verdict"]["shot"] == 1 and not state["shot_in_progress"]
        client.close()
    finally:
        assert daemon.stop() == 0
    with Store.open_readonly(daemon.store) as store:
        times = [item.t for item in store.log(1)]
    assert max(times) < 1e6 and times == sorted(times)


def test_the_state_names_its_store_for_good(tmp_path):
    daemon = Daemon(tmp_path)
    daemon.start()
    client = daemon.client()
    store_id = client.request({"cmd": "state"})["state"]["store"]
    client.close()
    assert daemon.stop() == 0
    daemon.start()
    client = daemon.client()
    assert isinstance(store_id, str) and len(store_id) >= 8
    assert client.request({"cmd": "state"})["state"]["store"] == store_id  # the same file, the same id
    client.close()
    assert daemon.stop() == 0
    daemon.store.write_bytes(b"not a database")  # moved aside as corrupt: a new store, a new id
    daemon.start()
    client = daemon.client()
    assert client.request({"cmd": "state"})["state"]["store"] != store_id
    client.close()
    assert daemon.stop() == 0
