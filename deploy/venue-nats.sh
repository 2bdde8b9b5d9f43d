# The venue on a NATS cluster (docs/venue.md, "The venue on three machines"), sourced by deploy/install.sh:
# --venue-server --engine nats --node N --peers HOST[:PORT],... makes this box node N. The config text comes from
# scoreboard/venue/nats.py, run with the system's python3, so the tests check the very text installed here. The
# tables' logins are venue_server's (deploy/venue.sh), the same file on every node: made on node 1, copied.
# shellcheck shell=bash

NATS_PY=$REPO/scoreboard/venue/nats.py
NATS_CONFIG=/etc/nats-server.conf           # the file Debian's nats-server.service reads
NATS_STORE=/var/lib/nats                    # JetStream's store, under it (nats.py STORE_DIR)
VENUE_CLUSTER_SECRET=/etc/devetka/venue-cluster-secret

venue_nats_check_options() {
    case $VENUE_ENGINE in
        mosquitto)
            [[ -z $VENUE_NODE && -z $VENUE_PEERS ]] || die "--node and --peers go with --engine nats"
            return 0 ;;
        nats) ;;
        *) die "--engine must be mosquitto or nats, got \"$VENUE_ENGINE\"" ;;
    esac
    [[ $VENUE_NODE =~ ^[1-9][0-9]*$ ]] || die "--engine nats needs --node N (1, 2, 3: this box's number)"
    [[ $VENUE_PEERS =~ ^[A-Za-z0-9.:,-]+$ ]] \
        || die "--engine nats needs --peers HOST[:PORT],... (every node's address, the same list on each)"
    [[ -z $VENUE_TLS_CERT && $VENUE_NO_TLS == 0 ]] || die "--venue-tls-cert and --venue-no-tls are for --engine mosquitto"
    (( VENUE_NODE == 1 || ${#ADD_TABLES[@]} + ${#REMOVE_TABLES[@]} == 0 )) \
        || die "add and remove tables on node 1, then copy $VENUE_TABLES to the other nodes and run this there"
}

# Before anything is written: nodes 2, 3, ... take node 1's logins and secret, never make their own.
venue_nats_preflight() {
    (( VENUE_NODE == 1 )) || [[ -f $P$VENUE_TABLES && -f $P$VENUE_CLUSTER_SECRET ]] \
        || die "node $VENUE_NODE needs $VENUE_TABLES and $VENUE_CLUSTER_SECRET from node 1: copy both here (as root, mode 0600) and run this again"
}

# Called by venue_server (deploy/venue.sh) once the tables' logins are written: ids, fresh and secrets are its.
venue_nats_node() {
    if [[ ! -f $P$VENUE_CLUSTER_SECRET ]]; then
        write 0600 root:root "$VENUE_CLUSTER_SECRET" < <(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    else
        settle file 0600 root:root "$VENUE_CLUSTER_SECRET"
    fi
    # The director's password and unit on the node that runs it (deploy/venue-director.sh); its login on this node's
    # config there alone, the node it connects to.
    venue_director_files
    local text director=()
    ! venue_director_here || director=(--director-password-file "$P$VENUE_DIRECTOR_SECRET")
    text=$(python3 "$NATS_PY" node --node "$VENUE_NODE" --peers "$VENUE_PEERS" --tables-file "$P$VENUE_TABLES" \
        --route-secret-file "$P$VENUE_CLUSTER_SECRET" "${director[@]}") \
        || die "scoreboard/venue/nats.py node failed (see above)"
    # 0640 root:nats: it holds the tables' passwords and the cluster's secret; nats-server reads it as user nats.
    write 0640 root:nats "$NATS_CONFIG" <<<"$text"
    directory 0750 nats:nats "$NATS_STORE"
    directory 0750 nats:nats "$NATS_STORE/devetka"
    # The board's page, as on the Mosquitto venue's box: NATS serves no files, so a kiosk here opens it as a file
    # (file:///usr/share/devetka/board/index.html?broker=ws://NODE1:9001/mqtt,...).
    venue_board_page
    # This box's MQTT port is NATS's now: the Mosquitto venue's config goes, and Debian's Mosquitto (which listens on
    # 127.0.0.1:1883 by itself) is stopped.
    remove "$VENUE_BROKER"
    remove "$VENUE_ACL"
    remove "$VENUE_BOARD_ACL"
    remove "$VENUE_PASSWD"
    remove "$VENUE_LINK"
    write_manifest

    if (( STAGING )) || [[ -d /run/systemd/system ]]; then
        if (( STAGING )) || systemctl cat mosquitto.service >/dev/null 2>&1; then
            machine systemctl disable --now mosquitto.service
        fi
        machine systemctl enable nats-server.service
        # nats-server takes a new config on SIGHUP (Debian's unit's reload), logins and routes included, and keeps
        # its clients connected; a stopped one is started.
        machine systemctl reload-or-restart nats-server.service
    else
        say "systemd is not running here (a chroot?): nats-server starts at the first boot"
        command -v systemctl >/dev/null && machine systemctl enable nats-server.service
    fi
    venue_director_start

    local hosts=() node nodes=""
    IFS=',' read -r -a hosts <<<"$VENUE_PEERS"
    for node in "${hosts[@]}"; do nodes+="${nodes:+,}${node%%:*}:1883"; done
    venue_say_tables "$nodes"
    (( VENUE_NODE != 1 )) || say "nodes 2, 3, ...: copy $VENUE_TABLES and $VENUE_CLUSTER_SECRET there first"
    say "done: node $VENUE_NODE of the venue's NATS cluster; tables bridge to port 1883 of every node, browsers"
    say "  read ws://NODE:9001/mqtt; the board: file://$VENUE_BOARD_DIR/index.html?broker=ws://NODE1:9001/mqtt,..."
}
