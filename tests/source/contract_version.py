#!/usr/bin/python3
"""contract_version.py — the version moves when the schema or the contract does.

packaging/contract-versions.txt has one line per version that changed them:
VERSION, the SQLite schema's version (the steps of store_sqlite.c's
migrations[]), the PostgreSQL schema's (store_pg.c's pg_migrations[]), and a
hash of the wire contract (proto/sungka/v1/*.proto without comments and
spacing). This checks that:
  - its last line is what the sources say now: a new migration or a changed
    message needs a new line, hence a new version;
  - that version is the project's (CMakeLists.txt project()), the newest
    entry of debian/changelog and the newest release of the AppStream
    metainfo, so the packages carry it;
  - the versions only grow, and each line changes something.
Usage: contract_version.py ROOT
"""
import hashlib
import os
import re
import sys


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def block(text, start, what):
    """The text from the line that starts with `start` to the next "};"."""
    i = text.find(start)
    if i < 0:
        raise SystemExit(f"FAIL: {what}: no '{start}' (contract_version.py reads it)")
    return text[i:text.index("\n};", i)]


def sqlite_version(root):
    """The steps of migrations[], each opened by its "/* N: " comment, 1..N."""
    steps = [int(n) for n in re.findall(r"^    /\* (\d+): ", block(
        read(root, "board-service/store_sqlite.c"), "static const char *const migrations[]",
        "store_sqlite.c"), re.M)]
    if steps != list(range(1, len(steps) + 1)):
        raise SystemExit(f"FAIL: store_sqlite.c's migrations[] are numbered {steps}: each step "
                         "opens with /* N: ... */, 1, 2, 3, ...")
    return len(steps)


def pg_version(root):
    body = block(read(root, "board-service/store_pg.c"), "static const char *const *const "
                 "pg_migrations[]", "store_pg.c")
    return len(re.findall(r"^\s+schema_\d+,", body, re.M))


def proto_hash(root):
    """The contract's text without comments and spacing: a changed comment
    changes no version, a changed field does."""
    d = os.path.join(root, "proto", "sungka", "v1")
    h = hashlib.sha256()
    for name in sorted(f for f in os.listdir(d) if f.endswith(".proto")):
        text = read(root, os.path.join("proto", "sungka", "v1", name))
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        h.update(name.encode() + b"\0" + " ".join(text.split()).encode() + b"\0")
    return h.hexdigest()[:16]


def version_key(v):
    return [int(x) for x in re.findall(r"\d+", v)]


def main(root):
    now = (sqlite_version(root), pg_version(root), proto_hash(root))
    lines = []
    for n, line in enumerate(read(root, "packaging/contract-versions.txt").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            f = line.split()
            if len(f) != 4 or not f[1].isdigit() or not f[2].isdigit():
                print(f"FAIL: contract-versions.txt:{n}: not 'VERSION SQLITE PG PROTO': {line}")
                return 1
            lines.append((n, f[0], (int(f[1]), int(f[2]), f[3])))
    if not lines:
        print("FAIL: packaging/contract-versions.txt has no line")
        return 1
    fail = []
    for (_, v0, c0), (n, v1, c1) in zip(lines, lines[1:]):
        if version_key(v1) <= version_key(v0):
            fail.append(f"contract-versions.txt:{n}: {v1} does not come after {v0}")
        if c1 == c0:
            fail.append(f"contract-versions.txt:{n}: {v1} changes nothing since {v0}")
    _, last, recorded = lines[-1]
    if recorded != now:
        fail.append(
            f"the schema or the contract changed since {last} (recorded SQLite {recorded[0]}, "
            f"PostgreSQL {recorded[1]}, proto {recorded[2]}; now {now[0]}, {now[1]}, "
            f"{now[2]}): give the project a new version (CMakeLists.txt project(), a "
            "debian/changelog entry, a <release> in packaging/io.github.sungka.Player."
            f"metainfo.xml) and add the line 'VERSION {now[0]} {now[1]} {now[2]}' to "
            "packaging/contract-versions.txt")
    project = re.search(r"^project\(sungka VERSION (\S+)", read(root, "CMakeLists.txt"), re.M)
    changelog = re.match(r"sungka \(([^)]+)\)", read(root, "debian/changelog"))
    release = re.search(r'<release version="([^"]+)"',
                        read(root, "packaging/io.github.sungka.Player.metainfo.xml"))
    for what, m in (("CMakeLists.txt project()", project), ("debian/changelog", changelog),
                    ("the metainfo's newest <release>", release)):
        if not m:
            fail.append(f"{what}: no version found")
        elif m.group(1) != last:
            fail.append(f"{what} says {m.group(1)}, contract-versions.txt's last line {last}")
    for f in fail:
        print("FAIL:", f)
    if not fail:
        print(f"ok: {last}: SQLite schema {now[0]}, PostgreSQL schema {now[1]}, proto {now[2]}")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
