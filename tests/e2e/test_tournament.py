#!/usr/bin/python3
"""test_tournament.py — tournaments (tournament.proto; docs/rules.md,
"Tournaments") across a kill -9 of the service.

A stock Python gRPC client (python3-grpcio, stubs protoc compiles from our
sungka.proto and tournament.proto, as test_block.py does) talks to a real
sungka-board on loopback with its store (SQLite; PostgreSQL when the suite
runs there). Each player is a thread of the test: it watches the tournament
with its player token and plays every game the updates seat it in, a legal
move whenever it is its turn (GetBoard, Move), and it reconnects when the
service comes back.

arena: 6 guests in an arena of 10 s of kalah (4 cups, 2 stones). Once some
games have ended and others are being played, the players stop, the service
is killed (-9) and started again on the same store and port; the players go
on. Checked: the tournament and its games come back (ids, points, its end
unchanged: the clock went on), games are made after the restart, and at the
end every standing's points are the sum of its games' points, each game's
points what the rules give for the result the service stored (GetMatch): a
win 2, doubled after two wins in a row, a draw 1, a loss 0.

round_robin: 4 guests in a round robin of kalah; the service is killed in
its second round. Checked: the round goes on after the restart (round 1's
games kept), 3 rounds of 2 games, each pair meets exactly once, each
player once a round, points 2 per game in all; standings as the games say.
Also the refusals: an unknown tournament, a wrong player token, a fifth
player, a name taken, leaving a started round robin, a third tournament
from one address (--client-tournaments); --tournaments=operator refuses
Create without the admin token and takes it with one.

swiss: a Swiss tournament of 6 in 3 rounds: nobody meets twice, winners meet
winners; --metrics counts the tournaments by state, their players and games.
drawn_tables: a round robin of tables of three (tictactoe for 3), 4 players:
one table drawn each round, placement points as the stored results give.
text_view: the text view's tournaments, tournament new/join and standings;
its history shows the tournament of each match and the player's place, and
so does sungka-player --history.
Usage: test_tournament.py BINDIR TEST.
"""
import importlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402

T = 15.0
KALAH = (("cups", 4), ("stones", 2))
tpb = tpb_grpc = None


def generate(out):
    """sungka.proto's stubs (test_accounts.generate), then tournament.proto's."""
    global tpb, tpb_grpc
    stubs.generate(out)
    r = subprocess.run(["protoc", f"--python_out={out}", f"--grpc_out={out}",
                        "--plugin=protoc-gen-grpc=" + stubs.shutil.which("grpc_python_plugin"),
                        "-I", stubs.PROTO_DIR, "sungka/v1/tournament.proto"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"protoc failed on tournament.proto: {r.stderr}")
    tpb = importlib.import_module("sungka.v1.tournament_pb2")
    tpb_grpc = importlib.import_module("sungka.v1.tournament_pb2_grpc")


class Conn:
    """Stubs on one channel."""

    def __init__(self, address):
        self.channel = stubs.grpc.insecure_channel(address)
        self.tour = tpb_grpc.TournamentServiceStub(self.channel)
        self.board = stubs.pb_grpc.BoardStub(self.channel)
        self.lobby = stubs.pb_grpc.RegisterStub(self.channel)

    def close(self):
        self.channel.close()


class Player(threading.Thread):
    """One player of tournament tid: watches it with its token and plays every
    game it is seated in. pause() stops it between two moves (wait_paused
    says when it has); resume() lets it go on. Survives the service's death:
    it connects again and goes on."""

    def __init__(self, address, tid, name, token, grid=False):
        super().__init__(daemon=True)
        self.grid = grid                # tictactoe: the first empty cell; else kalah's cup
        self.pause_at_round = None      # pause itself once an update shows this round
        self.address, self.tid, self.name, self.token = address, tid, name, token
        self.done = set()               # game ids played to their end
        self.last = None                # the last Tournament its stream sent
        self.finished = threading.Event()
        self.go = threading.Event()
        self.go.set()
        self.idle = threading.Event()   # paused and not in the middle of a call
        self.stop = False
        self.errors = []
        self.conn = None

    def pause(self):
        self.go.clear()

    def wait_paused(self):
        check(self.idle.wait(T), f"{self.name} did not stop")

    def resume(self):
        self.idle.clear()
        self.go.set()

    def hold(self):
        """Between two calls: wait while paused."""
        while not self.go.is_set() and not self.stop:
            self.idle.set()
            time.sleep(0.02)

    def play(self, ref):
        """Play game ref to its end. A game that ended while this player was
        not looking may be gone from the service with its tokens (nobody
        subscribed to it): that is its end too."""
        try:
            self._play(ref)
        except stubs.grpc.RpcError as e:
            if e.code() != stubs.grpc.StatusCode.UNAUTHENTICATED:
                raise
            self.done.add(ref.game_id)

    def _play(self, ref):
        md = stubs.auth(ref.token)
        me = stubs.seat(ref, "seat")
        while not self.stop:
            self.hold()
            b = self.conn.board.GetBoard(stubs.pb.GetBoardRequest(), metadata=md, timeout=T)
            if stubs.seat(b.board, "to_move") is None:     # over (seated full: started)
                self.done.add(ref.game_id)
                return
            if stubs.seat(b.board, "to_move") != me:
                time.sleep(0.01)
                continue
            cells = b.board.cells
            if self.grid:
                move = next(i for i in range(len(cells)) if cells[i] == 0)
            else:
                move = next(i for i in range(4) if cells[i] > 0)   # our row first
            try:
                self.conn.board.Move(stubs.pb.MoveRequest(move=move), metadata=md, timeout=T)
            except stubs.grpc.RpcError as e:
                if e.code() not in (stubs.grpc.StatusCode.FAILED_PRECONDITION,
                                    stubs.grpc.StatusCode.INVALID_ARGUMENT):
                    raise

    def run(self):
        while not self.stop and not self.finished.is_set():
            try:
                self.hold()
                self.conn = Conn(self.address)
                stream = self.conn.tour.WatchTournament(
                    tpb.WatchTournamentRequest(tournament_id=self.tid, player_token=self.token),
                    timeout=120)
                for u in stream:
                    self.last = u.tournament
                    if self.pause_at_round and u.tournament.round >= self.pause_at_round:
                        self.pause_at_round = None
                        self.pause()
                    if u.HasField("your_game") and u.your_game.game_id not in self.done:
                        self.play(u.your_game)
                    if self.stop:
                        break
                if self.last is not None and \
                        self.last.status == tpb.TOURNAMENT_STATUS_FINISHED:
                    self.finished.set()
            except stubs.grpc.RpcError as e:
                if e.code() != stubs.grpc.StatusCode.UNAVAILABLE:
                    self.errors.append(f"{e.code().name}: {e.details()}")
                time.sleep(0.1)
            finally:
                if self.conn:
                    self.conn.close()
                    self.conn = None


def tournament(conn, tid):
    return conn.tour.GetTournament(tpb.GetTournamentRequest(tournament_id=tid),
                                   timeout=T).tournament


def wait_for(conn, tid, pred, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            t = tournament(conn, tid)
            if pred(t):
                return t
        except stubs.grpc.RpcError:
            pass
        time.sleep(0.05)
    check(False, f"the tournament never came to {what}: {tournament(conn, tid)}")


def join_all(conn, tid, names):
    players = []
    for n in names:
        r = conn.tour.JoinTournament(tpb.JoinTournamentRequest(tournament_id=tid, name=n),
                                     timeout=T)
        check(len(r.player_token) == 32, f"{n}'s player token: {r.player_token!r}")
        players.append((n, r.player_token))
    return players


def kept(before, after):
    """after (since the restart) goes on from before: the same games first,
    each one finished before with the same points; nobody's points went
    down. A game that ended just before the kill may be scored since."""
    check([g.game_id for g in after.games][:len(before.games)] ==
          [g.game_id for g in before.games],
          f"the games changed in the restart:\n{before}\n{after}")
    for b, a in zip(before.games, after.games):
        check(not b.finished or (a.finished and list(a.points) == list(b.points)),
              f"game {b.game_id} changed in the restart: {b} / {a}")
    was = {s.name: s.points for s in before.standings}
    check(all(s.points >= was[s.name] for s in after.standings),
          f"points lost in the restart:\n{before.standings}\n{after.standings}")


def kill_and_restart(env, board, db):
    board.p.send_signal(signal.SIGKILL)
    board.p.wait(5)
    board2 = env.board("--db", db, port=board.port)
    board2.expect_stderr(r"recovered 1 tournament", timeout=15)
    return board2


def check_points(conn, t, arena):
    """Every game's points are what its stored result gives (GetMatch), the
    arena's streak rule included; every standing is the sum of its games."""
    streak = {s.name: 0 for s in t.standings}
    total = {s.name: 0 for s in t.standings}
    for g in t.games:
        check(g.finished, f"game {g.game_id} is not finished at the end: {g}")
        m = conn.lobby.GetMatch(stubs.pb.GetMatchRequest(game_id=g.game_id),
                                timeout=T).summary
        check(m.status == stubs.pb.GAME_STATUS_FINISHED, f"game {g.game_id}: {m}")
        win_names = {m.seats[w] for w in m.winners}
        for i, name in enumerate(g.players):
            if not win_names:
                want = 1                       # a draw
            elif name in win_names:
                want = 4 if arena and streak[name] >= 2 else 2
            else:
                want = 0
            check(g.points[i] == want, f"game {g.game_id}: {name} got {g.points[i]} points, "
                  f"the rules give {want} (winners {sorted(win_names)}, streak {streak[name]})")
            streak[name] = streak[name] + 1 if name in win_names else 0
            total[name] += g.points[i]
    for s in t.standings:
        check(s.points == total[s.name], f"{s.name} has {s.points} points, the games say "
              f"{total[s.name]}")
    pts = [s.points for s in t.standings]
    check(pts == sorted(pts, reverse=True), f"standings not best first: {pts}")


def arena(bindir):
    with Env(bindir) as env:
        generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", db)
        conn = Conn(board.address)
        opts = [stubs.pb.GameOption(name=n, value=v) for n, v in KALAH]
        t = conn.tour.CreateTournament(tpb.CreateTournamentRequest(
            kind="kalah", options=opts, format=tpb.TOURNAMENT_FORMAT_ARENA, seconds=10,
            max_players=6, title="Quick arena"), timeout=T).tournament
        check(t.status == tpb.TOURNAMENT_STATUS_RUNNING and t.ends_ms - t.started_ms == 10000,
              f"a new arena: {t}")
        tid, ends = t.id, t.ends_ms
        names = ["ana", "ben", "cai", "dia", "eve", "fay"]
        players = [Player(board.address, tid, n, tok) for n, tok in join_all(conn, tid, names)]
        for p in players:
            p.start()
        before = wait_for(conn, tid, lambda t: sum(g.finished for g in t.games) >= 3 and
                          any(not g.finished for g in t.games), "3 games ended, 1 running")
        for p in players:
            p.pause()
        for p in players:
            p.wait_paused()
        before = tournament(conn, tid)
        conn.close()
        board = kill_and_restart(env, board, db)
        conn = Conn(board.address)
        after = tournament(conn, tid)
        check(after.ends_ms == ends, f"the arena's end moved: {ends} -> {after.ends_ms}")
        kept(before, after)
        for p in players:
            p.address = board.address
            p.resume()
        end = wait_for(conn, tid, lambda t: t.status == tpb.TOURNAMENT_STATUS_FINISHED,
                       "its end", timeout=40)
        check(time.time() * 1000 >= ends, "the arena finished before its time")
        check(len(end.games) > len(before.games),
              f"no game was made after the restart: {len(end.games)} games")
        for g in end.games:
            check(len(g.players) == 2 and g.players[0] != g.players[1], f"a game: {g}")
        check_points(conn, end, arena=True)
        for p in players:
            check(p.finished.wait(T), f"{p.name}'s stream did not end with the arena")
            p.stop = True
            check(not p.errors, f"{p.name}: {p.errors}")
        print(f"  arena: {len(end.games)} games; standings "
              f"{[(s.name, s.points) for s in end.standings]}")
        conn.close()


def round_robin(bindir):
    with Env(bindir) as env:
        generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "board.db")
        board = env.board("--db", db)
        conn = Conn(board.address)
        opts = [stubs.pb.GameOption(name=n, value=v) for n, v in KALAH]
        t = conn.tour.CreateTournament(tpb.CreateTournamentRequest(
            kind="kalah", options=opts, format=tpb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            max_players=4), timeout=T).tournament
        tid = t.id
        check(t.status == tpb.TOURNAMENT_STATUS_WAITING, f"a new round robin: {t}")
        G = stubs.grpc.StatusCode
        stubs.refused("an unknown tournament", G.NOT_FOUND, None, conn.tour.GetTournament,
                      tpb.GetTournamentRequest(tournament_id="t999"))
        joined = join_all(conn, tid, ["ann", "bob", "cid"])
        stubs.refused("a name taken", G.ALREADY_EXISTS, "NAME_TAKEN", conn.tour.JoinTournament,
                      tpb.JoinTournamentRequest(tournament_id=tid, name="Bob"))
        joined += join_all(conn, tid, ["dan"])
        stubs.refused("a fifth player", G.FAILED_PRECONDITION, "BAD_REQUEST",
                      conn.tour.JoinTournament,
                      tpb.JoinTournamentRequest(tournament_id=tid, name="eli"))
        stubs.refused("a wrong player token", G.UNAUTHENTICATED, "UNKNOWN_TOKEN",
                      conn.tour.LeaveTournament,
                      tpb.LeaveTournamentRequest(tournament_id=tid, player_token="0" * 32))
        stubs.refused("leaving a started round robin", G.FAILED_PRECONDITION, "BAD_REQUEST",
                      conn.tour.LeaveTournament,
                      tpb.LeaveTournamentRequest(tournament_id=tid, player_token=joined[0][1]))
        listed = conn.tour.ListTournaments(tpb.ListTournamentsRequest(), timeout=T)
        check([x.id for x in listed.tournaments] == [tid], f"listed: {listed}")
        players = [Player(board.address, tid, n, tok) for n, tok in joined]
        for p in players:
            p.pause_at_round = 2        # each stops as round 2 begins
            p.start()
        for p in players:
            p.wait_paused()
        before = tournament(conn, tid)
        conn.close()
        board = kill_and_restart(env, board, db)
        conn = Conn(board.address)
        after = tournament(conn, tid)
        check(before.round == 2 and after.round == 2 and
              sum(not g.finished for g in after.games) == 2,
              f"the round robin did not go on with round 2:\n{before}\n{after}")
        kept(before, after)
        for p in players:
            p.address = board.address
            p.resume()
        end = wait_for(conn, tid, lambda t: t.status == tpb.TOURNAMENT_STATUS_FINISHED,
                       "its end", timeout=40)
        check(end.rounds == 3 and len(end.games) == 6, f"3 rounds of 2 games: {end}")
        pairs = sorted(tuple(sorted(g.players)) for g in end.games)
        check(len(set(pairs)) == 6, f"a pair met twice: {pairs}")
        for r in (1, 2, 3):
            seated = [n for g in end.games if g.round == r for n in g.players]
            check(sorted(seated) == ["ann", "bob", "cid", "dan"], f"round {r}: {seated}")
        check(sum(s.points for s in end.standings) == 12, f"points: {end.standings}")
        check_points(conn, end, arena=False)
        # Each player's history of tournaments lists it, with the standings.
        mine = conn.tour.ListTournaments(tpb.ListTournamentsRequest(player="DAN"), timeout=T)
        check([x.id for x in mine.tournaments] == [tid] and
              any(s.name == "dan" for s in mine.tournaments[0].standings),
              f"dan's tournaments: {mine}")
        none = conn.tour.ListTournaments(tpb.ListTournamentsRequest(player="zed"), timeout=T)
        check(not none.tournaments, f"zed played in no tournament: {none}")
        # ... and each of dan's matches says which tournament made it.
        ms = conn.lobby.ListMatches(stubs.pb.ListMatchesRequest(player="dan"), timeout=T).matches
        check(len(ms) == 3 and all(m.tournament_id == tid and m.tournament_title == end.title
                                   for m in ms), f"dan's matches: {ms}")
        for p in players:
            check(p.finished.wait(T), f"{p.name}'s stream did not end with the round robin")
            p.stop = True
            check(not p.errors, f"{p.name}: {p.errors}")
        # One address makes at most --client-tournaments (2) unfinished ones
        # (the finished round robin does not count).
        req = tpb.CreateTournamentRequest(kind="kalah", format=tpb.TOURNAMENT_FORMAT_ARENA,
                                          minutes=1, max_players=4)
        for _ in range(2):
            conn.tour.CreateTournament(req, timeout=T)
        stubs.refused("a third tournament from one address", G.RESOURCE_EXHAUSTED,
                      "LIMIT_REACHED", conn.tour.CreateTournament, req)
        conn.close()

        # Only the operator creates tournaments with --tournaments=operator.
        board.p.send_signal(signal.SIGTERM)
        board.p.wait(10)
        token_file = os.path.join(env.state_dir, "admin-token")   # made by the service
        board = env.board("--db", db, "--tournaments", "operator", "--admin-token-file",
                          token_file, port=board.port)
        conn = Conn(board.address)
        req = tpb.CreateTournamentRequest(kind="kalah", format=tpb.TOURNAMENT_FORMAT_ARENA,
                                          minutes=1, max_players=4)
        stubs.refused("a player's Create under --tournaments=operator", G.UNAUTHENTICATED,
                      "BAD_ADMIN_TOKEN", conn.tour.CreateTournament, req)
        with open(token_file) as f:
            tok = f.read().strip()
        t = conn.tour.CreateTournament(req, metadata=stubs.auth(tok), timeout=T).tournament
        check(t.status == tpb.TOURNAMENT_STATUS_RUNNING and t.creator == "the operator",
              f"the operator's arena: {t}")
        conn.close()


def metrics_until(board, want, what):
    """Scrape the service's --metrics until every (name, value) of want is
    on the page (the gauges are counted once a second)."""
    port = int(re.search(r"metrics on port (\d+)",
                         next(l for l in board.err_lines if "metrics on port" in l)).group(1))
    deadline = time.monotonic() + T
    while True:
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=T).read()
        page = page.decode()
        if all(re.search(rf"^{re.escape(name)} {value}$", page, re.M) for name, value in want):
            return
        if time.monotonic() > deadline:
            check(False, f"the metrics never showed {what} {want}:\n" + "\n".join(
                l for l in page.splitlines() if "tournament" in l))
        time.sleep(0.1)


def swiss(bindir):
    """A Swiss tournament of 6 kalah players in 3 rounds: each round pairs
    everyone once, nobody meets anyone twice, and from round 2 each pair is
    the nearest on points that has not met (the leaders meet first); points
    as the stored results give. A kind of more seats is refused. The
    service's metrics count the tournaments by state, their players and the
    games they made."""
    with Env(bindir) as env:
        generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--db", os.path.join(env.state_dir, "board.db"),
                          "--metrics", "127.0.0.1:0")
        board.expect_stderr(r"metrics on port \d+")
        conn = Conn(board.address)
        stubs.refused("a Swiss of tables of three", stubs.grpc.StatusCode.INVALID_ARGUMENT,
                      "BAD_REQUEST", conn.tour.CreateTournament, tpb.CreateTournamentRequest(
                          kind="tictactoe", format=tpb.TOURNAMENT_FORMAT_SWISS,
                          options=[stubs.pb.GameOption(name="players", value=3)],
                          max_players=6))
        opts = [stubs.pb.GameOption(name=n, value=v) for n, v in KALAH]
        t = conn.tour.CreateTournament(tpb.CreateTournamentRequest(
            kind="kalah", options=opts, format=tpb.TOURNAMENT_FORMAT_SWISS, rounds=3,
            max_players=6), timeout=T).tournament
        names = ["ana", "ben", "cai", "dia", "eve", "fay"]
        metrics_until(board, [('sungka_tournaments{state="waiting"}', 1),
                              ("sungka_tournament_players", 0)], "a Swiss waiting")
        players = [Player(board.address, t.id, n, tok)
                   for n, tok in join_all(conn, t.id, names)]
        metrics_until(board, [('sungka_tournaments{state="running"}', 1),
                              ('sungka_tournaments{state="waiting"}', 0),
                              ("sungka_tournament_players", 6)], "a Swiss of 6 running")
        for p in players:
            p.start()
        end = wait_for(conn, t.id, lambda t: t.status == tpb.TOURNAMENT_STATUS_FINISHED,
                       "its end", timeout=40)
        check(end.rounds == 3 and len(end.games) == 9, f"3 rounds of 3 games: {end}")
        metrics_until(board, [('sungka_tournaments{state="finished"}', 1),
                              ('sungka_tournaments{state="running"}', 0),
                              ("sungka_tournament_players", 0),
                              ("sungka_tournament_games_total", 9)], "the Swiss finished")
        pairs = [tuple(sorted(g.players)) for g in end.games]
        check(len(set(pairs)) == 9, f"a pair met twice: {pairs}")
        for r in (1, 2, 3):
            seated = sorted(n for g in end.games if g.round == r for n in g.players)
            check(seated == sorted(names), f"round {r}: {seated}")
        # Round 2: the two who won in round 1 with the most points... each
        # round-1 winner meets a round-1 winner when one is left unmet.
        won1 = {g.players[i] for g in end.games if g.round == 1
                for i in range(2) if g.points[i] == 2}
        if len(won1) == 3:              # no draw in round 1
            both = sum(set(g.players) <= won1 for g in end.games if g.round == 2)
            check(both == 1, f"round 2 did not pair the winners together: {end.games}")
        check_points(conn, end, arena=False)
        for p in players:
            p.stop = True
        conn.close()


def drawn_tables(bindir):
    """A round robin of tables of three (tictactoe for 3 on a 3x3 board), 4
    players, 3 rounds: each round one table drawn afresh, whoever does not
    fit sits out; each seat scores one point per player placed below it
    (first of three 2, last 0), as its stored result says."""
    with Env(bindir) as env:
        generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--db", os.path.join(env.state_dir, "board.db"))
        conn = Conn(board.address)
        opts = [stubs.pb.GameOption(name=n, value=v)
                for n, v in (("size", 3), ("dims", 2), ("players", 3))]
        t = conn.tour.CreateTournament(tpb.CreateTournamentRequest(
            kind="tictactoe", options=opts, format=tpb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            rounds=3, max_players=4), timeout=T).tournament
        check(t.seats == 3, f"tables of three: {t}")
        players = [Player(board.address, t.id, n, tok, grid=True)
                   for n, tok in join_all(conn, t.id, ["ann", "bob", "cid", "dan"])]
        for p in players:
            p.start()
        end = wait_for(conn, t.id, lambda t: t.status == tpb.TOURNAMENT_STATUS_FINISHED,
                       "its end", timeout=40)
        check(end.rounds == 3 and len(end.games) == 3 and
              [g.round for g in end.games] == [1, 2, 3], f"3 rounds of one table: {end}")
        total = {n: 0 for n in ("ann", "bob", "cid", "dan")}
        for g in end.games:
            check(len(set(g.players)) == 3, f"a table of three: {g}")
            m = conn.lobby.GetMatch(stubs.pb.GetMatchRequest(game_id=g.game_id),
                                    timeout=T).summary
            key = {m.seats[s]: (s in m.winners, m.scores[s]) for s in range(len(m.seats))}
            for i, name in enumerate(g.players):
                want = sum(key[o] < key[name] for o in g.players if o != name)
                check(g.points[i] == want, f"game {g.game_id}: {name} got {g.points[i]}, its "
                      f"place gives {want} ({key})")
                total[name] += want
        for s in end.standings:
            check(s.points == total[s.name], f"{s.name}: {s.points} points, games {total}")
        for p in players:
            p.stop = True
        conn.close()


def text_view(bindir):
    """The text view's commands: ann makes a round robin of two (tournament
    new), both see it (tournaments), join it and are seated in its game
    (tournament join, the standings printed as they come), play it; joining
    again follows the standings to the end (it has finished), and standings
    shows the result; a kept place the service no longer knows is forgotten
    at the first join, and the next joins afresh."""
    with Env(bindir) as env:
        board = env.board("--db", os.path.join(env.state_dir, "board.db"))
        ann = env.player("ann", "--server", board.address)
        bob = env.player("bob", "--server", board.address)
        ann.send("tournament new roundrobin kalah max=2 cups=4 stones=2")
        tid = ann.expect(r"^Tournament (t\d+) created: tournament join").group(1)
        bob.send("tournaments")
        bob.expect(rf"^{tid}\s+Kalah.* round robin: round robin of kalah, waiting for players, "
                   r"0 of 2 players")
        ann.send(f"tournament join {tid}")
        ann.expect(rf"^Standings of {tid}, .*\(waiting for players\):")
        bob.send(f"tournament join {tid}")
        game = bob.expect(rf"^Your game in tournament {tid}: game (\d+)\.").group(1)
        ann.expect(rf"^Your game in tournament {tid}: game {game}\.")
        Autoplayer(env, [ann, bob], seed=3).play_to_end()
        # Watching again: the standings as they change, to the end.
        ann.send(f"tournament join {tid}")
        ann.expect(rf"^Tournament {tid} has finished\.")
        ann.send(f"standings {tid}")
        ann.expect(rf"^Standings of {tid}, .*\(finished\):")
        first = ann.expect(r"^\s+1\. (\w+)\s+(\d+) points,\s+1 games")
        second = ann.expect(r"^\s+\d\. (\w+)\s+(\d+) points,\s+1 games")
        check(int(first.group(2)) + int(second.group(2)) == 2 and
              {first.group(1), second.group(1)} == {"ann", "bob"},
              f"the standings after one game: {first.group(0)} / {second.group(0)}")
        # A tournament's result in the player's history: the match says its
        # tournament, and the tournament ann's place and points.
        place, points = (1, first.group(2)) if first.group(1) == "ann" else \
            (1 if first.group(2) == second.group(2) else 2, second.group(2))
        ann.send("history")
        ann.expect(rf"^Match {game}: kalah, \d+ moves: .* In tournament {tid}, Kalah[^,]* "
                   r"round robin\.$")
        ann.expect(rf"^Tournament {tid}, Kalah[^,]* round robin \(finished\): ann placed "
                   rf"{place} of 2 with {points} points\.$")
        # The same lines from sungka-player --history, which prints and exits.
        r = subprocess.run([os.path.join(bindir, "sungka-player"), "--name", "zed", "--server",
                            board.address, "--history", "ann"], env=env.env,
                           capture_output=True, text=True, timeout=T)
        check(r.returncode == 0 and
              f"In tournament {tid}, " in r.stdout and
              f"ann placed {place} of 2 with {points} points." in r.stdout,
              f"sungka-player --history ann: {r.returncode}\n{r.stdout}{r.stderr}")
        # A kept place the service no longer knows (its database replaced
        # behind the same address): the first join says why and forgets it,
        # the next joins afresh.
        ann.send("tournament new roundrobin kalah max=2 cups=4 stones=2")
        stale = ann.expect(r"^Tournament (t\d+) created").group(1)
        ann.send(f"tournament join {stale}")
        ann.expect(rf"^Standings of {stale}, .*\(waiting for players\):")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        board = env.board("--db", os.path.join(env.state_dir, "fresh.db"), port=board.port)
        for _ in range(int(stale[1:])):
            ann.send("tournament new roundrobin kalah max=2 cups=4 stones=2")
            ann.expect(r"^Tournament t\d+ created", timeout=T)
        ann.send(f"tournament join {stale}")
        ann.expect(r"not a player token of this tournament")
        ann.send(f"tournament join {stale}")
        ann.expect(rf"^Standings of {stale}, .*\(waiting for players\):")
        bob.quit()     # ann waits in the tournament (the text view's wait blocks): Env stops her


if __name__ == "__main__":
    sys.exit(main({"arena": arena, "round_robin": round_robin, "drawn_tables": drawn_tables,
                   "swiss": swiss, "text_view": text_view}))
