#!/usr/bin/python3
"""test_metrics.py — the board service's metrics (--metrics HOST:PORT, GET /metrics):
the counters move by what was done, the page is Prometheus's text format, and a
real Prometheus server scrapes it.

Real sungka-board, sungka-player and prometheus processes on loopback. Usage:
test_metrics.py BINDIR TEST (ctest runs one process per test).
"""
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, Failure, Proc, check, main  # noqa: E402
from e2e_util import await_moves  # noqa: E402

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
                    r'(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*)\})? '
                    r'(-?[0-9.eE+-]+|\+Inf|-Inf|NaN)$')


def parse(page):
    """{(name, labels): value} of a text-format page, checking its shape as it goes:
    every sample's family has # HELP and # TYPE before it, a histogram's buckets
    are cumulative and its _count is its +Inf bucket."""
    types, samples = {}, {}
    for line in page.splitlines():
        if line.startswith("# HELP "):
            continue
        m = re.match(r"^# TYPE (\S+) (counter|gauge|histogram)$", line)
        if m:
            check(m.group(1) not in types, f"family {m.group(1)} typed twice")
            types[m.group(1)] = m.group(2)
            continue
        m = SAMPLE.match(line)
        check(m, f"not a sample line of the text format: {line!r}")
        name, labels, value = m.group(1), m.group(3) or "", float(m.group(4))
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        check(name in types or types.get(family) == "histogram",
              f"{name} has no # TYPE before it")
        check(name in types or family in types, f"{name} has no family")
        samples[(name, labels)] = value
    for family, kind in types.items():
        check(f"# HELP {family} " in page, f"{family} has no # HELP")
        if kind != "histogram":
            continue
        buckets = [(float(re.search(r'le="([^"]+)"', l).group(1).replace("+Inf", "inf")), v)
                   for (n, l), v in samples.items() if n == family + "_bucket"]
        buckets.sort()
        check(buckets and math.isinf(buckets[-1][0]), f"{family} has no +Inf bucket")
        counts = [v for _, v in buckets]
        check(counts == sorted(counts), f"{family}'s buckets are not cumulative: {buckets}")
        check(samples[(family + "_count", "")] == counts[-1],
              f"{family}_count is not its +Inf bucket")
    return samples


def scrape(port, path="/metrics"):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        check(r.headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
              f"content type {r.headers.get('Content-Type')}")
        return r.read().decode("utf-8")


def metrics_port(board):
    """The port the service says it serves metrics on (it picked one: port 0)."""
    board.expect_stderr(r"metrics on port \d+")
    with board.cond:
        line = next(l for l in board.err_lines if re.search(r"metrics on port \d+", l))
    return int(re.search(r"metrics on port (\d+)", line).group(1))


def wait_value(port, key, want, timeout=30):
    """The samples once key's value is want (a scrape shows the loop's last publish)."""
    deadline = time.monotonic() + timeout
    while True:
        s = parse(scrape(port))
        if s.get(key) == want:
            return s
        check(time.monotonic() < deadline, f"{key} is {s.get(key)}, wanted {want}")
        time.sleep(0.1)


def two_players(env, board):
    alice = env.player("alice", "--server", board.address, "--new", "kalah",
                       "--option", "cups=4", "--option", "stones=4")
    game = alice.expect(r"Created game (\d+)").group(1)
    bob = env.player("bob", "--server", board.address, "--game", game)
    bob.expect(r"^You are bob, seat 1\.")
    return alice, bob, game


def counters(bindir):
    """Moves, events, games, participants, streams and refusals move by what
    was done, and the store's waits for its server (PostgreSQL's, none on
    SQLite); the page parses (here and with promtool); other paths are 404."""
    with Env(bindir) as env:
        started = time.monotonic()
        board = env.board("--metrics", "127.0.0.1:0")
        port = metrics_port(board)
        s = parse(scrape(port))
        check(s[("sungka_moves_total", "")] == 0, "moves before any game")
        check(s[("sungka_process_resident_memory_bytes", "")] > 0, "no resident memory")
        check(not any(n == "sungka_refusals_total" for n, _ in s), "refusals before any call")
        alice, bob, game = two_players(env, board)
        Autoplayer(env, [alice, bob], seed=3).play_moves(4)
        await_moves(alice, 4)
        await_moves(bob, 4)
        s = wait_value(port, ("sungka_moves_total", ""), 4)
        check(s[("sungka_move_commit_seconds_count", "")] == 4, "commit latencies observed")
        check(s[("sungka_move_commit_seconds_sum", "")] > 0, "commit latencies sum to 0")
        # Each move goes to both players as one event, at least.
        check(s[("sungka_events_sent_total", "")] >= 8,
              f"events sent {s[('sungka_events_sent_total', '')]}")
        s = wait_value(port, ("sungka_games", 'state="running"'), 1)
        check(s[("sungka_participants", "")] == 2, f"participants {s}")
        check(s[("sungka_streams", "")] == 2, f"streams {s}")
        check(s[("sungka_loop_turn_seconds_count", "")] > 0, "no loop turn observed")
        # The waits for the database server: PostgreSQL's round trips, a
        # part of the time so far; SQLite, in the process, none.
        trips = s[("sungka_store_round_trips_total", "")]
        waited = s[("sungka_store_wait_seconds_total", "")]
        if env.dbs.url:
            check(trips >= 4 and 0 < waited < time.monotonic() - started,
                  f"PostgreSQL: {trips} round trips, {waited} s waited in "
                  f"{time.monotonic() - started:.1f} s")
        else:
            check(trips == 0 and waited == 0, f"SQLite: {trips} round trips, {waited} s")
        # A game that does not exist: refused NOT_FOUND.
        env.player("carol", "--server", board.address, "--game", "99999")
        wait_value(port, ("sungka_refusals_total", 'reason="NOT_FOUND"'), 1)
        page = scrape(port)
        r = subprocess.run(["promtool", "check", "metrics"], input=page, text=True,
                           capture_output=True, timeout=60)
        check(r.returncode == 0, f"promtool check metrics: {r.stdout}{r.stderr}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/other", timeout=10)
            check(False, "/other answered")
        except urllib.error.HTTPError as e:
            check(e.code == 404, f"/other: {e.code}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prometheus_scrapes(bindir):
    """A Prometheus server scraping the service every second sees its moves."""
    with Env(bindir) as env:
        board = env.board("--metrics", "127.0.0.1:0")
        port = metrics_port(board)
        alice, bob, game = two_players(env, board)
        Autoplayer(env, [alice, bob], seed=5).play_moves(3)
        await_moves(alice, 3)
        wait_value(port, ("sungka_moves_total", ""), 3)
        tmp = tempfile.mkdtemp(prefix="sungka-prometheus-")
        try:
            with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
                f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                        "scrape_configs:\n  - job_name: sungka\n    static_configs:\n"
                        f"      - targets: ['127.0.0.1:{port}']\n")
            web = free_port()
            prom = Proc("prometheus", ["prometheus", "--config.file", os.path.join(tmp, "prometheus.yml"),
                                       "--storage.tsdb.path", os.path.join(tmp, "data"),
                                       "--web.listen-address", f"127.0.0.1:{web}"],
                        stdin=False, env=env.env)
            env.procs.append(prom)
            prom.expect_stderr(r"Server is ready to receive web requests", timeout=60)
            query = urllib.parse.quote("sungka_moves_total")
            deadline = time.monotonic() + 60
            seen = None
            while seen != "3":
                check(time.monotonic() < deadline,
                      f"Prometheus saw sungka_moves_total {seen}\n" + prom.dump())
                time.sleep(0.5)
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/v1/query?query={query}",
                                            timeout=10) as r:
                    answer = json.load(r)
                check(answer["status"] == "success", f"query: {answer}")
                result = answer["data"]["result"]
                if result:
                    check(result[0]["metric"].get("job") == "sungka", f"labels {result}")
                    seen = result[0]["value"][1]
            prom.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def relay_counters(bindir):
    """A relay's feeds, watchers, streams, events in and out, and refusals
    move by what its observers did."""
    with Env(bindir) as env:
        port = free_port()                      # the relay needs it, and it needs the relay
        relay = env.relay(f"127.0.0.1:{port}", "--metrics", "127.0.0.1:0")
        mport = metrics_port(relay)
        s = parse(scrape(mport))
        check(s[("sungka_relay_feeds", "")] == 0 and s[("sungka_relay_watchers", "")] == 0,
              f"a relay with nothing to relay: {s}")
        board = env.board("--relays", relay.address, "--relay-after", "1", port=port)
        alice, bob, game = two_players(env, board)
        first = env.player("first", "--server", board.address, "--game", game, "--observe")
        first.expect(r"^You are observing\.")   # at the service: the audience is 1 now
        watchers = []
        for i in range(2):                      # then at the relay
            w = env.player(f"w{i}", "--server", board.address, "--game", game, "--observe")
            w.expect(r"^You are observing\.")
            watchers.append(w)
        Autoplayer(env, [alice, bob], seed=7).play_moves(4)
        for w in watchers:
            await_moves(w, 4)
        s = wait_value(mport, ("sungka_relay_watchers", ""), 2)
        s = wait_value(mport, ("sungka_relay_streams", ""), 2)
        check(s[("sungka_relay_feeds", "")] == 1, f"feeds {s}")
        check(s[("sungka_relay_events_received_total", "")] >= 4, f"events in {s}")
        check(s[("sungka_relay_events_sent_total", "")] >= 8, f"events out {s}")
        check(s[("sungka_process_resident_memory_bytes", "")] > 0, "no resident memory")
        env.player("lost", "--server", relay.address, "--game", "99999", "--observe")
        wait_value(mport, ("sungka_refusals_total", 'reason="NOT_FOUND"'), 1)


def store_errors(bindir):
    """While another program holds the database's write lock a move is
    refused: the store's errors and the NOT_STORED refusal are counted, no
    move is; once the lock is gone the same move is, with its commit."""
    import sqlite3
    with Env(bindir, sqlite_only="another program holds the SQLite file's write lock") as env:
        db = os.path.join(env.state_dir, "locked.db")
        board = env.board("--db", db, "--metrics", "127.0.0.1:0")
        port = metrics_port(board)
        alice, bob, _ = two_players(env, board)
        alice.expect(r"^Your turn")
        s = parse(scrape(port))
        check(s[("sungka_store_errors_total", "")] == 0, f"store errors before any: {s}")
        lock = sqlite3.connect(db, timeout=0.1, isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
            alice.send("2")
            alice.expect(r"^Refused: the move could not be stored")
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        s = wait_value(port, ("sungka_refusals_total", 'reason="NOT_STORED"'), 1)
        s = parse(scrape(port))
        deadline = time.monotonic() + 30
        while s[("sungka_store_errors_total", "")] < 1:    # the gauges' walk: once a second
            check(time.monotonic() < deadline, f"no store error counted: {s}")
            time.sleep(0.2)
            s = parse(scrape(port))
        check(s[("sungka_moves_total", "")] == 0, f"a refused move counted: {s}")
        alice.send("2")
        bob.expect(r"^alice played cup 2\.")
        s = wait_value(port, ("sungka_moves_total", ""), 1)
        check(s[("sungka_store_commit_seconds_count", "")] >= 1, f"no commit timed: {s}")


def sign_ins(bindir):
    """A sign-in, a wrong password and one past --signin-failures: signins,
    failures, refusals by reason and limits hit move by one each."""
    import test_accounts as accounts        # its stock gRPC client
    with Env(bindir) as env:
        accounts.generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--db", os.path.join(env.state_dir, "board.db"), "--metrics",
                          "127.0.0.1:0", "--signin-failures", "1")
        port = metrics_port(board)
        code = accounts.grpc.StatusCode
        alice = accounts.Client(board.address)
        alice.create("alice")
        alice.sign_in("alice")
        mallory = accounts.Client(board.address)
        accounts.refused("wrong password", code.UNAUTHENTICATED, "BAD_CREDENTIALS",
                         mallory.accounts.SignIn,
                         accounts.pb.SignInRequest(name="alice", password="not her password"))
        accounts.refused("past the failures", code.RESOURCE_EXHAUSTED, "LIMIT_REACHED",
                         mallory.accounts.SignIn,
                         accounts.pb.SignInRequest(name="alice", password="guess number 2"))
        s = wait_value(port, ("sungka_refusals_total", 'reason="LIMIT_REACHED"'), 1)
        want = {("sungka_signins_total", ""): 1, ("sungka_signin_failures_total", ""): 1,
                ("sungka_refusals_total", 'reason="BAD_CREDENTIALS"'): 1,
                ("sungka_limits_hit_total", ""): 1}
        got = {k: s.get(k) for k in want}
        check(got == want, f"after one sign-in, one wrong and one limited: {got}")
        for c in (alice, mallory):
            c.close()


def bad_address(bindir):
    """A --metrics address that cannot be had stops the server at start with
    a sentence saying why: not HOST:PORT, a port out of range, a port in use."""
    with Env(bindir) as env:
        board = env.board("--metrics", "127.0.0.1:0")
        taken = metrics_port(board)
        cases = [("sungka-board", "nonsense", r"--metrics needs HOST:PORT"),
                 ("sungka-board", "127.0.0.1:99999", r"the port must be a number from 0 to 65535"),
                 ("sungka-board", f"127.0.0.1:{taken}", r"cannot listen for metrics on 127\.0\.0\.1:"),
                 ("sungka-relay", "127.0.0.1:x", r"the port must be a number")]
        for program, address, said in cases:
            extra = (["--db", ":memory:"] if program == "sungka-board"
                     else ["--upstream", board.address])
            r = subprocess.run([os.path.join(bindir, program), "--listen", "127.0.0.1:0",
                                *extra, "--metrics", address], capture_output=True, text=True,
                               env=env.env, timeout=60)
            check(r.returncode == 1 and re.search(said, r.stderr),
                  f"{program} --metrics {address}: {r.returncode} {r.stderr}")


def cluster_lease(bindir):
    """Two nodes of a cluster (PostgreSQL): each counts its lease renewals;
    when the one hosting a game is killed, the other counts the game it
    adopted."""
    with Env(bindir) as env:
        if not env.dbs.url:
            raise Failure("needs the tests' PostgreSQL server (SUNGKA_TEST_PG_URL_FILE)")
        db = os.path.join(env.state_dir, "cluster.db")     # one database, named by the path
        a, b = [env.board("--db", db, "--lease", "3", "--metrics", "127.0.0.1:0")
                for _ in range(2)]
        ports = {n: metrics_port(n) for n in (a, b)}
        alice = env.player("alice", "--server", f"{a.address},{b.address}", "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", f"{a.address},{b.address}", "--game", game)
        bob.expect(r"^You are bob, seat 1\.")
        Autoplayer(env, [alice, bob], seed=11).play_moves(2)
        await_moves(bob, 2)
        for n in (a, b):
            deadline = time.monotonic() + 30
            while parse(scrape(ports[n]))[("sungka_lease_renewals_total", "")] < 2:
                check(time.monotonic() < deadline, f"{n.address} renewed no lease")
                time.sleep(0.2)
        s = parse(scrape(ports[b]))
        check(s[("sungka_games_adopted_total", "")] == 0, f"adopted before any death: {s}")
        check(s[("sungka_lease_renewal_failures_total", "")] == 0, f"failed renewals: {s}")
        a.p.send_signal(signal.SIGKILL)
        a.p.wait(5)
        wait_value(ports[b], ("sungka_games_adopted_total", ""), 1, timeout=40)


if __name__ == "__main__":
    sys.exit(main({"counters": counters, "prometheus_scrapes": prometheus_scrapes,
                   "relay_counters": relay_counters, "store_errors": store_errors, "sign_ins": sign_ins, "bad_address": bad_address,
                   "cluster_lease": cluster_lease}))
