#!/usr/bin/python3
"""test_bots.py — Computer players: the bot view at every kind, and the service's
own bots.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_bots.py BINDIR TEST (ctest runs one process per
test).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402


def _bot_game(bindir, kind, options, levels):
    """Two bot views of the given levels play a whole game; each prints one
    result line and exits 0, and an observer sees the same end."""
    opts = [x for o in options for x in ("--option", o)]
    with Env(bindir) as env:
        board = env.board()
        one = env.player("bot-a", "--server", board.address, "--new", kind, *opts,
                         "--view", "bot", "--level", str(levels[0]), "--think", "30")
        board.expect_stderr(r"game 1: bot-a joined", timeout=15)
        watcher = env.player("watcher", "--server", board.address, "--game", "1", "--observe")
        watcher.expect(r"^You are observing\.")
        two = env.player("bot-b", "--server", board.address, "--game", "1",
                         "--view", "bot", "--level", str(levels[1]), "--think", "30")
        results = [b.expect(r"^Result: (.*)$", timeout=150).group(1) for b in (one, two)]
        check(results[0] == results[1], f"the bots disagree: {results}")
        for b in (one, two):
            check(b.wait_exit() == 0, f"{b.name} exited with an error\n" + b.dump())
            check(not any("illegal" in l or "refused" in l for l in b.err_lines),
                  f"{b.name} tried an illegal move\n" + b.dump())
        over = watcher.expect(r"^Game over: (.*)\.$").group(1)
        check(results[0].startswith(over), f"the watcher saw '{over}', the bots '{results[0]}'")
        watcher.quit()


def bots_sungka(bindir):
    _bot_game(bindir, "sungka", ["cups=5", "stones=4"], (1, 10))


def bots_congklak(bindir):
    _bot_game(bindir, "congklak", ["cups=5", "stones=4"], (2, 9))


def bots_kalah(bindir):
    _bot_game(bindir, "kalah", [], (3, 8))


def bots_swap(bindir):
    """Congklak with the pie rule: the swap is a move the bots may choose
    (a negative number, which the bot view must not take for "no move")."""
    _bot_game(bindir, "congklak", ["cups=5", "stones=4", "first=0", "swap=1"], (4, 9))


def bots_reversi(bindir):
    _bot_game(bindir, "reversi", ["size=6"], (4, 7))


def bots_tictactoe(bindir):
    _bot_game(bindir, "tictactoe", ["size=4", "dims=3"], (5, 6))


def service_bots(bindir):
    """--bots N: the service seats its own computer players; a person plays
    kalah against one, and three-player sungka with two, to the end."""
    with Env(bindir) as env:
        board = env.board("--bot-think", "20")
        me = env.player("me", "--server", board.address, "--new", "kalah", "--bots", "1")
        me.expect(r"^You are me, seat 0\.")
        # The service seats its bots as it creates the game: the snapshot
        # already shows them.
        me.expect(r"^bot-1 sits down at seat 1\.|bot-1 joined|^  seat 1: bot-1 ", timeout=20)
        Autoplayer(env, [me], seed=9).play_to_end()
        me.expect(r"^Scores: me \d+, bot-1 \d+")
        me.send("new sungka players=3 cups=3 stones=2 bots=2 bot-level=3")
        me.expect(r"^Created game (\d+)\.")
        me.expect(r"^The game starts", timeout=20)
        Autoplayer(env, [me], seed=10).play_to_end()
        me.expect(r"^Scores: me \d+, bot-1 \d+, bot-2 \d+")
        me.send("new kalah bots=2")
        me.expect(r"^cannot create the game: bots can fill at most 1 of the 2 seats")
        check(me.quit() == 0, "me did not exit cleanly")


TESTS = {f.__name__: f for f in (
    bots_sungka, bots_congklak, bots_kalah, bots_swap, bots_reversi, bots_tictactoe, service_bots)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
