#!/usr/bin/python3
"""test_player_side.py — the player's side of what an outside attack test
found: an agent must say what it knows, in words, and show nothing a
hostile service sends as anything but text.

Real sungka-board and sungka-player processes on loopback (or a fake service
written with stock Python gRPC where the real one cannot misbehave), driven
through the text view's pipes.
Usage: test_player_side.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, Proc, check, main  # noqa: E402
import wire  # noqa: E402


def free_port():
    """A loopback port nobody listens on (the system's choice, released)."""
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return sk.getsockname()[1]


def play_until_waiting(player, other):
    """player plays its first legal move until it is `other`'s turn."""
    while True:
        line = player.expect(r"^(Your turn.*Legal: (.+)|Waiting for \S+ to move\.)$").group(0)
        if line.startswith("Waiting"):
            return
        player.send(re.search(r"Legal: (\S+)", line).group(1))


def bot_says_ready(bindir):
    """--view bot without --ready: the bot has no input, so its seat says
    ready by itself and the game is played to the end."""
    with Env(bindir) as env:
        board = env.board("--bot-think", "20")
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--option", "cups=3", "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        env.player("robo", "--server", board.address, "--game", game, "--view", "bot",
                   "--think", "20", ready=False)
        alice.expect(r"^robo joined, seat 1\.")
        alice.expect(r"^robo is ready\.", timeout=15)
        alice.expect(r"^The game starts")
        while True:      # alice plays her first legal move; the bot answers
            line = alice.expect(r"^(Your turn.*Legal: (.+)|Game over:.*)$").group(0)
            if line.startswith("Game over"):
                break
            alice.send(re.search(r"Legal: (\S+)", line).group(1))
        check(alice.quit() == 0, "alice did not exit cleanly\n" + alice.dump())


def ready_on_resume(bindir):
    """A player who was not ready when their agent died comes back with
    --ready: the seat taken back with the saved token says ready, and the
    game starts."""
    with Env(bindir) as env:
        board = env.board("--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        alice.expect(r"^alice is ready\.")
        bob = env.player("bob", "--server", board.address, "--game", game, ready=False)
        bob.expect(r"^You are bob, seat 1\.")
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        alice.expect(r"^bob departed: ")
        bob2 = env.player("bob", "--server", board.address, "--game", game)   # --ready
        bob2.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^bob is back\.")
        alice.expect(r"^bob is ready\.", timeout=15)
        alice.expect(r"^The game starts")
        for p in (alice, bob2):
            p.quit()


def sit_then_move(bindir):
    """An observer who sits down (sit) plays from that seat: the agent finds
    the seat's token at the new seat, so the move is sent."""
    with Env(bindir) as env:
        board = env.board()
        ann = env.player("ann", "--server", board.address, "--new", "kalah")
        game = ann.expect(r"Created game (\d+)").group(1)
        ben = env.player("ben", "--server", board.address, "--game", game, "--observe",
                         ready=False)
        ben.expect(r"^You are observing\.")
        ben.send("sit")
        ben.expect(r"^ben sits down at seat 1\.")
        ben.send("ready")
        ann.expect(r"^The game starts")
        play_until_waiting(ann, ben)
        move = ben.expect(r"^Your turn.*Legal: (\S+)").group(1)
        ben.send(move)
        ann.expect(rf"^ben played cup {move}\.")
        check(not any("Could not send" in l for l in ben.lines), ben.dump())
        for p in (ann, ben):
            p.quit()


def lobby_unreachable(bindir):
    """The lobby says "Connected." only once a service answered: nothing
    listening, a frozen service and a malformed address are each a sentence
    in words and a non-zero exit."""
    with Env(bindir) as env:
        nobody = f"127.0.0.1:{free_port()}"
        board = env.board()
        board.p.send_signal(signal.SIGSTOP)      # accepts connections, answers nothing
        try:
            cases = ((nobody, rf"^sungka-player: cannot reach the board service at "
                              rf"{re.escape(nobody)}: nothing is listening there"),
                     (board.address, rf"^sungka-player: cannot reach the board service at "
                                     rf"{re.escape(board.address)}: no answer"),
                     ("127.0.0.1", r"^sungka-player: cannot reach the board service at "
                                   r"'127\.0\.0\.1': that is not an address; write HOST:PORT"))
            for address, says in cases:
                p = env.player("x", "--server", address, ready=False)
                p.close_stdin()
                rc = p.wait_exit()
                with p.cond:
                    p.cond.wait_for(lambda: p.closed, timeout=5)
                check(rc != 0, f"{address}: exit status 0\n" + p.dump())
                check(not any("Connected" in l for l in p.lines),
                      f"{address}: said connected to nobody\n" + p.dump())
                check(any(re.search(says, l) for l in p.err_lines),
                      f"{address}: the error must match /{says}/\n" + p.dump())
                check(not any(re.search(r"UNAVAILABLE|failed to connect|ipv4:|DNS resolution", l)
                              for l in p.err_lines), f"gRPC's raw words shown\n" + p.dump())
        finally:
            board.p.send_signal(signal.SIGCONT)
        ok = env.player("y", "--server", board.address, ready=False)
        ok.expect(r"^Connected\.")
        check(ok.quit() == 0, "a lobby that answers: exit status not 0\n" + ok.dump())
        check(not any("Could not tell" in l for l in ok.lines),
              "leaving the lobby is no failure\n" + ok.dump())


def _make_certs(d):
    """A CA, a service certificate for 127.0.0.1, and two client
    certificates with their keys (client, other), all made at test time."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=30)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=Sungka Test CA")
    for name in ("server", "client", "other"):
        run("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return {n: os.path.join(d, n) for n in os.listdir(d)}


def tls_mismatch(bindir):
    """A client certificate with another certificate's key, or a file that
    is not what it should be, is said in words naming the files, before
    anything says "Connected."; the right pair connects."""
    import shutil
    check(shutil.which("openssl"), "openssl is not installed")
    with Env(bindir) as env:
        c = _make_certs(env.state_dir)
        board = env.board("--tls-cert", c["server.pem"], "--tls-key", c["server.key"],
                          "--tls-client-ca", c["ca.pem"])
        tls = ["--server", board.address, "--tls-ca", c["ca.pem"]]
        cases = (
            (["--tls-cert", c["client.pem"], "--tls-key", c["other.key"]],
             rf"--tls-cert {re.escape(c['client.pem'])} and --tls-key "
             rf"{re.escape(c['other.key'])} are not a matching pair"),
            (["--tls-cert", c["client.pem"], "--tls-key", c["client.pem"]],
             rf"--tls-key {re.escape(c['client.pem'])} is not a PEM private key"),
            (["--tls-cert", c["client.key"], "--tls-key", c["client.key"]],
             rf"--tls-cert {re.escape(c['client.key'])} is not a PEM certificate"),
            (["--tls-cert", c["client.pem"]], r"--tls-cert and --tls-key go together"),
        )
        for game in ([], ["--new", "kalah"]):
            for args, says in cases:
                p = env.player("alice", *tls, *args, *game, ready=False)
                p.close_stdin()
                rc = p.wait_exit()
                with p.cond:
                    p.cond.wait_for(lambda: p.closed, timeout=5)
                check(rc != 0, f"{args}: exit status 0\n" + p.dump())
                check(not any("Connected" in l for l in p.lines),
                      f"{args}: said connected\n" + p.dump())
                check(any(re.search(says, l) for l in p.err_lines),
                      f"{args}: the error must match /{says}/\n" + p.dump())
        ok = env.player("alice", *tls, "--tls-cert", c["client.pem"], "--tls-key",
                        c["client.key"], ready=False)
        ok.expect(r"^Connected\.")
        check(ok.quit() == 0, "the matching pair: exit status not 0\n" + ok.dump())


def away_countdown(bindir):
    """A player whose agent dies on their turn: the others see "away — seat
    kept N s" in who and in the line that says whom we wait for, N counting
    down from the grace the service announced, then that they are back."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "30")
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--option", "cups=3", "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^The game starts")
        play_until_waiting(alice, bob)
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        alice.expect(r"^bob departed: .*The seat is kept for 30 s\.")
        first = int(alice.expect(r"^Waiting for bob, who is away \u2014 seat kept (\d+) s\.$")
                    .group(1))
        check(25 <= first <= 30, f"the countdown starts at {first} s for a 30 s grace")
        deadline = time.monotonic() + 10
        seen = []
        while not seen or seen[-1] >= first:       # who, until the number went down
            check(time.monotonic() < deadline, f"who does not count down: {seen}\n"
                  + alice.dump())
            alice.send("who")
            seen.append(int(alice.expect(r"^  seat 1: bob\s+away \u2014 seat kept (\d+) s")
                            .group(1)))
            if seen[-1] >= first:
                time.sleep(0.2)
        check(not any(re.search(r"seat 1: bob\s+\d+ ms", l) for l in alice.lines),
              "who shows the departed player's old round trip\n" + alice.dump())
        bob2 = env.player("bob", "--server", board.address, "--game", game)
        bob2.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^bob is back\.")
        alice.expect(r"^Waiting for bob to move\.")
        alice.send("who")
        alice.expect(r"^  seat 1: bob\s+(\d+ ms)?\s*(<- to move)?$")
        for p in (alice, bob2):
            p.quit()


def reconnect_in_words(bindir):
    """The service dies: each agent says once, in words, that it lost the
    connection and for how long it will try; at most one short line every
    ~10 s while it tries (every sixth of a --reconnect-for under a minute:
    3 s here, not to wait 10 s for the first); then that it is back, or
    that it gave up."""
    every = 3                                  # --reconnect-for 18: a line every 3 s
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "game.db")
        board = env.board("--db", db, "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--reconnect-for", str(every * 6))
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game,
                         "--reconnect-for", "3")
        alice.expect(r"^The game starts")
        bob.expect(r"^The game starts")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        lost = time.monotonic()
        addr = re.escape(board.address)
        alice.expect(rf"^Lost the connection to {addr}; trying again for {every * 6} s\u2026$",
                     timeout=15)
        start = alice.cursor - 1
        bob.expect(rf"^Lost the connection to {addr}; trying again for 3 s\u2026$", timeout=15)
        bob.expect(r"^Disconnected from the board service \(could not reconnect within 3 s; "
                   r"giving up\)\.$", timeout=20)
        check(bob.wait_exit() != 0, "a player who gave up must exit non-zero\n" + bob.dump())
        alice.expect(r"^Still trying \(\d+ s\)\u2026$", timeout=20)
        board2 = env.board("--db", db, "--grace", "60", port=board.port)
        board2.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        alice.expect(rf"^Reconnected to {addr}\.$", timeout=30)
        away = time.monotonic() - lost
        said = alice.lines[start:alice.cursor]
        check(not any(re.search(r"UNAVAILABLE|failed to connect|ipv4:|Connection refused|"
                                r"DEADLINE|Socket closed", l) for l in said + bob.lines),
              "gRPC's raw words shown:\n" + "\n".join(said))
        tries = [l for l in said if l.startswith("Still trying")]
        check(1 <= len(tries) <= away / (every * 0.9) + 1,
              f"{len(tries)} progress lines in {away:.0f} s:\n" + "\n".join(said))
        check(len(said) == len(tries) + 2, "other lines while reconnecting:\n" + "\n".join(said))
        alice.quit()


def move_while_lost(bindir):
    """A move sent to a service that dies before answering it: the agent says
    that it lost the service before it answered and that the events will say
    whether the move was played, not the hints of a first connection ("if the service
    uses TLS, give --tls"), and then takes the turn again once back."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "game.db")
        board = env.board("--db", db, "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "kalah",
                           "--reconnect-for", "60")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game,
                         "--reconnect-for", "60")
        turn = alice.expect(r"^Your turn.*Legal: (.+)$", timeout=20)
        # The move goes out on the seat's stream to a service that does not
        # answer (stopped), which then dies: the stream ends with it unanswered.
        board.p.send_signal(signal.SIGSTOP)
        alice.send(turn.group(1).split()[0])
        time.sleep(0.5)
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        addr = re.escape(board.address)
        said = alice.expect(rf"^Refused: lost the board service at {addr} before it answered; "
                            r"the command may or may not have been played: the game's events "
                            r"will say once reconnected$", timeout=15).group(0)
        check("--tls" not in said, f"a first connection's hint: {said}")
        board2 = env.board("--db", db, "--grace", "60", port=board.port)
        board2.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        alice.expect(rf"^Reconnected to {addr}\.$", timeout=30)
        alice.expect(r"^Your turn", timeout=20)       # not played: the turn again
        alice.quit()
        bob.quit()


def redraw_after_reconnect(bindir):
    """After the service is killed and started again on the same database,
    the reconnected text view draws the board again, by itself."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "game.db")
        board = env.board("--db", db, "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^The game starts")
        alice.expect(r"^Your turn")
        bob.expect(r"^Waiting for alice to move\.")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        board2 = env.board("--db", db, "--grace", "60", port=board.port)
        board2.expect_stderr(r"recovered 1 unfinished game", timeout=15)
        for p, turn in ((alice, r"^Your turn"), (bob, r"^Waiting for alice to move\.")):
            p.expect(r"^Reconnected", timeout=30)
            # nobody moved: only the reconnection can have drawn these
            p.expect(rf"-> {p.name} \(you\)$", timeout=10)
            p.expect(turn, timeout=10)
        alice.send("0")
        bob.expect(r"^alice played cup 0\.")
        for p in (alice, bob):
            p.quit()


# ------------------------------------------------------------ fake services

class FakeService:
    """A board service written with stock Python gRPC that says whatever a
    test wants, as raw protobuf bytes: handlers by "Service/Method" name,
    and a queue of events the subscription sends after its snapshot."""

    def __init__(self, unary, snapshot):
        from concurrent import futures
        import grpc
        self.events = queue.Queue()
        self.stop = threading.Event()
        self.snapshot = snapshot

        def subscribe(request, context):
            yield wire.message((1, 1), (10, self.snapshot))
            while not self.stop.is_set() and context.is_active():
                try:
                    yield self.events.get(timeout=0.05)
                except queue.Empty:
                    pass

        handlers = {}
        for name, fn in unary.items():
            svc, method = name.split("/")
            handlers.setdefault(svc, {})[method] = grpc.unary_unary_rpc_method_handler(fn)
        handlers.setdefault("Board", {})["Subscribe"] = \
            grpc.unary_stream_rpc_method_handler(subscribe)
        for method in ("Ping", "Leave"):
            handlers["Board"].setdefault(method,
                                         grpc.unary_unary_rpc_method_handler(lambda r, c: b""))
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers([
            grpc.method_handlers_generic_handler(f"sungka.v1.{svc}", methods)
            for svc, methods in handlers.items()])
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{self.port}"
        self.server.start()

    def send(self, seq, field, body):
        """One event: seq (0 for pings), its oneof field number, its body."""
        self.events.put(wire.message((1, seq), (field, body)) if seq else
                        wire.message((field, body)))

    def close(self):
        self.stop.set()
        self.server.stop(0)


def _participant(name, seat, ready=False, departed=False, rtt=5):
    at = ((6, wire.seat(seat)),) if seat >= 0 else ()
    return wire.message((1, name), *at, (3, departed), (7, wire.message((1, rtt))), (5, ready))


def _kalah_summary(title, names, status=2, observers=0, options=(("cups", 6), ("stones", 4))):
    seats = [_participant(n, s) for s, n in enumerate(names)]
    return wire.message((1, "1"), (2, "kalah"), *((3, wire.message((1, k), (2, v)))
                                                    for k, v in options),
                        (4, title), (5, status), *((10, x) for x in seats), (7, observers),
                        (8, 6))


def _kalah_snapshot(summary, people, your_seat=0, last_seq=1):
    cells = ([4] * 6 + [0]) * 2
    board = wire.message((1, wire.packed(cells)), (4, wire.seat(your_seat)),
                         (3, wire.packed([0, 0])))
    return wire.message((1, summary), (2, board), (6, wire.seat(your_seat)),
                        *((4, p) for p in people),
                        (5, last_seq))


class RawProc(Proc):
    """A Proc that keeps its stdout as bytes too, so a test can look at
    exactly what a terminal would have been sent."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.argv = argv
        self.p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.raw = bytearray()
        self.lines, self.err_lines = [], []
        self.cursor = 0
        self.cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._pump_raw, args=(self.p.stdout, True), daemon=True).start()
        threading.Thread(target=self._pump_raw, args=(self.p.stderr, False), daemon=True).start()

    def _pump_raw(self, stream, is_stdout):
        for line in stream:
            with self.cond:
                if is_stdout:
                    self.raw += line
                text = line.decode("utf-8", "replace").rstrip("\n")
                (self.lines if is_stdout else self.err_lines).append(text)
                self.cond.notify_all()
        if is_stdout:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def send(self, line):
        try:
            self.p.stdin.write(line.encode() + b"\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise Failure(f"{self.name}: cannot write '{line}': it has exited\n" + self.dump())


# What a hostile service puts in every string: a terminal's title and a
# clear screen (ESC and OSC, BEL), a C1 CSI, a bidi override, a zero-width
# space, and bytes that are not UTF-8.
EVIL = "\x1b]0;PWNED\x07\x1b[2J\u009b31m\u202e\u200b".encode() + b"\xff\xc0\x9b"
SHOWN = (r"\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}31m\u{202E}\u{200B}"
         "\ufffd\ufffd\ufffd")


def evil(text):
    """text with the hostile bytes in the middle, as protobuf string bytes."""
    return text.encode() + EVIL + b"!"


def shown(text):
    """How the agent must show evil(text)."""
    return re.escape(text + SHOWN + "!")


def hostile_service(bindir):
    """A hostile service puts terminal control sequences, C1 controls, bidi
    overrides, zero-width characters and invalid UTF-8 in every string it
    sends: game titles, names, options, chat, reasons, notices, statistics,
    history and its error sentences. The text view shows each escaped, and
    what reaches its terminal is valid UTF-8 with no ESC, no C1 control and
    no bidi override."""
    import grpc
    boss = evil("boss")
    summary = _kalah_summary(evil("title"), ["alice", boss], observers=1)
    snap = _kalah_snapshot(summary, [_participant("alice", 0), _participant(boss, 1),
                                     _participant(evil("eve"), -1)])
    lobby_game = wire.message((1, "1"), (2, "kalah"), (3, wire.message((1, evil("opt")), (2, 6))),
                              (4, evil("lobby")), (5, 1),
                              (10, _participant(evil("seated"), 0)), (10, _participant("", 1)))
    stats = wire.message((1, evil("champ")), (2, 3), (3, 2), (4, 1))
    match = wire.message((1, "7"), (2, "kalah"), (4, evil("old")), (5, 3), (6, evil("ann")),
                         (6, "ben"), (7, wire.packed([30, 18])), (8, wire.packed([0])),
                         (9, evil("reason")), (12, 1))

    def refuse(code):
        def fn(request, context):
            context.abort(code, "no: \x1b]0;PWNED\x07\x1b[2J\u009b31m\u202e\u200b!")
        return fn

    def player_stats(request, context):
        if wire.get(request, 1) == b"nobody":
            refuse(grpc.StatusCode.NOT_FOUND)(request, context)
        return stats

    fake = FakeService({
        "Register/ListGames": lambda r, c: wire.message((1, lobby_game)),
        "Register/GetPlayerStats": player_stats,
        "Register/Leaderboard": lambda r, c: wire.message((1, stats)),
        "Register/ListMatches": lambda r, c: wire.message((1, match)),
        "Register/GetMatch": lambda r, c: wire.message((1, match), (2, wire.message((1, 0),
                                                                                   (2, 0)))),
        "Register/JoinGame": lambda r, c: wire.message((1, "x"), (2, "1"), (3, "f" * 32),
                                                       (6, wire.seat(0)), (5, summary)),
        "Board/Ready": refuse(grpc.StatusCode.FAILED_PRECONDITION),
        "Board/Chat": refuse(grpc.StatusCode.RESOURCE_EXHAUSTED),
    }, snap)
    try:
        with Env(bindir) as env:
            argv = [os.path.join(bindir, "sungka-player"), "--name", "alice",
                    "--state-dir", env.state_dir, "--server", fake.address]
            alice = RawProc("alice", argv, env=env.env)
            env.procs.append(alice)
            alice.expect(r"^Connected\.")
            alice.send("games")
            alice.expect(rf"^Game 1: {shown('lobby')} \(kalah {shown('opt')}=6\), waiting; "
                         rf"seats: \[{shown('seated')}\] \[open\]")
            alice.send("stats champ")
            alice.expect(rf"^{shown('champ')}: 3 played, 2 won")
            alice.send("stats nobody")
            alice.expect(r"^no statistics: no: \\u\{1B\}\]0;PWNED\\u\{7\}")
            alice.send("leaderboard")
            alice.expect(rf"^ 1\. {shown('champ')}")
            alice.send("history")
            alice.expect(rf"^Match 7: kalah, 1 moves: {shown('ann')} 30, ben 18 \u2014 "
                         rf"{shown('reason')}\.")
            alice.send("replay 7")
            alice.expect(rf"^Replaying match 7: {shown('old')}, {shown('reason')}\.")
            alice.send("stop")
            alice.send("join 1")
            alice.expect(rf"^Game 1: {shown('title')} \(kalah")
            alice.expect(rf"^  seat 1: {shown('boss')}")
            alice.expect(rf"^  1 watching: {shown('eve')}")
            fake.send(2, 17, wire.message((1, boss), (5, wire.seat(1)), (3, evil("chat"))))
            alice.expect(rf"^\[chat\] {shown('boss')}: {shown('chat')}")
            fake.send(3, 20, wire.message((1, evil("notice"))))
            alice.expect(rf"^Notice: {shown('notice')}")
            fake.send(0, 19, wire.message((1, 9), (2, _participant("alice", 0)),
                                          (2, _participant(boss, 1)),
                                          (2, _participant(evil("mallory"), -1)), (3, 2)))
            alice.expect(r"^2 people are watching\.")
            alice.send("who")
            alice.expect(rf"^  2 watching: {shown('mallory')}, \u2026")
            fake.send(4, 13, wire.message((1, _participant(boss, 1)), (2, evil("gone")),
                                          (3, 30)))
            alice.expect(rf"^{shown('boss')} departed: {shown('gone')}\. The seat is kept")
            alice.send("chat hello")
            alice.expect(r"^Refused: no: \\u\{1B\}\]0;PWNED\\u\{7\}\\u\{1B\}\[2J\\u\{9B\}31m"
                         r"\\u\{202E\}\\u\{200B\}!")
            fake.send(5, 18, wire.message((1, wire.packed([0])), (2, wire.packed([30, 18])),
                                          (3, evil("over"))))
            alice.expect(rf"^Game over: {shown('over')}\.")
            alice.quit()
            out = bytes(alice.raw)
            try:
                text = out.decode("utf-8")
            except UnicodeDecodeError as e:
                raise Failure(f"the view wrote invalid UTF-8: {e}\n" + alice.dump())
            bad = sorted({f"U+{ord(ch):04X}" for ch in text
                          if ch == "\x1b" or "\x80" <= ch <= "\x9f" or ch in "\u202e\u200b"
                          or ch == "\x07"})
            check(not bad, f"the view wrote {', '.join(bad)} to its terminal\n" + alice.dump())
    finally:
        fake.close()


def watch_count(bindir):
    """Observers are counted, not announced one by one: a player sees one
    line when the number watching changes, and who names them after the
    count."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        ben = env.player("ben", "--server", board.address, "--game", game, "--observe")
        ben.expect(r"^You are observing\.")
        alice.expect(r"^1 person is watching\.")
        cy = env.player("cy", "--server", board.address, "--game", game, "--observe")
        cy.expect(r"^You are observing\.")
        alice.expect(r"^2 people are watching\.")
        alice.send("who")
        alice.expect(r"^  2 watching: (ben, cy|cy, ben)$")
        check(not any(re.search(r"^(ben|cy) is watching", l) for l in alice.lines),
              "observers announced one by one\n" + alice.dump())
        ben.quit()
        alice.expect(r"^1 person is watching\.")
        cy.quit()
        alice.expect(r"^Nobody is watching\.")
        alice.quit()


def watch_count_from_pings(bindir):
    """A service that no longer announces observers (the count rides on its
    pings, with only the first few named): the player's view says how many
    watch, from the count, not from the names."""
    summary = _kalah_summary("crowd", ["alice", "bob"])
    snap = _kalah_snapshot(summary, [_participant("alice", 0), _participant("bob", 1)])
    fake = FakeService({"Register/JoinGame": lambda r, c: wire.message(
        (1, "x"), (2, "1"), (3, "f" * 32), (6, wire.seat(0)), (5, summary))}, snap)

    def ping(observers, *named):
        fake.send(0, 19, wire.message((1, 7), (2, _participant("alice", 0)),
                                      (2, _participant("bob", 1)),
                                      *((2, _participant(n, -1)) for n in named),
                                      (3, observers)))
    try:
        with Env(bindir) as env:
            alice = env.player("alice", "--server", fake.address, "--game", "1")
            alice.expect(r"^You are alice, seat 0\.")
            ping(3, "carol")
            alice.expect(r"^3 people are watching\.")
            alice.send("who")
            alice.expect(r"^  3 watching: carol, \u2026$")
            ping(3, "carol")                     # no change, no line
            ping(1, "carol")
            alice.expect(r"^1 person is watching\.")
            ping(0)
            alice.expect(r"^Nobody is watching\.")
            check(sum(1 for l in alice.lines if "watching." in l) == 3,
                  "one line per change\n" + alice.dump())
            alice.quit()
    finally:
        fake.close()


TESTS = {f.__name__: f for f in (
    bot_says_ready, ready_on_resume, sit_then_move, lobby_unreachable, tls_mismatch, away_countdown,
    reconnect_in_words, move_while_lost, redraw_after_reconnect, hostile_service, watch_count,
    watch_count_from_pings)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
