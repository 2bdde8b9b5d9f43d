"""Devetka's scoreboard: the match log, the nine-ball rules, the match and the command line."""
