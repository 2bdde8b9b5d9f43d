"""The firmware's side of PROTOCOL.md: frames to the host, and the host's frames read back.

Runs on MicroPython and CPython alike (no typing, dataclasses or f-strings;
only ``struct``), so the host's tests check that every frame encoded here
decodes there, and the other way round.

>>> out = Encoder()
>>> out.strike().hex()
'7e0004000058'
>>> HostDecoder().feed(bytes.fromhex("7e01810001ee3f"))
[(129, b'\\x01')]
"""

import struct

SYNC = 0x7E
UNKNOWN = 0xFF
PROTOCOL_VERSION = 1
HELLO_BOOT = 0
HELLO_REPLY = 1

HELLO = 0x01
POCKET = 0x02
CUSHION = 0x03
STRIKE = 0x04
FAULT = 0x05
HEARTBEAT = 0x06
COUNTERS = 0x07
CONFIG = 0x08
ARM = 0x81
PING = 0x82
CONFIGURE = 0x83
HOST_SIZES = {ARM: 1, PING: 0, CONFIGURE: 8}


def _table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_TABLE = _table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE, table-driven (MicroPython's ``binascii`` has no ``crc_hqx``).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def frame(kind, seq, payload):
    """One frame: sync, length, type, sequence number, payload, CRC of all but the sync."""
    body = bytes((len(payload), kind, seq & 0xFF)) + payload
    crc = crc16(body)
    return b"\x7e" + body + bytes((crc >> 8, crc & 0xFF))


def _id(value):
    return UNKNOWN if value is None else value


class Encoder:
    """Numbers the microcontroller's frames (0-255, then round again) and packs each message.

    >>> out = Encoder()
    >>> [out.heartbeat(7, 250, True, False)[3], out.counters(7, [0, 1, 0, 0, 0, 0])[3]]
    [0, 1]
    """

    def __init__(self):
        self.seq = 0

    def _frame(self, kind, payload):
        data = frame(kind, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFF
        return data

    def hello(self, firmware, boot_id, reason):
        major, minor, patch = firmware
        return self._frame(HELLO, struct.pack(">BBBBIB", PROTOCOL_VERSION, major, minor, patch, boot_id, reason))

    def pocket(self, boot_id, pocket, ball, count):
        return self._frame(POCKET, struct.pack(">IBBH", boot_id, _id(pocket), _id(ball), count & 0xFFFF))

    def cushion(self, rail, ball):
        return self._frame(CUSHION, bytes((_id(rail), _id(ball))))

    def strike(self):
        return self._frame(STRIKE, b"")

    def fault(self, line, active, code):
        return self._frame(FAULT, bytes((line, 1 if active else 0, code)))

    def heartbeat(self, boot_id, uptime_ms, armed, faulty):
        flags = (1 if armed else 0) | (2 if faulty else 0)
        return self._frame(HEARTBEAT, struct.pack(">IIB", boot_id, uptime_ms & 0xFFFFFFFF, flags))

    def counters(self, boot_id, counts):
        return self._frame(COUNTERS, struct.pack(">IHHHHHH", boot_id, *[c & 0xFFFF for c in counts]))

    def config(self, min_pulse_us, lockout_ms, stuck_ms, heartbeat_ms):
        return self._frame(CONFIG, struct.pack(">HHHH", min_pulse_us, lockout_ms, stuck_ms, heartbeat_ms))


class HostDecoder:
    """The host's frames (arm, ping, configure) out of the bytes the microcontroller reads.

    Like the host's decoder: a frame counts only with the length of its type
    and the right CRC, else the search moves on by one byte.

    >>> decoder = HostDecoder()
    >>> decoder.feed(b"\\x00\\x7e\\x00\\x82") + decoder.feed(b"\\x00\\xb1\\x66")
    [(130, b'')]
    >>> decoder.errors
    1
    """

    def __init__(self):
        self.buffer = b""
        self.errors = 0
        self._clean = True

    def _skip(self, count):
        self.buffer = self.buffer[count:]
        if self._clean:
            self._clean = False
            self.errors += 1

    def feed(self, data):
        """Add ``data``; return ``(type, payload)`` for each frame it completed."""
        self.buffer += bytes(data)
        out = []
        while self.buffer:
            buffer = self.buffer
            start = buffer.find(b"\x7e")
            if start < 0:
                self._skip(len(buffer))
                break
            if start:
                self._skip(start)
                continue
            if len(buffer) < 4:
                break
            length, kind = buffer[1], buffer[2]
            if HOST_SIZES.get(kind) != length:
                self._skip(1)
                continue
            end = 6 + length
            if len(buffer) < end:
                break
            if crc16(buffer[1:end - 2]) != (buffer[end - 2] << 8) | buffer[end - 1]:
                self._skip(1)
                continue
            out.append((kind, buffer[4:end - 2]))
            self.buffer = buffer[end:]
            self._clean = True
        return out
