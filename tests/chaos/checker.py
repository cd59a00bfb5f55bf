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
  faults.jsonl   each fault: kind, node, start, end, affected games
  games.jsonl    each game the workload played: started, over, last ack
  nodes.json     each node's exits and the lines of its log that say it crashed
  meta.json      the run's figures (seed, duration, the end of the settle)

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
  recovery per fault     info  from the fault's start to the next acknowledged
                               move of each game it affected: median, max
"""
import hashlib
import json
import os
import statistics
import sys


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

    # --- acknowledged moves
    lost = []
    for a in acks:
        key = (a["game"], a["seq"])
        data = stored.get(key)
        if data is None:
            lost.append(f"game {a['game']} seq {a['seq']}: acknowledged at {a['t']:.1f} s by "
                        f"{a['node']} (seat {a['seat']} cup {a['move']}), absent from the "
                        f"stored log (it ends at {max(by_game.get(a['game'], [0]))})")
            continue
        got, kind = move_of(pb, data)
        if got != (a["seat"], a["move"]):
            lost.append(f"game {a['game']} seq {a['seq']}: acknowledged at {a['t']:.1f} s by "
                        f"{a['node']} as seat {a['seat']} cup {a['move']}, stored as "
                        f"{kind} {got}")
    v.metric("acked moves lost", f"{len(lost)} of {len(acks)} acknowledged", bool(lost))
    for line in lost[:max_details]:
        v.detail("lost: " + line)

    # --- sequence numbers reused: two events under one (game, seq)
    shas = {}
    for s in seen:
        shas.setdefault((s["game"], s["seq"]), {}).setdefault(s["sha"], []).append(
            (s["client"], s["t"]))
    acked_at = {}
    for a in acks:
        acked_at.setdefault((a["game"], a["seq"]), []).append(a)
    reused = []
    for key, by_sha in sorted(shas.items()):
        if len(by_sha) > 1:
            who = "; ".join(f"{sha[:12]} seen by {', '.join(f'{c}@{t:.1f}s' for c, t in cl)}"
                            for sha, cl in by_sha.items())
            reused.append(f"game {key[0]} seq {key[1]}: {len(by_sha)} different events: {who}")
    for key, lst in sorted(acked_at.items()):
        if len({(a["seat"], a["move"]) for a in lst}) > 1:
            reused.append(f"game {key[0]} seq {key[1]} acknowledged for different moves: "
                          + ", ".join(f"seat {a['seat']} cup {a['move']} at {a['t']:.1f}s"
                                      for a in lst))
    v.metric("seq reused", f"{len(reused)} (game, seq) with two events, "
             f"{len(shas)} seen by clients", bool(reused))
    for line in reused[:max_details]:
        v.detail("reused: " + line)

    # --- seen but not stored
    unstored = []
    for key, by_sha in sorted(shas.items()):
        want = stored_sha.get(key)
        for sha, cl in by_sha.items():
            if want == sha:
                continue
            if want is None:
                why = (f"past the stored end {max(by_game.get(key[0], [0]))}"
                       if key[1] > max(by_game.get(key[0], [0])) else "absent (a hole)")
            else:
                why = f"stored bytes differ ({want[:12]} stored, {sha[:12]} seen)"
            unstored.append(f"game {key[0]} seq {key[1]}: {why}; seen by "
                            + ", ".join(f"{c}@{t:.1f}s" for c, t in cl))
    v.metric("seen but not stored", f"{len(unstored)}", bool(unstored))
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
    wrong = [r for r in refusals if r["wall_ms"] < over_ms.get(r["game"], float("inf"))]
    v.metric("seats refused", f"{len(wrong)} answers UNAUTHENTICATED to a seat of a game "
             f"going on, in {len({r['game'] for r in wrong})} game(s)", bool(wrong))
    for r in wrong[:max_details]:
        v.detail(f"refused: game {r['game']} client {r['client']} at {r['t']:.1f} s: "
                 f"{r['method']} at {r['node']}: \"{r['details']}\"")

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
    for kind, fs in sorted(kinds.items()):
        times, never = [], 0
        for f in fs:
            for gid in f["affected"]:
                later = [t for t in acks_by_game.get(gid, []) if t >= f["start"]]
                if later:
                    times.append(later[0] - f["start"])
                else:
                    never += 1
        if times:
            value = (f"median {statistics.median(times):.1f} s, max {max(times):.1f} s "
                     f"over {len(times)} game(s)")
        else:
            value = "no affected game"
        v.metric(f"recovery {kind}", value + (f", {never} without a later move" if never
                                              else ""))
    return v


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
