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
         "c_ascii": test_c_ascii}

if __name__ == "__main__":
    sys.exit(main(TESTS))
