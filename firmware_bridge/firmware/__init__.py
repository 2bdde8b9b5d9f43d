"""The reference firmware for the pocket-sensor microcontroller (MicroPython on an RP2040 Pico).

``frames``, ``counting`` and ``app`` are plain Python that both MicroPython and
CPython run: the tests import them from here. ``main.py`` is the part only a
Pico runs (pins, interrupts, USB serial). This ``__init__.py`` makes the folder a
package for the tests and is not copied to the Pico; see README.md.
"""
