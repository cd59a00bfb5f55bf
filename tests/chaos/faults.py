"""faults.py — the chaos test's faults, one at a time, chosen by a seeded
random generator (TESTING.md, "A fault campaign, Jepsen-style").

Kinds (SHORT_KINDS are the short run's; STANDBY_KINDS need --standby,
NETNS_KINDS --netns):
  kill9          kill -9 of a node, then the same node started again on its
                 port after 0..2 s (it takes its games back at once);
  stop_lease     SIGSTOP of a node for its lease plus 1..3 s, then SIGCONT:
                 the others adopt its games, and it must notice it lost them;
  stop_idle_tx   SIGSTOP of a node at a moment pg_stat_activity shows its
                 session `idle in transaction` (between a move's writes and
                 its COMMIT), for 3..8 s: shorter and longer than the
                 sessions' idle_in_transaction_session_timeout (5 s). Best
                 effort: the node is stopped, looked at, and let go again at
                 once when its session is not in a transaction, up to a
                 bound; a miss is counted and the node is frozen anyway;
  pg_fast        pg_ctl restart -m fast (sessions ended, clean shutdown);
  pg_immediate   pg_ctl restart -m immediate (a crash; WAL replay at start);
  failover       long run with --standby: the primary stopped -m immediate,
                 the synchronous standby promoted, a new standby made from
                 it on the old port (pg_basebackup -R) and made synchronous;
  stall_failover long run with --standby: the standby's WAL receiver frozen
                 (SIGSTOP) for 6..9 s, longer than the sessions'
                 statement_timeout (5 s), while commits wait for it (and
                 the nodes' loops with them); then the primary stopped -m
                 immediate, the receiver let go and the standby promoted, as
                 in failover. A synchronous deployment must lose no
                 acknowledged move (PRINCIPLES.md, "Durable before visible");
  restart_failover  long run with --standby: pg_ctl restart -m immediate of
                 the primary, then 2..4.5 s later, before the standby's WAL
                 receiver is back (wal_retrieve_retry_interval is 5 s), a
                 failover as above. A commit the crash cut is committed on
                 the restarted primary and never reached the standby: what
                 the nodes read of it in between they must not show;
  partition      long run with --netns: a node's bridge ports switched off
                 (`bridge link set dev PORT state 0`: frames vanish, the links
                 stay up), cutting it off from the database and the players,
                 for its lease plus 2..5 s or for 11..15 s (past the sessions'
                 tcp_user_timeout), then on again;
  partition_players  long run with --netns: only the node's port on the
                 players' network switched off, for as long: the players,
                 the relays and the other nodes' clients cannot reach it, the
                 database can. The node keeps its lease, so its games stay
                 with it (no failover) and wait for the cut to heal;
  relay_kill     with --relays: kill -9 of a relay, started again on its
                 port 0..2 s later. Its observers find their chair gone and
                 join again through the nodes, which send them to a relay.
Each fault is logged with the games it affects (the games hosted by the
node, or every game for the database's faults; for relay_kill the observers
that were watching at that relay) and its start and end, on the run's clock,
for the checker's recovery times.
"""
import random
import time

NODE_KINDS = ("kill9", "stop_lease", "stop_idle_tx")
PG_KINDS = ("pg_fast", "pg_immediate")
SHORT_KINDS = NODE_KINDS + PG_KINDS
STANDBY_KINDS = ("failover", "stall_failover", "restart_failover")
NETNS_KINDS = ("partition", "partition_players")
RELAY_KINDS = ("relay_kill",)


class Faults:
    def __init__(self, run, kinds, seed, log=print):
        self.run = run            # chaos.Run: nodes, pg, workload, record, restart_node()
        self.kinds = list(kinds)
        self.rng = random.Random(f"{seed}/faults")
        self.bag = []
        self.log = log
        self.done = []            # dicts: kind, node, start, end, affected, detail

    def _next_kind(self):
        """Every kind once, in a shuffled order, then again: a short run sees
        them all."""
        if not self.bag:
            self.bag = list(self.kinds)
            self.rng.shuffle(self.bag)
        return self.bag.pop()

    def campaign(self, until, gap=(3.0, 7.0), stop=None):
        """Faults one after the other until the run's clock passes `until`."""
        rec = self.run.record
        stop.wait(self.rng.uniform(*gap))
        while not stop.is_set() and rec.now() < until:
            kind = self._next_kind()
            try:
                getattr(self, kind)()
            except Exception as e:       # a fault that could not be made is reported
                self.log(f"fault {kind} could not be made: {e}")
                self.done.append(dict(kind=kind, node=None, start=rec.now(), end=rec.now(),
                                      affected=[], detail=f"failed: {e}"))
            self.run.heal()
            stop.wait(self.rng.uniform(*gap))

    def _begin(self, kind, node=None, clients=None):
        rec = self.run.record
        wl = self.run.workload
        if clients is not None:
            affected = []
        else:
            affected = wl.games_on(node.endpoint) if node else [g.id for g in wl.active_games()]
        f = dict(kind=kind, node=node.name if node else None, start=rec.now(), end=None,
                 affected=affected, detail="")
        if clients is not None:
            f["clients"] = clients
            affected = clients
        self.log(f"[{f['start']:7.1f}] {time.strftime('%H:%M:%S')} fault {kind}" +
                 (f" {node.name}" if node else "") + f": {len(affected)} "
                 + ("observer(s)" if clients is not None else "game(s)") + " affected")
        return f

    def _end(self, f, detail=""):
        f["end"] = self.run.record.now()
        f["detail"] = detail
        self.done.append(f)

    def _victim(self):
        live = [n for n in self.run.nodes if n.alive() and not n.stopped]
        return self.rng.choice(live or self.run.nodes)

    # ------------------------------------------------------------ nodes
    def kill9(self):
        node = self._victim()
        f = self._begin("kill9", node)
        node.kill()
        time.sleep(self.rng.uniform(0.0, 2.0))
        ok = self.run.restart_node(node)
        self._end(f, "restarted" if ok else "could not be restarted")

    def stop_lease(self):
        node = self._victim()
        hold = self.run.lease_s + self.rng.uniform(1.0, 3.0)
        f = self._begin("stop_lease", node)
        node.freeze()
        time.sleep(hold)
        node.thaw()
        self._end(f, f"stopped {hold:.1f} s")

    def stop_idle_tx(self, attempts=400, within=8.0):
        node = self._victim()
        hold = self.rng.uniform(3.0, 8.0)
        q = self.run.activity
        app = f"chaos-{node.name}"
        sql = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s' "
               "AND state = 'idle in transaction'" % app)
        deadline = time.monotonic() + within
        tries = 0
        hit = False
        f = None
        while tries < attempts and time.monotonic() < deadline:
            tries += 1
            node.freeze()
            rows = q.query(sql)
            if rows and rows[0] and rows[0][0] not in ("", "0"):
                hit = True
                break
            node.thaw()
            time.sleep(self.rng.uniform(0.0, 0.02))
        if hit:
            f = self._begin("stop_idle_tx", node)
        else:
            f = self._begin("stop_idle_tx", node)
            f["kind"] = "stop_idle_tx_missed"
            node.freeze()
        time.sleep(hold)
        node.thaw()
        self._end(f, f"{'in a transaction' if hit else 'missed'} after {tries} look(s), "
                     f"stopped {hold:.1f} s")

    # ------------------------------------------------------------ database
    def _pg_restart(self, mode):
        f = self._begin(f"pg_{mode}")
        self.run.pg_primary().restart(mode)
        self._end(f, f"pg_ctl restart -m {mode}")

    def pg_fast(self):
        self._pg_restart("fast")

    def pg_immediate(self):
        self._pg_restart("immediate")

    def failover(self):
        f = self._begin("failover")
        detail = self.run.failover()
        self._end(f, detail)

    def stall_failover(self):
        f = self._begin("stall_failover")
        hold = self.rng.uniform(6.0, 9.0)
        detail = self.run.failover(stall_s=hold)
        self._end(f, detail)

    def restart_failover(self):
        f = self._begin("restart_failover")
        gap = self.rng.uniform(2.0, 4.5)
        detail = self.run.restart_failover(gap)
        self._end(f, detail)

    # ------------------------------------------------------------ network
    def _partition_hold(self):
        # Half of them past the sessions' tcp_user_timeout (10 s): the node's
        # connection to the database is given up while cut off.
        return (self.run.lease_s + self.rng.uniform(2.0, 5.0) if self.rng.random() < 0.5
                else self.rng.uniform(11.0, 15.0))

    def partition(self):
        node = self._victim()
        hold = self._partition_hold()
        f = self._begin("partition", node)
        self.run.net.cut(node)
        time.sleep(hold)
        self.run.net.mend(node)
        self._end(f, f"cut off {hold:.1f} s")

    def partition_players(self):
        node = self._victim()
        hold = self._partition_hold()
        f = self._begin("partition_players", node)
        self.run.net.cut_players(node)
        time.sleep(hold)
        self.run.net.mend(node)
        self._end(f, f"cut off from the players {hold:.1f} s")

    # ------------------------------------------------------------ relays
    def relay_kill(self):
        relay = self.rng.choice(self.run.relays)
        f = self._begin("relay_kill", relay,
                        clients=self.run.workload.observers_at(relay.endpoint))
        relay.kill()
        time.sleep(self.rng.uniform(0.0, 2.0))
        ok = self.run.restart_node(relay)
        self._end(f, "restarted" if ok else "could not be restarted")
