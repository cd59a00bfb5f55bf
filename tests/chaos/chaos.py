#!/usr/bin/python3
"""chaos.py — a fault campaign against a cluster of board services
(docs/cluster.md), Jepsen-style: a workload of games played by stock gRPC
clients while nodes and the database are killed, frozen and restarted at
random (seeded), then a checker that compares what the service acknowledged
and what every client saw with the stored logs.

    chaos.py BINDIR [--duration S] [--seed N] [--games N] [--settle S]
                    [--standby] [--async] [--netns] [--relays N]
                    [--keep DIR] [--json OUT]

It starts a throwaway PostgreSQL 15 server (optionally a standby,
synchronous, or asynchronous with --async), 3 sungka-board nodes on it
(SUNGKA_CHECK_REPLAY=1, --lease 2), optionally --relays N sungka-relays in
front of them, the workload (workload.py, with three observers per game when
there are relays), and the faults (faults.py) for --duration seconds;
then every node is running again and the games play on, without faults, for
--settle seconds; then everything stops, the stored logs are read and the
checker (checker.py) prints one line per metric. Exit status 0 when nothing
was lost, reused, seen unstored, left with a hole, stuck or crashed; 1 when
something was; 2 for bad arguments; 3 when the run could not be made (a
server that does not start) or ran past its hard time limit.

Everything it started is stopped and removed at the end, passed or failed
(try/finally, atexit, SIGTERM; a thread stops the run at its hard limit).
ctest runs the short run (tests/chaos/CMakeLists.txt); tests/chaos/README.md
says how to run the long one.
"""
import argparse
import atexit
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster  # noqa: E402
import faults as faults_mod  # noqa: E402
import checker  # noqa: E402
import netns  # noqa: E402

DB_NAME = "sungka_chaos"
CRASH = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|replay check|Segmentation|"
                   r"Assertion .* failed|core dumped|stack smashing|double free")


class SetupFailed(Exception):
    pass


class Run:
    def __init__(self, args):
        self.args = args
        self.lease_s = args.lease
        self.t0 = time.monotonic()
        self.t0_wall = time.time()        # the nodes' logs are on the wall clock
        self.workdir = args.workdir or args.keep or tempfile.mkdtemp(prefix="sungka-chaos-")
        os.makedirs(self.workdir, exist_ok=True)
        os.chmod(self.workdir, 0o755)
        self.pgroot = os.path.join(self.workdir, "pg")
        self.logdir = os.path.join(self.workdir, "logs")
        os.makedirs(self.logdir, exist_ok=True)
        self.bindir = os.path.abspath(args.bindir)
        self.pg_bindir = cluster.pg_bindir()
        self.servers = []          # PgServer, primary first
        self.nodes = []
        self.relays = []           # cluster.Relay, with --relays
        self.node_lock = threading.RLock()
        self.crashes = []          # unexpected exits: dicts
        self.stop_monitor = threading.Event()
        self.activity = None       # PsqlSession for pg_stat_activity
        self.workload = None
        self.record = None
        self.net = None
        self.failovers = 0
        self.cleaned = False

    def log(self, text):
        print(text, flush=True)

    def now(self):
        return time.monotonic() - self.t0

    # ------------------------------------------------------------ database
    def pg_primary(self):
        return self.servers[0]

    def db_url(self):
        addr = netns.DB_ADDR if self.net else "127.0.0.1"
        hosts = ",".join(f"{addr}:{s.port}" for s in self.servers)
        return f"postgresql://postgres@{hosts}/{DB_NAME}?target_session_attrs=read-write"

    def start_pg(self):
        os.makedirs(self.pgroot, exist_ok=True)
        cluster.give_to_postgres(self.pgroot)
        also = netns.DB_ADDR if self.net else None
        primary = cluster.PgServer(self.pgroot, "pg1", self.pg_bindir, also_listen=also)
        self.servers.append(primary)
        primary.initdb()
        primary.start()
        primary.psql(f'CREATE DATABASE "{DB_NAME}"')
        if self.args.standby:
            standby = cluster.PgServer(self.pgroot, "pg2", self.pg_bindir, also_listen=also)
            self.servers.append(standby)
            self._attach_standby(primary, standby)
        self.activity = cluster.PsqlSession(self.pg_bindir, lambda: self.pg_primary().url())

    def _attach_standby(self, primary, standby):
        """standby made from primary (pg_basebackup -R), started, and made
        the primary's synchronous standby: a commit waits for it. With
        --async it stays asynchronous (no synchronous_standby_names): a
        commit does not wait, and a failover may lose what it had not
        received yet."""
        cluster.remove_tree(standby.data)
        standby.base_backup_from(primary)
        standby.start()
        want = "async" if self.args.use_async else "sync"
        if not self.args.use_async:
            primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'")
            primary.psql("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            rows = primary.psql("SELECT sync_state FROM pg_stat_replication")
            if any(r[0] == want for r in rows):
                return
            time.sleep(0.2)
        raise SetupFailed(f"the standby did not stream ({want}) within 60 s")

    def _freeze_receiver(self, standby):
        """SIGSTOP the standby's WAL receiver (waiting for one to exist: after a
        restart of the primary it connects again within
        wal_retrieve_retry_interval, 5 s); its pids."""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            pids = standby.pids_titled("walreceiver")
            if pids:
                for pid in pids:
                    os.kill(pid, signal.SIGSTOP)
                return pids
            time.sleep(0.2)
        raise RuntimeError(f"no walreceiver process of {standby.name} to freeze")

    @staticmethod
    def _thaw(pids):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def _promote(self, old, new):
        new.promote()
        self.servers = [new, old]
        self.failovers += 1
        took = time.monotonic()
        self._attach_standby(new, old)
        return f"promoted {new.name}; new standby {old.name} in {time.monotonic() - took:.1f} s"

    def restart_failover(self, gap_s):
        """The primary restarted -m immediate (cutting the commits that wait
        for the standby); gap_s later, before the standby is streaming again,
        the primary stopped -m immediate and the standby promoted."""
        old, new = self.servers[0], self.servers[1]
        old.restart("immediate")
        time.sleep(gap_s)
        old.stop("immediate")
        return f"restarted -m immediate, {gap_s:.1f} s later " + self._promote(old, new)

    def failover(self, stall_s=0.0):
        """The primary dies (immediate), the standby is promoted; then a new
        standby is made from it where the old primary was. stall_s: the
        standby's WAL receiver is frozen that long first (it falls behind
        while commits wait for it)."""
        old, new = self.servers[0], self.servers[1]
        frozen = self._freeze_receiver(new) if stall_s else []
        try:
            time.sleep(stall_s)
            old.stop("immediate")
        finally:
            self._thaw(frozen)
        return (f"receiver frozen {stall_s:.1f} s, " if stall_s else "") + self._promote(old, new)

    # ------------------------------------------------------------ nodes
    def node_env(self):
        # The sanitizer build's leak report ignores what gRPC keeps until its
        # shutdown, as in the end-to-end tests (tests/lsan.supp).
        supp = os.path.normpath(os.path.join(HERE, "..", "lsan.supp"))
        env = dict(os.environ, SUNGKA_CHECK_REPLAY="1", LSAN_OPTIONS=f"suppressions={supp}",
                   XDG_DATA_HOME=os.path.join(self.workdir, "xdg", "data"),
                   XDG_STATE_HOME=os.path.join(self.workdir, "xdg", "state"),
                   XDG_CONFIG_HOME=os.path.join(self.workdir, "xdg", "config"),
                   XDG_CACHE_HOME=os.path.join(self.workdir, "xdg", "cache"),
                   LC_MESSAGES="C")
        env.pop("PGOPTIONS", None)
        return env

    def start_nodes(self):
        env = self.node_env()
        # Everything comes from one client address (127.0.0.1): the limits
        # per address are raised so that they never stand in the workload's way.
        extra = ["--max-games-per-client", "10000", "--client-join-rate", "10000",
                 "--max-client-streams", "10000", "--max-streams", "1000",
                 "--client-lookups", "10000"]
        nodes = [cluster.Node(i + 1, self.bindir, self.db_url(), self.logdir, self.lease_s,
                              env, extra=extra) for i in range(self.args.nodes)]
        if self.net:
            for n in nodes:
                self.net.place(n)
        if self.args.relays:
            self.start_relays([n.endpoint for n in nodes], env)
            # A game's first observer watches at its node, the next ones are
            # sent to the relays in turn (docs/cluster.md, "Relays").
            for n in nodes:
                n.extra += ["--relays", ",".join(r.endpoint for r in self.relays),
                            "--relay-after", "1"]
        for n in nodes:
            for attempt in range(3):
                if n.start():
                    break
                if not self.net:
                    n.port = cluster.free_port()          # taken meanwhile: another
                    n.endpoint = f"{n.host}:{n.port}"
            else:
                raise SetupFailed(f"node {n.name} did not start:\n{n.tail_text(3000)}")
            self.nodes.append(n)
        threading.Thread(target=self._monitor, name="monitor", daemon=True).start()

    def start_relays(self, upstream, env):
        """--relays N sungka-relays beside the workload (in PREFIX-c with
        --netns), each on a port of 127.0.0.1 that the nodes' --relays name."""
        for i in range(self.args.relays):
            r = cluster.Relay(i + 1, self.bindir, ",".join(upstream), self.logdir, env)
            for attempt in range(3):
                if r.start():
                    break
                r.port = cluster.free_port()
                r.endpoint = f"{r.host}:{r.port}"
            else:
                raise SetupFailed(f"relay {r.name} did not start:\n{r.tail_text(3000)}")
            self.relays.append(r)

    def servers_watched(self):
        """The nodes and the relays: what the monitor restarts and the
        checker's crash lines come from."""
        return self.nodes + self.relays

    def restart_node(self, node, within=60.0):
        """Start a node again on its port, trying for a while (the database
        may be restarting)."""
        deadline = time.monotonic() + within
        with self.node_lock:
            while time.monotonic() < deadline:
                if node.start():
                    return True
                time.sleep(1.0)
        return False

    def _monitor(self):
        """A node that exits without the test killing it is a crash: noted,
        and started again so that the run goes on."""
        while not self.stop_monitor.wait(0.3):
            with self.node_lock:
                for n in self.servers_watched():
                    if n.p is None or n.expected_exit or n.p.poll() is None:
                        continue
                    rc = n.p.returncode
                    self.crashes.append(dict(node=n.name, incarnation=n.incarnation,
                                             returncode=rc, t=self.now()))
                    self.log(f"[{self.now():7.1f}] node {n.name} exited {rc} unexpectedly; "
                             f"its log ends:\n{n.tail_text(1500)}")
                    n.expected_exit = True
                    if not self.stop_monitor.is_set():
                        self.restart_node(n, within=30)

    def heal(self):
        """Every node running and awake, every link up."""
        with self.node_lock:
            for n in self.servers_watched():
                if n.stopped:
                    n.thaw()
                if not n.alive():
                    self.restart_node(n)
        if self.net:
            self.net.mend_all()

    # ------------------------------------------------------------ the run
    def execute(self):
        a = self.args
        import workload
        workload.generate(os.path.join(self.workdir, "stubs"))
        self.log(f"chaos: seed {a.seed}, {a.games} games, {a.nodes} nodes, lease {a.lease} s, "
                 f"faults for {a.duration} s, settle {a.settle} s, kinds {','.join(a.kinds)}; "
                 f"in {self.workdir}")
        if a.inside:
            self.net = netns.Net(a.inside, a.nodes)
        self.start_pg()
        self.start_nodes()
        self.log(f"[{self.now():7.1f}] PostgreSQL on "
                 + ", ".join(f"{s.name}:{s.port}" for s in self.servers)
                 + "; nodes " + ", ".join(f"{n.name}={n.endpoint}" for n in self.nodes)
                 + "".join(f", relay {r.name}={r.endpoint}" for r in self.relays))
        self.record = workload.Record(self.t0)
        self.workload = workload.Workload([n.endpoint for n in self.nodes], a.games, a.seed,
                                          self.record, pace=(a.pace_min, a.pace_max),
                                          log=self.log, observers=3 if a.relays else 0,
                                          relays=[r.endpoint for r in self.relays])
        self.workload.start()
        f = faults_mod.Faults(self, a.kinds, a.seed, log=self.log)
        self.faults = f
        until = self.now() + a.duration
        stop = threading.Event()
        progress = threading.Thread(target=self._progress, args=(stop,), daemon=True)
        progress.start()
        f.campaign(until, gap=(a.gap_min, a.gap_max), stop=threading.Event())
        self.heal()
        self.faults_end = self.now()
        self.log(f"[{self.now():7.1f}] faults over ({len(f.done)}); settling {a.settle} s")
        time.sleep(a.settle)
        self.settle_end = self.now()
        stop.set()
        self.workload.finish()
        self.log(f"[{self.now():7.1f}] workload stopped: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.workload.counters.snapshot()
                                                           .items())))
        for key, texts in sorted(self.workload.counters.samples.items()):
            for text, n in texts.items():
                self.log(f"    {key}: {n} x \"{text}\"")
        self.stop_monitor.set()
        with self.node_lock:
            for n in self.servers_watched():
                n.final_exit = n.terminate()
        self.dump_store()
        self.write_history()
        v = checker.check(self.workdir, workload.pb)
        return v

    def _progress(self, stop):
        while not stop.wait(15):
            c = self.workload.counters.snapshot()
            self.log(f"[{self.now():7.1f}] acknowledged {c.get('moves acknowledged', 0)} moves, "
                     f"{c.get('games finished', 0)} games finished, "
                     f"{len(self.workload.active_games())} playing")

    def dump_store(self):
        pg = self.pg_primary()
        ev = pg.psql("SELECT game_id, seq, encode(data, 'hex') FROM events ORDER BY game_id, seq",
                     db=DB_NAME, timeout=120)
        with open(os.path.join(self.workdir, "events.tsv"), "w") as f:
            for game, seq, data in ev:
                f.write(f"{game}\t{seq}\t{data}\n")
        games = pg.psql("SELECT id, status FROM games ORDER BY id", db=DB_NAME)
        with open(os.path.join(self.workdir, "games_db.tsv"), "w") as f:
            for gid, status in games:
                f.write(f"{gid}\t{status}\n")

    def write_history(self):
        rec = self.record
        d = self.workdir

        def dump(name, rows):
            with open(os.path.join(d, name), "w") as f:
                for r in rows:
                    f.write(json.dumps(r, sort_keys=True) + "\n")
        with rec.lock:
            dump("acks.jsonl", rec.acks)
            dump("seen.jsonl", rec.seen)
            dump("anomalies.jsonl", rec.anomalies)
            dump("refusals.jsonl", rec.refusals)
            dump("games.jsonl", [dict(id=g.id, slot=g.slot, started=g.started_t, over=g.over,
                                      last_ack=g.last_ack_t, acked=g.acked, host=g.host)
                                 for g in rec.games.values()])
            dump("observers.jsonl", rec.observers)
            dump("snapshots.jsonl", rec.snapshots)
        dump("faults.jsonl", self.faults.done)
        nodes = []
        for n in self.servers_watched():
            with open(n.log, errors="replace") as fh:
                lines = [l.rstrip("\n") for l in fh if CRASH.search(l)]
            nodes.append(dict(name=n.name, endpoint=n.endpoint, incarnations=n.incarnation,
                              failed_starts=n.exits,
                              unexpected_exits=[c for c in self.crashes if c["node"] == n.name],
                              crash_lines=lines[:20], final_exit=getattr(n, "final_exit", None)))
        with open(os.path.join(d, "nodes.json"), "w") as f:
            json.dump(nodes, f, indent=1)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(dict(seed=self.args.seed, duration=self.args.duration,
                           t0_wall=self.t0_wall, kinds=self.args.kinds,
                           settle=self.args.settle, games=self.args.games,
                           faults_end=self.faults_end, settle_end=self.settle_end,
                           stuck_after=self.args.stuck_after, failovers=self.failovers,
                           use_async=self.args.use_async,
                           relay_endpoints=[r.endpoint for r in self.relays],
                           counters=self.workload.counters.snapshot()), f, indent=1)

    # ------------------------------------------------------------ cleanup
    def cleanup(self):
        """Stop and remove everything this run started; safe twice, and from
        any thread."""
        if self.cleaned:
            return
        self.cleaned = True
        self.stop_monitor.set()
        try:
            if self.workload:
                self.workload.stop.set()
        except Exception:
            pass
        for n in self.servers_watched():
            try:
                n.expected_exit = True
                n.kill()
            except Exception:
                pass
        if self.activity:
            self.activity.close()
        for s in self.servers:
            try:
                s.stop("immediate")
            except Exception as e:
                print(f"chaos: could not stop PostgreSQL in {s.data}: {e}", file=sys.stderr)
        if self.net:
            try:
                self.net.teardown()
            except Exception as e:
                print(f"chaos: could not remove the namespaces: {e}", file=sys.stderr)
        if not self.args.keep:
            cluster.remove_tree(self.workdir)


def parse(argv):
    p = argparse.ArgumentParser(description="A fault campaign against a cluster of "
                                            "sungka-board nodes on PostgreSQL.")
    p.add_argument("bindir", help="the directory of sungka-board")
    p.add_argument("--duration", type=float, default=75, help="seconds of faults (75)")
    p.add_argument("--settle", type=float, default=25,
                   help="seconds of play without faults after them (25)")
    p.add_argument("--stuck-after", type=float, default=15,
                   help="a game without a move for this long at the end is stuck (15)")
    p.add_argument("--seed", type=int, default=None, help="the random seed (printed)")
    p.add_argument("--games", type=int, default=6, help="games played at once (6)")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--lease", type=int, default=2, help="the nodes' --lease in seconds (2)")
    p.add_argument("--kinds", default=None,
                   help="fault kinds, comma separated (faults.py); by default "
                        f"{','.join(faults_mod.SHORT_KINDS)}, with --standby also "
                        f"{','.join(faults_mod.STANDBY_KINDS)}, with --netns also "
                        f"{','.join(faults_mod.NETNS_KINDS)}, with --relays also "
                        f"{','.join(faults_mod.RELAY_KINDS)}")
    p.add_argument("--standby", action="store_true",
                   help="a synchronous streaming standby, and failovers to it")
    p.add_argument("--async", dest="use_async", action="store_true",
                   help="the standby asynchronous (implies --standby): a failover may lose "
                        "acknowledged moves, and the checker reports whether the service "
                        "stopped each game that lost some (detected) or went on (diverged)")
    p.add_argument("--netns", action="store_true",
                   help="each node in a network namespace of its own, and partitions")
    p.add_argument("--relays", type=int, default=0, metavar="N",
                   help="N sungka-relays (0): each game gets three observers, the first at "
                        "its node and the others sent to the relays, and the fault relay_kill")
    p.add_argument("--gap-min", type=float, default=3.0, help="seconds between faults, least")
    p.add_argument("--gap-max", type=float, default=7.0, help="seconds between faults, most")
    p.add_argument("--pace-min", type=float, default=0.1, help="a game's pause between moves")
    p.add_argument("--pace-max", type=float, default=0.4)
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (logs, history)")
    p.add_argument("--keep-failed", metavar="DIR",
                   help="when the checker fails, copy the logs and the history to DIR/seed-N")
    p.add_argument("--hard-limit", type=float, default=None,
                   help="stop everything after this many seconds (duration + settle + 150)")
    p.add_argument("--json", metavar="OUT", help="write the verdict and figures to OUT")
    # With --netns, the parent makes the namespaces and runs this again
    # inside PREFIX-c with these two.
    p.add_argument("--inside", metavar="PREFIX", help=argparse.SUPPRESS)
    p.add_argument("--workdir", metavar="DIR", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1, 1 << 31)
    if a.use_async:
        a.standby = True
    if not 0 <= a.relays <= 8:
        p.error(f"--relays takes 0 to 8 relays, not {a.relays}")
    if a.kinds is None:
        a.kinds = list(faults_mod.SHORT_KINDS)
        if a.standby:
            a.kinds += faults_mod.STANDBY_KINDS
        if a.netns:
            a.kinds += faults_mod.NETNS_KINDS
        if a.relays:
            a.kinds += faults_mod.RELAY_KINDS
    else:
        a.kinds = [k for k in a.kinds.split(",") if k]
    for k in a.kinds:
        if not hasattr(faults_mod.Faults, k):
            p.error(f"no fault kind {k}")
    if {"failover", "stall_failover", "restart_failover"} & set(a.kinds) and not a.standby:
        p.error("the faults failover, stall_failover and restart_failover need --standby")
    for k in faults_mod.NETNS_KINDS:
        if k in a.kinds and not a.netns:
            p.error(f"the fault {k} needs --netns")
    if "relay_kill" in a.kinds and not a.relays:
        p.error("the fault relay_kill needs --relays N (N at least 1)")
    if a.hard_limit is None:
        a.hard_limit = a.duration + a.settle + 150
    if a.settle <= a.stuck_after + 5:
        p.error("--settle must be longer than --stuck-after + 5 s")
    return a


def outside(args, argv):
    """--netns: make the namespaces, run chaos.py again inside PREFIX-c
    (with --inside, --workdir and the same seed), and remove the namespaces
    and everything left in them afterwards, whatever became of that run."""
    if os.geteuid() != 0:
        print("FAIL chaos: --netns needs root (ip netns)")
        return 3
    prefix = f"skc{os.getpid() % 100000}"
    workdir = args.keep or tempfile.mkdtemp(prefix="sungka-chaos-")
    os.makedirs(workdir, exist_ok=True)
    child = None

    def on_signal(signum, frame):
        raise SystemExit(f"chaos: signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        ns = netns.setup(prefix, args.nodes)
        inner = [a for i, a in enumerate(argv)
                 if not (a == "--seed" or (i > 0 and argv[i - 1] == "--seed"))]
        child = subprocess.Popen(["ip", "netns", "exec", ns["c"], sys.executable,
                                  os.path.abspath(__file__), *inner, "--seed", str(args.seed),
                                  "--inside", prefix, "--workdir", workdir])
        try:
            return child.wait(args.hard_limit + 90)
        except subprocess.TimeoutExpired:
            print("FAIL chaos: the run inside the namespaces did not end; killing it")
            return 3
    finally:
        if child and child.poll() is None:
            child.kill()
            child.wait(10)
        netns.teardown(prefix, args.nodes)
        if not args.keep:
            cluster.remove_tree(workdir)


def main(argv):
    args = parse(argv)
    if args.netns and not args.inside:
        return outside(args, argv)
    started = time.monotonic()
    run = Run(args)
    atexit.register(run.cleanup)

    def on_signal(signum, frame):
        raise SystemExit(f"chaos: signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def hard_limit():
        time.sleep(args.hard_limit)
        print(f"FAIL chaos: past the hard limit of {args.hard_limit:.0f} s; stopping",
              flush=True)
        traceback.print_stack(sys._current_frames().get(threading.main_thread().ident))
        run.cleanup()
        os._exit(3)
    threading.Thread(target=hard_limit, name="hard limit", daemon=True).start()

    try:
        v = run.execute()
    except (SetupFailed, RuntimeError) as e:
        print(f"FAIL chaos: {e}", flush=True)
        run.cleanup()
        return 3
    finally:
        pass
    took = time.monotonic() - started
    print(f"chaos summary (seed {args.seed}, {took:.0f} s):")
    for line in v.lines:
        print("  " + line)
    for line in v.details:
        print("    " + line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(seed=args.seed, seconds=round(took, 1), failed=v.failed,
                           metrics=v.lines, details=v.details,
                           counters=run.workload.counters.snapshot(),
                           faults=run.faults.done), f, indent=1)
    if v.failed:
        print(f"FAIL chaos: {', '.join(v.failed)} (seed {args.seed}; rerun with --seed "
              f"{args.seed} --keep DIR to keep the logs)")
        if args.keep_failed and not args.keep:
            dest = os.path.join(args.keep_failed, f"seed-{args.seed}")
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(run.workdir, dest,
                            ignore=lambda d, names: [n for n in names
                                                     if n in ("pg1", "pg2", "stubs", "xdg")])
            print(f"chaos: the logs and the history are kept in {dest}")
        if not args.keep:
            # The nodes' logs are the evidence: say where the worst lines are.
            for n in run.nodes:
                print(f"--- {n.name} log, last lines:\n{n.tail_text(2500)}")
    else:
        print(f"ok chaos ({took:.0f} s)")
    run.cleanup()
    return 1 if v.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
