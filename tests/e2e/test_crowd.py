#!/usr/bin/python3
"""test_crowd.py — a popular game: 2,000 observers join one game and open
their streams in seconds, not minutes (issue [5/7]: each join used to cost
every watcher a message, so 5,000 took 267 s). A join costs the same with
2,000 watching as with none, the snapshots and pings count the crowd, and
the players hear nothing of it. And SubscribeMany: one stream carrying a
crowd, each event once for all of it.

The bound is generous (a loaded CI machine, the sanitizer build): the
service itself takes about a second; PERFORMANCE.md has the measured
figures (sungka-bench --only join). Usage: test_crowd.py BINDIR TEST
"""
import os
import queue
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _event_kind, _raw_game  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, auth)

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


def subscribe_many(bindir):
    """One SubscribeMany stream carries 60 observers and a player, from a
    stock client with stubs protoc compiles from our .proto: each gets a
    snapshot (the player's own), a wrong token ends only its own subscription, a move
    arrives once naming all 61, leaving ends one subscription with OK, and
    cancelling the call departs them all."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--client-join-rate", "1000")
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb, grpc = stubs.pb, stubs.grpc
        channel = grpc.insecure_channel(board.address)
        lobby = stubs.pb_grpc.RegisterStub(channel)
        boardstub = stubs.pb_grpc.BoardStub(channel)
        game = lobby.CreateGame(pb.CreateGameRequest(kind="kalah"), timeout=15).game.game_id
        tokens = {}
        for name in ["alice", "bob"] + [f"w{i}" for i in range(60)]:
            ref = lobby.JoinGame(pb.JoinGameRequest(game_id=game, name=name,
                                                    observe=name.startswith("w")), timeout=15)
            tokens[name] = ref.token
        names = [f"w{i}" for i in range(60)] + ["nobody", "bob"]
        subs = [pb.Subscription(token=tokens.get(n, "0" * 32)) for n in names]
        call = boardstub.SubscribeMany(pb.SubscribeManyRequest(subscriptions=subs), timeout=60)
        got = queue.Queue()

        def gather():
            try:
                for m in call:
                    got.put(m)
            except grpc.RpcError as e:
                got.put(e)
        threading.Thread(target=gather, daemon=True).start()

        def next_where(what, pred, timeout=15.0):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    m = got.get(timeout=0.2)
                except queue.Empty:
                    continue
                check(not isinstance(m, Exception), f"the stream failed: {m}")
                if pred(m):
                    return m
            raise Failure(f"no {what} within {timeout} s")
        snapshots = set()
        ended = None
        while len(snapshots) < 61 or ended is None:
            m = next_where("snapshot", lambda m: True)
            if m.HasField("ended"):
                ended = m.ended
            elif m.event.WhichOneof("body") == "snapshot":
                # the observers' snapshots are the same bytes: they may come
                # as one; bob's names his seat, so it comes on its own
                mine = stubs.seat(m.event.snapshot, "your_seat")
                check((mine == 1) == (61 in m.subscriptions) and
                      (mine is None or len(m.subscriptions) == 1),
                      f"a snapshot with your_seat {mine} for {list(m.subscriptions)}")
                snapshots.update(m.subscriptions)
        check(ended.subscription == 60 and ended.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
              and ended.reason == "UNKNOWN_TOKEN", f"the wrong token's end: {ended}")
        check(snapshots == set(range(60)) | {61}, f"snapshots for {sorted(snapshots)}")
        for name in ("alice", "bob"):
            boardstub.Ready(pb.ReadyRequest(ready=True), metadata=stubs.auth(tokens[name]),
                            timeout=15)
        boardstub.Move(pb.MoveRequest(move=0), metadata=stubs.auth(tokens["alice"]), timeout=15)
        moved = next_where("MoveMade", lambda m: m.event.WhichOneof("body") == "move_made")
        check(sorted(moved.subscriptions) == list(range(60)) + [61],
              f"the move came for {sorted(moved.subscriptions)}, not all 61 at once")
        boardstub.Leave(pb.LeaveRequest(), metadata=stubs.auth(tokens["w7"]), timeout=15)
        left = next_where("w7's end", lambda m: m.HasField("ended"))
        check(left.ended.subscription == 7 and left.ended.code == 0,
              f"leaving ended {left.ended}")
        # alice watches on her own stream: the crowd's departure shows in
        # the pings' count of observers (59 before, none after).
        alice = boardstub.Subscribe(pb.SubscribeRequest(), metadata=stubs.auth(tokens["alice"]),
                                    timeout=60)

        def ping_says(n):
            for ev in alice:
                if ev.WhichOneof("body") == "ping" and ev.ping.observers == n:
                    return True
        check(ping_says(59), "no ping said 59 are watching")
        call.cancel()
        check(ping_says(0), "the crowd stayed after its stream was cancelled")
        alice.cancel()
        channel.close()


TESTS = {f.__name__: f for f in (two_thousand_observers, subscribe_many)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
