#!/usr/bin/python3
"""doc_names.py — the map of the code stays true: every name a document cites
in backticks as code (a function, a type, a constant: one C identifier) is
defined or used somewhere in the sources, and every source file it cites
(`room_moves.c`, `board.h`) exists. A rename that forgets the map fails here.
Usage: doc_names.py ROOT DOC...
"""
import os
import re
import sys

SOURCE_EXT = (".c", ".h", ".proto", ".py", ".sh", ".txt", ".cmake", ".in", ".js", ".css",
              ".html")
SKIP_DIRS = {".git", "build", "build-asan", "node_modules"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Cited names that are not the project's: other programs' settings and headers.
OUTSIDE = {"synchronous_standby_names", "grpc/grpc.h", "rmgrlist.h"}
FILE = re.compile(r"^[A-Za-z0-9_./-]+\.(c|h|py|sh|proto|md|txt)$")


def sources(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for f in files:
            if f.endswith(SOURCE_EXT) or f == "CMakeLists.txt":
                yield os.path.join(top, f)


_tests_text = None


def text_of_tests(root):
    """Every CMakeLists.txt of tests/e2e, where the tests are named."""
    global _tests_text
    if _tests_text is None:
        with open(os.path.join(root, "tests", "e2e", "CMakeLists.txt"), encoding="utf-8") as f:
            _tests_text = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.read()))
    return _tests_text


def main(root, docs):
    words, names = set(), set()
    for path in sources(root):
        names.add(os.path.basename(path))
        names.add(os.path.relpath(path, root))
        with open(path, encoding="utf-8", errors="replace") as f:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.read()))
    missing = []
    for doc in docs:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for cited in re.findall(r"`([^`\n]+)`", text):
            cited = cited.strip()
            if cited.endswith("()"):
                cited = cited[:-2]
            if cited in OUTSIDE:
                continue
            if IDENT.match(cited) and len(cited) > 2 and "_" in cited or \
                    IDENT.match(cited) and re.search(r"[a-z][A-Z]", cited):
                if cited.startswith("e2e_"):
                    # a test's name: e2e_ PREFIX_ TEST (tests/e2e/CMakeLists.txt)
                    parts = cited.split("_")
                    if any("_".join(parts[i:]) in text_of_tests(root) for i in range(1, 4)):
                        continue
                if cited not in words:
                    missing.append(f"{doc}: `{cited}` is nowhere in the sources")
            elif FILE.match(cited) and not cited.startswith(("http", "/")):
                base = os.path.basename(cited)
                if base + ".in" in names:
                    continue            # made by configure_file
                if base not in names and cited not in names and \
                        not os.path.exists(os.path.join(root, cited)) and \
                        not os.path.exists(os.path.join(root, "docs", cited)):
                    missing.append(f"{doc}: `{cited}` is no file of the sources")
    for m in missing:
        print(m)
    print(f"{len(missing)} stale name(s) in {', '.join(docs)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
