"""Devetka's pocket-sensor firmware: MicroPython on a Raspberry Pi Pico (RP2040), talking to the Pi over USB.

Pico only (it imports ``machine``): the tests never import it. It does what
only the hardware can: pins with pull-ups, an interrupt per line that records
each edge with its ``ticks_us`` in a preallocated ring (no allocation in a hard
interrupt), USB serial in and out. The logic is in ``app.py`` (``Board``),
which CPython tests run. Copy ``frames.py``, ``counting.py``, ``app.py`` and
this file to the Pico's flash (README.md).

Marked HARDWARE below: what only a Pico on a table can confirm.
"""

import os
import select
import sys
import time
from array import array

import micropython
from app import Board
from machine import Pin

micropython.alloc_emergency_exception_buf(100)

# Line id (PROTOCOL.md) -> GPIO number. Pockets 0x00-0x05, rails 0x10-0x15, strike 0x20.
# A line not wired is left out. See README.md for the wiring.
PINS = {
    0x00: 2, 0x01: 3, 0x02: 4, 0x03: 5, 0x04: 6, 0x05: 7,  # head_left ... foot_right beams
    0x10: 8, 0x11: 9, 0x12: 10, 0x13: 11, 0x14: 12, 0x15: 13,  # rail comparators
    0x20: 14,  # strike sensor comparator
}
# Lines whose sensor pulls the pin low when it fires: an open-collector beam receiver does while the beam is
# broken, an LM393 comparator module usually does when its input passes the threshold. Remove a line whose
# sensor drives the pin high instead. (HARDWARE: check each sensor type with `devetka sensors`.)
ACTIVE_LOW = set(PINS)
MAINTENANCE_PIN = 15  # held to GND at power-up: main.py does not start, the REPL stays usable for updates

RING = 256  # edges the main loop may fall behind by; at most a few per ball, so ample (HARDWARE: loop time)
edge_line = bytearray(RING)
edge_level = bytearray(RING)
edge_time = array("l", [0] * RING)
head = 0  # written by the interrupts only
tail = 0  # written by the main loop only


def _recorder(line):
    def record(pin):
        global head
        i = head
        edge_line[i] = line
        edge_level[i] = pin.value()  # read a few µs after the edge: may differ on a bounce (HARDWARE)
        edge_time[i] = time.ticks_us()
        head = (i + 1) % RING
    return record


def main():
    global tail
    micropython.kbd_intr(-1)  # the host's bytes are frames: a 0x03 in them must not stop the program (HARDWARE)
    pins = []
    for line, gpio in PINS.items():
        pin = Pin(gpio, Pin.IN, Pin.PULL_UP)
        pin.irq(_recorder(line), Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)
        pins.append(pin)
    out = sys.stdout.buffer
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    boot_id = int.from_bytes(os.urandom(4), "big")
    board = Board(boot_id, list(PINS), now=time.ticks_us(), diff=time.ticks_diff)

    def send(frames):
        for frame in frames:
            out.write(frame)  # USB CDC: dropped while no host has the port open (HARDWARE)

    send(board.boot())
    while True:
        while tail != head:
            i = tail
            line = edge_line[i]
            active = edge_level[i] == (0 if line in ACTIVE_LOW else 1)
            send(board.edge(line, active, edge_time[i]))
            tail = (i + 1) % RING
        send(board.poll(time.ticks_us()))
        data = b""
        while poller.poll(0) and len(data) < 64:
            data += stdin.read(1)
        if data:
            send(board.receive(data, time.ticks_us()))
        time.sleep_us(200)


if Pin(MAINTENANCE_PIN, Pin.IN, Pin.PULL_UP).value():
    main()
