#!/usr/bin/python3
"""test_admin.py — the Admin service and sungka-admin (issue "[4/8] A service
an operator can run in public"): an operator bans an account and an address
prefix, and both are refused afterwards with the reason.

A stock Python gRPC client (stubs protoc compiles from sungka.proto and
admin.proto, as test_accounts.py does) and the sungka-admin program talk to a
real sungka-board on loopback. Calls "from another address" come through
e2e_util.OtherAddress, a forwarder that connects from 127.0.0.2.
Usage: test_admin.py BINDIR TEST.
"""
import importlib
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402
from e2e_util import OtherAddress  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, Client, refused, new_kalah)
import test_logs  # noqa: E402  (_regex: fail2ban-regex with our filter)

T = stubs.CALL_TIMEOUT
apb = apb_grpc = None


def generate(env):
    """The players' stubs (test_accounts.generate) and the Admin service's."""
    global apb, apb_grpc
    out = os.path.join(env.state_dir, "stubs")
    stubs.generate(out)
    r = subprocess.run(["protoc", f"--python_out={out}", f"--grpc_out={out}",
                        "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin", "-I",
                        stubs.PROTO_DIR, "sungka/v1/admin.proto"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"protoc admin.proto: {r.stderr}")
    apb = importlib.import_module("sungka.v1.admin_pb2")
    apb_grpc = importlib.import_module("sungka.v1.admin_pb2_grpc")


class Admin:
    """One board with an admin token file, its Admin stub and sungka-admin."""

    def __init__(self, env, *flags, db=None):
        generate(env)
        self.env = env
        self.token_file = os.path.join(env.state_dir, "admin-token")
        self.db = db or os.path.join(env.state_dir, "board.db")
        self.board = env.board("--db", self.db, "--admin-token-file", self.token_file, *flags)
        self.token = open(self.token_file).read().strip()
        self.channel = stubs.grpc.insecure_channel(self.board.address)
        self.stub = apb_grpc.AdminStub(self.channel)
        self.clients = []

    def md(self):
        return (("authorization", f"Bearer {self.token}"),)

    def call(self, method, req):
        return getattr(self.stub, method)(req, metadata=self.md(), timeout=T)

    def run(self, *args, server=None, status=0):
        """sungka-admin ARGS against the board: its stdout."""
        argv = [os.path.join(self.env.bindir, "sungka-admin"), "--server",
                server or self.board.address, "--token-file", self.token_file, *args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=self.env.env)
        check(r.returncode == status, f"sungka-admin {' '.join(args)}: status {r.returncode}, "
                                      f"wanted {status}\n{r.stdout}\n{r.stderr}")
        print(f"  sungka-admin {' '.join(args)} -> {r.returncode}")
        return r.stdout + r.stderr

    def client(self, address=None):
        c = stubs.Client(address or self.board.address)
        self.clients.append(c)
        return c

    def close(self):
        for c in self.clients:
            c.close()
        self.channel.close()


def _admin(bindir, body, *flags, sqlite_only=None):
    with Env(bindir, sqlite_only=sqlite_only) as env:
        a = Admin(env, *flags)
        try:
            body(env, a)
        finally:
            a.close()


def token(bindir):
    """No token and a wrong one are refused, logged with the caller's
    address in lines packaging/fail2ban's filter bans; the token file is
    0600; sungka-admin says what is wrong and exits 1, or 2 for its usage."""
    def body(env, a):
        C = stubs.grpc.StatusCode
        mode = stat.S_IMODE(os.stat(a.token_file).st_mode)
        check(mode == 0o600, f"the token file's mode is {oct(mode)}")
        req = apb.AdminListOnlineRequest()
        stubs.refused("no admin token", C.UNAUTHENTICATED, "BAD_ADMIN_TOKEN",
                      a.stub.ListOnline, req)
        stubs.refused("a wrong admin token", C.PERMISSION_DENIED, "BAD_ADMIN_TOKEN",
                      a.stub.ListOnline, req,
                      metadata=(("authorization", "Bearer " + "0" * 64),))
        stubs.refused("a wrong token in sungka-admin-token", C.PERMISSION_DENIED,
                      "BAD_ADMIN_TOKEN", a.stub.ListOnline, req,
                      metadata=(("sungka-admin-token", a.token[:-1] + "x"),))
        a.stub.ListOnline(req, metadata=(("sungka-admin-token", a.token),), timeout=T)
        a.call("ListOnline", req)
        a.board.expect_stderr(r"client 127\.0\.0\.1: admin call refused: ", count=3)

        lines = list(a.board.err_lines)
        refusals = [l for l in lines if "admin call refused" in l]
        tmp = tempfile.mkdtemp(prefix="sungka-admin-")
        try:
            path = os.path.join(tmp, "board.log")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            matched, hosts = test_logs._regex(path, env.env)
        finally:
            subprocess.run(["rm", "-rf", tmp])
        got = [l for l in matched if "admin call refused" in l]
        check(got == refusals and hosts[-3:] == ["127.0.0.1"] * 3,
              f"fail2ban-regex matched {matched} (hosts {hosts}); the refusals are {refusals}")

        wrong = os.path.join(env.state_dir, "wrong-token")
        with open(wrong, "w") as f:
            f.write("1" * 64 + "\n")
        argv = [os.path.join(env.bindir, "sungka-admin"), "--server", a.board.address,
                "--token-file", wrong, "online"]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env.env)
        check(r.returncode == 1 and "not this service's admin token" in r.stderr,
              f"a wrong token: {r.returncode} {r.stderr}")
        out = a.run("frobnicate", status=2)
        check("no command 'frobnicate'" in out, out)
        out = a.run("ban", "bob", status=2)
        check("ban takes NAME REASON" in out, out)
        out = a.run("ban", "bob", "x", "--for", "soon", status=2)
        check("--for takes a duration" in out, out)
        out = a.run("ban", "--help")
        check("This account is disabled: REASON" in out, out)
        out = a.run("ban", "nobody", "cheating", status=1)
        check("there is no account 'nobody'" in out, out)
    _admin(bindir, body)


def default_token_file(bindir):
    """Without --admin-token-file the service makes DB.admin-token beside its
    SQLite file, 0600, once, and sungka-admin reads it from there."""
    with Env(bindir, sqlite_only="the token beside an SQLite file") as env:
        db = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", db)
        path = db + ".admin-token"
        board.expect_stderr(r"admin token made in " + path)
        check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, "the token file is not 0600")
        first = open(path).read()
        board.p.terminate()
        board.p.wait(10)
        board = env.board("--db", db, port=board.port)
        board.expect_stderr(r"admin token read from " + path)
        check(open(path).read() == first, "a second start made another token")
        argv = [os.path.join(env.bindir, "sungka-admin"), "--server", board.address,
                "--token-file", path, "bans"]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env.env)
        check(r.returncode == 0 and "(none)" in r.stdout, f"{r.returncode} {r.stdout} {r.stderr}")
        no_token = env.board("--db", ":memory:")
        generate(env)
        ch = stubs.grpc.insecure_channel(no_token.address)
        stubs.refused("a service without a token", stubs.grpc.StatusCode.FAILED_PRECONDITION,
                      "NO_ADMIN_TOKEN", apb_grpc.AdminStub(ch).ListOnline,
                      apb.AdminListOnlineRequest(),
                      metadata=(("authorization", "Bearer " + "0" * 64),))
        ch.close()


def ban_account(bindir):
    """A banned account's open session, its seat token and SignIn are refused
    with the reason; unbanned, it signs in again (its old sessions are over)."""
    def body(env, a):
        C = stubs.grpc.StatusCode
        bob, alice = a.client(), a.client()
        bob.create("bob")
        alice.create("alice")
        game = stubs.new_kalah(alice)
        ref = bob.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                 metadata=bob.md(), timeout=T)
        bob.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=stubs.auth(ref.token), timeout=T)
        old_session = bob.session
        reply = a.call("BanAccount", apb.AdminBanAccountRequest(name="BOB",
                                                                 reason="cheating at kalah"))
        check(reply.target == "bob" and reply.until_ms == 0 and reply.seat_tokens_ended == 1,
              f"BanAccount answered {reply}")
        for what, fn, req, md in (
                ("WhoAmI on the old session", bob.accounts.WhoAmI, stubs.pb.WhoAmIRequest(),
                 bob.md()),
                ("JoinGame on the old session", bob.lobby.JoinGame,
                 stubs.pb.JoinGameRequest(game_id=game.game_id), bob.md())):
            e = stubs.refused(what, C.PERMISSION_DENIED, "ACCOUNT_DISABLED", fn, req,
                              metadata=md)
            check(e.details() == "This account is disabled: cheating at kalah", e.details())
        stubs.refused("the old seat token", C.UNAUTHENTICATED, "UNKNOWN_TOKEN",
                      bob.board.GetBoard, stubs.pb.GetBoardRequest(),
                      metadata=stubs.auth(ref.token))
        e = stubs.refused("SignIn", C.PERMISSION_DENIED, "ACCOUNT_DISABLED",
                          bob.accounts.SignIn,
                          stubs.pb.SignInRequest(name="bob", password=stubs.PASSWORD))
        check("cheating at kalah" in e.details(), e.details())
        stubs.refused("SignIn with a wrong password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                      bob.accounts.SignIn, stubs.pb.SignInRequest(name="bob",
                                                                   password="not it at all"))
        alice.accounts.WhoAmI(stubs.pb.WhoAmIRequest(), metadata=alice.md(), timeout=T)
        a.board.expect_stderr(r"admin 127\.0\.0\.1: ban account bob: cheating at kalah")

        out = a.run("bans")
        check("account" in out and "bob" in out and "cheating at kalah" in out, out)
        out = a.run("unban", "bob", "appeal granted")
        check("unbanned account bob" in out, out)
        stubs.refused("the session from before the ban", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                      bob.accounts.WhoAmI, stubs.pb.WhoAmIRequest(),
                      metadata=stubs.auth(old_session))
        bob.sign_in("bob")
        bob.accounts.WhoAmI(stubs.pb.WhoAmIRequest(), metadata=bob.md(), timeout=T)
        a.run("unban", "bob", status=1)                    # not banned any more

        # Through the program, for a time: over by itself.
        out = a.run("ban", "bob", "a short break", "--for", "2s")
        check("banned account bob until" in out, out)
        stubs.refused("SignIn during the break", C.PERMISSION_DENIED, "ACCOUNT_DISABLED",
                      bob.accounts.SignIn, stubs.pb.SignInRequest(name="bob",
                                                                   password=stubs.PASSWORD))
        deadline = time.monotonic() + 30
        while True:
            try:
                bob.sign_in("bob")
                break
            except stubs.grpc.RpcError as e:
                check(e.code() == C.PERMISSION_DENIED and time.monotonic() < deadline,
                      f"SignIn after the break: {e.code()} {e.details()}")
                time.sleep(0.5)
        out = a.run("log")
        for line in ("ban account", "unban account", "appeal granted", "a short break"):
            check(line in out, f"the log lacks {line!r}:\n{out}")
    _admin(bindir, body)


def ban_address(bindir):
    """A banned prefix is refused with the reason, on every call and on the
    open stream it had; the other address goes on; the ban ends by itself."""
    def body(env, a):
        C = stubs.grpc.StatusCode
        with OtherAddress(f"127.0.0.1:{a.board.port}") as other:
            far = a.client(other.address)
            near = a.client()
            game = stubs.new_kalah(near)
            ref = far.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id,
                                                              name="farah"), timeout=T)
            stream = far.board.Subscribe(stubs.pb.SubscribeRequest(),
                                         metadata=stubs.auth(ref.token))
            next(stream)                                   # the snapshot: it is open
            out = a.run("online")
            check(any("127.0.0.2" in l and "farah" in l and "yes" in l
                      for l in out.splitlines()), f"online:\n{out}")
            out = a.run("ban-address", "127.0.0.2", "flooding the lobby", "--for", "3s")
            check("banned address 127.0.0.2/32 until" in out and "1 open streams ended" in out,
                  out)
            try:
                for _ in stream:
                    pass
                raise Failure("the banned address's stream ended without an error")
            except stubs.grpc.RpcError as e:
                check(e.code() == C.PERMISSION_DENIED and "flooding the lobby" in e.details(),
                      f"the stream ended {e.code()} {e.details()}")
            e = stubs.refused("a call from the banned address", C.PERMISSION_DENIED,
                              "ADDRESS_BANNED", far.lobby.ListGames,
                              stubs.pb.ListGamesRequest())
            check(e.details().startswith("Your address is banned from this service: "
                                         "flooding the lobby (until "), e.details())
            near.lobby.ListGames(stubs.pb.ListGamesRequest(), timeout=T)   # 127.0.0.1 goes on
            deadline = time.monotonic() + 30
            while True:
                try:
                    far.lobby.ListGames(stubs.pb.ListGamesRequest(), timeout=T)
                    break
                except stubs.grpc.RpcError as e:
                    check(e.code() == C.PERMISSION_DENIED and time.monotonic() < deadline,
                          f"after the ban's end: {e.code()} {e.details()}")
                    time.sleep(0.5)

            # A prefix through the stub, until lifted; lifted through the program.
            reply = a.call("BanAddress", apb.AdminBanAddressRequest(address="127.0.0.2/31",
                                                                     reason="again"))
            check(reply.target == "127.0.0.2/31", f"BanAddress answered {reply}")
            stubs.refused("a call from the banned prefix", C.PERMISSION_DENIED,
                          "ADDRESS_BANNED", far.lobby.ListGames, stubs.pb.ListGamesRequest())
            near.lobby.ListGames(stubs.pb.ListGamesRequest(), timeout=T)
            stubs.refused("a malformed prefix", C.INVALID_ARGUMENT, "BAD_REQUEST",
                          a.stub.BanAddress, apb.AdminBanAddressRequest(address="127.0.0.2/40",
                                                                        reason="x"),
                          metadata=a.md())
            stubs.refused("a ban without a reason", C.INVALID_ARGUMENT, "BAD_REQUEST",
                          a.stub.BanAddress, apb.AdminBanAddressRequest(address="10.0.0.1"),
                          metadata=a.md())
            a.run("unban-address", "127.0.0.2/31", "lifted")
            far.lobby.ListGames(stubs.pb.ListGamesRequest(), timeout=T)
            out = a.run("log", "10")
            check("ban address" in out and "127.0.0.2/32" in out and "unban address" in out,
                  out)
    _admin(bindir, body)


def end_game(bindir):
    """The operator ends a running game with no result; its players read the
    reason; ratings and the log answer through the program."""
    def body(env, a):
        alice, bob = a.client(), a.client()
        game = stubs.new_kalah(alice)
        ra = alice.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id, name="alice"),
                                  timeout=T)
        bob.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id, name="bob"),
                           timeout=T)
        out = a.run("end", game.game_id, "a broken board")
        check(f"game {game.game_id} ended" in out, out)
        # Every event after the first: the end is among them, with its reason.
        stream = alice.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=1),
                                       metadata=stubs.auth(ra.token))
        seen = ""
        for ev in stream:
            seen += str(ev)
            if "operator ended the game" in seen or "ping" in str(ev):
                break
        stream.cancel()
        check("the operator ended the game: a broken board" in seen,
              f"the events do not say why: {seen}")
        out = a.run("end", game.game_id, "again", status=1)
        check("over already" in out, out)
        a.run("end", "999999", "no such game", status=1)
        out = a.run("ratings")
        check("Pairs of accounts with the most rated games together" in out and
              "Pairs not rated: too short" in out, out)
        out = a.run("log")
        check("end game" in out and game.game_id in out and "a broken board" in out, out)
    _admin(bindir, body)


def kick_and_mute(bindir):
    """A muted account's chat and private messages are refused with the
    reason, others chat on, and unmuted it chats again; a participant taken
    out of a game reads why on their stream and their token is over."""
    def body(env, a):
        C = stubs.grpc.StatusCode
        alice, bob, carol = a.client(), a.client(), a.client()
        alice.create("alice")
        bob.create("bob")
        game = stubs.new_kalah(alice)
        ra = alice.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                  metadata=alice.md(), timeout=T)
        rb = bob.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                metadata=bob.md(), timeout=T)
        rc = carol.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id, name="carol",
                                                           observe=True), timeout=T)
        out = a.run("mute", "alice", "spamming the chat", "--for", "1h")
        check("muted account alice until" in out, out)
        for what, req in (("a chat line", stubs.pb.ChatRequest(text="hello")),
                          ("a private message", stubs.pb.ChatRequest(text="psst", to="bob"))):
            e = stubs.refused(f"{what} of the muted account", C.PERMISSION_DENIED, "MUTED",
                              alice.board.Chat, req, metadata=stubs.auth(ra.token))
            check(e.details().startswith("You are muted: spamming the chat (until "),
                  e.details())
        bob.board.Chat(stubs.pb.ChatRequest(text="hi all"), metadata=stubs.auth(rb.token),
                       timeout=T)
        out = a.run("bans")
        check("mute" in out and "alice" in out and "spamming the chat" in out, out)
        a.run("unmute", "alice", "calmer now")
        alice.board.Chat(stubs.pb.ChatRequest(text="sorry"), metadata=stubs.auth(ra.token),
                         timeout=T)

        stream = carol.board.Subscribe(stubs.pb.SubscribeRequest(),
                                       metadata=stubs.auth(rc.token))
        next(stream)
        out = a.run("kick", game.game_id, "carol", "rude to the players")
        check(f"carol taken out of game {game.game_id}" in out, out)
        try:
            for _ in stream:
                pass
            raise Failure("the kicked observer's stream ended without an error")
        except stubs.grpc.RpcError as e:
            check(e.code() == C.PERMISSION_DENIED and
                  e.details() == "the operator took you out of the game: rude to the players",
                  f"the stream ended {e.code()} {e.details()}")
        stubs.refused("the kicked observer's token", C.UNAUTHENTICATED, "UNKNOWN_TOKEN",
                      carol.board.GetBoard, stubs.pb.GetBoardRequest(),
                      metadata=stubs.auth(rc.token))
        out = a.run("kick", game.game_id, "nobody", "x", status=1)
        check("nobody in game" in out, out)
        out = a.run("log")
        for word in ("mute", "unmute", "kick", "carol in game"):
            check(word in out, f"the log lacks {word!r}:\n{out}")
    _admin(bindir, body)


def reset_password(bindir):
    """The operator's one-time code sets a forgotten password, once: the old
    password is refused after it, the code a second time too, and a wrong
    code counts as a failed sign-in; the person uses it from the text view."""
    def body(env, a):
        C = stubs.grpc.StatusCode
        alice = a.client()
        alice.create("alice")
        old_session = alice.session
        out = a.run("reset-password", "alice", "she asked by mail")
        code = re.search(r"reset code for alice: ([A-Z0-9-]{14}) \(valid until", out)
        check(code, f"no code in: {out}")
        code = code.group(1)
        check(code not in "\n".join(a.board.err_lines), "the service logged the code")
        req = stubs.pb.ResetPasswordRequest
        stubs.refused("a wrong code", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                      alice.accounts.ResetPassword,
                      req(name="alice", code="AAAA-AAAA-AAAA", new_password="a new secret"))
        a.board.expect_stderr(r'client 127\.0\.0\.1: sign-in failed for "alice": wrong '
                              r'password reset code')
        reply = alice.accounts.ResetPassword(
            req(name="alice", code=code.lower().replace("-", " "), new_password="a new secret"),
            timeout=T)
        check(reply.sessions_ended == 1, f"ResetPassword answered {reply}")
        stubs.refused("the session from before", C.UNAUTHENTICATED, "UNKNOWN_SESSION",
                      alice.accounts.WhoAmI, stubs.pb.WhoAmIRequest(),
                      metadata=stubs.auth(old_session))
        stubs.refused("the old password", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                      alice.accounts.SignIn, stubs.pb.SignInRequest(name="alice",
                                                                     password=stubs.PASSWORD))
        stubs.refused("the code a second time", C.UNAUTHENTICATED, "BAD_CREDENTIALS",
                      alice.accounts.ResetPassword,
                      req(name="alice", code=code, new_password="yet another one"))
        alice.sign_in("alice", "a new secret")

        # From the text view, with a new code.
        code = re.search(r"reset code for alice: (\S+)",
                         a.run("reset-password", "alice")).group(1)
        p = env.player("x", "--server", a.board.address, ready=False)
        p.expect(r"^You are in the lobby")
        p.send(f"reset alice {code}")
        p.send("horse battery")
        p.send("horse battery")
        p.expect(r"^Password reset; every other session of the account is signed out\. "
                 r"Signed in as alice\.")
        check(not any("horse" in l for l in p.lines), "a password was shown:\n" + p.dump())
        p.quit()
        alice.sign_in("alice", "horse battery")
        out = a.run("log")
        check("reset password" in out and "she asked by mail" in out and code not in out, out)
    _admin(bindir, body)


def cluster_ban(bindir):
    """A ban made through one node of a cluster refuses on the other, and
    ends the stream the other serves from that address; a game the other
    node hosts is ended through the first (sungka-admin follows ELSEWHERE)."""
    with Env(bindir) as env:
        if not env.dbs.url:
            raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        generate(env)
        token_file = os.path.join(env.state_dir, "admin-token")
        db = os.path.join(env.state_dir, "cluster.db")
        a = env.board("--db", db, "--lease", "3", "--admin-token-file", token_file)
        b = env.board("--db", db, "--lease", "3", "--admin-token-file", token_file)
        with OtherAddress(f"127.0.0.1:{b.port}") as other:
            far = stubs.Client(other.address)
            try:
                game = stubs.new_kalah(far)                   # hosted by B
                ref = far.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id,
                                                                  name="farah"), timeout=T)
                stream = far.board.Subscribe(stubs.pb.SubscribeRequest(),
                                             metadata=stubs.auth(ref.token))
                next(stream)
                # A game B hosts, ended through A: sungka-admin follows ELSEWHERE to B.
                near = stubs.Client(b.address)
                other_game = stubs.new_kalah(near)
                near.close()
                argv = [os.path.join(bindir, "sungka-admin"), "--server", a.address,
                        "--token-file", token_file, "end", other_game.game_id, "test over"]
                r = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                                   env=env.env)
                check(r.returncode == 0 and f"game {other_game.game_id} ended" in r.stdout,
                      f"end through A: {r.returncode} {r.stdout} {r.stderr}")
                b.expect_stderr(rf"game {other_game.game_id} over: the operator ended the game")

                def through_a(*words):
                    argv = [os.path.join(bindir, "sungka-admin"), "--server", a.address,
                            "--token-file", token_file, *words]
                    r = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                                       env=env.env)
                    check(r.returncode == 0, f"{r.returncode} {r.stdout} {r.stderr}")

                def until_b(banned, what):
                    """Until B refuses the far address (banned) or lets it in."""
                    deadline = time.monotonic() + 20
                    while True:
                        try:
                            far.lobby.ListGames(stubs.pb.ListGamesRequest(), timeout=T)
                            if not banned:
                                return
                        except stubs.grpc.RpcError as e:
                            check(e.code() == stubs.grpc.StatusCode.PERMISSION_DENIED and
                                  "seen on A" in e.details(), f"{e.code()} {e.details()}")
                            if banned:
                                return
                        check(time.monotonic() < deadline, f"node B never applied A's {what}")
                        time.sleep(0.2)

                through_a("ban-address", "127.0.0.2", "seen on A")
                until_b(True, "ban")
                # B ended the stream it served from the banned address, with the reason.
                try:
                    for ev in stream:
                        check("ping" in str(ev) or "snapshot" in str(ev),
                              f"an event after the ban: {ev}")
                    raise Failure("the stream on B ended without an error")
                except stubs.grpc.RpcError as e:
                    check(e.code() == stubs.grpc.StatusCode.PERMISSION_DENIED and
                          "seen on A" in e.details(), f"B's stream: {e.code()} {e.details()}")
                # Lifted through A: B sees the change of the table (it reads the
                # bans again only when their mark changes) and lets the address in.
                through_a("unban-address", "127.0.0.2")
                until_b(False, "unban")
            finally:
                far.close()


if __name__ == "__main__":
    sys.exit(main({"token": token, "default_token_file": default_token_file,
                   "ban_account": ban_account, "ban_address": ban_address,
                   "end_game": end_game, "kick_and_mute": kick_and_mute,
                   "reset_password": reset_password,
                   "cluster_ban": cluster_ban}))
