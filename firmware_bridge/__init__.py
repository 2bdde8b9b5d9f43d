"""The serial link to the pocket-sensor microcontroller: its frames in, match-log inputs out.

- ``PROTOCOL.md``: the wire (sync byte, length, type, sequence number, CRC-16).
- ``protocol``: the frames, a resynchronising decoder, the host's ``Receiver`` (pure).
- ``link``: the serial port, kept open by path through unplugs and silence.
- ``source``: ``SerialSource``, the daemon's sensor source.
- ``simulator``: a fake microcontroller on a pseudo-terminal (``devetka simulate-mcu``).
- ``firmware/``: the reference MicroPython firmware for an RP2040 Pico.

It knows ``scoreboard.core.inputs`` and ``scoreboard.sensing.interface`` and nothing else of the scoreboard.
"""
