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
import subprocess
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


def _service_english(root):
    """The sentences the service and the agent write in English (their C
    sources' string literals of three words or more), as regular expressions
    found anywhere in a line: what a translated session must never show."""
    import glob
    import re
    found = []
    files = sorted(glob.glob(os.path.join(root, "board-service", "*.c")) +
                   glob.glob(os.path.join(root, "player-agent", "agent*.c")) +
                   glob.glob(os.path.join(root, "games", "*.c")))
    for path in files:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)     # comments aside
        for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
            words = re.sub(r"%[-+ #0-9.*]*[a-zA-Z]+", " ", lit)
            if len(re.findall(r"[A-Za-z]{2,}", words)) < 3 or not re.search(r"[a-z] [a-z]", lit):
                continue
            parts = [p for p in re.split(r"%[-+ #0-9.*]*(?:l{0,2}|z)[a-zA-Z]", lit)]
            parts = [p.replace("\\n", "").replace('\\"', '"') for p in parts]
            if max(len(p.strip()) for p in parts) < 8:
                continue           # no run of English long enough to be a sentence
            found.append((f"{os.path.basename(path)}: {lit}",
                          re.compile(".*".join(re.escape(p) for p in parts if p))))
    return found


def whole_session(lang):
    """The done-when of issue 34 (a session in LANG shows no English sentence
    from the agent or the service): ana, in LANG, makes every kind of
    mistake and meets every kind of ending against bob and carol, who read
    English: a new game of an unknown kind, with a bad option and a bad
    clock; a join of a game that does not exist; a move the rules refuse
    before it is sent; commands the service refuses (an answer to a draw
    nobody offered, a claim with nobody gone, a second draw offer); a draw
    offer declined; resigning; a rematch that bob quits; a game aborted by
    the clock. Then no line of hers is one of the views' English msgids
    (each is translated) nor one of the service's or the agent's English
    sentences (their C sources' literals). Her expected lines are the
    catalog's own translations (gettext), so the test speaks any language."""
    def test(bindir):
        import gettext
        import re
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        tr = gettext.translation("sungka", os.path.join(bindir, "..", "share", "locale"),
                                 languages=[lang]).gettext

        def said(msgid, *args):
            """msgid's translation as a regex: each directive an argument given
            (re-escaped) or, past them, anything."""
            if tr(msgid) == msgid and not msgid.endswith("\n"):
                msgid += "\n"         # the text view's line, with its newline
            text = tr(msgid).rstrip("\n")
            check(text != msgid.rstrip("\n"), f"{lang}: no translation of {msgid!r}")
            parts = re.split(r"%[-+ #0-9.]*[sdu]", text)
            out = re.escape(parts[0])
            for i, p in enumerate(parts[1:]):
                out += (re.escape(str(args[i])) if i < len(args) else ".*") + re.escape(p)
            return out

        english = _english_sentences(os.path.join(bindir, "..", "po", "sungka.pot"))
        service = _service_english(root)
        check(len(service) > 100, f"too few of the service's sentences read from {root}")
        with Env(bindir) as e:
            board = e.board("--first-move-time", "1")
            ana = speaker(e, lang, "ana", "--server", board.address)
            ana.expect("^" + said("Connected. Type help for commands."))
            ana.send("new nosuch")
            ana.expect("^" + said("There is no game kind '%s'. The kinds:", "nosuch"))
            ana.send("new kalah cups=99")
            ana.expect("^" + said("'%s' is not an option of this kind of game, or its value "
                                  "is out of range.", "cups=99"))
            ana.send("new kalah clock=xyz")
            ana.expect("^" + said("'%s' is not a clock: write MINUTES+SECONDS (5+3), MINUTES "
                                  "(10), SECONDS/move (30/move) or none.", "xyz"))
            ana.send("join 999")
            ana.expect("^" + said("There is no such game, match or player.") + "$")
            ana.send("new kalah")
            game = ana.expect("^" + said("Created game %s.\n").replace(".*", r"(\d+)", 1)).group(1)
            bob = e.player("bob", "--server", board.address, "--game", game)
            ana.send("ready")
            first = bob.expect(r"^The game starts; (\S+) moves first\.").group(1)
            ana.expect("^" + said("The game starts; %s moves first.", first))
            ana.send("9")              # no cup 9 (or not her turn): refused before sending
            ana.expect("^" + said("Refused: %s (checked here, not sent).\n"))
            refused = "^" + said("Refused: %s")
            ana.send("accept")         # the service: NO_OFFER
            ana.expect(refused + re.escape(tr("Nobody has offered you that.")))
            ana.send("claim")          # the service: WRONG_STATE
            ana.expect(refused + re.escape(tr("That cannot be done at this point of the game.")))
            ana.send("draw")
            bob.expect(r"^ana offers a draw: type accept or decline\.")
            ana.send("draw")           # the service: OFFER_PENDING
            ana.expect(refused + re.escape(tr("Your offer is open: wait for the others to "
                                              "answer.")))
            bob.send("decline")
            ana.expect("^" + said("%s declines the draw.", "bob"))
            ana.send("resign")
            ana.send("resign")
            bob.expect(r"^Game over: ana resigned")
            ana.expect("^" + said("Game over: %s.") .replace(".*", said("%s resigned", "ana"), 1))
            ana.send("rematch")
            bob.expect(r"^ana wants a rematch")
            bob.send("rematch")
            bob.expect(r"^The rematch starts: game (\d+)\.")
            bob.expect(r"^(Your turn|Waiting for ana to move)")   # it runs
            ana.expect("^" + said("The rematch starts: game %s."))
            ana.expect("^" + said("You are %s, seat %d.", "ana"))
            bob.quit()                 # leaves the running rematch: out, and it ends
            ana.expect("^" + said("Game over: %s.").replace(".*", said("%s quit the game", "bob"),
                                                            1))
            ana.send("new kalah clock=5+3")
            clocked = ana.expect("^" + said("Created game %s.\n").replace(".*", r"(\d+)", 1)
                                 ).group(1)
            carol = e.player("carol", "--server", board.address, "--game", clocked)
            ana.send("ready")
            carol.expect(r"^Game over: \S+ made no first move in time", timeout=10)
            ana.expect("^" + said("Game over: %s.").replace(
                ".*", said("%s made no first move in time; the game is aborted"), 1))
            carol.quit()
            ana.quit()
            lines = [l for l in ana.lines if l.strip()]
            for line in lines:
                for msgid, rx in english:
                    check(not rx.search(line), f"English in {lang}: {line!r} (msgid {msgid!r})\n"
                                               + ana.dump())
                for lit, rx in service:
                    check(not rx.search(line), f"the service's English in {lang}: {line!r} "
                                               f"({lit!r})\n" + ana.dump())
            print(f"{len(lines)} lines in {lang}, none of {len(english)} msgids in English nor "
                  f"of {len(service)} sentences of the service's and the agent's")
            # The same mistakes made on the command line: said in her language
            # too (they were the agent's English before).
            env = dict(e.env, LANGUAGE=lang, LANG="C.UTF-8")
            for k in ("LC_ALL", "LC_MESSAGES"):
                env.pop(k, None)
            for args, msgid, arg in (
                    (["--new", "nosuch"], "There is no game kind '%s'. The kinds:", "nosuch"),
                    (["--new", "kalah", "--option", "cups=99"],
                     "'%s' is not an option of this kind of game, or its value is out of range.",
                     "cups=99"),
                    (["--new", "kalah", "--clock", "xyz"],
                     "'%s' is not a clock: write MINUTES+SECONDS (5+3), MINUTES (10), "
                     "SECONDS/move (30/move) or none.", "xyz")):
                r = subprocess.run([os.path.join(bindir, "sungka-player"), "--server",
                                    board.address, "--name", "ana", "--state-dir",
                                    e.state_dir] + args, env=env,
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   timeout=30)
                check(r.returncode != 0 and re.search(said(msgid, arg), r.stderr),
                      f"sungka-player {' '.join(args)} in {lang} said {r.stderr!r}")
    return test


TESTS = {"fil": play_in("fil"), "id": play_in("id"), "c_locale": test_c_locale,
         "c_ascii": test_c_ascii, "fil_no_english": test_fil_no_english,
         "fil_session": whole_session("fil"), "id_session": whole_session("id")}

if __name__ == "__main__":
    sys.exit(main(TESTS))
