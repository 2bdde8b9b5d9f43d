"""scoreboard/sim/children.py: a child that loses a SIGTERM is sent another, and one that ignores them is killed."""

import subprocess
import sys

from scoreboard.sim.children import end

#: A child that lets its first SIGTERM go by, as Mosquitto 2.0.11 can just after it starts, and ends on the next.
DEAF_ONCE = """
import signal, sys, time
heard = []
def on_term(*_):
    heard.append(1)
    if len(heard) > 1:
        sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
print("ready", flush=True)
while True:
    time.sleep(0.01)
"""


def _started(code: str) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "ready\n"
    return child


def test_a_lost_sigterm_is_sent_again_and_the_child_ends_by_itself():
    child = _started(DEAF_ONCE)
    end(child, 60.0, again_every=0.2)
    assert child.returncode == 0  # its own exit on the second SIGTERM, not SIGKILL (-9) after 60 s


def test_without_again_a_child_that_lets_sigterm_go_by_is_killed_at_the_timeout():
    child = _started(DEAF_ONCE)
    end(child, 0.5)
    assert child.returncode == -9
