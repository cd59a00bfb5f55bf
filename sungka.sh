#!/bin/sh
# sungka.sh — the two commands of the README.
#   ./sungka.sh play [PLAYER-OPTIONS]   install what is missing, build, and play
#   ./sungka.sh test                    install what is missing, build, run every test
# Installing needs root (apt-get); building and playing do not.
set -eu
cd "$(dirname "$0")"

PACKAGES="gcc make cmake pkg-config libgrpc-dev libprotobuf-c-dev protobuf-c-compiler \
libcmocka-dev libsqlite3-dev python3 python3-grpcio tmux valgrind"

install_missing() {
    missing=""
    for p in $PACKAGES; do
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
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
}

build() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build -j "$(nproc)"
}

case "${1:-}" in
play)
    shift
    install_missing
    build
    if [ $# -eq 0 ]; then
        # Host a game others can join on port 7070, and play it here.
        set -- --serve 0.0.0.0:7070 --name "${USER:-host}" --new sungka
    fi
    exec build/bin/sungka-player "$@"
    ;;
test)
    install_missing
    build
    cd build
    exec ctest --output-on-failure -j 2
    ;;
*)
    echo "usage: ./sungka.sh play [sungka-player options] | ./sungka.sh test" >&2
    exit 2
    ;;
esac
