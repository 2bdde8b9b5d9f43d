"""The rules core stays pure: importing it loads nothing outside the standard library and Devetka itself."""

import subprocess
import sys

PROBE = """
import sys
before = set(sys.modules)
import scoreboard.core.rules
loaded = {name.split(".")[0] for name in set(sys.modules) - before}
print(sorted(loaded - set(sys.stdlib_module_names) - {"scoreboard"}))
"""


def test_the_rules_core_imports_only_the_standard_library():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
