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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
from e2e_util import await_moves, check_replay, check_same_ending, moves_seen  # noqa: E402


def stats_and_history(bindir):
    """Statistics after a win, a loss, an aborted game and a quit one; the history lists
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
        # an aborted game (abandoned): counts for nobody
        alice.send("new sungka")
        alice.expect(r"^Created game (\d+)\.")
        carol = env.player("carol", "--server", board.address, "--game", str(int(game) + 1))
        carol.expect(r"^Your turn|^Waiting for alice")
        carol.send("abort")
        alice.expect(r"^Game over: carol aborted the game")
        alice.send("stats")
        st = alice.expect(r"^alice: (\d+) played, (\d+) won, (\d+) lost, (\d+) drawn")
        check(st.group(1) == "1", f"alice played {st.group(1)}, wanted 1 (aborted games do not count)")
        bob.send("stats carol")
        bob.expect(r"^carol: 0 played, 0 won, 0 lost, 0 drawn; streak 0, best 0\.")
        # a game quit: the quitter loses it
        bob.send("new sungka")
        bob.expect(r"^Created game (\d+)\.")
        carol.send(f"join {int(game) + 2}")
        carol.expect(r"^Your turn|^Waiting for bob")
        carol.quit()
        bob.expect(r"^Game over: carol quit; bob wins")
        bob.send("stats carol")
        bob.expect(r"^carol: 1 played, 0 won, 1 lost, 0 drawn; streak 0, best 0\.")
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
        await_moves(watcher, 6)                  # the sixth move is stored and sent
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
        seen = check_same_ending([watcher, alice, bob])
        check_replay(alice, game, len(seen))
        for p in (alice, bob, watcher):
            p.quit()


def running_game_history(bindir):
    """GetMatch of a game still running gives the moves played so far, read
    from its event log (a game's rows in `moves` are written when it ends),
    and the same after the service restarts on the same database."""
    import wire
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "running.db")
        board = env.board("--db", db)
        client = wire.Client(board.address)
        try:
            code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "kalah")))
            check(code == "OK", f"CreateGame: {code} {reply}")
            game = wire.first_string(wire.first_message(reply, 1), 1)
            tokens = []
            for name in ("alice", "bob"):
                code, ref = client.raw("/sungka.v1.Register/JoinGame",
                                       wire.message((1, game), (2, name)))
                check(code == "OK", f"JoinGame {name}: {code} {ref}")
                tokens.append(wire.get(ref, 3).decode())
            for token in tokens:
                code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)),
                                        token=token)
                check(code == "OK", f"Ready: {code} {text}")
            played = []
            for _ in range(5):      # whoever may move, the first cup that is legal
                done = False
                for seat, token in enumerate(tokens):
                    for cup in range(6):
                        code, _ = client.raw("/sungka.v1.Board/Move", wire.message((1, cup)),
                                             token=token)
                        if code == "OK":
                            played.append((seat, cup))
                            done = True
                            break
                    if done:
                        break
                check(done, f"nobody could move after {played}")
        finally:
            client.close()

        def history(address):
            c = wire.Client(address)
            try:
                code, match = c.raw("/sungka.v1.Register/GetMatch", wire.message((1, game)))
            finally:
                c.close()
            check(code == "OK", f"GetMatch: {code} {match}")
            moves = [(wire.get(m, 1, 0), wire.get(m, 2, 0)) for n, m in wire.fields(match) if n == 2]
            count = wire.get(wire.first_message(match, 1), 12, 0)
            return moves, count

        moves, count = history(board.address)
        check(moves == played and count == len(played),
              f"GetMatch of the running game: {moves} ({count}), played {played}")
        board.stop()
        board2 = env.board("--db", db)
        board2.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        moves, count = history(board2.address)
        check(moves == played and count == len(played),
              f"GetMatch after the restart: {moves} ({count}), played {played}")


def old_log(bindir):
    """A database an older service (0.9.0, event format 1: -1 for "no seat",
    seat 0 left out) left mid-game: the game is recovered and its log served
    in today's format — seats in SeatNumber fields, absent only for none —
    and play goes on. (fixtures/make_log_format_1.py made the fixture.)"""
    import sqlite3
    import wire
    here = os.path.dirname(os.path.abspath(__file__))
    with Env(bindir, sqlite_only="an SQLite file an older service left (the fixture)") as env:
        db = os.path.join(env.state_dir, "old.db")
        con = sqlite3.connect(db)
        with open(os.path.join(here, "fixtures", "log-format-1.sql")) as f:
            con.executescript(f.read())
        token = dict(con.execute("SELECT name, token FROM participants"))
        con.close()
        board = env.board("--db", db)
        board.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        client = wire.Client(board.address)
        try:
            events = client.stream("/sungka.v1.Board/Subscribe", wire.message((1, 1)),
                                   token=token["olga"])
            seen = []
            for ev in events:
                kind, body = next((n, v) for n, v in wire.fields(ev) if n >= 10)
                if kind == 19:
                    continue                    # a ping
                seen.append((kind, body))
                if len(seen) == 11:
                    break
            events.cancel()

            def who(body):
                w = wire.get(body, 1)
                check(wire.get(w, 2) is None and wire.get(w, 4) is None,
                      f"a participant still has format 1's fields: {wire.fields(w)}")
                return wire.first_string(w, 1), wire.seat_of(w, 6)
            kinds = [k for k, _ in seen]
            check(kinds == [11, 17, 17, 23, 23, 22, 22, 14, 16, 16, 16],
                  f"the old log's events 2..12 came as {kinds}")
            check(who(seen[0][1]) == ("bob", 1), f"bob joined as {who(seen[0][1])}")
            chats = [(wire.first_string(b, 1), wire.seat_of(b, 5)) for _, b in seen[1:3]]
            check(chats == [("olga", None), ("alice", 0)],
                  f"chat seats (an observer's none, alice's seat 0): {chats}")
            stand, sit = seen[3][1], seen[4][1]
            check((who(stand), wire.seat_of(stand, 3)) == (("bob", None), 1) and
                  (who(sit), wire.seat_of(sit, 3)) == (("bob", 1), None),
                  f"bob's stand and sit: {wire.fields(stand)} {wire.fields(sit)}")
            check(who(seen[5][1]) == ("alice", 0), f"alice's ready: {who(seen[5][1])}")
            first = wire.get(seen[7][1], 1, 0)
            started = wire.first_message(seen[7][1], 2)
            check(wire.seat_of(started, 4) == first and wire.get(started, 2) is None,
                  f"GameStarted names {first} first but its board {wire.fields(started)}")
            for _, made in seen[8:]:
                turn = wire.get(wire.get(made, 9), 1, 0)
                after = wire.first_message(made, 5)
                check(wire.seat_of(after, 4) == turn and wire.get(after, 2) is None,
                      f"a move's board says {wire.fields(after)}, its turn {turn}")
            # The recovered position plays on: whoever's turn it is can move.
            moved = [client.raw("/sungka.v1.Board/Move", wire.message((1, cup)),
                                token=token["alice" if turn == 0 else "bob"])[0]
                     for cup in range(6)]
            check("OK" in moved, f"nobody could move after recovery: {moved}")
        finally:
            client.close()


def store_refuses(bindir):
    """Nothing is acknowledged that was not stored: while another program
    holds the database's write lock a move is refused with a clear error and
    nobody hears of it; once the lock is gone the same move goes through."""
    import sqlite3
    with Env(bindir, sqlite_only="another program holds the SQLite file's write lock") as env:
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
    with Env(bindir, sqlite_only="a corrupt or unwritable SQLite file") as env:
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


def backup_before_migration(bindir):
    """A database of an older schema (the fixture of old_log: version 2) is
    copied beside itself before the service migrates it: DB.before-vN.bak,
    N the version it is brought to, holding exactly what the old file held
    (its dump, row for row, and its version), mode 0600 like the file; the
    log says so. A second start, on the migrated file, copies nothing."""
    import sqlite3
    here = os.path.dirname(os.path.abspath(__file__))
    with Env(bindir, sqlite_only="an SQLite file of an older schema (the fixture)") as env:
        db = os.path.join(env.state_dir, "old.db")
        con = sqlite3.connect(db)
        with open(os.path.join(here, "fixtures", "log-format-1.sql")) as f:
            con.executescript(f.read())
        before = list(con.iterdump())
        old_version = con.execute("PRAGMA user_version").fetchone()[0]
        con.close()
        os.chmod(db, 0o600)
        board = env.board("--db", db)
        board.expect_stderr(r"backed up the database .*old\.db \(schema version "
                                rf"{old_version}\) to (\S+) before migrating it to version "
                                r"(\d+)", timeout=15)
        with board.cond:
            line = next(l for l in board.err_lines if "backed up the database" in l)
        m = re.search(r"to (\S+\.bak) before migrating it to version (\d+)", line)
        bak, new_version = m.group(1), int(m.group(2))
        check(bak == f"{db}.before-v{new_version}.bak" and new_version > old_version,
              f"the backup is {bak}, for version {new_version}")
        board.stop()
        check(os.stat(bak).st_mode & 0o777 == 0o600,
              f"the backup's mode is {oct(os.stat(bak).st_mode & 0o777)}, not 0600")
        con = sqlite3.connect(bak)
        copy = list(con.iterdump())
        copy_version = con.execute("PRAGMA user_version").fetchone()[0]
        con.close()
        check(copy_version == old_version, f"the backup is of version {copy_version}")
        check(copy == before, "the backup differs from the old file:\n" +
              "\n".join(sorted(set(copy) ^ set(before))[:10]))
        con = sqlite3.connect(db)
        now = con.execute("PRAGMA user_version").fetchone()[0]
        con.close()
        check(now == new_version, f"the database is of version {now}, not {new_version}")
        os.unlink(bak)
        again = env.board("--db", db)
        again.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        check(not os.path.exists(bak) and
              not any("backed up" in l for l in again.err_lines),
              "the migrated file was backed up again\n" + again.dump())


TESTS = {f.__name__: f for f in (
    stats_and_history, crash_recovery, old_log, store_refuses, bad_database,
    backup_before_migration, running_game_history)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
