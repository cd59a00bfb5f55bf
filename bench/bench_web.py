#!/usr/bin/python3
"""bench_web.py — what browsers cost sungka-web: N watchers of one game
(WebSocket clients speaking docs/web-protocol.md, as the app does), the
gateway's memory and CPU per browser, the time from a move to the last
watcher, and the app's page weight and time to first board in headless
Chromium. A benchmark, not a test: run by hand, numbers in PERFORMANCE.md
("Browsers at the gateway").

Usage: bench/bench_web.py BUILD/bin N [N ...]     (e.g. 100 1000)
Needs python3-websocket; python3-selenium, chromium and chromium-driver for
the time to first board (skipped without them).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket

MOVES = 6


def proc_stats(pid):
    """(resident KiB, CPU seconds, threads) of a process."""
    with open(f"/proc/{pid}/status") as f:
        status = f.read()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, cpu, threads


def start(argv, pattern):
    err = open(f"/tmp/bench-web-{os.path.basename(argv[0])}.log", "w")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True)
    for line in p.stdout:
        m = re.search(pattern, line)
        if m:
            return p, int(m.group(1))
    raise SystemExit(f"{argv[0]} did not start")


def connect(port):
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/ws",
                                     origin=f"http://127.0.0.1:{port}", subprotocols=["sungka"],
                                     timeout=120, skip_utf8_validation=True)
    ws.recv()          # hello
    ws.recv()          # lobby
    return ws


def until(ws, pred):
    while True:
        m = json.loads(ws.recv())
        if pred(m):
            return m


class Watcher(threading.Thread):
    def __init__(self, port, game, ready):
        super().__init__(daemon=True)
        self.port, self.game, self.ready = port, game, ready
        self.seen = {}             # moves seen -> monotonic time of the "moved" event
        self.error = None

    def run(self):
        try:
            ws = connect(self.port)
            ws.send(json.dumps({"type": "join", "game": self.game, "observe": True}))
            until(ws, lambda m: m["type"] == "state")
            self.ready.release()
            n = 0
            while n < MOVES:
                text = ws.recv()
                if '"moved"' not in text:     # parse only what may be a move
                    continue
                m = json.loads(text)
                if m["type"] == "event" and m["event"] == "moved":
                    n += 1
                    self.seen[n] = time.monotonic()
            self.ws = ws
        except Exception as e:   # noqa: BLE001 - reported by the main thread
            self.error = e
            self.ready.release()


def first_board(url):
    """Milliseconds from navigation to the first board drawn, in headless
    Chromium; None without it."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    if not os.access("/usr/bin/chromium", os.X_OK):
        return None
    profile = tempfile.mkdtemp(prefix="sungka-bench-chromium-")
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--user-data-dir={profile}", "--no-first-run"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        times = []
        for _ in range(5):
            d.get("about:blank")
            d.get(url)
            end = time.monotonic() + 30
            while time.monotonic() < end:
                ms = d.execute_script(
                    "return document.querySelectorAll('#board [data-cell]').length ? "
                    "performance.now() : null;")
                if ms:
                    times.append(ms)
                    break
                time.sleep(0.005)
        return statistics.median(times) if times else None
    finally:
        d.quit()


def run(bindir, n):
    # The gateway shows the board service's relay key, as a public one would
    # (docs/operating.md): one loopback address plays every browser here.
    key = os.path.join(tempfile.mkdtemp(prefix="sungka-bench-web-"), "relay.key")
    with open(key, "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    board, bport = start([os.path.join(bindir, "sungka-board"), "--listen", "127.0.0.1:0",
                          "--db", ":memory:", "--client-join-rate", "1000000",
                          "--relay-key", key], r"listening on \S+:(\d+)")
    web, wport = start([os.path.join(bindir, "sungka-web"), "--listen", "127.0.0.1:0",
                        "--server", f"127.0.0.1:{bport}", "--max-per-address", str(n + 10),
                        "--relay-key", key], r"listening on \S+:(\d+)")
    try:
        a, b = connect(wport), connect(wport)
        a.send(json.dumps({"type": "new", "kind": "kalah"}))
        game = until(a, lambda m: m["type"] == "state")["game"]
        b.send(json.dumps({"type": "join", "game": game}))
        states = {p: until(p, lambda m: m["type"] == "state" and m["status"] == "running")
                  for p in (a, b)}
        time.sleep(1)
        rss0, cpu0, thr0 = proc_stats(web.pid)
        ready = threading.Semaphore(0)
        started = time.monotonic()
        crowd = [Watcher(wport, game, ready) for _ in range(n)]
        for w in crowd:
            w.start()
        for _ in crowd:
            ready.acquire()
        joined = time.monotonic() - started
        errors = [w.error for w in crowd if w.error]
        if errors:
            raise SystemExit(f"{len(errors)} watchers failed: {errors[0]!r}")
        time.sleep(2)
        rss1, cpu1, thr1 = proc_stats(web.pid)
        fds = len(os.listdir(f"/proc/{web.pid}/fd"))
        lat = []
        for k in range(1, MOVES + 1):
            mover = next(p for p in (a, b) if states[p]["to_move"] == states[p]["my_seat"])
            cell = next(c for c in states[mover]["cells"] if c["move"] != -1)
            t0 = time.monotonic()
            mover.send(json.dumps({"type": "move", "move": cell["move"]}))
            for p in (a, b):
                states[p] = until(p, lambda m: m["type"] == "state" and len(m["moves"]) >= k)
            end = time.monotonic() + 60
            while any(k not in w.seen for w in crowd) and time.monotonic() < end:
                time.sleep(0.001)
            last = max(w.seen.get(k, float("inf")) for w in crowd)
            lat.append((last - t0) * 1000)
            time.sleep(0.3)
        rss2, cpu2, thr2 = proc_stats(web.pid)
        print(f"{n} watchers: joined in {joined:.1f} s; gateway "
              f"{(rss1 - rss0) / n:.0f} KiB and {(cpu1 - cpu0) / n * 1000:.1f} ms CPU per "
              f"browser to connect and watch, {(thr1 - thr0) / n:.1f} threads per browser "
              f"({rss1 / 1024:.0f} MiB, {thr1} threads, {fds} files in all); move to last watcher: "
              f"median {statistics.median(lat):.0f} ms, max {max(lat):.0f} ms "
              f"({MOVES} moves); {(cpu2 - cpu1) / MOVES * 1000:.0f} ms gateway CPU a move",
              flush=True)
        weight = 0
        for path in ("/", "/app.js", "/app.css", "/i18n.js"):
            with urllib.request.urlopen(f"http://127.0.0.1:{wport}{path}") as r:
                weight += len(r.read())
        return weight, f"http://127.0.0.1:{wport}/game/{game}", (web, board)
    except BaseException:
        web.terminate()
        board.terminate()
        raise


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bindir = sys.argv[1]
    for i, n in enumerate(int(x) for x in sys.argv[2:]):
        weight, url, procs = run(bindir, n)
        try:
            if i == 0:
                ms = first_board(url)
                print(f"page: {weight} bytes (/, app.js, app.css, i18n.js; uncompressed); "
                      f"first board {'not measured' if ms is None else f'{ms:.0f} ms'} after "
                      f"navigation (median of 5, headless Chromium, loopback)", flush=True)
        finally:
            for p in procs:
                p.terminate()
                p.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
