"""Where the tests find the checkout's files, wherever the test module sits."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "tests" / "data" / "examples"
