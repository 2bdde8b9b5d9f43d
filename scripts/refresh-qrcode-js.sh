#!/usr/bin/env bash
# Refresh the board's vendored QR code encoder (scoreboard/venue/board/vendor/qrcode.js) from npm:
#   bash scripts/refresh-qrcode-js.sh            # the version pinned below
#   bash scripts/refresh-qrcode-js.sh 2.0.5      # another 2.x
# `npm pack` fetches the package's tarball from the registry (no install, no scripts run); its classic-script
# build dist/qrcode.js (a global `qrcode`; its MIT licence is in its header, the package ships no LICENSE file)
# is copied beside the board. Prints the version it copied; commit the file and vendor/VERSION-qrcode.
set -euo pipefail

VERSION=${1:-2.0.4}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DEST=scoreboard/venue/board/vendor

command -v npm >/dev/null || { echo "refresh-qrcode-js: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd "$work" && npm pack --silent "qrcode-generator@$VERSION")
tar -xzf "$work/$tarball" -C "$work"
got=$(node -p 'require(process.argv[1]).version' "$work/package/package.json")
[[ $got == 2.* ]] || { echo "refresh-qrcode-js: the board is written for qrcode-generator 2.x, npm gave $got" >&2; exit 1; }
grep -q 'Licensed under the MIT license' "$work/package/dist/qrcode.js" \
    || { echo "refresh-qrcode-js: qrcode-generator@$got's dist/qrcode.js does not say its MIT licence" >&2; exit 1; }

mkdir -p "$DEST"
cp "$work/package/dist/qrcode.js" "$DEST/qrcode.js"
printf 'qrcode-generator %s (npm), dist/qrcode.js (MIT, in its header), copied by scripts/refresh-qrcode-js.sh\n' \
    "$got" > "$DEST/VERSION-qrcode"
echo "qrcode-generator $got -> $DEST/qrcode.js ($(wc -c < "$DEST/qrcode.js") bytes)"
