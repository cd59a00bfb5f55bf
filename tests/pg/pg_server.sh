#!/bin/sh
# pg_server.sh — a throwaway PostgreSQL server for the tests.
#
#   pg_server.sh start DIR   make DIR, initdb a cluster in DIR/data, start it on
#                            a free port of 127.0.0.1 and write its URL,
#                            postgresql://postgres@127.0.0.1:PORT/postgres, to
#                            DIR/url (and PostgreSQL's bin directory to DIR/bindir)
#   pg_server.sh stop DIR    stop that server and remove DIR
#
# ctest runs these as the fixture `pg` (tests/CMakeLists.txt); tests find the
# URL through SUNGKA_TEST_PG_URL_FILE=DIR/url. Anyone may connect from
# loopback without a password (trust): nothing is kept in it.
#
# initdb refuses to run as root: as root (CI) the server runs as the
# `postgres` user of Debian's postgresql package, and DIR is made its own; any
# other user runs it as themselves. PostgreSQL comes from the newest
# /usr/lib/postgresql/*/bin (Debian's layout; `pg_config --bindir` may name
# another installation), or SUNGKA_PG_BINDIR.
set -eu

me=pg_server.sh

usage() {
    cat <<EOF
usage: $me start DIR | stop DIR
  start DIR   make DIR, initdb a cluster there and start it on a free port of
              127.0.0.1; its URL goes to DIR/url
  stop DIR    stop the server started in DIR and remove DIR
PostgreSQL's programs: \$SUNGKA_PG_BINDIR, else the newest /usr/lib/postgresql/*/bin,
else pg_config --bindir. As root, the server runs as the user postgres.
EOF
}

die() {
    echo "$me: $*" >&2
    exit 1
}

case "${1:-}" in
-h | --help)
    usage
    exit 0
    ;;
start | stop) ;;
*)
    usage >&2
    exit 2
    ;;
esac
if [ $# -ne 2 ] || [ -z "$2" ]; then
    usage >&2
    exit 2
fi
cmd=$1
case $2 in
/*) dir=$2 ;;
*) dir=$(pwd)/$2 ;;
esac
dir=${dir%/}
# What start leaves in DIR, so that stop (and a start over a stale DIR)
# never removes a directory this script did not make.
marker=$dir/.sungka-pg-server

find_bindir() {
    if [ -n "${SUNGKA_PG_BINDIR:-}" ]; then
        [ -x "$SUNGKA_PG_BINDIR/initdb" ] ||
            die "SUNGKA_PG_BINDIR=$SUNGKA_PG_BINDIR has no initdb"
        echo "$SUNGKA_PG_BINDIR"
        return
    fi
    newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n 1)
    if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then
        echo "$newest"
        return
    fi
    other=$(pg_config --bindir 2>/dev/null || true)
    if [ -n "$other" ] && [ -x "$other/initdb" ]; then
        echo "$other"
        return
    fi
    die "no PostgreSQL server found (no initdb in /usr/lib/postgresql/*/bin):" \
        "install the Debian package postgresql (packaging/debian-packages.txt, section test)"
}

# Run a PostgreSQL program as the user the cluster belongs to.
if [ "$(id -u)" -eq 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
else
    as_owner() { "$@"; }
fi

# Whether process $1 runs (a zombie does not: where PID 1 reaps nobody, a
# killed postmaster stays one).
alive() {
    state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "${state#Z}" = "$state" ]
}

# pg_ctl stop, fast (rolls back the sessions, closes them), immediate if
# that fails; quiet when no server is running in DIR.
stop_server() {
    [ -f "$dir/data/postmaster.pid" ] || return 0
    alive "$(head -n 1 "$dir/data/postmaster.pid")" || return 0    # a stale file
    bindir=$(cat "$dir/bindir" 2>/dev/null || find_bindir)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
        ! alive "$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)" ||
        die "cannot stop the server in $dir/data (see $dir/log)"
}

remove_dir() {
    if [ -e "$dir" ]; then
        [ -f "$marker" ] || die "$dir was not made by $me: not removing it"
        stop_server
        rm -rf "$dir" || die "cannot remove $dir"
    fi
}

if [ "$cmd" = stop ]; then
    remove_dir
    exit 0
fi

# --- start
bindir=$(find_bindir)
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 ||
        die "initdb refuses to run as root, and there is no user postgres to run it as" \
            "(install the Debian package postgresql, or run the tests as another user)"
fi
if [ -f "$marker" ]; then
    remove_dir                   # what a run that was cut short left behind
elif [ -d "$dir" ] && [ -z "$(ls -A "$dir")" ]; then
    rmdir "$dir"
elif [ -e "$dir" ]; then
    die "$dir exists and was not made by $me: not using it"
fi
mkdir -p "$dir" || die "cannot make $dir"
: >"$marker"
printf '%s\n' "$bindir" >"$dir/bindir"
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir" || die "cannot give $dir to the user postgres"
    runuser -u postgres -- test -w "$dir" ||
        die "the user postgres cannot write $dir: a directory above it is not" \
            "searchable by other users (chmod o+x it, or build elsewhere)"
fi

# C locale: strings compare byte by byte, as SQLite's do.
as_owner "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
    >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    die "initdb failed in $dir/data"
}

# The server's Unix socket goes into DIR, not /run/postgresql (which only the
# postgres user may write); a socket's path has at most 107 bytes, so a DIR too
# deep for it gets none (the tests connect over TCP).
if [ ${#dir} -le 90 ]; then
    sockets=$dir
else
    sockets=
fi
# The path, quoted for the shell that pg_ctl starts postgres with.
quoted_sockets="'$(printf '%s' "$sockets" | sed "s/'/'\\\\''/g")'"

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# A port can be taken by someone else between choosing it and the server
# binding it: then choose again.
tries=0
while :; do
    tries=$((tries + 1))
    port=$(free_port) || die "cannot find a free port on 127.0.0.1 (python3)"
    rm -f "$dir/log"
    # fsync, synchronous_commit and full_page_writes off: the tests kill the
    # board service, never PostgreSQL, and the cluster is thrown away at the
    # end; what a commit promises the service is unchanged, and writes are
    # fast. max_connections: a store connection per running service and store
    # test, with ctest -j, and bots'.
    if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port" \
        -o "-c unix_socket_directories=$quoted_sockets" \
        -o "-c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        -o "-c max_connections=300" \
        start >"$dir/pg_ctl.log" 2>&1; then
        break
    fi
    if [ "$tries" -lt 5 ] && grep -q -e 'could not bind' -e 'could not create any TCP/IP' \
        "$dir/log" 2>/dev/null; then
        continue
    fi
    cat "$dir/pg_ctl.log" "$dir/log" >&2 2>/dev/null || true
    stop_server || true
    die "the PostgreSQL server in $dir/data did not start (port $port, try $tries)"
done

url="postgresql://postgres@127.0.0.1:$port/postgres"
printf '%s\n' "$url" >"$dir/url.tmp" && mv "$dir/url.tmp" "$dir/url"
echo "$me: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $url (in $dir)"
