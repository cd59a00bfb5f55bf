#!/usr/bin/python3
"""soak.py — many observers and bot games on one board service, with agents
killed and restarted at random, for a bounded time.

    soak.py BINDIR [--games N] [--observers M] [--seconds S] [--kills K]
                   [--think MS] [--kill-window S] [--seed X] [--json OUT] [--keep]

One sungka-board (its own temporary database and XDG directories) hosts N
games; each is played to its end by two sungka-player bots (--view bot, each
with a state directory of its own so it can take its seat back after a
crash). M observers, spread evenly over the games, run in this one process on
grpc.aio (asyncio): each joins with observe=true, subscribes from a fresh
snapshot, answers every ping and records every event it gets. While the games
run, K times at random moments a bot whose game is under way is SIGKILLed
and started again with the same arguments; it must take its seat back and
the game must go on.

At the end it checks that
  - every observer got a contiguous run of sequence numbers from its
    snapshot's last_seq+1 up to its game's GameOver: no gap, no repeat, and
    no observer was dropped;
  - all observers of a game saw the same moves and the same GameOver, and
    that result is the one both bots printed ("Result: ... Scores: ...");
  - Register.GetMatch of every game says finished, with the same scores,
    winners and moves (in order) as the observers saw;
  - the service still answers its health check, K agents were killed, and
    its VmRSS at the end is below the RSS after setup + 256 MiB (both are
    printed, with the peak).
Everything it started is killed (process groups) and its temporary directory
removed, whether it passes or fails.

The games are made long enough (several seconds) for kills to land while
they are under way: the bots are level 9-10 with --think MS (default 250) on
reversi 8x8 and kalah 8x6, boards where the search uses its whole time. The
bots run under `nice -n 19`, so their searching loads the machine without
starving the service under test.

The bots are put in process groups of their own but stay in this session:
with the kernel's autogroup scheduling each session is scheduled as a group,
so bots in sessions of their own would each get as much CPU as the service
and starve it (events then arrive seconds late and the service's HTTP/2
keepalive drops whole observer connections).

ctest runs a small soak (tests/soak/CMakeLists.txt: 10 games, 100 observers,
5 kills, about 20 s). The full size, under a minute on a 2-core machine:

    /usr/bin/python3 tests/soak/soak.py build/bin --games 50 --observers 500 \
        --kills 50 --seconds 600 --json soak.json

Needs Debian's python3-grpcio (run it with /usr/bin/python3); the wire
format comes from tests/e2e/wire.py, so no generated code is needed.
"""
import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import wire  # noqa: E402
from harness import SANITIZER  # noqa: E402

try:
    import grpc
    import grpc.aio
except ImportError as e:   # pragma: no cover
    print(f"FAIL soak: cannot import grpc ({e}): install python3-grpcio and run this with "
          f"/usr/bin/python3 (this is {sys.executable})")
    sys.exit(1)

CALL_TIMEOUT = 20.0
OBSERVERS_PER_CHANNEL = 25      # the service allows 64 concurrent calls per connection
PARTICIPANT_CAP = 64            # players and observers per game
RSS_MARGIN_KIB = 256 * 1024

# Event body field numbers (sungka.proto, message Event).
SNAPSHOT, PLAYER_DEPARTED, GAME_STARTED, MOVE_MADE, GAME_OVER, PING, RETURNED = \
    10, 13, 14, 16, 18, 19, 21
STATUS_FINISHED = 3

# (kind, options) of the games, taken in turn.
KINDS = [("reversi", [("size", 8)]), ("kalah", [("cups", 8), ("stones", 6)])]


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def rss_kib(pid):
    """VmRSS and VmHWM (peak) of a process, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out["VmRSS"], out["VmHWM"]


def cpu_s(pid):
    """User + system CPU seconds a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


class Soak:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        self.tmp = tempfile.mkdtemp(prefix="sungka-soak-")
        self.env = dict(os.environ, XDG_DATA_HOME=os.path.join(self.tmp, "data"),
                        XDG_STATE_HOME=os.path.join(self.tmp, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.tmp, "config"))
        self.procs = []            # every Popen started (board and bot incarnations)
        self.board = None
        self.address = None
        self.games = {}            # game id -> dict
        self.bots = []             # dicts: game, name, argv, log, proc, incarnations
        self.observers = []        # dicts
        self.kills = 0
        self.restarts = 0
        self.ended_while_down = 0
        self.figures = {}
        self.board_cpu = 0.0

    # ------------------------------------------------------------- processes

    def spawn(self, argv, log_path):
        """A bot: a process group of its own (so it can be killed whole) but
        not a session of its own. With the kernel's autogroup scheduling
        every session is a scheduling group of its own, and nice would not
        keep 100 searching bots from starving the service."""
        log = open(log_path, "a")
        group = {"process_group": 0} if sys.version_info >= (3, 11) else \
            {"start_new_session": True}
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                 env=self.env, **group)
        finally:
            log.close()
        self.procs.append(p)
        return p

    def start_board(self):
        out = os.path.join(self.tmp, "board.out")
        err = os.path.join(self.tmp, "board.err")
        argv = [os.path.join(self.a.bindir, "sungka-board"), "--listen", "127.0.0.1:0",
                "--db", os.path.join(self.tmp, "soak.db"), "--grace", "20",
                "--ping-timeout", "30", "--max-games-per-client", "100000",
                # every agent here is on loopback: one address for them all
                "--max-client-streams", "100000", "--max-client-observers", "100000",
                "--client-join-rate", "100000"]
        with open(out, "w") as o, open(err, "w") as e:
            self.board = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                          env=self.env, start_new_session=True)
        self.procs.append(self.board)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with open(out) as f:
                m = re.search(r"sungka-board listening on 127\.0\.0\.1:(\d+)", f.read())
            if m:
                self.address = f"127.0.0.1:{m.group(1)}"
                return
            check(self.board.poll() is None,
                  f"the board exited with {self.board.returncode}\n" + self.board_log())
            time.sleep(0.05)
        raise Failure("the board did not say where it listens within 15 s\n" + self.board_log())

    def board_log(self, lines=40):
        try:
            with open(os.path.join(self.tmp, "board.err")) as f:
                tail = f.read().splitlines()[-lines:]
        except OSError:
            tail = []
        return "--- board stderr (last lines):\n" + "\n".join("  ! " + l for l in tail)

    def start_bot(self, bot):
        bot["proc"] = self.spawn(bot["argv"], bot["log"])
        bot["incarnations"] += 1

    def stop_all(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
            else:
                try:                      # children left in the group
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    # ------------------------------------------------------------- the wire

    async def unary(self, channel, method, payload, token=None):
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        md = (("authorization", f"Bearer {token}"),) if token else None
        return await call(payload, timeout=CALL_TIMEOUT, metadata=md)

    # ------------------------------------------------------------- observers

    async def observe(self, obs, channel):
        """Join, subscribe, answer pings and record every event until GameOver."""
        g = self.games[obs["game"]]
        ref = await self.unary(channel, "/sungka.v1.Register/JoinGame",
                               wire.message((1, obs["game"]), (2, obs["name"]), (3, True)))
        token = wire.get(ref, 3).decode()
        check(wire.seat_of(ref, 6) is None,       # BoardRef.seat: absent for an observer
              f"{obs['name']}: an observer was given seat {wire.seat_of(ref, 6)}")
        sub = channel.unary_stream("/sungka.v1.Board/Subscribe", request_serializer=None,
                                   response_deserializer=None)
        md = (("authorization", f"Bearer {token}"),)
        call = sub(b"", metadata=md)
        obs["call"] = call
        pings = set()
        try:
            async for ev in call:
                f = wire.fields(ev)
                seq = next((v for n, v in f if n == 1), 0)
                body = next(((n, v) for n, v in f if n >= 10), (None, b""))
                kind, payload = body
                if kind == PING:
                    nonce = wire.get(payload, 1, 0)
                    obs["pings"] += 1
                    t = asyncio.ensure_future(
                        self.unary(channel, "/sungka.v1.Board/Ping", wire.message((1, nonce)),
                                   token))
                    pings.add(t)
                    t.add_done_callback(pings.discard)
                    t.add_done_callback(lambda t, o=obs: self.ping_done(t, o))
                    continue
                if kind == SNAPSHOT:
                    check(obs["last_seq"] is None,
                          f"{obs['name']}: a second snapshot on one subscription")
                    obs["last_seq"] = wire.get(payload, 5, 0)
                    obs["subscribed"].set()
                    continue
                check(obs["last_seq"] is not None,
                      f"{obs['name']}: event #{seq} (kind {kind}) before the snapshot")
                obs["events"].append((seq, kind))
                t_ms = next((v for n, v in f if n == 2), 0)
                if t_ms:
                    obs["lat"].append(time.time() * 1000 - t_ms)
                if kind == MOVE_MADE:
                    obs["moves"].append((wire.get(payload, 1, 0), wire.get(payload, 2, 0)))
                elif kind == GAME_STARTED:
                    g["started"] = True
                elif kind == GAME_OVER:
                    obs["over"] = (tuple(wire.repeated(payload, 1)),
                                   tuple(wire.repeated(payload, 2)),
                                   (wire.get(payload, 3, b"") or b"").decode(),
                                   bool(wire.get(payload, 4, 0)))
                    g["over"] = True
                    break
        except grpc.aio.AioRpcError as e:
            obs["error"] = f"{e.code().name}: {e.details()}"
        except Failure as e:
            obs["error"] = str(e)
        finally:
            obs["subscribed"].set()
            call.cancel()
            for t in list(pings):
                t.cancel()
            if obs["over"] is None and obs["error"] is None:
                obs["error"] = "the stream ended before GameOver"
            obs["done"] = True

    def ping_done(self, t, obs):
        if t.cancelled():
            return
        e = t.exception()
        if e is not None:
            obs["ping_errors"] += 1
            obs["last_ping_error"] = str(e)

    # ------------------------------------------------------------- kills

    def playing_bots(self):
        return [b for b in self.bots
                if self.games[b["game"]]["started"] and not self.games[b["game"]]["over"]
                and b["proc"].poll() is None]

    async def restart_later(self, bot, delay):
        await asyncio.sleep(delay)
        if self.games[bot["game"]]["over"]:
            # Its opponent made the last move while it was down: there is
            # no game to go back to (it ended without it), so no restart.
            bot["ended_while_down"] = True
            self.ended_while_down += 1
            return
        await asyncio.to_thread(self.start_bot, bot)    # fork+exec off the event loop
        bot["down"] = False
        self.restarts += 1

    async def killer(self, t0):
        """K kills at random moments spread over the kill window (each waits
        for a bot whose game is under way)."""
        k = self.a.kills
        moments = sorted(self.rng.uniform(1.0, 1.0 + self.a.kill_window) for _ in range(k))
        pending = []
        for when in moments:
            delay = t0 + when - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            while True:
                if all(g["over"] for g in self.games.values()):
                    break
                cands = self.playing_bots()
                if cands:
                    break
                await asyncio.sleep(0.05)
            if not cands or all(g["over"] for g in self.games.values()):
                break
            bot = self.rng.choice(cands)
            bot["down"] = True
            try:
                os.killpg(bot["proc"].pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            while bot["proc"].poll() is None:     # (wait() would stall every observer)
                await asyncio.sleep(0.01)
            if bot["proc"].returncode != -signal.SIGKILL:
                bot["down"] = False       # it had just ended by itself
                continue
            self.kills += 1
            bot["killed"] += 1
            pending.append(asyncio.ensure_future(
                self.restart_later(bot, self.rng.uniform(0.05, 1.0))))
        if pending:
            await asyncio.gather(*pending)

    async def sample_cpu(self):
        while True:
            try:
                self.board_cpu = cpu_s(self.board.pid)
            except (OSError, KeyError, IndexError):
                return
            await asyncio.sleep(1.0)

    # ------------------------------------------------------------- the run

    async def run(self):
        a = self.a
        t_start = time.monotonic()
        self.start_board()
        n_channels = max(1, -(-a.observers // OBSERVERS_PER_CHANNEL))
        # A local subchannel pool: each channel gets its own connection,
        # rather than all of them sharing one (and its stream limit).
        opts = [("grpc.use_local_subchannel_pool", 1)]
        control = grpc.aio.insecure_channel(self.address, options=opts)
        channels = [grpc.aio.insecure_channel(self.address, options=opts)
                    for _ in range(n_channels)]
        tasks = []
        try:
            await asyncio.wait_for(control.channel_ready(), CALL_TIMEOUT)
            # Games.
            for i in range(a.games):
                kind, options = KINDS[i % len(KINDS)]
                req = wire.message((1, kind), *[(2, wire.message((1, k), (2, v)))
                                                for k, v in options], (3, f"soak {i}"))
                reply = await self.unary(control, "/sungka.v1.Register/CreateGame", req)
                gid = wire.first_string(wire.first_message(reply, 1), 1)
                self.games[gid] = {"id": gid, "kind": kind, "started": False, "over": False}
            ids = list(self.games)
            # Observers, spread evenly, all subscribed before any bot sits down.
            for j in range(a.observers):
                gid = ids[j % len(ids)]
                self.observers.append({
                    "name": f"obs-{j}", "game": gid, "last_seq": None, "events": [],
                    "moves": [], "lat": [], "over": None, "error": None, "done": False, "pings": 0,
                    "ping_errors": 0, "last_ping_error": None,
                    "subscribed": asyncio.Event()})
            for j, obs in enumerate(self.observers):
                tasks.append(asyncio.ensure_future(self.observe(obs, channels[j % n_channels])))
            await asyncio.wait_for(
                asyncio.gather(*(o["subscribed"].wait() for o in self.observers)), 60)
            bad = [o for o in self.observers if o["error"]]
            check(not bad, f"{len(bad)} observers could not subscribe, e.g. "
                           f"{bad[0]['name']}: {bad[0]['error']}" if bad else "")
            self.figures["setup_s"] = round(time.monotonic() - t_start, 2)
            # Bots: two per game, a state directory each.
            for i, gid in enumerate(ids):
                for s in range(2):
                    name = f"bot-{gid}-{s}"
                    state = os.path.join(self.tmp, "bots", name)
                    os.makedirs(state)
                    level = self.rng.choice((9, 10))
                    argv = ["nice", "-n", "19", os.path.join(a.bindir, "sungka-player"),
                            "--server", self.address, "--name", name, "--game", gid,
                            "--view", "bot", "--level", str(level), "--think", str(a.think),
                            "--ready", "--state-dir", state]
                    bot = {"game": gid, "name": name, "argv": argv, "proc": None,
                           "log": os.path.join(state, "out.log"), "incarnations": 0,
                           "killed": 0, "down": False,
                           "ended_while_down": False}
                    self.bots.append(bot)
                    self.start_bot(bot)
            self.rss_start, _ = rss_kib(self.board.pid)
            t_play = time.monotonic()
            sampler = asyncio.ensure_future(self.sample_cpu())
            killer = asyncio.ensure_future(self.killer(t_play))
            # Wait for every game to end (bounded).
            deadline = t_start + a.seconds
            while not all(o["done"] for o in self.observers):
                if time.monotonic() > deadline:
                    raise Failure(self.unfinished_report(
                        f"not every game ended within {a.seconds} s"))
                if self.board.poll() is not None:
                    raise Failure(f"the board service died ({self.board.returncode})\n"
                                  + self.board_log())
                for b in self.bots:
                    rc = b["proc"].poll()
                    if not b["down"] and rc not in (None, 0):
                        raise Failure(f"{b['name']} exited with {rc}\n" + self.bot_log(b))
                await asyncio.sleep(0.2)
            self.figures["play_s"] = round(time.monotonic() - t_play, 2)
            await asyncio.wait_for(killer, 30)
            # The bots end by themselves once their game is over.
            while any(b["proc"].poll() is None for b in self.bots):
                check(time.monotonic() < deadline + 30,
                      "bots still running after their games ended: " +
                      ", ".join(b["name"] for b in self.bots if b["proc"].poll() is None))
                await asyncio.sleep(0.2)
            # The service drops a finished game at its next tick once nobody
            # is connected: wait until the lobby lists none of ours.
            while True:
                reply = await self.unary(control, "/sungka.v1.Register/ListGames", b"")
                listed = [v for n, v in wire.fields(reply) if n == 1]    # games
                if not listed:
                    break
                check(time.monotonic() < deadline + 60,
                      f"the finished games are still listed: {len(listed)}")
                await asyncio.sleep(0.1)
            self.rss_end, self.rss_peak = rss_kib(self.board.pid)
            self.board_cpu = cpu_s(self.board.pid)
            sampler.cancel()
            await self.verify(control)
            self.figures["wall_s"] = round(time.monotonic() - t_start, 2)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for c in channels + [control]:
                await c.close()

    def load_figures(self):
        """Delivery latency (service clock to observer) and CPU used: context
        for a failure as much as figures for a pass."""
        lat = sorted(x for o in self.observers for x in o["lat"])
        pick = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))])) if lat else \
            (lambda q: None)
        return {"latency_ms_p50": pick(0.5), "latency_ms_p99": pick(0.99),
                "latency_ms_max": pick(1.0), "board_cpu_s": round(self.board_cpu, 1),
                "observers_cpu_s": round(time.process_time(), 1)}

    def unfinished_report(self, what):
        left = [g for g in self.games.values() if not g["over"]]
        lines = [f"{what}: {len(left)} of {len(self.games)} games unfinished "
                 f"({self.kills} kills so far)"]
        for g in left[:5]:
            lines.append(f"game {g['id']} ({g['kind']}) started={g['started']}")
            for b in self.bots:
                if b["game"] == g["id"]:
                    lines.append(self.bot_log(b))
        lines.append(self.board_log())
        return "\n".join(lines)

    def bot_log(self, b, lines=15):
        try:
            with open(b["log"]) as f:
                tail = f.read().splitlines()[-lines:]
        except OSError:
            tail = []
        rc = b["proc"].poll() if b["proc"] else None
        return (f"--- {b['name']} (exit {rc}, {b['incarnations']} runs, killed {b['killed']}):\n"
                + "\n".join("  | " + l for l in tail))

    # ------------------------------------------------------------- checks

    async def verify(self, control):
        a = self.a
        # 1. no observer dropped; each saw last_seq+1 .. GameOver contiguously.
        dropped = [o for o in self.observers if o["error"]]
        check(not dropped, f"{len(dropped)} observers were dropped or failed, e.g. " +
              "; ".join(f"{o['name']} (game {o['game']}, {len(o['events'])} events): {o['error']}"
                        for o in dropped[:5]))
        bad_pings = [o for o in self.observers if o["ping_errors"]]
        check(not bad_pings, f"{len(bad_pings)} observers had pings refused, e.g. "
                             f"{bad_pings[0]['name']}: {bad_pings[0]['last_ping_error']}"
              if bad_pings else "")
        for o in self.observers:
            seqs = [s for s, _ in o["events"]]
            want = list(range(o["last_seq"] + 1, o["last_seq"] + 1 + len(seqs)))
            if seqs != want:
                i = next(i for i, (x, y) in enumerate(zip(seqs, want)) if x != y)
                raise Failure(f"{o['name']} (game {o['game']}): after snapshot last_seq "
                              f"{o['last_seq']} got seq {seqs[i]} where {want[i]} was due "
                              f"(event {i}; around: {seqs[max(0, i - 3):i + 3]})")
            check(o["events"] and o["events"][-1][1] == GAME_OVER,
                  f"{o['name']}: the last event is not GameOver")
        # 2. per game: observers agree; bots agree; the history agrees.
        results = {}
        for gid, g in self.games.items():
            obs = [o for o in self.observers if o["game"] == gid]
            overs = {o["over"] for o in obs}
            check(len(overs) == 1, f"game {gid}: observers saw different ends: {overs}")
            moves = {tuple(o["moves"]) for o in obs}
            check(len(moves) == 1, f"game {gid}: observers saw different moves")
            winners, scores, reason, abandoned = overs.pop()
            check(not abandoned, f"game {gid} was abandoned: {reason}\n" + self.board_log())
            moves = list(moves.pop())
            check(len(moves) >= 10, f"game {gid}: only {len(moves)} moves")
            for b in (b for b in self.bots if b["game"] == gid and not b["ended_while_down"]):
                check(b["proc"].returncode == 0, f"{b['name']} exited with "
                      f"{b['proc'].returncode}\n" + self.bot_log(b))
                with open(b["log"]) as f:
                    res = [l for l in f.read().splitlines() if l.startswith("Result:")]
                check(len(res) == 1, f"{b['name']}: {len(res)} Result lines\n" + self.bot_log(b))
                m = re.search(r"Scores: (.*)\.$", res[0])
                check(m, f"{b['name']}: no scores in '{res[0]}'")
                bot_scores = tuple(int(x.rsplit(" ", 1)[1]) for x in m.group(1).split(", "))
                check(bot_scores == scores, f"{b['name']} says {res[0]!r}, the observers saw "
                      f"scores {scores}")
            reply = await self.unary(control, "/sungka.v1.Register/GetMatch",
                                     wire.message((1, gid)))
            summ = wire.get(reply, 1, b"")
            status = wire.get(summ, 5, 0)
            check(status == STATUS_FINISHED,
                  f"game {gid}: GetMatch status {status}, not finished (3)")
            h_scores = tuple(wire.repeated(summ, 7))
            h_winners = tuple(wire.repeated(summ, 8))
            check(h_scores == scores and h_winners == winners,
                  f"game {gid}: history has scores {h_scores} winners {h_winners}, the "
                  f"observers saw {scores} {winners}")
            h_moves = [(wire.get(mm, 1, 0), wire.get(mm, 2, 0)) for mm in
                       (v for n, v in wire.fields(reply) if n == 2)]
            check(wire.get(summ, 12, 0) == len(moves) and h_moves == moves,
                  f"game {gid}: history has {wire.get(summ, 12, 0)} moves "
                  f"({len(h_moves)} listed), the observers saw {len(moves)}"
                  + ("" if len(h_moves) != len(moves) else " (different ones)"))
            results[gid] = {"scores": list(scores), "winners": list(winners),
                            "moves": len(moves)}
        # 3. the service is alive and well.
        check(self.board.poll() is None, "the board service died\n" + self.board_log())
        reply = await self.unary(control, "/grpc.health.v1.Health/Check", b"")
        check(reply == wire.message((1, 1)), f"health check answered {reply!r}")
        with open(os.path.join(self.tmp, "board.err")) as f:
            bad = [l for l in f if SANITIZER.search(l)]
        check(not bad, "sanitizer report from the board:\n" + "".join(bad[:20]))
        check(self.kills == a.kills,
              f"only {self.kills} of {a.kills} kills landed while games were under way "
              f"(games ended too soon: raise --think or shorten --kill-window)")
        check(self.restarts + self.ended_while_down == self.kills,
              f"{self.restarts} restarts for {self.kills} kills")
        events = sum(len(o["events"]) for o in self.observers)
        self.figures.update({
            "games": len(self.games),
            "observers": len(self.observers),
            "observers_dropped": 0,
            "events_delivered": events,
            "snapshots": len(self.observers),
            "pings_answered": sum(o["pings"] for o in self.observers),
            "moves_played": sum(r["moves"] for r in results.values()),
            "agents_killed": self.kills,
            "agents_restarted": self.restarts,
            "games_ended_while_agent_down": self.ended_while_down,
            "rss_start_kib": self.rss_start,
            "rss_end_kib": self.rss_end,
            "rss_peak_kib": self.rss_peak,
            "rss_bound_kib": self.rss_start + RSS_MARGIN_KIB,
            **self.load_figures(),
            "think_ms": a.think,
            "seed": a.seed,
        })
        print(f"  RSS of the service: {mib(self.rss_start)} after setup, {mib(self.rss_end)} "
              f"at the end (peak {mib(self.rss_peak)}; bound "
              f"{mib(self.rss_start + RSS_MARGIN_KIB)})")
        check(self.rss_end < self.rss_start + RSS_MARGIN_KIB,
              f"the service's RSS grew from {mib(self.rss_start)} to {mib(self.rss_end)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bindir")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--observers", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=120, help="bound on the whole run")
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--think", type=int, default=250, help="bots' time per move, ms")
    ap.add_argument("--kill-window", type=float, default=6.0,
                    help="the kills fall at random in [1, 1+W] s after the bots start")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    if a.games < 1 or a.observers < 0 or a.kills < 0:
        ap.error("--games must be >= 1, --observers and --kills >= 0")
    per_game = -(-a.observers // a.games)
    if per_game + 2 > PARTICIPANT_CAP:
        ap.error(f"{per_game} observers per game + 2 players exceed the service's cap of "
                 f"{PARTICIPANT_CAP} participants per game: use more games")
    soak = Soak(a)
    print(f"soak: {a.games} games, {a.observers} observers, {a.kills} kills, think {a.think} ms, "
          f"seed {a.seed}, tmp {soak.tmp}", flush=True)
    started = time.monotonic()
    try:
        asyncio.run(soak.run())
    except (Failure, grpc.aio.AioRpcError, asyncio.TimeoutError) as e:
        if isinstance(e, grpc.aio.AioRpcError):
            e = f"{e.code().name}: {e.details()}"
        elif isinstance(e, asyncio.TimeoutError):
            e = "timed out\n" + soak.board_log()
        print(f"FAIL soak (seed {a.seed}, {time.monotonic() - started:.1f}s, "
              f"{soak.kills} kills): {e}\n  load: {soak.load_figures()}")
        return 1
    finally:
        soak.stop_all()
        if a.keep:
            print(f"soak: kept {soak.tmp}")
        else:
            shutil.rmtree(soak.tmp, ignore_errors=True)
    f = soak.figures
    print(f"Soak summary: {f['games']} bot-vs-bot games and {f['observers']} observers on one "
          f"service; {f['moves_played']} moves played; {f['events_delivered']} events delivered "
          f"to the observers (plus {f['snapshots']} snapshots and {f['pings_answered']} pings "
          f"answered; delivery latency p50 {f['latency_ms_p50']} ms, p99 "
          f"{f['latency_ms_p99']} ms, max {f['latency_ms_max']} ms); every observer saw its "
          f"game contiguously to GameOver and none was dropped; {f['agents_killed']} agents "
          f"SIGKILLed, {f['agents_restarted']} restarted and back in their seats "
          f"({f['games_ended_while_agent_down']} not restarted because the opponent ended the "
          f"game meanwhile); every game finished and its history matches; service RSS "
          f"{mib(f['rss_start_kib'])} after setup, {mib(f['rss_end_kib'])} at the end (peak "
          f"{mib(f['rss_peak_kib'])}), service CPU {f['board_cpu_s']} s; wall time "
          f"{f['wall_s']} s (setup {f['setup_s']} s, games {f['play_s']} s).")
    if a.json:
        with open(a.json, "w") as out:
            json.dump(f, out, indent=2)
            out.write("\n")
    print(f"ok soak ({time.monotonic() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
