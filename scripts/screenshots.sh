#!/usr/bin/env bash
# Refresh docs/screenshots/: the suite's screenshot tests, run with their folder set to it (the suite
# alone writes them into a temporary folder and never into the checkout). Then look at every PNG.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEVETKA_SCREENSHOTS=$PWD/docs/screenshots
bash scripts/test.sh -q -k "screenshot" tests/ui "$@"
echo "screenshots: $DEVETKA_SCREENSHOTS"
