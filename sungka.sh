#!/bin/sh
# sungka.sh — the two commands of the README.
#   ./sungka.sh play [PLAYER-OPTIONS]   install what is missing, build, and play
#   ./sungka.sh play --web HOST:PORT    ...or play in a browser: the link is printed
#   ./sungka.sh test                    install what is missing, build, run every test,
#                                       then again in a sanitizer build
# Installing needs root (apt-get); building and playing do not.
set -eu
cd "$(dirname "$0")"

# The Debian packages come from one list, packaging/debian-packages.txt, which
# the packages' dependencies (debian/) are checked against too: its lines are
# "SECTION PACKAGE # why".
packages() {
    sed -n "s/^$1[[:space:]]\{1,\}\([^[:space:]#]\{1,\}\).*/\1/p" packaging/debian-packages.txt \
        | tr '\n' ' '
}
# What building and playing needs (GTK 4 for the optional --view gtk) ...
PACKAGES=$(packages build)
# ... and what the tests use besides: an independent gRPC client, a terminal,
# valgrind, a virtual display with screenshots for the GTK view, the sqlite3
# program (the README's recovery of a damaged database), a PostgreSQL server
# (tests/pg starts a throwaway one), and the tools that build and check the
# Debian packages, the systemd units, the desktop entry, the AppStream
# metainfo and the completions.
TEST_PACKAGES=$(packages test)
# ... and npm, for the test-only tools from npm below, unless an npm is there
# already (NodeSource's nodejs bundles one, and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || TEST_PACKAGES="$TEST_PACKAGES $(packages npm)"

# Test-only tools from npm, each pinned in its tools/NAME/package-lock.json:
# buf, which checks the wire contract (tests/proto). Installed when missing
# or not the pinned version; offline, the test that needs it fails with a
# sentence and the others run.
npm_tools() {
    pinned=$(sed -n 's/.*"@bufbuild\/buf": "\([^"]*\)".*/\1/p' tools/buf/package.json)
    have=$(tools/buf/node_modules/.bin/buf --version 2>/dev/null || true)
    [ "$have" = "$pinned" ] && return 0
    echo "Installing from npm: @bufbuild/buf $pinned (tools/buf)"
    npm ci --prefix tools/buf --no-audit --no-fund \
        || echo "sungka.sh: could not install tools/buf from npm; the test proto_buf will fail" >&2
}

install_missing() {
    missing=""
    for p in $PACKAGES ${1:-}; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "sungka.sh: these Debian packages are missing:$missing" >&2
        echo "sungka.sh: run this command as root to install them." >&2
        exit 1
    fi
    echo "Installing:$missing"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
}

build() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build -j "$(nproc)"
}

# play --web ADDR: a private board service on loopback and sungka-web in
# front of it on ADDR, until Ctrl+C; the link to open is printed.
play_web() {
    out=$(mktemp)
    build/bin/sungka-board --listen 127.0.0.1:0 >"$out" &
    board=$!
    trap 'kill $board 2>/dev/null; rm -f "$out"' EXIT INT TERM
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out" | head -n 1)
        [ -n "$port" ] && break
        kill -0 $board 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "sungka.sh: the private board service did not start (see above)" >&2
        exit 1
    fi
    case "$1" in
    0.0.0.0:*|\[::\]:*) echo "Friends open http://THIS-MACHINE'S-NAME:${1##*:}/ (plain HTTP: \
guests only, no passwords)." ;;
    esac
    build/bin/sungka-web --listen "$1" --server "127.0.0.1:$port" || true
    exit 0
}

case "${1:-}" in
play)
    shift
    install_missing
    build
    if [ "${1:-}" = "--web" ]; then
        [ $# -eq 2 ] || { echo "usage: ./sungka.sh play --web HOST:PORT" >&2; exit 2; }
        play_web "$2"
    fi
    if [ $# -eq 0 ]; then
        # A game of sungka against the computer, on a private board service.
        set -- --name "${USER:-player}" --new sungka --bots 1 --ready
    fi
    exec build/bin/sungka-player "$@"
    ;;
test)
    install_missing "$TEST_PACKAGES"
    npm_tools
    build
    # Tests labelled `long` (campaigns and soaks at length) are run by hand:
    # ctest -L long (tests/CMakeLists.txt). Those labelled `pg` need
    # PostgreSQL in any build (a cluster's nodes, the store's _pg programs):
    # they run once, below, in the sanitizer pass, which sees more
    # (tests/pg/CMakeLists.txt).
    (cd build && ctest --output-on-failure -j 2 -LE '^long$|^pg$')
    # The same tests again built with the address and undefined-behaviour
    # sanitizers (valgrind cannot run sanitized programs; the soak is long;
    # nobody installs a sanitized build; the chaos run's timing is the plain
    # build's; the benchmark program's own tests once are enough), with the
    # board services' store on PostgreSQL: a server the tests start
    # (tests/pg) instead of SQLite files, so both stores get the whole suite
    # in the time of two runs. (The store's own tests run on both in both
    # builds.)
    cmake -S . -B build-asan -DSUNGKA_SANITIZE=ON -DSUNGKA_TEST_ON_PG=ON \
        -DCMAKE_BUILD_TYPE=Debug >/dev/null
    cmake --build build-asan -j "$(nproc)"
    cd build-asan
    exec ctest --output-on-failure -j 2 -LE "valgrind|soak|install|chaos|long|bench"
    ;;
*)
    echo "usage: ./sungka.sh play [sungka-player options] | ./sungka.sh play --web HOST:PORT |" \
         "./sungka.sh test" >&2
    exit 2
    ;;
esac
