#!/usr/bin/env bash
# Screenshots of the venue board (scoreboard/venue/board/) in headless Chromium, against a real Mosquitto and a
# real `devetka run`: 1, 8 and 50 tables at 1920x1080 and at a phone's 390x844, and one table full screen
# (?table=bar1); the night's event views (?event, ?next, ?player: tests/venue/test_board_event.py) in English and
# Croatian; and the TV kiosk unit's picture under cage (tests/venue/test_kiosk.py). Saved into DIR (default
# docs/screenshots/board/); the test suite itself saves them into its tmp_path only. Usage: bash scripts/board-screenshots.sh [DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
DIR=${1:-docs/screenshots/board}
mkdir -p "$DIR"
DEVETKA_SCREENSHOTS=$(cd "$DIR" && pwd -P) .venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/venue/test_board.py tests/venue/test_kiosk.py tests/venue/test_board_event.py \
    tests/venue/test_board_overlay.py tests/venue/test_board_operator.py tests/venue/test_board_result.py \
    -k 'screenshots or tv_shows_the_board or overlay_follows or operator_creates'
ls -1 "$DIR"/*.png
