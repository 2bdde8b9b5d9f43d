#!/usr/bin/env bash
# Issue 28's check of the demo on a slow machine: six CPU-burning loops beside it (2 cores: a machine about four
# times slower), then `bash scripts/run.sh` as it runs without a display, RUNS times (default 5), and
# `devetka venue-demo --tables 4 --racks 1 --speed 50 --headless` VENUE_RUNS times (default 3) on each engine.
# Prints one line per run (exit status, seconds, the 1-minute load) and exits 1 if any failed. The loops are
# stopped by their PIDs however it ends. Logs: $LOGS (default a temporary folder, printed).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
logs=${LOGS:-$(mktemp -d)}
mkdir -p "$logs"
loops=()
for _ in 1 2 3 4 5 6; do (while :; do :; done) & loops+=($!); done
trap 'kill "${loops[@]}" 2>/dev/null' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
failed=0
echo "logs: $logs; six busy loops started, load $(load)"
for i in $(seq "${RUNS:-5}"); do
    start=$SECONDS
    env -u DISPLAY bash scripts/run.sh >"$logs/run-$i.log" 2>&1; rc=$?
    (( rc == 0 )) || failed=1
    echo "scripts/run.sh $i: exit $rc, $((SECONDS - start)) s, load $(load): $(tail -1 "$logs/run-$i.log")"
done
for engine in mosquitto nats; do
    for i in $(seq "${VENUE_RUNS:-3}"); do
        log=$logs/venue-$engine-$i.log
        start=$SECONDS
        timeout 900 .venv/bin/devetka venue-demo --tables 4 --racks 1 --speed 50 --headless --engine "$engine" \
            >"$log" 2>&1 &
        demo=$!
        while kill -0 "$demo" 2>/dev/null && ! grep -q "tables done" "$log"; do sleep 1; done
        kill -INT "$demo" 2>/dev/null; wait "$demo"
        grep -q "venue-demo: all tables done" "$log" && result="all tables done" || { result="FAILED"; failed=1; }
        echo "venue-demo --engine $engine $i: $result, $((SECONDS - start)) s, load $(load)$(grep -m1 ' failed' "$log")"
    done
done
exit "$failed"
