"""Sensors wired to the Raspberry Pi's GPIO pins, through gpiozero.

Pocket beams, the cue-ball return, cushion lines and the strike sensor become match-log
inputs (``strike``, ``cushion``, ``pocket`` with ``src`` ``"gpio"``) and health reports:

- ``hardware.filters``: the glitch filter of one line and stuck-line detection, pure code
  with explicit times;
- ``hardware.sensors``: ``SensorLine`` (one gpiozero input device that reports each edge
  with the pin's own time) and ``GpioSource`` (every line of ``[sensors.gpio]`` as a
  ``scoreboard.sensing.interface.Source``), on an injected pin factory;
- ``WIRING.md``: the pins, the sensor modules and how to wire them.
"""
