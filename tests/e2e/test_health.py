#!/usr/bin/python3
"""test_health.py — grpc.health.v1.Health/Watch, as an orchestrator or a
load balancer uses it, from a stock Python gRPC client: the status at once,
then each change (the service's loop stalled by a store lock and turning
again), SERVICE_UNKNOWN for a name the service does not answer for (the
stream stays open), streams capped per address and in all, and a client
that leaves gives its stream back; the service stops cleanly with streams
open; at a relay too. (Check is tested with the stalls in test_cluster.py and
test_durability.py.)
Usage: test_health.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import queue
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
from e2e_util import OtherAddress, StoreLock  # noqa: E402
import wire  # noqa: E402

WATCH = "/grpc.health.v1.Health/Watch"
SERVING, NOT_SERVING, SERVICE_UNKNOWN = 1, 2, 3
T = 15.0


class Watcher:
    """One Watch stream, its statuses gathered by a thread into .got (a
    queue of status numbers, or ("end", code, details) when it ended)."""

    def __init__(self, address, service=""):
        self.client = wire.Client(address, own_connection=True)
        self.call = self.client.stream(WATCH, wire.message((1, service)) if service else b"",
                                       timeout=120)
        self.got = queue.Queue()
        threading.Thread(target=self._gather, daemon=True).start()

    def _gather(self):
        try:
            for msg in self.call:
                self.got.put(wire.get(msg, 1, 0))
        except Exception as e:          # grpc.RpcError: the stream's end
            self.got.put(("end", e.code().name, e.details()))

    def next(self, what, timeout=T):
        try:
            return self.got.get(timeout=timeout)
        except queue.Empty:
            check(False, f"{what}: nothing came on the Watch stream in {timeout} s")

    def close(self):
        self.call.cancel()
        self.client.close()


def _first(address, service=""):
    """A Watch's first answer: a status, or ("end", code, details)."""
    w = Watcher(address, service)
    return w, w.next(f"Watch({service!r})")


def changes_followed(bindir):
    """Watch sends SERVING at once for "" and for each service the service
    answers Check for; SERVICE_UNKNOWN for another name, and that stream
    stays open. While another program holds the store's lock a write waits
    in the loop (SQLite's busy timeout, 1 s, past --stall-limit 300): the
    streams say NOT_SERVING, then SERVING once the loop turns again. Streams
    still open when the service stops end it cleanly (exit 0)."""
    with Env(bindir, sqlite_only="SQLite's busy timeout stalls the loop for a set time") as env:
        db = os.path.join(env.state_dir, "health.db")
        board = env.board("--db", db, "--stall-limit", "300")
        watchers = {}
        for name in ("", "sungka.v1.Board", "sungka.v1.Register", "sungka.v1.Accounts",
                     "sungka.v1.Admin"):
            w, first = _first(board.address, name)
            watchers[name] = w
            check(first == SERVING, f"Watch({name!r}) began with {first} (1 is SERVING)")
        unknown, first = _first(board.address, "sungka.v1.Nothing")
        check(first == SERVICE_UNKNOWN,
              f"Watch of an unknown service began with {first} (3 is SERVICE_UNKNOWN)")
        # Nothing changed: nothing more is sent (a change is sent, not a beat).
        time.sleep(1)
        for name, w in watchers.items():
            check(w.got.empty(), f"Watch({name!r}) sent {list(w.got.queue)} with nothing "
                                 f"changed")
        check(unknown.call.is_active(), "the unknown service's Watch stream was ended")

        lock = StoreLock(env, db)
        lock.take()
        client = wire.Client(board.address)
        # The write waits the busy timeout in the loop, then is refused.
        client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "kalah")), timeout=T)
        lock.release()
        lock.close()
        for name, w in watchers.items():
            got = [w.next(f"Watch({name!r}) during the stall"),
                   w.next(f"Watch({name!r}) after the stall")]
            check(got == [NOT_SERVING, SERVING],
                  f"Watch({name!r}) sent {got} across the stall (2 is NOT_SERVING, then 1)\n" +
                  board.dump())
        check(unknown.got.empty(), "the unknown service's status changed with the loop's")
        code, _ = client.raw("/grpc.health.v1.Health/Check", b"", timeout=T)
        check(code == "OK", f"Check after the stall: {code}")
        client.close()
        board.stop()
        check(board.p.returncode == 0,
              f"the service did not stop cleanly with Watch streams open "
              f"(status {board.p.returncode})\n" + board.dump())
        for name, w in watchers.items():
            end = w.next(f"Watch({name!r}) at the service's end")
            check(isinstance(end, tuple) and end[1] in ("UNAVAILABLE", "CANCELLED"),
                  f"Watch({name!r}) got {end} at the service's end, not the stream's end")
            w.close()
        unknown.close()


def streams_capped(bindir):
    """--max-health-watches 4: one stream per client address (a quarter),
    four in all; past either cap a Watch is refused RESOURCE_EXHAUSTED with
    a sentence naming it. A client that leaves (cancels) gives its stream
    back: the same address may then watch again."""
    with Env(bindir) as env:
        board = env.board("--max-health-watches", "4")
        own, first = _first(board.address)
        check(first == SERVING, f"the first Watch began with {first}")
        second, end = _first(board.address)
        check(isinstance(end, tuple) and end[1] == "RESOURCE_EXHAUSTED" and
              "your address has 1 Watch streams open" in end[2],
              f"a second Watch from one address: {end}")
        second.close()
        others, held = [], []
        try:
            for i in range(2, 6):
                fwd = OtherAddress(board.address, host=f"127.0.0.{i}")
                others.append(fwd)
                w, first = _first(fwd.address)
                held.append(w)
                if i < 5:
                    check(first == SERVING, f"Watch from 127.0.0.{i} began with {first}")
                else:
                    check(isinstance(first, tuple) and first[1] == "RESOURCE_EXHAUSTED" and
                          "the most it keeps (--max-health-watches)" in first[2],
                          f"a fifth Watch (from a fifth address): {first}")
            # The first client leaves: its stream is given back, so the
            # same address watches again (the service notices the cancel).
            own.close()
            deadline = time.monotonic() + T
            while True:
                again, first = _first(board.address)
                again.close()
                if first == SERVING:
                    break
                check(time.monotonic() < deadline,
                      f"a Watch after the first client left is still refused: {first}")
                time.sleep(0.2)
        finally:
            for w in held:
                w.close()
            for fwd in others:
                fwd.close()
        board.stop()
        check(board.p.returncode == 0, "the service did not stop cleanly\n" + board.dump())


def at_a_relay(bindir):
    """A relay answers Watch too: SERVING for "" and the services it serves,
    SERVICE_UNKNOWN for another (the stream kept open); each Watch is an open
    stream of its address at the relay (--max-client-streams 2: a third is
    refused, and one given back lets the next in)."""
    with Env(bindir) as env:
        board = env.board()
        relay = env.relay(board.address, "--max-client-streams", "2")
        served, first = _first(relay.address, "sungka.v1.Board")
        check(first == SERVING, f"Watch(sungka.v1.Board) at the relay began with {first}")
        unknown, first = _first(relay.address, "sungka.v1.Accounts")
        check(first == SERVICE_UNKNOWN,
              f"Watch of a service the relay does not serve began with {first}")
        third, end = _first(relay.address)
        check(isinstance(end, tuple) and end[1] == "RESOURCE_EXHAUSTED",
              f"a third stream from one address at the relay: {end}")
        third.close()
        check(unknown.call.is_active(), "the unknown service's Watch stream was ended")
        unknown.close()
        deadline = time.monotonic() + T
        while True:
            again, first = _first(relay.address)
            again.close()
            if first == SERVING:
                break
            check(time.monotonic() < deadline, f"a Watch after one left is refused: {first}")
            time.sleep(0.2)
        served.close()
        relay.stop()
        check(relay.p.returncode == 0, "the relay did not stop cleanly\n" + relay.dump())


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (changes_followed, streams_capped, at_a_relay)}))
