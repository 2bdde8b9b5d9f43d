"""Hypothesis profile for the suite: deterministic, so CI runs the same examples every time.

Choose another profile for a run with ``--hypothesis-profile NAME``.
"""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=100)
settings.load_profile("ci")
