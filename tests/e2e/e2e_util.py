"""e2e_util.py — helpers several end-to-end test files share: a finished
agent's report, the moves it saw, a game made and joined over the raw wire,
an event's kind, the clocks a view shows, another program holding the
board service's store, a client address other than 127.0.0.1, and a program's
systemd notifications around a reload (notify_cycle)."""
import os
import re
import signal
import socket
import sqlite3
import threading
import time

from harness import Proc, check  # noqa: E402
import wire  # noqa: E402


def notify_cycle(env, start):
    """A program under systemd (Type=notify): start(notify_env) starts it
    with that environment ($NOTIFY_SOCKET, a datagram socket made here) and
    returns its Proc. It must say READY=1 once it listens, RELOADING=1 and
    READY=1 around a SIGHUP's reload, STOPPING=1 at SIGTERM, then exit 0."""
    path = os.path.join(env.state_dir, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(15)
    try:
        proc = start({"NOTIFY_SOCKET": path})

        def said(what):
            deadline = time.monotonic() + 15
            seen = []
            while time.monotonic() < deadline:
                try:
                    msg = sock.recv(4096).decode()
                except socket.timeout:
                    break
                seen.append(msg)
                if what in msg.split("\n"):
                    return
            check(False, f"no {what} on $NOTIFY_SOCKET; got {seen}\n" + proc.dump())

        said("READY=1")
        proc.p.send_signal(signal.SIGHUP)
        said("RELOADING=1")
        said("READY=1")
        proc.p.send_signal(signal.SIGTERM)
        said("STOPPING=1")
        check(proc.wait_exit() == 0, "it did not stop cleanly\n" + proc.dump())
    finally:
        sock.close()


def final_report(agent):
    """The lines after 'Game over:' up to the winners line."""
    agent.cursor = 0
    agent.expect(r"^Game over:")
    scores = agent.expect(r"^Scores:").string
    result = agent.expect(r"^(Winners?:|Nobody wins)").string
    return scores, result


def moves_seen(agent):
    return [l for l in agent.lines if re.match(r"^\S+ played (cup|cell) \S+\.$", l)]


def check_same_ending(agents, results=("Game over:", "Scores:")):
    """Every agent saw the same result lines (those starting with `results`)
    and the same moves; returns those moves."""
    ends = {p.name: [l for l in p.lines if l.startswith(results)] for p in agents}
    check(len({tuple(v) for v in ends.values()}) == 1, f"results differ: {ends}")
    seen = moves_seen(agents[0])
    check(all(moves_seen(p) == seen for p in agents), "the agents saw different moves")
    return seen


def check_replay(agent, game, n_moves):
    """The agent's replay of the finished game ends at move n_moves."""
    agent.send(f"replay {game}")
    agent.expect(r"^Replaying match")
    agent.send("end")
    agent.expect(rf"^Move {n_moves} of {n_moves}: ")


def await_moves(agent, n, timeout=30):
    """Wait until the agent has seen n moves played, reading its lines on."""
    deadline = time.monotonic() + timeout
    while len(moves_seen(agent)) < n:
        check(time.monotonic() < deadline, "the moves did not arrive\n" + agent.dump())
        agent.next_line(0.1)


def clocks(line):
    """{name: seconds} and the running name from a 'Clocks: ...' line."""
    found = re.findall(r"([\w-]+) (\d+):(\d\d)( \(running\))?", line)
    left = {n: int(m) * 60 + int(s) for n, m, s, _ in found}
    running = [n for n, _, _, r in found if r]
    return left, running[0] if running else None


def line_after(proc, first, then, timeout=15):
    """The first line matching `then` after the last one matching `first`
    (waiting for both), without moving proc's cursor."""
    deadline = time.monotonic() + timeout
    while True:
        lines = list(proc.lines)
        marks = [i for i, l in enumerate(lines) if re.search(first, l)]
        if marks:
            found = [l for l in lines[marks[-1] + 1:] if re.search(then, l)]
            if found:
                return found[0]
        check(time.monotonic() < deadline, f"{proc.name}: no /{then}/ after /{first}/\n" +
              proc.dump())
        time.sleep(0.1)


def _raw_game(client, n_players=2):
    """Create a sungka game and seat alice and bob; returns (id, [tokens])."""
    code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "sungka")))
    check(code == "OK", f"CreateGame: {code} {reply}")
    game_id = wire.first_string(wire.first_message(reply, 1), 1)
    tokens = []
    for name in ("alice", "bob")[:n_players]:
        code, ref = client.raw("/sungka.v1.Register/JoinGame",
                               wire.message((1, game_id), (2, name)))
        check(code == "OK", f"JoinGame {name}: {code} {ref}")
        tokens.append(wire.get(ref, 3).decode())
    for token in tokens:
        code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)), token=token)
        check(code == "OK", f"Ready: {code} {text}")
    return game_id, tokens


def _event_kind(ev):
    """The oneof body field number of an Event (10 snapshot .. 20 notice)."""
    return next(n for n, _ in wire.fields(ev) if n >= 10)


class StoreLock:
    """Another program holding the store of a board service started with
    --db `db` (a path, as given to env.board), from a database connection of
    its own: on SQLite the file's write lock (BEGIN IMMEDIATE: the service's
    writes wait its busy timeout, 1 s, then fail); on PostgreSQL (env.dbs.url)
    a psql session with the events table locked (LOCK TABLE ... ACCESS
    EXCLUSIVE: the service's writes of events wait for it, for as long as
    its session's lock_timeout lets them; see give_up_after). take() returns
    once the lock is held, release() once it is let go; close() ends the
    connection (Env stops the psql at the end in any case)."""

    def __init__(self, env, db):
        self.env = env
        self.db = db
        self.con = None          # SQLite
        self.psql = None         # PostgreSQL: a harness.Proc
        self.held = False

    @staticmethod
    def give_up_after(env, ms=1000):
        """Make the service's writes give up after ms while a lock holds them
        up, on PostgreSQL as SQLite's busy timeout (1 s) makes them there:
        its sessions get lock_timeout (through libpq's PGOPTIONS). Call it
        before env.board(); nothing to do on SQLite."""
        if env.dbs.url:
            env.env["PGOPTIONS"] = f"-c lock_timeout={int(ms)}"

    def take(self, timeout=15):
        check(not self.held, "the store's lock is held already")
        if self.env.dbs.url:
            if self.psql is None:
                self.psql = Proc("psql", [self.env.dbs.psql(), "-X", "-q", "-At",
                                          "-v", "ON_ERROR_STOP=1",
                                          "-d", self.env.dbs.db(self.db)],
                                 env=dict(os.environ, PGOPTIONS=""))
                self.env.procs.append(self.psql)
            self.psql.send("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE; "
                           "SELECT 'locked';")
            self.psql.expect(r"^locked$", timeout=timeout)
        else:
            if self.con is None:
                self.con = sqlite3.connect(self.db, timeout=timeout, isolation_level=None)
            self.con.execute("BEGIN IMMEDIATE")
        self.held = True

    def release(self, timeout=15):
        if not self.held:
            return
        if self.psql is not None:
            self.psql.send("ROLLBACK; SELECT 'released';")
            self.psql.expect(r"^released$", timeout=timeout)
        else:
            self.con.execute("ROLLBACK")
        self.held = False

    def close(self):
        if self.con is not None:
            self.con.close()     # ends any transaction: the lock goes with it
            self.con = None
        if self.psql is not None:
            self.psql.close_stdin()
            self.psql.stop()
            self.psql = None
        self.held = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class OtherAddress:
    """A second client address on this machine: a TCP forwarder listening on
    127.0.0.2 that connects to `target` ("127.0.0.1:PORT") from 127.0.0.2, so
    the service sees its clients at ipv4:127.0.0.2 (any 127/8 address is this
    machine's on Linux). .address is where to connect. Use as a context
    manager; its threads end with the connections it closes."""

    def __init__(self, target, host="127.0.0.2"):
        self.host = host
        t_host, t_port = target.rsplit(":", 1)
        self.target = (t_host, int(t_port))
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind((host, 0))
        self.listener.listen(64)
        self.address = f"{host}:{self.listener.getsockname()[1]}"
        self.socks = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                inner, _ = self.listener.accept()
            except OSError:
                return                       # closed
            outer = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                outer.bind((self.host, 0))
                outer.connect(self.target)
            except OSError:
                inner.close()
                outer.close()
                continue
            with self.lock:
                self.socks += [inner, outer]
            for a, b in ((inner, outer), (outer, inner)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self):
        try:
            self.listener.shutdown(socket.SHUT_RDWR)   # wakes the accept
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            for s in self.socks:
                s.close()
            self.socks = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
