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
from e2e_util import clocks, final_report, line_after  # noqa: E402


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
        for p in (ann, ben, cat):     # (the lines before it are the Autoplayer's)
            p.wait_for(r"^ben is out of the game: resigned\.")
        auto.agents = [ann, cat]     # the same player: it knows which moves are in flight
        auto.play_to_end()
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
    once both have moved, abort is refused and says to resign. The agent
    sends its abort on the seat's Play stream (with its moves), not as the
    Abort call that could overtake a move: the service counts it there."""
    from test_metrics import metrics_port, wait_value
    with Env(bindir) as env:
        board = env.board("--metrics", "127.0.0.1:0")
        port = metrics_port(board)
        game, alice, bob = _two(env, board)
        bob.send("abort")
        for p in (alice, bob):
            p.expect(r"^Game over: bob aborted the game\.")
        wait_value(port, ("sungka_play_commands_total", 'command="abort"'), 1)
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
        wait_value(port, ("sungka_play_commands_total", 'command="abort"'), 2)
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


def flag_falls(bindir):
    """A game of 5 s a move: both move once, then whoever is to move does
    not; the clock falls and the other wins. Every turn line shows the
    clocks."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "kalah", "--clock",
                           "5/move")
        game = alice.expect(r"Created game (\d+)").group(1)
        alice.expect(r"^Clock: 5 s a move\.")
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^The game starts")
        mark = alice.cursor           # the turn prompt after it is the Autoplayer's
        left, running = clocks(alice.expect(r"^Clocks: ").string)
        alice.cursor = mark
        check(left == {"alice": 5, "bob": 5} and running in ("alice", "bob"),
              f"clocks at the start: {left}, {running} running")
        auto = Autoplayer(env, [alice, bob], seed=11)
        while not all(any(l.startswith(f"{n} played") for l in alice.lines)
                      for n in ("alice", "bob")):
            auto.play_moves(1)
        m = alice.expect(r"^(alice|bob) is out of the game: ran out of time\.", timeout=10)
        loser = m.group(1)
        winner = "bob" if loser == "alice" else "alice"
        for p in (alice, bob):
            p.wait_for(rf"^Game over: {loser} ran out of time; {winner} wins\.")
        for p in (alice, bob):
            p.quit()


def no_first_move(bindir):
    """In a game with clocks, a player who never makes a first move within
    --first-move-time has the game aborted, with no result."""
    with Env(bindir) as env:
        board = env.board("--first-move-time", "1")
        alice = env.player("alice", "--server", board.address, "--new", "kalah", "--clock", "5+3")
        game = alice.expect(r"Created game (\d+)").group(1)
        alice.expect(r"^Clock: 5:00 for the game, plus 3 s a move\.")
        bob = env.player("bob", "--server", board.address, "--game", game)
        for p in (alice, bob):
            p.expect(r"^Game over: (alice|bob) made no first move in time; the game is "
                     r"aborted\.", timeout=10)
            p.quit()


def clocks_survive_restart(bindir):
    """kill -9 of the service mid-game: after it restarts the clocks go on
    from where the last move left them; the 4 s the service was down are
    charged to nobody."""
    import time
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "clock.db")
        board = env.board("--db", db)
        alice = env.player("alice", "--server", board.address, "--new", "kalah", "--clock", "1+0")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^The game starts")
        Autoplayer(env, [alice, bob], seed=2).play_moves(2)
        before, running = clocks(line_after(alice, r"^bob played", r"^Clocks: "))
        check(running == "alice", f"alice's clock should run: {before}, {running}")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        time.sleep(4)                               # the service is down for 4 s
        restarted = time.monotonic()                # alice's clock runs from after this
        env.board("--db", db, port=board.port)
        alice.wait_for(r"^Reconnected to ", timeout=20)
        # After the restart alice's clock runs again from where bob's move
        # left it (her thinking before the kill is not charged either): so
        # she has `before` less the time since the restart, give or take the
        # display's rounding. Downtime charged would leave her 4 s shorter.
        # The pings bring the service's clocks to the agent within a ping
        # interval; until then it may count on from before the kill.
        deadline = time.monotonic() + 10
        while True:
            alice.cursor = len(alice.lines)
            alice.send("board")
            after, running_after = clocks(alice.expect(r"^Clocks: ").string)
            expected = before["alice"] - (time.monotonic() - restarted)
            if after["alice"] >= expected - 1.5 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        check(running_after == "alice" and after["bob"] == before["bob"] and
              after["alice"] >= expected - 1.5,
              f"clocks before the kill {before} (alice running), after {after} "
              f"({running_after} running), alice expected about {expected:.1f} s\n" +
              alice.dump())
        for p in (alice, bob):
            p.quit()


def spectators_chat(bindir):
    """While the game runs, spectators talk among themselves: players do not
    read them (nobody watching can coach), not even privately; the players'
    chat reaches everyone. Once the game is over, everyone reads everyone."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _two(env, board)
        olga = env.player("olga", "--server", board.address, "--game", game, "--observe")
        pete = env.player("pete", "--server", board.address, "--game", game, "--observe")
        for p in (olga, pete):
            p.expect(r"^You are observing\.")
        olga.send("chat play cup 3!")
        pete.expect(r"^\[spectators\] olga: play cup 3!")
        olga.send("tell alice play cup 3")
        olga.expect(r"^Refused: players cannot read spectators while the game runs")
        alice.send("chat good luck")
        for p in (bob, olga, pete):
            p.expect(r"^\[chat\] alice: good luck")
        alice.send("resign")
        alice.send("resign")
        for p in (alice, bob, olga):
            p.expect(r"^Game over:")
        olga.send("chat well played")
        for p in (alice, bob):
            p.expect(r"^\[chat\] olga: well played")
        for p in (alice, bob):
            check(not any("cup 3" in l for l in p.lines),
                  f"{p.name} read the spectators:\n" + p.dump())
        for p in (alice, bob, olga, pete):
            p.quit()


def moves_and_export(bindir):
    """moves lists this game's moves so far; export writes a finished match
    down — reversi as the standard Othello transcript, every move's cell run
    together — on the screen or into a file."""
    import re
    with Env(bindir) as env:
        board = env.board("--db", os.path.join(env.state_dir, "x.db"))
        game, alice, bob = _two(env, board, kind="reversi")
        auto = Autoplayer(env, [alice, bob], seed=4)
        auto.play_moves(3)
        alice.wait_for(r"^bob played")
        alice.cursor = len(alice.lines)
        alice.send("moves")
        first = alice.expect(r"^  1\. (alice|bob) ([a-h][1-8])$")
        check(first.group(2) in ("d3", "c4", "f5", "e6"), f"first move {first.group(2)}")
        auto.play_to_end()
        played = [l.split()[-1].rstrip(".") for l in alice.lines
                  if re.match(r"^(alice|bob) played cell ", l)]
        alice.cursor = len(alice.lines)
        alice.send(f"export {game}")
        alice.expect(rf"^# Sungka match {game}: .*\(reversi size=8\)")
        alice.expect(r"^# Seats: 0 alice, 1 bob")
        line = alice.expect(r"^([a-h][1-8])+$").group(0)
        check(line == "".join(played), f"transcript {line}, played {''.join(played)}")
        path = os.path.join(env.state_dir, "game.txt")
        alice.send(f"export {game} {path}")
        alice.expect(rf"^Match {game} written to ")
        with open(path) as f:
            check(f.read().splitlines()[-1] == line, "the file's transcript differs")
        for p in (alice, bob):
            p.quit()


def give_time(bindir):
    """Lichess's "give 15 seconds" (GiveTime): in a clocked game alice gives
    bob 15 s — both are told, bob's clock shows about 15 s more than it had
    and alice's nothing more; a second give within 5 s is refused, as is a
    give in a game without clocks. The event is logged: a resumed view and
    the replay check (SUNGKA_CHECK_REPLAY) see the same clocks."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "kalah", "--clock", "1+0")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^The game starts")
        bob.expect(r"^The game starts")
        alice.cursor = len(alice.lines)
        alice.send("board")
        before, _ = clocks(alice.expect(r"^Clocks: ").string)
        alice.send("give")
        for p in (alice, bob):
            p.expect(r"^alice gives the other players 15 seconds\.")
        alice.cursor = len(alice.lines)
        alice.send("board")
        after, _ = clocks(alice.expect(r"^Clocks: ").string)
        check(after["bob"] >= before["bob"] + 13 and after["alice"] <= before["alice"],
              f"clocks before {before}, after giving bob 15 s {after}")
        alice.send("give")                           # within 5 s: LIMIT_REACHED
        alice.expect(r"^Refused: .*once every 5 seconds", timeout=10)
        # The service's clocks, not only the agent's: after a move (which
        # sets the clocks from the service's own) bob still has the 15 s.
        alice.send("2")                              # kalah: 4 seeds from cup 2, no extra turn
        bob.expect(r"^alice played")
        alice.cursor = len(alice.lines)
        alice.send("board")
        moved, _ = clocks(alice.expect(r"^Clocks: ").string)
        check(moved["bob"] >= before["bob"] + 10,
              f"clocks before {before}, after the gift and a move {moved}")
        for p in (alice, bob):
            p.quit()
        # Without clocks there is nothing to give.
        carol = env.player("carol", "--server", board.address, "--new", "kalah")
        game = carol.expect(r"Created game (\d+)").group(1)
        dave = env.player("dave", "--server", board.address, "--game", game)
        carol.expect(r"^The game starts")
        dave.expect(r"^The game starts")
        carol.send("give")
        carol.expect(r"^Refused: ")
        for p in (carol, dave):
            p.quit()


TESTS = {f.__name__: f for f in (
    resign_two, resign_three, draw_agreed, abort_early, offer_survives_restart, flag_falls,
    no_first_move, clocks_survive_restart, spectators_chat, moves_and_export, give_time)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
