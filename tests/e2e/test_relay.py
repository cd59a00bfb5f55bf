#!/usr/bin/python3
"""test_relay.py — sungka-relay (issue 18): a game's audience served from
relays that each take the game's stream once. 1,000 observers across three
relays (one fed by another) see exactly the host's events, in order, with no
gap; a relay killed mid-game costs its observers a few seconds, after which
they watch on from another relay where they left off."""
import asyncio
import os
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, Failure, check, main  # noqa: E402
from e2e_util import _event_kind, await_moves, moves_seen  # noqa: E402
import wire  # noqa: E402

import grpc  # noqa: E402

CROWD = 1000
STREAMS_PER_CONNECTION = 50
# The crowd all comes from 127.0.0.1: past a relay's limits per address.
CROWD_LIMITS = ("--max-client-observers", "1000", "--max-client-streams", "1000",
                "--client-join-rate", "1000")
SNAPSHOT, GAME_OVER, PING = 10, 18, 19


async def _watch(channel, game_id, name, ready, out):
    """Join at a relay as an observer and gather (seq, bytes) until the game
    is over; the snapshot first, as (its last_seq, bytes)."""
    join = channel.unary_unary("/sungka.v1.Register/JoinGame")
    ref = await join(wire.message((1, game_id), (2, name), (3, True)), timeout=60)
    token = wire.get(ref, 3).decode()
    subscribe = channel.unary_stream("/sungka.v1.Board/Subscribe")
    call = subscribe(b"", timeout=300, metadata=[("authorization", f"Bearer {token}")])
    async for ev in call:
        kind = _event_kind(ev)
        if kind == SNAPSHOT:
            out.append(("snapshot", wire.get(wire.get(ev, SNAPSHOT), 5, 0), ev))
            ready()
        elif kind != PING:
            out.append(("event", wire.get(ev, 1, 0), ev))
        if kind == GAME_OVER:
            call.cancel()
            return


def _crowd(relays, game_id, everyone_in, failures):
    """CROWD observers spread over the relays, in a thread of their own;
    `finished` is set once every one has seen the game end (or failed)."""
    seen = [[] for _ in range(CROWD)]
    pending = [CROWD]
    lock = threading.Lock()
    finished = threading.Event()

    def ready():
        with lock:
            pending[0] -= 1
            if pending[0] == 0:
                everyone_in.set()

    async def run():
        opts = [("grpc.use_local_subchannel_pool", 1)]
        channels = [grpc.aio.insecure_channel(relays[i % len(relays)].address, options=opts)
                    for i in range(CROWD // STREAMS_PER_CONNECTION)]
        tasks = [_watch(channels[i // STREAMS_PER_CONNECTION], game_id, f"w{i}", ready,
                        seen[i]) for i in range(CROWD)]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        failures.extend(r for r in results if isinstance(r, BaseException))
        finished.set()
        for c in channels:               # (closing many channels may take its time)
            await c.close()

    threading.Thread(target=lambda: asyncio.run(run()), daemon=True).start()
    return finished, seen


def crowd_across_relays(bindir):
    """1,000 observers on three relays (the third fed by the second: a
    tree) of one game: each gets the relay's snapshot, then every logged
    event after it once and in order, byte for byte what an observer at the
    game's own service gets; the service serves three relays, not 1,000."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1")
        r1 = env.relay(board.address, *CROWD_LIMITS)
        r2 = env.relay(board.address, *CROWD_LIMITS)
        r3 = env.relay(r2.address, *CROWD_LIMITS)   # a relay of a relay
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        direct = wire.Client(board.address)
        code, ref = direct.raw("/sungka.v1.Register/JoinGame",
                               wire.message((1, game), (2, "direct"), (3, True)))
        check(code == "OK", f"JoinGame at the service: {code} {ref}")
        reference = {}
        ended = threading.Event()

        def gather_reference():
            for ev in direct.stream("/sungka.v1.Board/Subscribe", b"",
                                    token=wire.get(ref, 3).decode(), timeout=300):
                seq = wire.get(ev, 1, 0)
                if seq:
                    reference[seq] = ev
                if _event_kind(ev) == GAME_OVER:
                    ended.set()
                    return
        threading.Thread(target=gather_reference, daemon=True).start()

        everyone_in = threading.Event()
        failures = []
        finished, seen = _crowd([r1, r2, r3], game, everyone_in, failures)
        check(everyone_in.wait(120), f"the crowd did not get in: {failures[:3]}")
        auto = Autoplayer(env, [alice, bob], seed=7)
        auto.play_to_end()
        check(ended.wait(30), "the direct observer did not see the game end")
        if not finished.wait(60) or failures:
            done = [any(_event_kind(ev) == GAME_OVER for _, _, ev in got) for got in seen]
            stuck = {}
            for i, d in enumerate(done):
                if not d:
                    r = (i // STREAMS_PER_CONNECTION) % 3
                    stuck.setdefault(r, []).append(seen[i][-1][1] if seen[i] else None)
            raise Failure(f"observers failed: {len(failures)}: {failures[:3]}; not over, "
                          f"by relay (last seq seen): { {r: v[:5] for r, v in stuck.items()} } "
                          f"of {len(reference)} events\n" + env.dump_all())
        last = max(reference)
        for i, got in enumerate(seen):
            kind, after, _ = got[0]
            check(kind == "snapshot", f"w{i}: the first event is no snapshot")
            seqs = [s for k, s, _ in got[1:]]
            check(seqs == list(range(after + 1, last + 1)),
                  f"w{i}: events {seqs[:5]}...{seqs[-3:]} after snapshot {after}, the host "
                  f"logged up to {last}")
            for _, s, ev in got[1:]:
                if ev != reference[s]:
                    raise Failure(f"w{i}: event {s} differs from the host's")
        # The service fed three relays and one direct observer, not the crowd.
        check(sum(1 for l in board.err_lines if "joined as an observer" in l) == 3,
              "the service saw more observers than its relay and direct ones:\n" + board.dump())
        direct.close()
        for p in (alice, bob):
            p.quit()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def relay_killed(bindir):
    """The service sends its observers to two relays in turn (--relays,
    --relay-after 1: the first relay counts); one relay is killed mid-game: its observers watch on
    within seconds, at the other, from where they were: every observer sees
    every move once."""
    with Env(bindir) as env:
        port = _free_port()                     # the relays need it, and it needs them
        r1 = env.relay(f"127.0.0.1:{port}")
        r2 = env.relay(f"127.0.0.1:{port}")
        board = env.board("--ping-interval", "1", "--relays", f"{r1.address},{r2.address}",
                          "--relay-after", "1", port=port)
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        watchers = []
        first = env.player("first", "--server", board.address, "--game", game, "--observe")
        first.expect(r"^You are observing\.")    # at the service: the audience is 1 now
        for i in range(4):                      # in turn: w0 and w2 to the first relay
            w = env.player(f"w{i}", "--server", board.address, "--game", game, "--observe")
            w.expect(r"^You are observing\.")
            watchers.append(w)
        check(sum(1 for l in r1.err_lines if "relaying it" in l) == 1 and
              sum(1 for l in r2.err_lines if "relaying it" in l) == 1,
              "the observers were not spread over both relays:\n" + env.dump_all())
        auto = Autoplayer(env, [alice, bob], seed=9)
        auto.play_moves(6)
        for w in watchers:
            await_moves(w, 6)
        killed = time.monotonic()
        r1.p.send_signal(signal.SIGKILL)
        r1.p.wait(5)
        for w in (watchers[0], watchers[2]):
            w.wait_for(r"^Reconnected to ", timeout=20)
        took = time.monotonic() - killed
        check(took < 15, f"the first relay's observers came back after {took:.1f} s")
        auto.play_to_end()
        for w in watchers:
            w.expect(r"^Game over:")
        played = moves_seen(alice)
        for w in watchers:
            check(moves_seen(w) == played, f"{w.name} saw {len(moves_seen(w))} moves, "
                                           f"alice {len(played)}\n" + w.dump())
        for p in [alice, bob, first] + watchers:
            p.quit()


if __name__ == "__main__":
    sys.exit(main({"crowd_across_relays": crowd_across_relays, "relay_killed": relay_killed}))
