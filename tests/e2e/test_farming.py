#!/usr/bin/python3
"""test_farming.py — rating farming (issue "[3/8] Open to strangers",
docs/rules.md "Ratings"): rated games that change no rating, and the
operator's report.

The farm the issue saw: two accounts from one address took one of them from
1500 to 1964 in 60 rated games of one move each. Here stock Python gRPC
clients (test_accounts.py's stubs) play that farm against a real
sungka-board on loopback and find every rating unchanged, with the reason in
the game's events; two accounts from two addresses (127.0.0.1, and 127.0.0.2
through a small forwarder that connects from it) are rated for 3 games a day
and no more, across a restart; `sungka-board --rating-report` shows who
plays whom. Usage: test_farming.py BINDIR TEST.
"""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
from e2e_util import OtherAddress  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, Client, auth, seat)

T = 15.0
FARM_GAMES = 8


class World:
    """One board (with the database `db`), its clients, and forwarders."""

    def __init__(self, env, *flags):
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        self.env, self.flags = env, flags
        self.db = os.path.join(env.state_dir, "farm.db")
        self.clients, self.forwarders = [], []
        self.start()

    def start(self, port=0):
        # A farm joins games as fast as it can: not this test's limit.
        self.board = self.env.board("--db", self.db, "--client-join-rate", "1000", *self.flags,
                                    port=port)

    def restart(self):
        self.board.p.send_signal(signal.SIGKILL)
        self.board.p.wait(5)
        self.start(self.board.port)

    def connect(self, name, source="127.0.0.1"):
        """A client for name's account whose calls come from `source`, not
        signed in yet."""
        address = self.board.address
        if source != "127.0.0.1":
            f = OtherAddress(f"127.0.0.1:{self.board.port}", source)
            self.forwarders.append(f)
            address = f.address
        c = stubs.Client(address)
        self.clients.append(c)
        c.name = name
        return c

    def client(self, name, source="127.0.0.1"):
        """A new account whose calls come from `source`."""
        c = self.connect(name, source)
        c.create(name)
        return c

    def close(self):
        for c in self.clients:
            c.close()
        for f in self.forwarders:
            f.close()


def _with(bindir, body, *flags):
    with Env(bindir) as env:
        w = World(env, *flags)
        try:
            body(w)
        finally:
            w.close()


def _rated_game(creator):
    return creator.lobby.CreateGame(stubs.pb.CreateGameRequest(kind="kalah", autostart=True,
                                                               rated=True),
                                    metadata=creator.md(), timeout=T).game


def _subscribe(c, ref):
    """c's stream of the game, every event after the first: open it before
    the game ends, since a game over with nobody left watching goes away."""
    return c.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=1),
                             metadata=stubs.auth(ref.token), timeout=T)


def _events(call):
    """GameStarted's and GameOver's `unrated` and the GameOver's rating
    changes, read from a stream of _subscribe's, which this closes."""
    started = None
    try:
        for ev in call:
            kind = ev.WhichOneof("body")
            if kind == "game_started":
                started = ev.game_started.unrated
            elif kind == "game_over":
                return started, ev.game_over.unrated, list(ev.game_over.ratings)
    finally:
        call.cancel()
    check(False, "no GameOver in the log")


def _play(winner, loser, moves_each):
    """A rated kalah game of winner's: each plays moves_each moves or more
    (the first cup with stones, whoever is to move), then loser resigns. Returns
    (GameStarted.unrated, GameOver.unrated, GameOver.ratings)."""
    game = _rated_game(winner)
    refs = {}
    for c in (winner, loser):
        refs[c.name] = c.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                        metadata=c.md(), timeout=T)
    by_seat = {stubs.seat(refs[c.name], "seat"): c for c in (winner, loser)}
    stream = _subscribe(winner, refs[winner.name])
    made = {winner.name: 0, loser.name: 0}
    while min(made.values()) < moves_each:      # an extra turn may give one more
        c = by_seat[0]
        b = c.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=stubs.auth(refs[c.name].token),
                             timeout=T)
        mover = by_seat[stubs.seat(b.board, "to_move")]
        tok = refs[mover.name].token
        mine = mover.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=stubs.auth(tok),
                                    timeout=T)
        cup = next(i for i in range(6) if mine.board.cells[i] > 0)    # our row comes first
        mover.board.Move(stubs.pb.MoveRequest(move=cup), metadata=stubs.auth(tok), timeout=T)
        made[mover.name] += 1
    loser.board.Resign(stubs.pb.ResignRequest(), metadata=stubs.auth(refs[loser.name].token),
                       timeout=T)
    return _events(stream)


def _rating(c, name):
    """(rating, rated games) in kalah, or None before any rated game."""
    st = c.lobby.GetPlayerStats(stubs.pb.GetPlayerStatsRequest(name=name), timeout=T)
    got = [(r.rating.value, r.rating.games) for r in st.ratings if r.kind == "kalah"]
    return got[0] if got else None


def same_address(bindir):
    """The issue's farm: two accounts from one address, rated games of one
    move each, the loser resigning. No rating moves, and each game says why
    as it starts and as it ends. Before: alice went up with every game (1662
    after the first)."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob")
        for i in range(FARM_GAMES):
            started, over, ratings = _play(alice, bob, 1)
            check("took their seats from the same address" in started,
                  f"farm game {i + 1}: GameStarted does not say why it is not rated: "
                  f"{started!r}")
            check(over == started and not ratings,
                  f"farm game {i + 1}: GameOver: unrated {over!r}, ratings {ratings}")
        for name in ("alice", "bob"):
            check(_rating(alice, name) is None,
                  f"{name}'s rating changed in the farm: {_rating(alice, name)}")
        print(f"  {FARM_GAMES} farm games from one address: no rating changed; "
              f"GameStarted said: {started}")
    _with(bindir, body)


def _sign_in_again(w, name, source="127.0.0.1"):
    """name's account signed in on a new connection from source."""
    c = w.connect(name, source)
    c.sign_in(name)
    return c


def same_address_after_restart(bindir):
    """Seats taken from one address, then kill -9 and a restart before the
    game starts (its players had not said ready): the addresses come back
    with the game, and it starts unrated all the same. Before they were
    kept, the restarted game counted."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob")
        game = alice.lobby.CreateGame(stubs.pb.CreateGameRequest(kind="kalah", rated=True),
                                      metadata=alice.md(), timeout=T).game
        refs = [c.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                 metadata=c.md(), timeout=T) for c in (alice, bob)]
        w.close()
        w.clients, w.forwarders = [], []
        w.restart()
        again = _sign_in_again(w, "alice")
        # Both come back (a stream each), then say ready: the game starts.
        streams = [again.board.Subscribe(stubs.pb.SubscribeRequest(), metadata=stubs.auth(r.token),
                                         timeout=T) for r in refs]
        try:
            for r in refs:
                again.board.Ready(stubs.pb.ReadyRequest(ready=True), metadata=stubs.auth(r.token),
                                  timeout=T)
            started = next((ev.game_started for ev in streams[0]
                            if ev.WhichOneof("body") == "game_started"), None)
        finally:
            for call in streams:
                call.cancel()
        check(started is not None, "the game did not start after the restart")
        check("took their seats from the same address" in started.unrated,
              f"after a restart, GameStarted.unrated is {started.unrated!r}")
        print(f"  after a restart: {started.unrated}")
    _with(bindir, body)


def rematch_same_address(bindir):
    """A rematch seats its players again (the service does, not a JoinGame
    from their address): from one address it is unrated too."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob")
        game = _rated_game(alice)
        refs = [c.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=game.game_id),
                                 metadata=c.md(), timeout=T) for c in (alice, bob)]
        watching = _subscribe(bob, refs[1])     # keeps the finished game for its rematch
        bob.board.Resign(stubs.pb.ResignRequest(), metadata=stubs.auth(refs[1].token), timeout=T)
        alice.board.Rematch(stubs.pb.RematchRequest(), metadata=stubs.auth(refs[0].token),
                            timeout=T)
        again = bob.board.Rematch(stubs.pb.RematchRequest(), metadata=stubs.auth(refs[1].token),
                                  timeout=T).board
        check(again.game_id and again.game_id != game.game_id, f"no rematch: {again}")
        call = bob.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=1),
                                   metadata=stubs.auth(again.token), timeout=T)
        try:
            started = next((ev.game_started for ev in call
                            if ev.WhichOneof("body") == "game_started"), None)
        finally:
            call.cancel()
            watching.cancel()
        check(started is not None and "took their seats from the same address" in started.unrated,
              f"the rematch's GameStarted: {started}")
    _with(bindir, body)


def too_short(bindir):
    """From two addresses, a rated game of one move each is not rated (it
    says so at its end); one of two moves each is."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob", "127.0.0.2")
        started, over, ratings = _play(alice, bob, 1)
        check(started == "", f"a game from two addresses was unrated at its start: {started!r}")
        check("too short" in over and "made 1 move;" in over and not ratings,
              f"a game of one move each: GameOver unrated {over!r}, ratings {ratings}")
        check(_rating(alice, "alice") is None, "alice was rated for a game of one move each")
        print(f"  one move each: {over}")
        started, over, ratings = _play(alice, bob, 2)
        check(over == "" and len(ratings) == 2,
              f"a game of two moves each: unrated {over!r}, ratings {ratings}")
        check(_rating(alice, "alice") == (1662, 1),
              f"alice after a rated win: {_rating(alice, 'alice')}")
        print("  two moves each: rated, alice 1500 -> 1662")
    _with(bindir, body)


def pair_limit(bindir):
    """alice (127.0.0.1) and bob (127.0.0.2) play rated games of two moves
    each: 3 count, the 4th is unrated as it starts, and after a restart the
    5th still is (the count is the database's). carol may still play alice
    rated."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob", "127.0.0.2")
        for i in range(3):
            started, over, ratings = _play(alice, bob, 2)
            check(started == "" and over == "" and len(ratings) == 2,
                  f"rated game {i + 1} of the pair: {started!r} {over!r} {ratings}")
        check(_rating(alice, "alice")[1] == 3, f"alice after 3: {_rating(alice, 'alice')}")
        before = _rating(alice, "alice")
        started, over, ratings = _play(alice, bob, 2)
        check("have played 3 rated games together in the last 24 hours" in started
              and not ratings, f"the 4th game of the pair: {started!r}, ratings {ratings}")
        check(_rating(alice, "alice") == before,
              f"alice's rating moved in the 4th game: {before} -> {_rating(alice, 'alice')}")
        print(f"  4th game: {started}")
        w.close()
        w.clients, w.forwarders = [], []
        w.restart()
        alice, bob = _sign_in_again(w, "alice"), _sign_in_again(w, "bob", "127.0.0.2")
        started, over, ratings = _play(alice, bob, 2)
        check("have played 3 rated games" in started and not ratings,
              f"after a restart, the 5th game of the pair: {started!r}, ratings {ratings}")
        carol = w.client("carol", "127.0.0.3")
        started, over, ratings = _play(carol, alice, 2)
        check(started == "" and len(ratings) == 2, f"carol against alice: {started!r} {ratings}")
        print("  after a restart the pair is still unrated; carol and alice are rated")
    _with(bindir, body)


def report(bindir):
    """`sungka-board --rating-report`: the pairs with the most rated games,
    the accounts whose points came mostly from one opponent, and the pairs
    whose games were not rated, and why."""
    def body(w):
        alice, bob = w.client("alice"), w.client("bob", "127.0.0.2")
        carol, dave = w.client("carol", "127.0.0.3"), w.client("dave", "127.0.0.3")
        for _ in range(4):
            _play(alice, bob, 2)               # 3 rated, the 4th past the limit
        _play(carol, alice, 2)                 # rated: alice's only loss
        for _ in range(2):
            _play(carol, dave, 1)              # one address: not rated
        _play(bob, carol, 1)                   # two addresses, but too short
        # read while the service runs, as an operator would
        out = subprocess.run([os.path.join(w.env.bindir, "sungka-board"), "--rating-report",
                              *w.env.dbs.argv(["--db", w.db])], env=w.env.env,
                             capture_output=True, text=True, timeout=60)
        check(out.returncode == 0, f"--rating-report failed: {out.returncode} {out.stderr}")
        lines = out.stdout.splitlines()
        print("\n".join(f"  | {line}" for line in lines))

        def section(title):
            i = next((k for k, line in enumerate(lines) if line.startswith(title)), None)
            check(i is not None, f"no section '{title}' in the report:\n{out.stdout}")
            rows = []
            for line in lines[i + 1:]:
                if not line.startswith("  "):
                    break
                rows.append(line.split())
            return rows
        check(section("Pairs of accounts with the most rated games")
              == [["alice", "bob", "3"], ["alice", "carol", "1"]],
              "the pairs with the most rated games")
        # "alice +NNN of +NNN points from bob in 3 won games"
        gains = {row[0]: (row[6], row[8]) for row in
                 section("Accounts that won at least half their rating points")}
        check(gains == {"alice": ("bob", "3"), "carol": ("alice", "1")},
              f"the accounts whose points came from one opponent: {gains}")
        check(section("Pairs not rated: seats taken from the same address")
              == [["carol", "dave", "2"]], "the same-address pairs")
        check(section("Pairs not rated: past their rated games of the day")
              == [["alice", "bob", "1"]], "the pairs past their limit")
        check(section("Pairs not rated: too short") == [["bob", "carol", "1"]],
              "the games too short")
        for db, code, said in ((":memory:", 2, "--rating-report needs a database"),
                               (os.path.join(w.env.state_dir, "none.db"), 1,
                                "No such file or directory")):
            bad = subprocess.run([os.path.join(w.env.bindir, "sungka-board"), "--rating-report",
                                  "--db", db], env=w.env.env, capture_output=True, text=True,
                                 timeout=60)
            check(bad.returncode == code and said in bad.stderr,
                  f"--rating-report --db {db}: {bad.returncode} {bad.stderr!r}")
    _with(bindir, body)


def text_view(bindir):
    """The text view tells its player, as the game starts and at its end,
    that a rated game between two accounts of one address changes no
    rating."""
    with Env(bindir) as env:
        board = env.board("--db", os.path.join(env.state_dir, "farm.db"))
        people = {}
        for name in ("alice", "bob"):
            p = env.player(name, "--server", board.address, "--state-dir",
                           os.path.join(env.state_dir, name), ready=False)
            p.expect(r"^You are in the lobby")
            for line in (f"register {name}", "correct horse", "correct horse"):
                p.send(line)
            p.expect(rf"^Account {name} created\. Signed in\.")
            people[name] = p
        alice, bob = people["alice"], people["bob"]
        alice.send("new kalah rated")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob.send(f"join {game}")
        for p in (alice, bob):
            p.send("ready")
        said = (r"^This game is not rated: alice and bob took their seats from the same "
                r"address\.$")
        for p in (alice, bob):
            p.expect(r"^The game starts")
            p.expect(said)
        alice.send("resign")
        alice.send("resign")
        bob.expect(r"^Game over: alice resigned")
        bob.expect(said)
        for p in (alice, bob):
            p.quit()


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (same_address, same_address_after_restart,
                                           rematch_same_address, too_short, pair_limit, report,
                                           text_view)}))
