"""workload.py — the chaos test's players: stock grpcio clients of our
.proto (stubs protoc compiles at the start of the run) that know every node
and follow the cluster's answers as docs/cluster.md says an agent does.

N game slots run at once. A slot creates a kalah game (autostart), seats
two guests, and plays it to its end, then makes the next one while the run
lasts. Each seat has an event stream of its own, resubscribing after the
last sequence number it saw whenever the stream ends or falls silent. Every
call goes where the answers say:
  UNAVAILABLE ELSEWHERE  -> the node named in `sungka-endpoint`, at once;
  UNAVAILABLE GAME_MOVING -> wait a little, ask again (another node);
  UNAVAILABLE NOT_STORED -> the change did not happen: decide again;
  no answer, no reason   -> the next node of the list.
With relays (chaos.py --relays), each game also has three observers: the
first joins through the nodes and watches at the game's node, the next two
are sent by the node to the relays (--relay-after 1). An observer whose
stream fails at a relay, or whose chair is unknown where it asks (a relay
killed and started again, the game adopted by another node), joins again
through the nodes and resumes after the last event it saw, as the agent
does (docs/cluster.md, "Relays").
What is recorded, for the checker (checker.py):
  every Move the service acknowledged: game, seq returned, seat, move, when;
  every logged event (seq > 0) each stream received, seats' and observers'
  alike: game, seq, client, the event's bytes (as sent: the stored bytes,
  room_log.c) and when;
  each observer's course: when it started and stopped, why it stopped, how
  often it joined again, where it watched, the snapshots it was given.
Every call has a deadline and every loop ends when the run stops.
"""
import hashlib
import importlib
import os
import random
import shutil
import subprocess
import sys
import threading
import time

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto")
CALL_TIMEOUT = 3.0          # one attempt at one node
MOVE_TIMEOUT = 6.0          # one Move at one node: a patient player (the agent waits 5 s)
SILENCE_S = 4.0             # a stream without a message (pings every second) is dead
OBSERVER_GRACE_S = 20.0     # an observer watches on this long after its game's end
GAME_KIND = "kalah"

grpc = pb = None


def generate(out):
    """Compile sungka.proto with protoc and the gRPC Python plugin; import it."""
    global grpc, pb
    os.makedirs(out, exist_ok=True)
    protoc, plugin = shutil.which("protoc"), shutil.which("grpc_python_plugin")
    if not (protoc and plugin):
        raise RuntimeError("missing protoc or grpc_python_plugin: install protobuf-compiler "
                           "and protobuf-compiler-grpc")
    r = subprocess.run([protoc, f"--python_out={out}", f"--grpc_out={out}",
                        f"--plugin=protoc-gen-grpc={plugin}", "-I", PROTO_DIR,
                        "sungka/v1/sungka.proto"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"protoc failed: {r.stderr}")
    grpc = importlib.import_module("grpc")
    sys.path.insert(0, out)
    pb = importlib.import_module("sungka.v1.sungka_pb2")


def auth(token):
    return (("authorization", f"Bearer {token}"),)


class Refused(Exception):
    """An answer that is not a routing one: code, reason, details."""

    def __init__(self, code, reason, details):
        super().__init__(f"{code} {reason}: {details}")
        self.code, self.reason, self.details = code, reason, details


class NotStored(Refused):
    pass


class GaveUp(Exception):
    """No node answered within the call's budget (or the run stopped, or
    `abort` said so): .last is the last answer, (code, reason)."""

    def __init__(self, msg, last=None):
        super().__init__(msg)
        self.last = last


class Counters:
    """Counts by name, and a few distinct sentences per name (what a refusal
    said), for the report."""

    def __init__(self):
        self.lock = threading.Lock()
        self.c = {}
        self.samples = {}

    def add(self, key, n=1, sample=None):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + n
            if sample:
                s = self.samples.setdefault(key, {})
                if sample in s or len(s) < 5:
                    s[sample] = s.get(sample, 0) + 1

    def snapshot(self):
        with self.lock:
            return dict(self.c)


def rpc_error(e):
    """(code name, reason, endpoint, details) of a grpc.RpcError."""
    md = dict(e.trailing_metadata() or ()) if hasattr(e, "trailing_metadata") else {}
    code = e.code().name if hasattr(e, "code") and e.code() else "UNKNOWN"
    return code, md.get("sungka-error-reason", ""), md.get("sungka-endpoint", ""), \
        (e.details() if hasattr(e, "details") else str(e)) or ""


class Router:
    """Channels to every node and the routing of one call."""

    def __init__(self, endpoints, stop, counters, on_refused_seat=None):
        self.endpoints = list(endpoints)
        self.on_refused_seat = on_refused_seat    # (token, node, method, details)
        self.stop = stop
        self.counters = counters
        self.lock = threading.Lock()
        self.channels = {}
        self.methods = {}

    def channel(self, ep):
        with self.lock:
            ch = self.channels.get(ep)
            if ch is None:
                # Short reconnection backoff: a node killed comes back on its
                # port within seconds, and gRPC's default waits up to 2 min.
                # Keepalive as our agents' (rpc_client.c: 10 s, 5 s to answer):
                # a connection whose packets vanished (a partition) is given
                # up, rather than waiting out TCP's retransmission backoff.
                ch = grpc.insecure_channel(ep, options=[
                    ("grpc.initial_reconnect_backoff_ms", 200),
                    ("grpc.min_reconnect_backoff_ms", 200),
                    ("grpc.max_reconnect_backoff_ms", 1000),
                    ("grpc.keepalive_time_ms", 10000),
                    ("grpc.keepalive_timeout_ms", 5000),
                    ("grpc.enable_retries", 0)])
                self.channels[ep] = ch
            return ch

    def method(self, ep, path, resp_cls, stream=False):
        key = (ep, path, stream)
        with self.lock:
            m = self.methods.get(key)
        if m is None:
            ch = self.channel(ep)
            if stream:
                m = ch.unary_stream(path, request_serializer=lambda r: r.SerializeToString(),
                                    response_deserializer=None)       # raw bytes
            else:
                m = ch.unary_unary(path, request_serializer=lambda r: r.SerializeToString(),
                                   response_deserializer=resp_cls.FromString)
            with self.lock:
                self.methods[key] = m
        return m

    def next_after(self, ep):
        if ep not in self.endpoints:
            return self.endpoints[0]
        return self.endpoints[(self.endpoints.index(ep) + 1) % len(self.endpoints)]

    def call(self, path, request, resp_cls, token=None, prefer=None, budget=20.0, abort=None,
             attempt=CALL_TIMEOUT):
        """(reply, endpoint that answered). Raises NotStored, Refused, GaveUp
        (also as soon as abort() is true)."""
        deadline = time.monotonic() + budget
        ep = prefer or random.choice(self.endpoints)
        md = auth(token) if token else None
        name = path.rsplit("/", 1)[1]
        hops = 0
        last = None
        while not self.stop.is_set() and not (abort and abort()):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                reply = self.method(ep, path, resp_cls)(request, timeout=min(attempt, left),
                                                        metadata=md)
                return reply, ep
            except grpc.RpcError as e:
                code, reason, where, details = rpc_error(e)
            last = (code, reason)
            self.counters.add(f"{name} {code} {reason}".strip(),
                              sample=None if reason == "ELSEWHERE" else details[:160])
            hops += 1
            if code == "UNAUTHENTICATED" and token and self.on_refused_seat:
                self.on_refused_seat(token, ep, name, details)
            if code == "UNAVAILABLE" and reason == "ELSEWHERE" and where:
                ep = where
                if hops > 8:               # a ring of redirections while ownership moves
                    time.sleep(0.2)
                continue
            if code == "UNAVAILABLE" and reason == "NOT_STORED":
                raise NotStored(code, reason, details)
            if code == "UNAVAILABLE" and reason == "GAME_MOVING":
                time.sleep(0.25)
                ep = self.next_after(ep)
                continue
            if code in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED") or \
                    (code == "UNAUTHENTICATED" and reason == "UNKNOWN_TOKEN") or \
                    (code == "NOT_FOUND" and name in ("JoinGame",)) or code == "INTERNAL":
                # A node that is down, frozen or cannot read the database
                # (it then does not know another node's token or game): the
                # next node.
                time.sleep(0.1)
                ep = self.next_after(ep)
                continue
            raise Refused(code, reason, details)
        raise GaveUp(f"{name}: no node answered within {budget:.0f} s", last)

    def close(self):
        with self.lock:
            chans = list(self.channels.values())
            self.channels.clear()
            self.methods.clear()
        for ch in chans:
            ch.close()


class Record:
    """What the clients observed, shared by every thread (under one lock)."""

    def __init__(self, t0):
        self.t0 = t0
        self.lock = threading.Lock()
        self.acks = []          # dicts: game, seq, seat, move, t, node
        self.seen = []          # dicts: game, seq, client, sha, len, t
        self.anomalies = []     # what a client noticed on its own (gap, past end)
        self.refusals = []      # a seat token answered UNAUTHENTICATED: game, client, node,
                                # method, wall_ms (the checker compares with the game's end)
        self.observers = []     # each observer's course, when it stops (Observer.summary)
        self.snapshots = []     # snapshots an observer was given: client, after, last_seq, t
        self.games = {}         # game id -> Game

    def now(self):
        return time.monotonic() - self.t0

    def ack(self, game, seq, seat, move, node):
        with self.lock:
            self.acks.append(dict(game=game, seq=seq, seat=seat, move=move, t=self.now(),
                                  node=node))

    def saw(self, game, seq, client, data):
        sha = hashlib.sha256(data).hexdigest()
        with self.lock:
            self.seen.append(dict(game=game, seq=seq, client=client, sha=sha, len=len(data),
                                  t=self.now()))

    def refused_seat(self, game, client, node, method, details):
        with self.lock:
            self.refusals.append(dict(game=game, client=client, node=node, method=method,
                                      details=details[:120], t=self.now(),
                                      wall_ms=int(time.time() * 1000)))

    def snapshot(self, client, after, last_seq, node):
        with self.lock:
            self.snapshots.append(dict(client=client, after=after, last_seq=last_seq,
                                       node=node, t=self.now()))

    def observer_done(self, summary):
        with self.lock:
            self.observers.append(summary)

    def anomaly(self, what, **kw):
        with self.lock:
            self.anomalies.append(dict(what=what, t=self.now(), **kw))


class Game:
    """One game a slot plays: its seats' tokens and where it was last seen."""

    def __init__(self, gid, slot):
        self.id = gid
        self.slot = slot
        self.tokens = {}          # seat -> token
        self.host = None          # the endpoint that last answered for it
        self.over = False
        self.over_seen = False    # a stream received its GameOver
        self.created_t = None
        self.started_t = None
        self.last_ack_t = None
        self.acked = 0
        self.streams = []


class Workload:
    def __init__(self, endpoints, n_slots, seed, record, pace=(0.1, 0.4), log=print,
                 observers=0, relays=()):
        self.stop = threading.Event()          # everything stops
        self.no_new_games = threading.Event()  # slots finish their game, start none
        self.counters = Counters()
        self.router = Router(endpoints, self.stop, self.counters, self._refused_seat)
        self.seats = {}            # token -> (game id, seat)
        self.n_slots = n_slots
        self.seed = seed
        self.record = record
        self.pace = pace
        self.log = log
        self.threads = []
        self.streams = []          # live Stream objects (the silence watchdog's)
        self.streams_lock = threading.Lock()
        self.n_observers = observers     # per game
        self.relays = list(relays)       # the relays' endpoints

    # ------------------------------------------------------------ set up
    def start(self):
        for i in range(self.n_slots):
            t = threading.Thread(target=self._slot, args=(i,), name=f"slot{i}", daemon=True)
            t.start()
            self.threads.append(t)
        t = threading.Thread(target=self._watchdog, name="watchdog", daemon=True)
        t.start()
        self.threads.append(t)

    def active_games(self):
        with self.record.lock:
            return [g for g in self.record.games.values()
                    if g.started_t is not None and not g.over]

    def games_on(self, endpoint):
        return [g.id for g in self.active_games() if g.host == endpoint]

    def observers_at(self, endpoint):
        """The observers (client names) watching at endpoint now."""
        with self.streams_lock:
            return [s.client for s in self.streams
                    if isinstance(s, Observer) and s.ep == endpoint and s.token]

    def _refused_seat(self, token, node, method, details):
        """A Board call or stream with one of our seats answered
        UNAUTHENTICATED (the token unknown): the checker decides whether
        its game was over by then."""
        game, seat = self.seats.get(token, (None, None))
        if game is not None:
            self.record.refused_seat(game, f"{game}/{seat}", node, method, details)

    def _new_game(self, slot, rng):
        """Create a kalah game and seat two guests; a Game, or None."""
        r = self.router
        try:
            made, ep = r.call("/sungka.v1.Register/CreateGame",
                              pb.CreateGameRequest(kind=GAME_KIND, autostart=True,
                                                   title=f"chaos slot {slot}"),
                              pb.CreateGameResponse, budget=20)
        except (Refused, GaveUp) as e:
            self.counters.add(f"setup: CreateGame failed ({type(e).__name__})")
            return None
        g = Game(made.game.game_id, slot)
        g.host = made.game.endpoint or ep
        g.created_t = self.record.now()
        with self.record.lock:
            self.record.games[g.id] = g
        for name in ("alice", "bob"):
            try:
                ref, ep = r.call("/sungka.v1.Register/JoinGame",
                                 pb.JoinGameRequest(game_id=g.id, name=name),
                                 pb.BoardRef, prefer=g.host, budget=20)
            except (Refused, GaveUp) as e:
                # A join whose answer was lost may hold the seat with a token
                # we never got: this game cannot start; make another.
                self.counters.add(f"setup: JoinGame failed ({type(e).__name__})")
                g.over = True
                return None
            seat = ref.seat.value if ref.HasField("seat") else -1
            g.tokens[seat] = ref.token
            self.seats[ref.token] = (g.id, seat)
            g.host = ref.endpoint or ep
        if set(g.tokens) != {0, 1}:
            self.counters.add("setup: unexpected seats")
            g.over = True
            return None
        g.started_t = self.record.now()
        return g

    # ------------------------------------------------------------ play
    def _slot(self, slot):
        rng = random.Random(f"{self.seed}/slot{slot}")
        while not self.stop.is_set() and not self.no_new_games.is_set():
            g = self._new_game(slot, rng)
            if g is None:
                self.stop.wait(1.0)
                continue
            self.counters.add("games started")
            for seat in (0, 1):
                s = Stream(self, g, seat)
                g.streams.append(s)
                s.start()
            for i in range(self.n_observers):
                # One after the other: the first stays at the node, the
                # next are sent to the relays in turn.
                Observer(self, g, i).start()
            try:
                self._play(g, rng)
            finally:
                for s in g.streams:
                    s.finish()
            if g.over:
                self.counters.add("games finished")

    def _play(self, g, rng):
        r = self.router
        no_turn = 0
        while not self.stop.is_set() and not g.over:
            if g.over_seen:
                g.over = True
                break
            try:
                got, ep = r.call("/sungka.v1.Board/GetBoard", pb.GetBoardRequest(),
                                 pb.GetBoardResponse, token=g.tokens[0], prefer=g.host,
                                 budget=10, abort=lambda: g.over_seen)
            except GaveUp as e:
                # A finished game is soon forgotten by its node, and its seat
                # tokens with it (UNKNOWN_TOKEN): its match says it is over.
                if e.last == ("UNAUTHENTICATED", "UNKNOWN_TOKEN") and self._finished(g):
                    g.over = True
                continue
            except Refused as e:
                self.counters.add(f"GetBoard refused {e.code} {e.reason}")
                self.stop.wait(0.5)
                continue
            g.host = ep
            board = got.board
            if not board.HasField("to_move"):
                no_turn += 1
                if g.over_seen or no_turn >= 3:
                    g.over = True
                    break
                self.stop.wait(0.3)
                continue
            no_turn = 0
            seat = board.to_move.value
            cups = (len(board.cells) // 2) - 1
            base = seat * (cups + 1)
            legal = [c for c in range(cups) if board.cells[base + c] > 0]
            if not legal:
                self.counters.add("no legal cup on a board with a turn")
                self.stop.wait(0.3)
                continue
            move = rng.choice(legal)
            try:
                done, ep = r.call("/sungka.v1.Board/Move", pb.MoveRequest(move=move),
                                  pb.MoveResponse, token=g.tokens[seat], prefer=g.host,
                                  budget=15, attempt=MOVE_TIMEOUT)
            except NotStored as e:
                # The database is away (restarting, failing over): it did not
                # happen; ask again after a pause, as a person would.
                self.counters.add("moves not stored", sample=e.details)
                self.stop.wait(rng.uniform(0.1, 0.3))
                continue
            except Refused as e:
                # The board moved on since GetBoard (an acknowledgement that was
                # lost on its way, then the move seen done), or it is over.
                self.counters.add(f"moves refused {e.code} {e.reason}", sample=e.details)
                self.stop.wait(0.1)
                continue
            except GaveUp:
                self.counters.add("moves unanswered")
                continue
            g.host = ep
            g.acked += 1
            g.last_ack_t = self.record.now()
            self.record.ack(g.id, done.seq, seat, move, ep)
            self.counters.add("moves acknowledged")
            self.stop.wait(rng.uniform(*self.pace))

    def _finished(self, g):
        """Whether the history has g as a finished or abandoned match."""
        try:
            m, _ = self.router.call("/sungka.v1.Register/GetMatch",
                                    pb.GetMatchRequest(game_id=g.id), pb.Match, budget=5)
        except (Refused, GaveUp):
            return False
        return m.summary.status in (pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABANDONED)

    def _watchdog(self):
        """Cancel streams silent for SILENCE_S (a frozen node sends nothing
        and never ends them): they resubscribe elsewhere."""
        while not self.stop.wait(0.5):
            now = time.monotonic()
            with self.streams_lock:
                live = list(self.streams)
            for s in live:
                s.check_silence(now)

    def finish(self, timeout=20):
        self.no_new_games.set()
        self.stop.set()
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.1, deadline - time.monotonic()))
        with self.streams_lock:
            live = list(self.streams)
        for s in live:
            s.finish()
        self.router.close()


class Stream:
    """One seat's event stream, resubscribed until its game is over or the
    run stops."""

    def __init__(self, wl, game, seat):
        self.wl = wl
        self.g = game
        self.seat = seat
        self.client = f"{game.id}/{seat}"
        self.last = None          # the last logged seq received
        self.call = None
        self.last_msg = time.monotonic()
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.thread = None
        self.saw_over = False     # this stream received its game's GameOver

    def start(self):
        with self.wl.streams_lock:
            self.wl.streams.append(self)
        self.thread = threading.Thread(target=self._run, name=f"stream {self.client}",
                                       daemon=True)
        self.thread.start()

    def finish(self):
        self.done.set()
        with self.lock:
            if self.call is not None:
                self.call.cancel()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(5)
        with self.wl.streams_lock:
            if self in self.wl.streams:
                self.wl.streams.remove(self)

    def check_silence(self, now):
        with self.lock:
            if self.call is not None and now - self.last_msg > SILENCE_S:
                self.wl.counters.add("streams silent, cancelled")
                self.call.cancel()

    def _stopped(self):
        return self.done.is_set() or self.wl.stop.is_set()

    def _run(self):
        wl, g, rec = self.wl, self.g, self.wl.record
        router = wl.router
        ep = g.host
        token = g.tokens[self.seat]
        past_end = 0
        hops = 0
        while not self._stopped() and not g.over_seen:
            after = self.last or 0
            try:
                method = router.method(ep, "/sungka.v1.Board/Subscribe", None, stream=True)
                with self.lock:
                    if self._stopped():
                        break
                    self.last_msg = time.monotonic()
                    self.call = method(pb.SubscribeRequest(after_seq=after), metadata=auth(token))
                for data in self.call:
                    self.last_msg = time.monotonic()
                    self._event(data, ep)
                    if g.over_seen:
                        break
                code, reason, where, details = "OK", "", "", ""
            except grpc.RpcError as e:
                code, reason, where, details = rpc_error(e)
            finally:
                with self.lock:
                    if self.call is not None:
                        self.call.cancel()
                    self.call = None
            if self._stopped() or g.over_seen:
                break
            wl.counters.add(f"Subscribe ended {code} {reason}".strip(),
                            sample=None if reason == "ELSEWHERE" else details[:160])
            if code == "UNAUTHENTICATED":
                rec.refused_seat(g.id, self.client, ep, "Subscribe", details)
            if code == "UNAVAILABLE" and reason == "ELSEWHERE" and where:
                ep = where
                hops += 1
                if hops > 8:           # nodes that disagree while ownership moves
                    wl.stop.wait(0.2)
                continue
            hops = 0
            if code == "OUT_OF_RANGE":
                # The node's log is shorter than what this client has seen.
                past_end += 1
                rec.anomaly("resubscribe past the end of the log", game=g.id, client=self.client,
                            after=after, node=ep, details=details)
                if past_end >= 20:
                    self.last = None      # from a fresh snapshot, so as not to spin
            wl.stop.wait(0.2 if code == "UNAVAILABLE" and reason != "GAME_MOVING" else 0.3)
            # Where to now: the game's host as its player last found it, else
            # the next node.
            ep = g.host if g.host and g.host != ep else router.next_after(ep)

    def _event(self, data, ep):
        ev = pb.Event.FromString(data)
        body = ev.WhichOneof("body")
        if body == "ping":
            try:
                self.wl.router.method(ep, "/sungka.v1.Board/Ping", pb.PingResponse).future(
                    pb.PingRequest(nonce=ev.ping.nonce), timeout=2.0,
                    metadata=auth(self.g.tokens[self.seat]))
            except Exception:      # a ping not answered only makes the seat look away
                pass
            return
        if body == "snapshot":
            self.last = ev.snapshot.last_seq
            return
        if ev.seq == 0:
            return
        rec = self.wl.record
        if self.last is not None and ev.seq != self.last + 1:
            rec.anomaly("out of order on one stream", game=self.g.id, client=self.client,
                        expected=self.last + 1, got=ev.seq, node=ep)
        rec.saw(self.g.id, ev.seq, self.client, data)
        self.last = ev.seq
        if body == "game_over":
            self.saw_over = True
            self.g.over_seen = True


class Observer(Stream):
    """An observer of a game: joined through the nodes (the game's node keeps
    the first, sends the next to a relay), watching until it has seen the
    game end, or OBSERVER_GRACE_S after its players saw it end, or the run
    stops. Whatever ends its stream other than a redirection, it joins again
    through the nodes and resumes after the last event it saw. It outlives
    the slot's game (the slot goes on to the next) and says how it fared
    (Record.observer_done)."""

    SUBSCRIBE = "/sungka.v1.Board/Subscribe"

    def __init__(self, wl, game, index):
        super().__init__(wl, game, None)
        self.client = f"{game.id}/o{index}"
        self.index = index
        self.token = None
        self.ep = None
        self.asked_after = 0
        self.started_t = wl.record.now()
        self.last_seen_t = None
        self.joins = 0
        self.where = {}           # endpoint -> times it joined there
        self.ended_by = "run stopped"

    def start(self):
        self._join()              # at once: the node counts its observers in turn
        super().start()

    def _join(self):
        try:
            ref, ep = self.wl.router.call(
                "/sungka.v1.Register/JoinGame",
                pb.JoinGameRequest(game_id=self.g.id, name=f"w{self.index}-{self.joins}",
                                   observe=True),
                pb.BoardRef, prefer=self.g.host, budget=10, attempt=MOVE_TIMEOUT,
                abort=self._stopped)
        except (Refused, GaveUp) as e:
            self.wl.counters.add(f"observer joins failed ({type(e).__name__})",
                                 sample=str(e)[:160])
            return False
        self.joins += 1
        self.token = ref.token
        self.ep = ref.endpoint or ep
        self.where[self.ep] = self.where.get(self.ep, 0) + 1
        return True

    def _run(self):
        wl, g = self.wl, self.g
        over_t = None
        hops = 0
        ahead = 0                 # OUT_OF_RANGE answers in a row from a relay
        try:
            while not self._stopped() and not self.saw_over:
                if g.over and over_t is None:
                    over_t = time.monotonic()
                if over_t is not None and time.monotonic() - over_t > OBSERVER_GRACE_S:
                    self.ended_by = f"no GameOver within {OBSERVER_GRACE_S:.0f} s of the end"
                    break
                if self.token is None and not self._join():
                    wl.stop.wait(0.5)
                    continue
                code, reason, where = self._watch()
                if self._stopped() or self.saw_over:
                    break
                wl.counters.add(f"observer Subscribe ended {code} {reason}".strip())
                if code == "UNAVAILABLE" and reason == "ELSEWHERE" and where:
                    self.ep = where          # the same chair, at the game's node now
                    hops += 1
                    if hops > 8:
                        wl.stop.wait(0.2)
                    continue
                hops = 0
                if code == "OUT_OF_RANGE" and self.ep in wl.relays:
                    # A relay that has only just taken the game on (started
                    # again, or new to it), or whose feed cannot reach the
                    # game's node, has no event that far yet: ask again there,
                    # then through the nodes (the observers behind are the
                    # checker's).
                    ahead += 1
                    if ahead < 20:
                        wl.stop.wait(0.25)
                        continue
                elif code == "OUT_OF_RANGE":
                    wl.record.anomaly("resubscribe past the end of the log", game=g.id,
                                      client=self.client, after=self.asked_after, node=self.ep)
                ahead = 0
                # A relay gone or started again (its chairs with it), the game
                # moved, a node frozen: join again, through the nodes.
                self.token = None
                wl.stop.wait(0.2)
        finally:
            if self.saw_over:
                self.ended_by = "saw GameOver"
            wl.record.observer_done(dict(
                client=self.client, game=g.id, started=self.started_t,
                ended=wl.record.now(), ended_by=self.ended_by, joins=self.joins,
                where=self.where, last_seq=self.last, last_seen=self.last_seen_t))
            with wl.streams_lock:
                if self in wl.streams:
                    wl.streams.remove(self)

    def _watch(self):
        """One Subscribe at self.ep after the last event seen; how it ended:
        (code, reason, endpoint named)."""
        self.asked_after = self.last or 0
        try:
            method = self.wl.router.method(self.ep, self.SUBSCRIBE, None, stream=True)
            with self.lock:
                if self._stopped():
                    return "CANCELLED", "", ""
                self.last_msg = time.monotonic()
                self.call = method(pb.SubscribeRequest(after_seq=self.asked_after),
                                   metadata=auth(self.token))
            for data in self.call:
                self.last_msg = time.monotonic()
                self._event(data, self.ep)
                if self.saw_over:
                    break
            return "OK", "", ""
        except grpc.RpcError as e:
            code, reason, where, _ = rpc_error(e)
            return code, reason, where
        finally:
            with self.lock:
                if self.call is not None:
                    self.call.cancel()
                self.call = None

    def _event(self, data, ep):
        ev = pb.Event.FromString(data)
        body = ev.WhichOneof("body")
        if body == "ping":
            return                   # an observer's pings need no answer
        if body == "snapshot":
            self.wl.record.snapshot(self.client, self.asked_after, ev.snapshot.last_seq, ep)
        elif ev.seq:
            self.last_seen_t = self.wl.record.now()
        super()._event(data, ep)
