"""netns.py — separate machines on one machine for the chaos test's long run
(TESTING.md, "Separate machines on one machine"; --netns).

Namespaces, all named PREFIX-*: PREFIX-br holds a bridge br0; PREFIX-c is the
"client machine", where chaos.py itself runs (re-executed there by the
parent) with the workload and PostgreSQL (10.77.0.1); PREFIX-nI is node I's
machine (10.77.0.(10+I), port 7070). Each machine's eth0 is one end of a
veth pair whose other end, pc or pnI, is a port of br0. A partition switches
a node's bridge port off (`bridge link set dev pnI state 0`): its frames
vanish, its link stays up, so the node sees silence, not errors, from the
database and from the players alike; state 3 (forwarding) heals it.

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
NODE_PORT = 7070


def node_addr(i):
    return f"{SUBNET}.{10 + i}"


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
        _ip("-n", ns["br"], "link", "add", "br0", "type", "bridge")
        _ip("-n", ns["br"], "link", "set", "br0", "up")
        ends = [(ns["c"], "pc", CLIENT_ADDR)] + \
            [(name, f"pn{i}", node_addr(i)) for i, name in enumerate(ns["nodes"], 1)]
        for name, port, addr in ends:
            _ip("-n", ns["br"], "link", "add", port, "type", "veth", "peer", "name", "eth0",
                "netns", name)
            _ip("-n", ns["br"], "link", "set", port, "master", "br0", "up")
            _ip("-n", name, "addr", "add", f"{addr}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
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
        self.cut_now = set()

    def place(self, node):
        """Node i runs in PREFIX-ni at node_addr(i):7070."""
        node.host = node_addr(node.index)
        node.port = NODE_PORT
        node.endpoint = f"{node.host}:{node.port}"
        node.wrap = ["ip", "netns", "exec", self.ns["nodes"][node.index - 1]]

    def _state(self, node, state):
        r = subprocess.run(["ip", "netns", "exec", self.ns["br"], "bridge", "link", "set",
                            "dev", f"pn{node.index}", "state", str(state)],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(f"bridge link set dev pn{node.index} state {state}: "
                               f"{r.stderr.strip()}")

    def cut(self, node):
        self._state(node, 0)
        self.cut_now.add(node.index)

    def mend(self, node):
        self._state(node, 3)
        self.cut_now.discard(node.index)

    def mend_all(self):
        for i in list(self.cut_now):
            self._state(type("N", (), {"index": i}), 3)
            self.cut_now.discard(i)

    def teardown(self):
        pass          # the parent removes the namespaces
