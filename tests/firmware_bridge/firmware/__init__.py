"""Tests of the reference firmware's plain-Python modules, run on CPython."""
