#!/usr/bin/python3
"""test_streams.py — what one client address can make the service hold
through event streams (issue "[3/8] Open to strangers"): every subscription
of a SubscribeMany counts as a stream of its address, a wrong subscription
ends only itself, IPv6 clients count by their prefix, and a huge request is
refused without the service keeping it.

A stock Python gRPC client sending exactly the bytes it wants (wire.py);
memory is read from /proc/PID/status (VmRSS), bounded generously: it tells
a bounded service from one that keeps what each call asked for. Usage:
test_streams.py BINDIR TEST
"""
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import WRAPPER, Env, Failure, Proc, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _event_kind, _raw_game  # noqa: E402

BOARD = "/sungka.v1.Board/"
STREAMS_PER_CONNECTION = 50     # the service allows 64 calls to a connection
LIMIT_SENTENCE = "open event streams"


def _rss_mb(proc):
    with open(f"/proc/{proc.p.pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def _many(tokens):
    """A SubscribeManyRequest with one subscription per token."""
    return wire.message(*[(1, wire.message((1, t))) for t in tokens])


def _first(stream):
    """The first message of a stream, or the status that ended it:
    ("OK", bytes) or (code name, details)."""
    try:
        return "OK", next(stream)
    except StopIteration:
        return "ENDED", ""
    except Exception as e:     # grpc.RpcError
        return e.code().name, e.details() or ""


def _gather(stream, into, done):
    """Every MultiEvent of stream into a list, then set done."""
    try:
        for m in stream:
            into.append(m)
    except Exception as e:     # grpc.RpcError: cancelled, or ended with a status
        into.append(e)
    done.set()


def legs_count_as_streams(bindir):
    """Each subscription of a SubscribeMany is a stream of its address: 60
    calls of 1,000 subscriptions (one token over and over, as the attack
    sent) are refused with the sentence before anything is served, and the
    service's memory stays where it was. (Each was served: only the token's
    one stream counted, so 600 such calls took the service from 21 MB to
    ~850 MB.) Calls within the limit are served, and their legs come back
    to the address when they end."""
    calls, legs = 60, 1000
    with Env(bindir) as env:
        board = env.board()          # the defaults: 256 streams per address
        lobby = wire.Client(board.address)
        conns = [wire.Client(board.address, own_connection=True)
                 for _ in range((calls + STREAMS_PER_CONNECTION - 1) // STREAMS_PER_CONNECTION)]
        streams = []
        try:
            _, (alice, bob) = _raw_game(lobby)
            before = _rss_mb(board)
            for i in range(calls):
                streams.append(conns[i // STREAMS_PER_CONNECTION].stream(
                    BOARD + "SubscribeMany", _many([bob] * legs), timeout=120))
            answers = [_first(s) for s in streams]
            refused = [a for a in answers if a[0] == "RESOURCE_EXHAUSTED"]
            time.sleep(1)            # what was sent, queued for clients that do not read
            grown = _rss_mb(board) - before
            print(f"{calls} SubscribeMany calls of {legs}: {len(refused)} refused; "
                  f"the service grew by {grown:.1f} MB")
            check(len(refused) == calls, f"over the limit yet answered: "
                  f"{[a[0] for a in answers if a[0] != 'RESOURCE_EXHAUSTED'][:5]}")
            check(all(LIMIT_SENTENCE in a[1] for a in refused),
                  f"refused without the sentence: {refused[0][1]}")
            check(grown < 40, f"the service grew by {grown:.1f} MB for refused calls")
            for s in streams:
                s.cancel()
            streams.clear()
            # Within the limit: 200 legs served, then 100 more are too many,
            # until the first call ends and its 200 come back.
            first = conns[0].stream(BOARD + "SubscribeMany", _many([alice] * 200), timeout=60)
            streams.append(first)
            check(_first(first)[0] == "OK", "a call of 200 subscriptions was not served")
            code, text = _first(conns[1].stream(BOARD + "SubscribeMany",
                                                _many([bob] * 100), timeout=60))
            check(code == "RESOURCE_EXHAUSTED" and LIMIT_SENTENCE in text,
                  f"200 + 100 subscriptions from one address: {code} {text}")
            first.cancel()

            def served():
                s = conns[1].stream(BOARD + "SubscribeMany", _many([bob] * 100), timeout=60)
                streams.append(s)
                return _first(s)[0] == "OK"
            deadline = time.monotonic() + 15
            while not served():
                check(time.monotonic() < deadline,
                      "the legs of a cancelled call never came back to the address")
                time.sleep(0.2)
        finally:
            for s in streams:
                s.cancel()
            for c in conns + [lobby]:
                c.close()


def invalid_first_leg(bindir):
    """A wrong token as the first subscription ends that subscription only
    (proto: "the others go on"): the valid ones after it get their
    snapshots. (The first one's end ended the call, and the rest were
    answered "out of memory".)"""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            _, (alice, bob) = _raw_game(client)
            got, done = [], threading.Event()
            stream = client.stream(BOARD + "SubscribeMany", _many(["0" * 32, alice, bob]),
                                   timeout=60)
            threading.Thread(target=_gather, args=(stream, got, done), daemon=True).start()
            deadline = time.monotonic() + 15
            snapshots, ended = set(), {}
            while (len(snapshots) < 2 or not ended) and time.monotonic() < deadline:
                if done.is_set() and not [m for m in got if isinstance(m, bytes)]:
                    break
                for m in [m for m in got if isinstance(m, bytes)]:
                    end = wire.get(m, 3)
                    if end is not None:
                        ended[wire.get(end, 1, 0)] = (wire.get(end, 2, 0),
                                                      wire.get(end, 3, b"").decode())
                    elif _event_kind(wire.get(m, 2)) == 10:
                        snapshots.update(wire.repeated(m, 1))
                time.sleep(0.1)
            stream.cancel()
            check(ended.get(0) == (16, "UNKNOWN_TOKEN"),
                  f"the wrong first token ended {ended} (16: UNAUTHENTICATED)")
            check(snapshots == {1, 2}, f"snapshots came for {sorted(snapshots)}, not 1 and 2; "
                  f"the stream: {[m for m in got if not isinstance(m, bytes)]}")
        finally:
            client.close()


TESTS = {f.__name__: f for f in (legs_count_as_streams, invalid_first_leg)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
