#!/usr/bin/python3
"""test_durability.py — the board service while its store stalls: another
program holds the database's lock (e2e_util.StoreLock: a second connection,
on SQLite the file's write lock, on PostgreSQL the events table) while the
players of a running game move and chat through a stock Python gRPC client
(test_fair_play_grpc.Game). Nothing is acknowledged or sent that was not
stored, a client that gives up on a stalled call harms nobody, and the
stored log stays whole, so the game comes back after a crash.
Usage: test_durability.py BINDIR TEST (ctest runs one process per test).
"""
import os
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
from e2e_util import StoreLock  # noqa: E402
from test_fair_play_grpc import Game  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, auth)
import wire  # noqa: E402

T = 15.0
SETTLE = 10.0      # how long streams and calls may take to agree, at most
# The players never answer pings; long silences under a held lock must not
# make them departed (an event to store).
QUIET = ("--ping-timeout", "600", "--grace", "60")


def _start(env, name):
    """Stubs, a service on a database file of this test's, and a running kalah
    game of alice and bob (on PostgreSQL the database named after the file)."""
    stubs.generate(os.path.join(tempfile.mkdtemp(dir=env.state_dir), "stubs"))
    db = os.path.join(env.state_dir, name)
    board = env.board("--db", db, *QUIET)
    g = Game(board.address)
    for who in ("alice", "bob"):
        g.wait(who, "game_started")
    return db, board, g


def _logged(g, who):
    """The logged events name's stream got (no snapshot, no pings)."""
    return [e for e in list(g.events[who]) if e.seq > 0]


def _last_seq(g, who):
    seqs = [e.seq for e in _logged(g, who)]
    return max(seqs) if seqs else 0


def _moves(g, who):
    """(seq, seat, move) of every MoveMade name's stream got."""
    return [(e.seq, e.move_made.seat, e.move_made.move) for e in _logged(g, who)
            if e.WhichOneof("body") == "move_made"]


def _stream_board(g, who):
    """The board as name's stream last told it: the last MoveMade's, else
    GameStarted's (both unrotated)."""
    for e in reversed(_logged(g, who)):
        kind = e.WhichOneof("body")
        if kind == "move_made":
            return e.move_made.board
        if kind == "game_started":
            return e.game_started.board
    return None


def _board(g):
    """GetBoard as alice: seat 0's view is the board unrotated."""
    return g.do("alice", "GetBoard", stubs.pb.GetBoardRequest()).board


def _same(a, b):
    return (a is not None and b is not None and list(a.cells) == list(b.cells) and
            stubs.seat(a, "to_move") == stubs.seat(b, "to_move"))


def _show(b):
    return "none" if b is None else f"{list(b.cells)} to move {stubs.seat(b, 'to_move')}"


def _legal(board):
    """(name, cup) for each cup the seat to move may play on a kalah board."""
    seat = stubs.seat(board, "to_move")
    cups = len(board.cells) // 2 - 1
    return [(["alice", "bob"][seat], c) for c in range(cups)
            if board.cells[seat * (cups + 1) + c] > 0]


def _move(g, who, cup, timeout=T):
    """Move; returns ("OK", seq) or (code name, sungka-error-reason)."""
    try:
        r = g.board.Move(stubs.pb.MoveRequest(move=cup), metadata=stubs.auth(g.token[who]),
                         timeout=timeout)
        return "OK", r.seq
    except stubs.grpc.RpcError as e:
        return e.code().name, dict(e.trailing_metadata() or ()).get("sungka-error-reason")


def _await_move(g, seq, seat, cup):
    """Both streams get MoveMade `seq` by seat of cup, and nothing else
    logged after the one before it."""
    deadline = time.monotonic() + SETTLE
    while not all(any(m[0] == seq for m in _moves(g, w)) for w in ("alice", "bob")):
        check(time.monotonic() < deadline,
              f"MoveMade {seq} did not come: alice {_moves(g, 'alice')}, bob {_moves(g, 'bob')}")
        time.sleep(0.05)
    for w in ("alice", "bob"):
        check((seq, seat, cup) in _moves(g, w),
              f"{w}'s MoveMade {seq} is not seat {seat}'s cup {cup}: {_moves(g, w)}")


def _play_one(g):
    """The seat to move plays its first legal cup (no lock held): it is
    answered, and both streams get its MoveMade, numbered right after the
    last event they had. Returns that seq."""
    before = max(_last_seq(g, "alice"), _last_seq(g, "bob"))
    board = _board(g)
    who, cup = _legal(board)[0]
    code, seq = _move(g, who, cup)
    check(code == "OK", f"{who}'s move of cup {cup} after the stall: {code} {seq}")
    check(seq == before + 1, f"{who}'s move is event {seq}, but the last one sent was {before}")
    _await_move(g, seq, stubs.seat(board, "to_move"), cup)
    return seq


def _health(address):
    client = wire.Client(address)
    try:
        code, reply = client.raw("/grpc.health.v1.Health/Check", b"", timeout=T)
    finally:
        client.close()
    return code, (wire.get(reply, 1) if code == "OK" else reply)


def _alive(board, what):
    """The service still runs and says SERVING."""
    rc = board.p.poll()
    if rc is not None:
        how = f"killed by signal {-rc} ({signal.Signals(-rc).name})" if rc < 0 else f"exit {rc}"
        check(False, f"sungka-board died ({how}) {what}\n" + board.dump())
    code, status = _health(board.address)
    check(code == "OK" and status == 1, f"health Check {what}: {code} {status} (1 is SERVING)")


def _fresh_snapshot(g):
    """The service's own account of the game now (its board, unrotated, and
    the last logged seq): the snapshot that a new subscription of an
    observer, the auditor, begins with. The auditor joins once per Game and
    stays: each subscription replaces the one before, so that no departure
    is stored, perhaps under the next lock."""
    if "auditor" not in g.token:
        _fresh_snapshot.n = getattr(_fresh_snapshot, "n", 0) + 1
        ref = g.lobby.JoinGame(stubs.pb.JoinGameRequest(game_id=g.id, observe=True,
                                                        name=f"auditor{_fresh_snapshot.n}"),
                               timeout=T)
        g.token["auditor"] = ref.token
    events = []
    call = g.board.Subscribe(stubs.pb.SubscribeRequest(),
                             metadata=stubs.auth(g.token["auditor"]))
    g.calls["auditor"] = call                    # Game.close ends it
    threading.Thread(target=g._gather, args=(call, events), daemon=True).start()
    deadline = time.monotonic() + T
    while not events:
        check(time.monotonic() < deadline, "the auditor's subscription brought no snapshot")
        time.sleep(0.02)
    check(events[0].WhichOneof("body") == "snapshot",
          f"the auditor's subscription began with {events[0].WhichOneof('body')}")
    return events[0].snapshot


def _agree(g, what):
    """Both players' streams, GetBoard and a fresh snapshot tell the same
    game: the same board, the same last event and the same moves."""
    deadline = time.monotonic() + SETTLE
    while True:
        now = _board(g)
        streams = {w: _stream_board(g, w) for w in ("alice", "bob")}
        if all(_same(b, now) for b in streams.values()) and \
                _last_seq(g, "alice") == _last_seq(g, "bob"):
            break
        if time.monotonic() > deadline:
            check(False, f"{what}: the streams and GetBoard disagree on what was played: "
                         f"GetBoard {_show(now)}; alice's stream {_show(streams['alice'])} "
                         f"(last seq {_last_seq(g, 'alice')}); bob's stream "
                         f"{_show(streams['bob'])} (last seq {_last_seq(g, 'bob')})")
        time.sleep(0.05)
    check(_moves(g, "alice") == _moves(g, "bob"),
          f"{what}: alice and bob saw different moves: {_moves(g, 'alice')} "
          f"{_moves(g, 'bob')}")
    snap = _fresh_snapshot(g)
    check(_same(snap.board, now) and snap.last_seq == _last_seq(g, "alice"),
          f"{what}: a fresh snapshot says {_show(snap.board)} after seq {snap.last_seq}, "
          f"the streams {_show(now)} after seq {_last_seq(g, 'alice')}")


def cancelled_move_stall(bindir):
    """A Move whose client gives up (a short deadline) while the service is
    stalled in the store, the stall then ending so that the move is stored:
    the service lives on (it crashed in rpc_server.c's maybe_release, which
    called the call's done callback after the turn hook, answering that very
    move, had cleared it), says SERVING, and the players' streams, GetBoard
    and a fresh snapshot agree on whether the move was played; play goes on.
    Three times, the lock let go at different moments of the stall."""
    with Env(bindir) as env:
        db, board, g = _start(env, "stall.db")
        # SQLite: the service's BEGIN waits out at most its busy timeout (1 s),
        # so the lock goes before that: after the client's 0.3 s, within the
        # stall. PostgreSQL: the service waits for the lock as long as it is
        # held (no lock_timeout here), 2-3 s.
        releases = (2.0, 2.5, 3.0) if env.dbs.url else (0.5, 0.65, 0.8)
        with StoreLock(env, db) as lock:
            for attempt, release in enumerate(releases, 1):
                what = f"after cancelled stalled move {attempt}"
                who, cup = _legal(_board(g))[0]
                moves_before = len(_moves(g, "alice"))
                lock.take()
                started = time.monotonic()
                code, _ = _move(g, who, cup, timeout=0.3)
                check(code == "DEADLINE_EXCEEDED",
                      f"attempt {attempt}: the move under the lock was answered {code} within "
                      f"its 0.3 s deadline: the store did not stall it")
                time.sleep(max(0.0, started + release - time.monotonic()))
                lock.release()
                time.sleep(0.3)             # the stalled call's end reaches the service
                _alive(board, what)
                _agree(g, what)
                played = len(_moves(g, "alice")) > moves_before
                print(f"note: attempt {attempt} (lock let go after {release} s): the cancelled "
                      f"move was {'played' if played else 'not played'}")
                _play_one(g)
                _agree(g, f"{what} and one move more")
        _alive(board, "at the end")
        g.close()


def unstored_event_not_sent(bindir):
    """A Chat whose event cannot be stored (the store's lock held past the
    service's wait) is refused UNAVAILABLE with the reason NOT_STORED; the
    other player never gets it and it uses up no sequence number: the next
    event is numbered right after the last one sent. (It was answered OK,
    sent to everyone and numbered, and its stored log had a hole there, so
    that after a crash the game was not recovered: "its stored log is
    damaged".) Then one move more, kill -9, and the service started again
    on the same database: the game is back with every move, the players
    resume and play on."""
    with Env(bindir) as env:
        StoreLock.give_up_after(env, 1000)
        db, board, g = _start(env, "chat.db")
        g.move_once()
        _agree(g, "before the lock")
        last = _last_seq(g, "bob")
        text = "said while the store is locked"
        with StoreLock(env, db) as lock:
            lock.take()
            try:
                g.do("alice", "Chat", stubs.pb.ChatRequest(text=text))
                refused = ("OK", None)
            except stubs.grpc.RpcError as e:
                refused = (e.code().name,
                           dict(e.trailing_metadata() or ()).get("sungka-error-reason"))
            lock.release()

        def chats(who):
            return [(e.seq, e.chat.text) for e in _logged(g, who)
                    if e.WhichOneof("body") == "chat"]
        check(refused == ("UNAVAILABLE", "NOT_STORED"),
              f"a chat that could not be stored was answered {refused[0]} (reason "
              f"{refused[1]}), not UNAVAILABLE NOT_STORED; bob's stream got {chats('bob')} "
              f"after seq {last}")
        seq = _play_one(g)              # numbered last + 1: no seq used up
        check(seq == last + 1, f"the move after the refused chat is event {seq}, not {last + 1}")
        check(not chats("bob") and not chats("alice"),
              f"a chat that was not stored was sent: alice {chats('alice')}, bob {chats('bob')}")
        _agree(g, "after the refused chat")
        played = _moves(g, "alice")
        seen = {w: _last_seq(g, w) for w in ("alice", "bob")}

        # Crash, and start again on the same database and port.
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        g.close()
        board2 = env.board("--db", db, *QUIET, port=board.port)
        board2.expect_stderr(r"recovered 1 unfinished game|stored log is damaged", timeout=15)
        check(not any("damaged" in l for l in board2.err_lines),
              "the game was not recovered after the crash\n" + board2.dump())
        # Both resume from where their streams got to; alice asks for the
        # whole log again (every event after the first) to see every move.
        g2 = Rejoined(g, board2.address, {"alice": 1, "bob": seen["bob"]})
        for w in ("alice", "bob"):
            g2.wait(w, "notice", where=lambda e: "restarted" in e.notice.text)
            for back in ("alice", "bob"):
                g2.wait(w, "player_returned",
                        where=lambda e: e.player_returned.who.name == back)
        check(not [e for e in g2.events["alice"] if e.WhichOneof("body") == "chat"],
              "the stored log has the chat that was refused")
        check(_moves(g2, "alice") == played,
              f"the log after the restart has the moves {_moves(g2, 'alice')}, "
              f"before it {played}")
        check(_same(_board(g2), _stream_board(g2, "alice")),
              f"after the restart GetBoard {_show(_board(g2))}, the log "
              f"{_show(_stream_board(g2, 'alice'))}")
        _play_one(g2)
        _agree(g2, "after the restart")
        _alive(board2, "after the restart")
        g2.close()


class Rejoined(Game):
    """The players of Game g again, on a new connection to address, each
    subscribed after after[name]; each one's events start with what their
    old stream had up to there, so that they read as the whole log."""

    def __init__(self, g, address, after):
        self.channel = stubs.grpc.insecure_channel(address)
        self.lobby = stubs.pb_grpc.RegisterStub(self.channel)
        self.board = stubs.pb_grpc.BoardStub(self.channel)
        self.id, self.events, self.calls = g.id, {}, {}
        self.token = {n: g.token[n] for n in ("alice", "bob")}
        for name in ("alice", "bob"):
            self.events[name] = [e for e in _logged(g, name) if e.seq <= after[name]]
            call = self.board.Subscribe(stubs.pb.SubscribeRequest(after_seq=after[name]),
                                        metadata=stubs.auth(self.token[name]))
            self.calls[name] = call
            threading.Thread(target=self._gather, args=(call, self.events[name]),
                             daemon=True).start()


def refused_move_not_seen(bindir):
    """A Move that cannot be stored (the store's lock held past the service's
    wait) is refused UNAVAILABLE with the reason NOT_STORED: nobody gets its
    MoveMade, the board is as before, no sequence number is used up, and
    once the lock is gone the same seat plays the same move. (A move's
    writes are one transaction that is undone when it fails, so this held
    before unstored events stopped being sent; it keeps holding.)"""
    with Env(bindir) as env:
        StoreLock.give_up_after(env, 1000)
        db, board, g = _start(env, "move.db")
        g.move_once()
        _agree(g, "before the lock")
        last = _last_seq(g, "alice")
        before = _board(g)
        who, cup = _legal(before)[0]
        with StoreLock(env, db) as lock:
            lock.take()
            got = _move(g, who, cup)
            lock.release()
        time.sleep(0.3)          # what a broadcast would have sent has come by now
        check(got == ("UNAVAILABLE", "NOT_STORED"),
              f"{who}'s move that could not be stored was answered {got}, not UNAVAILABLE "
              f"NOT_STORED")
        check(_same(_board(g), before),
              f"the board changed under a refused move: {_show(before)} -> {_show(_board(g))}")
        for w in ("alice", "bob"):
            check(_last_seq(g, w) == last,
                  f"{w} got events after the refused move: "
                  f"{[(e.seq, e.WhichOneof('body')) for e in _logged(g, w) if e.seq > last]}")
        _alive(board, "after the refused move")
        code, seq = _move(g, who, cup)
        check(code == "OK" and seq == last + 1,
              f"{who}'s move of cup {cup} again, the lock gone: {code} {seq} "
              f"(wanted OK, event {last + 1})")
        _await_move(g, seq, stubs.seat(before, "to_move"), cup)
        for w in ("alice", "bob"):
            after = [m for m in _moves(g, w) if m[0] > last]
            check(after == [(seq, stubs.seat(before, "to_move"), cup)],
                  f"{w}'s moves after seq {last}: {after}, only the one played again wanted")
        _agree(g, "after the move played again")
        g.close()


def _psql(env, dbname, sql):
    """One query on the tests' PostgreSQL server, its first value."""
    import subprocess
    out = subprocess.run([env.dbs.psql(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                          "-d", dbname, "-c", sql], capture_output=True, text=True,
                         timeout=30, env=dict(os.environ, PGOPTIONS=""))
    check(out.returncode == 0, f"psql {sql}: {out.stderr}")
    return out.stdout.strip()


def _unread(pid, port):
    """Bytes waiting in the receive queue of backend pid's socket (ss)."""
    import subprocess
    out = subprocess.run(["ss", "-tnpH", "state", "established", f"( sport = :{port} )"],
                         capture_output=True, text=True, timeout=10)
    for line in out.stdout.splitlines():
        if f"pid={pid}," in line:
            return int(line.split()[0])
    return 0


def session_killed_mid_commit(bindir):
    """PostgreSQL: a turn's BEGIN and its move's event go out together in
    one pipeline; the node's database session, frozen (SIGSTOP) so that
    they wait in its socket unanswered, is killed (pg_terminate_backend)
    and let go. The Move is refused UNAVAILABLE with NOT_STORED, nobody gets
    its MoveMade, nothing of it is stored, and the same seat then plays the
    same move on a new session."""
    import urllib.parse
    with Env(bindir) as env:
        check(bool(env.dbs.url), "needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        db, board, g = _start(env, "killed.db")
        g.move_once()
        _agree(g, "before the session is killed")
        last = _last_seq(g, "alice")
        before = _board(g)
        who, cup = _legal(before)[0]
        url = env.dbs.db(db)
        name = urllib.parse.urlparse(url).path.lstrip("/")
        port = urllib.parse.urlparse(url).port
        stored = f"SELECT count(*) FROM events WHERE game_id = '{g.id}'"
        kept = _psql(env, url, stored)
        # the service's session (a psql just gone may linger a moment)
        pids = _psql(env, url, f"SELECT pid FROM pg_stat_activity WHERE datname = '{name}'"
                               " AND application_name = 'sungka-board'").split()
        check(len(pids) == 1, f"the service should have one session, not {pids}")
        pid = int(pids[0])
        os.kill(pid, signal.SIGSTOP)
        try:
            got = []
            mover = threading.Thread(target=lambda: got.append(_move(g, who, cup)))
            mover.start()
            deadline = time.monotonic() + T
            while _unread(pid, port) == 0:        # the turn's pipeline has come
                check(time.monotonic() < deadline, "the move's pipeline never reached the "
                                                   "database session")
                time.sleep(0.02)
            _psql(env, url.rsplit("/", 1)[0] + "/postgres",
                  f"SELECT pg_terminate_backend({pid})")
        finally:
            os.kill(pid, signal.SIGCONT)
        mover.join(T + 5)
        check(got == [("UNAVAILABLE", "NOT_STORED")],
              f"{who}'s move on the killed session was answered {got}, not UNAVAILABLE "
              f"NOT_STORED")
        check(_psql(env, url, stored) == kept,
              f"events were stored from the killed turn: {kept} before, "
              f"{_psql(env, url, stored)} after")
        for w in ("alice", "bob"):
            check(_last_seq(g, w) == last,
                  f"{w} got events of the refused turn: "
                  f"{[(e.seq, e.WhichOneof('body')) for e in _logged(g, w) if e.seq > last]}")
        _alive(board, "after its session was killed")
        deadline = time.monotonic() + SETTLE
        while True:                 # a reload of the game may answer GAME_MOVING first
            code, seq = _move(g, who, cup)
            if code == "OK" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check(code == "OK" and seq == last + 1,
              f"{who}'s move of cup {cup} again, on a new session: {code} {seq} "
              f"(wanted OK, event {last + 1})")
        # The game was reloaded from its log (its streams ended with it): the
        # store has the move played again, once.
        check(int(_psql(env, url, stored)) == int(kept) + 1,
              f"stored events after the move played again: {_psql(env, url, stored)}, "
              f"wanted {int(kept) + 1}")
        g.close()


# A deferred trigger that makes the COMMIT of a transaction that stored an
# event wait while the test holds advisory lock 4242, then fail if a row is
# in hold_fail: a COMMIT held on its way for as long as the test wants.
HOLD_COMMITS = """
CREATE TABLE hold_fail (x int);
CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('lock_timeout', '0', true);
  PERFORM pg_advisory_xact_lock_shared(4242);
  IF EXISTS (SELECT 1 FROM hold_fail) THEN
    RAISE EXCEPTION 'the test fails this commit';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON events
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit();
"""


class _CommitHolder:
    """A psql session holding advisory lock 4242 until release()."""

    def __init__(self, env, url):
        import subprocess
        self.p = subprocess.Popen([env.dbs.psql(), "-X", "-q", "-At", "-d", url],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, PGOPTIONS=""))
        self.p.stdin.write("SELECT pg_advisory_lock(4242);\n")
        self.query("SELECT 'held'")

    def query(self, sql):
        """sql's one value, on this session (no psql started per query)."""
        self.p.stdin.write(f"SELECT 'begin';\n{sql};\n")
        self.p.stdin.flush()
        while self.p.stdout.readline().strip() != "begin":
            check(self.p.poll() is None, "psql holding the commits' lock ended")
        return self.p.stdout.readline().strip()

    def release(self):
        self.p.stdin.write("SELECT pg_advisory_unlock(4242);\n\\q\n")
        self.p.stdin.close()
        self.p.wait(T)


def commit_in_flight_refused(bindir):
    """PostgreSQL: a turn's COMMIT held on its way (a deferred trigger waits
    for the test's lock), and a move of another game played meanwhile: its
    turn's writes reach the database session behind the COMMIT (the loop
    did not wait for it). Released, both moves are answered and sent.
    Held again and the session killed: both moves are refused UNAVAILABLE
    NOT_STORED, nobody gets either MoveMade, nothing of them is stored,
    and both games play on. Held again and made to fail: the same, for the
    turn begun behind a failed COMMIT too."""
    import urllib.parse
    with Env(bindir) as env:
        check(bool(env.dbs.url), "needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        db, board, g1 = _start(env, "in_flight.db")
        g2 = Game(board.address)
        for who in ("alice", "bob"):
            g2.wait(who, "game_started")
        _play_one(g1)
        _play_one(g2)
        url = env.dbs.db(db)
        name = urllib.parse.urlparse(url).path.lstrip("/")
        port = urllib.parse.urlparse(url).port
        admin = url.rsplit("/", 1)[0] + "/postgres"
        _psql(env, url, HOLD_COMMITS)
        games = {"g1": g1, "g2": g2}

        def stored(g):
            return int(_psql(env, url, f"SELECT count(*) FROM events WHERE game_id = '{g.id}'"))

        def session():
            pids = _psql(env, url, f"SELECT pid FROM pg_stat_activity WHERE datname = '{name}'"
                                   " AND application_name = 'sungka-board'").split()
            check(len(pids) == 1, f"the service should have one session, not {pids}")
            return int(pids[0])

        def held_pair(how, g2_timeout=T):
            """g1's move held at its COMMIT, g2's played behind it (its
            client giving up after g2_timeout); then how(pid) lets go. Each
            mover's answer."""
            pid = session()
            # Asked first: any call but a move waits for what is on its way.
            legal = {key: _legal(_board(g))[0] for key, g in games.items()}
            holder = _CommitHolder(env, url)
            answers = {}
            movers = []
            try:
                for key in ("g1", "g2"):
                    g = games[key]
                    who, cup = legal[key]
                    wait = g2_timeout if key == "g2" else T
                    t = threading.Thread(target=lambda g=g, who=who, cup=cup, key=key, wait=wait:
                                         answers.__setitem__(key, _move(g, who, cup, wait)))
                    t.start()
                    movers.append(t)
                    deadline = time.monotonic() + T
                    if key == "g1":            # its COMMIT waits for the lock
                        while holder.query("SELECT wait_event_type FROM pg_stat_activity"
                                           f" WHERE pid = {pid}") != "Lock":
                            check(time.monotonic() < deadline,
                                  "g1's COMMIT never waited for the test's lock")
                            time.sleep(0.02)
                    else:                      # its turn's writes came behind it
                        while _unread(pid, port) == 0:   # (within CHORES_EVERY_MS)
                            check(time.monotonic() < deadline,
                                  "g2's move was not written while g1's COMMIT was on its "
                                  "way: the loop waited for it")
                            time.sleep(0.02)
                how(pid)
            finally:
                holder.release()
            for t in movers:
                t.join(T + 5)
            return answers

        def resubscribe(g):
            """The players' streams again (a reloaded game ended them)."""
            for who in ("alice", "bob"):
                g.calls[who].cancel()
                g.events[who] = []
                call = g.board.Subscribe(stubs.pb.SubscribeRequest(),
                                         metadata=stubs.auth(g.token[who]))
                g.calls[who] = call
                threading.Thread(target=g._gather, args=(call, g.events[who]),
                                 daemon=True).start()

        # Let go: both moves are answered and sent, each stored once.
        kept = {k: stored(g) for k, g in games.items()}
        last = dict(kept)                       # an event's seq is its place in the log
        got = held_pair(lambda pid: None)
        for k, g in games.items():
            check(got[k] == ("OK", last[k] + 1), f"{k}'s held move was answered {got[k]}, "
                                                  f"not OK {last[k] + 1}")
            check(stored(g) == kept[k] + 1, f"{k}: {stored(g)} events stored, wanted "
                                            f"{kept[k] + 1}")
            _agree(g, f"{k} after its held move")

        # g2's client gives up while g1's COMMIT is held and g2's move waits
        # behind it: once let go, both are stored and sent; g1's mover is
        # answered, g2's is gone, and the service goes on.
        kept = {k: stored(g) for k, g in games.items()}
        got = held_pair(lambda pid: time.sleep(1.5), g2_timeout=0.5)
        check(got["g1"] == ("OK", kept["g1"] + 1), f"g1's held move was answered {got['g1']}")
        check(got["g2"][0] == "DEADLINE_EXCEEDED", f"g2's mover gave up, yet got {got['g2']}")
        for k, g in games.items():
            check(stored(g) == kept[k] + 1, f"{k}: {stored(g)} events stored after a mover gave "
                                            f"up, wanted {kept[k] + 1}")
            _agree(g, f"{k} after a held move whose mover gave up")
        _alive(board, "after a mover gave up behind a held COMMIT")

        def refused(what, how, settle):
            kept = {k: stored(g) for k, g in games.items()}
            last = dict(kept)
            got = held_pair(how)
            settle()
            for k, g in games.items():
                check(got[k] == ("UNAVAILABLE", "NOT_STORED"),
                      f"{what}: {k}'s move was answered {got[k]}, not UNAVAILABLE NOT_STORED")
                check(stored(g) == kept[k], f"{what}: {k} has {stored(g)} events stored, "
                                            f"{kept[k]} before")
                for w in ("alice", "bob"):
                    check(_last_seq(g, w) <= last[k],
                          f"{what}: {w} of {k} got events of a refused move: "
                          f"{[(e.seq, e.WhichOneof('body')) for e in _logged(g, w)]}")
            _alive(board, what)
            for k, g in games.items():          # each game plays on, once reloaded
                deadline = time.monotonic() + SETTLE
                while True:
                    who, cup = _legal(_board(g))[0]
                    code, seq = _move(g, who, cup)
                    if code == "OK" or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                check(code == "OK" and seq == last[k] + 1,
                      f"{what}: {k}'s next move: {code} {seq} (wanted OK {last[k] + 1})")
                check(stored(g) == kept[k] + 1, f"{what}: {k} has {stored(g)} events stored, "
                                                f"wanted {kept[k] + 1}")
                resubscribe(g)
                deadline = time.monotonic() + SETTLE
                while _last_seq(g, "alice") < seq or _last_seq(g, "bob") < seq:
                    check(time.monotonic() < deadline, f"{what}: {k}'s streams again did not "
                                                       f"reach event {seq}")
                    time.sleep(0.05)

        refused("the session killed",
                lambda pid: _psql(env, admin, f"SELECT pg_terminate_backend({pid})"),
                lambda: None)
        _psql(env, url, "INSERT INTO hold_fail VALUES (1)")
        refused("the COMMIT failed", lambda pid: None,
                lambda: _psql(env, url, "DELETE FROM hold_fail"))
        g1.close()
        g2.close()


TESTS = {f.__name__: f for f in (
    cancelled_move_stall, unstored_event_not_sent, refused_move_not_seen,
    session_killed_mid_commit, commit_in_flight_refused)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
