"""Tests of the serial bridge to the pocket-sensor microcontroller (firmware_bridge/)."""
