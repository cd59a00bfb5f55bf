#!/usr/bin/python3
"""test_relay_strangers.py — a relay open to strangers (issue "[3/8] Open to
strangers"): a stranger's made-up game ids do not shut the relay's door to
everyone else, one address cannot take more than its share of a relay's
watcher slots and streams, and nobody but a relay with the board service's
key may say whose join it carries.

A second address on one machine: a small TCP forwarder whose connections to
the relay leave from 127.0.0.2 (e2e_util.OtherAddress). Usage: FILE.py BINDIR TEST
"""
import collections
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
from e2e_util import OtherAddress, _event_kind  # noqa: E402
import wire  # noqa: E402

import grpc  # noqa: E402

REGISTER = "/sungka.v1.Register/"
BOARD = "/sungka.v1.Board/"
SNAPSHOT = 10
KEY_HEADER, FOR_HEADER = "x-sungka-relay-key", "x-sungka-relay-for"


def _key_file(env, name="relay.key", key="k" * 20 + "0123456789abcdef0123"):
    path = os.path.join(env.state_dir, name)
    with open(path, "w") as f:
        f.write(key + "\n")
    os.chmod(path, 0o600)
    return path, key


def _join(game_id, name, observe=True):
    return wire.message((1, game_id), (2, name), (3, observe))


def _new_game(client):
    code, reply = client.raw(REGISTER + "CreateGame", wire.message((1, "kalah")))
    check(code == "OK", f"CreateGame: {code} {reply}")
    return wire.first_string(wire.first_message(reply, 1), 1)


def _first_event(client, token):
    """The first event of a Subscribe with token (a snapshot), then cancel."""
    stream = client.stream(BOARD + "Subscribe", b"", token=token, timeout=30)
    ev = next(stream)
    stream.cancel()
    return ev


def stranger_at_relay(bindir):
    """A stranger sends joins for made-up game ids to a relay as fast as it
    is answered (far more than 25 a second, from four connections) while an
    observer from another address joins five games there one after another:
    each of its joins goes upstream, and each is let in and gets its
    snapshot. The stranger is held to its own 20 joins a second."""
    with Env(bindir) as env:
        key, _ = _key_file(env)
        board = env.board("--relay-key", key)
        relay = env.relay(board.address, "--relay-key", key)
        direct = wire.Client(board.address)
        games = [_new_game(direct) for _ in range(5)]
        stop = threading.Event()
        lock = threading.Lock()
        sent = [0]
        answers = collections.Counter()

        def flood(k):
            c = wire.Client(relay.address, own_connection=True)
            i = 0
            while not stop.is_set():
                code, _, details = c.reason(REGISTER + "JoinGame",
                                            _join(f"made-up-{k}-{i}", "stranger"))
                i += 1
                with lock:
                    sent[0] += 1
                    answers[(code, "no such game" if code == "NOT_FOUND" else details)] += 1
            c.close()

        started = time.monotonic()
        threads = [threading.Thread(target=flood, args=(k,), daemon=True) for k in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while sent[0] < 100 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(sent[0] >= 100, f"the stranger's joins were not answered: {sent[0]} in 30 s")
        let_in = []
        with OtherAddress(f"127.0.0.1:{relay.port}", "127.0.0.2") as proxy:
            observer = wire.Client(proxy.address, own_connection=True)
            for g in games:
                code, ref = observer.raw(REGISTER + "JoinGame", _join(g, "watcher"), timeout=20)
                check(code == "OK", f"game {g}: an observer from 127.0.0.2 was refused while a "
                                    f"stranger sent {sent[0]} joins: {code} {ref}\n"
                                    + relay.dump())
                ev = _first_event(observer, wire.get(ref, 3).decode())
                check(_event_kind(ev) == SNAPSHOT, f"game {g}: no snapshot first")
                let_in.append(g)
                time.sleep(0.3)
            observer.close()
        stop.set()
        for t in threads:
            t.join(15)
        took = time.monotonic() - started
        print(f"stranger: {sent[0]} joins in {took:.1f} s ({sent[0] / took:.0f} a second): "
              f"{dict(answers)}; observer let in to {len(let_in)} of {len(games)} games")
        check(any("too many joins from your address" in d for _, d in answers),
              f"the relay did not hold the stranger to its join rate: {dict(answers)}")
        check(any(c == "NOT_FOUND" for c, _ in answers),
              f"no made-up game id reached the board service: {dict(answers)}")
        direct.close()


def relay_seats_per_address(bindir):
    """With the default slots, one address takes 256 watcher slots at a relay
    and no more (the board service's --max-client-observers), refused with a
    sentence; another address still gets in. Its event streams are bounded
    likewise (--max-client-streams, 3 here), and one ended gives its place
    back. (Joins are let in at 1,000 a second, not 20: the 256 take a
    moment, not 13 s; the join rate has its own test, stranger_at_relay.)"""
    with Env(bindir) as env:
        board = env.board()
        relay = env.relay(board.address, "--client-join-rate", "1000")
        game = _new_game(wire.Client(board.address))
        one = wire.Client(relay.address, own_connection=True)
        held, refusal = 0, None
        deadline = time.monotonic() + 120
        while held <= 300 and refusal is None and time.monotonic() < deadline:
            code, reason, details = one.reason(REGISTER + "JoinGame", _join(game, f"w{held}"))
            if code == "OK":
                held += 1
            elif "too many joins from your address" in details:
                time.sleep(0.05)                # 20 a second, as at a board service
            else:
                refusal = (code, reason, details)
        print(f"one address took {held} watcher slots; then {refusal}")
        check(held == 256 and refusal is not None,
              f"one address took {held} watcher slots at the relay (at most 256); {refusal}")
        check(refusal[0] == "RESOURCE_EXHAUSTED" and refusal[1] == "LIMIT_REACHED" and
              "your address already watches with 256 observer seats at this relay (at most 256)"
              in refusal[2], f"refused, but not with the sentence: {refusal}")
        with OtherAddress(f"127.0.0.1:{relay.port}", "127.0.0.2") as proxy:
            other = wire.Client(proxy.address, own_connection=True)
            code, ref = other.raw(REGISTER + "JoinGame", _join(game, "other"))
            check(code == "OK", f"another address was refused too: {code} {ref}")
            other.close()
        one.close()

        small = env.relay(board.address, "--max-client-streams", "3")
        c = wire.Client(small.address, own_connection=True)
        tokens = []
        for i in range(4):
            code, ref = c.raw(REGISTER + "JoinGame", _join(game, f"s{i}"))
            check(code == "OK", f"JoinGame s{i}: {code} {ref}")
            tokens.append(wire.get(ref, 3).decode())
        streams = []
        for t in tokens[:3]:
            s = c.stream(BOARD + "Subscribe", b"", token=t, timeout=60)
            check(_event_kind(next(s)) == SNAPSHOT, "no snapshot first")
            streams.append(s)
        try:
            next(c.stream(BOARD + "Subscribe", b"", token=tokens[3], timeout=30))
            check(False, "a fourth event stream from one address was let in (at most 3)")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and
                  "your address already has 3 open event streams at this relay (at most 3)"
                  in (e.details() or ""), f"refused, but not so: {e.code()} {e.details()}")
        streams[0].cancel()
        deadline = time.monotonic() + 20
        while True:                             # the relay sees the cancel soon
            try:
                check(_event_kind(_first_event(c, tokens[3])) == SNAPSHOT, "no snapshot")
                break
            except grpc.RpcError as e:
                check(time.monotonic() < deadline, f"an ended stream kept its place: {e}")
                time.sleep(0.2)
        for s in streams[1:]:
            s.cancel()
        c.close()


def forged_forwarded_address(bindir):
    """Naming the observer a join is for (x-sungka-relay-for) is a relay's,
    shown by the board service's --relay-key: without the key it is refused
    (also at a service that has no key), and so is a wrong key. With it, the
    join counts against the named address: 20 a second for one, and another
    address still joins. A key file too short to be a secret stops either
    program with a sentence."""
    with Env(bindir) as env:
        plain = env.board()
        game = _new_game(wire.Client(plain.address))
        stranger = wire.Client(plain.address, own_connection=True)
        forged = [(FOR_HEADER, "ipv4:10.9.9.9")]
        got = stranger.reason(REGISTER + "JoinGame", _join(game, "forger"), metadata=forged)
        check(got[0] == "PERMISSION_DENIED" and got[1] == "NOT_A_RELAY" and
              "only a relay showing this server's --relay-key" in got[2],
              f"a forged forwarded address at a service without relays: {got}")
        got = stranger.reason(REGISTER + "JoinGame", _join(game, "forger"),
                              metadata=forged + [(KEY_HEADER, "x" * 40)])
        check(got[0] == "UNAUTHENTICATED" and got[1] == "BAD_RELAY_KEY" and
              "this server knows no relays" in got[2], f"a key where none is: {got}")
        stranger.close()

        key, secret = _key_file(env)
        board = env.board("--relay-key", key, "--db", ":memory:")   # a second service
        game = _new_game(wire.Client(board.address))
        c = wire.Client(board.address, own_connection=True)
        for i in range(25):                     # each names another address: all refused
            got = c.reason(REGISTER + "JoinGame", _join(game, f"f{i}"),
                           metadata=[(FOR_HEADER, f"ipv4:10.9.9.{i}")])
            check(got[0] == "PERMISSION_DENIED" and got[1] == "NOT_A_RELAY",
                  f"forged address {i} was not refused: {got}")
        wrong = secret[:-1] + ("x" if secret[-1] != "x" else "y")
        got = c.reason(REGISTER + "JoinGame", _join(game, "forger"),
                       metadata=[(KEY_HEADER, wrong), (FOR_HEADER, "ipv4:10.9.9.9")])
        check(got[0] == "UNAUTHENTICATED" and got[1] == "BAD_RELAY_KEY" and
              "that is not this server's relay key" in got[2], f"a wrong key: {got}")
        # The key's holder: counted against the address it names, not its own.
        named = [(KEY_HEADER, secret), (FOR_HEADER, "ipv4:10.0.0.1")]
        refused, i = None, 0
        while refused is None and i < 500:      # 21 within a second: the 21st is refused
            code, _, details = c.reason(REGISTER + "JoinGame", _join(game, f"r{i}"),
                                        metadata=named)
            check(code in ("OK", "RESOURCE_EXHAUSTED"), f"join {i}: {code} {details}")
            refused = details if code != "OK" else None
            i += 1
        check(refused is not None and "too many joins from your address: at most 20" in refused,
              f"the named address was never held to its join rate ({i} joins): {refused}")
        got = c.raw(REGISTER + "JoinGame", _join(game, "another"),
                    metadata=[(KEY_HEADER, secret), (FOR_HEADER, "ipv4:10.0.0.2")])
        check(got[0] == "OK", f"another named address was refused: {got}")
        got = c.raw(REGISTER + "JoinGame", _join(game, "relayself"),
                    metadata=[(KEY_HEADER, secret)])
        check(got[0] == "OK", f"the relay's own address paid for its observers': {got}")
        c.close()

        short, _ = _key_file(env, "short.key", "guessable")
        for program, extra in (("sungka-board", ["--db", ""]),
                               ("sungka-relay", ["--upstream", board.address])):
            run = subprocess.run([os.path.join(bindir, program), "--listen", "127.0.0.1:0",
                                  "--relay-key", short, *extra],
                                 capture_output=True, text=True, timeout=30)
            check(run.returncode != 0 and "must hold one line of 32 to 128 printable characters"
                  in run.stderr, f"{program} took a key of 9 characters: {run.stderr}")


def relay_below_relay(bindir):
    """A relay fed by another (a tree), both with the nodes' key: the upper
    one treats the lower as the node treats it. The lower relay's slots there
    are not one address's (three games through an upper relay that lets an
    address have two), and nobody else may name an observer at the upper
    relay."""
    with Env(bindir) as env:
        key, _ = _key_file(env)
        board = env.board("--relay-key", key)
        upper = env.relay(board.address, "--relay-key", key, "--max-client-observers", "2")
        lower = env.relay(upper.address, "--relay-key", key)
        direct = wire.Client(board.address)
        games = [_new_game(direct) for _ in range(3)]
        c = wire.Client(lower.address, own_connection=True)
        for g in games:
            code, ref = c.raw(REGISTER + "JoinGame", _join(g, "watcher"), timeout=20)
            check(code == "OK", f"game {g} through two relays: {code} {ref}\n" + upper.dump())
            ev = _first_event(c, wire.get(ref, 3).decode())
            check(_event_kind(ev) == SNAPSHOT, f"game {g}: no snapshot first")
        c.close()
        stranger = wire.Client(upper.address, own_connection=True)
        got = stranger.reason(REGISTER + "JoinGame", _join(games[0], "forger"),
                              metadata=[(FOR_HEADER, "ipv4:10.9.9.9")])
        check(got[0] == "PERMISSION_DENIED" and got[1] == "NOT_A_RELAY",
              f"a forged forwarded address at a relay: {got}")
        stranger.close()
        direct.close()


if __name__ == "__main__":
    sys.exit(main({"stranger_at_relay": stranger_at_relay,
                   "relay_seats_per_address": relay_seats_per_address,
                   "forged_forwarded_address": forged_forwarded_address,
                   "relay_below_relay": relay_below_relay}))
