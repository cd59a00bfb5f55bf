#!/usr/bin/python3
"""test_lobby.py — The lobby, the private service of a one-command game, and the
text view in a real terminal.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_lobby.py BINDIR TEST (ctest runs one process per
test).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402


def lobby(bindir):
    """The lobby: list and filter games; create with options from the view;
    join by id; ready and start; sit and stand; any open game of a kind."""
    with Env(bindir) as env:
        board = env.board()
        ann = env.player("ann", "--server", board.address, ready=False)
        ann.expect(r"^You are in the lobby")
        ann.send("games")
        ann.expect(r"^No games\. Start one with: new KIND")
        ann.send("new kalah cups=4 stones=3")
        ann.expect(r"^Created game (\d+)\.")
        ann.expect(r"^You are ann, seat 0\.")
        ann.send("new chess")
        ann.expect(r"^unknown game kind 'chess'")
        ann.send("new kalah cups=40")
        ann.expect(r"cups must be 3\.\.8, not 40")
        ben = env.player("ben", "--server", board.address, ready=False)
        ben.send("games kalah")
        ben.expect(r"^Game 1: .*\(kalah cups=4 stones=3 swap=0\), waiting; seats: \[ann\] \[open\]; 0 watching")
        ben.send("games sungka")
        ben.expect(r"^No games of sungka")
        ben.send("games running")
        ben.expect(r"^No running games\.")
        ben.send("waiting games kalah")
        ben.expect(r"^Unknown command 'waiting'")
        ben.send("games waiting kalah")
        ben.expect(r"^Game 1: .*waiting")
        ben.send("watch 1")
        ben.expect(r"^You are observing\.")
        ann.expect(r"^1 person is watching\.")   # observers are counted, not named
        ben.send("sit 0")
        ben.expect(r"^Refused: seat 0 is taken by ann")
        ben.send("sit")
        ann.expect(r"^ben sits down at seat 1\.")
        ben.expect(r"^ben sits down at seat 1\.")
        ann.send("ready")
        ben.expect(r"^ann is ready\.")
        ben.send("stand")
        ann.expect(r"^ben stands up from seat 1 and watches\.")
        ben.send("sit 1")
        ben.send("ready")
        ann.expect(r"^ben is ready\.")
        ann.expect(r"^The game starts; ann moves first\.")
        ben.send("stand")
        ben.expect(r"^Refused: the game has started")
        ann.send("who")
        ann.expect(r"seat 1: ben")
        # --any: the first joins a game of kalah with an open seat or makes one.
        cy = env.player("cy", "--server", board.address, "--any", "sungka")
        cy.expect(r"^You are cy, seat 0\.")
        di = env.player("di", "--server", board.address, "--any", "sungka")
        di.expect(r"^You are di, seat 1\.")
        cy.expect(r"^The game starts")
        for p in (ann, ben, cy, di):
            p.quit()


def private_service(bindir):
    """Without --server the agent starts its own service on loopback and stops
    it when it leaves; --help works on both programs."""
    with Env(bindir) as env:
        for prog in ("sungka-board", "sungka-player"):
            h = env.player("help", "--help") if prog == "sungka-player" else None
            if h is None:
                from harness import Proc
                h = Proc(prog, [os.path.join(bindir, prog), "--help"])
                env.procs.append(h)
            h.expect(r"^Usage: " + prog)
            check(h.wait_exit() == 0, f"{prog} --help failed")
        solo = env.player("solo", "--new", "sungka", "--option", "cups=3")
        solo.expect(r"^You are solo, seat 0\.")
        solo.expect(r"seat 1: seat 1\s+\(open\)")
        check(solo.quit() == 0, "solo did not exit cleanly\n" + solo.dump())
        bad = env.player("x", "--new", "sungka", "--option", "cups=99")
        check(bad.wait_exit() != 0, "a bad option must fail")
        check(any("cups" in l for l in bad.err_lines), "the error must name the option")


def terminal(bindir):
    """The text view in a real terminal (tmux): it draws, takes keys, plays."""
    import shutil
    import subprocess
    tmux = shutil.which("tmux")
    check(tmux is not None, "tmux is not installed")
    sock = f"sungka-e2e-{os.getpid()}"

    def tm(*args):
        return subprocess.run([tmux, "-L", sock, *args], check=True, capture_output=True,
                              text=True, timeout=10).stdout

    def screen_has(pattern, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = tm("capture-pane", "-p", "-t", "t")
            if re.search(pattern, screen, re.M):
                return screen
            time.sleep(0.1)
        raise Failure(f"the terminal never showed /{pattern}/:\n{screen}")

    with Env(bindir) as env:
        board = env.board()
        player = os.path.join(bindir, "sungka-player")
        try:
            tm("new-session", "-d", "-s", "t", "-x", "120", "-y", "40",
               f"{player} --server {board.address} --name alice --new sungka --ready "
               f"--state-dir {env.state_dir}; sleep 30")
            screen_has(r"You are alice, seat 0")
            screen_has(r"^\s+0\s+1\s+2\s+3\s+4\s+5\s+-> alice \(you\)")
            bob = env.player("bob", "--server", board.address, "--game", "1")
            bob.expect(r"^You are bob")
            screen_has(r"Your turn: choose a cup 0\.\.5")
            tm("send-keys", "-t", "t", "1", "Enter")
            bob.expect(r"^alice played cup 1\.")
            screen_has(r"alice played cup 1")
            tm("send-keys", "-t", "t", "chat hi bob", "Enter")
            bob.expect(r"^\[chat\] alice: hi bob")
            tm("send-keys", "-t", "t", "quit", "Enter")
            screen_has(r"Leaving now loses the game, as resigning does")
            tm("send-keys", "-t", "t", "quit", "Enter")
            bob.expect(r"^alice is out of the game: quit\.")
            screen_has(r"You left game 1")
            bob.quit()
        finally:
            subprocess.run([tmux, "-L", sock, "kill-server"], capture_output=True, timeout=10)


TESTS = {f.__name__: f for f in (
    lobby, private_service, terminal)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
