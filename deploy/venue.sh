# The venue (docs/venue.md), sourced by deploy/install.sh: a table's bridge to the venue's broker (--venue,
# --no-venue) and the venue's broker itself (--venue-server). The config text comes from
# scoreboard/venue/bridge.py, run with the system's python3, so the tests check the very text installed here.
# shellcheck shell=bash

BRIDGE_PY=$REPO/scoreboard/venue/bridge.py
# The table's side: its venue settings (no secret), its venue password, the venue's CA, the bridge itself.
VENUE_SETTINGS=/etc/devetka/venue
VENUE_SECRET=/etc/devetka/venue-password
VENUE_CA=/etc/mosquitto/certs/devetka-venue-ca.crt
TABLE_BRIDGE=/etc/mosquitto/conf.d/devetka-venue-bridge.conf
# The venue's side: the tables' logins and passwords, the broker's listeners, its password file and ACLs.
VENUE_TABLES=/etc/devetka/venue-tables
VENUE_BROKER=/etc/mosquitto/conf.d/devetka-venue-server.conf
VENUE_PASSWD=/etc/mosquitto/devetka-venue.passwd
VENUE_ACL=/etc/mosquitto/devetka-venue.acl
VENUE_BOARD_ACL=/etc/mosquitto/devetka-venue-board.acl  # before issue 29: the readers' ACL, removed now
# The page listener's own login (the operator's page writes the director's requests) and its ACL; the director's
# and the operator's passwords, made once and kept (root only).
VENUE_PAGE_PASSWD=/etc/mosquitto/devetka-venue-page.passwd
VENUE_PAGE_ACL=/etc/mosquitto/devetka-venue-page.acl
VENUE_DIRECTOR_SECRET=/etc/devetka/venue-director
VENUE_OPERATOR_SECRET=/etc/devetka/venue-operator
# The readers' broker beside it (a nats-server: MQTT 1884, WebSocket 9002) and the password of its bridge to it.
VENUE_LINK=/etc/devetka/venue-readers-link
READERS_CONFIG=/etc/nats-server.conf
READERS_STORE=/var/lib/nats
VENUE_CERT=/etc/mosquitto/certs/devetka-venue.crt
VENUE_KEY=/etc/mosquitto/certs/devetka-venue.key
# The board (scoreboard/venue/board/), served by the venue broker's WebSockets listener (http_dir).
VENUE_BOARD_DIR=/usr/share/devetka/board
BOARD_FILES=(index.html board.css board.js event.css event.js overlay.css overlay.js operator.css operator.js
             result.css result.js words.js i18n/en.js i18n/hr.js
             vendor/mqtt.min.js vendor/LICENSE-mqtt.js.md vendor/VERSION vendor/qrcode.js vendor/VERSION-qrcode)

bridge_text() {  # bridge_text WHAT ARGS...: the text of scoreboard/venue/bridge.py, or stop with its error
    python3 "$BRIDGE_PY" "$@" || die "scoreboard/venue/bridge.py $1 failed (see above)"
}

# Every venue option checked (and a password on stdin read) before install.sh touches anything.
venue_check_options() {
    local table_mode=0
    [[ -n $VENUE || -n $VENUE_USER || -n $VENUE_PASSWORD_FILE || -n $VENUE_TLS_CA ]] && table_mode=1
    if (( VENUE_SERVER )); then
        (( ! table_mode && ! NO_VENUE )) \
            || die "--venue-server is the venue's own box: --venue and --no-venue are for a table"
        if [[ -n $VENUE_TLS_CERT || -n $VENUE_TLS_KEY ]]; then
            [[ -n $VENUE_TLS_CERT && -n $VENUE_TLS_KEY ]] || die "--venue-tls-cert and --venue-tls-key go together"
            (( ! VENUE_NO_TLS )) || die "--venue-no-tls removes the certificate: it takes no --venue-tls-cert"
            [[ -r $VENUE_TLS_CERT ]] || die "--venue-tls-cert: cannot read $VENUE_TLS_CERT"
            [[ -r $VENUE_TLS_KEY ]] || die "--venue-tls-key: cannot read $VENUE_TLS_KEY"
        fi
        local id
        for id in "${ADD_TABLES[@]}" "${REMOVE_TABLES[@]}"; do
            [[ $id =~ ^[A-Za-z0-9_-]+$ ]] || die "a table id must be letters, digits, '-' and '_', got \"$id\""
        done
        return 0
    fi
    if (( NO_VENUE )); then
        (( ! table_mode )) || die "--no-venue removes the bridge: it takes no --venue options"
        return 0
    fi
    (( table_mode )) || return 0
    [[ -n $VENUE ]] || die "--venue-user, --venue-password-file and --venue-tls-ca go with --venue HOST[:PORT]"
    [[ -n $VENUE_USER ]] || die "--venue needs --venue-user USER (the table's login on the venue's broker)"
    [[ -n $VENUE_PASSWORD_FILE ]] || die "--venue needs --venue-password-file FILE (- reads it from standard input)"
    # A venue on a NATS cluster: --venue HOST[:PORT],HOST[:PORT],... every node; the bridge goes to each in turn.
    local node
    VENUE_OTHERS=""
    if [[ $VENUE == *,* ]]; then
        for node in $(tr ',' ' ' <<<"${VENUE#*,}"); do
            [[ $node == *:* ]] || node+=":1883"
            [[ $node =~ ^[A-Za-z0-9.-]+:[0-9]{1,5}$ ]] || die "--venue: \"$node\" is not HOST[:PORT]"
            VENUE_OTHERS+="${VENUE_OTHERS:+,}$node"
        done
        VENUE=${VENUE%%,*}
    fi
    VENUE_HOST=${VENUE%%:*}
    if [[ $VENUE == *:* ]]; then
        VENUE_PORT=${VENUE#*:}
    elif [[ -n $VENUE_TLS_CA ]]; then
        VENUE_PORT=8883
    else
        VENUE_PORT=1883
    fi
    [[ $VENUE_HOST =~ ^[A-Za-z0-9.-]+$ ]] || die "--venue: \"$VENUE_HOST\" is not a host name or IPv4 address"
    [[ $VENUE_PORT =~ ^[0-9]{1,5}$ ]] && (( VENUE_PORT >= 1 && VENUE_PORT <= 65535 )) \
        || die "--venue: \"$VENUE_PORT\" is not a port (1-65535)"
    [[ $VENUE_USER =~ ^[A-Za-z0-9_.-]+$ ]] || die "--venue-user: \"$VENUE_USER\" is not a user name"
    if [[ $VENUE_PASSWORD_FILE == - ]]; then
        IFS= read -r VENUE_PASSWORD || [[ -n ${VENUE_PASSWORD:-} ]] || die "--venue-password-file -: nothing on stdin"
    else
        [[ -r $VENUE_PASSWORD_FILE ]] || die "--venue-password-file: cannot read $VENUE_PASSWORD_FILE"
        IFS= read -r VENUE_PASSWORD <"$VENUE_PASSWORD_FILE" || [[ -n ${VENUE_PASSWORD:-} ]] \
            || die "--venue-password-file: $VENUE_PASSWORD_FILE is empty"
    fi
    [[ $VENUE_PASSWORD =~ ^[!-~]+$ ]] \
        || die "--venue-password-file: the password must be printable characters without spaces"
    if [[ -n $VENUE_TLS_CA ]]; then
        [[ -r $VENUE_TLS_CA ]] || die "--venue-tls-ca: cannot read $VENUE_TLS_CA"
    fi
}

remove() {  # remove PATH: gone from the machine (and so from the manifest)
    if [[ -e $P$1 ]]; then
        rm -f "$P$1"
        say "removed $1"
    fi
}

venue_refuse_on_the_venue_box() {
    [[ ! -e $P$VENUE_BROKER ]] \
        || die "this machine is the venue's broker ($VENUE_BROKER): a table needs a box of its own"
}

# --- A table: its broker bridged to the venue's ---------------------------------------------------------------

# --venue writes the settings; every later run makes the bridge again from them and the table id in force
# (after `git pull`, or a new table id); --no-venue removes it all.
venue_bridge() {
    if (( NO_VENUE )); then
        remove "$TABLE_BRIDGE"
        remove "$VENUE_SETTINGS"
        remove "$VENUE_SECRET"
        remove "$VENUE_CA"
        return 0
    fi
    if [[ -n $VENUE ]]; then
        write 0644 root:root "$VENUE_SETTINGS" < <(
            printf '# The venue this table is bridged to (made by deploy/install.sh --venue; --no-venue removes it).\n'
            printf 'host=%s\nport=%s\nuser=%s\n' "$VENUE_HOST" "$VENUE_PORT" "$VENUE_USER"
            [[ -z $VENUE_OTHERS ]] || printf 'others=%s\n' "$VENUE_OTHERS"
        )
        write 0600 root:root "$VENUE_SECRET" <<<"$VENUE_PASSWORD"
        if [[ -n $VENUE_TLS_CA ]]; then
            directory 0755 root:root /etc/mosquitto/certs
            put 0644 root:root "$VENUE_TLS_CA" "$VENUE_CA"
        else
            remove "$VENUE_CA"
        fi
    elif [[ -f $P$VENUE_SETTINGS ]]; then
        [[ -f $P$VENUE_SECRET ]] \
            || die "$VENUE_SECRET is gone: run install.sh --venue ... again (or --no-venue to remove the bridge)"
        settle file 0644 root:root "$VENUE_SETTINGS"
        settle file 0600 root:root "$VENUE_SECRET"
        if [[ -e $P$VENUE_CA ]]; then
            settle dir 0755 root:root /etc/mosquitto/certs
            settle file 0644 root:root "$VENUE_CA"
        fi
    else
        remove "$TABLE_BRIDGE"  # a bridge whose settings are gone (deleted by hand) is not kept half-made
        return 0
    fi
    local key value host="" port="" user="" others="" tls=()
    while IFS='=' read -r key value; do
        case $key in host) host=$value ;; port) port=$value ;; user) user=$value ;; others) others=$value ;; esac
    done <"$P$VENUE_SETTINGS"
    [[ ! -e $P$VENUE_CA ]] || tls=(--ca-file "$VENUE_CA")
    [[ $user == "$table" ]] || say "note: the venue login $user is not this table's id $table: the venue's ACL" \
        "lets login ID write only under devetka/ID/, so it drops everything this table sends"
    local text
    text=$(bridge_text table --table-id "$table" --host "$host" --port "$port" --user "$user" \
        --password-file "$P$VENUE_SECRET" "${tls[@]}" --others "$others")
    # 0640 root:mosquitto: it holds the password, and Mosquitto reads it again as user mosquitto on a reload.
    write 0640 root:mosquitto "$TABLE_BRIDGE" <<<"$text"
}

# --- The venue's box: its broker ------------------------------------------------------------------------------

venue_server() {
    [[ ! -e $P/etc/mosquitto/conf.d/devetka.conf ]] \
        || die "this machine is a table (/etc/mosquitto/conf.d/devetka.conf): the venue's broker needs a box of its own"
    machine env DEBIAN_FRONTEND=noninteractive apt-get update -q
    local director=""  # the director's venv (deploy/venue-director.sh), where it runs
    venue_director_here && director=$DIRECTOR_PACKAGES
    # shellcheck disable=SC2086  # one word a package
    if [[ $VENUE_ENGINE == nats ]]; then  # a node of a NATS cluster (deploy/venue-nats.sh)
        machine env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 $director nats-server
    else
        machine env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 $director mosquitto \
            mosquitto-clients nats-server
        command -v mosquitto_passwd >/dev/null || die "mosquitto_passwd not found (apt-get install mosquitto)"
    fi
    venue_director_machine

    # The tables' logins: "ID PASSWORD" a line, made once per table and kept; the file is the list.
    directory 0755 root:root /etc/devetka
    local name secret id ids=() fresh=()
    declare -A secrets=()
    if [[ -f $P$VENUE_TABLES ]]; then
        while read -r name secret; do
            [[ -z $name || $name == \#* ]] && continue
            secrets[$name]=$secret
            ids+=("$name")
        done <"$P$VENUE_TABLES"
    fi
    for id in "${ADD_TABLES[@]}"; do
        [[ -z ${secrets[$id]:-} ]] || continue
        secrets[$id]=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
        ids+=("$id")
        fresh+=("$id")
    done
    local kept=()
    for id in "${ids[@]}"; do
        [[ " ${REMOVE_TABLES[*]} " == *" $id "* ]] || kept+=("$id")
    done
    ids=("${kept[@]}")
    write 0600 root:root "$VENUE_TABLES" < <(
        printf '# The tables'"'"' logins on this venue broker and their passwords (deploy/install.sh\n'
        printf '# --venue-add-table ID / --venue-remove-table ID). Give table ID its line'"'"'s password:\n'
        printf '#   sudo deploy/install.sh --venue THIS-HOST --venue-user ID --venue-password-file -\n'
        for id in "${ids[@]}"; do printf '%s %s\n' "$id" "${secrets[$id]}"; done
    )
    if [[ $VENUE_ENGINE == nats ]]; then
        venue_nats_node
        return 0
    fi

    directory 0755 root:root /etc/mosquitto
    directory 0755 root:root /etc/mosquitto/conf.d
    # TLS for the tables: the certificate and key given once, kept on later runs.
    local tls=()
    if (( VENUE_NO_TLS )); then
        remove "$VENUE_CERT"
        remove "$VENUE_KEY"
    elif [[ -n $VENUE_TLS_CERT ]]; then
        directory 0755 root:root /etc/mosquitto/certs
        put 0644 root:root "$VENUE_TLS_CERT" "$VENUE_CERT"
        put 0600 mosquitto:mosquitto "$VENUE_TLS_KEY" "$VENUE_KEY"
    fi
    if [[ -e $P$VENUE_CERT && -e $P$VENUE_KEY ]]; then
        settle dir 0755 root:root /etc/mosquitto/certs
        settle file 0644 root:root "$VENUE_CERT"
        settle file 0600 mosquitto:mosquitto "$VENUE_KEY"
        tls=(--tls)
    fi
    # The password of the venue's bridge to its readers' broker: made once, kept.
    if [[ ! -f $P$VENUE_LINK ]]; then
        write 0600 root:root "$VENUE_LINK" < <(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    else
        settle file 0600 root:root "$VENUE_LINK"
    fi
    # The director's login (the tables' listener; its password, its unit: deploy/venue-director.sh) and the
    # operator's (the page listener): made once, kept.
    venue_director_files
    if [[ ! -f $P$VENUE_OPERATOR_SECRET ]]; then
        write 0600 root:root "$VENUE_OPERATOR_SECRET" < <(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
    else
        settle file 0600 root:root "$VENUE_OPERATOR_SECRET"
    fi
    # Rendered first: a failure in a process substitution would go unnoticed and install an empty file.
    local listeners tables_acl page_acl readers
    listeners=$(bridge_text venue --link-password-file "$P$VENUE_LINK" "${tls[@]}")
    tables_acl=$(bridge_text venue-acl "${ids[@]}")
    page_acl=$(bridge_text page-acl)
    readers=$(python3 "$NATS_PY" readers --link-password-file "$P$VENUE_LINK") \
        || die "scoreboard/venue/nats.py readers failed (see above)"
    # 0640 root:mosquitto: it holds the readers' link password; Mosquitto reads it again as user mosquitto.
    write 0640 root:mosquitto "$VENUE_BROKER" <<<"$listeners"
    write 0600 mosquitto:mosquitto "$VENUE_ACL" <<<"$tables_acl"
    write 0600 mosquitto:mosquitto "$VENUE_PAGE_ACL" <<<"$page_acl"
    remove "$VENUE_BOARD_ACL"
    # 0640 root:nats, as on a cluster's node: nats-server reads it as user nats.
    write 0640 root:nats "$READERS_CONFIG" <<<"$readers"
    directory 0750 nats:nats "$READERS_STORE"
    directory 0750 nats:nats "$READERS_STORE/devetka-readers"
    venue_board_page

    [[ -f $P$VENUE_PASSWD ]] || : >"$P$VENUE_PASSWD"
    for id in "${ids[@]}"; do
        if [[ " ${fresh[*]} " == *" $id "* ]] || ! grep -q "^$id:" "$P$VENUE_PASSWD"; then
            mosquitto_passwd -b "$P$VENUE_PASSWD" "$id" "${secrets[$id]}"
        fi
    done
    if ! grep -q "^director:" "$P$VENUE_PASSWD"; then
        mosquitto_passwd -b "$P$VENUE_PASSWD" director "$(head -n1 "$P$VENUE_DIRECTOR_SECRET")"
    fi
    for name in $(cut -d: -f1 "$P$VENUE_PASSWD"); do
        [[ " ${ids[*]} director " != *" $name "* ]] || continue
        mosquitto_passwd -D "$P$VENUE_PASSWD" "$name"
        say "venue table $name: login removed"
    done
    settle file 0600 mosquitto:mosquitto "$VENUE_PASSWD"
    [[ -f $P$VENUE_PAGE_PASSWD ]] || : >"$P$VENUE_PAGE_PASSWD"
    if ! grep -q "^operator:" "$P$VENUE_PAGE_PASSWD"; then
        mosquitto_passwd -b "$P$VENUE_PAGE_PASSWD" operator "$(head -n1 "$P$VENUE_OPERATOR_SECRET")"
    fi
    settle file 0600 mosquitto:mosquitto "$VENUE_PAGE_PASSWD"
    write_manifest

    # A new listener needs a restart (every bridge reconnects); new logins only a reload, which rereads the
    # password file and the ACL and leaves the tables connected.
    if (( STAGING )) || [[ -d /run/systemd/system ]]; then
        # The readers' broker first, so that the venue's bridge to it connects at once.
        machine systemctl enable nats-server.service
        machine systemctl reload-or-restart nats-server.service
        machine systemctl enable mosquitto.service
        if [[ -n ${CHANGED[$VENUE_BROKER]:-} ]]; then
            machine systemctl restart mosquitto.service
        else
            machine systemctl reload-or-restart mosquitto.service
        fi
    else
        say "systemd is not running here (a chroot?): mosquitto and nats-server start at the first boot"
        command -v systemctl >/dev/null && machine systemctl enable nats-server.service mosquitto.service
    fi
    venue_director_start

    venue_say_tables "$(hostname).local"
    local over_tls=""
    (( ! ${#tls[@]} )) || over_tls=" (8883 over TLS)"
    say "the operator's page http://$(hostname).local:9001/?operator: login operator, its password in" \
        "$VENUE_OPERATOR_SECRET"
    say "done: tables bridge to port 1883$over_tls; readers: mqtt://$(hostname).local:1884," \
        "ws://$(hostname).local:9002/mqtt; the board http://$(hostname).local:9001/"
}

# The board's page where a kiosk or http_dir finds it: /usr/share/devetka/board, the same on either engine.
venue_board_page() {
    directory 0755 root:root /usr/share/devetka
    directory 0755 root:root "$VENUE_BOARD_DIR"
    directory 0755 root:root "$VENUE_BOARD_DIR/vendor"
    directory 0755 root:root "$VENUE_BOARD_DIR/i18n"
    local file
    for file in "${BOARD_FILES[@]}"; do
        put 0644 root:root "$REPO/scoreboard/venue/board/$file" "$VENUE_BOARD_DIR/$file"
    done
}

# Each table added in this run, its login and the line to run on it (--venue VENUE); then every table's id.
# ids, fresh and secrets are venue_server's.
venue_say_tables() {
    local venue=$1 id
    for id in "${fresh[@]}"; do
        [[ " ${ids[*]} " == *" $id "* ]] || continue  # added and removed in one run
        say "venue table $id: login $id, password ${secrets[$id]} (kept in $VENUE_TABLES)"
        say "  on table $id: sudo deploy/install.sh --venue $venue --venue-user $id --venue-password-file -"
    done
    if (( ${#ids[@]} )); then say "venue tables: ${ids[*]}"; else say "venue tables: none yet (--venue-add-table ID)"; fi
}
