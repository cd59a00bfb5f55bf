#!/bin/sh
# check_buf.sh SOURCE-DIR — the wire contract (proto/) checked with buf:
#   1. `buf lint` by proto/buf.yaml (STANDARD, with its exceptions and why);
#   2. `buf breaking` against proto/breaking-baseline.json, the contract as
#      last released: nothing a client relies on is renumbered, retyped,
#      renamed or removed;
#   3. that check catching a break: a copy of the contract with one field
#      renumbered must fail it (so a buf that passes everything fails here).
# buf comes from npm, pinned in tools/buf/package.json and installed by
# ./sungka.sh test (npm ci --prefix tools/buf).
#
# At a release, renew the baseline from the released tree:
#   cd proto && ../tools/buf/node_modules/.bin/buf build --exclude-source-info \
#     -o '-#format=json' | python3 -m json.tool --indent 1 > breaking-baseline.json
# (JSON, pretty-printed, so that a change of the baseline reads as a diff).
# The baseline now is the contract of main at f8364db, the last commit before
# the contract's first check (there is no release tag yet).
set -eu
src=${1:?usage: check_buf.sh SOURCE-DIR}
buf="$src/tools/buf/node_modules/.bin/buf"
if [ ! -x "$buf" ]; then
    echo "FAIL: buf is not installed: run ./sungka.sh test, or npm ci --prefix tools/buf" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# buf's cache under the temporary directory: nothing left in $HOME.
export BUF_CACHE_DIR="$work/cache"
cd "$src/proto"
echo "buf $("$buf" --version): lint"
"$buf" lint
echo "breaking against breaking-baseline.json"
"$buf" breaking --against breaking-baseline.json

# The check must catch a renumbered field (JoinGameRequest.game_id 1 -> 99).
mkdir "$work/proto"
cp -r buf.yaml sungka grpc "$work/proto/"
sed 's/^\(  string game_id = \)1;\(    \/\/ or empty with any_of_kind\)/\199;\2/' \
    sungka/v1/sungka.proto > "$work/proto/sungka/v1/sungka.proto"
if cmp -s sungka/v1/sungka.proto "$work/proto/sungka/v1/sungka.proto"; then
    echo "FAIL: could not renumber JoinGameRequest.game_id in a copy (its line changed?)" >&2
    exit 1
fi
if (cd "$work/proto" && "$buf" breaking --against "$src/proto/breaking-baseline.json") \
        > "$work/out" 2>&1; then
    echo "FAIL: buf breaking passed a renumbered field" >&2
    exit 1
fi
grep -q 'field "1" with name "game_id"' "$work/out" || {
    echo "FAIL: buf breaking failed the renumbered copy for another reason:" >&2
    cat "$work/out" >&2
    exit 1
}
echo "a renumbered field is caught: $(head -1 "$work/out")"
echo "ok"
