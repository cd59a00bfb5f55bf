"""harness.py — start and drive real Sungka processes for end-to-end tests.

Everything runs on loopback with ports the system picks. Every process a test
starts is registered and stopped when the test ends, passed or failed. Reads
are bounded in time, so a bug gives a failure with the output so far, never a
hang.
"""
import hashlib
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

DEFAULT_WAIT = 30.0
SANITIZER = re.compile(r"ERROR: (Address|Leak)Sanitizer|runtime error:|"
                       r"are definitely lost|Invalid (read|write)|uninitialised")
# SUNGKA_E2E_WRAPPER="valgrind --leak-check=full ..." runs every process under it.
WRAPPER = os.environ.get("SUNGKA_E2E_WRAPPER", "").split()


class Failure(Exception):
    pass


# PostgreSQL: SUNGKA_TEST_PG_URL_FILE names the file with the URL of a server
# the tests started (tests/pg; ctest sets it when built with SUNGKA_TEST_ON_PG
# or for the store's _pg tests). Then the board services keep their store there.
PG_URL_FILE = os.environ.get("SUNGKA_TEST_PG_URL_FILE", "")


class Databases:
    """Where the board services of one test keep their store. On SQLite (by
    default) every --db is used as given. With SUNGKA_TEST_PG_URL_FILE set,
    each is a database of that server instead: ":memory:" a fresh one, a
    file's path the database named after that path (sungka_e_ and a hash), so
    that a service started again on the same path finds its games; "" (no
    store) stays. They are dropped when the test ends (drop()).

    sqlite_only: why this test is about SQLite's files (a damaged file, its
    lock, --check, a file an older service left): then it stays on SQLite
    even with PostgreSQL, and says so."""

    def __init__(self, sqlite_only=None):
        self.url = None
        self.made = []
        self._fresh = 0
        if not PG_URL_FILE:
            return
        if sqlite_only:
            print(f"note: on SQLite, not PostgreSQL: {sqlite_only}")
            return
        try:
            with open(PG_URL_FILE) as f:
                self.url = f.read().strip()
        except OSError as e:
            raise Failure(f"cannot read SUNGKA_TEST_PG_URL_FILE={PG_URL_FILE}: {e.strerror} "
                          "(the fixture pg_start writes it)")
        if not self.url.startswith(("postgresql://", "postgres://")):
            raise Failure(f"SUNGKA_TEST_PG_URL_FILE={PG_URL_FILE} holds no postgresql:// URL")

    def url_for(self, name):
        """The server's URL naming database `name`."""
        return urllib.parse.urlunsplit(urllib.parse.urlsplit(self.url)._replace(path="/" + name))

    def db(self, value):
        """What --db VALUE becomes."""
        if not self.url or value == "" or value.startswith(("postgresql://", "postgres://")):
            return value
        if value == ":memory:":
            self._fresh += 1
            name = f"sungka_m_{os.getpid()}_{self._fresh}_{random.getrandbits(32):08x}"
        else:
            path = os.path.abspath(value).encode()
            name = "sungka_e_" + hashlib.sha1(path).hexdigest()[:16]
        if name not in self.made:
            self.made.append(name)
        return self.url_for(name)

    def argv(self, args, default=None):
        """A sungka-board command line's arguments with each --db's value
        as db() makes it; without --db, on PostgreSQL, --db for the path
        `default` (where the service would keep its file)."""
        out, rewrote, args = [], False, list(args)
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--db" and i + 1 < len(args):
                out += [a, self.db(args[i + 1])]
                rewrote, i = True, i + 2
                continue
            if a.startswith("--db="):
                out.append("--db=" + self.db(a[len("--db="):]))
                rewrote = True
            else:
                out.append(a)
            i += 1
        if self.url and not rewrote and default is not None:
            out += ["--db", self.db(default)]
        return out

    @staticmethod
    def psql():
        """The server's psql (from the bindir that tests/pg wrote beside
        the URL), else the one on PATH."""
        try:
            with open(os.path.join(os.path.dirname(PG_URL_FILE), "bindir")) as f:
                return os.path.join(f.read().strip(), "psql")
        except OSError:
            return "psql"

    def drop(self):
        """Drop the databases made (their services stopped first; FORCE ends
        the sessions of any still running)."""
        if not self.made:
            return
        # One -c each: DROP DATABASE cannot share a transaction.
        drops = [a for n in self.made
                 for a in ("-c", f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')]
        r = subprocess.run([self.psql(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.url,
                            *drops],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning"))
        if r.returncode != 0:
            print(f"note: could not drop the test's databases {self.made}: {r.stderr.strip()}")
        self.made = []


class Proc:
    """A child process whose stdout lines are collected by a thread."""

    def __init__(self, name, argv, stdin=True, env=None, pass_fds=()):
        self.name = name
        self.argv = argv
        self.p = subprocess.Popen(
            argv,
            env=env,
            pass_fds=pass_fds,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines = []            # every stdout line so far
        self.cursor = 0            # next line expect() looks at
        self.err_lines = []
        self.cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._pump, args=(self.p.stdout, self.lines, True),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(self.p.stderr, self.err_lines, False),
                         daemon=True).start()

    def _pump(self, stream, into, is_stdout):
        for line in stream:
            with self.cond:
                into.append(line.rstrip("\n"))
                self.cond.notify_all()
        if is_stdout:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def send(self, line):
        try:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise Failure(f"{self.name}: cannot write '{line}': it has exited\n" + self.dump())

    def close_stdin(self):
        try:
            self.p.stdin.close()
        except (BrokenPipeError, ValueError):
            pass

    def next_line(self, timeout):
        """The next unread stdout line, or None on timeout / end of output."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.cursor >= len(self.lines):
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    return None
                self.cond.wait(left)
            line = self.lines[self.cursor]
            self.cursor += 1
            return line

    def expect(self, pattern, timeout=DEFAULT_WAIT):
        """Skip lines until one matches `pattern` (a regex); return the match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            line = self.next_line(max(left, 0))
            if line is None:
                raise Failure(f"{self.name}: no line matching /{pattern}/ within {timeout}s\n"
                              + self.dump())
            m = rx.search(line)
            if m:
                return m

    def wait_for(self, pattern, timeout=DEFAULT_WAIT):
        """Wait until some stdout line matches, without moving the cursor that
        expect() and the Autoplayer read from."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while not any(rx.search(l) for l in self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise Failure(f"{self.name}: no line matching /{pattern}/ within "
                                  f"{timeout}s\n" + self.dump())
                self.cond.wait(min(left, 0.2))

    def expect_stderr(self, pattern, timeout=DEFAULT_WAIT, count=1):
        """Wait until `count` stderr lines (the service's log) match `pattern`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while sum(1 for l in self.err_lines if rx.search(l)) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure(f"{self.name}: {count} stderr line(s) matching /{pattern}/ "
                                  f"not seen within {timeout}s\n" + self.dump())
                self.cond.wait(min(left, 0.2))

    def quit(self):
        """Type quit (twice when the view asks to confirm) and wait for the exit."""
        self.send("quit")
        deadline = time.monotonic() + DEFAULT_WAIT
        while self.p.poll() is None and time.monotonic() < deadline:
            line = self.next_line(0.1)
            if line and line.startswith("Leaving now loses the game"):
                self.send("quit")
        return self.wait_exit()

    def wait_exit(self, timeout=DEFAULT_WAIT):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"{self.name}: did not exit within {timeout}s\n" + self.dump())

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        with self.cond:                      # let the readers drain the pipes
            self.cond.wait_for(lambda: self.closed, timeout=5)

    def dump(self):
        with self.cond:
            out = "\n".join(f"  | {l}" for l in self.lines[-60:])
            err = "\n".join(f"  ! {l}" for l in self.err_lines[-20:])
        return f"--- {self.name} stdout (last lines):\n{out}\n--- {self.name} stderr:\n{err}"


class Env:
    """One test's processes; use as a context manager. sqlite_only: why the
    test stays on SQLite when the others run on PostgreSQL (Databases)."""

    def __init__(self, bindir, sqlite_only=None):
        self.bindir = bindir
        self.procs = []
        self.dbs = Databases(sqlite_only)
        # Saved seat tokens, databases, settings and caches go to a directory of this
        # test's own, never the user's.
        self.state_dir = tempfile.mkdtemp(prefix="sungka-e2e-")
        supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsan.supp")
        self.env = dict(os.environ, LSAN_OPTIONS=f"suppressions={os.path.normpath(supp)}",
                        XDG_DATA_HOME=os.path.join(self.state_dir, "data"),
                        XDG_STATE_HOME=os.path.join(self.state_dir, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.state_dir, "config"),
                        XDG_CACHE_HOME=os.path.join(self.state_dir, "cache"))
        # The tests read the views' English, whatever the developer's locale
        # (tests/i18n gives the views other languages on purpose).
        for k in ("LANGUAGE", "LC_ALL"):
            self.env.pop(k, None)
        self.env["LC_MESSAGES"] = "C"

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        for p in self.procs:
            p.stop()
        self.dbs.drop()
        shutil.rmtree(self.state_dir, ignore_errors=True)
        # Sanitizer builds report on stderr: any report fails the test.
        bad = [p for p in self.procs
               if any(SANITIZER.search(l) for l in p.err_lines)]
        if bad and exc_type is None:
            raise Failure("sanitizer report:\n" + "\n".join(p.dump() for p in bad))
        return False

    def board_args(self, *args):
        """sungka-board's arguments with its --db where this test keeps its
        store (Databases.argv); for a service started by other means."""
        return self.dbs.argv(args)

    def board(self, *extra, port=0, env=None):
        """A sungka-board; env: variables of its own besides the test's."""
        # Without --db the service's file would be $XDG_DATA_HOME/sungka/sungka.db.
        default = os.path.join(self.env["XDG_DATA_HOME"], "sungka", "sungka.db")
        # The engine's review of every ended game would spend the suite's
        # two cores on games no test looks at: on only where a test asks
        # (test_analysis.py).
        if not any(str(a).startswith("--analysis") for a in extra):
            extra = (*extra, "--analysis", "off")
        argv = WRAPPER + [os.path.join(self.bindir, "sungka-board"), "--listen",
                          f"127.0.0.1:{port}", *self.dbs.argv(extra, default=default)]
        return self._server("board", argv, env)

    def relay(self, upstream, *extra, env=None):
        """A sungka-relay taking its games from upstream ("HOST:PORT,...");
        env: variables of its own besides the test's."""
        argv = WRAPPER + [os.path.join(self.bindir, "sungka-relay"), "--listen", "127.0.0.1:0",
                          "--upstream", upstream, *extra]
        return self._server("relay", argv, env)

    def _server(self, name, argv, env=None):
        """Starts a server and waits for its "listening on" line: .port, .address."""
        p = Proc(name, argv, stdin=False, env=dict(self.env, **(env or {})))
        self.procs.append(p)
        m = p.expect(r"listening on 127\.0\.0\.1:(\d+)", timeout=15)
        p.port = int(m.group(1))
        p.address = f"127.0.0.1:{p.port}"
        return p

    def player(self, name, *args, ready=True, pass_fds=()):
        """An agent with the text view; seated players say ready at once
        unless ready=False. pass_fds: descriptors it inherits."""
        extra = ["--state-dir", self.state_dir] + (["--ready"] if ready else [])
        argv = WRAPPER + [os.path.join(self.bindir, "sungka-player"), "--name", name, *extra,
                          *args]
        p = Proc(name, argv, env=self.env, pass_fds=pass_fds)
        self.procs.append(p)
        return p

    def dump_all(self):
        return "\n".join(p.dump() for p in self.procs)


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Autoplayer:
    """Plays for several agents: whenever one says it is its turn, it types
    one of the legal moves the view lists (chosen at random, seeded) — once:
    a prompt said again before the move is seen played (a view redraws
    after reconnecting) is not a second turn."""

    def __init__(self, env, agents, seed=1):
        self.env = env
        self.agents = agents
        self.rng = random.Random(seed)
        # Agents whose move is sent but not yet seen played, across calls:
        # play_moves(1) may return between sending a move and seeing it.
        self.moving = set()

    def play_moves(self, n, timeout=60.0):
        """Play until n moves have been sent (then stop, mid-game)."""
        self.play_to_end(timeout, stop_after=n)

    def play_to_end(self, timeout=120.0, stop_after=None):
        over = set()
        moving = self.moving
        sent = 0
        deadline = time.monotonic() + timeout
        while len(over) < len(self.agents) and (stop_after is None or sent < stop_after):
            if time.monotonic() > deadline:
                raise Failure("the game did not end in time\n" + self.env.dump_all())
            progressed = False
            for a in self.agents:
                if a.name in over:
                    continue
                line = a.next_line(0.01)
                if line is None:
                    if a.closed:
                        raise Failure(f"{a.name} exited during the game\n" + a.dump())
                    continue
                progressed = True
                if re.match(r"^(\S+: )?Your turn", line) and a.name not in moving:
                    m = re.search(r"Legal: (.+)$", line)
                    check(m, f"{a.name}: no legal moves listed: {line}")
                    a.send(self.rng.choice(m.group(1).split()))
                    moving.add(a.name)
                    sent += 1
                elif re.match(r"^\S+ played (cup|cell) ", line):
                    moving.discard(a.name)
                elif line.startswith("Refused:") and "may or may not have been played" in line:
                    # Its node died with the move on the way: the events
                    # after reconnecting say whether it was played; if not,
                    # the view asks for the turn again.
                    moving.discard(a.name)
                elif line.startswith("Refused:"):
                    raise Failure(f"{a.name}: a legal move was refused: {line}\n" + a.dump())
                elif line.startswith("Game over:"):
                    over.add(a.name)
            if not progressed:
                time.sleep(0.005)


def main(tests):
    """Run the test named on the command line: FILE.py BINDIR TEST."""
    if len(sys.argv) != 3 or sys.argv[2] not in tests:
        print(f"usage: {sys.argv[0]} BINDIR {{{'|'.join(tests)}}}", file=sys.stderr)
        return 2
    bindir, name = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    try:
        tests[name](bindir)
    except Failure as f:
        print(f"FAIL {name}: {f}")
        return 1
    print(f"ok {name} ({time.monotonic() - started:.1f}s)")
    return 0
