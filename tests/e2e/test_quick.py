#!/usr/bin/python3
"""test_quick.py — quick pairing (Register.QuickPair; docs/rules.md, "Quick
pairing").

A stock Python gRPC client (python3-grpcio, stubs protoc compiles from our
sungka.proto and social.proto, as test_block.py does) talks to a real
sungka-board on loopback with an SQLite database, whose ratings table the
test writes (the service reads a rating at each request). Checked: 20
players of spread ratings in the kalah pool are all paired, every update of
every stream says the range the widening rule gives for its wait, and each
pair's ratings are within both players' ranges as the last update says; a
4-seat sungka table fills from 4 requests and not from 3; a rated_only
player is never paired with a guest, and a guest cannot ask for rated
games; two accounts where one blocks the other are never paired; a
cancelled stream leaves the pool (its size, the pool gauge of --metrics);
one address waits for one pairing at a time (--client-pairings) and a pool
is capped (--max-pool). Also (issue 33's board page): a rematch against the
service's bot starts, with a spectator following it (text views), and the
export of a running game writes its seats and "unfinished". Usage:
test_quick.py BINDIR TEST.
"""
import os
import re
import sqlite3
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (Client, auth, refused, ...)
import test_block  # noqa: E402  (generate: sungka.proto and social.proto stubs)

T = 15.0
ACCOUNTS = ("--client-registrations", "100", "--client-signin-rate", "1000",
            "--client-signin-jobs", "4")


def rule(waited_ms):
    """docs/rules.md: ±100 at first, 50 more every 5 s, any rating after 60 s."""
    return None if waited_ms >= 60000 else 100 + 50 * (waited_ms // 5000)


class Waiter:
    """One QuickPair stream, read by a thread: its updates, its end."""

    def __init__(self, client, kind="kalah", options=(), rated_only=False, name=""):
        pb = stubs.pb
        self.client, self.updates, self.error = client, [], None
        req = pb.QuickPairRequest(kind=kind, rated_only=rated_only, name=name,
                                  options=[pb.GameOption(name=n, value=v) for n, v in options])
        self.call = client.lobby.QuickPair(req, metadata=client.md(), timeout=120)
        self.done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for u in self.call:
                self.updates.append(u)
        except stubs.grpc.RpcError as e:
            self.error = e
        self.done.set()

    def board(self):
        last = self.updates[-1] if self.updates else None
        return last.board if last is not None and last.HasField("board") else None

    def wait_update(self, pred, what, timeout=T):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(pred(u) for u in list(self.updates)):
                return
            time.sleep(0.05)
        check(False, f"no update where {what}: {list(self.updates)} {self.error}")

    def check_rule(self, who):
        for u in self.updates:
            want = rule(u.waited_ms)
            if want is None:
                check(u.any_rating, f"{who}: after {u.waited_ms} ms any rating, not {u}")
            else:
                check(not u.any_rating and u.range == want,
                      f"{who}: after {u.waited_ms} ms the range is ±{want}, the update says "
                      f"±{u.range} (any {u.any_rating})")


def _db_ids(db):
    with sqlite3.connect(db, timeout=10) as con:
        return {name: i for i, name in con.execute("SELECT id, name FROM accounts")}


def _set_ratings(db, ratings, kind="kalah"):
    ids = _db_ids(db)
    with sqlite3.connect(db, timeout=10) as con:
        for name, value in ratings.items():
            con.execute("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, 60, 0.06, 20, 0)",
                        (ids[name], kind, float(value)))


def _with(bindir, body, *flags, sqlite_only=None):
    with Env(bindir, sqlite_only=sqlite_only) as env:
        test_block.generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "quick.db")
        board = env.board("--db", db, *ACCOUNTS, *flags)
        clients = []

        def client(name=None):
            c = stubs.Client(board.address)
            clients.append(c)
            if name:
                c.create(name)
            return c
        try:
            body(env, board, db, client)
        finally:
            for c in clients:
                c.close()


def pool_of_20(bindir):
    """20 players, ratings in pairs of near ones 500 apart, the partners of a
    pair 30 to 240 apart: every one is paired, most only once the ranges
    have widened, and each pair within the rule at its wait."""
    gaps = [30, 240, 90, 160, 210, 60, 130, 190, 110, 230]
    ratings = {}
    for k, gap in enumerate(gaps):
        ratings[f"low{k}"] = 800 + 500 * k
        ratings[f"high{k}"] = 800 + 500 * k + gap

    def body(env, board, db, client):
        people = {name: client(name) for name in ratings}
        _set_ratings(db, ratings)
        # Interleaved arrivals, so that nearest is not simply next.
        order = [f"low{k}" for k in range(10)] + [f"high{k}" for k in reversed(range(10))]
        waiters = {name: Waiter(people[name]) for name in order}
        for name, w in waiters.items():
            check(w.done.wait(45), f"{name} was not paired within 45 s: {w.updates}")
            check(w.error is None, f"{name}'s stream failed: {w.error}")
            check(w.board() is not None, f"{name}'s stream ended without a seat: {w.updates}")
        games = {}
        for name, w in waiters.items():
            w.check_rule(name)
            last = w.updates[-1]
            check(last.rating == ratings[name],
                  f"{name} was paired by rating {last.rating}, not {ratings[name]}")
            games.setdefault(w.board().game_id, []).append(name)
        check(len(games) == 10 and all(len(v) == 2 for v in games.values()),
              f"20 players should make 10 games of two: {games}")
        widened = 0
        for gid, (a, b) in games.items():
            la, lb = waiters[a].updates[-1], waiters[b].updates[-1]
            diff = abs(la.rating - lb.rating)
            for who, last in ((a, la), (b, lb)):
                check(last.any_rating or diff <= last.range,
                      f"game {gid}: {a} and {b} are {diff} apart, beyond {who}'s ±{last.range} "
                      f"after {last.waited_ms} ms")
            widened += max(la.range, lb.range) > 100
            seats = sorted(waiters[n].board().seat.value for n in (a, b))
            check(seats == [0, 1], f"game {gid}: seats {seats}")
            summary = waiters[a].board().game
            check(summary.kind == "kalah" and not summary.rated and
                  summary.status == stubs.pb.GAME_STATUS_RUNNING,
                  f"game {gid} is not a running casual kalah game: {summary}")
            print(f"  game {gid}: {a} {la.rating} and {b} {lb.rating} after "
                  f"{la.waited_ms}/{lb.waited_ms} ms (ranges ±{la.range}/±{lb.range})")
        check(widened >= 5, f"only {widened} pairs needed a wider range")
        # The seat works: the player to move moves.
        ref = waiters["low0"].board()
        st = people["low0"].board.GetBoard(stubs.pb.GetBoardRequest(),
                                           metadata=stubs.auth(ref.token), timeout=T)
        check(st.board.HasField("to_move"), f"no one to move: {st}")
        board.expect_stderr(r"2 players paired from the kalah pool", count=10)

    _with(bindir, body, "--client-pairings", "20",
          sqlite_only="it writes the players' ratings into the SQLite file")


def sungka_table(bindir):
    """sungka with players=4: three requests wait (the pool says 3), the
    fourth fills the table: one game, seats 0..3."""
    def body(env, board, db, client):
        opts = (("players", 4),)
        ws = [Waiter(client(), kind="sungka", options=opts, name=f"p{i}") for i in range(3)]
        ws[2].wait_update(lambda u: u.pool_size == 3, "the pool has 3")
        time.sleep(1.5)
        check(all(w.board() is None for w in ws), "a 4-seat table was filled by 3")
        ws.append(Waiter(client(), kind="sungka", options=opts, name="p3"))
        for i, w in enumerate(ws):
            check(w.done.wait(T) and w.board() is not None, f"p{i} not seated: {w.updates}")
        ids = {w.board().game_id for w in ws}
        check(len(ids) == 1, f"four players in {len(ids)} games")
        seats = sorted(w.board().seat.value for w in ws)
        check(seats == [0, 1, 2, 3], f"seats {seats}")
        print(f"  game {ids.pop()}: seats {seats}")

    _with(bindir, body, "--client-pairings", "10")


def rated_only(bindir):
    """A guest cannot ask for rated games; a rated_only account waits beside
    a casual guest without being paired, and is paired with the next
    rated_only account: a rated game."""
    def body(env, board, db, client):
        stubs.refused("a guest asking for rated games", stubs.grpc.StatusCode.UNAUTHENTICATED,
                      "ACCOUNT_REQUIRED",
                      lambda **kw: list(client().lobby.QuickPair(
                          stubs.pb.QuickPairRequest(kind="kalah", rated_only=True,
                                                    name="guest"), **kw)))
        alice = Waiter(client("alice"), rated_only=True)
        guest = Waiter(client(), name="gus")
        alice.wait_update(lambda u: u.pool_size == 1, "alice's pool has 1")
        time.sleep(2)
        check(alice.board() is None and guest.board() is None,
              "a rated_only player was paired with a guest")
        bob = Waiter(client("bob"), rated_only=True)
        for who, w in (("alice", alice), ("bob", bob)):
            check(w.done.wait(T) and w.board() is not None, f"{who} not seated: {w.updates}")
        check(alice.board().game_id == bob.board().game_id, "alice and bob apart")
        check(alice.board().game.rated, f"the game is not rated: {alice.board().game}")
        check(guest.board() is None, "the guest was seated")
        guest.call.cancel()

    _with(bindir, body, "--client-pairings", "10")


def blocked(bindir):
    """alice blocks bob: both wait, at the same rating, unpaired; carol is
    then paired with one of them."""
    def body(env, board, db, client):
        a, b = client("alice"), client("bob")
        social = test_block.soc_grpc.SocialServiceStub(a.channel)
        social.Block(test_block.soc.BlockRequest(name="bob"), metadata=a.md(), timeout=T)
        wa, wb = Waiter(a), Waiter(b)
        wb.wait_update(lambda u: u.pool_size == 2, "the pool has 2")
        time.sleep(2)
        check(wa.board() is None and wb.board() is None, "alice was paired with bob")
        wc = Waiter(client("carol"))
        check(wc.done.wait(T) and wc.board() is not None, f"carol not seated: {wc.updates}")
        seated = [w for w in (wa, wb) if w.done.wait(2) and w.board() is not None]
        check(len(seated) == 1 and seated[0].board().game_id == wc.board().game_id,
              "carol was not paired with one of alice and bob")
        for w in (wa, wb):
            w.call.cancel()

    _with(bindir, body, "--client-pairings", "10")


def _pool_gauge(port, kind):
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=T).read().decode()
    m = re.search(r'^sungka_pool_players\{kind="%s"\} (\S+)$' % kind, page, re.M)
    check(m, f"no sungka_pool_players for {kind}:\n{page}")
    return float(m.group(1))


def cancel_and_limits(bindir):
    """One address waits once at a time (the second is refused with a
    sentence); cancelling leaves the pool (the next player's update and the
    gauge say so); a full pool refuses with a sentence."""
    def body(env, board, db, client):
        board.expect_stderr(r"metrics on port \d+")
        line = next(l for l in board.err_lines if re.search(r"metrics on port \d+", l))
        mport = int(re.search(r"metrics on port (\d+)", line).group(1))
        first = Waiter(client(), name="ann")
        first.wait_update(lambda u: u.pool_size == 1, "the pool has 1")
        stubs.refused("a second pairing from one address",
                      stubs.grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                      lambda **kw: list(client().lobby.QuickPair(
                          stubs.pb.QuickPairRequest(kind="reversi", name="ann2"), **kw)))
        deadline = time.monotonic() + T
        while _pool_gauge(mport, "kalah") != 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        check(_pool_gauge(mport, "kalah") == 1, "the gauge does not count ann")
        first.call.cancel()
        board.expect_stderr(r"a player left the kalah pool")
        second = Waiter(client(), name="bea")
        second.wait_update(lambda u: True, "an update")
        check(second.updates[0].pool_size == 1,
              f"ann's cancelled request is still in the pool: {second.updates[0]}")
        check(second.board() is None, "bea was paired with a cancelled request")
        deadline = time.monotonic() + T
        while _pool_gauge(mport, "kalah") != 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        second.call.cancel()
        board.expect_stderr(r"a player left the kalah pool", count=2)
        deadline = time.monotonic() + T
        while _pool_gauge(mport, "kalah") != 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        check(_pool_gauge(mport, "kalah") == 0, "the gauge still counts a cancelled request")

    def full(env, board, db, client):
        # --max-pool 1: a 4-seat table's pool holds one; the next is refused.
        w = Waiter(client(), kind="sungka", options=(("players", 4),), name="one")
        w.wait_update(lambda u: u.pool_size == 1, "the pool has 1")
        stubs.refused("a full pool", stubs.grpc.StatusCode.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                      lambda **kw: list(client().lobby.QuickPair(
                          stubs.pb.QuickPairRequest(kind="sungka", name="two",
                                                    options=[stubs.pb.GameOption(
                                                        name="players", value=4)]), **kw)))
        w.call.cancel()

    _with(bindir, body, "--metrics", "127.0.0.1:0")
    _with(bindir, full, "--max-pool", "1", "--client-pairings", "5")


def agent_quick(bindir):
    """sungka-player --quick kalah:5+3 waits (it says the pool and the
    range); another player types `quick kalah 5+3` in the text view; both
    are seated in one clocked game that starts, and play it."""
    with Env(bindir) as env:
        board = env.board("--client-pairings", "2")
        ann = env.player("ann", "--server", board.address, "--quick", "kalah:5+3")
        ann.expect(r"^Waiting for a quick pairing: 1 in the pool; ratings 1400 to 1600")
        bob = env.player("bob", "--server", board.address)
        bob.send("quick kalah 5+3")
        game = bob.expect(r"^Paired: game (\d+)\.").group(1)
        for p in (ann, bob):       # a game that started as they were seated
            p.expect(rf"^Game {game}: .*\(kalah ")
            p.expect(r"^Clock: 5:00 for the game, plus 3 s a move\.")
        board.expect_stderr(rf"game {game}: 2 players paired from the kalah pool")
        Autoplayer(env, [ann, bob], seed=2).play_moves(2)
        for p in (ann, bob):
            p.quit()


def bot_rematch(bindir):
    """ann plays kalah against the service's bot (--bots 1) and resigns; she
    waits, so that a bot that left at the end would have (it said "bot-1 has
    left" then), and asks for a rematch: the bot accepts by itself, the new
    game starts with ann one seat on, and the new bot moves first. eve, who
    watches, follows into the rematch."""
    with Env(bindir) as env:
        board = env.board()
        ann = env.player("ann", "--server", board.address, "--new", "kalah", "--bots", "1")
        game = ann.expect(r"Created game (\d+)").group(1)
        ann.expect(r"^The game starts")
        eve = env.player("eve", "--server", board.address, "--game", game, "--observe")
        eve.expect(r"ann")
        ann.send("resign")
        ann.expect(r"^Type resign again")
        ann.send("resign")
        ann.expect(r"^Game over: ann resigned")
        eve.expect(r"^Game over: ann resigned")
        time.sleep(2)
        ann.send("rematch")
        new = ann.expect(r"^The rematch starts: game (\d+)\.").group(1)
        check(new != game, "the rematch is the old game")
        ann.expect(r"^You are ann, seat 1\.")
        ann.expect(r"^Your turn")            # after the new bot's first move (seat 0)
        eve.expect(rf"^The rematch starts: game {new}\.")
        eve.expect(rf"^Game {new}: ")         # watching the new game: its snapshot
        # The old game's bot has gone; the new one plays on.
        board.expect_stderr(rf"game {game}: the rematch is game {new}")
        for p in (ann, eve):
            p.quit()


def export_running(bindir):
    """export of a game that is still running: its seats and "unfinished",
    then the moves so far."""
    with Env(bindir) as env:
        board = env.board("--db", os.path.join(env.state_dir, "x.db"))
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        for p in (alice, bob):
            p.expect(r"^The game starts")
        Autoplayer(env, [alice, bob], seed=4).play_moves(2)
        alice.wait_for(r"^bob played")
        alice.cursor = len(alice.lines)
        alice.send(f"export {game}")
        alice.expect(rf"^# Sungka match {game}: .*\(kalah cups=6 stones=4 swap=0\)")
        alice.expect(r"^# Seats: 0 alice, 1 bob$")
        alice.expect(r"^# Result: unfinished$")
        for p in (alice, bob):
            p.quit()


if __name__ == "__main__":
    sys.exit(main({"pool_of_20": pool_of_20, "sungka_table": sungka_table, "rated_only": rated_only,
          "blocked": blocked, "cancel_and_limits": cancel_and_limits,
          "agent_quick": agent_quick, "bot_rematch": bot_rematch, "export_running": export_running}))
