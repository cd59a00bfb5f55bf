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
from harness import Autoplayer, Env, Failure, Proc, check, main  # noqa: E402

# A line from gRPC's own logger rather than one of our sentences.
GRPC_LINE = re.compile(r"chttp2|\.cc:\d+|^E\d{4}")


def _run(env, bindir, prog, *args, timeout=15):
    """Start prog (a program expected to exit by itself); wait for its exit
    and its output. Returns the Proc, with .rc set."""
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
    with Env(bindir) as env:
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


TESTS = {f.__name__: f for f in (used_port, database_lock)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
