#!/usr/bin/python3
"""test_crowd.py — a popular game: 2,000 observers join one game and open
their streams in seconds, not minutes (issue [5/7]: each join used to cost
every watcher a message, so 5,000 took 267 s). A join costs the same with
2,000 watching as with none, the snapshots and pings count the crowd, and
the players hear nothing of it.

The bound is generous (a loaded CI machine, the sanitizer build): the
service itself takes about a second; PERFORMANCE.md has the measured
figures (sungka-bench --only join). Usage: test_crowd.py BINDIR TEST
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _event_kind, _raw_game  # noqa: E402

REGISTER = "/sungka.v1.Register/"
BOARD = "/sungka.v1.Board/"
CROWD = 2000
STREAMS_PER_CONNECTION = 50    # the service allows 64 streams to a connection
BOUND_S = 60.0                 # the old quadratic joins took minutes here
BATCH = 200                    # the first and the last joins, timed


def _join_and_watch(client, game_id, name):
    code, ref = client.raw(REGISTER + "JoinGame",
                           wire.message((1, game_id), (2, name), (3, True)))
    check(code == "OK", f"JoinGame {name}: {code} {ref}")
    stream = client.stream(BOARD + "Subscribe", b"", token=wire.get(ref, 3).decode(),
                           timeout=300)
    snap = next(stream)
    check(_event_kind(snap) == 10, f"{name}: the first event must be a snapshot")
    return stream, snap


def _observers_in(snap):
    return wire.get(wire.get(wire.get(snap, 10), 1), 7, 0)


def two_thousand_observers(bindir):
    """2,000 observers of one game, on the service's default
    --max-participants, joined and watching within the bound; the last
    joins take no longer than the first; the players' streams carry no
    event for them, and a ping counts them all."""
    with Env(bindir) as env:
        board = env.board("--max-client-observers", "5000", "--max-client-streams", "5000",
                          "--client-join-rate", "1000000", "--ping-interval", "1")
        lobby = wire.Client(board.address)
        clients = [wire.Client(board.address, own_connection=True)
                   for _ in range((CROWD + STREAMS_PER_CONNECTION - 1) //
                                  STREAMS_PER_CONNECTION)]
        streams = []
        try:
            game_id, (_, bob) = _raw_game(lobby)
            bob_stream = lobby.stream(BOARD + "Subscribe", b"", token=bob, timeout=300)
            first = next(bob_stream)
            last_seq = wire.get(wire.get(first, 10), 5, 0)
            batch_s = []
            start = time.monotonic()
            t = start
            for i in range(CROWD):
                s, snap = _join_and_watch(clients[i // STREAMS_PER_CONNECTION], game_id,
                                          f"watcher{i}")
                streams.append(s)
                if i + 1 in (BATCH, CROWD):
                    batch_s.append(time.monotonic() - t)
                if i + 1 == CROWD - BATCH:
                    t = time.monotonic()
            took = time.monotonic() - start
            print(f"{CROWD} observers joined and watching in {took:.1f} s; the first "
                  f"{BATCH} took {batch_s[0]:.2f} s, the last {BATCH} {batch_s[1]:.2f} s")
            check(took < BOUND_S, f"{CROWD} observers took {took:.1f} s to join")
            check(_observers_in(snap) == CROWD,
                  f"the last snapshot counts {_observers_in(snap)} observers")
            # Joins do not slow down as the crowd grows: generous for noise,
            # far below the quadratic joins (each cost a message per watcher).
            check(batch_s[1] < 3 * batch_s[0] + 0.5,
                  f"the last {BATCH} joins took {batch_s[1]:.2f} s, the first "
                  f"{batch_s[0]:.2f} s")
            for ev in bob_stream:
                seq = wire.get(ev, 1, 0)
                if seq != 0:
                    raise Failure(f"bob got a logged event for the crowd: {wire.fields(ev)}"
                                  f" (after seq {last_seq})")
                if _event_kind(ev) == 19 and wire.get(wire.get(ev, 19), 3, 0) == CROWD:
                    break
        finally:
            for s in streams:
                s.cancel()
            for c in clients:
                c.close()
            lobby.close()


TESTS = {f.__name__: f for f in (two_thousand_observers,)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
