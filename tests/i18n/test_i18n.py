#!/usr/bin/env python3
"""test_i18n.py — the text view in Filipino and Indonesian, end to end.

A real sungka-board on loopback; ana plays in the text view with
LANGUAGE=LANG and LANG=C.UTF-8 (the one locale a bare Debian 12 has made:
glibc 2.35 and later build C.UTF-8 in, and gettext honours LANGUAGE in any
locale but C/POSIX), against bob in English. Each of ana's lines checked is
one a person would read: the greeting, the game, her seat, bob's arrival,
the count of watchers in its singular and plural forms, whose turn it is,
the board's home column, and the question before quitting a running game.
The catalogs are the build tree's (build/share/locale, beside build/bin):
nothing is installed.

Usage: test_i18n.py BINDIR {fil|id|c_locale}. Every process started is
stopped at the end, passed or failed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from harness import Env, Failure, Proc, check, main  # noqa: E402

# What ana reads, as regular expressions, in each language.
LINES = {
    "fil": {
        "hello": r"^Nakakonekta\. I-type ang help para sa mga utos\.$",
        "game": r"^Laro (\d+): ",
        "seat": r"^Ikaw si ana, upuan 0\.$",
        "waiting": r"^Hinihintay na maokupa ang lahat ng upuan at maging handa ang lahat ng "
                   r"manlalaro \(i-type ang ready\)\.$",
        "joined": r"^Sumali si bob, upuan 1\.$",
        "one_watching": r"^1 tao ang nanonood\.$",
        "two_watching": r"^2 tao ang nanonood\.$",
        "starts": r"^Nagsimula ang laro; si (ana|bob) ang unang titira\.$",
        "my_turn": r"^Tira mo na: pumili ng bahay 0\.\.5\. Puwede: 0 1 2 3 4 5$",
        "their_turn": r"^Hinihintay ang tira ni bob\.$",
        "home": r"^\s+\[\s*\d+\].*\[\s*\d+\]$",
        "quit": r"^Kapag umalis ka ngayon, talo ka sa laro, gaya ng pagsuko\. "
                r"I-type ulit ang quit para umalis\.$",
    },
    "id": {
        "hello": r"^Terhubung\. Ketik help untuk daftar perintah\.$",
        "game": r"^Permainan (\d+): ",
        "seat": r"^Anda adalah ana, kursi 0\.$",
        "waiting": r"^Menunggu semua kursi terisi dan semua pemain siap \(ketik ready\)\.$",
        "joined": r"^bob bergabung, kursi 1\.$",
        "one_watching": r"^1 orang menonton\.$",
        "two_watching": r"^2 orang menonton\.$",
        "starts": r"^Permainan dimulai; (ana|bob) jalan pertama\.$",
        "my_turn": r"^Giliran Anda: pilih lubang 0\.\.5\. Sah: 0 1 2 3 4 5$",
        "their_turn": r"^Menunggu langkah bob\.$",
        "home": r"^\s+\[\s*\d+\].*\[\s*\d+\]$",
        "quit": r"^Keluar sekarang berarti kalah, seperti menyerah\. "
                r"Ketik quit lagi untuk keluar\.$",
    },
}


def speaker(e, lang, name, *args, locale="C.UTF-8"):
    """A text-view player whose language is `lang` (LANGUAGE), in `locale`."""
    env = dict(e.env, LANGUAGE=lang, LANG=locale)
    for k in ("LC_ALL", "LC_MESSAGES"):
        env.pop(k, None)
    argv = [os.path.join(e.bindir, "sungka-player"), "--name", name, "--state-dir",
            e.state_dir, *args]
    p = Proc(name, argv, env=env)
    e.procs.append(p)
    return p


def play_in(lang):
    def test(bindir):
        want = LINES[lang]
        with Env(bindir) as e:
            board = e.board()
            ana = speaker(e, lang, "ana", "--server", board.address, "--new", "kalah")
            ana.expect(want["hello"])
            gid = ana.expect(want["game"]).group(1)
            ana.expect(want["seat"])
            ana.expect(want["waiting"])
            bob = e.player("bob", "--server", board.address, "--game", gid, ready=False)
            bob.expect(r"^You are bob")
            ana.expect(want["joined"])
            carol = e.player("carol", "--server", board.address, "--game", gid, "--observe",
                             ready=False)
            ana.expect(want["one_watching"])       # ngettext's singular ...
            dave = e.player("dave", "--server", board.address, "--game", gid, "--observe",
                            ready=False)
            ana.expect(want["two_watching"])       # ... and its plural
            carol.quit()
            dave.quit()
            ana.send("ready")
            bob.send("ready")
            first = ana.expect(want["starts"]).group(1)
            ana.expect(want["home"])                # the board, drawn
            ana.expect(want["my_turn"] if first == "ana" else want["their_turn"])
            bob.expect(r"^The game starts; \S+ moves first\.$")   # bob reads English
            ana.send("quit")
            ana.expect(want["quit"])
            ana.send("quit")
            check(ana.wait_exit() == 0, "ana's agent did not exit with 0\n" + ana.dump())
            bob.expect(r"^Game over: ")
            print(f"the text view spoke {lang} to ana while bob read English")
    return test


def test_c_locale(bindir):
    """LANGUAGE alone is not enough: in the C locale gettext ignores it, and
    the view speaks English (why the tests above give LANG=C.UTF-8)."""
    with Env(bindir) as e:
        board = e.board()
        ana = speaker(e, "fil", "ana", "--server", board.address, "--new", "kalah", locale="C")
        ana.expect(r"^Connected\. Type help for commands\.$")
        ana.expect(r"^You are ana, seat 0\.$")
        ana.quit()


def _english_sentences(pot):
    """The views' English sentences (the template's msgids) as regular
    expressions found anywhere in a line: each directive any text. Only those
    with three words or more: a name or a number alone is no sentence."""
    import re
    import subprocess
    out = subprocess.run(["msgcat", "--no-wrap", pot], capture_output=True, text=True,
                         check=True).stdout
    found = []
    for block in out.split("\n\n"):
        m = re.search(r'^msgid ((?:".*"\n?)+)', block, re.M)
        if not m:
            continue
        joined = "".join(l[1:-1] for l in m.group(1).strip().split("\n"))
        text = joined.encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
        for line in text.split("\n"):
            if line.strip().startswith("sungka-player "):
                continue       # a command to type, the same in every language
            if len(re.findall(r"[A-Za-z]{2,}", re.sub(r"%[-+ #0-9.]*[sdcu]", "", line))) < 3:
                continue
            parts = re.split(r"%[-+ #0-9.]*[sdcu]", line.strip())
            found.append((line, re.compile(".*".join(re.escape(p) for p in parts))))
    return found


def test_fil_no_english(bindir):
    """A Filipino session that creates a game and is refused shows no English
    sentence of the views' or the agent's: each line of its output is checked
    against every English msgid ("Created game", "seat 1", the refusal's
    sentence are the agent's and the service's words, translated here from
    the refusal's machine-readable reason)."""
    pot = os.path.join(bindir, "..", "po", "sungka.pot")
    english = _english_sentences(pot)
    check(len(english) > 100, f"too few English sentences read from {pot}")
    with Env(bindir) as e:
        board = e.board()
        ana = speaker(e, "fil", "ana", "--server", board.address, "--new", "kalah")
        ana.expect(r"^Nagawa ang larong 1\. Makasasali ang iba gamit ang:$")
        ana.expect(LINES["fil"]["seat"])
        ana.expect(r"^  upuan 1: upuan 1 ")
        ana.send("tell nobody hi")
        ana.expect(r"^Tinanggihan: Walang ganoong laro, laban o manlalaro\.$")
        ana.send("who")
        ana.expect(r"^  upuan 1: upuan 1 ")
        ana.quit()
        for line in ana.lines:
            for msgid, rx in english:
                check(not rx.search(line), f"an English sentence in Filipino: {line!r} "
                                          f"(msgid {msgid!r})")
        print(f"{len(ana.lines)} lines, none of {len(english)} English sentences")


def test_c_ascii(bindir):
    """Under LANG=C the terminal takes ASCII only: what the text view writes
    is converted from UTF-8 (a name, a chat line with a dash and an
    ellipsis, the seats' list) with ASCII stand-ins, never UTF-8 bytes."""
    with Env(bindir) as e:
        board = e.board()
        ana = speaker(e, "", "ana", "--server", board.address, "--new", "kalah", locale="C")
        ana.expect(r"^You are ana, seat 0\.$")
        bob = speaker(e, "", "\u00d1o\u00f1o", "--server", board.address, "--game", "1")
        bob.expect(r"^You are \u00d1o\u00f1o, seat 1\.$")
        bob.send("chat h\u00e9llo \u2014 ok\u2026 \u00b1")
        ana.expect(r"^\[chat\] \?o\?o: h\?llo -- ok\.\.\. \+-$")
        ana.send("who")
        ana.expect(r"^  seat 1: \?o\?o")
        bob.send("chat bye")
        ana.expect(r"^\[chat\] \?o\?o: bye$")
        ana.quit()
        bob.quit()
        wide = [l for l in ana.lines if any(ord(c) > 127 for c in l)]
        check(not wide, "the text view wrote other than ASCII under LANG=C:\n" + "\n".join(wide))


TESTS = {"fil": play_in("fil"), "id": play_in("id"), "c_locale": test_c_locale,
         "c_ascii": test_c_ascii, "fil_no_english": test_fil_no_english}

if __name__ == "__main__":
    sys.exit(main(TESTS))
