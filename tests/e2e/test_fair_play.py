#!/usr/bin/python3
"""test_fair_play.py — Leaving a game the fair way (docs/rules.md, "Leaving a
game"): resigning, with two players and with more; agreeing a draw; aborting
before everyone has moved; and all of it after a restart of the service.

Real sungka-board and sungka-player processes on loopback, driven through the
text view as a person would. Usage: test_fair_play.py BINDIR TEST.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
from e2e_util import final_report  # noqa: E402


def _two(env, board, kind="kalah"):
    alice = env.player("alice", "--server", board.address, "--new", kind)
    game = alice.expect(r"Created game (\d+)").group(1)
    bob = env.player("bob", "--server", board.address, "--game", game)
    for p in (alice, bob):
        p.expect(r"^The game starts")
    return game, alice, bob


def resign_two(bindir):
    """resign asks once more, then the other player wins; both agents and
    the statistics say so."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _two(env, board)
        Autoplayer(env, [alice, bob], seed=5).play_moves(2)
        alice.send("resign")
        alice.expect(r"^Type resign again to give up this game\.")
        alice.send("resign")
        for p in (alice, bob):
            p.expect(r"^alice is out of the game: resigned\.")
            p.expect(r"^Game over: alice resigned; bob wins\.")
            p.expect(r"^Winner: bob")
        alice.send("stats alice")
        alice.expect(r"alice: 1 played, 0 won, 1 lost")
        alice.send("resign")
        alice.expect(r"^You are not playing a running game\.")
        for p in (alice, bob):
            p.quit()


def resign_three(bindir):
    """In a game of three, a player who resigns is out and the others play
    on to the end: the resigned player's turns are skipped, and the winners
    are among those left."""
    with Env(bindir) as env:
        board = env.board()
        opts = ["--option", "players=3", "--option", "cups=4", "--option", "stones=3"]
        ann = env.player("ann", "--server", board.address, "--new", "sungka", *opts)
        game = ann.expect(r"Created game (\d+)").group(1)
        ben = env.player("ben", "--server", board.address, "--game", game)
        cat = env.player("cat", "--server", board.address, "--game", game)
        auto = Autoplayer(env, [ann, ben, cat], seed=7)
        auto.play_moves(3)
        ben.send("resign")
        ben.send("resign")
        for p in (ann, ben, cat):
            p.expect(r"^ben is out of the game: resigned\.")
        Autoplayer(env, [ann, cat], seed=8).play_to_end()
        r = [final_report(p) for p in (ann, cat)]
        check(r[0] == r[1], f"final reports differ: {r}")
        check("ben" not in r[0][1], f"ben resigned but is among the winners: {r[0][1]}")
        played_after = [l for l in ben.lines[ben.lines.index("ben is out of the game: "
                                                            "resigned."):]
                        if l.startswith("ben played")]
        check(not played_after, f"ben moved after resigning: {played_after}")
        for p in (ann, ben, cat):
            p.quit()


def draw_agreed(bindir):
    """alice offers a draw, bob declines; she may not offer again until she
    has moved; then bob offers and she accepts: a draw for both."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _two(env, board)
        alice.send("draw")
        alice.expect(r"^You offer a draw\.")
        bob.expect(r"^alice offers a draw: type accept or decline\.")
        bob.send("decline")
        alice.expect(r"^bob declines the draw\.")
        alice.send("draw")
        alice.expect(r"^Refused: you offered a draw already; you may again after your next "
                     r"move")
        bob.send("draw")
        alice.expect(r"^bob offers a draw: type accept or decline\.")
        alice.send("accept")
        for p in (alice, bob):
            p.expect(r"^Game over: bob and alice agreed a draw\.")
            p.expect(r"^Nobody wins: a draw\.")
        bob.send("stats bob")
        bob.expect(r"bob: 1 played, 0 won, 0 lost, 1 drawn")
        for p in (alice, bob):
            p.quit()


def abort_early(bindir):
    """Before both have moved, either may abort: no result, no statistics;
    once both have moved, abort is refused and says to resign."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _two(env, board)
        bob.send("abort")
        for p in (alice, bob):
            p.expect(r"^Game over: bob aborted the game\.")
        bob.send("stats bob")
        bob.expect(r"^bob: 0 played, 0 won, 0 lost, 0 drawn")
        for p in (alice, bob):
            p.quit()
        game, alice, bob = _two(env, board)
        auto = Autoplayer(env, [alice, bob], seed=3)
        while not all(any(l.startswith(f"{n} played") for l in alice.lines)
                      for n in ("alice", "bob")):
            auto.play_moves(1)
        alice.send("abort")
        alice.expect(r"^Refused: every player has moved: too late to abort \(resign instead\)")
        for p in (alice, bob):
            p.quit()


def offer_survives_restart(bindir):
    """The service is killed with a draw offer open; after its restart the
    offer is still open and accepting it ends the game in a draw."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "fair.db")
        board = env.board("--db", db)
        game, alice, bob = _two(env, board)
        alice.send("draw")
        bob.expect(r"^alice offers a draw")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        env.board("--db", db, port=board.port)
        for p in (alice, bob):
            p.wait_for(r"^Reconnected to ", timeout=20)
        bob.send("accept")
        for p in (alice, bob):
            p.expect(r"^Game over: alice and bob agreed a draw\.")
            p.quit()


TESTS = {f.__name__: f for f in (
    resign_two, resign_three, draw_agreed, abort_early, offer_survives_restart)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
