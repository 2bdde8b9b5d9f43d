"""How fast does the real daemon commit inputs, how soon does a sensor frame reach a screen, what memory does it
take, and does a kill -9 ever lose an acknowledged input?

    python bench/daemon.py [--quick] [--racks N] [--frames N] [--kills N] [--window N] [--seed S] [--no-pin]

Everything goes through ``devetka run`` as a child process on a temporary store
and socket (the suite's ``Daemon`` and ``Client`` helpers from
tests/live.py), with the settle timer at an hour so that only the inputs
sent are stored:

(a) committed inputs per second: a simulated match of N racks (strike sensor,
    camera, pocket sensors naming half the balls; every input of the log,
    its ``settle`` inputs included, each one stored) sent on the local API one
    request at a time, each answered only after its commit (SQLite WAL,
    synchronous=FULL); then the same log pipelined, up to ``--window``
    requests in flight on one connection, to a fresh daemon.
(b) the time from a sensor frame to the state on the local API: the daemon
    reads a pseudo-terminal played by ``firmware_bridge.simulator.PtyMcu`` in
    this process; each strike, cushion and pocket of a simulated match is
    written as a frame (``time.monotonic()`` just before the write) and the
    client stamps the broadcast state carrying the next ``seq`` when its line
    arrives. One frame in flight at a time; the taps (first contact, settle,
    identify, ...) go on the local API in between. p50, p99 and max.
(c) the daemon's resident memory (VmRSS and VmHWM from /proc/PID/status):
    at start, after a whole match, after the long match of (a); and the
    serial daemon of (b). The goal is at most 40 MB.
(d) a kill -9 soak: during simulated matches, 1 to 4 inputs are sent without
    waiting and the daemon is killed 0-3 ms later, K times. After each
    restart the served state must equal the fold of the store, the store must
    hold every input that was answered (answers read off the socket after the
    kill count too) and nothing but a prefix of what was sent.

Nothing here is asserted by the test suite but the output's shape; a failed
check here (a lost input, a state that is not the fold) stops the run with
exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from random import Random

import orjson
from _common import load_average, pin_to_one_core, print_header

from firmware_bridge.simulator import PLAYED, PtyMcu
from scoreboard.config.table import parse as parse_config
from scoreboard.core.inputs import RuleOptions, to_json
from scoreboard.core.match import Match
from scoreboard.core.output import state_line
from scoreboard.referee.store import Store
from scoreboard.sim.broker import PrivateBroker
from scoreboard.sim.table import Sensors, SimulatedTable

GOAL_MEMORY = 40e6  # bytes of resident memory
ROOT = Path(__file__).resolve().parent.parent


class Failed(Exception):
    """A check of the benchmark failed: the daemon lost or changed something."""



def untimed(item: dict) -> dict:
    """An input without its time: the daemon stamps each one with the match's clock, whatever was sent."""
    return {key: value for key, value in item.items() if key != "t"}

def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def suite_helpers():
    """tests/live.py: the suite's ``Daemon`` (``devetka run`` as a child process) and ``Client``, reused here."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("tests.live")


helpers = suite_helpers()
Daemon, Client = helpers.Daemon, helpers.Client


def table(seed: int) -> SimulatedTable:
    return SimulatedTable(seed, rules=RuleOptions(strike_sensed=True), sensors=Sensors(ball_ids=0.5))


def memory(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM (its peak), RssAnon (the process's own) and RssFile (mapped files, shared) in bytes."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) * 1024
    return out


def mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def resident(figures: dict[str, int]) -> str:
    return (f"VmRSS {mb(figures['VmRSS'])} (VmHWM {mb(figures['VmHWM'])}; own {mb(figures['RssAnon'])}, "
            f"mapped files {mb(figures['RssFile'])})")


IMPORTS = ("orjson", "tomllib", "sqlite3", "ssl", "asyncio", "scoreboard.core.inputs", "scoreboard.core.rules",
           "scoreboard.config.table", "scoreboard.referee.store", "scoreboard.referee.referee",
           "scoreboard.referee.service", "scoreboard.adapters.local_api.server", "scoreboard.daemon.serve",
           "scoreboard.commands.main", "scoreboard.commands.sensors", "firmware_bridge.source", "gpiozero",
           "hardware.sensors", "paho.mqtt.client", "scoreboard.adapters.mqtt")
IMPORT_COSTS = f"""
import sys
def rss():
    return int([line for line in open('/proc/self/status') if line.startswith('VmRSS')][0].split()[1]) * 1024
before = rss()
print(f"the interpreter {{before / 1e6:.1f}}", end="")
for name in {IMPORTS!r}:
    __import__(name)
    now = rss()
    print(f", {{name}} +{{(now - before) / 1e6:.1f}}", end="")
    before = now
print(f"; total {{before / 1e6:.1f}} MB")
"""


def import_costs() -> str:
    """Where the daemon's start-up memory goes: VmRSS after each import, in the daemon's order, a fresh Python.

    ``asyncio`` imports ``ssl`` whether or not it is used (its line here); the last four only
    when the config turns GPIO sensing and MQTT on.
    """
    return subprocess.run([sys.executable, "-c", IMPORT_COSTS], capture_output=True, text=True,
                          check=True).stdout.strip()


def fsync_cost(folder: Path, count: int = 200) -> float:
    """The median time to write and fsync one 4 KiB block where the stores are: what a commit waits for."""
    times = []
    with open(folder / "fsync-probe", "wb") as probe:
        for _ in range(count):
            start = time.perf_counter()
            probe.write(b"x" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def served_state(client) -> dict:
    return client.request({"cmd": "state"})["state"]


#: A daemon fed the simulated table's sensor inputs over the local API has its sensors: a strike line and a shared
#: cushion line, on gpiozero's mock pins (``main`` sets GPIOZERO_PIN_FACTORY), which no one drives. Each match then
#: records rails_sensed and strike_sensed as the simulated table plays them (the daemon decides them, issue 26).
SENSED = "[sensors.gpio]\nstrike = 20\ncushion_shared = 21\n"


def same_as_fold(served: dict, folded) -> bool:
    want = state_line(folded)
    return {key: served[key] for key in want} == want


# --- (a) and (c): inputs per second, memory --------------------------------------------------------------------


def one_at_a_time(client, inputs: list[dict]) -> float:
    """Send each input and wait for its answer; the seconds it took."""
    start = time.perf_counter()
    for position, item in enumerate(inputs):
        answer = client.request(item)
        check(answer["ok"], f"input {position} refused: {answer}")
        client.broadcasts.clear()
    return time.perf_counter() - start


def pipelined(client, inputs: list[dict], window: int) -> float:
    """Up to ``window`` requests in flight on one connection (a thread writes, this one reads the answers)."""
    room = threading.Semaphore(window)
    lines = [orjson.dumps(dict(item, id=position)) + b"\n" for position, item in enumerate(inputs)]
    failure: list[BaseException] = []

    def write() -> None:
        try:
            for line in lines:
                room.acquire()
                client.sock.sendall(line)
        except BaseException as error:  # noqa: B036 - reported by the reading side
            failure.append(error)

    start = time.perf_counter()
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    answered = 0
    while answered < len(lines):
        check(not failure, f"writing the requests failed: {failure!r}")
        message = client.line()
        if "ok" not in message:
            continue
        check(message["ok"] and message["id"] == answered, f"input {answered} refused or out of order: {message}")
        answered += 1
        room.release()
    seconds = time.perf_counter() - start
    writer.join()
    return seconds


def throughput(racks: int, whole_match_seed: int, seed: int, window: int, tmp: Path) -> list[str]:
    lines = []
    long_table = table(seed)
    long_log = [to_json(item) for item in long_table.play_racks(racks)]
    whole = table(whole_match_seed)
    match_log = [to_json(item) for item in whole.play_match()]
    lines.append(f"load average before (a): {load_average()}")

    (tmp / "a").mkdir()
    daemon = Daemon(tmp / "a", config=SENSED)
    daemon.start()
    try:
        pid = daemon.process.pid
        at_start = memory(pid)
        client = daemon.client()
        check(client.request({"cmd": "new_match", "match_start": match_log[0]})["ok"], "new_match refused")
        one_at_a_time(client, match_log[1:])
        check(same_as_fold(served_state(client), whole.match.state), "the whole match ended elsewhere")
        after_match = memory(pid)
        check(client.request({"cmd": "new_match", "match_start": long_log[0]})["ok"], "new_match refused")
        seconds = one_at_a_time(client, long_log[1:])
        final = served_state(client)
        after_long = memory(pid)
        client.close()
    finally:
        daemon.kill()
    with Store.open_readonly(daemon.store) as store:
        stored = len(store.current_match()[1]) - 1
    check(stored == len(long_log) - 1 == final["seq"], f"{stored} stored, {final['seq']} served")
    check(same_as_fold(final, long_table.match.state), "the long match ended elsewhere")
    count = len(long_log) - 1
    lines.append(f"(a) one request at a time: {count / seconds:,.0f} committed inputs/s "
                 f"({count:,} inputs of {racks} racks in {seconds:.2f} s, settle inputs included; "
                 f"{seconds / count * 1e3:.2f} ms an input, answer after commit)")

    (tmp / "b").mkdir()
    daemon = Daemon(tmp / "b", config=SENSED)
    daemon.start()
    try:
        client = daemon.client()
        check(client.request({"cmd": "new_match", "match_start": long_log[0]})["ok"], "new_match refused")
        seconds = pipelined(client, long_log[1:], window)
        again = served_state(client)
        client.close()
    finally:
        daemon.kill()
    check(again["seq"] == final["seq"] and same_as_fold(again, long_table.match.state),
          "the pipelined match ended elsewhere")
    lines.append(f"(a) pipelined, up to {window} in flight: {count / seconds:,.0f} committed inputs/s "
                 f"({count:,} inputs in {seconds:.2f} s)")

    lines.append(f"(a) for scale: write and fsync 4 KiB in the store's folder, median "
                 f"{fsync_cost(tmp) * 1e3:.2f} ms")
    lines.append(f"(c) memory at start: {resident(at_start)}")
    lines.append(f"(c) memory after a whole match ({len(match_log) - 1:,} inputs): {resident(after_match)}")
    lines.append(f"(c) memory after a long match ({len(long_log) - 1:,} more inputs): {resident(after_long)}")
    lines.append(f"(c) start-up memory by import, MB: {import_costs()}")
    line, template_peak = template_memory(match_log, whole, long_log, tmp)
    lines.append(line)
    peak = max(after_long["VmHWM"], template_peak)
    goal = "met" if peak <= GOAL_MEMORY else "NOT met"
    lines.append(f"(c) goal at most {mb(GOAL_MEMORY)} resident: {goal} (the highest VmHWM measured: {mb(peak)})")
    lines.append(f"load average after (a): {load_average()}")
    return lines


def template_memory(match_log: list[dict], whole: SimulatedTable, long_log: list[dict],
                    tmp: Path) -> tuple[str, int]:
    """The daemon with the Pi's config (deploy/table.example.toml): every GPIO line, on gpiozero's mock pins,
    the serial bridge on a pseudo-terminal and, where Mosquitto is installed, MQTT to a private broker.

    Returns the figures' line and the peak resident memory (bytes)."""
    folder = tmp / "template"
    folder.mkdir()
    link = folder / "mcu"
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(PrivateBroker()) if PrivateBroker.available() else None
        text = (ROOT / "deploy" / "table.example.toml").read_text()
        changes = [("settle_after_s = 4.0", "settle_after_s = 3600.0"),
                   ("[sensors.serial]\nenabled = false", "[sensors.serial]\nenabled = true"),
                   ('port = "/dev/devetka-bridge"', f'port = "{link}"')]
        if broker is not None:
            changes.append(('[mqtt]\nenabled = false\nhost = "localhost"\nport = 1883',
                            f'[mqtt]\nenabled = true\nhost = "{broker.host}"\nport = {broker.port}'))
        for old, new in changes:
            check(old in text, f"deploy/table.example.toml no longer has {old!r}: update bench/daemon.py")
            text = text.replace(old, new)
        config = parse_config(text)
        daemon = Daemon(folder)
        daemon.config.write_text(text)
        mcu = stack.enter_context(PtyMcu(str(link), boot_id=0xBE7C4))
        daemon.start()
        stack.callback(daemon.kill)
        check(mcu.wait_for_host(60), "the daemon never pinged the simulated microcontroller")
        at_start = memory(daemon.process.pid)
        client = daemon.client()
        check(client.request({"cmd": "new_match", "match_start": match_log[0]})["ok"], "new_match refused")
        one_at_a_time(client, match_log[1:])
        check(same_as_fold(served_state(client), whole.match.state), "the whole match ended elsewhere")
        if broker is not None:
            topic = f"{config.mqtt.prefix}/{config.table.id}/state"
            got = subprocess.run(["mosquitto_sub", "-h", broker.host, "-p", str(broker.port), "-t", topic, "-C", "1",
                                  "-W", "30"], capture_output=True, text=True)
            check(got.returncode == 0 and orjson.loads(got.stdout)["seq"] == len(match_log) - 1,
                  f"the daemon's state did not reach the broker: {got.stdout} {got.stderr}")
        after_match = memory(daemon.process.pid)
        check(client.request({"cmd": "new_match", "match_start": long_log[0]})["ok"], "new_match refused")
        one_at_a_time(client, long_log[1:])
        after_long = memory(daemon.process.pid)
        client.close()
    mqtt = "MQTT to a private Mosquitto" if broker is not None else "MQTT off (no Mosquitto here)"
    return (f"(c) memory with deploy/table.example.toml ({len(config.sensors.gpio.lines())} GPIO lines on mock pins, "
            f"the serial bridge, {mqtt}): at start {resident(at_start)}; after a whole match {resident(after_match)}; "
            f"after the long match {resident(after_long)}"), after_long["VmHWM"]


# --- (b) sensor frame to state -------------------------------------------------------------------------------


def sensor_log(frames: int, seed: int) -> tuple[SimulatedTable, list]:
    """A match of whole racks with at least ``frames`` sensor inputs."""
    racks = max(1, math.ceil(frames / 30))
    while True:
        simulated = table(seed)
        log = list(simulated.play_racks(racks))
        if sum(type(item) in PLAYED for item in log) >= frames:
            return simulated, log
        racks += max(1, racks // 4)


def next_state(client, seq: int) -> float:
    """Wait for the broadcast state with ``seq``; the monotonic time its line arrived."""
    while True:
        text = client.stream.readline()
        arrived = time.monotonic()
        check(bool(text), "the daemon closed the connection")
        message = orjson.loads(text)
        check("ok" not in message, f"an answer where a state was awaited: {message}")
        if message.get("seq") == seq:
            return arrived


def frame_to_state(frames: int, seed: int, tmp: Path) -> list[str]:
    simulated, log = sensor_log(frames, seed)
    folder = tmp / "serial"
    folder.mkdir()
    link = folder / "mcu"
    daemon = Daemon(folder, config=f'[sensors.serial]\nport = "{link}"\nrails = true\nstrike = true\n')
    lines = [f"load average before (b): {load_average()}"]
    latencies = []
    with PtyMcu(str(link), boot_id=0xBE7C4, rng=Random(seed)) as mcu:
        daemon.start()
        try:
            check(mcu.wait_for_host(60), "the daemon never pinged the simulated microcontroller")
            client = daemon.client()
            check(client.request({"cmd": "new_match", "match_start": to_json(log[0])})["ok"], "new_match refused")
            seq = 0
            for item in log[1:]:
                if type(item) not in PLAYED:
                    answer = client.request(to_json(item))
                    check(answer["ok"], f"{to_json(item)} refused: {answer}")
                    seq = answer["state"]["seq"]
                    client.broadcasts.clear()
                    continue
                # Answer the host, heartbeats and counters as the firmware would; before the next pocket is
                # counted, or the counters would tell the host of a drop it has not seen yet.
                mcu.idle(mcu.clock())
                message = mcu.mcu.play(item)
                sent = time.monotonic()
                mcu.send(message)
                seq += 1
                latencies.append(next_state(client, seq) - sent)
            served = served_state(client)
            rss = memory(daemon.process.pid)
            client.close()
        finally:
            daemon.kill()
    check(same_as_fold(served, simulated.match.state), "the serial match ended elsewhere")
    latencies.sort()
    p50, p99 = statistics.median(latencies), latencies[min(len(latencies) - 1, math.ceil(0.99 * len(latencies)) - 1)]
    lines.append(f"(b) sensor frame to state on the local API, {len(latencies):,} frames: p50 {p50 * 1e3:.2f} ms, "
                 f"p99 {p99 * 1e3:.2f} ms, max {latencies[-1] * 1e3:.2f} ms (each frame committed before its state)")
    lines.append(f"(c) memory of the serial daemon after (b): {resident(rss)}")
    lines.append(f"load average after (b): {load_average()}")
    return lines


# --- (d) kill -9 ----------------------------------------------------------------------------------------------


def answers_left(client) -> list[dict]:
    """The lines the killed daemon had sent before it died: answers among them were acknowledged."""
    out = []
    while True:
        try:
            text = client.stream.readline()
        except OSError:
            break
        if not text:
            break
        if text.endswith(b"\n"):
            out.append(orjson.loads(text))
    return out


def kill_soak(kills: int, seed: int, tmp: Path) -> list[str]:
    rng = Random(seed)
    folder = tmp / "kills"
    folder.mkdir()
    daemon = Daemon(folder, config=SENSED)
    lines = [f"load average before (d): {load_average()}"]
    daemon.start()
    client = daemon.client()
    restarts: list[float] = []
    done = matches = acknowledged_total = in_flight_kept = in_flight_lost = 0
    inputs: list[dict] = []
    position = 0
    try:
        while done < kills:
            if position >= len(inputs):
                inputs = [to_json(item) for item in table(seed * 1000 + matches).play_match()]
                matches += 1
                check(client.request({"cmd": "new_match", "match_start": inputs[0]})["ok"], "new_match refused")
                position = 1
            if rng.random() >= 0.5:
                answer = client.request(inputs[position])
                check(answer["ok"], f"input refused: {answer}")
                acknowledged_total += 1
                position += 1
                continue
            burst = inputs[position:position + rng.randint(1, 4)]
            client.sock.sendall(b"".join(orjson.dumps(dict(item, id=position + n)) + b"\n"
                                         for n, item in enumerate(burst)))
            time.sleep(rng.uniform(0, 0.003))
            daemon.process.kill()
            daemon.process.communicate(timeout=60)
            answered = [m["id"] for m in answers_left(client) if "ok" in m and m["ok"]]
            client.close()
            done += 1
            began = time.monotonic()
            daemon.start()
            restarts.append(time.monotonic() - began)
            client = daemon.client()
            served = served_state(client)
            with Store.open_readonly(daemon.store) as store:
                _, log = store.current_match()
            check(same_as_fold(served, Match.resume(log).state), f"kill {done}: the state is not the fold")
            stored = [untimed(to_json(item)) for item in log[1:]]  # the daemon stamps t itself
            kept = len(stored) - (position - 1)
            check(0 <= kept <= len(burst), f"kill {done}: {kept} of {len(burst)} in-flight inputs stored")
            sent = [untimed(item) for item in inputs[1:position + kept]]
            check(stored == sent, f"kill {done}: the store is not what was sent")
            check(all(i < position + kept for i in answered), f"kill {done}: an answered input was lost")
            check(served["seq"] == len(log) - 1, f"kill {done}: seq {served['seq']} for {len(log) - 1} stored")
            acknowledged_total += len(answered)
            in_flight_kept += kept - len(answered)
            in_flight_lost += len(burst) - kept
            position += kept
    finally:
        client.close()
        daemon.kill()
    restarts.sort()
    plural = "match" if matches == 1 else "matches"
    lines.append(f"(d) kill -9: {done:,} kills in {matches} {plural}, {acknowledged_total:,} acknowledged inputs, "
                 f"0 lost; the state was the fold of the store after every restart; of the unanswered inputs "
                 f"in flight {in_flight_kept} were stored and {in_flight_lost} not (all sent again)")
    lines.append(f"(d) restart after kill -9 to serving: p50 {statistics.median(restarts) * 1e3:.0f} ms, "
                 f"max {restarts[-1] * 1e3:.0f} ms")
    lines.append(f"load average after (d): {load_average()}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run of each part (seconds, not minutes)")
    parser.add_argument("--racks", type=int, help="racks of the long match in (a) (default 160: 10,000+ inputs)")
    parser.add_argument("--frames", type=int, help="sensor frames in (b) (default 1,500)")
    parser.add_argument("--kills", type=int, help="kills in (d) (default 1,000)")
    parser.add_argument("--window", type=int, default=64, help="requests in flight when pipelined (default 64)")
    parser.add_argument("--seed", type=int, default=1, help="the simulator's seed (default 1)")
    parser.add_argument("--no-pin", action="store_true", help="use every core (default: CPU 0 only)")
    args = parser.parse_args(argv)
    racks = args.racks or (3 if args.quick else 160)
    frames = args.frames or (100 if args.quick else 1500)
    kills = args.kills or (3 if args.quick else 1000)

    os.environ["GPIOZERO_PIN_FACTORY"] = "mock"  # the daemons' sensor lines (SENSED), and (c)'s example config
    print_header("not pinned (--no-pin)" if args.no_pin else pin_to_one_core())
    print(f"daemon: {helpers.DEVETKA} run (a child process); client and simulated microcontroller in this process")
    print()
    with tempfile.TemporaryDirectory(prefix="devetka-bench-daemon-") as folder:
        tmp = Path(folder)
        try:
            for part in (lambda: throughput(racks, args.seed, args.seed, args.window, tmp),
                         lambda: frame_to_state(frames, args.seed, tmp),
                         lambda: kill_soak(kills, args.seed, tmp)):
                for line in part():
                    print(line, flush=True)
        except Failed as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
