#!/usr/bin/env bash
# Check the README's commands on a really fresh Debian 12: a minimal bookworm
# chroot (Python 3.11, bash, apt and nothing else), a fresh clone of this repo's
# HEAD (committed work only), then `bash scripts/test.sh` and `bash scripts/run.sh`
# in it as root, with CI=true and no stdin. Needs root on a Debian-like host.
#
#   bash scripts/dev/fresh-debian-check.sh            # make, or reuse, the chroot
#   bash scripts/dev/fresh-debian-check.sh --fresh    # reset it to just-debootstrapped
#   bash scripts/dev/fresh-debian-check.sh --rebuild  # debootstrap it anew
#
# A reused chroot keeps what earlier runs apt-installed (python3-venv...), so only
# --fresh or --rebuild exercise setup.sh's apt step. --fresh restores a snapshot
# ($CHROOT.pristine.tar, taken right after debootstrap): seconds, not a minute.
# Env: FRESH_CHROOT (default /tmp/fresh-bookworm), DEBIAN_MIRROR (default:
# debootstrap's own).
set -euo pipefail

CHROOT=${FRESH_CHROOT:-/tmp/fresh-bookworm}
MIRROR=${DEBIAN_MIRROR:-}
DEST=/root/devetka            # the clone's path inside the chroot

die() { printf 'fresh-debian-check: error: %s\n' "$*" >&2; exit 1; }
say() { printf '\n=== %s\n' "$*" >&2; }

SNAPSHOT=$CHROOT.pristine.tar

mode=reuse
case "${1:-}" in
    "") ;;
    --fresh) mode=fresh ;;
    --rebuild) mode=rebuild ;;
    *) die "usage: $0 [--fresh | --rebuild]" ;;
esac
(( EUID == 0 )) || die "needs root (debootstrap, mount, chroot)"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
head=$(git -C "$repo" rev-parse HEAD)

[[ $CHROOT == /* && $(realpath -m "$CHROOT") != / ]] || die "FRESH_CHROOT must be an absolute path, not /"

remove_chroot() {  # never rm -rf through a bind mount of the host's /dev or /sys
    if awk -v p="$CHROOT/" 'index($2, p) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        die "something is still mounted under $CHROOT; unmount it first"
    fi
    rm -rf --one-file-system "$CHROOT"
}

# --- Make or reuse the chroot -----------------------------------------------
[[ $mode == rebuild ]] && rm -f "$SNAPSHOT"
if [[ $mode != reuse && -d $CHROOT ]]; then
    say "removing $CHROOT"
    remove_chroot
fi
if [[ ! -x $CHROOT/usr/bin/python3 && -f $SNAPSHOT ]]; then
    say "restoring $CHROOT from $SNAPSHOT"
    remove_chroot   # a half-made one, if any
    mkdir -p "$CHROOT"
    tar -C "$CHROOT" -xf "$SNAPSHOT"
fi
if [[ ! -x $CHROOT/usr/bin/python3 ]]; then
    command -v debootstrap >/dev/null || {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
    }
    say "debootstrap bookworm (minbase + python3, ca-certificates) into $CHROOT"
    remove_chroot   # debootstrap will not resume a failed run
    # shellcheck disable=SC2086  # $MIRROR is empty or one word
    debootstrap --variant=minbase --include=python3,ca-certificates bookworm "$CHROOT" $MIRROR
    tar -C "$CHROOT" -cf "$SNAPSHOT" .
fi

# --- Network and mounts -----------------------------------------------------
cp -L /etc/resolv.conf "$CHROOT/etc/resolv.conf"
# Hosts behind a TLS-inspecting proxy trust extra CAs; give the chroot the same
# ones or pip cannot reach the index. (A no-op where there are none.)
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$CHROOT/usr/local/share/ca-certificates/"
    chroot "$CHROOT" update-ca-certificates >/dev/null 2>&1
fi

ours=()   # mount points this run made, unmounted in reverse order on exit
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
    local i
    for (( i=${#ours[@]}-1; i>=0; i-- )); do
        umount "${ours[i]}" 2>/dev/null || umount -l "${ours[i]}" || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM   # so the EXIT trap unmounts on Ctrl-C too
mount_in() {  # mount_in TARGET MOUNT-ARGS...: skip what is already mounted
    local target=$CHROOT$1; shift
    mountpoint -q "$target" && return
    mount "$@" "$target"
    ours+=("$target")
}
mount_in /proc -t proc proc
mount_in /sys --bind /sys
mount_in /dev --bind /dev
mount_in /dev/pts --bind /dev/pts
# A booted Debian has /dev/shm as a tmpfs anyone may write; the bind of /dev above has only devtmpfs's
# root-owned directory there (shm_open as a user fails: cage's buffers, tests/venue/test_kiosk.py).
mount_in /dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs

# --- Fresh clone of HEAD ----------------------------------------------------
say "cloning $head into $CHROOT$DEST"
rm -rf --one-file-system "$CHROOT$DEST"
git clone -q --no-checkout "$repo" "$CHROOT$DEST"
git -C "$CHROOT$DEST" checkout -q --detach "$head"

# --- Run the README's commands as CI would ----------------------------------
# env -i: nothing from this shell (pip config, venvs, PATH) leaks in.
in_chroot() {
    chroot "$CHROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash -c "cd $DEST && $1" </dev/null
}
status=0
for cmd in "bash scripts/test.sh" "bash scripts/run.sh"; do
    say "$cmd"
    start=$SECONDS
    rc=0
    in_chroot "$cmd" || rc=$?
    say "$cmd: exit $rc after $(( SECONDS - start ))s"
    (( rc == 0 )) || status=1
done
exit "$status"
