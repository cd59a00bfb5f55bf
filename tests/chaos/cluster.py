"""cluster.py — what the chaos test runs and breaks: PostgreSQL 15 servers
of its own (a primary, optionally a synchronous streaming standby) and the
sungka-board nodes on them, and optionally sungka-relays in front of them.

PostgreSQL refuses root: as root (ctest) its programs run as the `postgres`
user (runuser), in a directory that user owns (TESTING.md, "A real
PostgreSQL in a test"). Every server listens on a free port of 127.0.0.1
and, when the path is short enough, a Unix socket in its own directory.
Every wait here is bounded; stop_all() stops whatever is left.
"""
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
import time

AS_ROOT = os.geteuid() == 0


def free_port():
    """A port of 127.0.0.1 nobody listens on now (another may take it before
    we bind it: callers retry)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def pg_bindir():
    """The newest /usr/lib/postgresql/*/bin (Debian's layout), or $SUNGKA_PG_BINDIR."""
    env = os.environ.get("SUNGKA_PG_BINDIR")
    if env:
        return env
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if not found:
        raise RuntimeError("no PostgreSQL server (no /usr/lib/postgresql/*/bin/initdb): "
                           "install the Debian package postgresql")
    return os.path.dirname(found[-1])


def as_owner(argv):
    """argv run as the owner of the server's files: postgres when we are root."""
    return (["runuser", "-u", "postgres", "--"] + argv) if AS_ROOT else argv


def give_to_postgres(path):
    if AS_ROOT:
        pw = pwd.getpwnam("postgres")
        os.chown(path, pw.pw_uid, pw.pw_gid)


class PgServer:
    """One PostgreSQL server: a data directory under `root`, its log beside
    it, a port on 127.0.0.1. Its configuration goes into postgresql.conf
    once (pg_ctl restart reuses it)."""

    def __init__(self, root, name, bindir, port=None, also_listen=None):
        self.root = root
        self.also_listen = also_listen     # with --netns: 10.78.0.1 as well
        self.name = name
        self.bindir = bindir
        self.data = os.path.join(root, name)
        self.log = os.path.join(root, name + ".log")
        self.port = port or free_port()
        self.started = False

    def _run(self, argv, timeout=120, check=True):
        r = subprocess.run(as_owner(argv), capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stdout} {r.stderr}"
                               + self.log_tail())
        return r

    def log_tail(self, n=20):
        try:
            with open(self.log, errors="replace") as f:
                lines = f.readlines()[-n:]
            return f"\n--- {self.log}:\n" + "".join(lines)
        except OSError:
            return ""

    def conf(self, **settings):
        """Append settings to postgresql.conf (the last one wins)."""
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            for k, v in settings.items():
                f.write(f"{k} = '{v}'\n" if isinstance(v, str) else f"{k} = {v}\n")

    def base_settings(self):
        sockets = self.root if len(self.root) <= 90 else ""
        # fsync off: the faults here kill processes, never the machine, so what
        # a server wrote is in the kernel's page cache either way, and a shared
        # 2-core machine is spared the flushes. synchronous_commit stays on (the
        # store asks for it anyway): a commit waits for its WAL to be written.
        listen = "127.0.0.1" + (f",{self.also_listen}" if self.also_listen else "")
        return dict(listen_addresses=listen, port=self.port,
                    unix_socket_directories=sockets, fsync="off", max_connections=100,
                    wal_level="replica", max_wal_senders=5, wal_keep_size="256MB",
                    hot_standby="on", log_min_messages="warning", cluster_name=self.name,
                    log_line_prefix="%m [%p] %a ")

    def initdb(self):
        r = self._run([os.path.join(self.bindir, "initdb"), "-D", self.data, "-A", "trust",
                       "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"],
                      check=False)
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stdout} {r.stderr}")
        self.conf(**self.base_settings())
        if self.also_listen:
            net = self.also_listen.rsplit(".", 1)[0] + ".0/24"
            with open(os.path.join(self.data, "pg_hba.conf"), "a") as f:
                f.write(f"host all all {net} trust\nhost replication all {net} trust\n")

    def start(self, timeout=60):
        self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-l", self.log, "-w",
                   "-t", str(timeout), "start"], timeout=timeout + 30)
        self.started = True

    def restart(self, mode, timeout=60):
        """pg_ctl restart -m fast|immediate (waits until it accepts connections)."""
        self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-l", self.log,
                   "-m", mode, "-w", "-t", str(timeout), "restart"], timeout=timeout + 30)

    def stop(self, mode="fast", timeout=30):
        if not os.path.exists(os.path.join(self.data, "postmaster.pid")):
            return
        r = self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", mode, "-w",
                       "-t", str(timeout), "stop"], timeout=timeout + 30, check=False)
        if r.returncode != 0 and mode != "immediate":
            self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m",
                       "immediate", "-w", "-t", str(timeout), "stop"], timeout=timeout + 30,
                      check=False)

    def promote(self, timeout=60):
        self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-w", "-t",
                   str(timeout), "promote"], timeout=timeout + 30)

    def pids_titled(self, what):
        """The server's processes whose title says `what` (e.g. walreceiver):
        cluster_name is in every title ("postgres: pg2: walreceiver ...")."""
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    title = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if title.startswith(f"postgres: {self.name}: {what}"):
                out.append(int(d))
        return out

    def url(self, db="postgres"):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def psql(self, sql, db="postgres", timeout=30):
        """Run sql; its rows as lists of strings (psql -At, | between fields)."""
        r = subprocess.run([os.path.join(self.bindir, "psql"), "-X", "-q", "-At",
                            "-v", "ON_ERROR_STOP=1", "-d", self.url(db), "-c", sql],
                           capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning",
                                    PGCONNECT_TIMEOUT="5"))
        if r.returncode != 0:
            raise RuntimeError(f"psql on port {self.port}: {r.stderr.strip()}")
        return [l.split("|") for l in r.stdout.splitlines() if l]

    def base_backup_from(self, primary, timeout=120):
        """This server's data directory as a streaming standby of primary
        (pg_basebackup -R: standby.signal and primary_conninfo)."""
        self._run([os.path.join(self.bindir, "pg_basebackup"), "-D", self.data, "-R",
                   "-X", "stream", "-c", "fast", "-h", "127.0.0.1", "-p", str(primary.port),
                   "-U", "postgres", "--no-sync"], timeout=timeout)
        with open(os.path.join(self.data, "postgresql.auto.conf"), "a") as f:
            # A standby promoted must not wait for a standby of its own that
            # does not exist yet; its own application name for the primary's
            # synchronous_standby_names.
            f.write("synchronous_standby_names = ''\n")
        self.conf(**self.base_settings())


class PsqlSession:
    """One long psql session for quick repeated queries (pg_stat_activity in
    a loop): a query costs a round trip, not a process. Reconnects (a new
    psql) after any failure."""

    MARK = "__chaos_end__"

    def __init__(self, bindir, url_fn):
        self.bindir = bindir
        self.url_fn = url_fn          # the URL now (the primary may change)
        self.p = None
        self.lock = threading.Lock()

    def _open(self):
        self.p = subprocess.Popen([os.path.join(self.bindir, "psql"), "-X", "-q", "-At",
                                   "-d", self.url_fn()],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                  env=dict(os.environ, PGCONNECT_TIMEOUT="3"))

    def query(self, sql, timeout=3.0):
        """Rows (lists of strings), or None when the session failed."""
        with self.lock:
            try:
                if self.p is None or self.p.poll() is not None:
                    self._open()
                self.p.stdin.write(sql.rstrip(";") + ";\n\\echo " + self.MARK + "\n")
                self.p.stdin.flush()
                rows = []
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    line = self.p.stdout.readline()
                    if not line:
                        break
                    line = line.rstrip("\n")
                    if line == self.MARK:
                        return rows
                    rows.append(line.split("|"))
            except (OSError, ValueError):
                pass
            self.close_locked()
            return None

    def close_locked(self):
        if self.p is not None:
            try:
                self.p.kill()
                self.p.wait(5)
            except OSError:
                pass
            self.p = None

    def close(self):
        with self.lock:
            self.close_locked()


class Node:
    """One sungka-board of the cluster, at a fixed port (started again on the
    same port after a kill). Its stdout and stderr go to one log file per
    node, every incarnation appended, each opened by a header line."""

    def __init__(self, index, bindir, db_url, logdir, lease_s, env, host="127.0.0.1",
                 extra=()):
        self.index = index
        self.name = f"n{index}"
        self.bindir = bindir
        self.db_url = db_url
        self.host = host
        self.port = free_port()
        self.endpoint = f"{host}:{self.port}"
        self.log = os.path.join(logdir, f"node-{self.name}.log")
        self.lease_s = lease_s
        self.env = env
        self.extra = list(extra)
        self.p = None
        self.incarnation = 0
        self.expected_exit = False     # set before the test kills or stops it
        self.stopped = False           # SIGSTOPped now
        self.exits = []                # starts that failed: incarnation, returncode, why
        self.wrap = []                 # argv prefix (ip netns exec NS), long run

    def argv(self):
        sep = "&" if "?" in self.db_url else "?"
        return self.wrap + [os.path.join(self.bindir, "sungka-board"),
                            "--listen", f"{self.host}:{self.port}",
                            "--advertise", self.endpoint,
                            "--db", f"{self.db_url}{sep}application_name=chaos-{self.name}",
                            "--lease", str(self.lease_s), "--grace", "3600",
                            "--ping-interval", "1", *self.extra]

    def start(self, timeout=30):
        """Start and wait for its "listening on" line; False if it exited
        first or did not say it in time (the caller may try again)."""
        self.incarnation += 1
        self.expected_exit = False
        self.stopped = False
        with open(self.log, "a") as f:
            f.write(f"=== chaos: {self.name} incarnation {self.incarnation} at "
                    f"{time.strftime('%H:%M:%S')}: {' '.join(self.argv())}\n")
        logf = open(self.log, "a")
        try:
            self.p = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=logf,
                                      stderr=logf, env=self.env)
        finally:
            logf.close()
        deadline = time.monotonic() + timeout
        needle = f"listening on {self.host}:{self.port}"
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                # A refusal to start (the database out of reach: "cannot join
                # the cluster"), not a crash: the caller tries again.
                self.expected_exit = True
                self.exits.append(dict(incarnation=self.incarnation,
                                       returncode=self.p.returncode, why="start failed"))
                return False
            if needle in self.tail_text(4000):
                return True
            time.sleep(0.05)
        self.kill()
        self.exits.append(dict(incarnation=self.incarnation, returncode=None,
                               why="start timed out"))
        return False

    def tail_text(self, nbytes):
        try:
            with open(self.log, "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                f.seek(max(0, size - nbytes))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def alive(self):
        return self.p is not None and self.p.poll() is None

    def signal(self, sig):
        if self.alive():
            try:
                os.kill(self.p.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self):
        """kill -9, expected; waits for the exit."""
        self.expected_exit = True
        if self.alive():
            if self.stopped:
                self.signal(signal.SIGCONT)
            self.signal(signal.SIGKILL)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self.stopped = False

    def freeze(self):
        self.signal(signal.SIGSTOP)
        self.stopped = True

    def thaw(self):
        self.signal(signal.SIGCONT)
        self.stopped = False

    def terminate(self, timeout=10):
        """SIGTERM at the end; its exit status, or None if it had to be killed."""
        if not self.alive():
            return self.p.returncode if self.p else None
        self.expected_exit = True
        if self.stopped:
            self.thaw()
        self.signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.p.wait(10)
            return None


class Relay(Node):
    """One sungka-relay (docs/cluster.md, "Relays") in front of the nodes, at a
    fixed port that the nodes' --relays name; killed and started again there
    by the fault relay_kill. Its log is relay-rI.log beside the nodes'."""

    def __init__(self, index, bindir, upstream, logdir, env, host="127.0.0.1"):
        super().__init__(index, bindir, None, logdir, 0, env, host=host)
        self.name = f"r{index}"
        self.upstream = upstream        # the nodes' endpoints, "HOST:PORT,..."
        self.log = os.path.join(logdir, f"relay-{self.name}.log")

    def argv(self):
        return self.wrap + [os.path.join(self.bindir, "sungka-relay"),
                            "--listen", f"{self.host}:{self.port}",
                            "--advertise", self.endpoint, "--upstream", self.upstream]


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)
