#!/usr/bin/python3
"""test_private.py — the agent's private board service (sungka-player without
--server), when the user's statistics file is already in use.

A private service keeps its results in the user's default database, and a
service holds its database alone (an exclusive lock). A second private game
for the same user at the same time must still play, on a service that keeps
nothing, and say so in one sentence.
Usage: test_private.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402

NOT_KEPT = ("This game's result will not be kept: another Sungka game on this computer "
            "holds the statistics file.")


def two_at_once(bindir):
    """Two private games at once, both played to the end: the first keeps
    its result; the second says it will not, once, and the file is whole
    and free again once both have left."""
    with Env(bindir) as env:
        first = env.player("ana", "--new", "kalah", "--bots", "1")
        first.expect(r"^You are ana, seat 0\.")
        second = env.player("ben", "--new", "kalah", "--bots", "1")
        second.expect(r"^You are ben, seat 0\.")
        check(second.lines.count(NOT_KEPT) == 1,
              "the second game did not say, once, that it keeps nothing\n" + second.dump())
        check(NOT_KEPT not in first.lines, "the first game said it keeps nothing\n"
              + first.dump())
        Autoplayer(env, [first, second], seed=11).play_to_end()
        for p in (first, second):
            p.expect(r"^Scores: \S+ \d+, bot-1 \d+")
        first.send("stats")
        first.expect(r"^ana: 1 played, ")
        check(first.quit() == 0, "ana did not exit cleanly\n" + first.dump())
        check(second.quit() == 0, "ben did not exit cleanly\n" + second.dump())

        # ana's game is in the file, ben's is not, and the file is free.
        third = env.player("cy", "--new", "kalah")
        third.expect(r"^You are cy, seat 0\.")
        check(NOT_KEPT not in third.lines, "the file is still taken\n" + third.dump())
        third.send("stats ana")
        third.expect(r"^ana: 1 played, ")
        third.send("stats ben")
        third.expect(r"^ben: 0 played, ")
        check(third.quit() == 0, "cy did not exit cleanly\n" + third.dump())


TESTS = {f.__name__: f for f in (two_at_once,)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
