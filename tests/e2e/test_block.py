#!/usr/bin/python3
"""test_block.py — players block and report one another (docs/rules.md,
"Blocking and reporting").

A stock Python gRPC client (python3-grpcio, stubs protoc compiles from our
own sungka.proto and social.proto, as test_accounts.py does) talks to a real
sungka-board on loopback. Three accounts sit in one game: when alice blocks
bob, bob's chat lines (to everyone, to the spectators, private) never reach
alice while carol still reads them, and bob's private message to alice is
refused in a neutral sentence; after an unblock they reach her again. Two
players of whom one blocks the other get no rematch. A guest cannot block
or report; the cap on blocks and the rate of reports are hit with their
sentences; a report is stored, logged with the client's address and listed
by `sungka-board --reports`; a reason with a control character is refused.
Usage: test_block.py BINDIR TEST.
"""
import importlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, Client, auth, refused, ...)

T = 15.0
soc = soc_grpc = None


def generate(out):
    """sungka.proto's stubs (test_accounts.generate), then social.proto's."""
    global soc, soc_grpc
    stubs.generate(out)
    r = subprocess.run(["protoc", f"--python_out={out}", f"--grpc_out={out}",
                        "--plugin=protoc-gen-grpc=" + stubs.shutil.which("grpc_python_plugin"),
                        "-I", stubs.PROTO_DIR, "sungka/v1/social.proto"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"protoc failed on social.proto: {r.stderr}")
    soc = importlib.import_module("sungka.v1.social_pb2")
    soc_grpc = importlib.import_module("sungka.v1.social_pb2_grpc")


class Person(stubs.Client):
    """An account (or a guest) with the Social stub, its seat in one game and
    the events of its stream, gathered by a thread."""

    def __init__(self, address, name=None):
        super().__init__(address)
        self.social = soc_grpc.SocialServiceStub(self.channel)
        if name:
            self.create(name)
        self.name = name
        self.events, self.token, self.call = [], None, None

    def do(self, method, request):
        return getattr(self.social, method)(request, metadata=self.md(), timeout=T)

    def resubscribe(self, after_seq):
        """A new stream of the same seat, from after event after_seq."""
        if self.call:
            self.call.cancel()
        self.events = []
        self.call = self.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=after_seq),
                                         metadata=stubs.auth(self.token))
        threading.Thread(target=self._gather, daemon=True).start()
        if after_seq == 0:
            self.wait_stream()

    def join(self, game_id, observe=False):
        ref = self.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game_id, name=self.name,
                                                           observe=observe),
                                  metadata=self.md(), timeout=T)
        self.token = ref.token
        self.call = self.board.Subscribe(stubs.pb.SubscribeRequest(),
                                         metadata=stubs.auth(self.token))
        threading.Thread(target=self._gather, daemon=True).start()
        self.wait_stream()
        return ref

    def wait_stream(self):
        """Until the stream's first event (its snapshot) is here: from then
        on every chat line is sent to it."""
        deadline = time.monotonic() + T
        while not self.events:
            check(time.monotonic() < deadline, f"{self.name}'s stream sent nothing")
            time.sleep(0.02)

    def _gather(self):
        try:
            for ev in self.call:
                self.events.append(ev)
        except stubs.grpc.RpcError:
            pass

    def say(self, text, to=""):
        return self.board.Chat(stubs.pb.ChatRequest(text=text, to=to),
                               metadata=stubs.auth(self.token), timeout=T)

    def chats(self):
        return [(getattr(e.chat, "from"), e.chat.text) for e in list(self.events)
                if e.WhichOneof("body") == "chat"]

    def wait_chat(self, text):
        deadline = time.monotonic() + T
        while time.monotonic() < deadline:
            if any(t == text for _, t in self.chats()):
                return
            time.sleep(0.05)
        check(False, f"{self.name} never read '{text}': {self.chats()}")

    def close(self):
        if self.call:
            self.call.cancel()
        super().close()


def _with(bindir, body, *flags):
    with Env(bindir) as env:
        generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        db = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", db, *flags)
        people = []

        def person(name=None):
            p = Person(board.address, name)
            people.append(p)
            return p
        try:
            body(env, board, db, person)
        finally:
            for p in people:
                p.close()


def _game(creator):
    return creator.lobby.CreateGame(stubs.pb.CreateGameRequest(kind="kalah"),
                                    metadata=creator.md(), timeout=T).game.game_id


def _heard(reader, text, marker, sender):
    """Whether reader read `text`: `marker` is sent after it by someone
    reader does not block, so once reader has the marker, `text` (sent
    before, on the same ordered stream) has had its chance to arrive."""
    sender.say(marker)
    reader.wait_chat(marker)
    return any(t == text for _, t in reader.chats())


def chat_and_tells(bindir):
    """alice blocks bob: his lines and tells do not reach her (carol still
    gets them), his tell to her is refused; after the unblock they reach her."""
    def body(env, board, db, person):
        alice, bob, carol = person("alice"), person("bob"), person("carol")
        gid = _game(alice)
        alice.join(gid)
        bob.join(gid)
        carol.join(gid, observe=True)   # two seats and an observer; not started
        got = alice.do("Block", soc.BlockRequest(name="BOB"))
        check(got.name == "bob", f"Block answers the name as registered: {got}")
        listed = alice.do("ListBlocked", soc.ListBlockedRequest())
        check([b.name for b in listed.blocked] == ["bob"] and listed.blocked[0].since_ms > 0,
              f"ListBlocked: {listed}")

        bob.say("bob to all 1")
        carol.wait_chat("bob to all 1")
        check(not _heard(alice, "bob to all 1", "carol mark 1", carol),
              "alice read the chat of bob, whom she blocks")
        bob.say("bob to carol", to="carol")
        carol.wait_chat("bob to carol")
        e = stubs.refused("bob's private message to alice, who blocks him",
                          stubs.grpc.StatusCode.PERMISSION_DENIED, "NOT_PERMITTED",
                          bob.board.Chat, stubs.pb.ChatRequest(text="psst", to="alice"),
                          metadata=stubs.auth(bob.token))
        check("block" not in e.details(), f"the refusal tells bob he is blocked: {e.details()}")
        check(not _heard(alice, "psst", "carol mark 2", carol), "alice read bob's tell")
        print("  blocked: bob's lines reach carol, not alice; his tell to her is refused")

        alice.do("Unblock", soc.UnblockRequest(name="bob"))
        stubs.refused("unblocking twice", stubs.grpc.StatusCode.NOT_FOUND, "NOT_FOUND",
                      alice.social.Unblock, soc.UnblockRequest(name="bob"), metadata=alice.md())
        check(len(alice.do("ListBlocked", soc.ListBlockedRequest()).blocked) == 0,
              "ListBlocked after the unblock")
        bob.say("bob to all 2")
        alice.wait_chat("bob to all 2")
        bob.say("psst again", to="alice")
        alice.wait_chat("psst again")
        print("  unblocked: bob's lines and tells reach alice again")
    _with(bindir, body)


def after_restart(bindir):
    """kill -9 and a restart: the game's log is read back from the store, and
    a replay to alice still leaves out the lines of bob, whom she blocks."""
    def body(env, board, db, person):
        alice, bob, carol = person("alice"), person("bob"), person("carol")
        gid = _game(alice)
        alice.join(gid)
        bob.join(gid)
        carol.join(gid, observe=True)
        alice.do("Block", soc.BlockRequest(name="bob"))
        bob.say("bob before the restart")
        carol.say("carol before the restart")
        alice.wait_chat("carol before the restart")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        env.board("--db", db, port=board.port)
        alice.resubscribe(1)               # every event after the first, replayed
        alice.wait_chat("carol before the restart")
        check(not any(t == "bob before the restart" for _, t in alice.chats()),
              f"the replay after a restart gave alice bob's line: {alice.chats()}")
        print("  replayed after a restart: carol's line, not bob's")
    _with(bindir, body)


def cluster(bindir):
    """Two nodes on one PostgreSQL database (docs/cluster.md, "Blocks"):
    alice blocks bob through node b while her game lives on node a; when
    her stream there is taken again, node a reads her blocks from the
    database and bob's lines no longer reach her."""
    def body(env, board, db, person):
        if not env.dbs.url:
            raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        other = env.board("--db", db, "--lease", "3")
        alice, bob, carol = person("alice"), person("bob"), person("carol")
        gid = _game(alice)
        alice.join(gid)
        bob.join(gid)
        carol.join(gid, observe=True)
        channel = stubs.grpc.insecure_channel(other.address)
        try:
            soc_grpc.SocialServiceStub(channel).Block(soc.BlockRequest(name="bob"),
                                               metadata=alice.md(), timeout=T)
        finally:
            channel.close()
        seen = max((e.seq for e in list(alice.events)), default=0)
        alice.resubscribe(seen)            # a reconnection, after the last event seen
        bob.say("bob after the block")
        carol.wait_chat("bob after the block")
        check(not _heard(alice, "bob after the block", "carol mark", carol),
              "alice read bob's line after blocking him through another node")
        print("  blocked through node b, filtered on node a from alice's next subscription")
    _with(bindir, body, "--lease", "3")


def spectators(bindir):
    """While a game runs the spectators talk among themselves: a blocked
    spectator's lines do not reach the spectator who blocks him."""
    def body(env, board, db, person):
        alice, bob, carol = person("alice"), person("bob"), person("carol")
        p0, p1 = person("dave"), person("erin")
        gid = _game(p0)
        p0.join(gid)
        p1.join(gid)
        for p in (alice, bob, carol):
            p.join(gid, observe=True)
        for p in (p0, p1):
            p.board.Ready(stubs.pb.ReadyRequest(ready=True), metadata=stubs.auth(p.token),
                          timeout=T)
        deadline = time.monotonic() + T
        while not any(e.WhichOneof("body") == "game_started" for e in list(alice.events)):
            check(time.monotonic() < deadline, "the game did not start")
            time.sleep(0.05)
        alice.do("Block", soc.BlockRequest(name="bob"))
        bob.say("bob to the spectators")
        carol.wait_chat("bob to the spectators")
        check(not _heard(alice, "bob to the spectators", "carol mark", carol),
              "alice read the spectators' line of bob, whom she blocks")
        print("  a blocked spectator's line reaches the other spectators, not alice")
    _with(bindir, body)


def no_rematch(bindir):
    """Two players of whom one blocks the other are not paired again."""
    def body(env, board, db, person):
        alice, bob = person("alice"), person("bob")
        game = alice.lobby.CreateGame(stubs.pb.CreateGameRequest(
            kind="kalah", autostart=True,
            options=[stubs.pb.GameOption(name="cups", value=4),
                     stubs.pb.GameOption(name="stones", value=2)]),
            metadata=alice.md(), timeout=T).game.game_id
        ref_a, ref_b = alice.join(game), bob.join(game)
        stubs.play_kalah(alice, ref_a, bob, ref_b)
        bob.do("Block", soc.BlockRequest(name="alice"))
        stubs.refused("a rematch offered to the player who blocks you",
                      stubs.grpc.StatusCode.PERMISSION_DENIED, "NOT_PERMITTED",
                      alice.board.Rematch, stubs.pb.RematchRequest(),
                      metadata=stubs.auth(alice.token))
        print("  no rematch between bob and alice, whom he blocks")
    _with(bindir, body)


def guest_refused(bindir):
    """A guest can neither block nor report."""
    def body(env, board, db, person):
        person("bob")
        guest = person()
        for method, req in (("Block", soc.BlockRequest(name="bob")),
                            ("ListBlocked", soc.ListBlockedRequest()),
                            ("Report", soc.ReportRequest(name="bob", reason="rude"))):
            stubs.refused(f"a guest's {method}", stubs.grpc.StatusCode.UNAUTHENTICATED,
                          "ACCOUNT_REQUIRED", getattr(guest.social, method), req)
    _with(bindir, body)


def block_cap(bindir):
    """--max-blocks 2: a third account is refused with a sentence; blocking
    one already blocked again is fine; unknown names and oneself refused;
    --block-rate 6 refuses the seventh block or unblock of a minute."""
    def body(env, board, db, person):
        alice = person("alice")
        for name in ("bob", "carol", "dave"):
            person(name)
        alice.do("Block", soc.BlockRequest(name="bob"))
        alice.do("Block", soc.BlockRequest(name="carol"))
        alice.do("Block", soc.BlockRequest(name="bob"))
        e = stubs.refused("a third block past --max-blocks 2",
                          stubs.grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                          alice.social.Block, soc.BlockRequest(name="dave"), metadata=alice.md())
        check("unblock one first" in e.details(), f"the cap's sentence: {e.details()}")
        check(sorted(b.name for b in alice.do("ListBlocked", soc.ListBlockedRequest()).blocked)
              == ["bob", "carol"], "the refused block was not kept")
        stubs.refused("blocking nobody", stubs.grpc.StatusCode.NOT_FOUND, "NOT_FOUND",
                      alice.social.Block, soc.BlockRequest(name="zed"), metadata=alice.md())
        stubs.refused("blocking oneself", stubs.grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST",
                      alice.social.Block, soc.BlockRequest(name="alice"), metadata=alice.md())
        # --block-rate 6: four calls so far (the refused one too), two more...
        alice.do("Unblock", soc.UnblockRequest(name="carol"))
        alice.do("Block", soc.BlockRequest(name="carol"))
        e = stubs.refused("a seventh block or unblock in a minute past --block-rate 6",
                          stubs.grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                          alice.social.Unblock, soc.UnblockRequest(name="carol"),
                          metadata=alice.md())
        check("at most 6 a minute" in e.details(), f"the rate's sentence: {e.details()}")
        board.expect_stderr(r"client 127\.0\.0\.1: limit reached: too many blocks and unblocks")
    _with(bindir, body, "--max-blocks", "2", "--block-rate", "6")


def reports(bindir):
    """Reports are stored, logged with the address, listed by --reports;
    bad reasons are refused; --report-rate 2 refuses the third."""
    def body(env, board, db, person):
        alice, bob = person("alice"), person("bob")
        gid = _game(alice)
        for text, what in (("", "an empty reason"), ("rude \x1b[31m", "a control character"),
                           ("x" * 501, "a reason too long"),
                           ("hidden\u200bspace", "an invisible character")):
            stubs.refused(what, stubs.grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST",
                          alice.social.Report, soc.ReportRequest(name="bob", reason=text),
                          metadata=alice.md())
        stubs.refused("a game id that is none", stubs.grpc.StatusCode.INVALID_ARGUMENT,
                      "BAD_REQUEST", alice.social.Report,
                      soc.ReportRequest(name="bob", game_id="../x", reason="rude"),
                      metadata=alice.md())
        first = alice.do("Report", soc.ReportRequest(name="bob", game_id=gid,
                                                     reason="insults in chat"))
        board.expect_stderr(rf"client 127\.0\.0\.1: report {first.id}: alice reports bob "
                            rf"\(game {gid}\): insults in chat")
        second = alice.do("Report", soc.ReportRequest(name="Bob", reason="stalls every game"))
        check(second.id > first.id, f"report ids: {first.id}, {second.id}")
        e = stubs.refused("a third report past --report-rate 2",
                          stubs.grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                          alice.social.Report, soc.ReportRequest(name="bob", reason="again"),
                          metadata=alice.md())
        check("at most 2 a day" in e.details(), f"the rate's sentence: {e.details()}")
        # The operator's list, read while the service runs.
        out = subprocess.run([os.path.join(env.bindir, "sungka-board"), "--reports",
                              *env.dbs.argv(["--db", db])], env=env.env,
                             capture_output=True, text=True, timeout=60)
        check(out.returncode == 0, f"--reports failed: {out.returncode} {out.stderr}")
        print("\n".join(f"  | {line}" for line in out.stdout.splitlines()))
        rows = [line.split() for line in out.stdout.splitlines()[1:]]
        check(len(rows) == 2, f"two reports listed:\n{out.stdout}")
        check(rows[0][0] == str(second.id) and rows[0][3:7] == ["alice", "bob", "-",
                                                                "ipv4:127.0.0.1"] and
              " ".join(rows[0][7:]) == "stalls every game", f"the newest first: {rows[0]}")
        check(rows[1][0] == str(first.id) and rows[1][3:6] == ["alice", "bob", gid] and
              " ".join(rows[1][7:]) == "insults in chat", f"the first report: {rows[1]}")
        # The same list over the Admin service, with sungka-admin.
        out = subprocess.run([os.path.join(env.bindir, "sungka-admin"), "--server",
                              board.address, "--token-file", token_file, "reports"],
                             env=env.env, capture_output=True, text=True, timeout=60)
        check(out.returncode == 0, f"sungka-admin reports: {out.returncode} {out.stderr}")
        print("\n".join(f"  | {line}" for line in out.stdout.splitlines()))
        rows = [line.split() for line in out.stdout.splitlines()[1:]]
        check(len(rows) == 2, f"two reports listed by sungka-admin:\n{out.stdout}")
        check(rows[0][0] == str(second.id) and rows[0][4:7] == ["alice", "bob", "-"] and
              " ".join(rows[0][7:]) == "stalls every game", f"the newest first: {rows[0]}")
        check(rows[1][0] == str(first.id) and rows[1][4:7] == ["alice", "bob", gid] and
              " ".join(rows[1][7:]) == "insults in chat", f"the first report: {rows[1]}")
    with tempfile.TemporaryDirectory() as tmp:
        token_file = os.path.join(tmp, "admin-token")
        _with(bindir, body, "--report-rate", "2", "--admin-token-file", token_file)


def text_view(bindir):
    """The text view's block, blocked, unblock and report, typed as a person
    would: alice blocks bob and reads nothing more of his, his tell to her is
    refused, she reports him about the game and the operator's list has it."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "text.db")
        board = env.board("--db", db)
        people = {}
        for name in ("alice", "bob", "carol"):
            p = env.player(name, "--server", board.address, "--state-dir",
                           os.path.join(env.state_dir, name), ready=False)
            p.expect(r"^You are in the lobby")
            for line in (f"register {name}", "correct horse", "correct horse"):
                p.send(line)
            p.expect(rf"^Account {name} created\. Signed in\.")
            people[name] = p
        alice, bob, carol = people["alice"], people["bob"], people["carol"]
        alice.send("new kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        alice.expect(r"^You are alice")
        bob.send(f"join {game}")
        bob.expect(r"^You are bob")        # both streams open before carol comes
        carol.send(f"watch {game}")
        for p in (alice, bob):
            p.expect(r"watching")
        alice.send("block bob")
        alice.expect(r"^Blocked bob: you will not read them")
        alice.send("blocked")
        alice.expect(r"^You block: bob$")
        bob.send("chat hello from bob")
        carol.expect(r"^\[chat\] bob: hello from bob")
        bob.send("tell alice psst")
        bob.expect(r"^Refused: alice is not taking private messages from you")
        carol.send("chat carol's mark")
        alice.expect(r"^\[chat\] carol: carol's mark")
        check(not any("hello from bob" in line or "psst" in line for line in alice.lines),
              "alice's view shows what bob, whom she blocks, said")
        alice.send("report bob insults in the chat")
        alice.expect(r"^Reported bob to the operator \(report 1\)\.")
        alice.send("unblock bob")
        alice.expect(r"^Unblocked bob\.")
        bob.send("chat bob again")
        alice.expect(r"^\[chat\] bob: bob again")
        for p in (alice, bob, carol):
            p.quit()
        out = subprocess.run([os.path.join(env.bindir, "sungka-board"), "--reports",
                              *env.dbs.argv(["--db", db])], env=env.env,
                             capture_output=True, text=True, timeout=60)
        check(out.returncode == 0 and
              re.search(rf"^1 .* alice +bob +{game} +ipv4:127\.0\.0\.1 +insults in the chat$",
                        out.stdout, re.M),
              f"--reports: {out.returncode} {out.stdout} {out.stderr}")


if __name__ == "__main__":
    sys.exit(main({"chat_and_tells": chat_and_tells, "spectators": spectators,
                   "after_restart": after_restart, "cluster": cluster,
                   "no_rematch": no_rematch, "guest_refused": guest_refused,
                   "block_cap": block_cap, "reports": reports, "text_view": text_view}))
