#!/usr/bin/python3
"""reason_names.py — every reason the servers send is in the contract.

A refusal carries a machine-readable reason in the trailing metadata
"sungka-error-reason"; sungka.proto's `enum ErrorReason` lists them, and
docs/clients.md tells a client what to do about each. A reason sent but not
listed is one a stranger's client cannot know. This check reads the enum's
names and fails on every reason the C sources under the directories given
send that it lacks: a string literal of capitals right after a status code
(`RPC_NOT_FOUND, "NOT_FOUND"`), as every refusal is written.
Usage: reason_names.py SOURCE_DIR DIR...   (DIR relative to SOURCE_DIR)
"""
import os
import re
import sys

ENUM = re.compile(r"^enum ErrorReason \{(.*?)^\}", re.M | re.S)
VALUE = re.compile(r"^\s*([A-Z][A-Z0-9_]*)\s*=\s*\d+\s*;", re.M)
SENT = re.compile(r'\bRPC_[A-Z_]+,\s*"([A-Z][A-Z0-9_]*)"')


def listed(source_dir):
    with open(os.path.join(source_dir, "proto/sungka/v1/sungka.proto"), encoding="utf-8") as fh:
        m = ENUM.search(fh.read())
    if not m:
        sys.exit("reason_names: no `enum ErrorReason` in sungka.proto")
    return set(VALUE.findall(m.group(1)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    source_dir = sys.argv[1]
    names = listed(source_dir)
    missing, seen = [], 0
    for d in sys.argv[2:]:
        for root, _, files in os.walk(os.path.join(source_dir, d)):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for m in SENT.finditer(text):
                    seen += 1
                    if m.group(1) not in names:
                        line = text.count("\n", 0, m.start()) + 1
                        missing.append(f"{os.path.relpath(path, source_dir)}:{line}: "
                                       f"{m.group(1)} is sent but not in sungka.proto's "
                                       "ErrorReason")
    if seen == 0:
        sys.exit("reason_names: no reasons found sent: has the way refusals are written changed?")
    for m in missing:
        print(m)
    print(f"{seen} reasons sent, {len(names)} listed, {len(missing)} missing")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
