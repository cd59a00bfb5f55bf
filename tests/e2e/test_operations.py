#!/usr/bin/python3
"""test_operations.py — running the board service: what an operator meets.

One port and one database belong to one service; a damaged database is
refused with a sentence saying what to do, and --check says what is wrong;
gRPC's own log lines stay out of the way unless --verbose; the service's
bots come back with their games after a restart.
Usage: test_operations.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, Proc, check, main  # noqa: E402

# A line from gRPC's own logger rather than one of our sentences.
GRPC_LINE = re.compile(r"chttp2|\.cc:\d+|^E\d{4}")


def _run(env, bindir, prog, *args, timeout=15):
    """Start prog (a program expected to exit by itself); wait for its exit
    and its output. Returns the Proc, with .rc set. sungka-board's --db is
    where the test keeps its store (harness.Databases)."""
    if prog == "sungka-board":
        args = env.board_args(*args)
    p = Proc(prog, [os.path.join(bindir, prog), *args], stdin=False, env=env.env)
    env.procs.append(p)
    p.rc = p.wait_exit(timeout)
    p.stop()                                   # drains the pipes
    return p


def used_port(bindir):
    """A second service on a port in use refuses to start, with one sentence
    of ours and no line of gRPC's (--verbose shows those); the first one
    keeps every client. An address that is no address is not 'in use'."""
    with Env(bindir) as env:
        first = env.board("--db", ":memory:")
        second = _run(env, bindir, "sungka-board", "--listen", first.address, "--db", ":memory:")
        check(second.rc == 1, f"a second service on {first.address} did not refuse "
                              f"(status {second.rc})\n" + second.dump())
        want = (f"sungka-board: cannot listen on {first.address}: the address is in use "
                f"(is another sungka-board running?)")
        check(second.err_lines == [want], f"wanted exactly\n  {want}\n" + second.dump())
        check(not any("listening" in l for l in second.lines), "it said it was listening")

        loud = _run(env, bindir, "sungka-board", "--listen", first.address, "--db", ":memory:",
                    "--verbose")
        check(loud.rc == 1, "--verbose changed the outcome\n" + loud.dump())
        check(any(GRPC_LINE.search(l) for l in loud.err_lines),
              "--verbose shows no line of gRPC's\n" + loud.dump())
        check(want in loud.err_lines, "--verbose lost our own sentence\n" + loud.dump())

        # The agent's private service on a port in use: the same, through
        # sungka-player, whose --verbose reaches the service it starts.
        for verbose in ([], ["--verbose"]):
            host = _run(env, bindir, "sungka-player", "--serve", first.address, "--name", "h",
                        "--new", "kalah", "--state-dir", "", *verbose)
            check(host.rc != 0, "the host started on a port in use\n" + host.dump())
            check(want in host.err_lines, "the host's service did not say why\n" + host.dump())
            noisy = any(GRPC_LINE.search(l) for l in host.err_lines)
            check(noisy == bool(verbose), f"gRPC lines {'missing' if verbose else 'shown'} "
                                          f"with {verbose}\n" + host.dump())

        bad = _run(env, bindir, "sungka-board", "--listen", "999.1.1.1:7070", "--db", ":memory:")
        check(bad.rc == 1, "an impossible address was accepted\n" + bad.dump())
        check(len(bad.err_lines) == 1 and
              bad.err_lines[0].startswith("sungka-board: cannot listen on 999.1.1.1:7070: ")
              and "in use" not in bad.err_lines[0], "wanted one sentence, not 'in use'\n"
              + bad.dump())

        # The first service still has every client.
        for name in ("ana", "ben", "cy"):
            p = env.player(name, "--server", first.address, "--new", "kalah")
            p.expect(rf"^You are {name}, seat 0\.")
            check(p.quit() == 0, f"{name} did not exit cleanly\n" + p.dump())
        first.expect_stderr(r"cy joined", timeout=10)


def database_lock(bindir):
    """Two services never share a database, whatever their ports: the second
    refuses, naming the file; once the first has stopped, the file is free."""
    with Env(bindir, sqlite_only="the lock on an SQLite file") as env:
        db = os.path.join(env.state_dir, "shared.db")
        first = env.board("--db", db)
        second = _run(env, bindir, "sungka-board", "--listen", "127.0.0.1:0", "--db", db)
        check(second.rc == 1, f"a second service opened {db} (status {second.rc})\n"
                              + second.dump())
        check(second.err_lines == [f"sungka-board: the database {db} is in use by another "
                                   f"sungka-board"], "wanted one sentence naming the file\n"
              + second.dump())
        alice = env.player("alice", "--server", first.address, "--new", "kalah")
        alice.expect(r"^You are alice, seat 0\.")
        alice.quit()
        first.stop()
        check(first.p.returncode == 0, "the first service did not stop cleanly\n" + first.dump())
        again = env.board("--db", db)
        bob = env.player("bob", "--server", again.address, "--new", "kalah")
        bob.expect(r"^You are bob, seat 0\.")
        bob.quit()


def _play_games(env, board, n):
    """n whole kalah games of 'me' against a service bot."""
    me = env.player("me", "--server", board.address, "--new", "kalah", "--bots", "1")
    for i in range(n):
        if i:
            me.send("new kalah bots=1")
        me.expect(r"^You are me, seat 0\.")
        Autoplayer(env, [me], seed=40 + i).play_to_end()
        me.expect(r"^Scores: me \d+, bot-1 \d+")
    check(me.quit() == 0, "me did not exit cleanly\n" + me.dump())


# The sqlite3 program of the recovery step (SUNGKA_TEST_SQLITE3 names another
# build, e.g. one made from SQLite's source where the system's cannot recover).
SQLITE3 = os.environ.get("SUNGKA_TEST_SQLITE3", "sqlite3")


def _recover_supported():
    """Whether the sqlite3 program has a working .recover: it needs the
    sqlite_dbpage table, which some builds (Debian 12's) leave out."""
    if not shutil.which(SQLITE3):
        return False
    r = subprocess.run([SQLITE3, ":memory:", "SELECT count(*) FROM sqlite_dbpage"],
                       capture_output=True, text=True, timeout=30)
    return r.returncode == 0


def _schema_pages(path):
    """SQLite's page size and the pages of its own schema table (which may
    be anywhere in the file once the schema outgrows its first page), or
    None when this SQLite has no dbstat table to tell."""
    import sqlite3
    con = sqlite3.connect(path)
    try:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = {row[0] for row in con.execute(
            "SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
        return size, pages
    except sqlite3.Error:
        return None
    finally:
        con.close()


def damaged_database(bindir):
    """4 KiB of noise in the middle of a database with a few played games:
    the service refuses to start with a sentence saying what to do, --check
    lists the damage (status 1, without taking a port), and the documented
    recovery gives a file the service starts on."""
    with Env(bindir, sqlite_only="a damaged SQLite file, --check and sqlite3's .recover") as env:
        db = os.path.join(env.state_dir, "games.db")
        board = env.board("--db", db, "--bot-think", "20")
        _play_games(env, board, 8)
        board.stop()
        check(board.p.returncode == 0, "the service did not stop cleanly\n" + board.dump())
        check(not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0,
              "the last close left a write-ahead log: the damage would be hidden by it")
        size = os.path.getsize(db)
        check(size >= 16 * 1024, f"the database is only {size} bytes: too small to damage "
                                 "in the middle")
        sound = db + ".sound"
        shutil.copyfile(db, sound)
        middle = size // 2 // 1024 * 1024
        # In the games' pages, as in the attack, not SQLite's schema (which
        # nothing could read, integrity_check included): the first 4 KiB
        # from the middle on that hold none of the schema's pages.
        schema = _schema_pages(db)
        if schema:
            page, pages = schema
            # Every page the 4 KiB touch, not only the first and the last
            # (with 1 KiB pages the schema can be one of those between).
            while set(range(middle // page + 1, (middle + 4095) // page + 2)) & pages:
                middle += page
        check(middle + 4096 <= size, f"no 4 KiB after the middle of the {size}-byte file "
              f"are free of SQLite's schema ({schema})")
        with open(db, "r+b") as f:
            f.seek(middle)
            f.write(random.Random(7).randbytes(4096))

        refused = _run(env, bindir, "sungka-board", "--listen", "127.0.0.1:0", "--db", db)
        check(refused.rc == 1, f"the service started on a damaged database (status "
                               f"{refused.rc})\n" + refused.dump())
        check(len(refused.err_lines) == 1, "wanted one sentence\n" + refused.dump())
        said = refused.err_lines[0]
        for part in (f"the database {db} is damaged", f"sungka-board --db {db} --check",
                     f"sqlite3 {db} .recover | sqlite3 {db}.recovered",
                     f"--db {db}.recovered"):
            check(part in said, f"the sentence lacks '{part}':\n  {said}")

        checked = _run(env, bindir, "sungka-board", "--db", db, "--check")
        check(checked.rc == 1, "--check did not report the damage\n" + checked.dump())
        check(checked.lines and all(l.startswith(f"{db}: ") for l in checked.lines)
              and f"{db}: ok" not in checked.lines, "--check output\n" + checked.dump())
        check(any(re.match(rf"{re.escape(db)}: Page \d+: ", l) for l in checked.lines),
              "--check names no damaged page\n" + checked.dump())
        check(not any("listening" in l for l in checked.lines), "--check started a service")
        ok = _run(env, bindir, "sungka-board", "--db", sound, "--check")
        check(ok.rc == 0 and ok.lines == [f"{sound}: ok"], "--check of a sound file\n"
              + ok.dump())
        # Damage in SQLite's own schema, which nothing can read past: the
        # same sentence (it failed with SQLite's bare "database disk image
        # is malformed" when the schema grew onto the pages the noise hit).
        if schema and len(schema[1] - {1}) > 0:
            page, pages = schema
            in_schema = db + ".schema-damaged"
            shutil.copyfile(sound, in_schema)
            with open(in_schema, "r+b") as f:
                f.seek((min(pages - {1}) - 1) * page)
                f.write(random.Random(8).randbytes(page))
            refused = _run(env, bindir, "sungka-board", "--listen", "127.0.0.1:0", "--db",
                           in_schema)
            check(refused.rc == 1 and len(refused.err_lines) == 1 and
                  f"the database {in_schema} is damaged" in refused.err_lines[0],
                  "damage in the schema's pages\n" + refused.dump())

        if not _recover_supported():
            print(f"note: {SQLITE3} has no working .recover (no sqlite_dbpage table); "
                  "the recovery step was not run")
            return
        recovered = db + ".recovered"
        subprocess.run(f"'{SQLITE3}' '{db}' .recover | '{SQLITE3}' '{recovered}'", shell=True,
                       check=True, timeout=60)
        good = _run(env, bindir, "sungka-board", "--db", recovered, "--check")
        check(good.rc == 0, "the recovered file is not sound\n" + good.dump())
        back = env.board("--db", recovered)
        history = env.player("carol", "--server", back.address)
        history.send("history me")
        history.expect(r"^Match \d+: kalah, \d+ moves: me \d+, bot-1 \d+")
        history.quit()
        alice = env.player("alice", "--server", back.address, "--new", "kalah")
        alice.expect(r"^You are alice, seat 0\.")
        alice.quit()


def _await_turn(agent, timeout=60):
    """Wait until the agent has said it is its turn since the line the
    Autoplayer answered last (that line is left for the Autoplayer)."""
    deadline = time.monotonic() + timeout
    with agent.cond:
        while not any(l.startswith("Your turn") for l in agent.lines[agent.cursor:]):
            left = deadline - time.monotonic()
            check(left > 0 and not agent.closed, "it never became our turn\n" + agent.dump())
            agent.cond.wait(min(left, 0.2))


def _await_line(agent, start, pattern, timeout=30):
    """Wait until a line from index `start` on matches (the cursor stays)."""
    rx = re.compile(pattern)
    deadline = time.monotonic() + timeout
    with agent.cond:
        while not any(rx.search(l) for l in agent.lines[start:]):
            left = deadline - time.monotonic()
            check(left > 0 and not agent.closed, f"no line /{pattern}/\n" + agent.dump())
            agent.cond.wait(min(left, 0.2))


def bots_come_back(bindir):
    """A game against a service bot survives two SIGKILLs of the service:
    restarted on the same database, the bot takes its old seat back at the
    same level and moves again, the person's agent reconnects by itself,
    and the game is played to its end."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "bots.db")
        args = ("--db", db, "--grace", "30", "--bot-think", "20")
        board = env.board(*args)
        me = env.player("me", "--server", board.address, "--new", "kalah",
                        "--bots", "1", "--bot-level", "3")
        me.expect(r"^You are me, seat 0\.")
        board.expect_stderr(r"bot bot-1 \(level 3\) started", timeout=15)
        # Its seat token is handed over privately, not on the command line.
        pid = next(re.search(r"bot bot-1 .* pid (\d+)", l).group(1) for l in board.err_lines
                   if "bot bot-1" in l)
        deadline = time.monotonic() + 15
        while True:                          # until the child has become sungka-player
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode().split("\0")
            if "--token-fd" in argv or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check("--token-fd" in argv and not any(re.search(r"[0-9a-f]{32}", a) for a in argv),
              f"the bot's command line: {argv}")
        auto = Autoplayer(env, [me], seed=21)
        auto.play_moves(2)
        port = board.port
        for restart in (1, 2):
            # Killed on our turn, so no move of the bot's is on its way.
            _await_turn(me)
            mark = len(me.lines)
            board.p.send_signal(signal.SIGKILL)
            board.p.wait(5)
            _await_line(me, mark, r"^Lost the connection to ", timeout=15)
            board = env.board(*args, port=port)
            board.expect_stderr(r"recovered 1 unfinished game", timeout=15)
            board.expect_stderr(r"bot bot-1 \(level 3\) started", timeout=15)
            # Both back before we move: a move sent while the agent is still
            # reconnecting would be refused.
            _await_line(me, mark, r"^Reconnected to ", timeout=30)
            board.expect_stderr(r"me is back", timeout=30)
            board.expect_stderr(r"bot-1 is back", timeout=30)
            # The bot moves again: when it is its turn now, or after ours.
            deadline = time.monotonic() + 60
            while not any(re.match(r"^bot-1 played cup \d+\.", l) for l in me.lines[mark:]):
                check(time.monotonic() < deadline, f"bot-1 did not move after restart "
                                                   f"{restart}\n" + env.dump_all())
                check(not any(l.startswith("Game over:") for l in me.lines[mark:]),
                      "the game ended before the bot moved again\n" + me.dump())
                auto.play_moves(1, timeout=60)
        auto.play_to_end(timeout=180)
        over = [l for l in me.lines if l.startswith("Game over:")]
        check(over and "did not come back" not in over[0], f"the game ended: {over}\n"
              + me.dump())
        me.expect(r"^Scores: me \d+, bot-1 \d+")
        check(me.quit() == 0, "me did not exit cleanly\n" + me.dump())


TESTS = {f.__name__: f for f in (used_port, database_lock, damaged_database, bots_come_back)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
