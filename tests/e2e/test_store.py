#!/usr/bin/python3
"""test_store.py — What the service keeps: statistics and history, unfinished
games after a crash, a store that refuses, a database that is not ours.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_store.py BINDIR TEST (ctest runs one process per
test).
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
from e2e_util import moves_seen  # noqa: E402


def stats_and_history(bindir):
    """Statistics after a win, a loss and an abandoned game; the history lists
    the match and the replay steps through exactly the moves that were played."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--option", "cups=4", "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^You are bob, seat 1\.")
        Autoplayer(env, [alice, bob], seed=12).play_to_end()
        result = alice.expect(r"^(Winners?: .*|Nobody wins.*)$").group(1)
        played = moves_seen(alice)
        # an abandoned game: counts for nobody
        alice.send("new sungka")
        alice.expect(r"^Created game (\d+)\.")
        carol = env.player("carol", "--server", board.address, "--game", str(int(game) + 1))
        carol.expect(r"^Your turn|^Waiting for alice")
        carol.quit()
        alice.expect(r"^Game over: carol quit")
        alice.send("stats")
        st = alice.expect(r"^alice: (\d+) played, (\d+) won, (\d+) lost, (\d+) drawn")
        check(st.group(1) == "1", f"alice played {st.group(1)}, wanted 1 (abandoned games do not count)")
        bob.send("stats carol")
        bob.expect(r"^carol: 0 played, 0 won, 0 lost, 0 drawn; streak 0, best 0\.")
        won = {"Winner: alice": ("1", "0"), "Winner: bob": ("0", "1")}.get(result, ("0", "0"))
        check((st.group(2), st.group(3)) == won, f"alice's record {st.groups()} after '{result}'")
        # Guests are never ranked (issue 15): only accounts are.
        bob.send("leaderboard")
        bob.expect(r"^Nobody has finished a game yet\.")
        bob.send(f"history alice kalah")
        bob.expect(rf"^Match {game}: kalah, {len(played)} moves: alice \d+, bob \d+")
        bob.send(f"replay {game}")
        bob.expect(rf"^Replaying match {game}")
        for i, line in enumerate(played, 1):
            bob.send("next")
            who, cup = re.match(r"^(\S+) played cup (\d+)\.$", line).groups()
            bob.expect(rf"^Move {i} of {len(played)}: {who} played {cup}\.")
        bob.expect(r"^End: ")
        bob.send("next")
        bob.expect(r"^Already at the end of the match\.")
        bob.send("prev")
        bob.expect(rf"^Move {len(played) - 1} of {len(played)}")
        bob.send("stop")
        bob.expect(r"^Replay stopped\.")
        for p in (alice, bob):
            p.quit()


def crash_recovery(bindir):
    """SIGKILL the service mid-game and start it again on the same database
    and port: the game is back with its seats, the agents reconnect by
    themselves, nothing is lost, and the game finishes; the recorded moves
    are exactly the moves everyone saw."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "crash.db")
        board = env.board("--db", db, "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        watcher = env.player("watcher", "--server", board.address, "--game", game, "--observe")
        watcher.expect(r"^You are observing\.")
        auto = Autoplayer(env, [alice, bob], seed=13)
        auto.play_moves(6)
        deadline = time.monotonic() + 30
        while len(moves_seen(watcher)) < 6:      # the sixth move is stored and sent
            check(time.monotonic() < deadline, "the moves did not arrive\n" + watcher.dump())
            watcher.next_line(0.1)
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        for p in (alice, bob, watcher):      # (the players' lines are left for the Autoplayer)
            p.wait_for(r"^Lost the connection to ", timeout=15)
        board2 = env.board("--db", db, "--grace", "60", port=board.port)
        board2.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        for p in (alice, bob, watcher):
            p.wait_for(r"^Reconnected to ", timeout=20)
        watcher.expect(r"^Notice: the board service restarted")
        auto.play_to_end()
        watcher.expect(r"^Game over:")
        ends = {p.name: [l for l in p.lines if l.startswith(("Game over:", "Scores:"))]
                for p in (alice, bob, watcher)}
        check(len({tuple(v) for v in ends.values()}) == 1, f"results differ: {ends}")
        seen = moves_seen(watcher)
        check(seen == moves_seen(alice) == moves_seen(bob), "the agents saw different moves")
        alice.send(f"replay {game}")
        alice.expect(r"^Replaying match")
        alice.send("end")
        alice.expect(rf"^Move {len(seen)} of {len(seen)}: ")
        for p in (alice, bob, watcher):
            p.quit()


def store_refuses(bindir):
    """Nothing is acknowledged that was not stored: while another program
    holds the database's write lock a move is refused with a clear error and
    nobody hears of it; once the lock is gone the same move goes through."""
    import sqlite3
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "locked.db")
        board = env.board("--db", db)
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        lock = sqlite3.connect(db, timeout=0.1, isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
            alice.send("2")
            alice.expect(r"^Refused: the move could not be stored, so it was not played")
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        check(not any("played cup" in l for l in bob.lines), "bob heard of an unstored move")
        alice.send("2")
        bob.expect(r"^alice played cup 2\.")
        alice.send("history")
        for p in (alice, bob):
            p.quit()
        # The stored game has exactly the one move that was played.
        con = sqlite3.connect(db)
        try:
            n = con.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game,)).fetchone()[0]
        finally:
            con.close()
        check(n == 1, f"{n} moves stored, wanted 1")


def bad_database(bindir):
    """A corrupt or unwritable database file is a clear error at start-up."""
    with Env(bindir) as env:
        junk = os.path.join(env.state_dir, "junk.db")
        with open(junk, "wb") as f:
            f.write(os.urandom(8192))
        from harness import Proc
        for path in (junk, os.path.join(junk, "inside-a-file.db")):
            p = Proc("board", [os.path.join(bindir, "sungka-board"), "--listen", "127.0.0.1:0",
                               "--db", path], stdin=False, env=env.env)
            env.procs.append(p)
            check(p.wait_exit() == 1, f"sungka-board started on {path}\n" + p.dump())
            p.stop()
            check(any(path in l for l in p.err_lines), "the error must name the file\n" + p.dump())


TESTS = {f.__name__: f for f in (
    stats_and_history, crash_recovery, store_refuses, bad_database)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
