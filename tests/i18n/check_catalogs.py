#!/usr/bin/env python3
"""check_catalogs.py — every word of the views is translated, in every language.

    check_catalogs.py POT PODIR DESKTOP

POT is the template xgettext made from the sources at build time
(build/po/sungka.pot); PODIR the source tree's po/, with LINGUAS. For each
language: its .po merged with the template (msgmerge, as sungka-po-update
would) has no untranslated message, no fuzzy one and no obsolete one (a
word the sources no longer have), and passes msgfmt --check (headers,
plural forms, and format directives that match the English ones, so no
translation can crash a printf). The template must hold the words of both
views. The desktop entry DESKTOP has a Name, GenericName and Comment in
every language of LINGUAS.
"""
import os
import re
import subprocess
import sys
import tempfile


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def messages(po, *flags):
    """The msgids msgattrib selects with `flags` (none: all), the header
    left out; a msgid written on several lines is joined."""
    r = run(["msgattrib", "--no-wrap", *flags, po])
    if r.returncode != 0:
        raise SystemExit(f"msgattrib {po}: {r.stderr}")
    ids = []
    for block in r.stdout.split("\n\n"):
        lines = [l[3:] if l.startswith("#~ ") else l for l in block.splitlines()]
        text, inside = "", False
        for line in lines:
            if line.startswith("msgid "):
                text, inside = line[7:-1], True
            elif inside and line.startswith('"'):
                text += line[1:-1]
            else:
                inside = False
        if text:
            ids.append(text)
    return ids


def main():
    pot, podir, desktop = sys.argv[1:4]
    failures = []
    words = messages(pot)
    # a word of the text view and one of the GTK view: POTFILES lists both
    for probe in ("Connected. Type help for commands.\\n", "Past matches and their replays"):
        if probe not in words:
            failures.append(f"{pot} lacks {probe!r}: is POTFILES complete?")
    with open(os.path.join(podir, "LINGUAS")) as f:
        langs = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    if not langs:
        failures.append("LINGUAS names no language")
    with tempfile.TemporaryDirectory() as tmp:
        for lang in langs:
            merged = os.path.join(tmp, f"{lang}.po")
            r = run(["msgmerge", "--quiet", "--no-fuzzy-matching", "--output-file", merged,
                     os.path.join(podir, f"{lang}.po"), pot])
            if r.returncode != 0:
                failures.append(f"msgmerge {lang}.po: {r.stderr}")
                continue
            for what, flags in (("untranslated", ["--untranslated", "--no-obsolete"]),
                                ("fuzzy", ["--only-fuzzy", "--no-obsolete"]),
                                ("obsolete", ["--only-obsolete"])):
                found = messages(merged, *flags)
                if found:
                    failures.append(f"{lang}.po: {len(found)} {what}: " +
                                    "; ".join(repr(m) for m in found[:5]))
            r = run(["msgfmt", "--check", "--statistics", "--output-file", os.devnull, merged])
            if r.returncode != 0:
                failures.append(f"msgfmt --check {lang}.po:\n{r.stderr}")
            else:
                print(f"{lang}: {r.stderr.strip()}")
    with open(desktop) as f:
        keys = {l.split("=", 1)[0] for l in f if "=" in l}
    for lang in langs:
        for key in ("Name", "GenericName", "Comment"):
            if f"{key}[{lang}]" not in keys:
                failures.append(f"{os.path.basename(desktop)} has no {key}[{lang}]")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"{len(words)} words, translated in {', '.join(langs)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
