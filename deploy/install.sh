#!/usr/bin/env bash
# Install or upgrade Devetka on a Raspberry Pi (Raspberry Pi OS Bookworm / Debian 12).
# Run it again after `git pull` to upgrade: the config and the passwords are kept.
# See `deploy/install.sh --help` and docs/deploy.md.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: sudo deploy/install.sh [--root DIR]
       sudo deploy/install.sh [--root DIR] --venue HOST[:PORT] --venue-user USER --venue-password-file FILE
                              [--venue-tls-ca FILE]
       sudo deploy/install.sh [--root DIR] --no-venue
       sudo deploy/install.sh [--root DIR] --venue-server [--venue-add-table ID]... [--venue-remove-table ID]...
                              [--venue-tls-cert FILE --venue-tls-key FILE | --venue-no-tls]
       sudo deploy/install.sh [--root DIR] --venue-server --engine nats --node N --peers HOST[:PORT],...
                              --director-node N [--venue-add-table ID]... [--venue-remove-table ID]...

Installs Devetka from this checkout onto this machine, or upgrades it:
  - Debian packages: python3-venv, mosquitto, the libraries Kivy draws with;
  - system users: devetka (the daemon; groups gpio, dialout) and devetka-ui
    (the touchscreen; groups devetka, video, render, input);
  - /opt/devetka/venv: a virtual environment with Devetka and lgpio;
  - /etc/devetka/table.toml: the table's config, from deploy/table.example.toml
    (kept if it exists: edit it, then `sudo systemctl restart devetka`);
  - /var/lib/devetka: the store; /var/lib/devetka-ui: the touchscreen's Kivy config;
  - systemd units devetka.service and devetka-ui.service, enabled and (re)started;
  - Mosquitto: listeners, users and passwords, the ACL (passwords kept in
    /etc/devetka/mqtt-credentials, made once, kept on every later run);
  - the udev rule naming the sensor microcontroller /dev/devetka-bridge.
Every file it installs is listed, with its mode and owner, in
/opt/devetka/install-manifest. Run again (after `git pull`), it reinstalls Devetka into the
venv from the checkout, restarts the services, and changes none of those files unless the
checkout changed them; the config and the passwords are kept. Where systemd is not running
(a chroot: an image being built) the units are enabled, not started.

Options:
  --root DIR   stage the files under DIR instead of /, and print (without running)
               the steps that only make sense on the real machine: apt-get, creating
               the users, the virtual environment, systemctl and udevadm. Owners are
               set only where the user exists here; the manifest says who they are meant
               to be. Needs no root.
  -h, --help   this text.

The venue (docs/venue.md): every table's broker bridged to one broker behind the bar.
  --venue HOST[:PORT]   bridge this table's Mosquitto to the venue's broker (port 1883, 8883
                        with --venue-tls-ca), logging in as USER with the password in FILE (its
                        first line; - reads it from standard input). Kept: later runs keep the
                        bridge, made again for the table id in force.
  --venue-tls-ca FILE   TLS to the venue, its certificate checked against this CA.
  --no-venue            remove the bridge.
  --venue-server        on the venue's own box (not a table), install the venue's broker and
                        nothing of a table's: a listener for the tables (port 1883, one login
                        each, each table writing only under devetka/<its id>/), the readers'
                        broker (1884, WebSocket 9002, no login), the board's page (9001); and
                        the director (devetka-director.service: the night's events; its venv in
                        /opt/devetka/venv, its store in /var/lib/devetka-director, its login
                        director with the password in /etc/devetka/venue-director).
  --venue-add-table ID  (implies --venue-server) make table ID's login; its password is printed
                        once and kept in /etc/devetka/venue-tables. Repeat for more tables.
  --venue-remove-table ID  (implies --venue-server) remove table ID's login.
  --venue-tls-cert FILE --venue-tls-key FILE  (imply --venue-server) the venue's certificate (its
                        host name in it) and key: the tables may then bridge over TLS, port 8883.
                        Kept for later runs; --venue-no-tls removes them.
  --engine nats --node N --peers HOST[:PORT],...  (imply --venue-server) this box is node N of a
                        venue on a NATS cluster (three boxes): nats-server with MQTT for the tables
                        (port 1883), MQTT over WebSocket for browsers (9001, path /mqtt), routes to
                        every node of --peers (port 6222; the same list on each node). Tables are
                        added on node 1; copy /etc/devetka/venue-tables and
                        /etc/devetka/venue-cluster-secret to the others before installing them.
                        A table then bridges to every node: --venue HOST1,HOST2,HOST3.
  --director-node N     (with --engine nats; the same on every node) the node that runs the
                        director, with its login on that node's broker; the other nodes run none
                        (a node it moved away from stops it; its store stays there).
EOF
}

say() { printf 'install: %s\n' "$*" >&2; }
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }

ROOT=/
VENUE="" VENUE_USER="" VENUE_PASSWORD_FILE="" VENUE_TLS_CA="" NO_VENUE=0 VENUE_SERVER=0
VENUE_TLS_CERT="" VENUE_TLS_KEY="" VENUE_NO_TLS=0 VENUE_ENGINE=mosquitto VENUE_NODE="" VENUE_PEERS="" DIRECTOR_NODE=""
ADD_TABLES=() REMOVE_TABLES=()
while (( $# )); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --root) (( $# >= 2 )) || die "--root needs a directory"; ROOT=$2; shift 2 ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --venue|--venue-user|--venue-password-file|--venue-tls-ca|--venue-add-table|--venue-remove-table|\
        --venue-tls-cert|--venue-tls-key|--engine|--node|--peers|--director-node)
            (( $# >= 2 )) || die "$1 needs a value"
            case $1 in
                --venue) VENUE=$2 ;;
                --venue-user) VENUE_USER=$2 ;;
                --venue-password-file) VENUE_PASSWORD_FILE=$2 ;;
                --venue-tls-ca) VENUE_TLS_CA=$2 ;;
                --venue-add-table) ADD_TABLES+=("$2"); VENUE_SERVER=1 ;;
                --venue-remove-table) REMOVE_TABLES+=("$2"); VENUE_SERVER=1 ;;
                --venue-tls-cert) VENUE_TLS_CERT=$2; VENUE_SERVER=1 ;;
                --venue-tls-key) VENUE_TLS_KEY=$2; VENUE_SERVER=1 ;;
                --engine) VENUE_ENGINE=$2; VENUE_SERVER=1 ;;
                --node) VENUE_NODE=$2; VENUE_SERVER=1 ;;
                --peers) VENUE_PEERS=$2; VENUE_SERVER=1 ;;
                --director-node) DIRECTOR_NODE=$2; VENUE_SERVER=1 ;;
            esac
            shift 2 ;;
        --no-venue) NO_VENUE=1; shift ;;
        --venue-server) VENUE_SERVER=1; shift ;;
        --venue-no-tls) VENUE_NO_TLS=1; VENUE_SERVER=1; shift ;;
        *) die "unknown option: $1 (see --help)" ;;
    esac
done

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
DEPLOY=$REPO/deploy
# The venue's options, checked before anything is touched (deploy/venue.sh).
# shellcheck source=deploy/venue.sh
source "$DEPLOY/venue.sh"
# shellcheck source=deploy/venue-nats.sh
source "$DEPLOY/venue-nats.sh"
# shellcheck source=deploy/venue-director.sh
source "$DEPLOY/venue-director.sh"
venue_check_options
venue_nats_check_options
venue_director_check_options
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd -P)
if [[ $ROOT == / ]]; then
    STAGING=0
    P=""
    (( EUID == 0 )) || die "run it as root: sudo $0 (or --root DIR to stage the files)"
else
    STAGING=1
    P=$ROOT
    say "staging into $ROOT: the machine's own steps are printed, not run"
fi

# The Debian packages the Pi needs: the venv, the broker and its tools, and what Kivy's
# wheel (which carries its own SDL2) draws and reads touches with.
PI_PACKAGES="python3 python3-venv mosquitto mosquitto-clients libmtdev1 libgl1 libegl1 libgles2 \
libgl1-mesa-dri fonts-dejavu-core"
VENV=/opt/devetka/venv
MANIFEST=/opt/devetka/install-manifest
# The MQTT users install.sh always makes (deploy/mosquitto/devetka.acl.in says what each may do).
MQTT_USERS=(devetka touchscreen dashboard homeassistant)

# A step that changes the machine itself: run it, or in staging only print it.
machine() {
    if (( STAGING )); then
        local word line="would run:"
        for word in "$@"; do
            if [[ $word =~ ^[A-Za-z0-9_./:=,@+-]+$ ]]; then line+=" $word"; else line+=" ${word@Q}"; fi
        done
        printf '%s\n' "$line"
    else
        say "running: $*"
        "$@"
    fi
}

# --- Files: written only when their content differs, modes and owners set, all recorded.

declare -A RECORDS=() CHANGED=()

owner_exists() {  # do user $1 and group $2 exist here?
    id -u "$1" >/dev/null 2>&1 && getent group "$2" >/dev/null 2>&1
}

# Set the mode, and the owner where it can be; record what it is meant to be.
settle() {  # settle KIND MODE OWNER:GROUP PATH
    local kind=$1 mode=$2 owner=$3 path=$4
    chmod "$mode" "$P$path"
    if owner_exists "${owner%%:*}" "${owner##*:}" && (( EUID == 0 )); then
        chown "$owner" "$P$path"
    elif (( ! STAGING )); then
        die "$path: cannot give it to $owner (no such user or group)"
    fi
    RECORDS[$path]="$kind $mode $owner"
}

directory() {  # directory MODE OWNER:GROUP PATH
    mkdir -p "$P$3"
    settle dir "$1" "$2" "$3"
}

# Install the text of stdin at PATH, replacing it only when it differs (same bytes: untouched).
write() {  # write MODE OWNER:GROUP PATH < content
    local path=$3 tmp
    tmp=$(mktemp "$P$(dirname "$path")/.install.XXXXXX")
    cat >"$tmp"
    if [[ -f $P$path ]] && cmp -s "$tmp" "$P$path"; then
        rm -f "$tmp"
    else
        mv -f "$tmp" "$P$path"
        say "wrote $path"
        CHANGED[$path]=1
    fi
    settle file "$1" "$2" "$path"
}

put() {  # put MODE OWNER:GROUP SOURCE PATH: a shipped file, always the checkout's version
    write "$1" "$2" "$4" <"$3"
}

keep() {  # keep MODE OWNER:GROUP SOURCE PATH: a file the owner edits, made only if missing
    if [[ -e $P$4 ]]; then
        settle file "$1" "$2" "$4"
    else
        put "$@"
    fi
}

write_manifest() {
    local path kind mode owner sum
    directory 0755 root:root "$(dirname "$MANIFEST")"
    {
        printf '# Made by deploy/install.sh: every path it installs, with the mode and owner it is\n'
        printf '# meant to have, and (for files) its SHA-256 when installed. Tab-separated:\n'
        printf '# path\tkind\tmode\towner:group\tsha256\n'
        for path in $(printf '%s\n' "${!RECORDS[@]}" | LC_ALL=C sort); do
            read -r kind mode owner <<<"${RECORDS[$path]}"
            sum=-
            [[ $kind == file ]] && sum=$(sha256sum <"$P$path" | cut -d' ' -f1)
            printf '%s\t%s\t%s\t%s\t%s\n' "$path" "$kind" "$mode" "$owner" "$sum"
        done
    } >"$P$MANIFEST.new"
    write 0644 root:root "$MANIFEST" <"$P$MANIFEST.new"
    rm -f "$P$MANIFEST.new"
}

# The venue's box installs its broker and nothing of a table's.
if (( VENUE_SERVER )); then
    [[ $VENUE_ENGINE != nats ]] || venue_nats_preflight
    venue_server
    exit 0
fi
venue_refuse_on_the_venue_box

# --- 1. Debian packages, users, the venv (the machine's own steps) ---------------------

machine env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086  # one word a package
machine env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $PI_PACKAGES

if (( STAGING )) || ! getent group gpio >/dev/null; then
    # Raspberry Pi OS has it (and gives it /dev/gpiochip*); a plain Debian image does not.
    machine groupadd --force --system gpio
fi
if (( STAGING )) || ! id -u devetka >/dev/null 2>&1; then
    machine useradd --system --user-group --home-dir /var/lib/devetka --no-create-home \
        --shell /usr/sbin/nologin --comment "Devetka referee" devetka
fi
if (( STAGING )) || ! id -u devetka-ui >/dev/null 2>&1; then
    machine useradd --system --user-group --home-dir /var/lib/devetka-ui --no-create-home \
        --shell /usr/sbin/nologin --comment "Devetka touchscreen" devetka-ui
fi
# The groups that give the devices: all there on Raspberry Pi OS; a minimal image may lack some
# (render and input come with udev), and adding a user to a missing group would fail.
join() {  # join USER GROUP...: the user into each group that exists here
    local user=$1 group present=()
    shift
    for group in "$@"; do
        if (( STAGING )) || getent group "$group" >/dev/null; then present+=("$group"); else
            say "note: no group $group here: $user is not added to it"
        fi
    done
    machine usermod --append --groups "$(IFS=,; echo "${present[*]}")" "$user"
}
join devetka gpio dialout
join devetka-ui devetka video render input audio

directory 0755 root:root /opt/devetka
if (( STAGING )) || [[ ! -x $VENV/bin/python ]]; then
    machine python3 -m venv "$VENV"
fi
# lgpio: gpiozero's pin factory on Bookworm (a wheel on PyPI for 64-bit Pi OS).
machine "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$REPO" lgpio

# --- 2. Config, MQTT passwords, data ----------------------------------------------------

directory 0750 root:devetka /etc/devetka
keep 0644 root:root "$DEPLOY/mosquitto/mqtt-operators" /etc/devetka/mqtt-operators

operators=()
while read -r name _; do
    [[ -z $name || $name == \#* ]] && continue
    [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] \
        || die "/etc/devetka/mqtt-operators: \"$name\" is not a user name (letters, digits, '.', '-', '_')"
    for taken in "${MQTT_USERS[@]}"; do
        [[ $name != "$taken" ]] || die "/etc/devetka/mqtt-operators: \"$name\" is one of Devetka's own users"
    done
    operators+=("$name")
done <"$P/etc/devetka/mqtt-operators"
users=("${MQTT_USERS[@]}" "${operators[@]}")

# Passwords: made once per user and kept; a user no longer wanted is dropped.
CREDENTIALS=/etc/devetka/mqtt-credentials
declare -A password=()
if [[ -f $P$CREDENTIALS ]]; then
    while read -r name secret; do
        [[ -z $name || $name == \#* ]] || password[$name]=$secret
    done <"$P$CREDENTIALS"
fi
fresh=()
for name in "${users[@]}"; do
    if [[ -z ${password[$name]:-} ]]; then
        password[$name]=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
        fresh+=("$name")
    fi
done
write 0600 root:root "$CREDENTIALS" < <(
    printf '# MQTT users and their passwords (made by deploy/install.sh, kept on every run).\n'
    printf '# To change one: delete its line and run install.sh again.\n'
    for name in "${users[@]}"; do printf '%s %s\n' "$name" "${password[$name]}"; done
)

# The config: made once from the template, with MQTT on and the daemon's login filled in;
# after that it is the table owner's file, and only its mode and owner are kept right.
CONFIG=/etc/devetka/table.toml
if [[ -e $P$CONFIG ]]; then
    settle file 0640 root:devetka "$CONFIG"
else
    rendered=$(python3 - "$DEPLOY/table.example.toml" "${password[devetka]}" <<'PY'
import sys

template, secret = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
head, mqtt, rest = template.partition("\n[mqtt]\n")
off, login = "enabled = false\n", '# username = "table1"\n# password = "secret"\n'
if not mqtt or not rest.startswith(off) or login not in rest:
    sys.exit("install: error: deploy/table.example.toml's [mqtt] section is not as install.sh expects: "
             "cannot fill in the daemon's MQTT login")
# 127.0.0.1, the table listener's own address: "localhost" may be ::1 first, or missing from /etc/hosts.
local = 'host = "localhost"\n'
if local not in rest:
    sys.exit("install: error: deploy/table.example.toml's [mqtt] host is not as install.sh expects")
rest = rest.replace(local, 'host = "127.0.0.1"\n', 1)
rest = "enabled = true\n" + rest[len(off):].replace(login, f'username = "devetka"\npassword = "{secret}"\n', 1)
sys.stdout.write(head + mqtt + rest)
PY
    )
    write 0640 root:devetka "$CONFIG" <<<"$rendered"
fi
directory 0750 devetka:devetka /var/lib/devetka
directory 0750 devetka-ui:devetka-ui /var/lib/devetka-ui
put 0644 devetka-ui:devetka-ui "$DEPLOY/kivy/config.ini" /var/lib/devetka-ui/config.ini

# --- 3. Units and udev ------------------------------------------------------------------

directory 0755 root:root /etc/systemd/system
put 0644 root:root "$DEPLOY/systemd/devetka.service" /etc/systemd/system/devetka.service
put 0644 root:root "$DEPLOY/systemd/devetka-ui.service" /etc/systemd/system/devetka-ui.service
directory 0755 root:root /etc/udev/rules.d
put 0644 root:root "$DEPLOY/udev/99-devetka-bridge.rules" /etc/udev/rules.d/99-devetka-bridge.rules

# --- 4. Mosquitto: listeners, ACL, users and passwords ------------------------------------

# The table's id names its topics in the ACL: read it from the config in force.
table=$(python3 - "$P$CONFIG" <<'EOF'
import sys
import tomllib

try:
    with open(sys.argv[1], "rb") as file:
        config = tomllib.load(file)
except (OSError, tomllib.TOMLDecodeError) as error:
    sys.exit(f"install: error: cannot read the table id from /etc/devetka/table.toml: {error}")
print(config.get("table", {}).get("id", "table1"))
if config.get("mqtt", {}).get("username") != "devetka":
    print("install: note: /etc/devetka/table.toml does not log in to MQTT as devetka: the broker lets no one in "
          "anonymously; set [mqtt] username = \"devetka\" and its password from /etc/devetka/mqtt-credentials",
          file=sys.stderr)
EOF
)
[[ $table =~ ^[A-Za-z0-9_-]+$ ]] \
    || die "/etc/devetka/table.toml: table.id must be letters, digits, '-' and '_', got \"$table\""

directory 0755 root:root /etc/mosquitto
directory 0755 root:root /etc/mosquitto/conf.d
put 0644 root:root "$DEPLOY/mosquitto/devetka.conf" /etc/mosquitto/conf.d/devetka.conf
write 0600 mosquitto:mosquitto /etc/mosquitto/devetka.acl < <(
    sed "s/@TABLE@/$table/g" "$DEPLOY/mosquitto/devetka.acl.in"
    for name in "${operators[@]}"; do
        printf '\nuser %s\ntopic read devetka/#\ntopic write devetka/+/cmd\n' "$name"
    done
)

PASSWD=/etc/mosquitto/devetka.passwd
command -v mosquitto_passwd >/dev/null || die "mosquitto_passwd not found (apt-get install mosquitto)"
[[ -f $P$PASSWD ]] || : >"$P$PASSWD"
in_passwd() { grep -q "^$1:" "$P$PASSWD"; }
for name in "${users[@]}"; do
    if [[ " ${fresh[*]} " == *" $name "* ]] || ! in_passwd "$name"; then
        mosquitto_passwd -b "$P$PASSWD" "$name" "${password[$name]}"
        say "MQTT user $name: password set (see $CREDENTIALS)"
    fi
done
for name in $(cut -d: -f1 "$P$PASSWD"); do
    [[ " ${users[*]} " != *" $name "* ]] || continue
    mosquitto_passwd -D "$P$PASSWD" "$name"
    say "MQTT user $name: removed (no longer in /etc/devetka/mqtt-operators)"
done
settle file 0600 mosquitto:mosquitto "$PASSWD"

# The bridge to the venue's broker, when this table has one (deploy/venue.sh).
venue_bridge

write_manifest

# --- 5. Start it all (the machine's own steps) ---------------------------------------------

# Where systemd is not running (a chroot: an SD card image being built) nothing can start yet:
# the units are only enabled, and start at the first boot. /run/systemd/system is systemd's
# own sign that it booted the machine.
booted() { [[ -d /run/systemd/system ]]; }
if (( ! STAGING )) && ! booted; then
    say "systemd is not running here (a chroot?): the services start at the first boot"
    if command -v systemctl >/dev/null; then
        machine systemctl enable mosquitto.service devetka.service devetka-ui.service
    else
        say "note: no systemctl here: enable the services on the machine (systemctl enable mosquitto devetka devetka-ui)"
    fi
else
    machine udevadm control --reload
    machine udevadm trigger --subsystem-match=tty --subsystem-match=gpio
    machine systemctl daemon-reload
    machine systemctl enable mosquitto.service devetka.service devetka-ui.service
    # Restart: picks up a new broker config, new passwords, an upgraded venv.
    machine systemctl restart mosquitto.service devetka.service devetka-ui.service
fi

if (( STAGING )); then
    say "staged into $ROOT (manifest: $ROOT$MANIFEST)"
elif ! booted; then
    say "done: at the first boot check with 'systemctl status devetka'"
else
    say "done: check with 'systemctl status devetka' and 'journalctl -u devetka -f'"
fi
