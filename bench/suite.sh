#!/usr/bin/env bash
# The suite's time as CI meets it: `bash .ci/run` from a fresh clone of HEAD (set-up included), in parts.
#
#   bash bench/suite.sh [PYTEST ARGS]      e.g. bash bench/suite.sh -n 3
#   REV=c2f2b67 bash bench/suite.sh        an older commit, to compare
#
# Clones the committed HEAD (or REV) into a temporary folder (on /dev/shm where there is one), runs scripts/setup.sh
# there as scripts/test.sh does (DEVETKA_SETUP_PIP_COMPILE=no) with each step's time (the Debian packages' check, the
# venv, pip), then scripts/test.sh (which .ci/run is) with its CPU time, and prints the tests' time by folder and the
# slowest tests, with the machine's load before and after and how busy its CPUs were. Removes the clone. Nothing is
# asserted: figures go to bench/README.md.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
base=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
work=$(mktemp -d "$base/devetka-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT

cpu_busy() {  # the machine's busy and total CPU jiffies since boot
    awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat
}

git clone -q "$repo" "$work/devetka"
cd "$work/devetka"
[[ -z ${REV:-} ]] || git checkout -q "$REV"
echo "suite: at $(git log --oneline -1 | cut -c1-80)"
echo "suite: before: $(uptime)"
read -r busy0 total0 < <(cpu_busy)

# Set-up, each step timed from bash's trace (a line stamped when it starts).
start=$EPOCHREALTIME
# (PS4 set inside: bash run as root does not take it from the environment.)
DEVETKA_SETUP_PIP_COMPILE=no bash -c 'PS4="+\${EPOCHREALTIME} "; set -x; . scripts/setup.sh' 2> "$work/setup.trace" >/dev/null
end=$EPOCHREALTIME
python3 - "$work/setup.trace" "$start" "$end" <<'EOF'
import re, sys
start, end = float(sys.argv[2]), float(sys.argv[3])
marks = [(float(m[1]), m[2]) for m in (re.match(r"^\++(\d+\.\d+) (.*)", line) for line in open(sys.argv[1])) if m]
def at(pattern, default):
    return next((t for t, text in marks if re.search(pattern, text)), default)
venv, pip = at(r"-m venv --clear", None), at(r"-m pip install", None)
steps = [("Debian packages checked (dpkg-query)", start, venv or pip or end)]
if venv:
    steps.append(("venv made (python3 -m venv)", venv, pip or end))
if pip:
    steps.append(("pip install -e '.[test]'", pip, end))
for name, a, b in steps:
    print(f"suite: setup: {name}: {b - a:.1f} s")
print(f"suite: setup: all: {end - start:.1f} s")
EOF

# The suite, as .ci/run runs it (its set-up is done now: scripts/test.sh's own call of it finds nothing to do).
start=$EPOCHREALTIME
rc=0
/usr/bin/time -f "%U %S" -o "$work/cpu" bash scripts/test.sh -q -p no:cacheprovider --junitxml="$work/junit.xml" "$@" \
    > "$work/pytest.log" 2>&1 || rc=$?
end=$EPOCHREALTIME
read -r busy1 total1 < <(cpu_busy)
grep -E '^(FAILED|ERROR) ' "$work/pytest.log" || true
tail -1 "$work/pytest.log"
read -r user sys < <(tail -1 "$work/cpu")   # after "Command exited with non-zero status N" when it failed
python3 - "$work/junit.xml" "$start" "$end" "$user" "$sys" "$busy0" "$total0" "$busy1" "$total1" <<'EOF'
import collections, sys, xml.etree.ElementTree as ET
path, start, end, user, system, b0, t0, b1, t1 = sys.argv[1], *map(float, sys.argv[2:])
print(f"suite: tests: {end - start:.1f} s wall, {user + system:.0f} s CPU (user {user:.0f}, sys {system:.0f}) in the "
      f"tests' processes; the machine's CPUs {100 * (b1 - b0) / (t1 - t0):.0f}% busy from clone to end")
cases = list(ET.parse(path).iter("testcase"))
folders, counts = collections.Counter(), collections.Counter()
for case in cases:
    parts = case.get("classname").split(".")
    folder = "/".join(parts[:2]) if parts[0] == "tests" and len(parts) > 2 else parts[0]
    folders[folder] += float(case.get("time"))
    counts[folder] += 1
print(f"suite: {len(cases)} tests, {sum(folders.values()):.0f} s in all on the workers; by folder:")
for folder, seconds in folders.most_common():
    print(f"suite:   {seconds:7.1f} s  {counts[folder]:5d} tests  {folder}")
print("suite: the slowest 15:")
for case in sorted(cases, key=lambda c: -float(c.get("time")))[:15]:
    print(f"suite:   {float(case.get('time')):6.1f} s  {case.get('classname')}::{case.get('name')}")
EOF
echo "suite: after: $(uptime)"
exit "$rc"
