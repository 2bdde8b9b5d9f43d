"""The firmware's frames (firmware/frames.py) against the host's protocol: each side reads what the other writes."""

from __future__ import annotations

from binascii import crc_hqx

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.firmware import frames
from firmware_bridge.protocol import (
    HOST_MESSAGES,
    PROTOCOL_VERSION,
    Arm,
    ConfigState,
    Configure,
    Counters,
    CueStrike,
    CushionHit,
    Decoder,
    Heartbeat,
    Hello,
    LineFault,
    Ping,
    PocketDrop,
    Settings,
    encode,
)
from scoreboard.core.inputs import POCKETS, RAILS

u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
balls = st.none() | st.integers(0, 9)


@given(st.binary(max_size=64))
def test_the_firmwares_crc_is_the_hosts(data):
    assert frames.crc16(data) == crc_hqx(data, 0xFFFF)


def test_the_firmware_knows_the_hosts_numbers():
    assert frames.PROTOCOL_VERSION == PROTOCOL_VERSION
    assert (frames.HELLO, frames.POCKET, frames.CUSHION, frames.STRIKE, frames.FAULT, frames.HEARTBEAT,
            frames.COUNTERS, frames.CONFIG) == (Hello.TYPE, PocketDrop.TYPE, CushionHit.TYPE, CueStrike.TYPE,
                                                LineFault.TYPE, Heartbeat.TYPE, Counters.TYPE, ConfigState.TYPE)
    assert frames.HOST_SIZES == {kind.TYPE: kind.SIZE for kind in HOST_MESSAGES}


firmware_calls = st.one_of(
    st.builds(lambda f, b, r: ("hello", (f, b, r), Hello(PROTOCOL_VERSION, f, b, r)),
              st.tuples(*[st.integers(0, 255)] * 3), u32, st.sampled_from([0, 1])),
    st.builds(lambda b, p, ball, c: ("pocket", (b, p, ball, c), PocketDrop(b, POCKETS[p] if p is not None else None,
                                                                           ball, c)),
              u32, st.none() | st.integers(0, 5), balls, u16),
    st.builds(lambda r, ball: ("cushion", (r, ball), CushionHit(RAILS[r] if r is not None else None, ball)),
              st.none() | st.integers(0, 5), balls),
    st.just(("strike", (), CueStrike())),
    st.builds(lambda line, active, code: ("fault", (line, active, code), LineFault(line, active, code)),
              st.sampled_from([0x00, 0x05, 0x10, 0x15, 0x20]), st.booleans(), st.integers(0, 255)),
    st.builds(lambda b, up, armed, faulty: ("heartbeat", (b, up, armed, faulty), Heartbeat(b, up, armed, faulty)),
              u32, u32, st.booleans(), st.booleans()),
    st.builds(lambda b, counts: ("counters", (b, list(counts)), Counters(b, counts)),
              u32, st.tuples(*[u16] * 6)),
    st.builds(lambda s: ("config", tuple(s), ConfigState(s)), st.builds(Settings, u16, u16, u16, u16)),
)


@given(st.lists(firmware_calls, max_size=300))
def test_every_frame_the_firmware_encodes_decodes_on_the_host(calls):
    out = frames.Encoder()
    wire = b"".join(getattr(out, name)(*args) for name, args, _ in calls)
    decoded = Decoder().feed(wire)
    assert [(f.seq, type(f.message), f.message) for f in decoded] == [
        (seq & 0xFF, type(message), message) for seq, (_, _, message) in enumerate(calls)]


@given(st.lists(st.tuples(st.one_of(st.builds(Arm, st.booleans()), st.just(Ping()),
                                    st.builds(Configure, st.builds(Settings, u16, u16, u16, u16))),
                          st.binary(max_size=8)), max_size=20), st.data())
def test_the_firmware_reads_the_hosts_frames_between_garbage(items, data):
    wire = b"".join(junk + encode(message, seq) for seq, (message, junk) in enumerate(items))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    decoder = frames.HostDecoder()
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True):
        got += decoder.feed(wire[a:b])
    assert got == [(message.TYPE, message.pack()) for message, _ in items]
