#!/usr/bin/python3
"""test_play.py — Board.Play, one stream per seat (commands in, events out),
from a stock Python gRPC client (stubs protoc compiles from our .proto, as
test_accounts.py does):
  game_to_end         two players play a kalah game to its end on Play alone
                      (ready, moves, chat); each move's MoveMade comes back on
                      the mover's stream, and both streams carry the same log;
  refused_own_stream  a move out of turn and a cup out of range come back as
                      CommandRefused events with the command's id on the
                      mover's stream only; the stream goes on;
  resume              a dropped Play stream resumed with after_seq: no event
                      missed or doubled;
  flood               a client that sends commands without reading is held
                      back (it cannot send more after a while; the service's
                      memory stays bounded) and others are answered meanwhile;
  vanish              a Play stream cancelled mid-game: the seat's departure
                      is seen by the other player, as for Subscribe;
  with_subscribe      Play and Subscribe on one seat: the newer replaces the
                      older (ABORTED, REPLACED), both ways;
  counted_as_stream   a Play stream counts as one of its address's event
                      streams (--max-client-streams), and frees it when it ends;
  command_rate        past --move-rate commands a second, a command is refused
                      LIMIT_REACHED, and the stream goes on;
  seat_commands       stand, sit, abort, rematch and claim on Play: applied in the
                      order sent (an abort sent right behind a move is logged
                      after it, which the Abort call could overtake), refused as
                      their unary calls are.
Usage: test_play.py BINDIR TEST.
"""
import os
import queue
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, seat, auth)

T = 15.0


class Play:
    """One Board.Play stream: commands queued by send(), events gathered by
    a thread; status is the code that ended it (None while open)."""

    def __init__(self, board, token, after_seq=0, by_metadata=False):
        pb = stubs.pb
        self.q = queue.Queue()
        self.events = []
        self.status = None
        self.details = ""
        self.next_id = 1
        start = pb.PlayStart(after_seq=after_seq, token="" if by_metadata else token)

        def requests():
            yield pb.PlayRequest(start=start)
            while True:
                r = self.q.get()
                if r is None:
                    return
                yield r
        md = stubs.auth(token) if by_metadata else None
        self.call = board.Play(requests(), metadata=md)
        self.ended = threading.Event()
        threading.Thread(target=self._gather, daemon=True).start()

    def _gather(self):
        try:
            for ev in self.call:
                self.events.append(ev)
            self.status = "OK"
        except stubs.grpc.RpcError as e:
            self.status = e.code().name
            self.details = e.details() or ""
            md = dict(e.trailing_metadata() or ())
            self.reason = md.get("sungka-error-reason", "")
        self.ended.set()

    def send(self, **command):
        """Queue one command; returns its id."""
        i = self.next_id
        self.next_id += 1
        self.q.put(stubs.pb.PlayRequest(id=i, **command))
        return i

    def move(self, cup):
        return self.send(move=stubs.pb.MoveRequest(move=cup))

    def wait(self, body, where=None, timeout=T):
        """The first event of kind body (and where(ev)) on this stream."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in list(self.events):
                if ev.WhichOneof("body") == body and (not where or where(ev)):
                    return ev
            time.sleep(0.01)
        kinds = [e.WhichOneof("body") for e in self.events]
        check(False, f"never got {body} (ended {self.status} {self.details}): {kinds}")

    def answer(self, command_id, mover_seat, after_seq, timeout=T):
        """The answer to a move: its MoveMade (seq > after_seq, by mover_seat)
        or the CommandRefused naming command_id."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in list(self.events):
                kind = ev.WhichOneof("body")
                if kind == "command_refused" and ev.command_refused.id == command_id:
                    return ev
                if kind == "move_made" and ev.seq > after_seq and \
                        ev.move_made.seat == mover_seat:
                    return ev
            time.sleep(0.005)
        check(False, f"no answer to command {command_id}: {self.events[-5:]}")

    def logged(self):
        return [ev.seq for ev in self.events if ev.seq]

    def last_seq(self):
        return max([0] + self.logged())

    def close(self):
        self.q.put(None)
        self.call.cancel()
        self.ended.wait(T)


class Game:
    """A kalah game with two guests, alice (seat 0) and bob (seat 1)."""

    def __init__(self, address, ready=True, **create):
        pb = stubs.pb
        self.channel = stubs.grpc.insecure_channel(address)
        self.lobby = stubs.pb_grpc.RegisterStub(self.channel)
        self.board = stubs.pb_grpc.BoardStub(self.channel)
        made = self.lobby.CreateGame(pb.CreateGameRequest(kind="kalah", **create), timeout=T)
        self.id = made.game.game_id
        self.token, self.play = {}, {}
        for name in ("alice", "bob"):
            ref = self.lobby.JoinGame(pb.JoinGameRequest(game_id=self.id, name=name), timeout=T)
            self.token[name] = ref.token
        # One of them names its token in start, the other in the metadata.
        self.play["alice"] = Play(self.board, self.token["alice"])
        self.play["bob"] = Play(self.board, self.token["bob"], by_metadata=True)
        if ready:
            for name in ("alice", "bob"):
                self.play[name].send(ready=pb.ReadyRequest(ready=True))
            for name in ("alice", "bob"):
                self.play[name].wait("game_started")

    def to_move(self):
        r = self.board.GetBoard(stubs.pb.GetBoardRequest(),
                                metadata=stubs.auth(self.token["alice"]), timeout=T)
        return stubs.seat(r.board, "to_move")

    def move_once(self):
        """The seat to move plays its first legal cup through its Play
        stream; the MoveMade on its own stream is the answer. Returns it,
        or None when the game is over."""
        seat = self.to_move()
        if seat is None:
            return None
        s = self.play[["alice", "bob"][seat]]
        for cup in range(6):
            before = s.last_seq()
            ev = s.answer(s.move(cup), seat, before)
            if ev.WhichOneof("body") == "move_made":
                check(ev.move_made.move == cup, f"MoveMade of another move: {ev}")
                return ev
            check(ev.command_refused.reason == "WRONG_STATE",
                  f"a move from the first non-empty cup refused: {ev}")
        check(False, "no legal cup")

    def close(self):
        for s in self.play.values():
            s.close()
        self.channel.close()


def _refused(stream):
    return [e for e in stream.events if e.WhichOneof("body") == "command_refused"]


def game_to_end(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board()
        g = Game(board.address)
        g.play["bob"].send(chat=pb.ChatRequest(text="good luck"))
        g.play["alice"].wait("chat", where=lambda e: e.chat.text == "good luck")
        moves = 0
        while g.to_move() is not None and moves < 500:
            check(g.move_once() is not None, "the game ended under us")
            moves += 1
        over = g.play["alice"].wait("game_over").game_over
        g.play["bob"].wait("game_over")
        check(sum(over.scores) == 48, f"kalah's 48 stones in the result: {over}")
        a, b = g.play["alice"].logged(), g.play["bob"].logged()
        check(a == b and a == sorted(set(a)), f"the two streams' logs differ: {a} / {b}")
        made = [e for e in g.play["alice"].events if e.WhichOneof("body") == "move_made"]
        check(len(made) == moves, f"{moves} moves acknowledged, {len(made)} MoveMade seen")
        # Every move is in the store: the match history has them all.
        m = g.lobby.GetMatch(pb.GetMatchRequest(game_id=g.id), timeout=T)
        check(len(m.moves) == moves, f"history holds {len(m.moves)} of {moves} moves")
        g.close()


def refused_own_stream(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        board = env.board()
        g = Game(board.address)
        alice, bob = g.play["alice"], g.play["bob"]
        check(g.to_move() == 0, "alice moves first in kalah")
        # Bob out of turn.
        i = bob.move(2)
        ev = bob.answer(i, 1, bob.last_seq())
        r = ev.command_refused
        check(ev.WhichOneof("body") == "command_refused" and r.id == i and
              r.reason == "NOT_YOUR_TURN" and r.code == 9 and ev.seq == 0 and
              "turn" in r.message, f"out of turn: {ev}")
        # Alice, a cup that is none.
        i = alice.move(99)
        ev = alice.answer(i, 0, alice.last_seq())
        r = ev.command_refused
        check(ev.WhichOneof("body") == "command_refused" and r.id == i and r.code == 3 and
              r.reason == "BAD_REQUEST", f"cup 99: {ev}")
        # Both streams go on: alice's legal move reaches both.
        before = alice.last_seq()
        ev = alice.answer(alice.move(0), 0, before)
        check(ev.WhichOneof("body") == "move_made", f"a legal move after a refusal: {ev}")
        bob.wait("move_made", where=lambda e: e.seq == ev.seq)
        check(len(_refused(alice)) == 1 and len(_refused(bob)) == 1,
              f"each refusal on its own stream only: alice {_refused(alice)}, "
              f"bob {_refused(bob)}")
        # A second start is refused, not fatal.
        i = alice.send(start=stubs.pb.PlayStart())
        ev = alice.wait("command_refused", where=lambda e: e.command_refused.id == i)
        check(ev.command_refused.code == 3, f"a second start: {ev}")
        check(alice.status is None and bob.status is None,
              f"a refusal ended a stream: {alice.status} {bob.status}")
        g.close()


def resume(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        board = env.board("--grace", "30")
        g = Game(board.address)
        for _ in range(3):
            g.move_once()
        first = g.play["alice"]
        seen = first.logged()
        first.close()
        # While alice is away, bob (or alice's own unary move) goes on.
        for _ in range(4):
            if g.to_move() == 1:
                g.move_once()
            else:
                g.board.Move(stubs.pb.MoveRequest(move=next(
                    c for c in range(6) if _legal(g, c))),
                    metadata=stubs.auth(g.token["alice"]), timeout=T)
        again = Play(g.board, g.token["alice"], after_seq=seen[-1])
        g.play["alice"] = again
        target = g.play["bob"].last_seq()
        deadline = time.monotonic() + T
        while again.last_seq() < target and time.monotonic() < deadline:
            time.sleep(0.02)
        got = seen + again.logged()
        check(not any(e.WhichOneof("body") == "snapshot" for e in again.events),
              "a resumed stream sent a Snapshot")
        bob_seqs = g.play["bob"].logged()
        check(got[:len(bob_seqs)] == bob_seqs and len(got) == len(set(got)),
              f"resumed: {got}, bob saw {bob_seqs}")
        # It plays on.
        while g.to_move() != 0:
            g.move_once()
        check(g.move_once().move_made.seat == 0, "alice's move on the resumed stream")
        g.close()


def seat_commands(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board()
        g = Game(board.address, ready=False)
        alice, bob = g.play["alice"], g.play["bob"]
        # Bob stands, asks for seat -1 (refused as Sit refuses it), sits in
        # seat 1 again: sent back to back, seen in that order.
        bob.send(stand=pb.StandRequest())
        bad = bob.send(sit=pb.SitRequest(seat=pb.SeatNumber(value=-1)))
        bob.send(sit=pb.SitRequest(seat=pb.SeatNumber(value=1)))
        ev = bob.wait("command_refused", where=lambda e: e.command_refused.id == bad)
        check(ev.command_refused.code == 3 and ev.command_refused.reason == "BAD_REQUEST",
              f"sit in seat -1: {ev}")
        bob.wait("seat_changed", where=lambda e: e.seat_changed.who.HasField("seat"))
        # Alice's stream is her own: wait until it has bob's sit too.
        alice.wait("seat_changed", where=lambda e: e.seat_changed.who.name == "bob" and
                   e.seat_changed.who.HasField("seat"))
        moved = [e.seat_changed.who.HasField("seat") for e in alice.events
                 if e.WhichOneof("body") == "seat_changed" and
                 e.seat_changed.who.name == "bob"]
        check(moved == [False, True], f"bob's stand then sit, as alice saw them: {moved}")
        for s in (alice, bob):
            s.send(ready=pb.ReadyRequest(ready=True))
        alice.wait("game_started")
        # Alice's first move and her abort right behind it: the move is
        # logged first, then the game ends aborted (the Abort call could
        # arrive before the move was read, and the move be refused).
        alice.move(0)
        alice.send(abort=pb.AbortRequest())
        over = alice.wait("game_over")
        made = alice.wait("move_made")
        check(made.seq < over.seq and "aborted" in over.game_over.reason and
              not _refused(alice), f"move then abort: {made} / {over} / {_refused(alice)}")
        # A claim after the end: refused on the stream as the Claim call is.
        i = alice.send(claim=pb.ClaimRequest())
        ev = alice.wait("command_refused", where=lambda e: e.command_refused.id == i)
        try:
            g.board.Claim(pb.ClaimRequest(), metadata=stubs.auth(g.token["alice"]), timeout=T)
            check(False, "Claim after the end was not refused")
        except stubs.grpc.RpcError as e:
            reason = dict(e.trailing_metadata() or ()).get("sungka-error-reason", "")
            check(ev.command_refused.code == e.code().value[0] and
                  ev.command_refused.reason == reason,
                  f"claim on Play {ev.command_refused} vs the call: {e.code()} {reason}")
        # A rematch both ask for on Play starts; the call names its seat.
        for s in (alice, bob):
            s.send(rematch=pb.RematchRequest())
        started = bob.wait("rematch_started").rematch_started
        ref = g.board.Rematch(pb.RematchRequest(), metadata=stubs.auth(g.token["bob"]),
                              timeout=T).board
        check(ref.game_id == started.game_id and ref.token, f"the rematch's seat: {ref}")
        check([e.command_refused.id for e in _refused(bob)] == [bad] and
              alice.status is None and bob.status is None,
              f"refused: {_refused(bob)}; ended: {alice.status} {bob.status}")
        g.close()


def _legal(g, cup):
    r = g.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=stubs.auth(g.token["alice"]),
                         timeout=T)
    return r.board.cells[cup] > 0


def _rss_mb(proc):
    with open(f"/proc/{proc.p.pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def _sanitized(proc):
    with open(f"/proc/{proc.p.pid}/maps") as f:
        return "libasan" in f.read()


def flood(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board()
        g = Game(board.address)
        before = _rss_mb(board)
        # Bob sends N moves out of turn without reading: each is a
        # CommandRefused (never logged, so no other stream sees them and the
        # room never cuts his stream off for them). A channel of its own,
        # its receive window kept at HTTP/2's 64 KiB (no BDP probing): his
        # side soon takes no more, and the service must stop reading rather
        # than queue (or drop) answers.
        ch = stubs.grpc.insecure_channel(board.address, options=[("grpc.http2.bdp_probe", 0)])
        n = 20000
        done = threading.Event()

        def commands():
            yield pb.PlayRequest(start=pb.PlayStart(token=g.token["bob"]))
            for i in range(1, n + 1):
                yield pb.PlayRequest(id=i, move=pb.MoveRequest(move=3))
            done.wait(2 * T)          # no half-close before the test is done
        call = stubs.pb_grpc.BoardStub(ch).Play(commands())   # not read yet
        for _ in range(4):
            time.sleep(0.5)
            # Others are answered meanwhile.
            t0 = time.monotonic()
            g.board.GetBoard(pb.GetBoardRequest(), metadata=stubs.auth(g.token["alice"]),
                             timeout=T)
            check(time.monotonic() - t0 < 5, "the service did not answer GetBoard in 5 s")
        grown = _rss_mb(board) - before
        if not _sanitized(board):
            check(grown < 100, f"the service grew by {grown:.0f} MB under the flood")
        check(call.is_active(), "the flooding client's stream was ended, not held back")
        # Held back, not dropped: now that bob reads, every command is
        # answered, in order, none lost (a service that read on regardless
        # would have overflowed his outbox and lost answers).
        ids = []
        deadline = time.monotonic() + 60
        try:
            for ev in call:
                if ev.WhichOneof("body") == "command_refused":
                    ids.append(ev.command_refused.id)
                    if ids[-1] == n or time.monotonic() > deadline:
                        break
        except stubs.grpc.RpcError as e:
            check(False, f"the flooding client's stream ended: {e.code().name} {e.details()}")
        gaps = [(a, b) for a, b in zip(ids, ids[1:]) if b != a + 1]
        check(ids == list(range(1, n + 1)),
              f"{len(ids)} refusals read of {n}, last {ids[-1:]}, gaps {gaps[:3]}")
        done.set()
        call.cancel()
        ch.close()
        g.close()


def vanish(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        board = env.board("--grace", "1")
        g = Game(board.address)
        g.move_once()
        g.play["bob"].call.cancel()
        dep = g.play["alice"].wait("player_departed", timeout=20).player_departed
        check(dep.who.name == "bob", f"departed: {dep}")
        g.play["alice"].wait("player_departed", timeout=20,
                             where=lambda e: e.player_departed.grace_s == 0)
        g.close()


def with_subscribe(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board("--grace", "30")
        g = Game(board.address)
        play = g.play["alice"]
        sub = g.board.Subscribe(pb.SubscribeRequest(after_seq=play.last_seq()),
                                metadata=stubs.auth(g.token["alice"]))
        got = []

        def gather():
            try:
                for ev in sub:
                    got.append(ev)
            except stubs.grpc.RpcError as e:
                got.append(e)
        t = threading.Thread(target=gather, daemon=True)
        t.start()
        check(play.ended.wait(T), "a Subscribe of the same seat did not replace Play")
        check(play.status == "ABORTED" and play.reason == "REPLACED",
              f"Play replaced: {play.status} {play.details}")
        g.move_once() if g.to_move() == 1 else None
        # And Play replaces the Subscribe.
        again = Play(g.board, g.token["alice"], after_seq=play.last_seq())
        g.play["alice"] = again
        t.join(T)
        check(got and isinstance(got[-1], stubs.grpc.RpcError) and
              got[-1].code() == stubs.grpc.StatusCode.ABORTED,
              f"Subscribe replaced by Play: {got[-1:]}")
        while g.to_move() != 0:
            g.move_once()
        check(g.move_once().move_made.seat == 0, "alice plays on the new Play stream")
        g.close()


def counted_as_stream(bindir):
    """A Play stream is one of its address's event streams (--max-client-streams):
    with a limit of 2, alice's and bob's Play streams leave no room for an
    observer's third stream from the same address, which is refused as a
    Subscribe would be; when one Play stream ends, its place is free again."""
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board("--max-client-streams", "2", "--grace", "30")
        g = Game(board.address)
        carol = g.lobby.JoinGame(pb.JoinGameRequest(game_id=g.id, name="carol", observe=True),
                                 timeout=T)
        third = Play(g.board, carol.token)
        check(third.ended.wait(T) and third.status == "RESOURCE_EXHAUSTED",
              f"a third stream from one address: {third.status} {third.details}")
        check(g.play["alice"].status is None and g.play["bob"].status is None,
              "the refused stream ended an open one")
        g.play["bob"].close()
        deadline = time.monotonic() + T
        while True:
            sub = g.board.Subscribe(pb.SubscribeRequest(after_seq=g.play["bob"].last_seq()),
                                    metadata=stubs.auth(g.token["bob"]))
            try:
                first = next(sub)
                break
            except stubs.grpc.RpcError as e:
                check(e.code() == stubs.grpc.StatusCode.RESOURCE_EXHAUSTED and
                      time.monotonic() < deadline, f"after Play ended: {e.code()} {e.details()}")
                time.sleep(0.1)
        check(first is not None, "no event on the stream that took Play's place")
        sub.cancel()
        g.close()


def command_rate(bindir):
    """More than --move-rate commands a second on one stream are refused
    (LIMIT_REACHED), whatever they are: pings count too, so after five pings
    a move out of turn is refused for the rate, not for the turn."""
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board("--move-rate", "5")
        g = Game(board.address)
        bob = g.play["bob"]
        time.sleep(1.1)                    # a fresh one-second window
        for _ in range(5):
            bob.send(ping=pb.PingRequest(nonce=1))
        i = bob.move(2)
        ev = bob.wait("command_refused", where=lambda e: e.command_refused.id == i)
        r = ev.command_refused
        check(r.reason == "LIMIT_REACHED" and "too many commands" in r.message,
              f"the sixth command in a second: {r}")
        time.sleep(1.1)
        i = bob.move(2)
        ev = bob.wait("command_refused", where=lambda e: e.command_refused.id == i)
        check(ev.command_refused.reason == "NOT_YOUR_TURN",
              f"a command in the next second: {ev.command_refused}")
        g.close()


if __name__ == "__main__":
    sys.exit(main({"game_to_end": game_to_end, "refused_own_stream": refused_own_stream,
                   "resume": resume, "flood": flood, "vanish": vanish,
                   "with_subscribe": with_subscribe, "counted_as_stream": counted_as_stream,
                   "command_rate": command_rate, "seat_commands": seat_commands}))
