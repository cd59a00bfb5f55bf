#!/usr/bin/python3
"""test_analysis.py — the engine's review of an ended game (Register.GetAnalysis;
docs/rules.md, "Analysis").

A stock Python gRPC client (python3-grpcio, stubs protoc compiles from our
sungka.proto, as test_accounts.py does) plays a 3x3 tic-tac-toe game to its
end on a real sungka-board with an SQLite file:
  served   before the end GetAnalysis says PENDING (the game is not over);
           after it, the service reviews it on its thread and serves it: five
           moves, bob's second-move error a blunder into a proven loss, the
           last move's value the final margin, proven; an unknown match is
           NOT_FOUND; a small Kalah game's review is exact throughout (12
           seeds: within the endgame table the review thread builds, which
           this exercises; test_analysis.c checks the table's values). The
           same game written as `export` writes it, given to
           `sungka-player --analyse`, prints the same values and judgements,
           and so does --analyse ID with --server (the service's review); the
           text view's replay shows the service's review.
  later    with --analysis off the game ends unreviewed and GetAnalysis says
           so (NONE, with why), and the text view's replay computes it in the
           agent instead; the service is killed (-9) and started again
           with reviews on: the game is found without a review, queued,
           reviewed and served.
Usage: test_analysis.py BINDIR TEST.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, auth, refused)

T = 15.0
# alice (X) 0, bob (O) 3, alice 1, bob 8, alice 2: a row for alice. bob's 3
# lets alice force a win (the centre, 4, holds the draw).
MOVES = [("alice", 0), ("bob", 3), ("alice", 1), ("bob", 8), ("alice", 2)]


class Game:
    def __init__(self, address, kind="tictactoe", options=(("size", 3), ("dims", 2))):
        pb = stubs.pb
        self.channel = stubs.grpc.insecure_channel(address)
        self.lobby = stubs.pb_grpc.RegisterStub(self.channel)
        self.board = stubs.pb_grpc.BoardStub(self.channel)
        made = self.lobby.CreateGame(pb.CreateGameRequest(
            kind=kind, title="review me",
            options=[pb.GameOption(name=k, value=v) for k, v in options]), timeout=T)
        self.id = made.game.game_id
        self.token = {}
        for name in ("alice", "bob"):
            ref = self.lobby.JoinGame(pb.JoinGameRequest(game_id=self.id, name=name), timeout=T)
            self.token[name] = ref.token
        for name in ("alice", "bob"):
            self.do(name, "Ready", pb.ReadyRequest(ready=True))

    def do(self, name, method, request):
        return getattr(self.board, method)(request, metadata=stubs.auth(self.token[name]),
                                           timeout=T)

    def play(self, moves):
        for name, cell in moves:
            self.do(name, "Move", stubs.pb.MoveRequest(move=cell))

    def play_out(self, cups):
        """Each turn the seat to move plays its first legal cup, to the end."""
        pb = stubs.pb
        n = 0
        while True:
            b = self.do("alice", "GetBoard", pb.GetBoardRequest()).board
            if not b.HasField("to_move"):
                return n
            who = ("alice", "bob")[b.to_move.value]
            for cup in range(cups):
                try:
                    self.do(who, "Move", pb.MoveRequest(move=cup))
                    n += 1
                    break
                except stubs.grpc.RpcError:
                    continue
            else:
                check(False, f"{who} has no legal cup")

    def analysis(self):
        return self.lobby.GetAnalysis(stubs.pb.GetAnalysisRequest(game_id=self.id), timeout=T)

    def wait_done(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            a = self.analysis()
            if a.status != stubs.pb.ANALYSIS_STATUS_PENDING:
                return a
            time.sleep(0.1)
        check(False, f"game {self.id} was never reviewed")
        return None


def check_review(a, game_id):
    pb = stubs.pb
    check(a.status == pb.ANALYSIS_STATUS_DONE, f"not reviewed: {a}")
    check(a.game_id == game_id and len(a.moves) == len(MOVES), f"a review of 5 moves: {a}")
    for row, (name, cell) in zip(a.moves, MOVES):
        check(row.seat == ("alice", "bob").index(name) and row.move == cell, f"move: {row}")
    bob = a.moves[1]
    check(bob.judgement == pb.JUDGEMENT_BLUNDER and bob.exact_after and bob.value_after < 0,
          f"bob's 3 is a blunder into a proven loss: {bob}")
    check(bob.best != 3, f"the engine would not play 3: {bob}")
    last = a.moves[-1]
    check(last.exact_after and last.value_after == 100, f"the end is alice's by one: {last}")
    for row in a.moves:
        check(row.judgement == pb.JUDGEMENT_UNSPECIFIED or row.move != row.best,
              f"the engine's own move is never judged: {row}")
    check(len(a.accuracy) == 2 and a.accuracy[0] > a.accuracy[1],
          f"alice played more accurately than bob: {list(a.accuracy)}")
    print(f"  review: {[(m.move, m.value_before, m.value_after, m.judgement) for m in a.moves]}"
          f" accuracy {list(a.accuracy)}")


def served(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--db", os.path.join(env.state_dir, "board.db"), "--analysis", "on")
        g = Game(board.address)
        g.play(MOVES[:2])
        a = g.analysis()
        check(a.status == stubs.pb.ANALYSIS_STATUS_PENDING and "not over" in a.reason,
              f"a running game: {a}")
        g.play(MOVES[2:])
        a = g.wait_done()
        check_review(a, g.id)
        board.expect_stderr(rf"game {g.id} reviewed")
        # The text view's replay shows the service's review.
        carol = env.player("carol", "--server", board.address)
        carol.expect(r"^Connected\.")
        carol.send(f"replay {g.id}")
        carol.expect(rf"^Replaying match {g.id}: review me")
        carol.send("analysis")
        carol.expect(rf"^Analysis of match {g.id}: review me \(tictactoe\), 5 moves\.")
        carol.expect(r"^ +2 +bob +3 +-1\.00 +-1= +\d +blunder$")
        carol.expect(r"^Accuracy of bob: 58\.4 %")
        carol.quit()
        stubs.refused("an unknown match", stubs.grpc.StatusCode.NOT_FOUND, None,
                      g.lobby.GetAnalysis, stubs.pb.GetAnalysisRequest(game_id="999999"))

        # A small Kalah game, 12 seeds: all of it within the endgame table the
        # review thread builds (and within the search's own solving), so
        # every value is exact.
        k = Game(board.address, "kalah", (("cups", 3), ("stones", 2)))
        n = k.play_out(3)
        r = k.wait_done()
        check(r.status == stubs.pb.ANALYSIS_STATUS_DONE and len(r.moves) == n and
              all(m.exact_before and m.exact_after for m in r.moves),
              f"every value of a 12-seed Kalah game exact: {r}")
        k.channel.close()

        # The same game as `export` writes it, reviewed by the agent.
        m = g.lobby.GetMatch(stubs.pb.GetMatchRequest(game_id=g.id), timeout=T)
        path = os.path.join(env.state_dir, "game.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"# Sungka match {g.id}: review me (tictactoe size=3 dims=2)\n"
                    f"# Seats: 0 alice, 1 bob\n# Result: {m.summary.reason}\n")
            for i, mv in enumerate(m.moves):
                f.write(f"{i + 1} {mv.seat} {mv.move}\n")
        r = subprocess.run([os.path.join(bindir, "sungka-player"), "--analyse", path],
                           capture_output=True, text=True, timeout=60,
                           env=dict(env.env, LANGUAGE="C", LC_ALL="C"))
        check(r.returncode == 0, f"--analyse failed: {r.stdout}{r.stderr}")
        print(r.stdout)
        rows = [l.split() for l in r.stdout.splitlines() if l[:4].strip().isdigit()]
        check(len(rows) == len(MOVES), f"one row a move: {r.stdout}")

        def shown(cu, exact):
            return f"{cu // 100:+d}=" if exact else f"{cu / 100:+.2f}"

        for row, mv in zip(rows, a.moves):
            check(row[3] == shown(mv.value_before, mv.exact_before) and
                  row[4] == shown(mv.value_after, mv.exact_after),
                  f"the agent's values are the service's: {row} vs {mv}")
        check(rows[1][-1] == "blunder", f"bob's blunder in the table: {rows[1]}")
        check("Accuracy of bob" in r.stdout, r.stdout)
        # --analyse ID with --server: the service's stored review.
        r = subprocess.run([os.path.join(bindir, "sungka-player"), "--server", board.address,
                            "--name", "dave", "--state-dir", env.state_dir, "--analyse", g.id],
                           capture_output=True, text=True, timeout=60,
                           env=dict(env.env, LANGUAGE="C", LC_ALL="C"))
        check(r.returncode == 0 and f"Analysis of match {g.id}: review me" in r.stdout and
              "computing it here" not in r.stdout, f"--analyse ID: {r.stdout}{r.stderr}")
        rows2 = [l.split() for l in r.stdout.splitlines() if l[:4].strip().isdigit()]
        check(rows2 == rows, f"the service's table is the file's: {rows2} vs {rows}")
        r = subprocess.run([os.path.join(bindir, "sungka-player"), "--analyse",
                            os.path.join(env.state_dir, "missing.txt")],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "cannot read" in r.stderr, f"a missing file: {r.stderr}")


def later(bindir):
    with Env(bindir) as env:
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", db, "--analysis", "off")
        g = Game(board.address)
        g.play(MOVES)
        a = g.analysis()
        check(a.status == stubs.pb.ANALYSIS_STATUS_NONE and "--analysis off" in a.reason,
              f"reviews off: {a}")
        # The replay's analysis, with none on the service, is computed by the agent.
        carol = env.player("carol", "--server", board.address)
        carol.expect(r"^Connected\.")
        carol.send(f"replay {g.id}")
        carol.expect(rf"^Replaying match {g.id}: review me")
        carol.send("analysis")
        carol.expect(r"^The service has no review of this match \(this service reviews no "
                     r"games \(--analysis off\)\); computing it here\.")
        carol.expect(r"^ +2 +bob +3 +-1\.00 +-1= +\d +blunder$")
        carol.quit()
        board.p.send_signal(signal.SIGKILL)
        board.p.wait()
        board = env.board("--db", db, "--analysis", "on")
        board.expect_stderr(r"1 ended game without a review: queued")
        g.channel.close()
        g.channel = stubs.grpc.insecure_channel(board.address)
        g.lobby = stubs.pb_grpc.RegisterStub(g.channel)
        check_review(g.wait_done(), g.id)


if __name__ == "__main__":
    sys.exit(main({"served": served, "later": later}))
