"""main.py imports MicroPython's ``machine``: pytest must not import it (no doctests there)."""

collect_ignore = ["main.py"]
