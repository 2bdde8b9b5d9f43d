"""The firmware's logic (firmware/app.py) driven by edges, read by the host's ``Receiver``: what the Pi would see."""

from __future__ import annotations

from firmware_bridge.firmware.app import POCKET_LINES, RAIL_LINES, STRIKE_LINE, Board
from firmware_bridge.protocol import Arm, ConfigState, Configure, Decoder, Ping, Receiver, Settings, encode
from scoreboard.core.inputs import Cushion, Pocket, Strike, to_json
from scoreboard.sensing.interface import Health

MS = 1000
LINES = [*POCKET_LINES, *RAIL_LINES, STRIKE_LINE]


class Table:
    """A board with every line wired, its frames read by the host as they come."""

    def __init__(self) -> None:
        self.board = Board(boot_id=0xB007, lines=LINES, now=0)
        self.receiver = Receiver()
        self.reports = self.receiver.feed(b"".join(self.board.boot()), t=0.0)
        self.now = 0

    def host(self, frames: list[bytes], t: float) -> list:
        reports = self.receiver.feed(b"".join(frames), t)
        self.reports += reports
        return reports

    def ball(self, line: int, width: int = 4 * MS) -> list:
        """A ball crossing ``line``: a pulse, then time passing; what the host made of the frames."""
        start = self.now + 100 * MS
        frames = self.board.edge(line, True, start) + self.board.edge(line, False, start + width)
        self.now = start + width + 10 * MS
        frames += self.board.poll(self.now)
        return self.host(frames, self.now / 1e6)

    def send(self, message) -> list:
        return self.host(self.board.receive(encode(message, 0), self.now), self.now / 1e6)


def inputs(reports) -> list[dict]:
    return [{k: v for k, v in to_json(r).items() if k != "t"} for r in reports if type(r) is not Health]


def test_the_boot_says_hello_and_zero_counters():
    table = Table()
    assert [(r.status, r.detail) for r in table.reports] == [
        ("ok", "firmware 1.0.0, protocol 1, boot id 0000b007")]


def test_pocket_rail_and_strike_pulses_reach_the_host_as_inputs():
    table = Table()
    got = table.ball(POCKET_LINES[4]) + table.ball(RAIL_LINES[1]) + table.ball(STRIKE_LINE)
    assert inputs(got) == [
        {"type": "pocket", "pocket": "foot_left", "src": "serial"},
        {"type": "cushion", "rail": "foot", "src": "serial"},
        {"type": "strike", "src": "serial"},
    ]
    assert table.board.counts == [0, 0, 0, 0, 1, 0]


def test_rack_mode_neither_sends_nor_counts_pockets_and_a_strike_ends_it():
    table = Table()
    table.send(Arm(False))
    assert inputs(table.ball(POCKET_LINES[0]) + table.ball(POCKET_LINES[0])) == []
    assert table.board.counts == [0] * 6
    assert inputs(table.ball(STRIKE_LINE) + table.ball(POCKET_LINES[0])) == [
        {"type": "strike", "src": "serial"}, {"type": "pocket", "pocket": "head_left", "src": "serial"}]
    table.send(Arm(False))
    table.send(Arm(True))
    assert len(inputs(table.ball(POCKET_LINES[0]))) == 1


def test_a_ping_is_answered_with_hello_and_counters():
    table = Table()
    table.ball(POCKET_LINES[2])
    frames = table.board.receive(encode(Ping(), 0), table.now)
    decoded = [f.message for f in Decoder().feed(b"".join(frames))]
    assert [type(m).__name__ for m in decoded] == ["Hello", "Counters"]
    assert decoded[0].reason == 1 and decoded[1].counts == (0, 0, 1, 0, 0, 0)


def test_configure_is_clamped_answered_and_applied():
    table = Table()
    frames = table.board.receive(encode(Configure(Settings(min_pulse_us=5000, lockout_ms=40, stuck_ms=3000,
                                                           heartbeat_ms=5000)), 0), table.now)
    (answer,) = [f.message for f in Decoder().feed(b"".join(frames))]
    assert answer == ConfigState(Settings(5000, 40, 3000, 500))
    assert inputs(table.ball(POCKET_LINES[1], width=4 * MS)) == []  # now shorter than the minimum pulse
    assert len(inputs(table.ball(POCKET_LINES[1], width=6 * MS))) == 1


def test_heartbeats_when_quiet_and_counters_every_second_keep_the_host_in_step():
    board = Board(boot_id=1, lines=LINES, now=0)
    decoder = Decoder()
    decoder.feed(b"".join(board.boot()))
    kinds = []
    for now in range(0, 2_000 * MS + 1, 10 * MS):
        kinds += [type(f.message).__name__ for f in decoder.feed(b"".join(board.poll(now)))]
    # A heartbeat after each 250 ms of quiet, the counters each second (and they too end a quiet spell).
    assert kinds == ["Heartbeat"] * 3 + ["Counters"] + ["Heartbeat"] * 3 + ["Counters"]


def test_a_stuck_beam_is_a_fault_then_recovers_and_is_not_a_ball():
    table = Table()
    line = POCKET_LINES[5]
    frames = table.board.edge(line, True, 1 * MS) + table.board.poll(4_000 * MS)
    frames += table.board.edge(line, False, 6_000 * MS) + table.board.poll(6_001 * MS)
    got = table.host(frames, 6.0)
    assert [(r.subject, r.status) for r in got if type(r) is Health] == [
        ("pocket:foot_right", "fault"), ("pocket:foot_right", "ok")]
    assert inputs(got) == []


def test_a_lost_pocket_frame_shows_in_the_next_counters_as_an_unidentified_ball():
    table = Table()
    start = table.now + 100 * MS
    lost = table.board.edge(POCKET_LINES[3], True, start) + table.board.edge(POCKET_LINES[3], False, start + 4 * MS)
    lost += table.board.poll(start + 5 * MS)
    assert len(lost) == 1  # the pocket frame, never delivered
    later = table.board.poll(start + 1_000 * MS)  # the counters of each second
    got = table.host(later, 1.0)
    assert [(r.status, r.count) for r in got if type(r) is Health] == [("lost_frames", 1), ("missed_pockets", 1)]
    assert inputs(got) == [{"type": "pocket", "pocket": "side_right", "src": "serial"}]
    assert all(type(r) in (Pocket, Cushion, Strike, Health) for r in table.reports)
