#!/usr/bin/python3
"""test_security.py — Trust: TLS, seat tokens as capabilities, limits, refusals
of bad requests, resubscribing, and an agent facing a rogue service.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_security.py BINDIR TEST (ctest runs one process
per test).
"""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _raw_game, _event_kind  # noqa: E402


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
                ([], "if the service uses TLS, give --tls")):
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
    seats = [wire.message((1, n), (6, wire.seat(s))) for s, n in ((0, "alice"), (1, "bob"))]
    summary = wire.message((1, "1"), (2, "sungka"), (4, "rogue"), (5, 2), *((10, x) for x in seats),
                           (8, 6))

    def snapshot(last_seq):
        board = wire.message((1, wire.packed(cells)), (4, wire.seat(0)), (3, wire.packed([0, 0])))
        snap = wire.message((1, summary), (2, board), (6, wire.seat(0)),
                            (4, wire.message((1, "alice"), (6, wire.seat(0)))), (5, last_seq))
        return wire.message((10, snap))

    def subscribe(request, context):
        subscriptions.append(request)
        yield snapshot(1)
        if len(subscriptions) == 1:
            # alice's cup 0 really gives 0 8 8 8 8 8 | 1 | 8 ...; claim nothing moved.
            wrong = wire.message((1, wire.packed(cells)), (4, wire.seat(1)))
            yield wire.message((1, 2), (16, wire.message((1, 0), (2, 0), (5, wrong))))
        while not stop.is_set() and context.is_active():
            time.sleep(0.05)

    def join(request, context):
        return wire.message((1, "rogue"), (2, "1"), (3, "f" * 32), (6, wire.seat(0)),
                            (5, summary))

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
                     "--client-chat-rate", "--ipv6-prefix",
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
                people = [p for n, p in wire.fields(snap) if n == 4]
                check(len(people) == 64, f"observer {i}'s snapshot names {len(people)} people")
                seats = [wire.seat_of(p, 6) for p in people[:2]]
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
            code, text = client.raw("/sungka.v1.Board/Sit", wire.message((2, wire.seat(-1))),
                                    token=olga)
            check(code == "INVALID_ARGUMENT" and "leave it out for any" in text,
                  f"a SeatNumber of -1 gave {code}: {text}")
            code, text = client.raw("/sungka.v1.Board/Sit", wire.message((2, wire.seat(1))),
                                    token=olga)
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


def error_reasons(bindir):
    """Every refusal carries a reason a program can act on, as trailing
    metadata (sungka-error-reason), beside the sentence a person reads."""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            game_id, (alice, bob) = _raw_game(client)
            code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "kalah")))
            check(code == "OK", f"CreateGame: {code} {reply}")
            waiting = wire.first_string(wire.first_message(reply, 1), 1)
            for name in ("ann", "ben"):
                code, ref = client.raw("/sungka.v1.Register/JoinGame",
                                       wire.message((1, waiting), (2, name)))
                check(code == "OK", f"JoinGame {name}: {code} {ref}")
            cases = [
                ("/sungka.v1.Board/Move", wire.message((1, 2)), bob,
                 "FAILED_PRECONDITION", "NOT_YOUR_TURN"),
                ("/sungka.v1.Board/Move", wire.message((1, 99)), alice,
                 "INVALID_ARGUMENT", "BAD_REQUEST"),
                ("/sungka.v1.Board/Move", wire.message((1, 2)), "0" * 32,
                 "UNAUTHENTICATED", "UNKNOWN_TOKEN"),
                ("/sungka.v1.Board/Chat", wire.message((1, b"\xc0\x9b")), alice,
                 "INVALID_ARGUMENT", "NOT_UTF8"),
                ("/sungka.v1.Register/JoinGame", wire.message((1, waiting), (2, "carol")), None,
                 "RESOURCE_EXHAUSTED", "GAME_FULL"),
                ("/sungka.v1.Register/JoinGame", wire.message((1, game_id), (2, "carol")), None,
                 "FAILED_PRECONDITION", "WRONG_STATE"),
                ("/sungka.v1.Register/JoinGame", wire.message((1, game_id), (2, "alice"), (3, True)),
                 None, "ALREADY_EXISTS", "NAME_TAKEN"),
                ("/sungka.v1.Register/JoinGame", wire.message((1, "404"), (2, "dan")), None,
                 "NOT_FOUND", "NOT_FOUND"),
                ("/sungka.v1.Register/Nope", b"", None, "UNIMPLEMENTED", "UNKNOWN_METHOD"),
                ("/sungka.v1.Register/ListGames", b"\xff\xff", None,
                 "INVALID_ARGUMENT", "BAD_REQUEST"),
            ]
            for method, payload, token, code, reason in cases:
                got = client.reason(method, payload, token=token)
                check(got[:2] == (code, reason), f"{method}: {got}, wanted {code} {reason}")
        finally:
            client.close()


TESTS = {f.__name__: f for f in (
    tls, capabilities, rogue_service, limits, crowd, refusals, service_refusals, bad_input, resubscribe, error_reasons)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
