#!/usr/bin/python3
"""kind_names.py — no code outside games/ tells game kinds apart by name.

What a view or the agent needs to know about a kind (which picture to draw,
the seats' marks and colours, how moves are written) is in the kind's table
in games/ (games.h, "naming and drawing, for views"). A strcmp with "reversi"
anywhere else is that knowledge leaking out of the table, and the next kind
drawn like reversi would need it too. This check reads the kinds' names from
games/*.c (their `.name = "..."`) and fails on every comparison of a string
with one of them (strcmp, strncmp, strcasecmp, strncasecmp, strstr) in the C
sources under the directories given; comments do not count.
Usage: kind_names.py SOURCE_DIR DIR...   (DIR relative to SOURCE_DIR)
"""
import os
import re
import sys

KIND_NAME = re.compile(r'^\s*\.name\s*=\s*"([^"]+)"', re.M)
COMPARE = re.compile(r"\b(strn?(?:case)?cmp|strstr)\s*\(")
# String and character literals (kept) and comments (blanked, newlines kept).
TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def kinds(source_dir):
    names = set()
    games = os.path.join(source_dir, "games")
    for f in sorted(os.listdir(games)):
        if f.endswith(".c"):
            with open(os.path.join(games, f), encoding="utf-8") as fh:
                names.update(KIND_NAME.findall(fh.read()))
    return names


def without_comments(text):
    def blank(m):
        s = m.group(0)
        return s if s[0] in "\"'" else re.sub(r"[^\n]", " ", s)
    return TOKENS.sub(blank, text)


def call_args(text, start):
    """The text from `start` (just after a call's opening parenthesis) to its
    closing one, skipping parentheses inside literals."""
    depth, i = 1, start
    while i < len(text) and depth:
        m = TOKENS.match(text, i)
        if m:
            i = m.end()
            continue
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def check_file(path, names):
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = without_comments(fh.read())
    found = []
    for m in COMPARE.finditer(text):
        args = call_args(text, m.end())
        hit = [n for n in names if f'"{n}"' in args]
        if hit:
            line = text.count("\n", 0, m.start()) + 1
            found.append((line, m.group(1), " ".join(args.split()), hit[0]))
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    source_dir = sys.argv[1]
    names = kinds(source_dir)
    if not names:
        print(f"no kind names found in {source_dir}/games/*.c", file=sys.stderr)
        return 2
    bad, files = [], 0
    for d in sys.argv[2:]:
        for root, _, fs in os.walk(os.path.join(source_dir, d)):
            for f in sorted(fs):
                if f.endswith((".c", ".h")):
                    files += 1
                    path = os.path.join(root, f)
                    for line, fn, args, name in check_file(path, names):
                        rel = os.path.relpath(path, source_dir)
                        bad.append(f"{rel}:{line}: {fn}({args}) compares with the kind "
                                   f"name \"{name}\"")
    if bad:
        print("Kinds are told apart by their table in games/ (game_draw_style, "
              "game_seat_mark, game_format_move, ...), never by name:")
        print("\n".join(bad))
        return 1
    print(f"ok: {files} files, no comparison with {', '.join(sorted(names))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
