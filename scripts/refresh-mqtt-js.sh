#!/usr/bin/env bash
# Refresh the board's vendored MQTT.js (scoreboard/venue/board/vendor/) from npm:
#   bash scripts/refresh-mqtt-js.sh            # the version pinned below
#   bash scripts/refresh-mqtt-js.sh 5.16.0     # another 5.x
# `npm pack` fetches the package's tarball from the registry (no install, no scripts run);
# its browser bundle dist/mqtt.min.js and its LICENSE.md are copied beside the board.
# Prints the version it copied; commit the files and the new VERSION line.
set -euo pipefail

VERSION=${1:-5.16.0}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DEST=scoreboard/venue/board/vendor

command -v npm >/dev/null || { echo "refresh-mqtt-js: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd "$work" && npm pack --silent "mqtt@$VERSION")
tar -xzf "$work/$tarball" -C "$work"
got=$(node -p 'require(process.argv[1]).version' "$work/package/package.json")
[[ $got == 5.* ]] || { echo "refresh-mqtt-js: the board is written for MQTT.js 5.x, npm gave $got" >&2; exit 1; }
[[ -s $work/package/dist/mqtt.min.js ]] || { echo "refresh-mqtt-js: mqtt@$got has no dist/mqtt.min.js" >&2; exit 1; }

mkdir -p "$DEST"
cp "$work/package/dist/mqtt.min.js" "$DEST/mqtt.min.js"
license=$(ls "$work/package" | grep -i -m1 '^licen[cs]e') || { echo "refresh-mqtt-js: no LICENSE in mqtt@$got" >&2; exit 1; }
cp "$work/package/$license" "$DEST/LICENSE-mqtt.js.md"
printf 'mqtt %s (npm), dist/mqtt.min.js and %s, copied by scripts/refresh-mqtt-js.sh\n' "$got" "$license" \
    > "$DEST/VERSION"
echo "mqtt.js $got -> $DEST/mqtt.min.js ($(wc -c < "$DEST/mqtt.min.js") bytes)"
