#!/usr/bin/python3
"""test_games.py — Whole games between people, every kind and seat count, watched
and chatted in.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_games.py BINDIR TEST (ctest runs one process per
test).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
from e2e_util import check_same_ending, final_report, moves_seen  # noqa: E402


def _whole_game(bindir, kind, options, names=("alice", "bob"), seed=1):
    """Players play `kind` to its end with an observer watching from before
    the start; all agree on the result and on every move, and nobody's own
    replay of the moves disagrees with the service."""
    opts = [x for o in options for x in ("--option", o)]
    with Env(bindir) as env:
        board = env.board()
        first = env.player(names[0], "--server", board.address, "--new", kind, *opts)
        game = first.expect(r"Created game (\d+)").group(1)
        watcher = env.player("watcher", "--server", board.address, "--game", game, "--observe")
        watcher.expect(r"^You are observing\.")
        players = [first] + [env.player(n, "--server", board.address, "--game", game)
                             for n in names[1:]]
        Autoplayer(env, players, seed=seed).play_to_end()
        watcher.expect(r"^Game over:")
        everyone = players + [watcher]
        check_same_ending(everyone, ("Game over:", "Scores:", "Winner", "Nobody wins"))
        check(len(moves_seen(first)) >= 5, "suspiciously short game")
        for p in everyone:
            check(not any(l.startswith("WARNING") for l in p.lines),
                  f"{p.name} found the service's board wrong\n" + p.dump())
        for p in everyone:
            p.quit()


def two_players(bindir):
    """Two agents play a whole game; both see the same final scores, and an
    observer that joined before the start sees every move in the same order."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        m = alice.expect(r"Created game (\d+)")
        game = m.group(1)
        alice.expect(r"^You are alice, seat 0\.")
        carol = env.player("carol", "--server", board.address, "--game", game, "--observe")
        carol.expect(r"^You are observing\.")
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^bob joined, seat 1\.")
        Autoplayer(env, [alice, bob], seed=7).play_to_end()
        carol.expect(r"^Game over:")
        a, b, c = final_report(alice), final_report(bob), final_report(carol)
        check(a == b == c, f"final reports differ:\n{a}\n{b}\n{c}")
        check(moves_seen(alice) == moves_seen(bob) == moves_seen(carol),
              "agents saw different move sequences")
        check(len(moves_seen(alice)) > 5, "suspiciously short game")
        scores = [int(x) for x in re.findall(r"\d+", a[0])]
        check(sum(scores) == 2 * 6 * 7, f"stones not conserved in the final scores: {a[0]}")
        for who in (alice, bob, carol):
            check(not any(l.startswith("WARNING") for l in who.lines),
                  f"{who.name} found the service's board wrong\n" + who.dump())
        for who in (alice, bob, carol):
            check(who.quit() == 0, f"{who.name} exited with an error\n" + who.dump())


def whole_congklak(bindir):
    _whole_game(bindir, "congklak", ["first=1"], seed=3)


def whole_kalah(bindir):
    _whole_game(bindir, "kalah", [], seed=4)


def swap_kalah(bindir):
    """Kalah with the pie rule (docs/rules.md §9): the first player has no
    swap; the second is offered it, types it, and everyone sees the board
    turned round with the first player to move; the game then plays to its
    end with nobody's own rules disagreeing with the service's board."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--option", "swap=1")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        turn = alice.expect(r"^Your turn.*Legal: (.+)$").group(1).split()
        check("swap" not in turn, f"the first player was offered a swap: {turn}")
        alice.send("0")                   # 4 seeds to pits 1..4: the turn passes
        turn = bob.expect(r"^Your turn.*Legal: (.+)$").group(1).split()
        check(turn[0] == "swap", f"the second player was not offered a swap: {turn}")
        bob.send("swap")
        for p in (alice, bob):
            p.expect(r"^bob played swap\.$")
        turn = alice.expect(r"^Your turn.*Legal: (.+)$").group(1).split()
        check("swap" not in turn, f"a second swap was offered: {turn}")
        alice.send(turn[0])
        turn = bob.expect(r"^Your turn.*Legal: (.+)$").group(1).split()
        check("swap" not in turn, f"the swap was offered after it was used: {turn}")
        bob.send(turn[-1])
        Autoplayer(env, [alice, bob], seed=5).play_to_end()
        for p in (alice, bob):
            check(not any(l.startswith("WARNING") for l in p.lines),
                  f"{p.name} found the service's board wrong\n" + p.dump())
            p.quit()


def whole_reversi(bindir):
    _whole_game(bindir, "reversi", [], seed=5)


def whole_tictactoe(bindir):
    _whole_game(bindir, "tictactoe", ["size=3", "dims=2"], seed=6)


def tictactoe_4_players(bindir):
    _whole_game(bindir, "tictactoe", ["size=4", "dims=3", "players=4"],
                names=("ann", "ben", "cat", "dan"), seed=7)


def sungka_4_players(bindir):
    _whole_game(bindir, "sungka", ["players=4", "cups=4", "stones=3"],
                names=("ann", "ben", "cat", "dan"), seed=8)


def three_players(bindir):
    """A 3-player game runs to its end; all three agree on the result."""
    with Env(bindir) as env:
        board = env.board()
        opts = ["--option", "players=3", "--option", "cups=4", "--option", "stones=3"]
        p0 = env.player("ann", "--server", board.address, "--new", "sungka", *opts)
        game = p0.expect(r"Created game (\d+)").group(1)
        p1 = env.player("ben", "--server", board.address, "--game", game)
        p1.expect(r"^You are ben, seat 1\.")
        p2 = env.player("cat", "--server", board.address, "--game", game)
        p2.expect(r"^You are cat, seat 2\.")
        Autoplayer(env, [p0, p1, p2], seed=3).play_to_end()
        r = [final_report(p) for p in (p0, p1, p2)]
        check(r[0] == r[1] == r[2], f"final reports differ: {r}")
        scores = [int(x) for x in re.findall(r"\d+", r[0][0])]
        check(sum(scores) == 3 * 4 * 3, f"stones not conserved: {r[0][0]}")
        for p in (p0, p1, p2):
            p.quit()


def two_winners(bindir):
    """Several winners are announced as such: a 3-player game (found by
    search with the rules engine) where two seats tie at the top."""
    with Env(bindir) as env:
        board = env.board()
        opts = ["--option", "players=3", "--option", "cups=3", "--option", "stones=1"]
        ann = env.player("ann", "--server", board.address, "--new", "sungka", *opts)
        game = ann.expect(r"Created game (\d+)").group(1)
        ben = env.player("ben", "--server", board.address, "--game", game)
        ben.expect(r"^You are ben, seat 1\.")       # seats go in join order
        cat = env.player("cat", "--server", board.address, "--game", game)
        players = [ann, ben, cat]
        # seat:cup, in order; ends with homes 4, 4, 1.
        script = [(0, 2), (0, 0), (0, 2), (1, 1), (2, 0), (0, 0), (1, 0)]
        for seat, cup in script:
            players[seat].expect(r"^Your turn")
            players[seat].send(str(cup))
            players[seat].expect(rf"^\S+ played cup {cup}\.")
        for p in players:
            p.expect(r"^Game over: ann and ben share the win\.")
            p.expect(r"^Scores: ann 4, ben 4, cat 1$")
            p.expect(r"^Winners: ann, ben$")
        for p in players:
            p.quit()


def hot_seat(bindir):
    """Hot seat (seed 003): one agent holds both seats and always moves for
    the seat whose turn it is; a whole game plays to its end."""
    with Env(bindir) as env:
        board = env.board()
        duo = env.player("ann", "--server", board.address, "--new", "sungka", "--hot-seat", "ben",
                         "--option", "cups=4", "--option", "stones=3")
        duo.expect(r"^You are ann, seat 0, and ben, seat 1 \(hot seat\)\.")
        duo.expect(r"^The game starts")
        Autoplayer(env, [duo], seed=11).play_to_end()
        moves = moves_seen(duo)
        check(any(l.startswith("ann ") for l in moves) and any(l.startswith("ben ") for l in moves),
              "both seats must have moved")
        check(duo.quit() == 0, "hot seat did not exit cleanly")


def late_observer(bindir):
    """An observer arriving mid-game gets the whole state at once."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "cups=4", "--option", "stones=3")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^Your turn")
        alice.send("0")
        bob.expect(r"^alice played cup 0\.")
        dave = env.player("dave", "--server", board.address, "--game", game, "--observe")
        dave.expect(r"^You are observing\.")
        dave.expect(r"seat 0: alice")
        dave.expect(r"seat 1: bob")
        # alice's cup 0 sows cups 1..3 (4 4 4); cup 3 was not empty, so its 4
        # stones relay: alice's home, then bob's cups 0..2, ending there.
        # alice's row (nearest an observer): 0 4 4 0, home 1; bob's: 4 4 4 3.
        dave.expect(r"^\s+\[\s+3\]\[\s+4\]\[\s+4\]\[\s+4\]")
        dave.expect(r"^\[\s+0\]\s+\[\s+1\]")
        dave.expect(r"^\s+\[\s+0\]\[\s+4\]\[\s+4\]\[\s+0\]")
        for p in (alice, bob, dave):
            p.quit()


def private_chat(bindir):
    """tell NAME TEXT reaches only NAME (and is kept for NAME's return), not
    the others, not a late observer; chat to all reaches everyone."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        olga = env.player("olga", "--server", board.address, "--game", game, "--observe")
        olga.expect(r"^You are observing\.")
        bob.expect(r"^You are bob, seat 1\.")
        alice.send("tell bob psst, bob")
        bob.expect(r"^\[alice to bob\] psst, bob")
        alice.expect(r"^\[alice to bob\] psst, bob")
        alice.send("tell nobody hello")
        alice.expect(r"^Refused: nobody called 'nobody' is in this game")
        alice.send("chat to all")
        for p in (alice, bob, olga):
            p.expect(r"^\[chat\] alice: to all")
        late = env.player("lena", "--server", board.address, "--game", game, "--observe")
        late.expect(r"^You are observing\.")
        late.send("chat hi")            # a spectator, while the game runs: spectators only
        olga.expect(r"^\[spectators\] lena: hi")
        for p in (olga, late):
            check(not any("psst" in l for l in p.lines), f"{p.name} saw a private message")
        check(not any("lena: hi" in l for l in alice.lines), "alice read a spectator")
        for p in (alice, bob, olga, late):
            p.quit()


TESTS = {f.__name__: f for f in (
    two_players, whole_congklak, whole_kalah, swap_kalah, whole_reversi, whole_tictactoe, tictactoe_4_players, sungka_4_players, three_players, two_winners, hot_seat, late_observer, private_chat)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
