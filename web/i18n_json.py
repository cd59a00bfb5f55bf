#!/usr/bin/python3
"""i18n_json.py — the web app's words of one language, as JSON, from the
catalogues every view uses (web/CMakeLists.txt runs it at build time).

Usage: i18n_json.py WORDS.mo LANG.mo OUT.json

WORDS.mo: the app's words (xgettext's template of web/app/app.js, each
translated as itself by msgen, made a catalogue by msgfmt); LANG.mo: the
language's catalogue (po/LANG.po by msgfmt). OUT.json: {"English": "...",
...} for every word of the app that LANG translates; i18n.js's t() falls
back to the English for the others. Both catalogues are read with Python's
own gettext module.
"""
import gettext
import json
import sys


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    words_mo, lang_mo, out = sys.argv[1:]
    with open(words_mo, "rb") as f:
        # The app's msgids: the keys of its own catalogue (the header's "" left out).
        words = sorted(k for k in gettext.GNUTranslations(f)._catalog if isinstance(k, str) and k)
    with open(lang_mo, "rb") as f:
        lang = gettext.GNUTranslations(f)
    table = {}
    for w in words:
        said = lang.gettext(w)
        if said != w:
            table[w] = said
    with open(out, "w", encoding="utf-8") as f:
        json.dump(table, f, ensure_ascii=False, indent=0, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
