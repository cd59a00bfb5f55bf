#!/usr/bin/python3
"""e2e.py — end-to-end tests of the board service and the player agent.

Real sungka-board and sungka-player processes on loopback, driven through the
text view's pipes as a person at a terminal would drive them.
Usage: e2e.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import re
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, Failure, check, main  # noqa: E402
import wire  # noqa: E402


def final_report(agent):
    """The lines after 'Game over:' up to the winners line."""
    agent.cursor = 0
    agent.expect(r"^Game over:")
    scores = agent.expect(r"^Scores:").string
    result = agent.expect(r"^(Winners?:|Nobody wins)").string
    return scores, result


def moves_seen(agent):
    return [l for l in agent.lines if re.match(r"^\S+ played (cup|cell) \S+\.$", l)]


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
        ends = {p.name: [l for l in p.lines if l.startswith(("Game over:", "Scores:",
                                                             "Winner", "Nobody wins"))]
                for p in everyone}
        check(len({tuple(v) for v in ends.values()}) == 1, f"results differ: {ends}")
        seqs = {tuple(moves_seen(p)) for p in everyone}
        check(len(seqs) == 1, "the agents saw different moves")
        check(len(moves_seen(first)) >= 5, "suspiciously short game")
        for p in everyone:
            check(not any(l.startswith("WARNING") for l in p.lines),
                  f"{p.name} found the service's board wrong\n" + p.dump())
        for p in everyone:
            p.quit()


def whole_congklak(bindir):
    _whole_game(bindir, "congklak", ["first=1"], seed=3)


def whole_kalah(bindir):
    _whole_game(bindir, "kalah", [], seed=4)


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
    # The bots were the service's children: stopping it stopped them.


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
        bob.send("leaderboard")
        bob.expect(r"^ 1\. ")
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


def _make_certs(d):
    """A throwaway CA, a service certificate for 127.0.0.1 / localhost signed
    by it, one for 'otherhost' only, a client certificate, and a second CA."""
    import subprocess

    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=30)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=Sungka Test CA")
    run("req", "-x509", *ec, "-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "2",
        "-subj", "/CN=Another CA")
    for name, san in (("server", "DNS:localhost,IP:127.0.0.1"), ("elsewhere", "DNS:otherhost"),
                      ("client", "DNS:alice")):
        run("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write(f"subjectAltName={san}\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return {n: os.path.join(d, n) for n in os.listdir(d)}


def tls(bindir):
    """TLS with a certificate made at test time: players and observers play
    through it; a wrong CA, a wrong host name and plaintext are refused with
    a clear error; client certificates when the service requires them."""
    import shutil
    check(shutil.which("openssl"), "openssl is not installed")
    with Env(bindir) as env:
        c = _make_certs(env.state_dir)
        board = env.board("--tls-cert", c["server.pem"], "--tls-key", c["server.key"])
        check("(TLS)" in board.lines[0], "the service must say it serves TLS")
        alice = env.player("alice", "--server", board.address, "--tls-ca", c["ca.pem"],
                           "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", f"localhost:{board.port}", "--tls-ca", c["ca.pem"],
                         "--game", game)
        bob.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^Your turn")
        alice.send("1")
        bob.expect(r"^alice played cup 1\.")
        for args, says in (
                (["--tls-ca", c["other-ca.pem"]], "not signed by the --tls-ca given"),
                ([], "if the service uses TLS, give --tls-ca")):
            eve = env.player("eve", "--server", board.address, *args, "--game", game,
                             "--observe")
            check(eve.wait_exit() != 0, "eve must not get in\n" + eve.dump())
            check(any(says in l for l in eve.err_lines), f"eve's error must say '{says}'\n"
                  + eve.dump())
        for p in (alice, bob):
            p.quit()
        # A certificate for another name: refused, unless told that name.
        # (Each further service has a database of its own: one file, one service.)
        other = env.board("--tls-cert", c["elsewhere.pem"], "--tls-key", c["elsewhere.key"],
                          "--db", ":memory:")
        eve = env.player("eve", "--server", other.address, "--tls-ca", c["ca.pem"],
                         "--new", "kalah")
        check(eve.wait_exit() != 0, "a certificate for otherhost must not pass for 127.0.0.1")
        check(any("certificate" in l or "name" in l for l in eve.err_lines), eve.dump())
        ok = env.player("olga", "--server", other.address, "--tls-ca", c["ca.pem"],
                        "--tls-name", "otherhost", "--new", "kalah")
        ok.expect(r"^You are olga, seat 0\.")
        ok.quit()
        # Client certificates required: with one you play, without you do not.
        strict = env.board("--tls-cert", c["server.pem"], "--tls-key", c["server.key"],
                           "--tls-client-ca", c["ca.pem"], "--db", ":memory:")
        anon = env.player("anon", "--server", strict.address, "--tls-ca", c["ca.pem"],
                          "--new", "kalah")
        check(anon.wait_exit() != 0, "no client certificate must be refused")
        known = env.player("alice", "--server", strict.address, "--tls-ca", c["ca.pem"],
                           "--tls-cert", c["client.pem"], "--tls-key", c["client.key"],
                           "--new", "kalah")
        known.expect(r"^You are alice, seat 0\.")
        known.quit()


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


def refusals(bindir):
    """The agent refuses moves it knows are illegal, saying why, without
    sending them; chat reaches everyone; unknown commands are explained."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        alice.expect(r"^You are alice, seat 0\.")
        alice.send("2")
        alice.expect(r"^Refused: the game has not started \(checked here, not sent\)")
        bob = env.player("bob", "--server", board.address, "--game", game)
        obs = env.player("olga", "--server", board.address, "--game", game, "--observe")
        obs.expect(r"^You are observing\.")
        alice.expect(r"^Your turn: choose a cup 0\.\.5\. Legal: 0 1 2 3 4 5$")
        obs.send("1")
        obs.expect(r"^Refused: observers cannot move")
        bob.expect(r"^Waiting for alice to move\.")
        bob.send("1")
        bob.expect(r"^Refused: it is alice's turn")
        alice.send("9")
        alice.expect(r"^Refused: cup 9 is out of range 0\.\.5")
        alice.send("6")
        alice.expect(r"^Refused: .*home")
        alice.send("1")          # 7 stones from cup 1: ends in bob's row
        bob.expect(r"^alice played cup 1\.")
        bob.expect(r"^Your turn")
        alice.send("1")
        alice.expect(r"^Refused: it is bob's turn")
        bob.send("chat good luck")
        for p in (alice, bob, obs):
            p.expect(r"^\[chat\] bob: good luck")
        alice.send("nonsense")
        alice.expect(r"^Unknown command 'nonsense'")
        alice.send("who")
        alice.expect(r"seat 1: bob")
        for p in (alice, bob, obs):
            p.quit()


def service_refusals(bindir):
    """The service itself refuses what the agent would not send: an
    observer's move, an out-of-turn move, an out-of-range or empty cup, a move
    before the start, too much chat — each with its status code and sentence."""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            code, reply = client.raw("/sungka.v1.Register/CreateGame",
                                     wire.message((1, "sungka"),
                                                  (2, wire.message((1, "stones"), (2, 1)))))
            game_id = wire.first_string(wire.first_message(reply, 1), 1)

            def join(name, observe=False):
                code, ref = client.raw("/sungka.v1.Register/JoinGame",
                                       wire.message((1, game_id), (2, name), (3, observe)))
                check(code == "OK", f"JoinGame {name}: {code} {ref}")
                return wire.get(ref, 3).decode()

            def move(token, cup):
                return client.raw("/sungka.v1.Board/Move", wire.message((1, cup)), token=token)

            alice = join("alice")
            code, text = move(alice, 0)
            check(code == "FAILED_PRECONDITION" and "not started" in text, f"{code}: {text}")
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, " alice ")))
            check(code == "ALREADY_EXISTS", f"a taken name gave {code}: {text}")
            bob = join("bob")
            olga = join("olga", observe=True)
            code, text = move(alice, 0)     # seats full, nobody ready yet
            check(code == "FAILED_PRECONDITION" and text ==
                  "the game has not started (waiting for everyone to be ready)", f"{code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)), token=olga)
            check(code == "PERMISSION_DENIED", f"an observer's ready gave {code}: {text}")
            for token in (alice, bob):
                code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)),
                                        token=token)
                check(code == "OK", f"Ready: {code} {text}")
            code, text = client.raw("/sungka.v1.Board/Sit", wire.message((1, 1)), token=olga)
            check(code == "FAILED_PRECONDITION" and "started" in text, f"late sit gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, "zed")))
            check(code == "FAILED_PRECONDITION" and "started" in text, f"{code}: {text}")
            code, text = move(olga, 0)
            check(code == "PERMISSION_DENIED" and text == "observers cannot move", f"{code}: {text}")
            code, text = move(bob, 0)
            check(code == "FAILED_PRECONDITION" and text == "it is alice's turn", f"{code}: {text}")
            code, text = move(alice, 9)
            check(code == "INVALID_ARGUMENT" and text == "cup 9 is out of range 0..5",
                  f"{code}: {text}")
            code, text = move(alice, -1)
            check(code == "INVALID_ARGUMENT", f"cup -1 gave {code}: {text}")
            code, text = move(alice, 5)   # one stone: cup 5 -> home, move again
            check(code == "OK", f"{code}: {text}")
            code, text = move(alice, 5)
            check(code == "FAILED_PRECONDITION" and text == "cup 5 is empty", f"{code}: {text}")
            for i in range(5):
                code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, f"hi {i}")),
                                        token=bob)
                check(code == "OK", f"chat {i}: {code} {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "spam")), token=bob)
            check(code == "RESOURCE_EXHAUSTED", f"chat flood gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "x" * 501)),
                                    token=alice)
            check(code == "INVALID_ARGUMENT", f"a long chat gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "")), token=alice)
            check(code == "INVALID_ARGUMENT", f"an empty chat gave {code}: {text}")
        finally:
            client.close()
        check(board.p.poll() is None, "the board service died\n" + board.dump())


def _raw_game(client, n_players=2):
    """Create a sungka game and seat alice and bob; returns (id, [tokens])."""
    code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "sungka")))
    check(code == "OK", f"CreateGame: {code} {reply}")
    game_id = wire.first_string(wire.first_message(reply, 1), 1)
    tokens = []
    for name in ("alice", "bob")[:n_players]:
        code, ref = client.raw("/sungka.v1.Register/JoinGame",
                               wire.message((1, game_id), (2, name)))
        check(code == "OK", f"JoinGame {name}: {code} {ref}")
        tokens.append(wire.get(ref, 3).decode())
    for token in tokens:
        code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)), token=token)
        check(code == "OK", f"Ready: {code} {text}")
    return game_id, tokens


def _event_kind(ev):
    """The oneof body field number of an Event (10 snapshot .. 20 notice)."""
    return next(n for n, _ in wire.fields(ev) if n >= 10)


def resubscribe(bindir):
    """Every event has a sequence number; subscribing after N replays exactly
    the events after N, in order, then continues live; GetBoard is rotated so
    the caller's row comes first."""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            game_id, (alice, bob) = _raw_game(client)
            for token, cup in ((alice, 1), (bob, 2)):   # two plain moves
                code, reply = client.raw("/sungka.v1.Board/Move", wire.message((1, cup)),
                                         token=token)
                check(code == "OK", f"Move: {code} {reply}")
            # A fresh subscription: a snapshot that says where the log stands.
            first = client.stream("/sungka.v1.Board/Subscribe", b"", token=bob)
            snap = next(first)
            check(_event_kind(snap) == 10, "the first event must be a snapshot")
            last = wire.get(wire.get(snap, 10), 5)
            check(last >= 6, f"snapshot last_seq {last} is too small")
            # Replay from 2 (a new subscription replaces the first one; closing
            # the only one would make bob a departed player): events 3..last,
            # numbered, in order.
            replay = client.stream("/sungka.v1.Board/Subscribe", wire.message((1, 2)),
                                   token=bob)
            seqs = []
            for ev in replay:
                seqs.append(wire.get(ev, 1))
                if seqs[-1] == last:
                    break
            check(seqs == list(range(3, last + 1)), f"replayed {seqs}, wanted 3..{last}")
            # ...and it goes on live: alice's next move arrives as event last+1.
            code, reply = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=alice)
            check(code == "OK", f"Move: {code} {reply}")
            ev = next(replay)
            while wire.get(ev, 1, 0) == 0:      # skip pings (seq 0)
                ev = next(replay)
            check(wire.get(ev, 1) == last + 1 and _event_kind(ev) == 16,
                  f"expected MoveMade #{last + 1}, got {wire.fields(ev)}")
            try:
                for _ in first:
                    pass
                check(False, "the replaced subscription must end")
            except Exception as e:     # grpc.RpcError
                check(e.code().name == "ABORTED", f"replaced stream ended with {e}")
            bad = client.stream("/sungka.v1.Board/Subscribe", wire.message((1, 999)), token=bob)
            try:
                next(bad)
                check(False, "subscribing past the end of the log must fail")
            except Exception as e:
                check(e.code().name == "OUT_OF_RANGE", f"past the end gave {e}")
            # GetBoard: alice sees her row first, bob his.
            code, a = client.raw("/sungka.v1.Board/GetBoard", b"", token=alice)
            code2, b = client.raw("/sungka.v1.Board/GetBoard", b"", token=bob)
            check(code == code2 == "OK", f"GetBoard: {code} {code2}")
            cells_a = wire.repeated(wire.get(a, 1), 1)
            cells_b = wire.repeated(wire.get(b, 1), 1)
            check(len(cells_a) == 14 and cells_b == cells_a[7:] + cells_a[:7],
                  f"boards not rotated: {cells_a} / {cells_b}")
            check(wire.get(b, 2, 0) == 1, "bob's board must say it is rotated to seat 1")
            replay.cancel()
        finally:
            client.close()


def rogue_service(bindir):
    """Seed 000's "error checking for rogue servers": a fake service (stock
    Python gRPC) reports a move with a board our rules disagree with; the
    agent warns and resubscribes for a fresh snapshot."""
    from concurrent import futures
    import threading
    import grpc

    subscriptions = []
    stop = threading.Event()
    cells = ([7] * 6 + [0]) * 2
    seats = [wire.message((1, s), (2, n)) for s, n in ((0, "alice"), (1, "bob"))]
    summary = wire.message((1, "1"), (2, "sungka"), (4, "rogue"), (5, 2), *((6, x) for x in seats),
                           (8, 6))

    def snapshot(last_seq):
        board = wire.message((1, wire.packed(cells)), (3, wire.packed([0, 0])))
        snap = wire.message((1, summary), (2, board), (4, wire.message((1, "alice"))),
                            (5, last_seq))
        return wire.message((10, snap))

    def subscribe(request, context):
        subscriptions.append(request)
        yield snapshot(1)
        if len(subscriptions) == 1:
            # alice's cup 0 really gives 0 8 8 8 8 8 | 1 | 8 ...; claim nothing moved.
            wrong = wire.message((1, wire.packed(cells)), (2, 1))
            yield wire.message((1, 2), (16, wire.message((1, 0), (2, 0), (5, wrong))))
        while not stop.is_set() and context.is_active():
            time.sleep(0.05)

    def join(request, context):
        return wire.message((1, "rogue"), (2, "1"), (3, "f" * 32), (4, 0), (5, summary))

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers([
        grpc.method_handlers_generic_handler("sungka.v1.Register", {
            "JoinGame": grpc.unary_unary_rpc_method_handler(join)}),
        grpc.method_handlers_generic_handler("sungka.v1.Board", {
            "Subscribe": grpc.unary_stream_rpc_method_handler(subscribe),
            "Leave": grpc.unary_unary_rpc_method_handler(lambda r, c: b""),
            "Ready": grpc.unary_unary_rpc_method_handler(lambda r, c: b""),
            "Ping": grpc.unary_unary_rpc_method_handler(lambda r, c: b"")}),
    ])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with Env(bindir) as env:
            alice = env.player("alice", "--server", f"127.0.0.1:{port}", "--game", "1")
            alice.expect(r"^You are alice, seat 0\.")
            alice.expect(r"^WARNING: the service's board differs from ours at cell 0 "
                         r"\(7, expected 0\); resynchronising from a fresh snapshot")
            alice.expect(r"^Game 1: rogue")          # the fresh snapshot, drawn again
            check(len(subscriptions) == 2, f"{len(subscriptions)} subscriptions, wanted 2")
            alice.quit()
    finally:
        stop.set()
        server.stop(0)


def capabilities(bindir):
    """Seat tokens are capabilities: a token acts only for its own seat of its
    own game; an observer's token cannot move; forged, truncated or missing
    tokens are refused; a name cannot be taken over while its owner is away."""
    with Env(bindir) as env:
        board = env.board("--grace", "60")
        client = wire.Client(board.address)
        try:
            game1, (alice, bob) = _raw_game(client)
            game2, (carol, dan) = _raw_game(client)
            kalah = wire.message((1, "kalah"))

            def get_board(token):
                code, reply = client.raw("/sungka.v1.Board/GetBoard", b"", token=token)
                check(code == "OK", f"GetBoard: {code} {reply}")
                return wire.repeated(wire.get(reply, 1), 1)

            # Each token sees and acts on its own game only.
            before = get_board(carol)
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=alice)
            check(code == "OK", f"alice's move: {code} {text}")
            check(get_board(carol) == before, "alice's token moved in carol's game")
            check(get_board(alice) != before, "alice's move did not land in her own game")
            # Game 2's second seat cannot move for its first (the names are
            # alice and bob there too: the token, not the name, is the seat).
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=dan)
            check(code == "FAILED_PRECONDITION" and text == "it is alice's turn",
                  f"game 2's bob moving out of turn: {code} {text}")
            # An observer's token cannot move.
            code, ref = client.raw("/sungka.v1.Register/JoinGame",
                                   wire.message((1, game1), (2, "olga"), (3, True)))
            olga = wire.get(ref, 3).decode()
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=olga)
            check(code == "PERMISSION_DENIED", f"observer's move: {code} {text}")
            # Forged, truncated, lengthened, missing: all UNAUTHENTICATED.
            forged = alice[:-1] + ("0" if alice[-1] != "0" else "1")
            for token in (forged, alice[:16], alice + "00", "x" * 32, None):
                code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)),
                                        token=token)
                check(code == "UNAUTHENTICATED", f"token {token!r} gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "hi")),
                                    token=alice.upper())
            check(code == "UNAUTHENTICATED", f"an upper-cased token gave {code}: {text}")
        finally:
            client.close()
        # A name cannot be taken over while its owner is away.
        alice_p = env.player("alice", "--server", board.address, "--new", "sungka")
        game3 = alice_p.expect(r"Created game (\d+)").group(1)
        alice_p.expect(r"^You are alice, seat 0\.")
        alice_p.p.send_signal(signal.SIGKILL)
        alice_p.p.wait(5)
        board.expect_stderr(r"alice departed", timeout=15)
        thief = env.player("alice", "--server", board.address, "--game", game3,
                           "--state-dir", "")     # no saved token: a stranger
        check(thief.wait_exit() != 0, "someone else took alice's name")
        check(any("taken" in l for l in thief.err_lines), thief.dump())


def limits(bindir):
    """Every limit has a flag and a clear error: open games per client, chat
    length and rate, move rate per seat, message size; --help lists them."""
    with Env(bindir) as env:
        board = env.board("--max-games-per-client", "2", "--chat-length", "10", "--chat-rate",
                          "2", "--move-rate", "1", "--max-request", "2048")
        client = wire.Client(board.address)
        try:
            game_id, (alice, bob) = _raw_game(client)
            code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "kalah")))
            check(code == "OK", f"a second game: {code} {reply}")
            code, text = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "kalah")))
            check(code == "RESOURCE_EXHAUSTED" and "already has 2 open games" in text,
                  f"a third game: {code} {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "x" * 11)),
                                    token=alice)
            check(code == "INVALID_ARGUMENT" and "1..10 bytes" in text, f"long chat: {code} {text}")
            for i in range(2):
                code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "hi")),
                                        token=alice)
                check(code == "OK", f"chat {i}: {code} {text}")
            code, text = client.raw("/sungka.v1.Board/Chat", wire.message((1, "hi")), token=alice)
            check(code == "RESOURCE_EXHAUSTED" and "at most 2 every 5 seconds" in text,
                  f"chat flood: {code} {text}")
            # One move a second: whatever the turn, the second and third moves
            # within the same second are over the rate (checked before the turn).
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=alice)
            check(code == "OK", f"the first move: {code} {text}")
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 1)), token=alice)
            code2, text2 = client.raw("/sungka.v1.Board/Move", wire.message((1, 2)), token=alice)
            check("RESOURCE_EXHAUSTED" in (code, code2) and "at most 1 a second" in text + text2,
                  f"move flood: {code} {text} / {code2} {text2}")
            code, text = client.raw("/sungka.v1.Register/ListGames", b"\x0a\x80\x20" + b"k" * 4096)
            check(code == "RESOURCE_EXHAUSTED", f"a 4 KiB request over a 2 KiB limit: {code} {text}")
        finally:
            client.close()
        from harness import Proc
        h = Proc("help", [os.path.join(bindir, "sungka-board"), "--help"], stdin=False)
        env.procs.append(h)
        h.wait_exit()
        text = "\n".join(h.lines)
        for flag in ("--max-games", "--max-games-per-client", "--max-participants",
                     "--max-message", "--max-request", "--max-streams",
                     "--max-client-streams", "--max-client-observers", "--client-join-rate",
                     "--client-chat-rate",
                     "--chat-length", "--chat-rate", "--move-rate", "--grace", "--ping-timeout"):
            check(flag in text, f"--help does not mention {flag}")


def crowd(bindir):
    """A game holds more people than a snapshot or a ping names: up to
    --max-participants, then a clear refusal. Each observer's snapshot and
    pings name the players first and at most 64 people (the summary counts
    the observers), and every observer gets the move, which carries the turn
    (one event per move)."""
    n_obs = 98
    with Env(bindir) as env:
        board = env.board("--max-participants", str(n_obs + 2), "--max-streams", "256",
                          "--ping-interval", "1", "--client-join-rate", "1000")
        client = wire.Client(board.address)
        streams = []
        try:
            game_id, (alice, bob) = _raw_game(client)
            tokens = []
            for i in range(n_obs):
                code, ref = client.raw("/sungka.v1.Register/JoinGame",
                                       wire.message((1, game_id), (2, f"o{i}"), (3, True)))
                check(code == "OK", f"observer {i}: {code} {ref}")
                tokens.append(wire.get(ref, 3).decode())
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, "late"), (3, True)))
            check(code == "RESOURCE_EXHAUSTED" and "at most 100" in text,
                  f"one more than --max-participants: {code} {text}")
            for token in tokens:
                streams.append(client.stream("/sungka.v1.Board/Subscribe", b"", token=token,
                                             timeout=30))
            for i, st in enumerate(streams):
                ev = next(st)
                snap = wire.first_message(ev, 10)
                people = [wire.fields(p) for n, p in wire.fields(snap) if n == 4]
                check(len(people) == 64, f"observer {i}'s snapshot names {len(people)} people")
                seats = [dict(p).get(2, 0) for p in people[:2]]
                check(seats == [0, 1], f"the snapshot does not name the players first: {seats}")
                summary = wire.first_message(snap, 1)
                check(wire.get(summary, 7) == n_obs,
                      f"the summary counts {wire.get(summary, 7)} observers")
            mover = alice
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=alice)
            if code != "OK":
                mover = bob
                code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 0)), token=bob)
            check(code == "OK", f"the first move: {code} {text}")
            move_seq = wire.get(text, 1)
            pings = []
            for i, st in enumerate(streams):
                while _event_kind(ev := next(st)) != 16:
                    if _event_kind(ev) == 19:
                        pings.append(wire.first_message(ev, 19))
                check(wire.get(ev, 1) == move_seq, f"observer {i}: the move is event "
                      f"#{wire.get(ev, 1)}, the reply said #{move_seq}")
                made = wire.first_message(ev, 16)
                check(any(n == 9 for n, _ in wire.fields(made)),
                      f"observer {i}: the move does not say whose turn it is")
            while not pings:     # pings come every second
                if _event_kind(ev := next(streams[0])) == 19:
                    pings.append(wire.first_message(ev, 19))
            for ping in pings:
                named = [n for n, _ in wire.fields(ping) if n == 2]
                check(len(named) == 64, f"a ping names {len(named)} people")
        finally:
            for st in streams:
                st.cancel()
            client.close()


def sigkill_noticed(bindir):
    """Killing an agent with SIGKILL is noticed by the others at once (its
    connection closes); its seat is kept for the grace, then the running
    game ends as abandoned, with no winner."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "2")
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        obs = env.player("olga", "--server", board.address, "--game", game, "--observe")
        obs.expect(r"^You are observing\.")
        alice.expect(r"^Your turn")
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        started = time.monotonic()
        # The closed connection, not the missed pings (3 s later), says so.
        alice.expect(r"^bob departed: the connection closed\. The seat is kept for 2 s\.",
                     timeout=10)
        obs.expect(r"^bob departed: the connection closed", timeout=10)
        elapsed = time.monotonic() - started
        check(elapsed < 10, f"departure noticed after {elapsed:.1f}s")
        for p in (alice, obs):
            p.expect(r"^Game over: bob did not come back within 2 s; the game ends with no winner")
        for p in (alice, obs):
            p.quit()


def frozen_and_back(bindir):
    """An agent that stops answering (SIGSTOP: its connection stays open) is
    found by the missed pings; when it wakes within the grace it reconnects
    with its token, resumes after the last event it saw, and the game goes
    on with nothing lost."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        alice.send("chat before")
        bob.expect(r"^\[chat\] alice: before")
        bob.p.send_signal(signal.SIGSTOP)
        try:
            alice.expect(r"^bob departed: no answer to pings.*kept for 60 s", timeout=15)
            alice.send("chat while you were away")   # logged: bob must get it on return
            alice.send("0")                            # 2 stones: cups 1, 2: bob's turn next
            alice.expect(r"^alice played cup 0\.")
        finally:
            bob.p.send_signal(signal.SIGCONT)
        bob.expect(r"^Lost the connection to ", timeout=15)
        alice.expect(r"^bob is back\.", timeout=15)
        bob.expect(r"^\[chat\] alice: while you were away")
        bob.expect(r"^alice played cup 0\.")
        Autoplayer(env, [alice, bob], seed=5).play_to_end()
        a, b = final_report(alice), final_report(bob)
        check(a == b, f"final reports differ: {a} {b}")
        check(moves_seen(alice) == moves_seen(bob), "the two saw different moves")
        for p in (alice, bob):
            p.quit()


def killed_and_back(bindir):
    """A player whose agent is killed starts it again with the same game and
    name: the saved token takes the seat back and the game goes on."""
    with Env(bindir) as env:
        board = env.board("--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "cups=3", "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^Waiting for alice to move\.")
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        alice.expect(r"^bob departed: ")
        alice.send("0")
        alice.expect(r"^alice played cup 0\.")
        bob2 = env.player("bob", "--server", board.address, "--game", game, ready=False)
        bob2.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^bob is back\.")
        Autoplayer(env, [alice, bob2], seed=2).play_to_end()
        check(final_report(alice) == final_report(bob2), "final reports differ")
        for p in (alice, bob2):
            p.quit()


def grace_runs_out(bindir):
    """A player who does not come back within the grace: the game is
    abandoned, and the lobby lists it so."""
    with Env(bindir) as env:
        board = env.board("--grace", "1")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^Waiting for alice to move\.")
        bob.p.send_signal(signal.SIGKILL)
        alice.expect(r"^Game over: bob did not come back within 1 s; the game ends with no winner")
        alice.send("games")
        alice.expect(rf"^Game {game}: .*abandoned")
        alice.quit()


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
        ben.expect(r"^Game 1: .*\(kalah cups=4 stones=3\), waiting; seats: \[ann\] \[open\]; 0 watching")
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
        late.send("chat hi")
        alice.expect(r"^\[chat\] lena: hi")
        for p in (olga, late):
            check(not any("psst" in l for l in p.lines), f"{p.name} saw a private message")
        for p in (alice, bob, olga, late):
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


def quit_confirms(bindir):
    """A player quitting a running game is asked first; the second quit
    ends the game at once as abandoned (seed 000)."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        alice.send("quit")
        alice.expect(r"^Leaving now ends the game for everyone")
        alice.send("who")                 # anything else disarms the question
        alice.send("quit")
        alice.expect(r"^Leaving now ends the game for everyone")
        alice.send("quit")
        check(alice.wait_exit() == 0, "alice did not exit")
        bob.expect(r"^alice left\.")
        bob.expect(r"^Game over: alice quit; the game ends with no winner")
        bob.quit()


def bad_input(bindir):
    """Garbage bytes and malformed messages on the port get errors, never a
    crash; the service keeps serving afterwards."""
    with Env(bindir) as env:
        board = env.board()
        for junk in (b"\x00" * 64, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", os.urandom(4096),
                     b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(512)):
            s = socket.create_connection(("127.0.0.1", board.port), timeout=5)
            try:
                s.sendall(junk)
                s.settimeout(1)
                try:
                    s.recv(4096)
                except (socket.timeout, ConnectionResetError):
                    pass
            finally:
                s.close()
        client = wire.Client(board.address)
        try:
            code, text = client.raw("/sungka.v1.Register/JoinGame", b"\xff\xff\xff\xff")
            check(code == "INVALID_ARGUMENT", f"malformed JoinGame gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/NoSuchThing", b"")
            check(code == "UNIMPLEMENTED", f"unknown method gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 3)))
            check(code == "UNAUTHENTICATED", f"tokenless Move gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Move", wire.message((1, 3)),
                                    token="0" * 32)
            check(code == "UNAUTHENTICATED", f"wrong token gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/CreateGame",
                                    wire.message((1, "sungka"), (2, wire.message((1, "cups"),
                                                                                 (2, 40)))))
            check(code == "INVALID_ARGUMENT" and "cups" in text,
                  f"bad option gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "chess")))
            check(code == "INVALID_ARGUMENT" and "chess" in text, f"bad kind gave {code}: {text}")
            code, reply = client.raw("/sungka.v1.Register/CreateGame",
                                     wire.message((1, "sungka")))
            check(code == "OK", f"CreateGame failed: {code} {reply}")
            game_id = wire.first_string(wire.first_message(reply, 1), 1)
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, "x" * 1000)))
            check(code == "INVALID_ARGUMENT" and "name" in text, f"long name gave {code}: {text}")
            # Past --max-request (64 KiB), gRPC itself refuses the request.
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, "x" * 100000)))
            check(code == "RESOURCE_EXHAUSTED", f"huge name gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, game_id), (2, "a\x07b")))
            check(code == "INVALID_ARGUMENT", f"control character name gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/JoinGame",
                                    wire.message((1, "nope"), (2, "zed")))
            check(code == "NOT_FOUND", f"unknown game gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Register/ListGames", b"x" * (2 << 20))
            check(code == "RESOURCE_EXHAUSTED", f"oversized request gave {code}: {text}")
            code, reply = client.raw("/grpc.health.v1.Health/Check", b"")
            check(code == "OK" and reply == wire.message((1, 1)), f"health gave {code} {reply}")
        finally:
            client.close()
        # Still serving: a real agent can create and join a game.
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        alice.expect(r"^You are alice, seat 0\.")
        alice.quit()
        check(board.p.poll() is None, "the board service died\n" + board.dump())


def vanishing_client(bindir):
    """Clients that vanish mid-call or mid-stream do not disturb the service."""
    with Env(bindir) as env:
        board = env.board()
        for _ in range(5):
            alice = env.player("alice", "--server", board.address, "--new", "sungka")
            alice.expect(r"^You are alice, seat 0\.")
            alice.p.send_signal(signal.SIGKILL)
            alice.p.wait(5)
        board.expect_stderr(r"alice departed", timeout=15, count=5)
        bob = env.player("bob", "--server", board.address, "--new", "sungka")
        bob.expect(r"^You are bob, seat 0\.")
        bob.quit()
        check(board.p.poll() is None, "the board service died\n" + board.dump())


def clean_shutdown(bindir):
    """SIGTERM stops the service promptly with agents connected; they try to
    reconnect for as long as they were told to, then say so and exit."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--reconnect-for", "1")
        alice.expect(r"^You are alice, seat 0\.")
        board.p.send_signal(signal.SIGTERM)
        check(board.wait_exit(10) == 0, "the service did not exit cleanly\n" + board.dump())
        alice.expect(r"^Lost the connection to 127\.0\.0\.1:\d+; trying again for 1 s")
        alice.expect(r"^Disconnected from the board service \(could not reconnect within 1 s; "
                     r"giving up\)")
        check(alice.wait_exit() != 0, "an interrupted game should exit non-zero")


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
            screen_has(r"Leaving now ends the game for everyone")
            tm("send-keys", "-t", "t", "quit", "Enter")
            bob.expect(r"^alice left\.")
            screen_has(r"You left game 1")
            bob.quit()
        finally:
            subprocess.run([tmux, "-L", sock, "kill-server"], capture_output=True, timeout=10)


TESTS = {f.__name__: f for f in (
    two_players, bots_sungka, bots_congklak, bots_kalah, bots_reversi, bots_tictactoe,
    service_bots, stats_and_history, crash_recovery, store_refuses, bad_database, tls, whole_congklak, whole_kalah, whole_reversi, whole_tictactoe,
    tictactoe_4_players, sungka_4_players, late_observer, three_players, refusals, service_refusals, resubscribe,
    rogue_service, capabilities, limits, crowd, sigkill_noticed, frozen_and_back, killed_and_back, grace_runs_out, lobby,
    private_chat, two_winners, hot_seat, quit_confirms, bad_input, vanishing_client, clean_shutdown,
    private_service, terminal)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
