"""Sensors wired to the Raspberry Pi's GPIO pins (planned).

This package will hold the pocket, cushion and strike sensors read directly on the Pi's
GPIO through gpiozero, turning their signals into the table events that the rules core
referees.
"""
