"""Faults of the venue with real parts (docs/venue.md, "What was tested"): three tables on this machine, each its
own Mosquitto and ``devetka run``, bridged to a venue Mosquitto, all staged by install.sh. The daemon's store is the
truth; the venue must come back to it: every table's retained state equal to what its daemon serves, every event
there. Times are measured and printed (``-s``), never asserted: only generous bounds that say "it never came"."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import contextmanager

import orjson
import pytest

from scoreboard.sim.broker import ConfiguredBroker
from scoreboard.venue.bridge import BRIDGED_TOPICS, render_table_bridge
from tests.live import ANA_BEN, DEVETKA, LEGAL_BREAK, TIMEOUT
from tests.venue.browser import Browser
from tests.venue.hall import TEST_KEEPALIVE_S, Board
from tests.watcher import retained

#: How long the venue broker stays dead: 5 s in the suite; DEVETKA_VENUE_OUTAGE_S=30 for the documented run.
OUTAGE_S = float(os.environ.get("DEVETKA_VENUE_OUTAGE_S", "5"))
#: One more shot after the break, whoever shoots: the 1 hit, a rail, no ball down.
SHOT = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2}, {"type": "settle"}]


def report(what: str, seconds: float) -> None:
    print(f"\nvenue figure: {what}: {seconds:.2f} s")


#: Every table's link and state back on the venue within this long of the venue broker's return (issue 29): the
#: bridge tries again every 1-2 s (restart_timeout 1 2), a little more once 2.0.11's whole-second clock is past it.
RECOVERY_S = 5.0


def left(since: float) -> float:
    """What is left of RECOVERY_S counted from ``since`` (a wait past it says the table never came back in time)."""
    return max(0.01, since + RECOVERY_S - time.monotonic())


def same_state(table):
    """A predicate: the board's state is the one the table's daemon serves now."""
    served = table.state()
    return lambda value: value == served


def assert_no_event_lost(board_events: list[dict], table) -> None:
    """Every input the daemon stored in its match is on the venue, in order, once (seq 0, its match_start, to the
    state's seq), and is the input the store keeps (``devetka export``, the match log)."""
    state = table.state()
    inputs = [event for event in board_events if event["event"] == "input" and event["match_id"] == state["match_id"]]
    assert [event["seq"] for event in inputs] == list(range(state["seq"] + 1)), (table.id, inputs)
    export = subprocess.run([DEVETKA, "export", "--store", str(table.daemon.store), "--match", str(state["match_id"])],
                            capture_output=True, check=True, timeout=TIMEOUT)
    assert [event["input"] for event in inputs] == [orjson.loads(line) for line in export.stdout.splitlines()]


def tile_shows(page: Browser, table, condition: str) -> None:
    """Wait until the real board's tile of ``table`` satisfies a JS ``condition`` on ``tile`` (its element)."""
    page.wait_for(f"(() => {{ const tile = document.querySelector('[data-table=\"{table.id}\"]');"
                  f" return Boolean(tile) && ({condition}); }})()")


def tile_is_live_at(page: Browser, table) -> None:
    """The tile shows the table online at exactly the state its daemon serves now."""
    state = table.state()
    tile_shows(page, table, f"tile.dataset.seq === '{state['seq']}' && tile.dataset.match === '{state['match_id']}'"
                            " && tile.dataset.online === 'true'")


@pytest.fixture
def page(venue):
    """The board itself, in headless Chromium, loaded from the venue broker that serves it (its http_dir), reading
    the readers' broker."""
    with Browser() as browser:
        browser.open(venue.board_url())
        yield browser


def begin(table, board) -> None:
    """A match begun and broken on ``table``, seen by ``board`` up to its last state."""
    table.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK)
    board.wait_for(f"devetka/{table.id}/state", same_state(table))


@contextmanager
def whole_prefix_bridge(venue):
    """The control of the bridge's topics: a table broker (login c1, no daemon) bridged as the shipped text says but
    with ``topic devetka/c1/# out 1``, which takes in the bridge's own notification topic."""
    shipped = render_table_bridge("c1", "127.0.0.1", venue.tables_port, "c1", venue.logins["c1"])
    named = "".join(f"topic devetka/c1/{topic} out 1\n" for topic in BRIDGED_TOPICS)
    assert named in shipped
    broker = ConfiguredBroker()
    broker.config_text = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                          + shipped.replace(named, "topic devetka/c1/# out 1\n"))
    with broker:
        yield broker


def test_the_venue_broker_killed_during_play_comes_back_to_every_tables_state_with_every_event(tables, venue, page):
    with whole_prefix_bridge(venue) as whole:
        first = Board(venue)
        try:
            for table in tables.values():
                begin(table, first)
                # Its last event too: the readers' broker stores a QoS 1 event before it passes it on, so the state
                # (QoS 0) may come first, and what the venue's Mosquitto had taken but not yet passed on dies with it.
                last = table.state()["seq"]
                first.wait_for(f"devetka/{table.id}/event", lambda value, seq=last: value["seq"] == seq)
            first.wait_for("devetka/c1/bridge", lambda value: value == 1)
            killed = time.monotonic()
            venue.kill()
        finally:
            first.close()
        held = [table.broker.process for table in tables.values()] + [whole.process]
        try:
            # The tables referee on: their local APIs answer every input while the venue is away.
            while time.monotonic() < killed + OUTAGE_S:
                for table in tables.values():
                    table.play(*SHOT)
                time.sleep(min(1.0, max(0.0, killed + OUTAGE_S - time.monotonic())))
            # The board must be listening before the first bridge is back, or it would miss the events the bridges
            # kept: the tables' brokers are held (SIGSTOP, a few ms) while the venue starts and the board subscribes.
            for process in held:
                process.send_signal(signal.SIGSTOP)
            venue.start()
            second = Board(venue)
        finally:
            if venue.process.poll() is not None:
                venue.start()
            back = time.monotonic()
            for process in held:
                process.send_signal(signal.SIGCONT)
        try:
            report(f"venue broker dead for (SIGKILL to restart; {OUTAGE_S:g} s wanted)", back - killed)
            for table in tables.values():
                # The readers' broker stayed up and still keeps the 1 from before the kill: the live 1 is the bridge's
                # reconnect, passed on by the venue's link once that is back too.
                reconnected, _, _ = second.wait_for(f"devetka/{table.id}/bridge", lambda value: value == 1, live=True,
                                                    timeout=left(back))
                settled, _, _ = second.wait_for(f"devetka/{table.id}/state", same_state(table), timeout=left(back))
                report(f"{table.id}: venue back -> bridge reconnected", reconnected - back)
                report(f"{table.id}: bridge reconnected -> the table's last state on the venue", settled - reconnected)
            for table in tables.values():
                last = table.state()
                second.wait_for(f"devetka/{table.id}/event", lambda value, seq=last["seq"]: value["seq"] == seq)
                assert orjson.loads(retained(venue, f"devetka/{table.id}/state", transport="websockets").payload) \
                    == last
                assert retained(venue, f"devetka/{table.id}/availability", transport="websockets").payload == b"online"
                assert retained(venue, f"devetka/{table.id}/bridge", transport="websockets").payload == b"1"
                assert_no_event_lost(first.events(table.id) + second.events(table.id), table)
                assert table.state()["seq"] > 7 + 1  # inputs were refereed while the venue was down
            # The control: its bridge is up (its own broker says 1), and yet the copies of its notification that it
            # forwarded after its "1" (the 0s of its failed tries) leave the venue with 0 for it.
            up, _, _ = second.wait_for("devetka/c1/bridge", lambda value: value == 1, live=True)
            second.wait_for("devetka/c1/bridge", lambda value: value == 0, since=up)
            assert retained(whole, "devetka/c1/bridge").payload == b"1"
            assert retained(venue, "devetka/c1/bridge", transport="websockets").payload == b"0"
            for table in tables.values():  # the board page, open all along, converges to every table's exact state
                tile_is_live_at(page, table)
        finally:
            second.close()


def test_a_tables_broker_killed_and_restarted_gets_its_state_to_the_venue_again(tables, board):
    table = tables["t2"]
    begin(table, board)
    killed = time.monotonic()  # before: the venue may hear of it before kill() has returned
    table.broker.kill()
    try:
        board.wait_for("devetka/t2/bridge", lambda value: value == 0, since=killed)  # its socket closed: the will
        report("t2's broker killed -> the venue says 0 on devetka/t2/bridge", time.monotonic() - killed)
        table.play(*SHOT)  # refereed with no broker at all; the daemon keeps the events for it
    finally:
        restarted = time.monotonic()
        table.broker.start()
    reconnected, _, _ = board.wait_for("devetka/t2/bridge", lambda value: value == 1, since=restarted)
    settled, _, _ = board.wait_for("devetka/t2/state", same_state(table), since=restarted)
    report("t2's broker restarted -> bridge up", reconnected - restarted)
    report("t2's broker restarted -> its last state on the venue", settled - restarted)
    last = table.state()
    board.wait_for("devetka/t2/event", lambda value: value["seq"] == last["seq"])
    assert_no_event_lost(board.events("t2"), table)


def test_a_table_whose_power_is_pulled_is_seen_offline_by_its_bridges_keepalive(tables, venue, board, page):
    """Mosquitto 2.0.11 drops a client silent for more than 1.5 keepalives (whole seconds), but looks only every
    5 s or so: ``0`` comes 1.5 keepalives to 1.5 keepalives + 6 s after the last word from the table."""
    table = tables["t3"]
    begin(table, board)
    tile_is_live_at(page, table)
    frozen = time.monotonic()
    table.freeze()
    try:
        gone, _, retained_flag = board.wait_for("devetka/t3/bridge", lambda value: value == 0, since=frozen,
                                                timeout=1.5 * TEST_KEEPALIVE_S + TIMEOUT)
        assert not retained_flag
        report(f"t3 frozen (SIGSTOP) -> 0 on devetka/t3/bridge, keepalive {TEST_KEEPALIVE_S} s "
               f"(2.0.11's bound {TEST_KEEPALIVE_S * 3 // 2 + 1 + 6} s)", gone - frozen)
        # Its last state stays retained on the venue, and so does its daemon's "online" (the daemon's will went to
        # the table's own broker, which is frozen too): only the bridge topic says the table is not live.
        stale = orjson.loads(retained(venue, "devetka/t3/state", transport="websockets").payload)
        assert stale["match_id"] is not None
        assert retained(venue, "devetka/t3/availability", transport="websockets").payload == b"online"
        # The board never shows that old score as live: the tile reads not online, its score "last known".
        tile_shows(page, table, "tile.dataset.online === 'false' && tile.dataset.status !== 'online'"
                                " && tile.innerText.toUpperCase().includes('LAST KNOWN')")
    finally:
        thawed = time.monotonic()
        table.thaw()
    back, _, _ = board.wait_for("devetka/t3/bridge", lambda value: value == 1, since=thawed)
    report("t3 thawed -> its bridge up again", back - thawed)
    tile_is_live_at(page, table)


#: How long the venue broker is frozen in the freeze test: past the bridges' keepalive (5 s in the suite), so that
#: they give up on it and connect again while it still holds what they sent before.
FREEZE_S = float(os.environ.get("DEVETKA_VENUE_FREEZE_S", "20"))


def test_a_frozen_venue_broker_thawed_passes_each_tables_events_on_in_seq_order(tables, venue, board):
    """Issue 29: the venue broker frozen (SIGSTOP, a hung machine) for FREEZE_S while the tables play, then thawed.
    Every table's events reach the readers in seq order and none is lost, as docs/mqtt.md ("Order") promises a
    subscriber: once the repeats QoS 1 may deliver are dropped (a window of events sent again after the thaw: a run
    gave [8, 9, 8, 9, 10, ...]), the first copy of each comes in order."""
    for table in tables.values():
        begin(table, board)
        last = table.state()["seq"]
        board.wait_for(f"devetka/{table.id}/event", lambda value, seq=last: value["seq"] == seq)
    since = len(board.arrivals)
    venue.process.send_signal(signal.SIGSTOP)
    frozen = time.monotonic()
    try:
        while time.monotonic() < frozen + FREEZE_S:
            for table in tables.values():
                table.play(*SHOT)
            time.sleep(1.0)
    finally:
        venue.process.send_signal(signal.SIGCONT)
    for table in tables.values():
        last = table.state()
        board.wait_for(f"devetka/{table.id}/event", lambda value, seq=last["seq"]: value["seq"] == seq)
        events = [orjson.loads(payload) for _, topic, payload, _ in board.arrivals[since:]
                  if topic == f"devetka/{table.id}/event"]
        seqs = [event["seq"] for event in events if event["event"] == "input" and event["match_id"] == last["match_id"]]
        first_copies = list(dict.fromkeys(seqs))
        assert first_copies == list(range(seqs[0], last["seq"] + 1)), (table.id, seqs)


@pytest.fixture(autouse=True)
def _every_bridge_up_first(tables, venue):
    """Each test starts with every table's bridge up (a test before may have taken one down)."""
    watching = Board(venue, ("devetka/+/bridge",))
    try:
        for table_id in tables:
            watching.wait_for(f"devetka/{table_id}/bridge", lambda value: value == 1)
    finally:
        watching.close()
