#!/usr/bin/python3
"""test_fair_play_grpc.py — fair play from a stock Python gRPC client (stubs
protoc compiles from our .proto, as test_accounts.py does): a clocked game to
a flag fall, resigning, a draw offered and accepted, an abort, and a claim
after a departure, each seen as the events the contract documents.
Usage: test_fair_play_grpc.py BINDIR TEST.
"""
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, seat, auth)

T = 15.0


class Game:
    """A kalah game with two guests, alice and bob, ready, each with their
    event stream gathered by a thread."""

    def __init__(self, address, **create):
        pb = stubs.pb
        self.channel = stubs.grpc.insecure_channel(address)
        self.lobby = stubs.pb_grpc.RegisterStub(self.channel)
        self.board = stubs.pb_grpc.BoardStub(self.channel)
        made = self.lobby.CreateGame(pb.CreateGameRequest(kind="kalah", **create), timeout=T)
        self.id = made.game.game_id
        self.token, self.events, self.calls = {}, {}, {}
        for name in ("alice", "bob"):
            ref = self.lobby.JoinGame(pb.JoinGameRequest(game_id=self.id, name=name), timeout=T)
            self.token[name] = ref.token
            self.events[name] = []
            call = self.board.Subscribe(pb.SubscribeRequest(), metadata=stubs.auth(ref.token))
            self.calls[name] = call
            threading.Thread(target=self._gather, args=(call, self.events[name]),
                             daemon=True).start()
        for name in ("alice", "bob"):
            self.do(name, "Ready", pb.ReadyRequest(ready=True))

    @staticmethod
    def _gather(call, into):
        try:
            for ev in call:
                into.append(ev)
        except stubs.grpc.RpcError:
            pass

    def do(self, name, method, request):
        return getattr(self.board, method)(request, metadata=stubs.auth(self.token[name]),
                                           timeout=T)

    def wait(self, name, body, timeout=T, where=None):
        """The first event of kind `body` (and where(ev)) name's stream got."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in list(self.events[name]):
                if ev.WhichOneof("body") == body and (not where or where(ev)):
                    return ev
            time.sleep(0.05)
        kinds = [e.WhichOneof("body") for e in self.events[name]]
        check(False, f"{name} never got {body}: {kinds}")

    def to_move(self):
        r = self.do("alice", "GetBoard", stubs.pb.GetBoardRequest())
        return ["alice", "bob"][stubs.seat(r.board, "to_move")]

    def move_once(self):
        """The seat to move plays its first legal cup."""
        who = self.to_move()
        for cup in range(6):
            try:
                self.do(who, "Move", stubs.pb.MoveRequest(move=cup))
                return who
            except stubs.grpc.RpcError:
                continue
        check(False, f"{who} has no legal cup")

    def close(self):
        for c in self.calls.values():
            c.cancel()
        self.channel.close()


def stock_client(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
        pb = stubs.pb
        board = env.board("--grace", "1")

        # A clock of 2 s a move: both move, then the one to move does not.
        g = Game(board.address, time_control=pb.TimeControl(per_move_s=2))
        started = g.wait("alice", "game_started").game_started
        check(list(started.clocks.remaining_ms) == [2000, 2000] and
              started.clocks.HasField("running"), f"clocks at the start: {started.clocks}")
        movers = {g.move_once(), g.move_once()}
        while movers != {"alice", "bob"}:
            movers.add(g.move_once())
        out = g.wait("alice", "player_out").player_out
        check(out.reason == "ran out of time", f"PlayerOut: {out}")
        over = g.wait("bob", "game_over").game_over
        check(len(over.winners) == 1 and over.winners[0] != stubs.seat(out.who, "seat"),
              f"the flag fell but: {over}")
        g.close()

        # Resign.
        g = Game(board.address)
        g.wait("bob", "game_started")
        g.do("bob", "Resign", pb.ResignRequest())
        over = g.wait("alice", "game_over").game_over
        check(list(over.winners) == [0] and over.reason == "bob resigned; alice wins", f"{over}")
        g.close()

        # A draw offered and accepted.
        g = Game(board.address)
        g.wait("bob", "game_started")
        g.do("alice", "OfferDraw", pb.OfferDrawRequest())
        g.wait("bob", "draw_offered")
        g.do("bob", "AnswerDraw", pb.AnswerDrawRequest(accept=True))
        over = g.wait("alice", "game_over").game_over
        check(not over.winners and not over.abandoned, f"agreed draw: {over}")
        g.close()

        # Abort, before bob has moved.
        g = Game(board.address)
        g.wait("bob", "game_started")
        g.do("bob", "Abort", pb.AbortRequest())
        over = g.wait("alice", "game_over").game_over
        check(over.abandoned and over.reason == "bob aborted the game", f"abort: {over}")
        g.close()

        # Claim: bob's stream goes; past the grace, alice claims.
        g = Game(board.address)
        g.wait("alice", "game_started")
        g.calls["bob"].cancel()
        g.wait("alice", "player_departed", where=lambda e: e.player_departed.grace_s == 0,
               timeout=20)
        g.do("alice", "Claim", pb.ClaimRequest())
        over = g.wait("alice", "game_over").game_over
        check(list(over.winners) == [0] and over.reason == "bob left the game; alice wins",
              f"claim: {over}")
        g.close()


if __name__ == "__main__":
    sys.exit(main({"stock_client": stock_client}))
