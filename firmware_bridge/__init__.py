"""The serial link to the pocket-sensor microcontroller (planned).

This package will hold the Raspberry Pi's side of the link to the microcontroller that
reads the table's pocket sensors: a framed protocol over a serial port, turning the
microcontroller's frames into the table events that the rules core referees.
"""
