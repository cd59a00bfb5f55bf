#!/usr/bin/python3
"""test_accounts.py — Accounts (issue 15): a name means one person.

A stock Python gRPC client (python3-grpcio, with stubs protoc compiles from
our own .proto at the start of each test into a temporary directory) talks to
a real sungka-board on loopback: it registers, signs in, plays a game and sees
its account's statistics; impersonation, look-alikes, a guest taking a
registered name, wrong passwords, a session token where a seat token goes and
the reverse, and a sign-out are each refused with a status, a sentence and a
reason (the "sungka-error-reason" trailing metadata). Usage:
test_accounts.py BINDIR TEST (ctest runs one process per test).
"""
import importlib
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402

CALL_TIMEOUT = 15.0
PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto")
PASSWORD = "correct horse battery"

pb = pb_grpc = grpc = None



def seat(msg, field):
    """A SeatNumber field: the seat, or None when absent (an observer, nobody
    to move)."""
    return getattr(msg, field).value if msg.HasField(field) else None

def generate(out):
    """Compile sungka.proto with protoc and the gRPC Python plugin, and import it."""
    global pb, pb_grpc, grpc
    os.makedirs(out, exist_ok=True)
    protoc, plugin = shutil.which("protoc"), shutil.which("grpc_python_plugin")
    check(protoc and plugin, "missing protoc or grpc_python_plugin: install protobuf-compiler "
                             "and protobuf-compiler-grpc")
    argv = [protoc, f"--python_out={out}", f"--grpc_out={out}",
            f"--plugin=protoc-gen-grpc={plugin}", "-I", PROTO_DIR, "sungka/v1/sungka.proto"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"protoc failed: {r.stderr}")
    grpc = importlib.import_module("grpc")
    sys.path.insert(0, out)
    pb = importlib.import_module("sungka.v1.sungka_pb2")
    pb_grpc = importlib.import_module("sungka.v1.sungka_pb2_grpc")


def auth(token):
    return (("authorization", f"Bearer {token}"),)


class Client:
    """One person's stubs on one channel, and their session once signed in."""

    def __init__(self, address):
        self.channel = grpc.insecure_channel(address)
        grpc.channel_ready_future(self.channel).result(timeout=CALL_TIMEOUT)
        self.accounts = pb_grpc.AccountsStub(self.channel)
        self.lobby = pb_grpc.RegisterStub(self.channel)
        self.board = pb_grpc.BoardStub(self.channel)
        self.session = None

    def md(self):
        return auth(self.session) if self.session else None

    def create(self, name, password=PASSWORD):
        reply = self.accounts.CreateAccount(
            pb.CreateAccountRequest(name=name, password=password), timeout=CALL_TIMEOUT)
        self.session = reply.session.token
        return reply

    def sign_in(self, name, password=PASSWORD):
        reply = self.accounts.SignIn(pb.SignInRequest(name=name, password=password),
                                     timeout=CALL_TIMEOUT)
        self.session = reply.session.token
        return reply

    def close(self):
        self.channel.close()


def refused(what, code, reason, fn, *args, **kw):
    """fn must fail with `code`, a sentence for people and `reason` for programs."""
    try:
        reply = fn(*args, timeout=CALL_TIMEOUT, **kw)
    except grpc.RpcError as e:
        got = dict(e.trailing_metadata() or ()).get("sungka-error-reason")
        check(e.code() == code and (reason is None or got == reason),
              f"{what}: expected {code.name} {reason}, got {e.code().name} {got}: "
              f"{e.details()!r}")
        check(e.details() and " " in e.details(), f"{what}: no sentence: {e.details()!r}")
        print(f"  {what}: {e.code().name} {reason} \"{e.details()}\"")
        return e
    raise Failure(f"{what}: expected {code.name} {reason}, but it succeeded: {reply}")


def with_board(bindir, body, *board_args):
    with Env(bindir) as env:
        generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--db", os.path.join(env.state_dir, "board.db"), *board_args)
        clients = []

        def client():
            c = Client(board.address)
            clients.append(c)
            return c
        try:
            body(env, board, client)
        finally:
            for c in clients:
                c.close()


def play_kalah(c0, ref0, c1, ref1):
    """Play a small kalah game to its end through GetBoard and Move: whoever
    is to move plays their first cup with stones in it."""
    seats = {seat(ref0, "seat"): (c0, ref0.token), seat(ref1, "seat"): (c1, ref1.token)}
    for _ in range(500):
        c, tok = seats[0]
        b = c.board.GetBoard(pb.GetBoardRequest(), metadata=auth(tok), timeout=CALL_TIMEOUT)
        if seat(b.board, "to_move") is None:
            return b.board
        c, tok = seats[seat(b.board, "to_move")]
        mine = c.board.GetBoard(pb.GetBoardRequest(), metadata=auth(tok), timeout=CALL_TIMEOUT)
        cup = next(i for i in range(4) if mine.board.cells[i] > 0)   # our row comes first
        c.board.Move(pb.MoveRequest(move=cup), metadata=auth(tok), timeout=CALL_TIMEOUT)
    raise Failure("the kalah game did not end in 500 moves")


def new_kalah(c):
    opts = [pb.GameOption(name="cups", value=4), pb.GameOption(name="stones", value=2)]
    return c.lobby.CreateGame(pb.CreateGameRequest(kind="kalah", options=opts, autostart=True),
                              metadata=c.md(), timeout=CALL_TIMEOUT).game


def register_and_play(bindir):
    """Register, sign in, play a whole game as accounts, and see the account's
    statistics, the leaderboard and the history under the names as registered,
    whatever case they are asked in."""
    def body(env, board, client):
        alice, bob = client(), client()
        made = alice.create("Alice")
        check(made.session.name == "Alice" and made.session.token.startswith("sess_") and
              not made.claimed, f"CreateAccount answered {made}")
        bob.create("bob")
        again = client()
        signed = again.sign_in("ALICE")              # any case
        check(signed.session.name == "Alice" and signed.session.token != alice.session,
              f"SignIn answered {signed}")
        who = again.accounts.WhoAmI(pb.WhoAmIRequest(), metadata=again.md(),
                                    timeout=CALL_TIMEOUT)
        check(who.name == "Alice" and who.session_expires_ms > who.created_ms,
              f"WhoAmI answered {who}")

        game = new_kalah(alice)
        ref_a = alice.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                     metadata=alice.md(), timeout=CALL_TIMEOUT)
        ref_b = bob.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="BOB"),
                                   metadata=bob.md(), timeout=CALL_TIMEOUT)
        names = sorted(s.name for s in ref_b.game.seats)
        check(names == ["Alice", "bob"], f"the seats bear {names}, not the registered names")
        # The snapshot marks nobody a guest; a guest observer is marked one.
        olga = client()
        ref_o = olga.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="olga",
                                                       observe=True), timeout=CALL_TIMEOUT)
        stream = olga.board.Subscribe(pb.SubscribeRequest(), metadata=auth(ref_o.token))
        snap = next(iter(stream)).snapshot
        stream.cancel()
        guests = {p.name: p.guest for p in snap.participants}
        check(guests.get("Alice") is False and guests.get("bob") is False,
              f"the snapshot's players: {guests}")
        final = play_kalah(alice, ref_a, bob, ref_b)
        print(f"  game {game.game_id} over: scores {list(final.scores)}")

        st = bob.lobby.GetPlayerStats(pb.GetPlayerStatsRequest(name="alice"),
                                      timeout=CALL_TIMEOUT)
        check(st.name == "Alice" and st.played == 1 and not st.guest,
              f"alice's statistics: {st}")
        st_b = bob.lobby.GetPlayerStats(pb.GetPlayerStatsRequest(name="Bob"),
                                        timeout=CALL_TIMEOUT)
        check(st_b.played == 1 and st.wins + st_b.wins + st.draws >= 1,
              f"bob's statistics: {st_b}")
        top = bob.lobby.Leaderboard(pb.LeaderboardRequest(), timeout=CALL_TIMEOUT)
        check(sorted(p.name for p in top.players) == ["Alice", "bob"],
              f"leaderboard: {[p.name for p in top.players]}")
        hist = bob.lobby.ListMatches(pb.ListMatchesRequest(player="aLiCe"),
                                     timeout=CALL_TIMEOUT)
        check([m.game_id for m in hist.matches] == [game.game_id],
              f"alice's history: {[m.game_id for m in hist.matches]}")
    with_board(bindir, body)


def impersonation(bindir):
    """Alice is registered: nobody else plays or registers as alice, ALICE,
    a Cyrillic look-alike or alice + U+200B, signed in or not."""
    C = None

    def body(env, board, client):
        nonlocal C
        C = grpc.StatusCode
        alice, bob, guest = client(), client(), client()
        alice.create("alice")
        bob.create("bob")
        game = new_kalah(bob)

        def join(c, name, timeout=CALL_TIMEOUT):
            return c.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name=name),
                                    metadata=c.md(), timeout=timeout)
        refused("a guest as alice", C.PERMISSION_DENIED, "NAME_REGISTERED",
                join, guest, "alice")
        refused("a guest as ALICE", C.PERMISSION_DENIED, "NAME_REGISTERED",
                join, guest, "ALICE")
        refused("a guest as Cyrillic-a lice", C.PERMISSION_DENIED, "NAME_REGISTERED",
                join, guest, "\u0430lice")
        refused("a guest as alice + U+200B", C.INVALID_ARGUMENT, "BAD_REQUEST",
                join, guest, "alice\u200b")
        refused("bob signed in, as alice", C.PERMISSION_DENIED, "NOT_YOUR_NAME",
                join, bob, "alice")

        def create(name, timeout=CALL_TIMEOUT):
            return guest.accounts.CreateAccount(pb.CreateAccountRequest(name=name,
                                                                        password=PASSWORD),
                                                timeout=timeout)
        refused("register ALICE", C.ALREADY_EXISTS, "NAME_TAKEN", create, "ALICE")
        refused("register Cyrillic-a lice", C.ALREADY_EXISTS, "NAME_CONFUSABLE",
                create, "\u0430lice")
        refused("register alice + U+200B", C.INVALID_ARGUMENT, "NAME_NOT_ALLOWED",
                create, "alice\u200b")
        refused("register a right-to-left override", C.INVALID_ARGUMENT, "NAME_NOT_ALLOWED",
                create, "\u202eecila")
        refused("register mixed Latin and Cyrillic", C.INVALID_ARGUMENT, "NAME_NOT_ALLOWED",
                create, "p\u0430ypal")
        refused("a short password", C.INVALID_ARGUMENT, "BAD_REQUEST",
                guest.accounts.CreateAccount, pb.CreateAccountRequest(name="carol",
                                                                      password="short"))
        # the real alice plays under her name; a guest under a free one
        ref = join(alice, "")
        check(seat(ref, "seat") is not None, f"alice joined at seat {ref.seat}")
        ref_g = join(guest, "gus")
        check(seat(ref_g, "seat") is not None, f"gus joined at seat {ref_g.seat}")
    with_board(bindir, body)


def wrong_password(bindir):
    """A wrong password and an unknown name get the same answer; repeated
    failures are limited per name, whatever the password then."""
    def body(env, board, client):
        C = grpc.StatusCode
        alice, mallory = client(), client()
        alice.create("alice")
        sign_in = mallory.accounts.SignIn
        wrong = refused("alice, wrong password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                        sign_in, pb.SignInRequest(name="alice", password="not her password"))
        nobody = refused("nobody, any password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                         sign_in, pb.SignInRequest(name="nobody", password="not her password"))
        check(wrong.details() == nobody.details(),
              f"a wrong password ({wrong.details()!r}) and an unknown name "
              f"({nobody.details()!r}) must read the same")
        for i in range(4):
            refused(f"alice, wrong password #{i + 2}", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                    sign_in, pb.SignInRequest(name="ALICE", password=f"guess number {i}"))
        refused("alice after five failures, even the right password",
                C.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                sign_in, pb.SignInRequest(name="alice", password=PASSWORD))
        # another name is not limited by alice's failures
        refused("nobody, after alice's limit", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                sign_in, pb.SignInRequest(name="nobody", password="not her password"))
        # the board never logged a password
        for line in board.err_lines + board.lines:
            check(PASSWORD not in line and "guess number" not in line,
                  f"the board logged a password: {line}")
    with_board(bindir, body)


def tokens_apart(bindir):
    """A session token is no seat token and a seat token no session token;
    each acts only where it belongs."""
    def body(env, board, client):
        C = grpc.StatusCode
        alice, bob = client(), client()
        alice.create("alice")
        bob.create("bob")
        game = new_kalah(alice)
        ref_a = alice.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                     metadata=alice.md(), timeout=CALL_TIMEOUT)
        e = refused("a session token on Board.GetBoard", C.UNAUTHENTICATED, "UNKNOWN_TOKEN",
                    alice.board.GetBoard, pb.GetBoardRequest(), metadata=auth(alice.session))
        check("session token" in e.details(), f"the refusal does not say why: {e.details()!r}")
        refused("a session token on Board.Move", C.UNAUTHENTICATED, "UNKNOWN_TOKEN",
                alice.board.Move, pb.MoveRequest(move=0), metadata=auth(alice.session))
        refused("a seat token on JoinGame", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                bob.lobby.JoinGame, pb.JoinGameRequest(game_id=game.game_id),
                metadata=auth(ref_a.token))
        refused("a seat token on WhoAmI", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                bob.accounts.WhoAmI, pb.WhoAmIRequest(), metadata=auth(ref_a.token))
        forged = alice.session[:-4] + ("AAAA" if not alice.session.endswith("AAAA") else "BBBB")
        refused("a session token with its secret changed", C.UNAUTHENTICATED,
                "UNKNOWN_SESSION", bob.accounts.WhoAmI, pb.WhoAmIRequest(),
                metadata=auth(forged))
        # bob's session joins as bob, never in alice's seat; the seat token
        # still works on the Board as before
        ref_b = bob.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                   metadata=bob.md(), timeout=CALL_TIMEOUT)
        check(seat(ref_b, "seat") != seat(ref_a, "seat") and ref_b.token != ref_a.token,
              f"bob got seat {ref_b.seat}, alice holds {ref_a.seat}")
        b = alice.board.GetBoard(pb.GetBoardRequest(), metadata=auth(ref_a.token),
                                 timeout=CALL_TIMEOUT)
        check(len(b.board.cells) == 10, f"GetBoard with alice's seat token: {b}")
    with_board(bindir, body)


def sign_out_revokes(bindir):
    """Sign out ends one session; a password change ends the others and the
    old password; sign out everywhere ends them all."""
    def body(env, board, client):
        C = grpc.StatusCode
        a1, a2, a3 = client(), client(), client()
        a1.create("alice")
        a2.sign_in("alice")
        a3.sign_in("alice")
        whoami = pb.WhoAmIRequest()
        a1.accounts.SignOut(pb.SignOutRequest(), metadata=a1.md(), timeout=CALL_TIMEOUT)
        refused("WhoAmI after sign-out", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                a1.accounts.WhoAmI, whoami, metadata=a1.md())
        game = new_kalah(a2)
        refused("JoinGame after sign-out", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                a1.lobby.JoinGame, pb.JoinGameRequest(game_id=game.game_id), metadata=a1.md())
        a2.accounts.WhoAmI(whoami, metadata=a2.md(), timeout=CALL_TIMEOUT)   # still good
        refused("a password change with the wrong old password", C.UNAUTHENTICATED,
                "BAD_CREDENTIALS", a2.accounts.ChangePassword,
                pb.ChangePasswordRequest(old_password="not the password",
                                         new_password="a brand new secret"), metadata=a2.md())
        changed = a2.accounts.ChangePassword(
            pb.ChangePasswordRequest(old_password=PASSWORD, new_password="a brand new secret"),
            metadata=a2.md(), timeout=CALL_TIMEOUT)
        check(changed.sessions_ended == 1, f"the change ended {changed.sessions_ended} sessions")
        refused("the other session after a password change", C.UNAUTHENTICATED,
                "UNKNOWN_SESSION", a3.accounts.WhoAmI, whoami, metadata=a3.md())
        a2.accounts.WhoAmI(whoami, metadata=a2.md(), timeout=CALL_TIMEOUT)   # this one stays
        refused("the old password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                a1.accounts.SignIn, pb.SignInRequest(name="alice", password=PASSWORD))
        a1.sign_in("alice", "a brand new secret")
        ended = a1.accounts.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=a1.md(),
                                              timeout=CALL_TIMEOUT)
        check(ended.sessions_ended == 2, f"sign out everywhere ended {ended.sessions_ended}")
        for c in (a1, a2):
            refused("a session after sign out everywhere", C.UNAUTHENTICATED,
                    "UNKNOWN_SESSION", c.accounts.WhoAmI, whoami, metadata=c.md())
    with_board(bindir, body)


def require_accounts(bindir):
    """--require-accounts refuses guests; the default lets them play, marked."""
    def body(env, board, client):
        C = grpc.StatusCode
        guest, alice = client(), client()
        refused("a guest creating a game", C.UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                guest.lobby.CreateGame, pb.CreateGameRequest(kind="kalah"))
        refused("a guest joining", C.UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                guest.lobby.JoinGame, pb.JoinGameRequest(any_of_kind="kalah", name="gus"))
        alice.create("alice")
        ref = alice.lobby.JoinGame(pb.JoinGameRequest(any_of_kind="kalah"), metadata=alice.md(),
                                   timeout=CALL_TIMEOUT)
        check(seat(ref, "seat") == 0, f"alice joined at seat {ref.seat}")
    with_board(bindir, body, "--require-accounts")


def claim_statistics(bindir):
    """Statistics played as a guest under a name are unclaimed: never ranked,
    claimed once by registering that exact name."""
    def body(env, board, client):
        C = grpc.StatusCode
        g1, g2 = client(), client()
        game = new_kalah(g1)
        r1 = g1.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="alice"),
                               timeout=CALL_TIMEOUT)
        r2 = g2.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="Bob"),
                               timeout=CALL_TIMEOUT)
        play_kalah(g1, r1, g2, r2)
        st = g1.lobby.GetPlayerStats(pb.GetPlayerStatsRequest(name="alice"),
                                     timeout=CALL_TIMEOUT)
        check(st.played == 1 and st.guest, f"a guest's statistics: {st}")
        top = g1.lobby.Leaderboard(pb.LeaderboardRequest(), timeout=CALL_TIMEOUT)
        check(not top.players, f"guests on the leaderboard: {top.players}")
        made = g1.create("alice")
        check(made.claimed, "registering alice did not claim her statistics")
        st = g1.lobby.GetPlayerStats(pb.GetPlayerStatsRequest(name="ALICE"),
                                     timeout=CALL_TIMEOUT)
        check(st.played == 1 and not st.guest, f"claimed statistics: {st}")
        made = g2.create("bob")                      # not "Bob": nothing to claim
        check(not made.claimed, "bob claimed Bob's statistics")
        top = g1.lobby.Leaderboard(pb.LeaderboardRequest(), timeout=CALL_TIMEOUT)
        check([p.name for p in top.players] == ["alice"],
              f"leaderboard: {[p.name for p in top.players]} (Bob is unclaimed, bob has "
              "not played)")
        refused("a guest as alice once she registered", C.PERMISSION_DENIED, "NAME_REGISTERED",
                client().lobby.JoinGame, pb.JoinGameRequest(any_of_kind="kalah", name="alice"))
    with_board(bindir, body)


def text_view(bindir):
    """The text view's register, whoami, logout, login (wrong password, then
    right) and passwd, each password on the line after its command; then
    --login NAME with the password on --password-fd, and the seat bears the
    account's name as registered."""
    from harness import Env
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, ready=False)
        alice.expect(r"^You are in the lobby")
        alice.send("register Alice")
        alice.send("correct horse")
        alice.send("correct horse")
        alice.expect(r"^Account Alice created\. Signed in\.")
        alice.send("whoami")
        alice.expect(r"^Signed in as Alice\.")
        alice.send("logout")
        alice.expect(r"^Signed out\.")
        alice.send("login alice")
        alice.send("battery staple")
        alice.expect(r"wrong name or password")
        alice.send("login alice")
        alice.send("correct horse")
        alice.expect(r"^Signed in as Alice\.")
        alice.send("passwd")
        alice.send("correct horse")
        alice.send("horse battery")
        alice.send("horse batterY")
        alice.expect(r"^The two passwords differ; nothing was changed\.")
        alice.send("passwd")
        alice.send("correct horse")
        alice.send("horse battery")
        alice.send("horse battery")
        alice.expect(r"^Password changed")
        check(not any("horse" in l for l in alice.lines),
              "a password was shown:\n" + alice.dump())
        alice.quit()

        r, w = os.pipe()
        os.write(w, b"horse battery\n")
        os.close(w)
        again = env.player("x", "--server", board.address, "--login", "alice",
                           "--password-fd", str(r), "--new", "kalah", pass_fds=(r,))
        os.close(r)
        game = again.expect(r"Created game (\d+)").group(1)
        again.expect(r"^You are Alice, seat 0\.")     # the seat bears the account's name
        again.send("whoami")
        again.expect(r"^Signed in as Alice\.")
        bob_dir = os.path.join(env.state_dir, "bob")   # another person: not Alice's session
        bob = env.player("bob", "--server", board.address, "--game", game, "--state-dir", bob_dir)
        bob.expect(r"^You are bob, seat 1\.")
        again.wait_for(r"^bob joined")
        again.send("who")
        alice_line = again.expect(r"^  seat 0: Alice").string
        again.expect(r"^  seat 1: bob .*\(guest\)")       # marked: someone here signed in
        check("(guest)" not in alice_line, f"Alice is marked a guest: {alice_line}")
        for p in (again, bob):
            p.quit()


def guesses_at_once(bindir):
    """A burst of wrong guesses sent at once gets the limit's worth tried,
    no more: a check in flight counts against the limit. (Checked on arrival
    and counted when the hash finished, 34 guesses at once were all tried,
    and the right password then signed in.) A right password takes its count
    back: signing in again and again is no failure. With room for the whole
    burst in the address's share of the pool (--client-signin-jobs 64; by
    default two at a time get in and the rest are refused untried)."""
    def body(env, board, client):
        import threading
        alice = client()
        alice.create("alice")
        for _ in range(7):                       # right each time: never limited
            alice.sign_in("alice")
        mallory = client()
        answers = []

        def guess(i):
            try:
                request = pb.SignInRequest(name="alice", password=f"guess number {i}")
                mallory.accounts.SignIn(request, timeout=CALL_TIMEOUT)
                answers.append("OK")
            except grpc.RpcError as e:
                answers.append(dict(e.trailing_metadata() or ()).get("sungka-error-reason"))
        threads = [threading.Thread(target=guess, args=(i,)) for i in range(30)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        tried = answers.count("BAD_CREDENTIALS")
        check(len(answers) == 30 and "OK" not in answers and tried <= 5,
              f"30 guesses at once: {tried} tried, answers {sorted(set(answers), key=str)}")
        refused("alice after the burst, even the right password",
                grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED", mallory.accounts.SignIn,
                pb.SignInRequest(name="alice", password=PASSWORD))
    with_board(bindir, body, "--client-signin-jobs", "64")


def signin_flags(bindir):
    """The sign-in limits and the password pool's size are flags: a bad
    value is refused with a sentence; --signin-failures 2 refuses the third
    guess at a name, --client-signin-failures 3 the fourth from the address."""
    with Env(bindir) as env:
        board = os.path.join(bindir, "sungka-board")
        for flag, bad in (("--password-workers", "17"), ("--password-queue", "0"),
                          ("--signin-failures", "x"), ("--client-signin-failures", "-1"),
                          ("--signin-rate", "0"), ("--client-signin-rate", "1e3"),
                          ("--client-signin-jobs", ""), ("--max-account-sessions", "0")):
            r = subprocess.run([board, flag, bad], capture_output=True, text=True, timeout=30)
            check(r.returncode == 2 and f"{flag} must be a whole number" in r.stderr,
                  f"{flag} {bad}: status {r.returncode}, {r.stderr!r}")
        h = subprocess.run([board, "--help"], capture_output=True, text=True, timeout=30)
        for flag in ("--password-workers", "--password-queue", "--signin-failures",
                     "--client-signin-failures", "--signin-rate", "--client-signin-rate",
                     "--client-signin-jobs", "--max-account-sessions"):
            check(flag in h.stdout, f"--help does not mention {flag}")

    def body(env, board, client):
        C = grpc.StatusCode
        alice, mallory = client(), client()
        alice.create("alice")
        alice.create("bob")
        sign_in = mallory.accounts.SignIn
        for i in range(2):
            refused(f"alice, wrong password #{i + 1}", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                    sign_in, pb.SignInRequest(name="alice", password=f"guess number {i}"))
        e = refused("alice after --signin-failures 2", C.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                    sign_in, pb.SignInRequest(name="alice", password=PASSWORD))
        check("this name" in e.details(), f"the refusal does not say why: {e.details()!r}")
        refused("bob, wrong password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                sign_in, pb.SignInRequest(name="bob", password="guess number 3"))
        e = refused("bob after --client-signin-failures 3", C.RESOURCE_EXHAUSTED,
                    "LIMIT_REACHED", sign_in, pb.SignInRequest(name="bob", password=PASSWORD))
        check("your address" in e.details(), f"the refusal does not say why: {e.details()!r}")
    with_board(bindir, body, "--signin-failures", "2", "--client-signin-failures", "3",
               "--password-workers", "1", "--password-queue", "4")


FLOOD_NAMES = [f"flood{i}" for i in range(4)]


def flood_and_sign_in(board, client, other, label, rounds=12):
    """40 threads sign the flooder's four accounts in over and over from
    127.0.0.1 while another address signs in `rounds` times in a row; the
    other's answers and the flood's tally."""
    import threading
    from e2e_util import OtherAddress
    flooder = client()
    stop = threading.Event()
    tally, lock = {}, threading.Lock()

    def flood(name):
        while not stop.is_set():
            try:
                flooder.accounts.SignIn(pb.SignInRequest(name=name, password=PASSWORD),
                                        timeout=CALL_TIMEOUT)
                what = "OK"
            except grpc.RpcError as e:
                reason = dict(e.trailing_metadata() or ()).get("sungka-error-reason")
                what = f"{e.code().name} {reason}: {e.details()}"
                # A flood, but one that leaves the machine its cores for the
                # hashing: 40 threads retrying every 50 ms still take a place
                # in the address's lane again within ~1 ms of its freeing
                # (every 10 ms, as before, spent the cores on refusals: 18 s
                # for this test instead of 13, with no more checks in flight).
                stop.wait(0.05)
            with lock:
                tally[what] = tally.get(what, 0) + 1
    threads = [threading.Thread(target=flood, args=(FLOOD_NAMES[i % 4],)) for i in range(40)]
    answers = []
    with OtherAddress(board.address) as second:
        victim = Client(second.address)
        try:
            for t in threads:
                t.start()
            while sum(tally.values()) < 40:          # the flood is under way
                stop.wait(0.05)
            for _ in range(rounds):
                try:
                    victim.sign_in(other)
                    answers.append("OK")
                except grpc.RpcError as e:
                    answers.append(f"{e.code().name}: {e.details()}")
        finally:
            stop.set()
            for t in threads:
                t.join(60)
            victim.close()
    print(f"  {label}: the other address's {rounds} sign-ins: "
          f"{answers.count('OK')} signed in; the flood's answers: {tally}")
    return answers, tally


def hashing_shared_fairly(bindir):
    """One address flooding correct sign-ins of its own four accounts (40 at
    once, over and over) does not keep another address from signing in:
    with a queue of 8 (--password-queue), which before the flood held whole
    (an address could have 20 checks in flight, its failures' limit); with
    the defaults; and with the rates lifted too, where only the
    per-address lanes of the password pool share it out. The flood is
    refused with a sentence, and signs in at most --client-signin-rate (60)
    times a minute, its four accounts made included."""
    from e2e_util import OtherAddress

    def body(env, board, client, label):
        maker = client()
        for name in FLOOD_NAMES:
            maker.create(name)
        with OtherAddress(board.address) as second:
            v = Client(second.address)
            v.create("victim")
            v.close()
        answers, tally = flood_and_sign_in(board, client, "victim", label)
        check(answers == ["OK"] * len(answers),
              f"{label}: the other address's sign-ins were refused: {answers}")
        if "lifted" not in label:
            check(tally.get("OK", 0) <= 60 - len(FLOOD_NAMES),
                  f"{label}: the flood signed in {tally['OK']} times")
        refusals = [k for k in tally if k != "OK"]
        check(refusals and all(k.startswith("RESOURCE_EXHAUSTED LIMIT_REACHED: ") and
                               " " in k.split(": ", 1)[1] for k in refusals),
              f"{label}: the flood was not refused with a sentence: {tally}")
    with_board(bindir, lambda e, b, c: body(e, b, c, "a queue of 8"), "--password-queue", "8")
    with_board(bindir, lambda e, b, c: body(e, b, c, "defaults"))
    with_board(bindir, lambda e, b, c: body(e, b, c, "a queue of 8, rates lifted"),
               "--password-queue", "8", "--signin-rate", "1000000",
               "--client-signin-rate", "1000000")

def signin_rates(bindir):
    """Right passwords are checks too: --signin-rate 3 lets a name sign in
    three times a minute, --client-signin-rate 5 an address ask for five
    checks (accounts made count); another address is not held back."""
    from e2e_util import OtherAddress

    def body(env, board, client):
        C = grpc.StatusCode
        alice = client()
        alice.create("alice")                        # the address's 1st check
        for _ in range(3):
            alice.sign_in("alice")                   # 2nd..4th
        e = refused("alice's 4th sign-in this minute", C.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                    alice.accounts.SignIn, pb.SignInRequest(name="alice", password=PASSWORD))
        check("this name" in e.details() and "at most 3 a minute" in e.details(),
              f"the refusal does not say why: {e.details()!r}")
        alice.create("bob")                          # 5th
        e = refused("a 6th check from the address", C.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                    alice.accounts.SignIn, pb.SignInRequest(name="bob", password=PASSWORD))
        check("your address" in e.details() and "at most 5 a minute" in e.details(),
              f"the refusal does not say why: {e.details()!r}")
        with OtherAddress(board.address) as second:
            other = Client(second.address)
            try:
                other.sign_in("bob")
            finally:
                other.close()
    with_board(bindir, body, "--signin-rate", "3", "--client-signin-rate", "5")


def refused_accounts_not_counted(bindir):
    """An account the address's share of the pool refuses was not made and
    does not count against --client-registrations: six CreateAccount at once
    with --client-signin-jobs 1 and --client-registrations 2, then one at a
    time until refused: exactly two accounts are made."""
    import threading

    def body(env, board, client):
        c = client()
        answers = []

        def create(i):
            try:
                c.accounts.CreateAccount(pb.CreateAccountRequest(name=f"burst{i}",
                                                                 password=PASSWORD),
                                         timeout=CALL_TIMEOUT)
                answers.append("OK")
            except grpc.RpcError as e:
                answers.append(e.details())
        threads = [threading.Thread(target=create, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        made = answers.count("OK")
        for i in range(3):
            try:
                c.create(f"after{i}")
                made += 1
            except grpc.RpcError as e:
                check("made 2 accounts" in e.details(), f"create after{i}: {e.details()!r}")
                break
        print(f"  six at once: {sorted(answers)}; {made} made in all")
        check(made == 2, f"{made} accounts were made, not 2")
    with_board(bindir, body, "--client-signin-jobs", "1", "--client-registrations", "2")


def sessions_capped(bindir):
    """An account keeps at most --max-account-sessions sessions (20): each
    sign-in beyond ends its oldest. After 30 sign-ins the newest 20 work,
    the older ones are ended, and SignOutEverywhere ends 20. (Before: all
    31 stayed stored for 30 days.) Each sign-in costs an Argon2 hash: a few
    past the cap prove it, a hundred only burnt the suite's time."""
    SIGN_INS = 30
    def body(env, board, client):
        C = grpc.StatusCode
        alice = client()
        alice.create("alice")
        first = alice.session
        tokens = []
        for _ in range(SIGN_INS):
            tokens.append(alice.sign_in("alice").session.token)
        if not env.dbs.url:                          # SQLite: count the rows themselves
            import sqlite3
            con = sqlite3.connect(os.path.join(env.state_dir, "board.db"))
            rows = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
            con.close()
            print(f"  {SIGN_INS} sign-ins: {rows} sessions stored")
            check(rows == 20, f"{rows} sessions are stored, not 20")
        whoami = pb.WhoAmIRequest()
        for t in tokens[-20:]:
            alice.accounts.WhoAmI(whoami, metadata=auth(t), timeout=CALL_TIMEOUT)
        refused("the session CreateAccount made", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                alice.accounts.WhoAmI, whoami, metadata=auth(first))
        for i, t in enumerate(tokens[:-20]):
            try:
                alice.accounts.WhoAmI(whoami, metadata=auth(t), timeout=CALL_TIMEOUT)
            except grpc.RpcError as e:
                check(e.code() == C.UNAUTHENTICATED, f"sign-in {i + 1}'s session: {e}")
                continue
            raise Failure(f"sign-in {i + 1} of {SIGN_INS} still has its session")
        ended = alice.accounts.SignOutEverywhere(pb.SignOutEverywhereRequest(),
                                                 metadata=auth(tokens[-1]),
                                                 timeout=CALL_TIMEOUT)
        print(f"  {SIGN_INS} sign-ins: the newest 20 sessions work, {SIGN_INS - 19} ended; "
              f"sign out everywhere "
              f"ended {ended.sessions_ended}")
        check(ended.sessions_ended == 20, f"{ended.sessions_ended} sessions were stored")
    with_board(bindir, body, "--signin-rate", "1000", "--client-signin-rate", "1000")


def case_lookalikes(bindir):
    """Capitals that pass for other letters: with alice, BOB and WILL
    registered, aIice (a capital I), B0B (a zero), WlLL and wiII are refused,
    to register and as guests' names, each naming the name it looks like;
    invisible fillers are refused outright."""
    def body(env, board, client):
        C = grpc.StatusCode
        owners, guest = client(), client()
        for name in ("alice", "BOB", "WILL"):
            owners.create(name)
        game = new_kalah(owners)

        def create(name, timeout=CALL_TIMEOUT):
            return guest.accounts.CreateAccount(pb.CreateAccountRequest(name=name,
                                                                        password=PASSWORD),
                                                timeout=timeout)

        def join(name, timeout=CALL_TIMEOUT):
            return guest.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name=name),
                                        timeout=timeout)
        for name, like in (("aIice", "alice"), ("B0B", "BOB"), ("b0b", "BOB"),
                           ("WlLL", "WILL"), ("wiII", "WILL")):
            e = refused(f"register {name}", C.ALREADY_EXISTS, "NAME_CONFUSABLE", create, name)
            check(f"looks like the registered name '{like}'" in e.details(),
                  f"registering {name}: the refusal does not name {like}: {e.details()!r}")
            e = refused(f"a guest as {name}", C.PERMISSION_DENIED, "NAME_REGISTERED", join, name)
            check(f"'{like}'" in e.details(),
                  f"a guest as {name}: the refusal does not name {like}: {e.details()!r}")
        for name in ("alice\u3164", "\u115falice", "ali\u2800ce"):
            refused(f"register {name!r}", C.INVALID_ARGUMENT, "NAME_NOT_ALLOWED", create, name)
        refused("a guest as 'alice' + U+2800", C.INVALID_ARGUMENT, "NAME_NOT_ALLOWED",
                join, "alice\u2800")
        # guests in one game are held to the same rule, registered names or not
        join("mary")
        for name in ("rnary", "MARY", "rnаry"):
            e = refused(f"a second guest as {name!r}", C.ALREADY_EXISTS, "NAME_TAKEN",
                        join, name)
            check("looks like 'mary'" in e.details() or "taken" in e.details(),
                  f"a guest as {name!r}: {e.details()!r}")
        # names that share letters only are other people's
        made = create("alicia")
        check(made.session.name == "alicia", f"alicia: {made}")
        ref = join("bobby")
        check(seat(ref, "seat") is not None, f"bobby joined at seat {ref.seat}")
        # the lobby's "any open game" passes over a game where the name looks
        # like someone's, to another
        def any_kalah(name):
            return guest.lobby.JoinGame(pb.JoinGameRequest(any_of_kind="kalah", name=name),
                                        timeout=CALL_TIMEOUT)
        first, second = any_kalah("zed"), any_kalah("ZED")
        check(first.game_id != second.game_id and first.game_id != game.game_id,
              f"zed and ZED both sent to game {second.game_id}")
    with_board(bindir, body)


def old_lookalikes_kept(bindir):
    """A database from before looks were kept (schema 7) holding both alice
    and aIice: the service opens it, fills in both looks, each still signs
    in by its own name, and a third look-alike is refused."""
    import sqlite3
    with Env(bindir, sqlite_only="it rewrites an SQLite file as an older service left it") \
            as env:
        generate(os.path.join(env.state_dir, "stubs"))
        path = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", path)
        c = Client(board.address)
        c.create("alice")
        c.close()
        board.stop()
        con = sqlite3.connect(path)
        con.executescript("ALTER TABLE games DROP COLUMN tournament_id;"   # schema 14's
                          "DROP TABLE tournaments;"                 # 13's
                          "DROP TABLE analyses;"                     # 12's
                          "DROP TABLE blocks; DROP TABLE reports;"   # 11's
                          "DROP TABLE reset_codes; DROP TABLE admin_actions;"  # 10's
                          "DROP TABLE bans;"
                          "DROP INDEX accounts_by_look; ALTER TABLE accounts DROP COLUMN look;"
                          "PRAGMA user_version = 8;")
        # aIice with alice's password hash: a schema-8 service let both in
        con.execute("INSERT INTO accounts (name, name_key, skeleton, pwhash, created_ms,"
                    " password_ms) SELECT 'aIice', 'aiice', 'aiice', pwhash, created_ms,"
                    " password_ms FROM accounts WHERE name_key = 'alice'")
        con.commit()
        con.close()
        board = env.board("--db", path)
        board.expect_stderr(r"filled in the look of 2 accounts", timeout=30)
        c = Client(board.address)
        try:
            for name in ("alice", "aIice", "AIICE"):
                signed = c.sign_in(name)
                print(f"  {name} signs in as {signed.session.name}")
                check(signed.session.name == ("alice" if name == "alice" else "aIice"),
                      f"{name} signed in as {signed.session.name}")
            C = grpc.StatusCode
            refused("register a1ice beside both", C.ALREADY_EXISTS, "NAME_CONFUSABLE",
                    c.accounts.CreateAccount, pb.CreateAccountRequest(name="a1ice",
                                                                      password=PASSWORD))
            con = sqlite3.connect(path)
            looks = dict(con.execute("SELECT name, look FROM accounts").fetchall())
            con.close()
            check(looks == {"alice": "alice", "aIice": "alice"}, f"the looks: {looks}")
        finally:
            c.close()


def nul_passwords(bindir):
    """A NUL byte inside a password (or a name) is refused, never cut: protobuf
    carries the whole string, C would have read it up to the NUL."""
    def body(env, board, client):
        C = grpc.StatusCode
        alice, other = client(), client()
        alice.create("alice")
        cut = PASSWORD + "\0x"
        e = refused("SignIn with the password + NUL + x", C.INVALID_ARGUMENT, "BAD_REQUEST",
                    other.accounts.SignIn, pb.SignInRequest(name="alice", password=cut))
        check("NUL" in e.details() and "password" in e.details() and PASSWORD not in e.details(),
              f"the refusal does not say why, or echoes the password: {e.details()!r}")
        refused("CreateAccount with 'secret\\0x'", C.INVALID_ARGUMENT, "BAD_REQUEST",
                other.accounts.CreateAccount,
                pb.CreateAccountRequest(name="carol", password="secret\0x"))
        refused("CreateAccount with a password + NUL", C.INVALID_ARGUMENT, "BAD_REQUEST",
                other.accounts.CreateAccount,
                pb.CreateAccountRequest(name="carol", password="long enough secret\0x"))
        refused("carol was not made with the cut password", C.UNAUTHENTICATED,
                "BAD_CREDENTIALS", other.accounts.SignIn,
                pb.SignInRequest(name="carol", password="long enough secret"))
        refused("CreateAccount with a name + NUL", C.INVALID_ARGUMENT, "BAD_REQUEST",
                other.accounts.CreateAccount,
                pb.CreateAccountRequest(name="dave\0evil", password=PASSWORD))
        refused("ChangePassword, old password + NUL", C.INVALID_ARGUMENT, "BAD_REQUEST",
                alice.accounts.ChangePassword,
                pb.ChangePasswordRequest(old_password=cut, new_password="a brand new secret"),
                metadata=alice.md())
        refused("ChangePassword, new password + NUL", C.INVALID_ARGUMENT, "BAD_REQUEST",
                alice.accounts.ChangePassword,
                pb.ChangePasswordRequest(old_password=PASSWORD,
                                         new_password="a brand new secret\0x"),
                metadata=alice.md())
        # nothing changed: the password is still the one she chose
        other.sign_in("alice")
        # the health check, answered off the loop, decodes the same way
        check_health = other.channel.unary_unary("/grpc.health.v1.Health/Check")
        refused("Health.Check with a service name + NUL", C.INVALID_ARGUMENT, None,
                check_health, b"\x0a\x08sungka\x00x")
    with_board(bindir, body)


def seat_after_sign_out(bindir):
    """A seat taken while signed in is the account's: signing out everywhere,
    or changing the password, ends its seat token (and its stream) like the
    sessions; signing in again and joining the game gives the seat back with
    a new token. A guest's token in the same game is untouched."""
    def body(env, board, client):
        C = grpc.StatusCode
        alice, gus = client(), client()
        alice.create("alice")
        game = new_kalah(alice)
        ref = alice.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                   metadata=alice.md(), timeout=CALL_TIMEOUT)
        ref_g = gus.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="gus"),
                                   timeout=CALL_TIMEOUT)
        get = pb.GetBoardRequest()
        alice.board.GetBoard(get, metadata=auth(ref.token), timeout=CALL_TIMEOUT)
        stream = alice.board.Subscribe(pb.SubscribeRequest(), metadata=auth(ref.token),
                                       timeout=60)
        events = iter(stream)
        next(events)                                  # the snapshot
        alice.accounts.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=alice.md(),
                                         timeout=CALL_TIMEOUT)
        e = refused("GetBoard with the seat token after sign out everywhere",
                    C.UNAUTHENTICATED, "UNKNOWN_TOKEN", alice.board.GetBoard, get,
                    metadata=auth(ref.token))
        check("sign" in e.details(), f"the refusal does not say how to come back: "
                                     f"{e.details()!r}")
        refused("Move with the seat token after sign out everywhere", C.UNAUTHENTICATED,
                "UNKNOWN_TOKEN", alice.board.Move, pb.MoveRequest(move=0),
                metadata=auth(ref.token))
        try:
            for _ in events:
                pass
            raise Failure("the stream of the ended seat token went on")
        except grpc.RpcError as err:
            check(err.code() == C.UNAUTHENTICATED,
                  f"the stream ended {err.code().name}: {err.details()!r}")
            print(f"  the stream ended {err.code().name} \"{err.details()}\"")
        gus.board.GetBoard(get, metadata=auth(ref_g.token), timeout=CALL_TIMEOUT)

        alice.sign_in("alice")
        back = alice.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                    metadata=alice.md(), timeout=CALL_TIMEOUT)
        check(seat(back, "seat") == seat(ref, "seat") and back.token != ref.token,
              f"signed in again: seat {seat(back, 'seat')} (had {seat(ref, 'seat')}), "
              f"token {'new' if back.token != ref.token else 'the old one'}")
        b = alice.board.GetBoard(get, metadata=auth(back.token), timeout=CALL_TIMEOUT)
        check(len(b.board.cells) == 10, f"GetBoard with the seat given back: {b}")

        alice.accounts.ChangePassword(
            pb.ChangePasswordRequest(old_password=PASSWORD, new_password="a brand new secret"),
            metadata=alice.md(), timeout=CALL_TIMEOUT)
        refused("GetBoard with the seat token after a password change", C.UNAUTHENTICATED,
                "UNKNOWN_TOKEN", alice.board.GetBoard, get, metadata=auth(back.token))
        again = alice.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id),
                                     metadata=alice.md(), timeout=CALL_TIMEOUT)
        check(seat(again, "seat") == seat(ref, "seat") and again.token != back.token,
              f"after the change: seat {seat(again, 'seat')}")
        alice.board.GetBoard(get, metadata=auth(again.token), timeout=CALL_TIMEOUT)
        gus.board.GetBoard(get, metadata=auth(ref_g.token), timeout=CALL_TIMEOUT)
        # The new tokens are the stored ones: a restart brings back none of the old.
        board.stop()
        board = env.board("--db", os.path.join(env.state_dir, "board.db"))
        later = Client(board.address)
        try:
            for old in (ref.token, back.token):
                refused("an ended seat token after a restart", C.UNAUTHENTICATED,
                        "UNKNOWN_TOKEN", later.board.GetBoard, get, metadata=auth(old))
            later.board.GetBoard(get, metadata=auth(again.token), timeout=CALL_TIMEOUT)
        finally:
            later.close()
    with_board(bindir, body)


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (register_and_play, impersonation, wrong_password,
                                           tokens_apart, sign_out_revokes, require_accounts,
                                           claim_statistics, text_view, guesses_at_once,
                                           signin_flags, hashing_shared_fairly,
                                           signin_rates, refused_accounts_not_counted,
                                           sessions_capped,
                                           case_lookalikes, old_lookalikes_kept, nul_passwords,
                                           seat_after_sign_out)}))
