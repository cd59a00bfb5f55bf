"""interop_test.py — the wire contract is plain gRPC.

A client written on nothing but stock Python gRPC (Debian's python3-grpcio)
and stubs that protoc compiles from our own .proto files at the start of the
test plays a whole game against a real sungka-board. Nothing here is shared
with the C code: if the service spoke anything but standard gRPC and
protobuf, or strayed from sungka.proto, this client could not play.

    interop_test.py --protoc PROTOC --plugin GRPC_PYTHON_PLUGIN \
                    --proto-dir PROTO_DIR BINDIR {health|full_game}

The board process comes from tests/e2e/harness.py (started on a port the
system picks, stopped when the test ends, passed or failed).
"""
import argparse
import importlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import harness  # noqa: E402
from harness import Failure, check  # noqa: E402

CALL_TIMEOUT = 10.0       # every unary call
WAIT = 20.0               # every wait for an event
CUPS, STONES = 4, 3
MAX_MOVES = 300           # a 4x3 kalah game is far shorter; stops a loop

pb = pb_grpc = health_pb = health_grpc = grpc = None


def generate(protoc, plugin, proto_dir, out):
    """Compile sungka.proto and health.proto into Python modules in `out` and
    import them."""
    global pb, pb_grpc, health_pb, health_grpc, grpc
    for tool in (protoc, plugin):
        check(tool and os.path.exists(tool),
              f"missing tool '{tool}': install the Debian packages protobuf-compiler and "
              "protobuf-compiler-grpc")
    argv = [protoc, f"--python_out={out}", f"--grpc_out={out}",
            f"--plugin=protoc-gen-grpc={plugin}", "-I", proto_dir,
            "sungka/v1/sungka.proto", "grpc/health/v1/health.proto"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"protoc failed ({r.returncode}): {' '.join(argv)}\n{r.stderr}")
    for f in ("sungka/v1/sungka_pb2.py", "sungka/v1/sungka_pb2_grpc.py",
              "grpc/health/v1/health_pb2.py", "grpc/health/v1/health_pb2_grpc.py"):
        check(os.path.exists(os.path.join(out, f)), f"protoc did not write {f}")
    try:
        grpc = importlib.import_module("grpc")
    except ImportError as e:
        raise Failure(f"cannot import grpc ({e}): install python3-grpcio and run this with "
                      f"/usr/bin/python3 (this is {sys.executable})")
    sys.path.insert(0, out)
    # The health stubs live in the Python package grpc.health.v1 (from the
    # file's path), inside the installed grpc package: let that package
    # also look in the generated tree.
    grpc.__path__.append(os.path.join(out, "grpc"))
    pb = importlib.import_module("sungka.v1.sungka_pb2")
    pb_grpc = importlib.import_module("sungka.v1.sungka_pb2_grpc")
    health_pb = importlib.import_module("grpc.health.v1.health_pb2")
    health_grpc = importlib.import_module("grpc.health.v1.health_pb2_grpc")
    for m in (pb, pb_grpc, health_pb, health_grpc):
        check(os.path.abspath(m.__file__).startswith(os.path.abspath(out)),
              f"{m.__name__} was imported from {m.__file__}, not from the generated code")


def seat(msg, field):
    """A SeatNumber field the way a client of the contract reads one: the
    seat, or None when the field is absent (an observer, nobody to move)."""
    return getattr(msg, field).value if msg.HasField(field) else None


def auth(token):
    return (("authorization", f"Bearer {token}"),)


def is_sentence(text):
    """A message meant for a person: words with spaces, printable, not just a
    code name."""
    return (bool(text) and len(text) < 300 and text.isprintable() and " " in text.strip()
            and re.search(r"[a-z]{2,}", text) is not None)


def expect_refusal(what, code, fn, *args, **kw):
    """Call fn and require it to fail with `code` and a human sentence."""
    try:
        reply = fn(*args, timeout=CALL_TIMEOUT, **kw)
    except grpc.RpcError as e:
        check(e.code() == code,
              f"{what}: expected {code.name}, got {e.code().name}: {e.details()!r}")
        check(is_sentence(e.details()),
              f"{what}: {code.name} without a sentence a person can read: {e.details()!r}")
        print(f"  {what}: {e.code().name} \"{e.details()}\"")
        return e
    raise Failure(f"{what}: expected {code.name}, but the call succeeded: {reply}")


def wait_channel(address):
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=CALL_TIMEOUT)
    except grpc.FutureTimeoutError:
        channel.close()
        raise Failure(f"cannot connect to {address} within {CALL_TIMEOUT}s")
    return channel


def start_board(env, *extra):
    return env.board("--db", ":memory:", *extra)


def stop_board(board):
    """SIGTERM must stop the service cleanly: exit code 0."""
    board.p.send_signal(signal.SIGTERM)
    try:
        rc = board.p.wait(15)
    except subprocess.TimeoutExpired:
        raise Failure("the board did not exit within 15 s of SIGTERM\n" + board.dump())
    check(rc == 0, f"the board exited with {rc} on SIGTERM, not 0\n" + board.dump())
    print("  board exited with 0 on SIGTERM")


def describe(ev):
    body = ev.WhichOneof("body")
    if body == "move_made":
        m = ev.move_made
        return f"#{ev.seq} move_made seat={m.seat} move={m.move} cells={list(m.board.cells)}"
    if body == "turn_changed":
        return f"#{ev.seq} turn_changed seat={ev.turn_changed.seat}"
    if body == "snapshot":
        return f"#{ev.seq} snapshot last_seq={ev.snapshot.last_seq}"
    return f"#{ev.seq} {body}"


class Stream:
    """One participant's Board.Subscribe, read by a thread. Pings (seq 0) are
    answered with Board.Ping at once and kept apart from the log events."""

    def __init__(self, name, board_stub, token):
        self.name = name
        self.stub = board_stub
        self.token = token
        self.events = []          # every event but pings, in arrival order
        self.pings = 0            # pings answered
        self.watching = []        # each ping's count of observers, in order
        self.leaving = False      # Leave was called: a late ping's answer may be refused
        self.bad = []             # contract violations seen by the reader
        self.error = None         # the RpcError that ended the stream, if any
        self.done = False
        self.cond = threading.Condition()
        self.call = board_stub.Subscribe(pb.SubscribeRequest(after_seq=0),
                                         metadata=auth(token))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for ev in self.call:
                if ev.WhichOneof("body") == "ping":
                    if ev.seq != 0:
                        self.bad.append(f"a ping with seq {ev.seq} (pings are outside the log)")
                    try:
                        self.stub.Ping(pb.PingRequest(nonce=ev.ping.nonce),
                                       metadata=auth(self.token), timeout=CALL_TIMEOUT)
                        with self.cond:
                            self.pings += 1
                            self.watching.append(ev.ping.observers)
                            self.cond.notify_all()
                    except grpc.RpcError as e:
                        # A ping sent just before Leave, answered just after
                        # it, finds the token gone: that is no fault.
                        if not (self.leaving and
                                e.code() == grpc.StatusCode.UNAUTHENTICATED):
                            self.bad.append(f"Ping({ev.ping.nonce}) failed: "
                                            f"{e.code().name} {e.details()}")
                    continue
                with self.cond:
                    self.events.append(ev)
                    self.cond.notify_all()
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                self.error = e
        except Exception as e:  # a reader must never die silently
            self.bad.append(f"reader crashed: {e!r}")
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def wait_watching(self, n, timeout=WAIT):
        """Wait for a ping, newer than any seen so far, that counts n observers."""
        deadline = time.monotonic() + timeout
        with self.cond:
            seen = len(self.watching)
            while n not in self.watching[seen:]:
                left = deadline - time.monotonic()
                if left <= 0 or self.done:
                    raise Failure(f"{self.name}: no ping counting {n} watching within "
                                  f"{timeout}s (pings said {self.watching[-5:]})")
                self.cond.wait(min(left, 0.5))

    def wait(self, pred, what, timeout=WAIT):
        """The first event matching pred, waiting up to timeout seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for ev in self.events:
                    if pred(ev):
                        return ev
                left = deadline - time.monotonic()
                if left <= 0 or self.done:
                    break
                self.cond.wait(min(left, 0.5))
        raise Failure(f"{self.name}: no {what} within {timeout}s\n" + self.dump())

    def wait_seq(self, seq, what):
        return self.wait(lambda ev: ev.seq == seq, f"event #{seq} ({what})")

    def wait_pings(self, n, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.pings < n and not self.done:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(left, 0.5))
            check(self.pings >= n, f"{self.name}: {self.pings} ping(s) answered within "
                                   f"{timeout}s, expected at least {n}\n" + self.dump())

    def wait_end(self, timeout):
        self.thread.join(timeout)
        check(not self.thread.is_alive(),
              f"{self.name}: the stream did not end within {timeout}s\n" + self.dump())

    def of(self, body):
        with self.cond:
            return [getattr(ev, body) for ev in self.events if ev.WhichOneof("body") == body]

    def check_log(self):
        """A snapshot (seq 0) first, then every log event after it, in order,
        with no gap and no repeat."""
        with self.cond:
            events = list(self.events)
        check(self.error is None, f"{self.name}: the stream failed: "
              f"{self.error and self.error.code().name} {self.error and self.error.details()}")
        check(not self.bad, f"{self.name}: " + "; ".join(self.bad))
        check(events and events[0].WhichOneof("body") == "snapshot" and events[0].seq == 0,
              f"{self.name}: the first event is not a snapshot with seq 0\n" + self.dump())
        expect = events[0].snapshot.last_seq + 1
        for ev in events[1:]:
            check(ev.seq == expect, f"{self.name}: event {describe(ev)} where #{expect} was "
                                    "due (a gap, a repeat or a disorder)\n" + self.dump())
            expect += 1
        return len(events) - 1

    def dump(self):
        with self.cond:
            lines = [describe(ev) for ev in self.events[-25:]]
        return (f"--- {self.name}'s stream (last {len(lines)} events, {self.pings} pings "
                f"answered, done={self.done}, error={self.error and self.error.details()}):\n"
                + "\n".join("  " + l for l in lines))


# --------------------------------------------------------------- the tests

def test_health(env):
    board = start_board(env, "--quiet")
    channel = wait_channel(board.address)
    try:
        stub = health_grpc.HealthStub(channel)
        for service in ("", "sungka.v1.Register", "sungka.v1.Board"):
            r = stub.Check(health_pb.HealthCheckRequest(service=service), timeout=CALL_TIMEOUT)
            check(r.status == health_pb.HealthCheckResponse.SERVING,
                  f"Health.Check({service!r}): {r.status}, not SERVING")
            print(f"  Health.Check({service!r}): SERVING")
        expect_refusal("Health.Check('no.such.Service')", grpc.StatusCode.NOT_FOUND,
                       stub.Check, health_pb.HealthCheckRequest(service="no.such.Service"))
    finally:
        channel.close()
    stop_board(board)


def test_full_game(env):
    # Pings every second (the timeout stays the default 10 s), so the game
    # sees several and every one must be answered for nobody to depart.
    board = start_board(env, "--ping-interval", "1")
    channel = wait_channel(board.address)
    channels = [channel]
    streams = []
    try:
        _full_game(board, channel, channels, streams)
    finally:
        for s in streams:
            s.call.cancel()
        for c in channels:
            c.close()
    stop_board(board)


def _full_game(board, channel, channels, streams):
    reg = pb_grpc.RegisterStub(channel)
    opts = [pb.GameOption(name="cups", value=CUPS), pb.GameOption(name="stones", value=STONES)]
    game = reg.CreateGame(pb.CreateGameRequest(kind="kalah", options=opts, title="interop"),
                          timeout=CALL_TIMEOUT).game
    check(game.game_id and game.kind == "kalah" and game.cups == CUPS and
          game.status == pb.GAME_STATUS_WAITING and len(game.seats) == 2,
          f"CreateGame: unexpected summary {game}")
    print(f"  created kalah game {game.game_id} (cups={CUPS} stones={STONES})")

    refs = {}
    for name, observe in (("alice", False), ("bob", False), ("olga", True)):
        ref = reg.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name=name, observe=observe),
                           timeout=CALL_TIMEOUT)
        check(ref.game_id == game.game_id, f"{name}: joined game {ref.game_id}")
        check(re.fullmatch(r"[0-9a-f]{32}", ref.token), f"{name}: token {ref.token!r} is not "
                                                        "128 bits of hex")
        check(ref.endpoint, f"{name}: the board reference has no endpoint")
        refs[name] = ref
    check(seat(refs["olga"], "seat") is None, f"the observer got seat {refs['olga'].seat}")
    check(sorted((seat(refs["alice"], "seat"), seat(refs["bob"], "seat"))) == [0, 1],
          f"seats: alice {refs['alice'].seat}, bob {refs['bob'].seat}")
    check(len({r.token for r in refs.values()}) == 3, "two participants got the same token")
    seat_of = {n: seat(r, "seat") for n, r in refs.items()}
    name_at = {s: n for n, s in seat_of.items() if s is not None}
    print(f"  joined: alice seat {seat_of['alice']}, bob seat {seat_of['bob']}, "
          f"olga observes; endpoint {refs['alice'].endpoint}")

    # The Board is called where the board reference says it is.
    bchan = wait_channel(refs["alice"].endpoint)
    channels.append(bchan)
    bstub = pb_grpc.BoardStub(bchan)
    tok = {n: r.token for n, r in refs.items()}

    for name in ("alice", "bob", "olga"):
        streams.append(Stream(name, bstub, tok[name]))
    by_name = {s.name: s for s in streams}
    n_cells = 2 * (CUPS + 1)
    initial = ([STONES] * CUPS + [0]) * 2
    for s in streams:
        snap = s.wait(lambda ev: ev.WhichOneof("body") == "snapshot", "snapshot").snapshot
        check(seat(snap, "your_seat") == seat_of[s.name], f"{s.name}: snapshot your_seat "
              f"{seat(snap, 'your_seat')}, not {seat_of[s.name]}")
        check(list(snap.board.cells) == initial, f"{s.name}: snapshot cells "
                                                  f"{list(snap.board.cells)}, not {initial}")

    for name in ("alice", "bob"):
        bstub.Ready(pb.ReadyRequest(ready=True), metadata=auth(tok[name]), timeout=CALL_TIMEOUT)
    started = [s.wait(lambda ev: ev.WhichOneof("body") == "game_started", "game_started")
               for s in streams]
    first = started[0]
    check(all(ev.seq == first.seq and ev.game_started == first.game_started for ev in started),
          "the streams disagree about GameStarted")
    to_move = first.game_started.first
    check(to_move in (0, 1), f"GameStarted names seat {to_move} first")
    cells = list(first.game_started.board.cells)
    last_seq = first.seq
    print(f"  game started at #{first.seq}; seat {to_move} ({name_at[to_move]}) moves first")

    rng = random.Random(7)
    played = []               # (seat, move) in order
    asymmetric_seen = False
    game_over = None
    refusals_done = False
    while game_over is None:
        check(len(played) < MAX_MOVES, f"no GameOver after {MAX_MOVES} moves")
        mover = name_at[to_move]
        # What each player's GetBoard says: the whole board rotated so that
        # the caller's row comes first, the same to_move and scores.
        views = {}
        for name in ("alice", "bob"):
            r = bstub.GetBoard(pb.GetBoardRequest(), metadata=auth(tok[name]),
                               timeout=CALL_TIMEOUT)
            shift = seat_of[name] * (CUPS + 1)
            check(r.rotation == seat_of[name],
                  f"GetBoard for {name}: rotation {r.rotation}, not {seat_of[name]}")
            want = cells[shift:] + cells[:shift]
            check(list(r.board.cells) == want,
                  f"GetBoard for {name}: cells {list(r.board.cells)}, expected {want} "
                  f"(the events' board {cells} with {name}'s row first)")
            check(seat(r.board, "to_move") == to_move,
                  f"GetBoard for {name}: to_move {seat(r.board, 'to_move')}, events say {to_move}")
            views[name] = list(r.board.cells)
        if views["alice"] != views["bob"]:
            asymmetric_seen = True
        # Legal moves two ways: from the events' board in the game's
        # numbering, and from the mover's own rotated view.
        home = to_move * (CUPS + 1)
        legal = [c for c in range(CUPS) if cells[home + c] > 0]
        legal_view = [c for c in range(CUPS) if views[mover][c] > 0]
        check(legal and legal == legal_view,
              f"{mover} to move: legal moves {legal} from the events, {legal_view} from "
              "GetBoard")

        if len(played) == 2 and not refusals_done:
            refusals_done = True
            other = name_at[1 - to_move]
            expect_refusal("Move with a wrong token", grpc.StatusCode.UNAUTHENTICATED,
                           bstub.Move, pb.MoveRequest(move=legal[0]),
                           metadata=auth("0123456789abcdef" * 2))
            expect_refusal("Move without a token", grpc.StatusCode.UNAUTHENTICATED,
                           bstub.Move, pb.MoveRequest(move=legal[0]))
            expect_refusal("Move by the observer", grpc.StatusCode.PERMISSION_DENIED,
                           bstub.Move, pb.MoveRequest(move=legal[0]), metadata=auth(tok["olga"]))
            expect_refusal(f"Move by {other} out of turn", grpc.StatusCode.FAILED_PRECONDITION,
                           bstub.Move, pb.MoveRequest(move=0), metadata=auth(tok[other]))
            expect_refusal(f"Move by {mover} of cup {CUPS + 5}",
                           grpc.StatusCode.INVALID_ARGUMENT, bstub.Move,
                           pb.MoveRequest(move=CUPS + 5), metadata=auth(tok[mover]))
            # (That none of them reached the log is checked below: the next
            # move's event comes right after the last one.)

        move = rng.choice(legal)
        reply = bstub.Move(pb.MoveRequest(move=move), metadata=auth(tok[mover]),
                           timeout=CALL_TIMEOUT)
        check(reply.seq == last_seq + 1, f"Move by {mover}: its event is #{reply.seq}, "
                                          f"expected #{last_seq + 1}")
        played.append((to_move, move))
        made = [s.wait_seq(reply.seq, f"{mover}'s move {move}") for s in streams]
        for ev in made:
            check(ev.WhichOneof("body") == "move_made" and ev.move_made.seat == to_move and
                  ev.move_made.move == move,
                  f"event #{reply.seq} is {describe(ev)}, expected move_made seat {to_move} "
                  f"move {move}")
        mm = made[0].move_made
        cells = list(mm.board.cells)
        check(len(cells) == n_cells and sum(cells) == 2 * CUPS * STONES and min(cells) >= 0,
              f"after move {len(played)}: impossible board {cells}")
        if not mm.HasField("turn"):
            # The move ended the game: a GameOver follows it.
            after = [s.wait_seq(reply.seq + 1, "what follows the last move") for s in streams]
            check(all(ev.WhichOneof("body") == "game_over" for ev in after),
                  f"after a move with no turn: {describe(after[0])}, expected game_over")
            last_seq = reply.seq + 1
            game_over = after[0].game_over
            check(all(ev.game_over == game_over for ev in after),
                  "the streams disagree about GameOver")
            check(seat(mm.board, "to_move") is None, f"the last move's board has to_move "
                                                     f"{seat(mm.board, 'to_move')}, not none")
        else:
            last_seq = reply.seq
            to_move = mm.turn.seat
            check(to_move == seat(mm.board, "to_move") and to_move in (0, 1),
                  f"MoveMade.turn says seat {to_move}, the move's board "
                  f"says {seat(mm.board, 'to_move')}")
            check(to_move == (played[-1][0] if mm.extra_turn else 1 - played[-1][0]),
                  f"move {len(played)}: extra_turn={mm.extra_turn} but seat {to_move} is next")

    print(f"  {len(played)} moves played; game over at #{last_seq}: scores "
          f"{list(game_over.scores)}, winners {list(game_over.winners)}, "
          f"\"{game_over.reason}\"")
    check(refusals_done, "the game ended before the refusals were tried")
    check(asymmetric_seen, "the board was never asymmetric, so rotation was not really tested")

    # The result.
    scores = list(game_over.scores)
    check(not game_over.abandoned, "the game is reported abandoned")
    check(len(scores) == 2 and sum(scores) == 2 * CUPS * STONES,
          f"GameOver scores {scores} do not sum to {2 * CUPS * STONES}")
    homes = [cells[s * (CUPS + 1) + CUPS] for s in (0, 1)]
    check(scores == homes, f"GameOver scores {scores}, but the final board's stores hold {homes}")
    best = max(scores)
    winners = [s for s in (0, 1) if scores[s] == best]
    if len(winners) == 2:
        winners = []          # all equal: a draw
    check(sorted(game_over.winners) == winners,
          f"GameOver winners {list(game_over.winners)} with scores {scores}; expected {winners}")
    check(is_sentence(game_over.reason), f"GameOver reason {game_over.reason!r}")
    r = bstub.GetBoard(pb.GetBoardRequest(), metadata=auth(tok["olga"]), timeout=CALL_TIMEOUT)
    check(seat(r.board, "to_move") is None and list(r.board.cells) == cells and r.rotation == 0,
          f"the observer's GetBoard after the game: {r}")
    expect_refusal("Move after the game", grpc.StatusCode.FAILED_PRECONDITION,
                   bstub.Move, pb.MoveRequest(move=0), metadata=auth(tok[name_at[0]]))

    # Everyone saw the same moves; the players' moves are what was played.
    seqs = {}
    for s in streams:
        moves = [(m.seat, m.move, tuple(m.board.cells), m.extra_turn, m.captured)
                 for m in s.of("move_made")]
        check([(a, b) for a, b, *_ in moves] == played,
              f"{s.name} saw the moves {[(a, b) for a, b, *_ in moves]}, played {played}")
        seqs[s.name] = moves
    check(seqs["olga"] == seqs["alice"] == seqs["bob"],
          "the observer and the players saw different MoveMade events")

    # Pings were answered, so nobody departed.
    for s in streams:
        s.wait_pings(2, timeout=WAIT)
        check(not s.of("player_departed"), f"{s.name} saw departures: {s.of('player_departed')}")

    # The lobby's history has the match, move by move (--db :memory:).
    match = reg.GetMatch(pb.GetMatchRequest(game_id=game.game_id), timeout=CALL_TIMEOUT)
    check(match.summary.status == pb.GAME_STATUS_FINISHED and
          list(match.summary.scores) == scores and match.summary.moves == len(played),
          f"GetMatch: {match.summary}")
    check([(m.seat, m.move) for m in match.moves] == played,
          f"GetMatch moves {[(m.seat, m.move) for m in match.moves]}, played {played}")

    # Everyone leaves; each one's stream ends cleanly, and those still there
    # hear of it: of a player by an event, of an observer by the count of
    # watchers in the pings (observers' comings and goings are not events).
    for s in (by_name["alice"], by_name["bob"]):
        s.wait_watching(1)
    for i, name in enumerate(("olga", "bob", "alice")):
        by_name[name].leaving = True
        bstub.Leave(pb.LeaveRequest(), metadata=auth(tok[name]), timeout=CALL_TIMEOUT)
        by_name[name].wait_end(WAIT)
        for other in ("olga", "bob", "alice")[i + 1:]:
            if name == "olga":
                by_name[other].wait_watching(0)
            else:
                by_name[other].wait(lambda ev: ev.WhichOneof("body") == "player_left" and
                                    ev.player_left.who.name == name, f"{name} leaving")
    expect_refusal("GetBoard with a token after Leave", grpc.StatusCode.UNAUTHENTICATED,
                   bstub.GetBoard, pb.GetBoardRequest(), metadata=auth(tok["alice"]))

    # Every stream: a snapshot, then the log without a gap.
    for s in streams:
        n = s.check_log()
        print(f"  {s.name}: snapshot + {n} events in order without gaps, "
              f"{s.pings} pings answered, stream ended cleanly")


TESTS = {"health": test_health, "full_game": test_full_game}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--protoc", default="/usr/bin/protoc")
    ap.add_argument("--plugin", default="/usr/bin/grpc_python_plugin")
    ap.add_argument("--proto-dir", required=True)
    ap.add_argument("bindir")
    ap.add_argument("test", choices=sorted(TESTS))
    a = ap.parse_args()
    started = time.monotonic()
    gen = tempfile.mkdtemp(prefix="sungka-interop-")
    try:
        generate(a.protoc, a.plugin, a.proto_dir, gen)
        print(f"  stubs compiled by {a.protoc} into {gen}; grpcio {grpc.__version__}")
        with harness.Env(a.bindir) as env:
            try:
                TESTS[a.test](env)
            except Exception as e:
                # Show what the service said, too.
                what = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
                raise Failure(what + "\n" + env.dump_all()) from e
    except Failure as f:
        print(f"FAIL interop_{a.test}: {f}")
        return 1
    finally:
        shutil.rmtree(gen, ignore_errors=True)
    print(f"ok interop_{a.test} ({time.monotonic() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
