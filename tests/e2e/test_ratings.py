#!/usr/bin/python3
"""test_ratings.py — ratings (issue 16, docs/rules.md "Ratings").

Real sungka-board processes on loopback with a database, stock Python gRPC
clients (stubs compiled from our .proto, as test_accounts.py does) and the
text view. The numbers are the worked examples of docs/rules.md, worked out
apart from the service: two newcomers, the winner goes to 1662 and the loser
to 1338 (deviation 290); the same two again, the other way round, 1567 and
1433 (deviation 260); three newcomers placed 1, 2, 3 go to 1747, 1500 and
1253 (deviation 253). Usage: test_ratings.py BINDIR TEST.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, Client, refused, auth, seat)

T = 15.0
# The worked examples are games from one address, resigned before a move:
# rated here (test_farming.py checks the rules that would unrate them).
AS_ANY_GAME = ("--rated-same-address", "--rated-min-moves", "0")


def _with(bindir, body):
    with Env(bindir) as env:
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "ratings.db")
        board = env.board("--db", db, *AS_ANY_GAME)
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


def _rated(c, kind="kalah", options=(), **extra):
    pb = stubs.pb
    opts = [pb.GameOption(name=n, value=v) for n, v in options]
    return c.lobby.CreateGame(pb.CreateGameRequest(kind=kind, options=opts, autostart=True,
                                                   rated=True, **extra),
                              metadata=c.md(), timeout=T).game


def _join(c, game_id, name=""):
    return c.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game_id, name=name),
                            metadata=c.md(), timeout=T)


def _resign(c, ref):
    c.board.Resign(stubs.pb.ResignRequest(), metadata=stubs.auth(ref.token), timeout=T)


def _rating(c, name, kind="kalah"):
    st = c.lobby.GetPlayerStats(stubs.pb.GetPlayerStatsRequest(name=name), timeout=T)
    got = [r.rating for r in st.ratings if r.kind == kind]
    check(len(got) == 1, f"{name} has no {kind} rating: {st}")
    return got[0]


def _expect(c, name, value, deviation, games, kind="kalah"):
    r = _rating(c, name, kind)
    check((r.value, r.deviation, r.games, r.provisional) == (value, deviation, games, True),
          f"{name}'s {kind} rating is {r.value} +-{r.deviation} after {r.games} games "
          f"(provisional {r.provisional}); the worked example says {value} +-{deviation} "
          f"after {games}, provisional")
    print(f"  {name}: {kind} {r.value}? (deviation {r.deviation}, {r.games} games)")


def _game_over(c, ref):
    """The GameOver event as a late subscriber replays it from the log."""
    call = c.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=1),
                             metadata=stubs.auth(ref.token),
                             timeout=T)
    try:
        for ev in call:
            if ev.WhichOneof("body") == "game_over":
                return ev.game_over
    finally:
        call.cancel()
    check(False, "no GameOver in the log")


def two_players(bindir):
    """Two newcomers play two rated kalah games, each won by a resignation:
    the ratings, the GameOver's changes, the history and the leaderboard
    follow the worked examples."""
    def body(env, board, db, client):
        alice, bob = client("alice"), client("bob")
        game = _rated(alice)
        check(game.rated, "the summary does not say the game is rated")
        a, b = _join(alice, game.game_id), _join(bob, game.game_id)
        # Before the game: both are newcomers, shown as provisional 1500.
        snap = alice.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=stubs.auth(a.token),
                                    timeout=T)
        check(snap is not None, "no board")
        _resign(alice, a)                                   # bob wins the first
        over = _game_over(bob, b)
        changes = {stubs.seat(r, "seat"): (r.before.value, r.after.value) for r in over.ratings}
        check(changes == {stubs.seat(a, "seat"): (1500, 1338), stubs.seat(b, "seat"): (1500, 1662)},
              f"GameOver's rating changes: {changes}")
        _expect(alice, "alice", 1338, 290, 1)
        _expect(alice, "bob", 1662, 290, 1)

        game = _rated(bob)
        b, a = _join(bob, game.game_id), _join(alice, game.game_id)
        _resign(bob, b)                                     # alice wins the second
        _expect(bob, "alice", 1567, 260, 2)
        _expect(bob, "bob", 1433, 260, 2)

        hist = bob.lobby.RatingHistory(stubs.pb.RatingHistoryRequest(name="ALICE", kind="kalah"),
                                       timeout=T)
        points = [(p.before, p.rating.value) for p in hist.points]
        check(hist.name == "alice" and points == [(1500, 1338), (1338, 1567)],
              f"alice's history: {hist.name} {points}")
        top = bob.lobby.Leaderboard(stubs.pb.LeaderboardRequest(kind="kalah"), timeout=T)
        order = [(p.name, p.ratings[0].rating.value) for p in top.players]
        check(order == [("alice", 1567), ("bob", 1433)], f"the kalah leaderboard: {order}")
        none = bob.lobby.Leaderboard(stubs.pb.LeaderboardRequest(kind="reversi"), timeout=T)
        check(not none.players, f"a reversi leaderboard without rated games: {none}")
        C = stubs.grpc.StatusCode
        stubs.refused("the history of nobody", C.NOT_FOUND, "NOT_FOUND",
                      bob.lobby.RatingHistory, stubs.pb.RatingHistoryRequest(name="zed"))
        stubs.refused("a leaderboard of no kind", C.INVALID_ARGUMENT, "BAD_REQUEST",
                      bob.lobby.Leaderboard, stubs.pb.LeaderboardRequest(kind="chess"))
    _with(bindir, body)


def three_players(bindir):
    """Three newcomers in rated sungka: carol resigns first, then bob; alice
    wins. Placed 1, 2, 3 they go to 1747, 1500 and 1253 (deviation 253)."""
    def body(env, board, db, client):
        alice, bob, carol = client("alice"), client("bob"), client("carol")
        game = _rated(alice, "sungka", [("players", 3)])
        a, b, c = (_join(x, game.game_id) for x in (alice, bob, carol))
        _resign(carol, c)
        _resign(bob, b)
        for name, value in (("alice", 1747), ("bob", 1500), ("carol", 1253)):
            _expect(alice, name, value, 253, 1, "sungka")
    _with(bindir, body)


def who_may_play(bindir):
    """Guests watch rated games but do not play them, nor create them; games
    against the service's bots are unrated; a casual game changes nothing."""
    def body(env, board, db, client):
        C = stubs.grpc.StatusCode
        pb = stubs.pb
        alice, guest = client("alice"), client()
        stubs.refused("a guest creating a rated game", C.UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                      guest.lobby.CreateGame, pb.CreateGameRequest(kind="kalah", rated=True))
        stubs.refused("a rated game against bots", C.INVALID_ARGUMENT, "BAD_REQUEST",
                      alice.lobby.CreateGame, pb.CreateGameRequest(kind="kalah", rated=True,
                                                                   bots=1),
                      metadata=alice.md())
        game = _rated(alice)
        _join(alice, game.game_id)
        stubs.refused("a guest taking a seat of a rated game", C.PERMISSION_DENIED,
                      "NOT_PERMITTED", guest.lobby.JoinGame,
                      pb.JoinGameRequest(game_id=game.game_id, name="zoe"))
        watching = guest.lobby.JoinGame(pb.JoinGameRequest(game_id=game.game_id, name="zoe",
                                                           observe=True), timeout=T)
        stubs.refused("a guest sitting down in a rated game", C.PERMISSION_DENIED,
                      "NOT_PERMITTED", guest.board.Sit, pb.SitRequest(),
                      metadata=stubs.auth(watching.token))
        casual = alice.lobby.CreateGame(pb.CreateGameRequest(kind="kalah", autostart=True),
                                        metadata=alice.md(), timeout=T).game
        a = _join(alice, casual.game_id)
        _join(guest, casual.game_id, "zoe")
        _resign(alice, a)
        st = alice.lobby.GetPlayerStats(pb.GetPlayerStatsRequest(name="alice"), timeout=T)
        check(st.losses == 1 and not st.ratings, f"a casual loss changed a rating: {st}")
    _with(bindir, body)


def quit_after_restart(bindir):
    """A rated game survives kill -9 of the service; after the restart the
    player who quits it loses it, and the ratings say so."""
    def body(env, board, db, client):
        alice, bob = client("alice"), client("bob")
        game = _rated(alice)
        a, b = _join(alice, game.game_id), _join(bob, game.game_id)
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        env.board("--db", db, *AS_ANY_GAME, port=board.port)
        for c in (alice, bob):
            c.channel.close()
        again = [stubs.Client(board.address) for _ in range(2)]
        try:
            again[0].board.Leave(stubs.pb.LeaveRequest(), metadata=stubs.auth(a.token), timeout=T)
            _expect(again[1], "alice", 1338, 290, 1)
            _expect(again[1], "bob", 1662, 290, 1)
        finally:
            for c in again:
                c.close()
    _with(bindir, body)


def text_view(bindir):
    """The text view: a rated game made with `new kalah rated`, the ratings
    beside the names in `who`, the change at the end, `stats`,
    `leaderboard kalah` and `ratings`."""
    with Env(bindir) as env:
        board = env.board("--db", os.path.join(env.state_dir, "ratings.db"), *AS_ANY_GAME)
        people = {}
        for name in ("alice", "bob"):
            p = env.player(name, "--server", board.address, "--state-dir",
                           os.path.join(env.state_dir, name), ready=False)
            p.expect(r"^You are in the lobby")
            p.send(f"register {name}")
            p.send("correct horse")
            p.send("correct horse")
            p.expect(rf"^Account {name} created\. Signed in\.")
            people[name] = p
        alice, bob = people["alice"], people["bob"]
        alice.send("new kalah rated")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob.send("games")
        bob.expect(rf"^Game {game}: .*; rated; 0 watching")
        bob.send(f"join {game}")
        for p in (alice, bob):
            p.send("ready")
        alice.expect(r"^The game starts")
        alice.send("who")
        alice.expect(r"^  seat 0: alice\s+1500\?")
        alice.expect(r"^  seat 1: bob\s+1500\?")
        alice.send("resign")
        alice.send("resign")
        bob.expect(r"^Game over: alice resigned")
        bob.expect(r"^alice: rating 1500\? -> 1338\? \(-162\)")
        bob.expect(r"^bob: rating 1500\? -> 1662\? \(\+162\)")
        bob.send("stats")
        bob.expect(r"^bob: 1 played, 1 won, 0 lost")
        bob.expect(r"^  kalah rating 1662\? \(\u00b1580\), 1 rated game")
        bob.send("leaderboard kalah")
        bob.expect(r"^ 1\. bob\s+1662\?")
        bob.expect(r"^ 2\. alice\s+1338\?")
        bob.send("ratings alice")
        bob.expect(rf"^kalah, game {game}: 1500 -> 1338\? \(-162\)")
        for p in (alice, bob):
            p.quit()


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (two_players, three_players, who_may_play,
                                           quit_after_restart, text_view)}))
