# The venue director (docs/events.md, "The director"), sourced by deploy/install.sh: `devetka director` on the venue's
# box beside its broker, either engine: Devetka's venv, the director's user, its store's folder, its broker login's
# password readable by it alone, and deploy/systemd/devetka-director.service, enabled and (re)started. On a NATS venue
# it runs on one node, the one --director-node names (the same on every node): that node's config has the director's
# login; a node that ran it before and is not named any more stops it and drops its unit and login (its store stays).
# shellcheck shell=bash

DIRECTOR_UNIT=/etc/systemd/system/devetka-director.service
DIRECTOR_STATE=/var/lib/devetka-director
DIRECTOR_USER=devetka-director
# The group of the director's socket (/run/devetka/director.sock): root and its members may run `devetka event`.
DIRECTOR_GROUP=devetka
DIRECTOR_PACKAGES="python3-venv"

venue_director_check_options() {
    if [[ $VENUE_ENGINE != nats ]]; then
        [[ -z $DIRECTOR_NODE ]] || die "--director-node goes with --engine nats (a Mosquitto venue's box runs the director)"
        return 0
    fi
    [[ $DIRECTOR_NODE =~ ^[1-9][0-9]*$ ]] \
        || die "--engine nats needs --director-node N (the node that runs the director: the same on every node)"
    local peers=()
    IFS=',' read -r -a peers <<<"$VENUE_PEERS"
    (( DIRECTOR_NODE <= ${#peers[@]} )) \
        || die "--director-node $DIRECTOR_NODE: --peers names ${#peers[@]} nodes"
}

# Does this box run the director? A Mosquitto venue's box does; of a NATS cluster, the node --director-node names.
venue_director_here() {
    [[ $VENUE_ENGINE != nats ]] || (( VENUE_NODE == DIRECTOR_NODE ))
}

# The machine's own steps, before any file is given to the director's user: the user, the venv with Devetka in it.
venue_director_machine() {
    venue_director_here || return 0
    if (( STAGING )) || ! getent group "$DIRECTOR_GROUP" >/dev/null; then
        machine groupadd --force --system "$DIRECTOR_GROUP"
    fi
    if (( STAGING )) || ! id -u "$DIRECTOR_USER" >/dev/null 2>&1; then
        machine useradd --system --gid "$DIRECTOR_GROUP" --home-dir "$DIRECTOR_STATE" --no-create-home \
            --shell /usr/sbin/nologin --comment "Devetka director" "$DIRECTOR_USER"
    fi
    directory 0755 root:root /opt/devetka
    if (( STAGING )) || [[ ! -x $VENV/bin/python ]]; then
        machine python3 -m venv "$VENV"
    fi
    machine "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$REPO"
}

# The director's password (made once, kept; its broker login is made from it), its store's folder and its unit. The
# unit waits for this box's broker: Mosquitto, or on a NATS node nats-server (Wants=mosquitto.service there would
# start Debian's Mosquitto on NATS's port 1883).
venue_director_files() {
    if ! venue_director_here; then
        if [[ -e $P$DIRECTOR_UNIT ]]; then
            if (( STAGING )) || [[ -d /run/systemd/system ]]; then
                machine systemctl disable --now devetka-director.service
            elif command -v systemctl >/dev/null; then
                machine systemctl disable devetka-director.service
            fi
            remove "$DIRECTOR_UNIT"
            say "the director runs on node $DIRECTOR_NODE: stopped here; its store stays in $DIRECTOR_STATE"
        fi
        remove "$VENUE_DIRECTOR_SECRET"
        return 0
    fi
    if [[ ! -f $P$VENUE_DIRECTOR_SECRET ]]; then
        write 0600 "$DIRECTOR_USER:$DIRECTOR_GROUP" "$VENUE_DIRECTOR_SECRET" \
            < <(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
    else
        settle file 0600 "$DIRECTOR_USER:$DIRECTOR_GROUP" "$VENUE_DIRECTOR_SECRET"
    fi
    directory 0750 "$DIRECTOR_USER:$DIRECTOR_GROUP" "$DIRECTOR_STATE"
    directory 0755 root:root /etc/systemd
    directory 0755 root:root /etc/systemd/system
    local broker=mosquitto.service unit
    [[ $VENUE_ENGINE != nats ]] || broker=nats-server.service
    unit=$(sed -E "/^(After|Wants)=/s/mosquitto\.service/$broker/" "$DEPLOY/systemd/devetka-director.service") \
        || die "cannot read deploy/systemd/devetka-director.service"
    write 0644 root:root "$DIRECTOR_UNIT" <<<"$unit"
}

# After the broker has (re)started: the director enabled and restarted (an upgraded venv, a new unit).
venue_director_start() {
    venue_director_here || return 0
    if (( STAGING )) || [[ -d /run/systemd/system ]]; then
        machine systemctl daemon-reload
        machine systemctl enable devetka-director.service
        machine systemctl restart devetka-director.service
    else
        say "systemd is not running here (a chroot?): the director starts at the first boot"
        command -v systemctl >/dev/null && machine systemctl enable devetka-director.service
    fi
    say "the director: devetka-director.service, its store in $DIRECTOR_STATE, logged in to this box's broker as" \
        "director (its password in $VENUE_DIRECTOR_SECRET); the night: sudo $VENV/bin/devetka event status"
}
