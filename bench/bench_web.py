#!/usr/bin/python3
"""bench_web.py — what browsers cost sungka-web: N watchers of one game
(WebSocket clients speaking docs/web-protocol.md, as the app does), the
gateway's memory and CPU per browser, the time from a move to the last
watcher, and the app's page weight and time to first board in headless
Chromium. A benchmark, not a test: run by hand, numbers in PERFORMANCE.md
("Browsers at the gateway").

Usage: bench/bench_web.py BUILD/bin N [N ...]     (e.g. 1000 10000)
The watchers are asyncio clients (python3-websockets), up to 2,500 in each
of ceil(N / 2500) processes of this script, each with its file limit raised
to its hard limit. Needs python3-websocket for the two players;
python3-selenium, chromium and chromium-driver for the time to first board
(skipped without them).
"""
import asyncio
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

MOVES = 6
PER_PROCESS = 2500
CONNECTING = 64                # connections being opened at once, per process


def raise_file_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


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


def start(argv, pattern, more=None):
    """A process, and the number pattern found on its stdout (and more's,
    on a later line, when given)."""
    err = open(f"/tmp/bench-web-{os.path.basename(argv[0])}.log", "w")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True,
                         preexec_fn=raise_file_limit)
    found = []
    for line in p.stdout:
        m = re.search(more if found else pattern, line)
        if m:
            found.append(int(m.group(1)))
            if not more or len(found) == 2:
                return (p, *found)
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


# --- the watchers' side: one process of the crowd (--crowd PORT GAME COUNT) ---

async def crowd(port, game, count):
    """count watchers of game: prints "ready OK FAILED [ERROR]" once they all
    joined (or failed), then "got K TIME SEEN" for each move K once every
    watcher has seen it (TIME: the last one's, CLOCK_MONOTONIC, which the
    parent shares), then waits for its stdin to close."""
    import websockets
    raise_file_limit()
    sem = asyncio.Semaphore(CONNECTING)
    join = json.dumps({"type": "join", "game": game, "observe": True})
    errors = []

    async def one():
        try:
            async with sem:
                ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws", origin=f"http://127.0.0.1:{port}",
                    subprotocols=["sungka"], ping_interval=None, compression=None,
                    open_timeout=300, close_timeout=1, max_size=2 ** 22)
                await ws.recv()            # hello
                await ws.recv()            # lobby
                await ws.send(join)
                while json.loads(await ws.recv())["type"] != "state":
                    pass
                return ws
        except Exception as e:  # noqa: BLE001 - counted and reported
            errors.append(repr(e))
            return None

    conns = [ws for ws in await asyncio.gather(*(one() for _ in range(count))) if ws]
    print(f"ready {len(conns)} {len(errors)} {errors[0] if errors else ''}", flush=True)
    seen = [0] * (MOVES + 1)
    last = [0.0] * (MOVES + 1)
    done = [asyncio.Event() for _ in range(MOVES + 1)]

    async def watch(ws):
        n = 0
        while n < MOVES:
            text = await ws.recv()
            if '"moved"' not in text:      # parse only what may be a move
                continue
            m = json.loads(text)
            if m["type"] == "event" and m["event"] == "moved":
                n += 1
                seen[n] += 1
                last[n] = time.monotonic()
                if seen[n] == len(conns):
                    done[n].set()

    tasks = [asyncio.create_task(watch(ws)) for ws in conns]
    for k in range(1, MOVES + 1):
        try:
            await asyncio.wait_for(done[k].wait(), 120)
        except asyncio.TimeoutError:
            pass
        print(f"got {k} {last[k]!r} {seen[k]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*(ws.close() for ws in conns), return_exceptions=True)


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


def gateway_metric(port, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
        text = r.read().decode()
    m = re.search(rf"^{name} (\d+)$", text, re.M)
    return int(m.group(1)) if m else None


def run(bindir, n):
    # The gateway shows the board service's relay key, as a public one would
    # (docs/operating.md): one loopback address plays every browser here.
    key = os.path.join(tempfile.mkdtemp(prefix="sungka-bench-web-"), "relay.key")
    with open(key, "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    board, bport = start([os.path.join(bindir, "sungka-board"), "--listen", "127.0.0.1:0",
                          "--db", ":memory:", "--client-join-rate", "1000000",
                          "--relay-key", key], r"listening on \S+:(\d+)")
    web, wport, mport = start([os.path.join(bindir, "sungka-web"), "--listen", "127.0.0.1:0",
                               "--server", f"127.0.0.1:{bport}", "--max-per-address",
                               str(n + 10), "--relay-key", key, "--no-state",
                               "--metrics", "127.0.0.1:0"],
                              r"listening on \S+:(\d+)", r"metrics at http://\S+:(\d+)/")
    kids = []
    try:
        a, b = connect(wport), connect(wport)
        a.send(json.dumps({"type": "new", "kind": "kalah"}))
        game = until(a, lambda m: m["type"] == "state")["game"]
        b.send(json.dumps({"type": "join", "game": game}))
        states = {p: until(p, lambda m: m["type"] == "state" and m["status"] == "running")
                  for p in (a, b)}
        time.sleep(1)
        rss0, cpu0, thr0 = proc_stats(web.pid)
        started = time.monotonic()
        k_procs = math.ceil(n / PER_PROCESS)
        for i in range(k_procs):
            count = n // k_procs + (1 if i < n % k_procs else 0)
            kids.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--crowd",
                                          str(wport), game, str(count)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True))
        failed = 0
        first_error = ""
        for kid in kids:
            words = kid.stdout.readline().split(" ", 3)
            if not words or words[0] != "ready":
                raise SystemExit(f"a watchers' process said {words}")
            failed += int(words[2])
            first_error = first_error or (words[3].strip() if len(words) > 3 else "")
        joined = time.monotonic() - started
        if failed:
            raise SystemExit(f"{failed} of {n} watchers failed: {first_error}")
        time.sleep(2)
        rss1, cpu1, thr1 = proc_stats(web.pid)
        fds = len(os.listdir(f"/proc/{web.pid}/fd"))
        agents = gateway_metric(mport, "sungka_web_agents")
        lists = gateway_metric(mport, "sungka_web_lobby_lists_total")
        lat = []
        for k in range(1, MOVES + 1):
            mover = next(p for p in (a, b) if states[p]["to_move"] == states[p]["my_seat"])
            cell = next(c for c in states[mover]["cells"] if c["move"] != -1)
            t0 = time.monotonic()
            mover.send(json.dumps({"type": "move", "move": cell["move"]}))
            for p in (a, b):
                states[p] = until(p, lambda m: m["type"] == "state" and len(m["moves"]) >= k)
            last, seen = 0.0, 0
            for kid in kids:
                words = kid.stdout.readline().split()
                if len(words) != 4 or words[0] != "got" or int(words[1]) != k:
                    raise SystemExit(f"a watchers' process said {words}")
                last = max(last, float(words[2]))
                seen += int(words[3])
            if seen != n:
                raise SystemExit(f"move {k} reached {seen} of {n} watchers in 120 s")
            lat.append((last - t0) * 1000)
            time.sleep(0.3)
        rss2, cpu2, thr2 = proc_stats(web.pid)
        print(f"{n} watchers ({k_procs} asyncio client processes): joined in {joined:.1f} s; "
              f"gateway {(rss1 - rss0) / n:.1f} KiB and {(cpu1 - cpu0) / n * 1000:.2f} ms CPU "
              f"per browser to connect and watch, {(thr1 - thr0) / n:.2f} threads per browser "
              f"({rss1 / 1024:.0f} MiB, {thr1} threads, {fds} files in all; "
              f"sungka_web_agents {agents}, sungka_web_lobby_lists_total {lists}); "
              f"move to last watcher: "
              f"median {statistics.median(lat):.0f} ms, max {max(lat):.0f} ms "
              f"({MOVES} moves); {(cpu2 - cpu1) / MOVES * 1000:.0f} ms gateway CPU a move",
              flush=True)
        weight = 0
        for path in ("/", "/app.js", "/app.css", "/i18n.js"):
            with urllib.request.urlopen(f"http://127.0.0.1:{wport}{path}") as r:
                weight += len(r.read())
        return weight, f"http://127.0.0.1:{wport}/game/{game}", (web, board), kids
    except BaseException:
        for kid in kids:
            kid.kill()
        web.terminate()
        board.terminate()
        raise


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--crowd":
        asyncio.run(crowd(int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
        return 0
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bindir = sys.argv[1]
    for i, n in enumerate(int(x) for x in sys.argv[2:]):
        before = os.getloadavg()
        print(f"load average before: {before[0]:.2f} {before[1]:.2f} {before[2]:.2f} "
              f"({os.cpu_count()} CPUs)", flush=True)
        weight, url, procs, kids = run(bindir, n)
        try:
            if i == 0:
                ms = first_board(url)
                print(f"page: {weight} bytes (/, app.js, app.css, i18n.js; uncompressed); "
                      f"first board {'not measured' if ms is None else f'{ms:.0f} ms'} after "
                      f"navigation (median of 5, headless Chromium, loopback)", flush=True)
        finally:
            for kid in kids:
                kid.stdin.close()
            for kid in kids:
                kid.wait(timeout=120)
            for p in procs:
                p.terminate()
                p.wait(timeout=60)
        after = os.getloadavg()
        print(f"load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
