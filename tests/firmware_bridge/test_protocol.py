"""The frames and their meaning (firmware_bridge/protocol.py, PROTOCOL.md).

What a user of the bridge relies on: every message survives the wire; garbage,
bit flips and any split of the byte stream lose no good frame, deliver none twice
and invent none; a gap, a restart and the counters are told as health, and a
pocket the microcontroller counted reaches the match exactly once.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    HELLO_BOOT,
    HELLO_REPLY,
    HOST_MESSAGES,
    MCU_MESSAGES,
    PROTOCOL_VERSION,
    Arm,
    ConfigState,
    Configure,
    Counters,
    CueStrike,
    CushionHit,
    Decoder,
    Frame,
    Heartbeat,
    Hello,
    LineFault,
    Ping,
    PocketDrop,
    ProtocolError,
    Receiver,
    Settings,
    crc16,
    encode,
    line_subject,
)
from scoreboard.core.inputs import POCKETS, RAILS, Cushion, Pocket, Strike, to_json
from scoreboard.sensing.interface import Health

u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
balls = st.none() | st.integers(0, 9)
pocket_names = st.none() | st.sampled_from(POCKETS)
rail_names = st.none() | st.sampled_from(RAILS)
fault_lines = st.sampled_from([*range(0x00, 0x06), *range(0x10, 0x16), 0x20])
settings = st.builds(Settings, u16, u16, u16, u16)

mcu_messages = st.one_of(
    st.builds(Hello, st.just(PROTOCOL_VERSION), st.tuples(u8, u8, u8), u32, st.sampled_from([HELLO_BOOT, HELLO_REPLY])),
    st.builds(PocketDrop, u32, pocket_names, balls, u16),
    st.builds(CushionHit, rail_names, balls),
    st.just(CueStrike()),
    st.builds(LineFault, fault_lines, st.booleans(), u8),
    st.builds(Heartbeat, u32, u32, st.booleans(), st.booleans()),
    st.builds(Counters, u32, st.tuples(*[u16] * len(POCKETS))),
    st.builds(ConfigState, settings),
)
host_messages = st.one_of(st.builds(Arm, st.booleans()), st.just(Ping()), st.builds(Configure, settings))


def same(frames: list[Frame]) -> list[tuple]:
    """Frames compared with their message types (empty messages are equal tuples otherwise)."""
    return [(frame.seq, type(frame.message), frame.message) for frame in frames]


def feed_in_pieces(decoder: Decoder, wire: bytes, cuts: list[int]) -> list[Frame]:
    out: list[Frame] = []
    bounds = [0, *sorted(cuts), len(wire)]
    for a, b in zip(bounds, bounds[1:], strict=False):
        out += decoder.feed(wire[a:b])
    return out


# --- the frame ---------------------------------------------------------------------------------------


def test_the_crc_is_crc16_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_a_frame_is_sync_length_type_seq_payload_crc():
    frame = encode(CushionHit("head", 5), seq=300)
    assert frame[0] == 0x7E
    assert frame[1] == 2 and frame[2] == CushionHit.TYPE and frame[3] == 300 & 0xFF
    assert frame[4:6] == bytes((RAILS.index("head"), 5))
    assert frame[6:] == crc16(frame[1:6]).to_bytes(2, "big")


def test_every_message_has_the_size_its_type_says_and_types_are_unique():
    kinds = MCU_MESSAGES + HOST_MESSAGES
    assert len({kind.TYPE for kind in kinds}) == len(kinds)
    assert all(kind.TYPE & 0x80 for kind in HOST_MESSAGES) and not any(kind.TYPE & 0x80 for kind in MCU_MESSAGES)


@given(st.lists(mcu_messages, max_size=20), st.data())
def test_microcontroller_messages_come_through_whatever_the_split(messages, data):
    wire = b"".join(encode(message, seq) for seq, message in enumerate(messages))
    for message in messages:
        assert len(encode(message, 0)) == 6 + type(message).SIZE
    cuts = data.draw(st.lists(st.integers(0, len(wire)), max_size=8))
    decoder = Decoder()
    got = feed_in_pieces(decoder, wire, cuts)
    assert same(got) == same([Frame(seq & 0xFF, message) for seq, message in enumerate(messages)])
    assert (decoder.errors, decoder.skipped, decoder.frames) == (0, 0, len(messages))


@given(st.lists(host_messages, max_size=10))
def test_host_messages_come_through(messages):
    wire = b"".join(encode(message, seq) for seq, message in enumerate(messages))
    got = Decoder(HOST_MESSAGES).feed(wire)
    assert same(got) == same([Frame(seq, message) for seq, message in enumerate(messages)])


def test_a_decoder_takes_only_its_direction():
    assert Decoder().feed(encode(Ping(), 0)) == []
    assert Decoder(HOST_MESSAGES).feed(encode(CueStrike(), 0)) == []


# --- garbage, bit flips, resynchronisation ---------------------------------------------------------


def accidental_frame(wire: bytes, good_starts: set[int]) -> bool:
    """Do some bytes outside the good frames happen to form a frame (a CRC-16 collision, about 1 in 65,536)?"""
    for start in range(len(wire) - 3):
        if wire[start] == 0x7E and start not in good_starts:
            decoder = Decoder()
            if decoder.feed(wire[start:start + 6 + wire[start + 1]]) and decoder.skipped == 0:
                return True
    return False


# Garbage: random bytes, or the start of a frame cut short (a reconnect mid-frame): a sync byte and a
# header that claims more bytes than come, so the decoder must look again inside what it took.
garbage = st.one_of(
    st.binary(max_size=24),
    st.builds(lambda message, cut: encode(message, 0)[:max(1, cut % len(encode(message, 0)))],
              mcu_messages, st.integers(1, 40)),
)


@given(
    st.lists(st.tuples(mcu_messages, garbage, st.none() | st.integers(0, 10_000)), max_size=25),
    garbage,
    st.data(),
)
def test_garbage_and_bit_flips_lose_no_good_frame_and_invent_none(items, tail, data):
    """Good frames between garbage and flipped frames: each good one exactly once, in order, nothing else."""
    wire = bytearray()
    good: list[Frame] = []
    good_starts: set[int] = set()
    runs = 0  # stretches of bad bytes that end at a good frame: one error each
    bad = False
    for seq, (message, junk, flip) in enumerate(items):
        frame = bytearray(encode(message, seq))
        wire += junk
        bad = bad or bool(junk)
        if flip is None:
            good.append(Frame(seq & 0xFF, message))
            good_starts.add(len(wire))
            runs += bad
            bad = False
        else:
            bit = flip % (len(frame) * 8)
            frame[bit // 8] ^= 1 << (bit % 8)
            bad = True
        wire += frame
    wire += tail
    assume(not accidental_frame(bytes(wire), good_starts))
    cuts = data.draw(st.lists(st.integers(0, len(wire)), max_size=10))
    decoder = Decoder()
    got = feed_in_pieces(decoder, bytes(wire), cuts)
    assert same(got) == same(good)
    assert decoder.frames == len(good)
    assert runs <= decoder.errors <= runs + 1  # and the bytes after the last good frame, if any were given up


@given(st.binary(max_size=400))
def test_garbage_alone_gives_no_input(noise):
    receiver = Receiver()
    reports = receiver.feed(noise, t=1.0)
    assert [r for r in reports if type(r) is not Health] == []
    assert all(r.status == "errors" for r in reports)


def test_a_corrupt_frame_does_not_hide_the_good_frame_after_it():
    good = encode(CueStrike(), 1)
    # A false header claiming a long hello swallows the good frame's bytes until its CRC fails.
    wire = b"\x7e\x09\x01" + good + b"\x00" * 20 + encode(CueStrike(), 2)
    decoder = Decoder()
    assert [frame.seq for frame in decoder.feed(wire)] == [1, 2]
    assert decoder.errors == 2  # the false header, then the zeros
    assert decoder.skipped == 3 + 20


def test_errors_count_runs_and_reset_drops_a_partial_frame():
    decoder = Decoder()
    frame = encode(Heartbeat(1, 2), 0)
    assert decoder.feed(b"\x01\x02" + frame[:5]) == []
    assert (decoder.errors, decoder.skipped) == (1, 2)
    decoder.reset()  # the connection broke mid-frame: its start joins the run of skipped bytes
    assert (decoder.errors, decoder.skipped) == (1, 7)
    assert [f.seq for f in decoder.feed(frame[5:] + frame)] == [0]
    assert (decoder.errors, decoder.skipped) == (2, 7 + len(frame) - 5)  # the rest of the broken frame


def test_content_the_protocol_does_not_allow_is_refused_even_with_a_good_crc():
    for payload in (struct.pack(">IBBH", 1, 6, 3, 1), struct.pack(">IBBH", 1, 0, 10, 1)):
        body = bytes((8, PocketDrop.TYPE, 0)) + payload
        wire = b"\x7e" + body + crc16(body).to_bytes(2, "big")
        decoder = Decoder()
        assert decoder.feed(wire) == [] and decoder.errors == 1
    with pytest.raises(ProtocolError):
        line_subject(0x07)
    with pytest.raises(ProtocolError):
        LineFault.unpack(b"\x00\x02\x01")


# --- the receiver: inputs and health ------------------------------------------------------------------


def inputs(reports):
    return [to_json(r) for r in reports if type(r) is not Health]


def health(reports, status=None):
    return [r for r in reports if type(r) is Health and (status is None or r.status == status)]


def test_frames_become_match_log_inputs_with_the_hosts_time_and_src_serial():
    receiver = Receiver()
    wire = (encode(Hello(PROTOCOL_VERSION, (1, 0, 0), 9, HELLO_BOOT), 0) + encode(CueStrike(), 1)
            + encode(CushionHit("left_head", 0), 2) + encode(CushionHit(None, None), 3)
            + encode(PocketDrop(9, "side_right", 7, 1), 4) + encode(PocketDrop(9, None, 0, 0), 5))
    reports = receiver.feed(wire, t=42.5)
    assert inputs(reports) == [
        {"type": "strike", "t": 42.5, "src": "serial"},
        {"type": "cushion", "ball": 0, "rail": "left_head", "t": 42.5, "src": "serial"},
        {"type": "cushion", "t": 42.5, "src": "serial"},
        {"type": "pocket", "ball": 7, "pocket": "side_right", "t": 42.5, "src": "serial"},
        {"type": "pocket", "ball": 0, "t": 42.5, "src": "serial"},
    ]
    (hello,) = health(reports)
    assert (hello.subject, hello.status) == ("link", "ok")
    assert hello.detail == "firmware 1.0.0, protocol 1, boot id 00000009"
    assert all(type(r) in (Strike, Cushion, Pocket, Health) for r in reports)


def test_a_gap_in_sequence_numbers_is_told_as_lost_frames():
    receiver = Receiver()
    reports = receiver.feed(encode(Heartbeat(1, 0), 254) + encode(Heartbeat(1, 0), 255) + encode(CueStrike(), 3),
                            t=1.0)
    (lost,) = health(reports, "lost_frames")
    assert lost.count == 3  # 0, 1 and 2 (the numbers wrap at 255)
    assert inputs(reports) == [{"type": "strike", "t": 1.0, "src": "serial"}]


def test_a_reconnect_starts_the_sequence_over_without_a_false_gap():
    receiver = Receiver()
    receiver.feed(encode(Heartbeat(1, 0), 10), t=1.0)
    assert receiver.link_lost(t=2.0) == []
    assert health(receiver.feed(encode(Heartbeat(1, 0), 90), t=3.0)) == []


def test_missed_pockets_from_the_pocket_frames_count_are_told_and_added_once():
    receiver = Receiver()
    receiver.feed(encode(Hello(1, (1, 0, 0), 5, HELLO_BOOT), 0), t=1.0)
    reports = receiver.feed(encode(PocketDrop(5, "foot_left", 3, 3), 1), t=2.0)
    (missed,) = health(reports, "missed_pockets")
    assert (missed.subject, missed.count) == ("pocket:foot_left", 2)
    assert inputs(reports) == [
        {"type": "pocket", "pocket": "foot_left", "t": 2.0, "src": "serial"},
        {"type": "pocket", "pocket": "foot_left", "t": 2.0, "src": "serial"},
        {"type": "pocket", "ball": 3, "pocket": "foot_left", "t": 2.0, "src": "serial"},
    ]
    # The counters now agree: nothing more. A repeated frame is not counted twice.
    assert receiver.feed(encode(Counters(5, (0, 0, 0, 0, 3, 0)), 2), t=3.0) == []
    assert inputs(receiver.feed(encode(PocketDrop(5, "foot_left", 3, 3), 3), t=4.0)) == []


def test_counters_tell_missed_pockets_and_the_late_frame_is_not_counted_again():
    receiver = Receiver()
    receiver.feed(encode(Counters(5, (0, 0, 0, 0, 0, 0)), 0), t=1.0)
    reports = receiver.feed(encode(Counters(5, (1, 0, 2, 0, 0, 0)), 1), t=2.0)
    assert sorted((h.subject, h.count) for h in health(reports, "missed_pockets")) == [
        ("pocket:head_left", 1), ("pocket:side_left", 2)]
    assert [i["pocket"] for i in inputs(reports)] == ["head_left", "side_left", "side_left"]
    assert all("ball" not in i for i in inputs(reports))
    # The frame of the second side_left drop, repeated: already counted.
    assert inputs(receiver.feed(encode(PocketDrop(5, "side_left", 4, 2), 2), t=3.0)) == []
    assert inputs(receiver.feed(encode(PocketDrop(5, "side_left", 4, 3), 3), t=3.0)) == [
        {"type": "pocket", "ball": 4, "pocket": "side_left", "t": 3.0, "src": "serial"}]


def test_the_first_boot_heard_is_taken_as_it_is():
    """The host starts listening to a microcontroller that has counted for hours: none of that is missed."""
    receiver = Receiver()
    reports = receiver.feed(encode(Hello(1, (1, 0, 0), 5, HELLO_REPLY), 40)
                            + encode(Counters(5, (100, 7, 0, 3, 9, 1)), 41)
                            + encode(PocketDrop(5, "head_right", None, 8), 42), t=1.0)
    assert health(reports, "missed_pockets") == []
    assert inputs(reports) == [{"type": "pocket", "pocket": "head_right", "t": 1.0, "src": "serial"}]


def test_a_boot_hello_heard_first_means_every_count_is_a_drop():
    receiver = Receiver()
    reports = receiver.feed(encode(Hello(1, (1, 0, 0), 5, HELLO_BOOT), 0) + encode(Counters(5, (0, 0, 0, 0, 0, 1)), 2),
                            t=1.0)
    assert [i["pocket"] for i in inputs(reports)] == ["foot_right"]


def test_a_restart_is_told_and_counted_from_zero():
    receiver = Receiver()
    receiver.feed(encode(Hello(1, (1, 0, 0), 5, HELLO_BOOT), 0) + encode(PocketDrop(5, "foot_left", 1, 1), 1)
                  + encode(PocketDrop(5, "foot_left", 2, 2), 2), t=1.0)
    # Power glitch: the microcontroller starts again; its boot hello is lost, a heartbeat shows the new boot.
    reports = receiver.feed(encode(Heartbeat(6, 100), 1) + encode(PocketDrop(6, "foot_left", 4, 2), 2), t=2.0)
    (restarted,) = health(reports, "restarted")
    assert restarted.detail == "boot id 00000005 became 00000006: counting again from zero"
    assert health(reports, "lost_frames") == []
    assert [(h.subject, h.count) for h in health(reports, "missed_pockets")] == [("pocket:foot_left", 1)]
    assert [i.get("ball") for i in inputs(reports)] == [None, 4]


def test_a_counter_that_goes_back_is_a_fault_and_the_drop_still_counts():
    receiver = Receiver()
    receiver.feed(encode(PocketDrop(5, "foot_left", 1, 10), 0), t=1.0)
    reports = receiver.feed(encode(PocketDrop(5, "foot_left", 2, 4), 1), t=2.0)
    assert [(h.subject, h.status) for h in health(reports)] == [("pocket:foot_left", "fault")]
    assert [i["ball"] for i in inputs(reports)] == [2]
    assert inputs(receiver.feed(encode(Counters(5, (0, 0, 0, 0, 2, 0)), 2), t=3.0)) == []  # older: ignored


def test_counters_wrap_around_at_65536():
    receiver = Receiver()
    receiver.feed(encode(PocketDrop(5, "foot_left", 1, 0xFFFF), 0), t=1.0)
    reports = receiver.feed(encode(PocketDrop(5, "foot_left", 2, 1), 1), t=2.0)
    assert [i.get("ball") for i in inputs(reports)] == [None, 2]


def test_line_faults_and_recoveries_are_health_of_that_line():
    receiver = Receiver()
    reports = receiver.feed(encode(LineFault(0x02, True, 1), 0) + encode(LineFault(0x02, False, 1), 1)
                            + encode(LineFault(0x20, True, 9), 2), t=1.0)
    assert [(r.subject, r.status, r.detail) for r in reports] == [
        ("pocket:side_left", "fault", "stuck active"),
        ("pocket:side_left", "ok", "recovered (stuck active)"),
        ("strike", "fault", "fault code 9"),
    ]


def test_another_protocol_version_is_a_link_fault():
    (report,) = Receiver().feed(encode(Hello(2, (3, 0, 0), 5, HELLO_BOOT), 0), t=1.0)
    assert (report.status, report.detail) == (
        "fault", "firmware 3.0.0, protocol 2, boot id 00000005: this host speaks protocol 1")


def test_decoding_errors_are_told_at_most_once_a_second_and_all_told_when_the_link_drops():
    receiver = Receiver()
    first = health(receiver.feed(b"\x00" + encode(CueStrike(), 0), t=10.0), "errors")
    assert [(r.count, r.detail) for r in first] == [(1, "1 corrupt frames or garbage runs skipped so far (1 bytes)")]
    assert health(receiver.feed(b"\x00" + encode(CueStrike(), 1), t=10.5), "errors") == []
    assert [r.count for r in health(receiver.feed(b"\x00" + encode(CueStrike(), 2), t=11.0), "errors")] == [2]
    receiver.feed(b"\x00" + encode(CueStrike(), 3), t=11.2)
    assert [r.count for r in receiver.link_lost(t=11.3)] == [1]


# --- every counted pocket reaches the match exactly once ---------------------------------------------

mcu_events = st.lists(
    st.tuples(
        st.sampled_from(["drop", "drop", "drop", "counters", "heartbeat", "strike"]),
        st.integers(0, 5),
        balls,
        st.booleans(),  # the frame is lost
        st.integers(0, 9),  # 0: the link drops before this frame
    ),
    max_size=60,
)


@given(mcu_events)
def test_every_counted_pocket_reaches_the_match_once_whatever_frames_are_lost(events):
    boot = 77
    counts = [0] * len(POCKETS)
    drops: list[list[int | None]] = [[] for _ in POCKETS]  # per pocket: the ball each drop should give
    receiver = Receiver()
    reports = receiver.feed(encode(Hello(1, (1, 0, 0), boot, HELLO_BOOT), 0), t=0.0)
    lost_drops = 0
    for seq, (kind, pocket, ball, lost, reconnect) in enumerate(events, 1):
        if kind == "drop":
            counts[pocket] += 1
            message = PocketDrop(boot, POCKETS[pocket], ball, counts[pocket])
            drops[pocket].append(None if lost else ball)
            lost_drops += lost
        elif kind == "counters":
            message = Counters(boot, tuple(counts))
        elif kind == "heartbeat":
            message = Heartbeat(boot, seq)
        else:
            message = CueStrike()
        if reconnect == 0:
            reports += receiver.link_lost(t=float(seq))
        if not lost:
            reports += receiver.feed(encode(message, seq), t=float(seq))
    reports += receiver.feed(encode(Counters(boot, tuple(counts)), len(events) + 1), t=999.0)
    pockets = [r for r in reports if type(r) is Pocket]
    for index, name in enumerate(POCKETS):
        assert [p.ball for p in pockets if p.pocket == name] == drops[index]
    assert sum(h.count for h in health(reports, "missed_pockets")) == lost_drops
    assert [type(r) for r in reports if type(r) in (Strike, Cushion)] == [Strike] * sum(
        1 for kind, _, _, lost, _ in events if kind == "strike" and not lost)
