#!/usr/bin/python3
"""checker.py — the chaos test's verdict, from the files a run leaves in its
directory (chaos.py writes them; --keep keeps them, and this file checks a
kept directory again on its own: `checker.py DIR`):

  events.tsv     the stored logs at the end: game, seq, the event's bytes (hex)
  games_db.tsv   the stored games: id, status (1 waiting, 2 running, 3 finished,
                 4 abandoned)
  acks.jsonl     every Move the service acknowledged: game, seq, seat, move, t
  seen.jsonl     every logged event a client's stream received: game, seq,
                 client, sha (SHA-256 of its bytes), t
  anomalies.jsonl  what a client noticed by itself (a stream out of order, a
                 resubscription past the end of a node's log)
  refusals.jsonl every UNAUTHENTICATED answer to one of the clients' seat
                 tokens: game, client, node, method, wall clock (ms)
  faults.jsonl   each fault: kind, node, start, end, affected games (for
                 relay_kill: clients, the observers watching at that relay)
  games.jsonl    each game the workload played: started, over, last ack
  observers.jsonl  each observer's course: started, ended, why, joins, where,
                 the last seq and the time of the last event it saw
  snapshots.jsonl  each snapshot an observer was given: the seq it asked
                 to resume after, the snapshot's last_seq
  nodes.json     each node's and relay's exits and the lines of its log that
                 say it crashed
  logs/node-*.log  the nodes' logs: the games a node stopped because their
                 stored log went back in time (room_halt)
  meta.json      the run's figures (seed, duration, the end of the settle,
                 whether the standby was asynchronous)

Times are seconds on the run's monotonic clock. Metrics, one line each, and
whether they fail the run:
  acked moves lost       FAIL  an acknowledged seq absent from the stored log,
                               or holding another event than that move
  seq reused             FAIL  two different events (bytes) seen, or
                               acknowledged, under one (game, seq)
  seen but not stored    FAIL  a client saw (game, seq) that the stored log
                               lacks (seq past its end) or holds other bytes
  holes in stored logs   FAIL  a game's stored seqs are not 1..max
  stuck games            FAIL  a game not over with no acknowledged move for
                               the last --stuck-after seconds of the settle
                               (with --async, not one the service stopped)
  node crashes           FAIL  a node that exited without the test killing it,
                               or whose log says AddressSanitizer, replay
                               check, Segmentation, ...
  client anomalies       FAIL  a stream that skipped or repeated a seq, or a
                               node whose log was shorter than what a client
                               had seen from it
  seats refused          FAIL  a seat token of a game not yet over answered
                               UNAUTHENTICATED ("unknown seat token") by a
                               node: the stock agent takes it for a seat
                               that is gone and stops (agent_stream.c)
  observer holes         FAIL  an observer (seen events of a client "G/oN")
                               whose seqs skip one between two it saw: a
                               resumption that did not give what followed.
                               A skip filled by a snapshot it was given on
                               resuming at a relay that took the game on
                               later is counted apart, as a figure: such a
                               relay holds no event before its snapshot
  observers behind       FAIL  an observer that never got (as an event or in
                               a snapshot) a move acknowledged while it
                               watched, --stuck-after seconds or more
                               before it stopped
  recovery per fault     info  from the fault's start to the next acknowledged
                               move of each game it affected (relay_kill: to
                               the next event each of its observers saw):
                               median, max
With an asynchronous standby (chaos.py --async) a failover may lose
acknowledged moves; the service is to stop such a game for good, logging
"game ID: its stored log has lost events it sent" (room_halt). Then, per
game that lost acknowledged moves:
  detected               info  the game was stopped with that line
  diverged               FAIL  the game was not stopped, and a seq of it was
                               reused, or a client saw an event its stored
                               log does not hold, or an acknowledged seq
                               holds another event
  lost unnoticed         info  not stopped, yet nothing seen contradicts
                               the stored log (no client saw the lost events)
and "acked moves lost" is a figure, not a failure; the games stopped whose
stored log contradicts nothing seen or acknowledged (only cut short) are
left out of "seq reused", "seen but not stored", "client anomalies", and
every game stopped out of "seats refused" (what their clients met is the
loss being detected).
"""
import glob
import hashlib
import json
import os
import re
import statistics
import sys

STOPPED_LINE = re.compile(r"game (\S+): its stored log has lost events it sent")


def read_jsonl(path):
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    out.append(json.loads(line))
    return out


def read_tsv(path):
    with open(path) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]


class Verdict:
    def __init__(self):
        self.lines = []
        self.failed = []
        self.details = []

    def metric(self, name, value, fail=False, note=""):
        self.lines.append(f"{'FAIL' if fail else 'ok  '} {name:24s} {value}" +
                          (f"  ({note})" if note else ""))
        if fail:
            self.failed.append(name)

    def detail(self, text):
        self.details.append(text)


def move_of(pb, data):
    """(seat, move) of a stored MoveMade event, or the event's kind."""
    ev = pb.Event.FromString(data)
    if ev.WhichOneof("body") != "move_made":
        return None, ev.WhichOneof("body")
    return (ev.move_made.seat, ev.move_made.move), "move_made"


def check(run_dir, pb, max_details=20):
    v = Verdict()
    meta = json.load(open(os.path.join(run_dir, "meta.json")))
    stored = {}                      # (game, seq) -> bytes
    by_game = {}
    for game, seq, hexdata in read_tsv(os.path.join(run_dir, "events.tsv")):
        stored[(game, int(seq))] = bytes.fromhex(hexdata)
        by_game.setdefault(game, []).append(int(seq))
    stored_sha = {k: hashlib.sha256(d).hexdigest() for k, d in stored.items()}
    db_status = {g: int(s) for g, s in read_tsv(os.path.join(run_dir, "games_db.tsv"))}
    acks = read_jsonl(os.path.join(run_dir, "acks.jsonl"))
    seen = read_jsonl(os.path.join(run_dir, "seen.jsonl"))
    anomalies = read_jsonl(os.path.join(run_dir, "anomalies.jsonl"))
    faults = read_jsonl(os.path.join(run_dir, "faults.jsonl"))
    games = read_jsonl(os.path.join(run_dir, "games.jsonl"))
    nodes = json.load(open(os.path.join(run_dir, "nodes.json")))
    observers = read_jsonl(os.path.join(run_dir, "observers.jsonl"))
    snapshots = read_jsonl(os.path.join(run_dir, "snapshots.jsonl"))
    use_async = meta.get("use_async", False)
    stopped = stopped_games(run_dir)
    shas = {}
    for s in seen:
        shas.setdefault((s["game"], s["seq"]), {}).setdefault(s["sha"], []).append(
            (s["client"], s["t"]))
    conflicting = conflicts(pb, stored, stored_sha, acks, shas)
    # With --async the games the service stopped are accounted for apart,
    # unless their stored log contradicts what was seen or acknowledged
    # (another node went on with them from the shorter log).
    excused = stopped - conflicting if use_async else set()

    # --- acknowledged moves
    lost = []
    lost_games = set()
    other_event_games = set()         # an acknowledged seq holding another event
    for a in acks:
        key = (a["game"], a["seq"])
        data = stored.get(key)
        if data is None:
            lost_games.add(a["game"])
            lost.append(f"game {a['game']} seq {a['seq']}: acknowledged at {a['t']:.1f} s by "
                        f"{a['node']} (seat {a['seat']} cup {a['move']}), absent from the "
                        f"stored log (it ends at {max(by_game.get(a['game'], [0]))})")
            continue
        got, kind = move_of(pb, data)
        if got != (a["seat"], a["move"]):
            lost_games.add(a["game"])
            other_event_games.add(a["game"])
            lost.append(f"game {a['game']} seq {a['seq']}: acknowledged at {a['t']:.1f} s by "
                        f"{a['node']} as seat {a['seat']} cup {a['move']}, stored as "
                        f"{kind} {got}")
    v.metric("acked moves lost", f"{len(lost)} of {len(acks)} acknowledged"
             + (f", in {len(lost_games)} game(s)" if lost else ""), bool(lost) and not use_async,
             "asynchronous standby: a figure, see detected and diverged" if use_async else "")
    for line in lost[:max_details]:
        v.detail("lost: " + line)

    # --- sequence numbers reused: two events under one (game, seq)
    acked_at = {}
    for a in acks:
        acked_at.setdefault((a["game"], a["seq"]), []).append(a)
    reused = []
    reused_games = set()
    for key, by_sha in sorted(shas.items()):
        if len(by_sha) > 1:
            reused_games.add(key[0])
            who = "; ".join(f"{sha[:12]} seen by {', '.join(f'{c}@{t:.1f}s' for c, t in cl)}"
                            for sha, cl in by_sha.items())
            reused.append(f"game {key[0]} seq {key[1]}: {len(by_sha)} different events: {who}")
    for key, lst in sorted(acked_at.items()):
        if len({(a["seat"], a["move"]) for a in lst}) > 1:
            reused_games.add(key[0])
            reused.append(f"game {key[0]} seq {key[1]} acknowledged for different moves: "
                          + ", ".join(f"seat {a['seat']} cup {a['move']} at {a['t']:.1f}s"
                                      for a in lst))
    reused = [r for r in reused if r.split()[1] not in excused]
    v.metric("seq reused", f"{len(reused)} (game, seq) with two events, "
             f"{len(shas)} seen by clients", bool(reused),
             f"games stopped left out: {len(excused)}" if excused else "")
    for line in reused[:max_details]:
        v.detail("reused: " + line)

    # --- seen but not stored
    unstored = []
    unstored_games = set()
    for key, by_sha in sorted(shas.items()):
        want = stored_sha.get(key)
        for sha, cl in by_sha.items():
            if want == sha:
                continue
            unstored_games.add(key[0])
            if key[0] in excused:
                continue
            if want is None:
                why = (f"past the stored end {max(by_game.get(key[0], [0]))}"
                       if key[1] > max(by_game.get(key[0], [0])) else "absent (a hole)")
            else:
                why = f"stored bytes differ ({want[:12]} stored, {sha[:12]} seen)"
            unstored.append(f"game {key[0]} seq {key[1]}: {why}; seen by "
                            + ", ".join(f"{c}@{t:.1f}s" for c, t in cl))
    v.metric("seen but not stored", f"{len(unstored)}", bool(unstored),
             f"games stopped left out: {len(excused)}" if excused else "")
    for line in unstored[:max_details]:
        v.detail("unstored: " + line)

    # --- holes
    holes = []
    for game, seqs in sorted(by_game.items()):
        seqs.sort()
        if seqs != list(range(1, len(seqs) + 1)):
            missing = sorted(set(range(1, seqs[-1] + 1)) - set(seqs))
            holes.append(f"game {game}: stored seqs 1..{seqs[-1]} lack {missing[:10]}")
    v.metric("holes in stored logs", f"{len(holes)} of {len(by_game)} games, "
             f"{len(stored)} events", bool(holes))
    for line in holes[:max_details]:
        v.detail("hole: " + line)

    # --- stuck games
    end = meta["settle_end"]
    stuck_after = meta["stuck_after"]
    stuck = []
    played = [g for g in games if g.get("started") is not None]
    for g in played:
        if g["over"] or db_status.get(g["id"], 0) >= 3:
            continue
        # Stopped for good, perhaps where the database has no record of it
        # left to mark (it lost the game's making): nobody may move.
        if use_async and g["id"] in stopped:
            continue
        last = max(x for x in (g.get("last_ack"), g["started"], meta["faults_end"]) if x is not None)
        if end - last > stuck_after:
            stuck.append(f"game {g['id']} (slot {g['slot']}): no move acknowledged for "
                         f"{end - last:.1f} s at the end ({g['acked']} acknowledged, last at "
                         f"{g.get('last_ack')}, last host {g.get('host')}, stored status "
                         f"{db_status.get(g['id'])})")
    finished = sum(1 for g in played if g["over"])
    v.metric("stuck games", f"{len(stuck)} of {len(played)} played ({finished} finished)",
             bool(stuck), f"no move for {stuck_after:.0f} s after the last fault")
    for line in stuck[:max_details]:
        v.detail("stuck: " + line)

    # --- node crashes
    crashes = []
    for n in nodes:
        for e in n["unexpected_exits"]:
            crashes.append(f"node {n['name']} incarnation {e['incarnation']} exited "
                           f"{e['returncode']} at {e['t']:.1f} s without being killed")
        for line in n["crash_lines"]:
            crashes.append(f"node {n['name']} log: {line}")
        rc = n.get("final_exit")
        if rc not in (0, None):
            crashes.append(f"node {n['name']} exited {rc} when stopped at the end")
    starts = sum(len(n.get("failed_starts", [])) for n in nodes)
    v.metric("node crashes", f"{len(crashes)}", bool(crashes),
             f"{sum(n['incarnations'] for n in nodes)} starts, {starts} refused or slow "
             f"and tried again" if starts else "")
    for line in crashes[:max_details]:
        v.detail("crash: " + line)

    # --- what clients noticed
    anomalies = [a for a in anomalies if a.get("game") not in excused]
    v.metric("client anomalies", f"{len(anomalies)}", bool(anomalies),
             "a stream out of order, or a resubscription past a node's end of log")
    for a in anomalies[:max_details]:
        v.detail("anomaly: " + json.dumps(a, sort_keys=True))

    # --- seats refused while their game went on: the game's end is its
    # stored GameOver's time (the service's wall clock, this machine's).
    over_ms = {}
    for (game, seq), data in stored.items():
        ev = pb.Event.FromString(data)
        if ev.WhichOneof("body") == "game_over":
            over_ms[game] = min(over_ms.get(game, ev.time_ms), ev.time_ms)
    refusals = read_jsonl(os.path.join(run_dir, "refusals.jsonl"))
    # A game stopped for good forgets its people: its seats are refused then.
    wrong = [r for r in refusals if r["wall_ms"] < over_ms.get(r["game"], float("inf"))
             and not (use_async and r["game"] in stopped)]
    v.metric("seats refused", f"{len(wrong)} answers UNAUTHENTICATED to a seat of a game "
             f"going on, in {len({r['game'] for r in wrong})} game(s)", bool(wrong))
    for r in wrong[:max_details]:
        v.detail(f"refused: game {r['game']} client {r['client']} at {r['t']:.1f} s: "
                 f"{r['method']} at {r['node']}: \"{r['details']}\"")

    # --- the games the service stopped, and with --async, each game that
    # lost acknowledged moves: detected, diverged, or lost unnoticed
    v.metric("games stopped", f"{len(stopped)}", False,
             "their stored log went back in time: stopped for good (room_halt)")
    if use_async:
        # Diverged: the stored log holds another event than one acknowledged
        # or seen (someone numbered on from the hole), or a game not stopped
        # lost events its clients saw.
        diverged = sorted(conflicting | ((unstored_games | lost_games) - stopped))
        detected = sorted((lost_games & stopped) - set(diverged))
        unnoticed = sorted(lost_games - stopped - set(diverged))
        lost_per_game = {}
        for a in acks:
            if a["game"] in lost_games and acked_sha(pb, stored, a) is None:
                lost_per_game[a["game"]] = lost_per_game.get(a["game"], 0) + 1
        v.metric("async: lost acked", f"{len(lost_games)} game(s) lost acknowledged moves")
        v.metric("async: detected", f"{len(detected)} of them stopped by the service"
                 + (f" ({sum(lost_per_game.get(g, 0) for g in detected)} moves)"
                    if detected else ""))
        v.metric("async: diverged", f"{len(diverged)} game(s) went on from a log that "
                 f"contradicts what was acknowledged or seen", bool(diverged))
        v.metric("async: lost unnoticed", f"{len(unnoticed)} game(s) not stopped, nothing "
                 f"seen contradicts their stored log")
        for g in detected[:max_details]:
            v.detail(f"detected: game {g}: {lost_per_game.get(g, 0)} acknowledged move(s) "
                     f"lost, stopped")
        for g in diverged[:max_details]:
            v.detail(f"diverged: game {g}" + (" (stopped by a node)" if g in stopped else "")
                     + ": " + ", ".join(
                         what for what, games in (("seq reused", reused_games),
                                                  ("seen but not stored", unstored_games),
                                                  ("an acknowledged seq holds another event",
                                                   other_event_games),
                                                  ("acknowledged moves absent", lost_games))
                         if g in games))
        for g in unnoticed[:max_details]:
            v.detail(f"unnoticed: game {g}: {lost_per_game.get(g, 0)} acknowledged move(s) "
                     f"lost, not stopped")

    # --- observers: every event after the first they saw, and kept up
    check_observers(v, meta, seen, snapshots, observers, acks, excused, max_details)

    # --- recovery per fault kind
    acks_by_game = {}
    for a in acks:
        acks_by_game.setdefault(a["game"], []).append(a["t"])
    for ts in acks_by_game.values():
        ts.sort()
    kinds = {}
    for f in faults:
        kinds.setdefault(f["kind"], []).append(f)
    counts = ", ".join(f"{k} {len(fs)}" for k, fs in sorted(kinds.items()))
    v.metric("faults", f"{len(faults)}: {counts or 'none'}")
    seen_by_client = {}
    for s_ in seen:
        seen_by_client.setdefault(s_["client"], []).append(s_["t"])
    for ts in seen_by_client.values():
        ts.sort()
    for kind, fs in sorted(kinds.items()):
        times, never = [], 0
        for f in fs:
            for client in f.get("clients", []):
                later = [t for t in seen_by_client.get(client, []) if t >= f["start"]]
                if later:
                    times.append(later[0] - f["start"])
                else:
                    never += 1
            for gid in f["affected"]:
                later = [t for t in acks_by_game.get(gid, []) if t >= f["start"]]
                if later:
                    times.append(later[0] - f["start"])
                else:
                    never += 1
        what = "observer(s)" if any("clients" in f for f in fs) else "game(s)"
        if times:
            value = (f"median {statistics.median(times):.1f} s, max {max(times):.1f} s "
                     f"over {len(times)} {what}")
        else:
            value = f"no affected {what[:-3]}"
        v.metric(f"recovery {kind}", value + (f", {never} without a later move" if never
                                              else ""))
    return v


def acked_sha(pb, stored, a):
    """The SHA-256 of the stored event at an acknowledged seq when it is that
    move, else None."""
    data = stored.get((a["game"], a["seq"]))
    if data is None or move_of(pb, data)[0] != (a["seat"], a["move"]):
        return None
    return hashlib.sha256(data).hexdigest()


def conflicts(pb, stored, stored_sha, acks, shas):
    """The games whose stored log holds, under a seq, another event than one
    a client saw or was acknowledged there, or under which clients saw two:
    a log numbered on from a hole, not only cut short."""
    out = set()
    for a in acks:
        key = (a["game"], a["seq"])
        if key in stored and acked_sha(pb, stored, a) is None:
            out.add(a["game"])
    for key, by_sha in shas.items():
        if len(by_sha) > 1 or (key in stored_sha and set(by_sha) != {stored_sha[key]}):
            out.add(key[0])
    return out


def stopped_games(run_dir):
    """The games a node stopped for good because their stored log went back
    in time (board_let_go_lost logs the line before room_halt)."""
    out = set()
    for path in glob.glob(os.path.join(run_dir, "logs", "node-*.log")):
        with open(path, errors="replace") as f:
            for line in f:
                m = STOPPED_LINE.search(line)
                if m:
                    out.add(m.group(1))
    return out


def check_observers(v, meta, seen, snapshots, observers, acks, excused, max_details):
    """Observer holes and observers behind (the module's docstring)."""
    if not observers:
        return
    by_client = {}
    for s in seen:
        if "/o" in s["client"]:
            by_client.setdefault(s["client"], []).append(s)
    snaps = {}
    for sn in snapshots:
        snaps.setdefault(sn["client"], []).append(sn)
    holes, summed = [], []
    for client, rows in sorted(by_client.items()):
        if rows[0]["game"] in excused:
            continue
        seqs = sorted({r["seq"] for r in rows})
        for a, b in zip(seqs, seqs[1:]):
            if b == a + 1:
                continue
            # A relay that took the game on after a (it joined it later, or
            # was started again) holds no event before its snapshot, and
            # gives that snapshot instead (relay_feed.c, relay__feed_watch):
            # the observer has the board, not the moves in between.
            snap = [sn for sn in snaps.get(client, [])
                    if 0 < sn["after"] <= a and sn["last_seq"] == b - 1]
            if snap:
                sn = snap[0]
                summed.append(f"observer {client}: asked after {a}, given {sn['node']}'s "
                              f"snapshot at {sn['last_seq']} at {sn['t']:.1f} s")
            else:
                holes.append(f"observer {client}: saw {a} then {b}")
    v.metric("observer holes", f"{len(holes)} in {len(by_client)} observers' events",
             bool(holes), f"{len(summed)} resumption(s) given a relay's later snapshot "
                          f"instead of the events missed" if summed else "")
    for line in holes[:max_details]:
        v.detail("observer hole: " + line)
    for line in summed[:5]:
        v.detail("snapshot for missed events: " + line)

    acks_by_game = {}
    for a in acks:
        acks_by_game.setdefault(a["game"], []).append(a)
    stuck_after = meta["stuck_after"]
    relays = set(meta.get("relay_endpoints", []))
    behind, unseen_end, joins, relayed = [], 0, 0, 0
    for o in observers:
        joins += max(0, o["joins"] - 1)
        relayed += any(ep in relays for ep in o["where"])
        if o["game"] in excused:
            continue
        if o["ended_by"].startswith("no GameOver"):
            unseen_end += 1
        # A move acknowledged while it watched, --stuck-after or more before
        # it stopped, and never reached it (by an event or a snapshot).
        missed = [a for a in acks_by_game.get(o["game"], [])
                  if o["started"] <= a["t"] <= o["ended"] - stuck_after
                  and a["seq"] > (o["last_seq"] or 0)]
        if missed:
            behind.append(f"observer {o['client']}: seq {missed[0]['seq']} acknowledged at "
                          f"{missed[0]['t']:.1f} s, it stopped at {o['ended']:.1f} s at seq "
                          f"{o['last_seq']} (last event at {o['last_seen']}); joined "
                          f"{o['joins']} time(s) at {o['where']}; {o['ended_by']}")
    v.metric("observers behind", f"{len(behind)} of {len(observers)}", bool(behind),
             f"{relayed} watched at a relay, {joins} joins again, {unseen_end} did not see "
             f"their game's end within the grace")
    for line in behind[:max_details]:
        v.detail("behind: " + line)


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} RUN_DIR (a directory chaos.py --keep left)",
              file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import workload
    import tempfile
    with tempfile.TemporaryDirectory(prefix="sungka-chaos-stubs-") as d:
        workload.generate(d)
        v = check(sys.argv[1], workload.pb)
    for line in v.lines:
        print(line)
    for line in v.details:
        print("  " + line)
    return 1 if v.failed else 0


if __name__ == "__main__":
    sys.exit(main())
