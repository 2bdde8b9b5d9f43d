"""``devetka venue-demo`` (scoreboard/sim/venue_demo.py) as a bar owner runs it: four simulated tables, each the
real daemon with its own Mosquitto bridged to a venue Mosquitto, the board read in headless Chromium."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from scoreboard.sim.venue_demo import ALL_DONE
from tests.live import TIMEOUT
from tests.venue.browser import Browser
from tests.venue.test_nats import kept
from tests.watcher import retained

DEVETKA = [sys.executable, "-m", "scoreboard.commands.main"]
COMPARED = ("score", "rack", "on_table", "shooter", "match_winner")


@dataclass
class Address:
    host: str
    port: int


def lines_of(process: subprocess.Popen) -> queue.Queue:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in process.stdout], daemon=True).start()
    return lines


def until(lines: queue.Queue, prefix: str, said: list[str]) -> str:
    while True:
        try:
            line = lines.get(timeout=TIMEOUT * 2)
        except queue.Empty:
            raise AssertionError(f"venue-demo never said {prefix!r}: {said}") from None
        said.append(line)
        if line.startswith(prefix):
            return line


def folded(store) -> tuple[dict, int]:
    """The replay's final state of a table's store, and how many inputs it stored after match_start."""
    export = subprocess.run([*DEVETKA, "export", "--store", str(store)], capture_output=True, check=True)
    replay = subprocess.run([*DEVETKA, "replay", "-"], input=export.stdout, capture_output=True, check=True)
    return orjson.loads(replay.stdout.splitlines()[-1]), len(export.stdout.splitlines()) - 1


def test_four_tables_reach_the_venue_broker_and_the_board_exactly(tmp_path):
    venue = subprocess.Popen([*DEVETKA, "venue-demo", "--tables", "4", "--racks", "1", "--speed", "50",
                              "--store-dir", str(tmp_path), "--headless"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said: list[str] = []
    try:
        lines = lines_of(venue)
        host, port = until(lines, "venue broker: ", said).removeprefix("venue broker: ").rsplit(":", 1)
        board = until(lines, "board: ", said).removeprefix("board: ")
        until(lines, ALL_DONE, said)
        broker = Address(host, int(port))
        seqs = {}
        for store in sorted(tmp_path.glob("*.sqlite3")):
            table = store.stem
            final, stored = folded(store)
            published = retained(broker, f"devetka/{table}/state").json
            assert {key: published[key] for key in COMPARED} == {key: final[key] for key in COMPARED}, table
            assert published["seq"] == stored, table
            seqs[table] = stored
        assert sorted(seqs) == ["table1", "table2", "table3", "table4"]
        with Browser() as browser:
            browser.open(board)
            browser.wait_for(f"document.querySelectorAll('[data-table]').length === {len(seqs)}")
            for table, seq in seqs.items():
                tile = f"document.querySelector('[data-table=\"{table}\"]')"
                browser.wait_for(f"{tile}.dataset.seq === '{seq}' && {tile}.dataset.online === 'true'")
        venue.send_signal(signal.SIGTERM)
        assert venue.wait(timeout=TIMEOUT) == 0, said
    finally:
        if venue.poll() is None:
            venue.kill()
            venue.wait()
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert leftovers == [], f"venue-demo left processes running: {leftovers}"


def test_on_a_nats_cluster_every_node_keeps_every_table_and_the_survivors_after_a_node_is_killed(tmp_path):
    venue = subprocess.Popen([*DEVETKA, "venue-demo", "--engine", "nats", "--tables", "4", "--racks", "1",
                              "--speed", "50", "--store-dir", str(tmp_path), "--headless"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said: list[str] = []
    try:
        lines = lines_of(venue)
        nodes = [until(lines, f"venue node {number}: ", said) for number in (1, 2, 3)]
        listed = until(lines, "venue broker: ", said).removeprefix("venue broker: ").split(",")
        board = until(lines, "board: ", said).removeprefix("board: ")
        until(lines, ALL_DONE, said)
        brokers = [(host, int(port)) for host, port in (address.rsplit(":", 1) for address in listed)]
        assert len(brokers) == 3 and all(f"mqtt {address}" in node for address, node in zip(listed, nodes, strict=True))
        finals = {store.stem: folded(store) for store in sorted(tmp_path.glob("*.sqlite3"))}
        assert sorted(finals) == ["table1", "table2", "table3", "table4"]

        def every_node_keeps_every_table(nodes: list[tuple[str, int]]) -> None:
            for broker in nodes:  # at QoS 0, as the board: a node refuses QoS 1 while JetStream elects a leader
                for table, (final, stored) in finals.items():
                    published = kept(broker, f"devetka/{table}/state").json
                    assert {key: published[key] for key in COMPARED} == {key: final[key] for key in COMPARED}
                    assert published["seq"] == stored, (table, broker)

        every_node_keeps_every_table(brokers)
        first = int(nodes[0].split("pid ")[1].split(",")[0])
        killed = time.monotonic()
        os.kill(first, signal.SIGKILL)
        time.sleep(max(0.0, killed + 15.0 - time.monotonic()))  # the figure: 15 s after the kill
        every_node_keeps_every_table(brokers[1:])
        with Browser() as browser:
            browser.open(board)
            for table, (_, seq) in finals.items():
                browser.wait_for(f"document.querySelector('[data-table=\"{table}\"]')?.dataset.seq === '{seq}'")
        venue.send_signal(signal.SIGTERM)
        assert venue.wait(timeout=TIMEOUT) == 0, said
    finally:
        if venue.poll() is None:
            venue.kill()
            venue.wait()


def test_a_venue_demo_killed_outright_takes_its_tables_and_brokers_with_it(tmp_path):
    """SIGKILL runs no handler: each child ends by the parent-death signal (scoreboard/sim/children.py)."""
    venue = subprocess.Popen([*DEVETKA, "venue-demo", "--tables", "2", "--racks", "1", "--speed", "50",
                              "--store-dir", str(tmp_path), "--headless"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said: list[str] = []
    try:
        until(lines_of(venue), ALL_DONE, said)
        children = subprocess.run(["pgrep", "-P", str(venue.pid)], capture_output=True, text=True).stdout.split()
        assert len(children) >= 5, said  # the venue broker, and per table its broker and its demo
    finally:
        venue.kill()
        venue.wait()
    deadline = time.monotonic() + TIMEOUT
    while True:
        alive = [pid for pid in children if Path(f"/proc/{pid}").exists()
                 and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
        if not alive:
            break
        assert time.monotonic() < deadline, f"still running after venue-demo was killed: {alive}"
        time.sleep(0.1)


def test_one_table_killed_mid_demo_is_named_and_the_others_play_on(tmp_path):
    """Issue 29: a hall keeps running when one table fails."""
    venue = subprocess.Popen([*DEVETKA, "venue-demo", "--tables", "2", "--racks", "1", "--speed", "20",
                              "--store-dir", str(tmp_path), "--headless"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said: list[str] = []
    try:
        lines = lines_of(venue)
        until(lines, "venue-demo: table2: devetka demo pid ", said)
        first = next(line for line in said if line.startswith("venue-demo: table1: devetka demo pid "))
        os.kill(int(first.split("pid ")[1].split(",")[0]), signal.SIGKILL)
        named = until(lines, "venue-demo: table1 failed", said)
        assert "status -9" in named and "the other tables play on" in named, named
        until(lines, "venue-demo: table2 played", said)
        until(lines, ALL_DONE, said)
        assert venue.poll() is None, said
        venue.send_signal(signal.SIGTERM)
        assert venue.wait(timeout=TIMEOUT) == 1, said
        assert until(lines, "venue-demo: stopped", said) == "venue-demo: stopped; failed: table1"
    finally:
        if venue.poll() is None:
            venue.kill()
            venue.wait()


def test_bad_options_are_refused_with_exit_2():
    refused = subprocess.run([*DEVETKA, "venue-demo", "--tables", "0"], capture_output=True, text=True)
    assert refused.returncode == 2 and "--tables must be from 1 to 50" in refused.stderr
