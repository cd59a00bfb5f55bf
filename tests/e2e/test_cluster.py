#!/usr/bin/env python3
"""test_cluster.py — board services as the nodes of a cluster on one
PostgreSQL database (issue 18): any node lists and joins every game, a game
lives on the node that made it, and when that node dies another adopts the
game while the agents follow by themselves. Needs the tests' PostgreSQL
server (SUNGKA_TEST_PG_URL_FILE, the ctest fixture pg)."""
import contextlib
import glob
import os
import re
import shutil
import signal
import tempfile
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, Failure, check, main  # noqa: E402
from e2e_util import (_raw_game, await_moves, check_replay, check_same_ending,  # noqa: E402
                      clocks, line_after, moves_seen)
import wire  # noqa: E402

LEASE_S = 3
# The tests that wait for the node to give a statement up shorten the wait
# with the session's statement_timeout, which its deadline for an answer
# follows (store_pg.c: 3 s past it, 8 s with the default 5 s), and
# connect_timeout: PostgreSQL URI parameters, as an operator would set them.
QUICK_TIMEOUTS = "connect_timeout=2&options=-c%20statement_timeout%3D2s"


def _cluster(env, n):
    """n nodes sharing one database, each with a short lease."""
    if not env.dbs.url:
        raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
    db = os.path.join(env.state_dir, "cluster.db")    # one database, named by the path
    return db, [env.board("--db", db, "--lease", str(LEASE_S), "--grace", "60")
                for _ in range(n)]


def _status(env, bindir, db):
    """sungka-board --cluster-status's lines, by endpoint: (state, games)."""
    out = subprocess.run([os.path.join(bindir, "sungka-board"), "--cluster-status",
                          *env.board_args("--db", db)], capture_output=True, text=True,
                         env=env.env, timeout=30)
    check(out.returncode == 0, f"--cluster-status: {out.returncode} {out.stderr}")
    rows = {}
    for line in out.stdout.splitlines()[1:]:
        f = line.split()
        rows.setdefault(f[1], []).append((f[2], int(f[-1])))
    return rows


def _listed(address):
    """ListGames of one node: {game id: endpoint}."""
    client = wire.Client(address)
    try:
        code, reply = client.raw("/sungka.v1.Register/ListGames", wire.message())
    finally:
        client.close()
    check(code == "OK", f"ListGames at {address}: {code} {reply}")
    return {wire.first_string(g, 1): (wire.get(g, 14) or b"").decode()
            for g in (v for n, v in wire.fields(reply) if n == 1)}


def three_nodes(bindir):
    """A game made through one node is listed by the others with its node's
    endpoint; players joining through other nodes are sent to it; its moves
    are played there."""
    with Env(bindir) as env:
        db, (a, b, c) = _cluster(env, 3)
        alice = env.player("alice", "--server", a.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        for node in (a, b, c):
            listed = _listed(node.address)
            check(listed.get(game) == a.address,
                  f"{node.address} lists {listed}, not game {game} at {a.address}")
        bob = env.player("bob", "--server", b.address, "--game", game)
        watcher = env.player("watcher", "--server", c.address, "--game", game, "--observe")
        watcher.expect(r"^You are observing\.")
        auto = Autoplayer(env, [alice, bob], seed=3)
        auto.play_to_end()
        watcher.expect(r"^Game over:")
        check(moves_seen(watcher) == moves_seen(alice) == moves_seen(bob),
              "the agents saw different moves")
        a.expect_stderr(r"game \S+ over:")
        for node in (b, c):
            check(not any(f"game {game} over" in l for l in node.err_lines),
                  f"{node.address} played a game it does not host:\n" + node.dump())
        rows = _status(env, bindir, db)
        check(all(rows[n.address][-1][0] == "live" for n in (a, b, c)), f"status: {rows}")
        for p in (alice, bob, watcher):
            p.quit()


def failover(bindir):
    """kill -9 of the node hosting a running game: another node adopts it
    within the lease and a few seconds; the players and the watcher follow
    by themselves (their --server names every node) and resume after the
    last event they saw: no acknowledged move is lost and none is seen
    twice; the game ends the same for all, its recorded moves exactly those
    seen. The killed node, started again, hosts the game no more."""
    with Env(bindir) as env:
        db, (a, b, c) = _cluster(env, 3)
        every = ",".join(n.address for n in (a, b, c))
        alice = env.player("alice", "--server", every, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", every, "--game", game)
        watcher = env.player("watcher", "--server", every, "--game", game, "--observe")
        watcher.expect(r"^You are observing\.")
        auto = Autoplayer(env, [alice, bob], seed=13)
        auto.play_moves(6)
        await_moves(watcher, 6)                   # the sixth move is stored and sent
        before = moves_seen(watcher)
        killed = time.monotonic()
        a.p.send_signal(signal.SIGKILL)
        a.p.wait(5)
        for p in (alice, bob, watcher):
            p.wait_for(r"^Reconnected to ", timeout=LEASE_S + 20)
        took = time.monotonic() - killed
        check(took < LEASE_S + 10, f"the agents came back only after {took:.1f} s")
        adopter = next((n for n in (b, c)
                        if any("adopted from a node that stopped" in l for l in n.err_lines)),
                       None)
        check(adopter, "no node adopted the game\n" + env.dump_all())
        # Started again at its address, the dead node has nothing of it.
        a2 = env.board("--db", db, "--lease", str(LEASE_S), port=a.port)
        check(_listed(a2.address).get(game) == adopter.address,
              f"the restarted node lists {_listed(a2.address)}")
        auto.play_to_end()
        watcher.expect(r"^Game over:")
        seen = check_same_ending([watcher, alice, bob])
        check(seen[:len(before)] == before, "moves seen before the kill changed")
        check_replay(alice, game, len(seen))
        for p in (alice, bob, watcher):
            p.quit()


def late_node_fenced(bindir):
    """A node frozen past its lease (SIGSTOP) loses its game to another; when
    it wakes, its first write for the game is refused by the database (the
    node's id no longer owns it), it lets the game go, and it sends its
    players on to the new host."""
    with Env(bindir) as env:
        db, (a, b) = _cluster(env, 2)
        every = f"{a.address},{b.address}"
        alice = env.player("alice", "--server", every, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", every, "--game", game)
        auto = Autoplayer(env, [alice, bob], seed=5)
        auto.play_moves(4)
        await_moves(alice, 4)
        a.p.send_signal(signal.SIGSTOP)
        try:
            b.expect_stderr(r"adopted from a node that stopped: 1 unfinished game",
                            timeout=LEASE_S + 15)
            for p in (alice, bob):
                p.wait_for(r"^Reconnected to ", timeout=20)
        finally:
            a.p.send_signal(signal.SIGCONT)
        # Woken, the frozen node still holds the game in memory: its next
        # event (a ping, a departure) is refused, and it lets the game go.
        a.expect_stderr(r"game \S+: another node has it now", timeout=LEASE_S + 15)
        check(_listed(a.address).get(game) == b.address, "the woken node still lists it")
        auto.play_to_end()
        check(moves_seen(alice) == moves_seen(bob), "the players saw different moves")
        for p in (alice, bob):
            p.quit()


def bots_and_clocks(bindir):
    """A game with clocks against a service bot, its node killed: the node
    that adopts it starts the bot again, which moves; the player's clock
    goes on from where the last move left it, the outage charged to
    nobody."""
    with Env(bindir) as env:
        db, (a, b) = _cluster(env, 2)
        every = f"{a.address},{b.address}"
        me = env.player("me", "--server", every, "--new", "kalah", "--clock", "1+0",
                        "--bots", "1", "--bot-level", "2")
        me.expect(r"^The game starts")
        a.expect_stderr(r"bot bot-1 \(level 2\) started", timeout=15)
        auto = Autoplayer(env, [me], seed=4)
        auto.play_moves(1)
        # Our turn, the bot has moved: nothing is on its way.
        before, running = clocks(line_after(me, r"^bot-1 played", r"^Clocks: "))
        check(running == "me", f"my clock should run: {before}, {running}")
        a.p.send_signal(signal.SIGKILL)
        a.p.wait(5)
        b.expect_stderr(r"adopted from a node that stopped: 1 unfinished game",
                        timeout=LEASE_S + 15)
        adopted = time.monotonic()             # my clock runs from the adoption on
        b.expect_stderr(r"bot bot-1 \(level 2\) started", timeout=15)
        me.wait_for(r"^Reconnected to ", timeout=20)
        deadline = time.monotonic() + 10
        while True:
            me.cursor = len(me.lines)
            me.send("board")
            after, running_after = clocks(me.expect(r"^Clocks: ").string)
            expected = before["me"] - (time.monotonic() - adopted)
            if after["me"] >= expected - 1.5 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        check(running_after == "me" and after["bot-1"] == before["bot-1"] and
              after["me"] >= expected - 1.5,
              f"clocks before the kill {before}, after {after} ({running_after} running), "
              f"mine expected about {expected:.1f} s\n" + me.dump())
        # Play on from our turn, which was said before the kill (the view
        # says it once): the Autoplayer answers that line.
        mark = len(me.lines)
        me.cursor = max(i for i, l in enumerate(me.lines[:mark]) if l.startswith("Your turn"))
        auto.moving.clear()                    # our one move was seen played before the kill
        deadline = time.monotonic() + 60
        while not any(l.startswith("bot-1 played") for l in me.lines[mark:]):
            check(time.monotonic() < deadline, "the bot did not move after the failover\n" +
                  env.dump_all())
            auto.play_moves(1, timeout=60)
        me.quit()


def health_follows_database(bindir):
    """A node whose database stops answering says so to health checks
    (NOT_SERVING) once it cannot renew its lease, keeps running, and answers
    a seat token it cannot place "try again". On a PostgreSQL server of the
    test's own, which it stops."""
    with Env(bindir) as env, OwnPg("sungka_health") as pg:
        node = env.board("--db", pg.url, "--lease", str(LEASE_S))
        client = wire.Client(node.address)
        health = "/grpc.health.v1.Health/Check"
        code, reply = client.raw(health, b"")
        check(code == "OK" and wire.get(reply, 1) == 1, f"healthy: {code} {reply}")
        pg.stop()
        deadline = time.monotonic() + LEASE_S + 10
        while True:
            code, reply = client.raw(health, b"")
            if code == "OK" and wire.get(reply, 1) == 2:
                break
            check(time.monotonic() < deadline, f"still {code} {reply}\n" + node.dump())
            time.sleep(0.2)
        node.expect_stderr(r"cannot renew the lease", timeout=5)
        check(node.p.poll() is None, "the node died with its database")
        # A seat token it does not know, which the database cannot place:
        # a moment to wait, not an unknown token (that ends an agent's
        # seat for good: it was answered so during failovers).
        code, reason, text = client.reason("/sungka.v1.Board/GetBoard", b"",
                                           token="ab" * 16)
        check(code == "UNAVAILABLE" and reason == "GAME_MOVING",
              f"an unplaceable token was answered {code} {reason}: {text}")
        client.close()


class OwnPg:
    """A PostgreSQL server of the test's own, which it may stop or freeze
    (pg_server.sh in a directory its user may go to): .url names database
    `name` on it, .datadir its data; stopped and removed at the end, thawed
    first if frozen."""

    def __init__(self, name):
        here = os.path.dirname(os.path.abspath(__file__))
        self.top = tempfile.mkdtemp(prefix="sungka-pg-")
        os.chmod(self.top, 0o755)    # the server's own user (postgres, as root) goes there
        self.dir = os.path.join(self.top, "pg")
        self.datadir = os.path.join(self.dir, "data")
        self.script = os.path.join(here, "..", "pg", "pg_server.sh")
        self.frozen = []
        subprocess.run([self.script, "start", self.dir], check=True, capture_output=True,
                       timeout=120)
        with open(os.path.join(self.dir, "url")) as f:
            self.url = f.read().strip().rsplit("/", 1)[0] + "/" + name

    def stop(self, check_rc=True):
        subprocess.run([self.script, "stop", self.dir], check=check_rc, capture_output=True,
                       timeout=120)

    def freeze(self):
        self.frozen = _pg_processes(self.datadir)
        for pid in self.frozen:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self):
        for pid in self.frozen:
            os.kill(pid, signal.SIGCONT)
        self.frozen = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.thaw()
        self.stop(check_rc=False)
        shutil.rmtree(self.top, ignore_errors=True)
        return False

def _pg_processes(datadir):
    """The postmaster of the server of datadir and all its children."""
    with open(os.path.join(datadir, "postmaster.pid")) as f:
        master = int(f.readline())
    out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True)
    return [master] + [int(p) for p in out.stdout.split()]


def health_off_the_loop(bindir):
    """Health is answered even while the service's loop is stuck: with its
    PostgreSQL server frozen (SIGSTOP, a server that accepts connections and
    never answers), the node's loop waits inside a statement, and a health
    check still gets NOT_SERVING at once instead of waiting with everything
    else (it timed out: asked of the loop, health could not say the loop was
    stuck). The log says the loop stopped turning, and that it turns again
    while the server is still frozen (the statement given up); health says
    SERVING again after the thaw."""
    with Env(bindir) as env, OwnPg("sungka_stall") as pg:
        node = env.board("--db", f"{pg.url}?{QUICK_TIMEOUTS}", "--lease", str(LEASE_S),
                         "--stall-limit", "1500")
        client = wire.Client(node.address)
        health = "/grpc.health.v1.Health/Check"
        code, reply = client.raw(health, b"", timeout=5)
        check(code == "OK" and wire.get(reply, 1) == 1, f"healthy: {code} {reply}")
        pg.freeze()
        # The lease is renewed every LEASE_S/3 s: the loop is inside a
        # statement soon after, and stuck there.
        node.expect_stderr(r"loop has not turned for \d+ ms", timeout=LEASE_S + 10)
        answers = []
        for _ in range(3):
            code, reply = client.raw(health, b"", timeout=2)
            answers.append((code, wire.get(reply, 1) if code == "OK" else reply))
        check(all(a == ("OK", 2) for a in answers),
              f"health while the loop is stuck: {answers} (expected NOT_SERVING, 2)\n" +
              node.dump())
        # What the loop answers waits: the loop is stuck indeed.
        code, reply = client.raw("/sungka.v1.Register/ListGames", wire.message(),
                                 timeout=2)
        check(code == "DEADLINE_EXCEEDED", f"ListGames while stuck: {code} {reply}")
        # Still frozen, the loop gives the statement up and turns again
        # (5 s for an answer, 2 s more after a cancel, 2 s to connect):
        # the cancel request, which a frozen server never answers either,
        # held it until the thaw.
        node.expect_stderr(r"loop turns again after \d+ ms", timeout=25)
        pg.thaw()
        deadline = time.monotonic() + LEASE_S + 15
        while True:
            code, reply = client.raw(health, b"", timeout=5)
            if code == "OK" and wire.get(reply, 1) == 1:
                break
            check(time.monotonic() < deadline, f"not serving again: {code} {reply}\n" +
                  node.dump())
            time.sleep(0.2)
        check(node.p.poll() is None, "the node died with its frozen database")
        client.close()


def relay_pings_each_host(bindir):
    """A relay watching games on two nodes answers each game's pings to that
    game's host. (It answered them through whichever node it last talked
    to, which sent them on elsewhere: with no fault at all, the host took
    the relay for departed every few seconds and its watchers lagged.)"""
    with Env(bindir) as env:
        if not env.dbs.url:
            raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        db = os.path.join(env.state_dir, "cluster.db")
        a, b = [env.board("--db", db, "--lease", str(LEASE_S), "--grace", "60",
                          "--ping-interval", "1", "--ping-timeout", "3") for _ in range(2)]
        relay = env.relay(f"{a.address},{b.address}")
        alice = env.player("alice", "--server", a.address, "--new", "kalah")
        game_a = alice.expect(r"Created game (\d+)").group(1)
        carol = env.player("carol", "--server", b.address, "--new", "kalah")
        game_b = carol.expect(r"Created game (\d+)").group(1)
        watchers = [env.player(f"w{g}", "--server", relay.address, "--game", g, "--observe")
                    for g in (game_a, game_b)]
        for w in watchers:
            w.expect(r"^You are observing\.")
        time.sleep(8)                            # more than twice the ping timeout
        for node in (a, b):
            gone = [l for l in node.err_lines if re.search(r"relay-\S* departed", l)]
            check(not gone, f"a node took the relay for departed: {gone}\n" + env.dump_all())
        for p in [alice, carol] + watchers:
            p.quit()


FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def sessions_on_the_database_clock(bindir):
    """A node whose clock runs 31 days ahead expires sessions when the
    database's clock says they expire, as the other nodes do. (Each node used
    its own clock: that node deleted every session of the cluster, all of
    them valid for 30 days.)"""
    import test_accounts as accounts
    if not os.path.exists(FAKETIME):
        raise Failure(f"{FAKETIME} is missing: install the faketime package")
    with Env(bindir) as env:
        if not env.dbs.url:
            raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        accounts.generate(os.path.join(env.state_dir, "stubs"))
        db = os.path.join(env.state_dir, "cluster.db")
        a = env.board("--db", db, "--lease", str(LEASE_S))
        alice = accounts.Client(a.address)
        alice.create("alice")
        ahead = {"LD_PRELOAD": FAKETIME, "FAKETIME": "+31d", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                 "ASAN_OPTIONS": "verify_asan_link_order=0:detect_leaks=0"}
        b = env.board("--db", db, "--lease", str(LEASE_S), env=ahead)
        time.sleep(3)                            # its first sweep of expired sessions
        check(not any("expired sessions forgotten" in l for l in b.err_lines),
              "the node 31 days ahead forgot sessions:\n" + b.dump())
        game = accounts.new_kalah(alice)         # her session still opens the lobby
        check(game.game_id, "no game")
        bob = accounts.Client(b.address)
        bob.create("bob")                        # made on the ahead node: valid on the others
        carol_view = accounts.Client(a.address)
        carol_view.session = bob.session
        accounts.new_kalah(carol_view)
        for c in (alice, bob, carol_view):
            c.close()


def lookups_limited(bindir):
    """Unknown seat tokens sent to a cluster's node cost it a database query
    each, on its loop: one address may have --client-lookups of them looked
    up a second; past that they are refused LIMIT_REACHED at once. (They
    were looked up without limit: ~4,000 queries a second from one client.)"""
    with Env(bindir) as env:
        db, (a, b) = _cluster(env, 2)
        client = wire.Client(a.address)
        try:
            codes = {}
            for i in range(120):
                code, reason, text = client.reason("/sungka.v1.Board/GetBoard", b"",
                                                   token=f"{i:032x}")
                codes[(code, reason)] = codes.get((code, reason), 0) + 1
            limited = codes.get(("RESOURCE_EXHAUSTED", "LIMIT_REACHED"), 0)
            check(limited >= 120 - 50 - 10, f"unknown tokens were looked up freely: {codes}")
            check(codes.get(("UNAUTHENTICATED", "UNKNOWN_TOKEN"), 0) >= 40,
                  f"the first ones were not looked up: {codes}")
        finally:
            client.close()


def subscribe_many_elsewhere(bindir):
    """A SubscribeMany subscription for a game another node hosts ends
    UNAVAILABLE ELSEWHERE naming that node, as Subscribe with its token
    does; this node's own subscriptions on the call are served. (It ended
    UNKNOWN_TOKEN, which tells an agent its seat is gone for good.)"""
    with Env(bindir) as env:
        db, (a, b) = _cluster(env, 2)
        here, there = wire.Client(a.address), wire.Client(b.address)
        try:
            _, (mine, _) = _raw_game(here)
            _, (theirs, _) = _raw_game(there)
            stream = here.stream("/sungka.v1.Board/SubscribeMany",
                                 wire.message((1, wire.message((1, theirs))),
                                              (1, wire.message((1, mine)))), timeout=30)
            ended, served = None, False
            for m in stream:
                end = wire.get(m, 3)
                if end is not None and wire.get(end, 1, 0) == 0:
                    ended = (wire.get(end, 2, 0), wire.get(end, 3, b"").decode(),
                             wire.get(end, 4, b"").decode())
                elif end is None and 1 in wire.repeated(m, 1):
                    served = True
                if ended and served:
                    break
            stream.cancel()
            check(ended and ended[:2] == (14, "ELSEWHERE") and b.address in ended[2],
                  f"the other node's subscription ended {ended}, not UNAVAILABLE (14) "
                  f"ELSEWHERE at {b.address}")
            check(served, "this node's own subscription was not served")
        finally:
            here.close()
            there.close()


class PgServer:
    """A PostgreSQL server of the test's own in top/NAME (initdb, or a base
    backup of another as its streaming standby), run by the user postgres
    when the tests run as root."""

    def __init__(self, top, name, primary=None, sync=True):
        self.dir = os.path.join(top, name)
        self.bindir = max(glob.glob("/usr/lib/postgresql/*/bin"),
                          key=lambda d: int(d.split("/")[-2]))
        self.port = _free_port()
        if primary is None:
            self._as_owner("initdb", "-D", self.dir, "-A", "trust", "-U", "postgres",
                           "-E", "UTF8", "--locale=C", "--no-sync")
        else:
            self._as_owner("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port),
                           "-U", "postgres", "-D", self.dir, "-R", "-X", "stream")
        # The primary acknowledges only once the standby has it: a promotion
        # loses nothing. The standby, promoted, has no standby to wait for.
        self.options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                        f"-c unix_socket_directories='{top}' -c synchronous_commit=on "
                        "-c max_connections=100")
        if primary is None and sync:
            self.options += " -c synchronous_standby_names='*'"

    def _as_owner(self, program, *args, check_rc=True):
        argv = [os.path.join(self.bindir, program), *args]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if check_rc and r.returncode != 0:
            raise Failure(f"{program} failed: {r.stdout}{r.stderr}")
        return r

    def start(self):
        self._as_owner("pg_ctl", "-D", self.dir, "-l", self.dir + ".log", "-w", "-t", "60",
                       "-o", self.options, "start")

    def kill(self):
        self._as_owner("pg_ctl", "-D", self.dir, "-m", "immediate", "-w", "stop",
                       check_rc=False)

    def promote(self):
        self._as_owner("pg_ctl", "-D", self.dir, "-w", "promote")

    def psql(self, sql, db="postgres"):
        r = self._as_owner("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                           "-d", db, "-At", "-c", sql, check_rc=False)
        return r.stdout.strip()


def _free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _pg_servers(prefix):
    """A directory the PostgreSQL user may write, and a list to put the
    servers made there in: each is killed, and the directory removed, at
    the end."""
    top = tempfile.mkdtemp(prefix=prefix)
    os.chmod(top, 0o755)
    if os.geteuid() == 0:
        shutil.chown(top, "postgres")
    servers = []
    try:
        yield top, servers
    finally:
        for server in reversed(servers):
            server.kill()
        shutil.rmtree(top, ignore_errors=True)


@contextlib.contextmanager
def _synchronous_pair():
    """A primary and its synchronous standby, started: (primary, standby)
    once the standby is synchronous; both killed at the end."""
    with _pg_servers("sungka-ha-") as (top, servers):
        primary = PgServer(top, "primary")
        servers.append(primary)
        primary.start()
        standby = PgServer(top, "standby", primary=primary)
        servers.append(standby)
        standby.start()
        deadline = time.monotonic() + 30
        while primary.psql("SELECT sync_state FROM pg_stat_replication") != "sync":
            check(time.monotonic() < deadline, "the standby never became synchronous")
            time.sleep(0.2)
        yield primary, standby

def standby_promoted(bindir):
    """The cluster's PostgreSQL with a synchronous standby; the primary is
    killed between two moves and the standby promoted by hand: the nodes,
    whose URI names both hosts (target_session_attrs=read-write), follow the
    new primary by themselves, every acknowledged move is there, and the game
    plays to its end."""
    with Env(bindir) as env:
        with _synchronous_pair() as (primary, standby):
            url = (f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
                   "/sungka_ha?target_session_attrs=read-write")
            a, b = [env.board("--db", url, "--lease", str(LEASE_S), "--grace", "60")
                    for _ in range(2)]
            every = f"{a.address},{b.address}"
            alice = env.player("alice", "--server", every, "--new", "kalah")
            game = alice.expect(r"Created game (\d+)").group(1)
            bob = env.player("bob", "--server", every, "--game", game)
            auto = Autoplayer(env, [alice, bob], seed=21)
            auto.play_moves(6)
            await_moves(bob, 6)
            before = moves_seen(bob)
            lost = time.monotonic()
            primary.kill()
            standby.promote()
            # Both nodes renew their leases on the new primary (a statement
            # that finds its connection lost connects again, to whichever host
            # takes writes, and runs again when no transaction was open).
            time.sleep(1)
            deadline = time.monotonic() + LEASE_S + 20
            while any(_renewing(node) for node in (a, b)):
                check(time.monotonic() < deadline,
                      "the nodes did not follow the new primary\n" + env.dump_all())
                time.sleep(0.3)
            print(f"the nodes followed the promoted standby in {time.monotonic() - lost:.1f} s")
            auto.play_to_end()
            seen = check_same_ending([alice, bob])
            check(seen[:len(before)] == before, "moves acknowledged before the loss changed")
            check_replay(alice, game, len(seen))
            for p in (alice, bob):
                p.quit()


def unconfirmed_commit_not_served(bindir):
    """A move whose COMMIT the synchronous standby never confirmed (the
    standby is down: the node cancels the wait, the primary keeps the commit
    alone) is refused, and not shown afterwards either: the node reads the
    game's log again only once a commit of its own is confirmed. Then the
    primary dies and the standby, which never had that move, is promoted: no
    one saw the move, and the game plays on from the moves both held. (The
    node read the primary's log at once and showed the move; after the
    promotion it was gone and its number went to another move.)"""
    with Env(bindir) as env:
        with _synchronous_pair() as (primary, standby):
            url = (f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
                   f"/sungka_unconfirmed?target_session_attrs=read-write&{QUICK_TIMEOUTS}")
            node = env.board("--db", url, "--lease", str(LEASE_S), "--grace", "120")
            alice = env.player("alice", "--server", node.address, "--new", "kalah")
            game = alice.expect(r"Created game (\d+)").group(1)
            bob = env.player("bob", "--server", node.address, "--game", game)
            auto = Autoplayer(env, [alice, bob], seed=5)
            auto.play_moves(4)
            await_moves(bob, 4)
            await_moves(alice, 4)
            before = moves_seen(bob)
            standby.kill()
            auto.play_moves(1)                 # its COMMIT waits for the standby
            node.expect_stderr(r"did not confirm the statement in time", timeout=30)
            # Time enough to read the log again and show it, had it not waited.
            node.expect_stderr(r"cannot renew the lease", timeout=30)
            time.sleep(3)
            for p in (alice, bob):
                while p.next_line(0.05) is not None:
                    pass
                check(moves_seen(p) == before,
                      f"{p.name} was shown a move the standby does not hold:\n" + p.dump())
            primary.kill()
            standby.start()
            standby.promote()
            # The game goes on from the moves the promoted standby holds, once
            # the node reloaded it (until then a move is refused "try again")
            # and the agents came back to it.
            node.expect_stderr(rf"game {game} reloaded from its stored log", timeout=60)
            for p in (alice, bob):
                p.expect(r"^Reconnected to ", timeout=60)
                p.expect(r"^(\S+: )?(Your turn|Waiting for)", timeout=30)
                p.cursor -= 1                  # the Autoplayer reads that prompt
            auto.moving.clear()
            auto.play_to_end(timeout=120)
            seen = check_same_ending([alice, bob])
            check(seen[:len(before)] == before, "moves acknowledged before the loss changed")
            check_replay(alice, game, len(seen))
            for p in (alice, bob):
                p.quit()

def went_back_in_time(bindir):
    """An asynchronous standby, stopped while the primary goes on: moves are
    acknowledged and a game is made that only the primary holds. Then the
    game's node is frozen, the primary dies and the standby is promoted:
    the database has gone back in time, and the frozen node's last lease
    renewals are gone with it, so its lease has run out there. The other
    node sees the new history and adopts nothing for a while, and the game
    it makes meanwhile gets an id never given before; the frozen node,
    woken within that while, finds its game's stored log short of what it
    sent and stops it for good, and its other game gone. (The other node
    adopted the game from the shorter log, to number on from its end, and
    its next game's id was below the lost game's: that id was to be given
    again.)"""
    with Env(bindir) as env:
        with _pg_servers("sungka-async-") as (top, servers):
            primary = PgServer(top, "primary", sync=False)
            servers.append(primary)
            primary.start()
            standby = PgServer(top, "standby", primary=primary)
            servers.append(standby)
            standby.start()
            url = (f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
                   "/sungka_async?target_session_attrs=read-write&connect_timeout=2")
            a, b = [env.board("--db", url, "--lease", str(LEASE_S), "--grace", "120")
                    for _ in range(2)]
            alice = env.player("alice", "--server", f"{a.address},{b.address}", "--new", "kalah")
            game = alice.expect(r"Created game (\d+)").group(1)
            bob = env.player("bob", "--server", f"{a.address},{b.address}", "--game", game)
            auto = Autoplayer(env, [alice, bob], seed=7)
            auto.play_moves(4)
            await_moves(bob, 4)
            deadline = time.monotonic() + 30
            while standby.psql("SELECT pg_last_wal_replay_lsn() >= '"
                               + primary.psql("SELECT pg_current_wal_lsn()") + "'") != "t":
                check(time.monotonic() < deadline, "the standby never caught up")
                time.sleep(0.2)
            kept = int(primary.psql(f"SELECT max(seq) FROM events WHERE game_id = '{game}'",
                                    "sungka_async"))
            standby.kill()
            auto.play_moves(3)                 # acknowledged by the primary alone
            await_moves(bob, 7)
            # As 40 games made meanwhile would (a sequence is logged 32 ahead).
            primary.psql("SELECT nextval('game_ids') FROM generate_series(1, 40)",
                         "sungka_async")
            carol = env.player("carol", "--server", a.address, "--new", "kalah")
            lost_game = carol.expect(r"Created game (\d+)").group(1)
            time.sleep(LEASE_S + 1)            # a's lease as the standby has it runs out
            a.p.send_signal(signal.SIGSTOP)
            try:
                primary.kill()
                standby.start()
                standby.promote()
                b.expect_stderr(r"another history|adopted from a node that stopped",
                                timeout=30)
                changed = time.monotonic()     # b adopts nothing for its grace from here
                dave = env.player("dave", "--server", b.address, "--new", "kalah")
                made = dave.expect(r"Created game (\d+)").group(1)
                check(int(made) > int(lost_game),
                      f"game id {made} given after the failover, not past {lost_game}, the "
                      "last one given before\n" + b.dump())
            finally:
                a.p.send_signal(signal.SIGCONT)
            a.expect_stderr(rf"game {game}: the database went back in time .*its stored log "
                            rf"ends at event {kept} and lost events {kept + 1} to", timeout=30)
            a.expect_stderr(rf"game {game}: its stored log has lost events it sent", timeout=10)
            a.expect_stderr(rf"game {lost_game}: the database went back in time .*before the "
                            "game was made", timeout=10)
            # Past the adopters' wait (a lease and a third and 5 s from the
            # change b saw, then a tick): nobody carries the game on.
            time.sleep(max(0.0, changed + LEASE_S * 4 / 3 + 7 - time.monotonic()))
            check(not any("adopted from a node that stopped" in line for line in b.err_lines),
                  "the other node adopted a game from the shorter log\n" + b.dump())
            row = standby.psql(f"SELECT status, (SELECT max(seq) FROM events WHERE game_id = "
                               f"'{game}') FROM games WHERE id = '{game}'", "sungka_async")
            check(row == f"4|{kept}",
                  f"game {game} is stored as (status|last event) {row}, not stopped (4) at "
                  f"event {kept}\n" + env.dump_all())


def primary_waits_for_nobody(bindir):
    """The database hangs: its primary waits for a synchronous standby there
    is none of (a promoted standby that kept the setting), so no COMMIT
    returns. The node cancels what gets no answer within seconds instead of
    freezing, says NOT_SERVING and lives on; when the setting is put right it
    serves again by itself. (It froze with no log line, health unanswered.)"""
    with Env(bindir) as env:
        with _pg_servers("sungka-hung-") as (top, servers):
            server = PgServer(top, "primary", sync=False)
            servers.append(server)
            server.start()
            url = f"postgresql://postgres@127.0.0.1:{server.port}/sungka_hung?{QUICK_TIMEOUTS}"
            node = env.board("--db", url, "--lease", str(LEASE_S))
            check(not _renewing(node), "not serving at the start")
            server.psql("ALTER SYSTEM SET synchronous_standby_names = '*'")
            server.psql("SELECT pg_reload_conf()")
            deadline = time.monotonic() + 30
            while not _renewing(node, timeout=5):
                check(time.monotonic() < deadline, "the node never said NOT_SERVING\n" +
                      node.dump())
                time.sleep(0.5)
            check(node.p.poll() is None, "the node died")
            node.expect_stderr(r"did not confirm the statement in time", timeout=5)
            server.psql("ALTER SYSTEM RESET synchronous_standby_names")
            server.psql("SELECT pg_reload_conf()")
            deadline = time.monotonic() + 30
            while _renewing(node, timeout=5):
                check(time.monotonic() < deadline, "the node did not serve again\n" +
                      node.dump())
                time.sleep(0.5)


def _renewing(node, timeout=None):
    """Whether the node is not serving: its last lease renewal failed
    (health: NOT_SERVING), or it did not answer."""
    client = wire.Client(node.address)
    try:
        code, reply = client.raw("/grpc.health.v1.Health/Check", b"", timeout=timeout or 10)
        return not (code == "OK" and wire.get(reply, 1) == 1)
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main({"three_nodes": three_nodes, "failover": failover,
                   "late_node_fenced": late_node_fenced, "bots_and_clocks": bots_and_clocks,
                   "health_follows_database": health_follows_database,
                   "health_off_the_loop": health_off_the_loop,
                   "relay_pings_each_host": relay_pings_each_host,
                   "sessions_on_the_database_clock": sessions_on_the_database_clock,
                   "standby_promoted": standby_promoted,
                   "unconfirmed_commit_not_served": unconfirmed_commit_not_served,
                   "primary_waits_for_nobody": primary_waits_for_nobody,
                   "went_back_in_time": went_back_in_time,
                   "lookups_limited": lookups_limited,
                   "subscribe_many_elsewhere": subscribe_many_elsewhere}))
