"""The event's pure core: formats, draw, standings, APA team nights and the fold of the event log.

No I/O and no clock, like ``scoreboard.core``: the store and the command line hand it records and print
what it answers (docs/events.md).
"""
