#!/usr/bin/env bash
# Run deploy/install.sh for real (not staged) in a minimal Debian 12 chroot, twice, as on a
# fresh Raspberry Pi OS Lite: apt, the users, the venv with pip, the files with their owners.
# Then check what the manifest says against the files, that the second run changed nothing,
# and that user devetka can read its config. Not part of CI (minutes, and the network).
#
#   sudo bash scripts/dev/deploy-chroot-check.sh          # reuse /tmp/deploy-chroot
#   sudo bash scripts/dev/deploy-chroot-check.sh --fresh  # start from the pristine tarball again
#
# Then it boots the installed tree with systemd as its init (systemd-nspawn, a private network):
# mosquitto and devetka started by systemd for real, in the unit's sandbox; the local API and
# the broker's listeners answer; systemd-analyze scores the running unit; a daemon frozen with
# SIGSTOP is killed by the watchdog and started again.
#
# Needs the pristine tarball of scripts/dev/fresh-debian-check.sh (/tmp/fresh-bookworm.pristine.tar).
set -euo pipefail

CHROOT=/tmp/deploy-chroot
PRISTINE=/tmp/fresh-bookworm.pristine.tar
say() { printf 'deploy-chroot-check: %s\n' "$*" >&2; }
die() { printf 'deploy-chroot-check: error: %s\n' "$*" >&2; exit 1; }

(( EUID == 0 )) || die "needs root (chroot, mount)"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd -P)
[[ -f $PRISTINE ]] || die "no $PRISTINE: run scripts/dev/fresh-debian-check.sh once first"

mounted() { awk -v p="$CHROOT/" 'index($2, p) == 1 { found = 1 } END { exit !found }' /proc/mounts; }
if [[ ${1:-} == --fresh || ! -d $CHROOT/usr ]]; then
    mounted && die "something is still mounted under $CHROOT; unmount it first"
    rm -rf --one-file-system "$CHROOT"
    mkdir -p "$CHROOT"
    tar -xf "$PRISTINE" -C "$CHROOT"
fi
cp -L /etc/resolv.conf "$CHROOT/etc/resolv.conf"
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$CHROOT/usr/local/share/ca-certificates/"
    chroot "$CHROOT" update-ca-certificates >/dev/null 2>&1
fi

ours=()
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
    local i
    for (( i=${#ours[@]}-1; i>=0; i-- )); do umount "${ours[i]}" 2>/dev/null || umount -l "${ours[i]}" || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount_in() {
    local target=$CHROOT$1; shift
    mountpoint -q "$target" && return
    mount "$@" "$target"
    ours+=("$target")
}
mount_in /proc -t proc proc
mount_in /dev --bind /dev
mount_in /dev/pts --bind /dev/pts

rm -rf --one-file-system "$CHROOT/root/devetka"
git clone -q "$repo" "$CHROOT/root/devetka"
run() { chroot "$CHROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# What the files are: path, mode, owner, checksum, for every path of the manifest.
state() {
    run bash -c 'grep -v "^#" /opt/devetka/install-manifest | cut -f1 | while read -r p; do
        printf "%s %s " "$p" "$(stat -c "%a %U:%G" "$p")"; [[ -f $p ]] && sha256sum <"$p" | cut -c1-16 || echo -; done'
}

# Raspberry Pi OS has systemd and udev (whose package makes the groups input and render);
# the minimal chroot has neither.
say "installing systemd into the chroot, as on Raspberry Pi OS"
run env DEBIAN_FRONTEND=noninteractive apt-get update -qq
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd udev >/dev/null

say "first run"
run bash /root/devetka/deploy/install.sh
first=$(state)
say "second run"
run bash /root/devetka/deploy/install.sh 2>&1 | tee "$CHROOT/root/second-run.log"
second=$(state)
[[ $first == "$second" ]] || { diff <(echo "$first") <(echo "$second"); die "the second run changed files"; }
! grep -E "wrote|password set" "$CHROOT/root/second-run.log" || die "the second run wrote files"

say "the manifest against the files"
run bash -c 'grep -v "^#" /opt/devetka/install-manifest | while IFS=$'"'\t'"' read -r p kind mode owner sum; do
    actual="$(stat -c "%04a %U:%G" "$p")"
    [[ $actual == "$mode $owner" ]] || { echo "MISMATCH $p: manifest $mode $owner, actual $actual"; exit 1; }
done; echo "every path as the manifest says"'
run id devetka
run id devetka-ui
run runuser -u devetka -- /opt/devetka/venv/bin/python -c \
    'from scoreboard.config.table import load; c = load("/etc/devetka/table.toml"); print("devetka reads its config:", c.table.id, c.mqtt.username)'
run /opt/devetka/venv/bin/devetka --help >/dev/null && say "the venv's devetka runs"
for unit in mosquitto devetka devetka-ui; do
    [[ $(run systemctl is-enabled "$unit") == enabled ]] || die "$unit.service is not enabled"
done
say "mosquitto, devetka and devetka-ui are enabled"
verify=$(run systemd-analyze verify /etc/systemd/system/devetka.service /etc/systemd/system/devetka-ui.service 2>&1)
[[ -z $verify ]] || die "systemd-analyze verify: $verify"
say "systemd-analyze verify: no complaints, with the real venv"

# --- Boot it --------------------------------------------------------------------------------
cleanup; ours=()   # nspawn mounts its own /proc and /dev
command -v systemd-nspawn >/dev/null || apt-get install -y -qq systemd-container >/dev/null
# Not a Pi: the booted copy runs with GPIO sensing off (the config's only change).
sed -i '/^\[sensors.gpio\]$/,/^enabled = /s/^enabled = true$/enabled = false/' "$CHROOT/etc/devetka/table.toml"
systemd-nspawn -q --register=no --keep-unit --private-network -D "$CHROOT" -b --console=pipe -M devetka-check \
    >"$CHROOT.boot.log" 2>&1 &
nspawn=$!
# shellcheck disable=SC2317  # called from the EXIT trap
stop_boot() { kill "$nspawn" 2>/dev/null && wait "$nspawn" 2>/dev/null; true; }
trap 'stop_boot; cleanup' EXIT
init=""
for _ in $(seq 100); do
    init=$(ps -o pid= --ppid "$nspawn" 2>/dev/null | head -1 | tr -d ' ' || true)
    [[ -n $init ]] && break
    sleep 0.2
done
[[ -n $init ]] || die "systemd-nspawn did not boot: $(cat "$CHROOT.boot.log")"
inside() { nsenter -t "$init" -m -u -i -n -p -- "$@"; }
active() { [[ $(inside systemctl is-active "$1" 2>/dev/null) == active ]]; }
for _ in $(seq 150); do active devetka.service && active mosquitto.service && break; sleep 0.2; done
active devetka.service || die "devetka.service did not start: $(inside journalctl -u devetka --no-pager | tail -20)"
say "booted: mosquitto and devetka active under systemd"
inside /opt/devetka/venv/bin/devetka tap --socket /run/devetka/api.sock '{"cmd": "state"}' | grep -q '"ok":true' \
    || die "the local API did not answer"
say "the local API answers on /run/devetka/api.sock"
password=$(awk '$1 == "dashboard" {print $2}' "$CHROOT/etc/devetka/mqtt-credentials")
online=$(inside mosquitto_sub -h 127.0.0.1 -p 1884 -u dashboard -P "$password" -t devetka/table1/availability -C 1 -W 20)
[[ $online == online ]] || die "a dashboard on port 1884 read '$online', not online"
say "a dashboard on port 1884 reads devetka/table1/availability: online"
if inside mosquitto_sub -h 127.0.0.1 -p 1884 -t 'devetka/#' -C 1 -W 5 2>/dev/null; then die "anonymous let in"; fi
say "anonymous refused on port 1884"
say "live: $(inside systemd-analyze security devetka.service --no-pager | tail -1)"
inside systemctl kill --signal=SIGSTOP devetka.service
start=$SECONDS
for _ in $(seq 300); do
    restarts=$(inside systemctl show -p NRestarts --value devetka.service)
    (( restarts >= 1 )) && active devetka.service && break
    sleep 0.2
done
(( restarts >= 1 )) || die "the watchdog did not restart a frozen daemon"
say "the watchdog restarted the frozen daemon after $(( SECONDS - start )) s (WatchdogSec=10s)"
inside journalctl -u devetka --no-pager -o cat | grep -E "watchdog|serving|MQTT: connected" | head -6 >&2
inside systemctl poweroff >/dev/null 2>&1 || true
wait "$nspawn" 2>/dev/null || true
say "OK"
