"""netns.py — separate machines on one machine for the chaos test's long run
(TESTING.md, "Separate machines on one machine"; --netns).

Namespaces, all named PREFIX-*: PREFIX-br holds two bridges; PREFIX-c is
the "client machine", where chaos.py itself runs (re-executed there by the
parent) with the workload, the relays and PostgreSQL; PREFIX-nI is node I's
machine. Two networks join them:
  the players' network, bridge br0: PREFIX-c's eth0 (10.77.0.1) and node I's
    eth0 (10.77.0.(10+I), the node listens there on port 7070); bridge
    ports pc and pnI;
  the database network, bridge br1: PREFIX-c's eth1 (10.78.0.1, where
    PostgreSQL also listens and the nodes connect) and node I's eth1
    (10.78.0.(10+I)); bridge ports dc and dnI.
A partition switches a node's bridge ports off (`bridge link set dev pnI
state 0`): its frames vanish, its links stay up, so the node sees silence,
not errors; state 3 (forwarding) heals it. `partition` switches off both of
its ports (cut off from the database and from the players alike),
`partition_players` only pnI (the database still reachable).

The parent (outside every namespace) makes them before the run and removes
them after it, whatever became of the run: every process still in one of
them is killed first (`ip netns pids`), PostgreSQL's included.
"""
import os
import signal
import subprocess
import time

SUBNET = "10.77.0"
CLIENT_ADDR = f"{SUBNET}.1"
DB_SUBNET = "10.78.0"
DB_ADDR = f"{DB_SUBNET}.1"          # PostgreSQL, as the nodes reach it
NODE_PORT = 7070


def node_addr(i):
    return f"{SUBNET}.{10 + i}"


def node_db_addr(i):
    return f"{DB_SUBNET}.{10 + i}"


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r


def names(prefix, n_nodes):
    return dict(br=f"{prefix}-br", c=f"{prefix}-c",
                nodes=[f"{prefix}-n{i}" for i in range(1, n_nodes + 1)])


def setup(prefix, n_nodes):
    """Make the namespaces, the bridge and the links; on failure, remove
    what was made and raise."""
    ns = names(prefix, n_nodes)
    try:
        for name in [ns["br"], ns["c"], *ns["nodes"]]:
            _ip("netns", "add", name)
            _ip("-n", name, "link", "set", "lo", "up")
        for bridge, dev, prefix_port, client_addr, addr_of in (
                ("br0", "eth0", "p", CLIENT_ADDR, node_addr),
                ("br1", "eth1", "d", DB_ADDR, node_db_addr)):
            _ip("-n", ns["br"], "link", "add", bridge, "type", "bridge")
            _ip("-n", ns["br"], "link", "set", bridge, "up")
            ends = [(ns["c"], f"{prefix_port}c", client_addr)] + \
                [(name, f"{prefix_port}n{i}", addr_of(i))
                 for i, name in enumerate(ns["nodes"], 1)]
            for name, port, addr in ends:
                _ip("-n", ns["br"], "link", "add", port, "type", "veth", "peer", "name", dev,
                    "netns", name)
                _ip("-n", ns["br"], "link", "set", port, "master", bridge, "up")
                _ip("-n", name, "addr", "add", f"{addr}/24", "dev", dev)
                _ip("-n", name, "link", "set", dev, "up")
    except Exception:
        teardown(prefix, n_nodes)
        raise
    return ns


def teardown(prefix, n_nodes):
    """Kill every process left in the namespaces, then delete them."""
    ns = names(prefix, n_nodes)
    existing = set(_ip("netns", "list", check=False).stdout.split())
    every = [n for n in [ns["c"], *ns["nodes"], ns["br"]] if n in existing]
    for _ in range(3):
        pids = []
        for name in every:
            r = _ip("netns", "pids", name, check=False)
            pids += [int(p) for p in r.stdout.split() if p.isdigit()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
    for name in every:
        _ip("netns", "del", name, check=False)


class Net:
    """The run's view of the namespaces (inside PREFIX-c)."""

    def __init__(self, prefix, n_nodes):
        self.ns = names(prefix, n_nodes)
        self.cut_now = set()          # bridge ports switched off: pn1, dn2, ...

    def place(self, node):
        """Node i runs in PREFIX-ni at node_addr(i):7070."""
        node.host = node_addr(node.index)
        node.port = NODE_PORT
        node.endpoint = f"{node.host}:{node.port}"
        node.wrap = ["ip", "netns", "exec", self.ns["nodes"][node.index - 1]]

    def _state(self, port, state):
        r = subprocess.run(["ip", "netns", "exec", self.ns["br"], "bridge", "link", "set",
                            "dev", port, "state", str(state)],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(f"bridge link set dev {port} state {state}: {r.stderr.strip()}")
        if state == 0:
            self.cut_now.add(port)
        else:
            self.cut_now.discard(port)

    def cut(self, node):
        """The node cut off from the players and from the database."""
        self._state(f"pn{node.index}", 0)
        self._state(f"dn{node.index}", 0)

    def cut_players(self, node):
        """The node cut off from the players (and the relays, and the other
        nodes' answers to them); the database still reachable."""
        self._state(f"pn{node.index}", 0)

    def mend(self, node):
        self._state(f"pn{node.index}", 3)
        self._state(f"dn{node.index}", 3)

    def mend_all(self):
        for port in sorted(self.cut_now):
            self._state(port, 3)

    def teardown(self):
        pass          # the parent removes the namespaces
