#!/usr/bin/python3
"""test_web_ops.py — sungka-web for crowds and operators, end to end.

A real sungka-board and sungka-web on loopback, and WebSocket clients
(python3-websocket) speaking docs/web-protocol.md: many browsers watching
one game through one shared observer, X-Forwarded-For believed from a
trusted proxy only, and /metrics.

And the app in Filipino and Indonesian on a phone's screen: headless
Chromium (chromium, chromium-driver, python3-selenium) emulating a 390x844
phone, screenshots to SHOTDIR (build/screenshots/).

Usage: test_web_ops.py BINDIR SHOTDIR TEST. Exit 77 (skipped) when a
browser test finds no Chromium. Every process started is stopped at the
end.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from harness import Env, Failure, check  # noqa: E402
import test_web  # noqa: E402
from test_web import CHROMEDRIVER, CHROMIUM, WAIT, Browser, _ws, gateway  # noqa: E402
from test_web import _recv_until as recv_until  # noqa: E402

N_WATCHERS = 50



def metrics(web):
    with urllib.request.urlopen(f"http://127.0.0.1:{web.metrics_port}/metrics",
                                timeout=WAIT) as r:
        check(r.headers.get("Content-Type", "").startswith("text/plain"),
              f"/metrics is {r.headers.get('Content-Type')}")
        return r.read().decode()


def metric(text, name):
    m = re.search(rf"^{re.escape(name)} (\d+)$", text, re.M)
    check(m, f"/metrics has no {name}:\n{text}")
    return int(m.group(1))


def wait_metric(web, name, want):
    end = time.monotonic() + WAIT
    while True:
        text = metrics(web)
        if re.search(rf"^{re.escape(name)} {want}$", text, re.M):
            return text
        if time.monotonic() > end:
            raise Failure(f"/metrics never said {name} {want}:\n{text}")
        time.sleep(0.05)


def with_metrics(env, board, *extra):
    web = gateway(env, board, "--metrics", "127.0.0.1:0", *extra)
    m = web.expect(r"metrics at http://127\.0\.0\.1:(\d+)/metrics", timeout=15)
    web.metrics_port = int(m.group(1))
    return web


def play_until_over(players, states, seen):
    """Tic-tac-toe between the two players (states: each one's last state),
    each playing its first playable cell; the moves in seen, in order."""
    while True:
        mover = next((p for p in players
                      if states[p]["to_move"] == states[p]["my_seat"] != -1), None)
        if not mover:
            return recv_until(players[0], "the end", lambda m: m["type"] == "state"
                              and m["over"] is not None)
        cell = next(c for c in states[mover]["cells"] if c["move"] != -1)
        mover.send(json.dumps({"type": "move", "move": cell["move"]}))
        moved = recv_until(mover, "its move", lambda m: m["type"] == "event"
                           and m["event"] in ("moved", "game_over"))
        if moved["event"] == "moved":
            seen.append(moved["text"])
        for p in players:
            st = recv_until(p, "the state after the move",
                            lambda m: m["type"] == "state" and len(m["moves"]) == len(seen))
            states[p] = st
        check(len(seen) < 300, "the game does not end")


def watchers(bindir):
    """50 browsers watching one game see every move through one observer:
    the board service counts one spectator, /metrics 50 watchers of the
    shared game, and once they all left, none. A watcher costs no player
    agent, nor a browser in the lobby: /metrics counts the one player's,
    until one watcher chats (its line reaches the player and the other
    watchers) and has one, and the second player joins."""
    with Env(bindir) as env:
        board = env.board()
        web = with_metrics(env, board, "--max-per-address", str(N_WATCHERS + 4))
        a, b = _ws(web), _ws(web)
        a.send(json.dumps({"type": "new", "kind": "tictactoe", "options": ["size=3", "dims=2"]}))
        game = recv_until(a, "the new game", lambda m: m["type"] == "state")["game"]
        crowd = []
        for _ in range(N_WATCHERS):
            w = _ws(web)
            w.send(json.dumps({"type": "join", "game": game, "observe": True}))
            crowd.append(w)
        for w in crowd:
            st = recv_until(w, "the watched game", lambda m: m["type"] == "state")
            check(st["game"] == game and st["my_seat"] == -1,
                  f"a watcher was shown {st['game']} as seat {st['my_seat']}")
            check(all(c["move"] == -1 for c in st["cells"]), "a watcher is offered a move")
        text = metrics(web)
        check(f'sungka_web_game_watchers{{game="{game}"}} {N_WATCHERS}' in text,
              f"/metrics does not count {N_WATCHERS} watchers of game {game}:\n{text}")
        check(metric(text, "sungka_web_shared_games") == 1, "not one shared game")
        check(metric(text, "sungka_web_browsers") == N_WATCHERS + 2, "browsers miscounted")
        # Only the player who made the game has an agent: not b, in the
        # lobby, nor a watcher.
        check(metric(text, "sungka_web_agents") == 1,
              f"{metric(text, 'sungka_web_agents')} player agents for one player, a browser "
              f"in the lobby and {N_WATCHERS} watchers")
        # Their lobbies came from the gateway's one lister, made anew at
        # most once a second (and after a's new game), not once each.
        lists = metric(text, "sungka_web_lobby_lists_total")
        check(0 < lists < N_WATCHERS, f"{lists} lobbies asked of the board service for "
              f"{N_WATCHERS + 1} browsers without an agent")
        # The board service sees the gateway's one observer, not fifty.
        a.send(json.dumps({"type": "list"}))
        lobby = recv_until(a, "the lobby", lambda m: m["type"] == "lobby")
        listed = [g for g in lobby["games"] if g["id"] == game]
        check(listed and listed[0]["observers"] == 1,
              f"the board service counts {listed and listed[0]['observers']} observers of "
              f"game {game}, not the gateway's one")
        # One watcher speaks before the game starts (spectators' chat
        # reaches the players then): its agent starts, and joins as an
        # observer to say the line, which the player and every watcher hear.
        line = "magandang laro"
        crowd[0].send(json.dumps({"type": "chat", "text": line}))
        for i, ws in enumerate([a] + crowd):
            got = recv_until(ws, f"the watcher's line ({i})", lambda m: m["type"] == "error" or (
                m["type"] == "event" and m["event"] == "chat" and m["text"] == line))
            check(got["type"] == "event", f"browser {i} was told {got}")
        wait_metric(web, "sungka_web_agents", 2)
        # The board service: the gateway's observer and the speaker's.
        a.send(json.dumps({"type": "list"}))
        lobby = recv_until(a, "the lobby", lambda m: m["type"] == "lobby")
        listed = [g["observers"] for g in lobby["games"] if g["id"] == game]
        check(listed == [2], f"after a watcher spoke the board service counts {listed} "
              "observers, not the gateway's one and the speaker's")
        b.send(json.dumps({"type": "join", "game": game}))
        states = {p: recv_until(p, "the game under way", lambda m: m["type"] == "state"
                                and m["status"] == "running") for p in (a, b)}
        wait_metric(web, "sungka_web_agents", 3)
        moves = []
        final = play_until_over([a, b], states, moves)
        check(len(moves) >= 5, f"a tic-tac-toe game of {len(moves)} moves")
        for i, w in enumerate(crowd):
            got = []
            while True:
                m = recv_until(w, f"the end of the game (watcher {i})",
                               lambda m: m["type"] == "event")
                if m["event"] == "moved":
                    got.append(m["text"])
                if m["event"] == "game_over":
                    break
            check(got == moves, f"watcher {i} saw the moves {got}, the players {moves}")
            st = recv_until(w, "the last state", lambda m: m["type"] == "state"
                            and m["over"] is not None)
            diff = [(c, d) for c, d in zip(st["cells"], final["cells"])
                    if c["value"] != d["value"]]
            check(len(st["cells"]) == len(final["cells"]) and not diff,
                  f"watcher {i} sees another board than the players: {diff[:3]}")
        # Half leave the game, the rest close: the shared observer goes
        # with the last of them.
        for w in crowd[:N_WATCHERS // 2]:
            w.send(json.dumps({"type": "leave"}))
            recv_until(w, "left", lambda m: m["type"] == "left")
        wait_metric(web, f'sungka_web_game_watchers{{game="{game}"}}', N_WATCHERS // 2)
        for w in crowd:
            w.close()
        text = wait_metric(web, "sungka_web_shared_games", 0)
        check(f'game="{game}"' not in text, "a game nobody watches is still shared")
        web.expect_stderr(rf"nobody watches game {game} any more")
        check(metric(text, r'sungka_web_messages_out_total{from="shared_game"}')
              >= N_WATCHERS * len(moves), "the shared messages were not counted")
        a.close()
        b.close()


def _fast_ws(web, rcvbuf=None):
    """A WebSocket client that does not check UTF-8 in Python (big boards
    are tens of KB a message); rcvbuf: a small receive buffer."""
    import socket
    import websocket
    opts = ((socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf),) if rcvbuf else ()
    ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=web.url,
                                     subprotocols=["sungka"], timeout=WAIT, sockopt=opts,
                                     skip_utf8_validation=True)
    for want in ("hello", "lobby"):
        check(json.loads(ws.recv())["type"] == want, f"no {want}")
    return ws


def slow_watcher(bindir):
    """A watcher that never reads is cut off once its share of the shared
    game's messages passes the bound, without holding back the others: the
    reading watcher sees every move, the slow one is closed, counted in
    /metrics as too_slow, and the game's observer stays for the others."""
    with Env(bindir) as env:
        board = env.board()
        web = with_metrics(env, board)
        a, b = _fast_ws(web), _fast_ws(web)
        # 512 cells: some 55 KB a state, 57 moves of first-free-cell play.
        a.send(json.dumps({"type": "new", "kind": "tictactoe", "options": ["size=8", "dims=3"]}))
        game = recv_until(a, "the new game", lambda m: m["type"] == "state")["game"]
        b.send(json.dumps({"type": "join", "game": game}))
        states = {p: recv_until(p, "the game under way", lambda m: m["type"] == "state"
                                and m["status"] == "running") for p in (a, b)}
        slow = _fast_ws(web, rcvbuf=4096)
        slow.send(json.dumps({"type": "join", "game": game, "observe": True}))
        reader = _fast_ws(web)
        reader.send(json.dumps({"type": "join", "game": game, "observe": True}))
        recv_until(reader, "the watched game", lambda m: m["type"] == "state")
        got, moves = [], []
        done = threading.Event()

        def read():
            while not done.is_set():
                m = json.loads(reader.recv())
                if m["type"] == "event" and m["event"] == "moved":
                    got.append(m["text"])
                if m["type"] == "event" and m["event"] == "game_over":
                    done.set()
        t = threading.Thread(target=read, daemon=True)
        t.start()
        play_until_over([a, b], states, moves)
        web.expect_stderr(r"cut off the browser at 127\.0\.0\.1: too slow", timeout=WAIT)
        check(done.wait(WAIT), "the reading watcher never saw the end")
        check(got == moves, f"the reading watcher saw {len(got)} of {len(moves)} moves")
        text = metrics(web)
        check(metric(text, 'sungka_web_refused_total{reason="too_slow"}') == 1,
              "the slow watcher was not counted")
        check(f'sungka_web_game_watchers{{game="{game}"}} 1' in text,
              f"the reading watcher is not the game's one watcher left:\n{text}")
        for ws in (a, b, reader, slow):
            ws.close()


def _ws_from(web, forwarded):
    import websocket
    ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=web.url,
                                     subprotocols=["sungka"], timeout=WAIT,
                                     header=[f"X-Forwarded-For: {forwarded}"])
    check(json.loads(ws.recv())["type"] == "hello", "no hello")
    return ws


def _refused(web, forwarded):
    import websocket
    try:
        _ws_from(web, forwarded).close()
    except (websocket.WebSocketException, ConnectionError):
        return
    raise Failure(f"a second connection forwarded for {forwarded} was accepted with a limit of 1")


def trusted_proxy(bindir):
    """X-Forwarded-For counts for the per-address limit and the logs when
    it comes from a --trusted-proxy, and only its last entry; from anyone
    else it is ignored. Refusals are counted by reason in /metrics. The
    settings come from a --config file, read again on SIGHUP."""
    with Env(bindir) as env:
        board = env.board()
        conf = os.path.join(env.state_dir, "web.conf")
        with open(conf, "w") as f:
            f.write("[web]\nmax-per-address = 1\ntrusted-proxy = 127.0.0.0/8\n"
                    "trusted-proxy = fd00::/8\n")
        behind = with_metrics(env, board, "--config", conf)
        one = _ws_from(behind, "203.0.113.5")
        two = _ws_from(behind, "198.51.100.7, 203.0.113.6")
        # A client's own entry before the proxy's is not believed.
        _refused(behind, "203.0.113.9, 203.0.113.5")
        behind.expect_stderr(r"refused a WebSocket from 203\.0\.113\.5: 1 connections already")
        check(metric(metrics(behind), 'sungka_web_refused_total{reason="per_address"}') == 1,
              "the refusal was not counted")
        # A file with a mistake is refused on SIGHUP, and changes nothing.
        with open(conf, "w") as f:
            f.write("[web]\nmax-per-address = 2\ntrusted-proxy = 127.0.0.0/33\n")
        behind.p.send_signal(signal.SIGHUP)
        behind.expect_stderr(r"reload refused, the settings stay as they were: .*web\.conf:3: "
                             r"--trusted-proxy|reload refused, the settings stay as they were: "
                             r".*web\.conf:3")
        _refused(behind, "203.0.113.5")
        # A good one takes effect at once: two from one address.
        with open(conf, "w") as f:
            f.write("[web]\nmax-per-address = 2\ntrusted-proxy = 127.0.0.1\n")
        behind.p.send_signal(signal.SIGHUP)
        behind.expect_stderr(r"reloaded .*web\.conf: max-per-address 2, sessions-per-address "
                             r"\d+, 1 trusted proxies")
        _ws_from(behind, "203.0.113.5").close()
        one.close()
        two.close()
        # Behind a TLS proxy the page's origin is https://HOST, which the
        # proxy says with X-Forwarded-Proto.
        import websocket
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{behind.port}/ws", origin=f"https://127.0.0.1:{behind.port}",
            subprotocols=["sungka"], timeout=WAIT,
            header=["X-Forwarded-For: 203.0.113.8", "X-Forwarded-Proto: https"])
        check(json.loads(ws.recv())["type"] == "hello", "no hello behind a TLS proxy")
        ws.close()
        # ... and the session cookies it gives are Secure there, not elsewhere.
        def cookies(web, forwarded_https):
            req = urllib.request.Request(web.url + "/", headers={
                "X-Forwarded-For": "203.0.113.9",
                **({"X-Forwarded-Proto": "https"} if forwarded_https else {})})
            with urllib.request.urlopen(req, timeout=WAIT) as r:
                return r.headers.get_all("Set-Cookie") or []
        got = cookies(behind, True)
        check(got and all("; Secure" in c for c in got),
              f"the cookies behind a TLS proxy are {got}")
        got = cookies(behind, False)
        check(got and not any("Secure" in c for c in got), f"plain HTTP cookies are {got}")
        exposed = gateway(env, board, "--max-per-address", "1", "--trusted-proxy", "10.0.0.1")
        try:
            websocket.create_connection(
                f"ws://127.0.0.1:{exposed.port}/ws", origin=f"https://127.0.0.1:{exposed.port}",
                subprotocols=["sungka"], timeout=WAIT, header=["X-Forwarded-Proto: https"]).close()
            raise Failure("an https:// origin was believed from an untrusted peer")
        except (websocket.WebSocketException, ConnectionError):
            pass
        got = cookies(exposed, True)
        check(got and not any("Secure" in c for c in got),
              f"X-Forwarded-Proto was believed from an untrusted peer: {got}")
        three = _ws_from(exposed, "203.0.113.5")
        _refused(exposed, "203.0.113.6")
        exposed.expect_stderr(r"refused a WebSocket from 127\.0\.0\.1: 1 connections already")
        three.close()
        for bad in ("10.0.0.0/33", "proxy.example", "fd00::/129", "/8"):
            r = subprocess.run([os.path.join(bindir, "sungka-web"), "--listen", "127.0.0.1:0",
                                "--server", board.address, "--trusted-proxy", bad],
                               capture_output=True, text=True, timeout=WAIT)
            check(r.returncode == 2 and "--trusted-proxy wants an address" in r.stderr,
                  f"--trusted-proxy {bad} gave {r.returncode}: {r.stderr}")


def relay_identity(bindir):
    """With the board service's relay key, each browser's agent names its
    browser's address: the service's limits per address count browsers,
    not the gateway. At one event stream per address, two browsers behind
    the gateway both play, and a third watches through the shared observer."""
    with Env(bindir) as env:
        key = os.path.join(env.state_dir, "relay.key")
        with open(key, "w") as f:
            f.write(os.urandom(24).hex() + "\n")
        board = env.board("--relay-key", key, "--max-client-streams", "1")
        web = gateway(env, board, "--relay-key", key, "--trusted-proxy", "127.0.0.1")
        a, b, w = (_ws_from(web, f"203.0.113.{n}") for n in (5, 6, 7))
        for ws in (a, b, w):
            recv_until(ws, "the lobby", lambda m: m["type"] == "lobby")
        a.send(json.dumps({"type": "new", "kind": "tictactoe", "options": ["size=3", "dims=2"]}))
        game = recv_until(a, "the new game", lambda m: m["type"] == "state")["game"]
        b.send(json.dumps({"type": "join", "game": game}))
        for ws in (a, b):
            st = recv_until(ws, "the game under way", lambda m: m["type"] == "state"
                            and m["status"] == "running")
            check(st["my_seat"] in (0, 1), f"a player is seat {st['my_seat']}")
        w.send(json.dumps({"type": "join", "game": game, "observe": True}))
        st = recv_until(w, "the watched game", lambda m: m["type"] == "state")
        check(st["game"] == game and st["my_seat"] == -1, "the watcher does not watch")
        check(not any("limit reached" in l for l in board.err_lines),
              "the board service counted the browsers against the gateway's address:\n"
              + "\n".join(board.err_lines[-5:]))
        for ws in (a, b, w):
            ws.close()


class Phone(Browser):
    """A headless Chromium emulating a 390x844 phone (touch, its pixel
    ratio), in the language given as the browser's (navigator.languages)."""

    def __init__(self, lang="en"):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        self.profile = tempfile.mkdtemp(prefix="sungka-chromium-")
        opts = Options()
        opts.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  f"--user-data-dir={self.profile}", "--no-first-run", "--disable-extensions",
                  f"--lang={lang}"):
            opts.add_argument(a)
        opts.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0, "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
                         "(KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"})
        opts.add_experimental_option("prefs", {"intl.accept_languages": lang})
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def _shot(browser, name, keep=False):
    path = os.path.join(test_web.SHOTS, f"web_{name}.png")
    browser.d.save_screenshot(path)
    check(os.path.getsize(path) > 5000, f"the screenshot {path} is empty")


def phone_languages(bindir):
    """The lobby and a kalah board in Filipino (chosen in the page's
    selector) on a phone's screen, and the lobby in Indonesian from the
    browser's own language; the words come from po/LANG.po."""
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        print("skipped: chromium and chromium-driver are not installed")
        sys.exit(77)
    with Env(bindir) as env:
        board = env.board("--bot-think", "20")
        web = gateway(env, board)
        fil, idn = Phone("en"), Phone("id")
        try:
            p = fil
            p.d.get(web.url + "/")
            p.wait("the English lobby", "document.getElementById('connection').textContent"
                                        ".startsWith('Connected as')")
            check(p.js("window.innerWidth") == 390, "the phone is not 390 pixels wide")
            from selenium.webdriver.support.ui import Select
            Select(p.d.find_element("id", "lang")).select_by_value("fil")
            p.wait("the lobby in Filipino", "document.documentElement.lang === 'fil' && "
                   "document.getElementById('connection').textContent"
                   ".startsWith('Nakakonekta bilang')")
            p.wait("the kinds", "document.querySelectorAll('#kind option').length > 0")
            for id_, word in (("create", "Bagong laro"), ("refresh", "I-refresh ang listahan"),
                              ("games-caption", "Mga laro sa serbisyong ito")):
                got = p.js(f"document.getElementById('{id_}').textContent")
                check(got == word, f"#{id_} reads {got!r}, not {word!r}")
            check(p.js("document.documentElement.scrollWidth <= 390"),
                  "the lobby is wider than the phone")
            _shot(p, "fil_phone_lobby")
            p.js("(document.getElementById('kind').value = 'kalah', true)")
            p.d.find_element("id", "create").click()
            p.wait("the board", "!document.getElementById('game').hidden && "
                   "document.querySelectorAll('#board [data-move]').length > 0")
            turn = p.js("document.getElementById('turn').textContent")
            check(turn.startswith("Ikaw si ") and "Tira mo na: pumili ng bahay." in turn,
                  f"the turn reads {turn!r}")
            label = p.js("document.querySelector('#board [data-move]').getAttribute('aria-label')")
            check(re.match(r"tirahin ang bahay \d+, \d+ sigay$", label),
                  f"a playable cup is labelled {label!r}")
            p.d.find_element("css selector", "#board [data-move]").click()
            p.wait("the move played", "document.querySelectorAll('#moves li').length > 0")
            check(p.js("document.getElementById('board').getBoundingClientRect().right <= 390"),
                  "the board does not fit the phone's width")
            _shot(p, "fil_phone_board")
            # Indonesian, from the browser's language alone.
            idn.d.get(web.url + "/")
            idn.wait("the lobby in Indonesian", "document.documentElement.lang === 'id' && "
                     "document.getElementById('connection').textContent"
                     ".startsWith('Terhubung sebagai')")
            got = idn.js("document.getElementById('create').textContent")
            check(got == "Permainan baru", f"the new game button reads {got!r}")
            _shot(idn, "id_phone_lobby")
            for who in (fil, idn):
                errors = who.console_errors()
                check(not errors, f"the browser's console has errors: {errors}")
        finally:
            fil.close()
            idn.close()


TESTS = {f.__name__: f for f in (watchers, slow_watcher, trusted_proxy, relay_identity,
                                  phone_languages)}


if __name__ == "__main__":
    sys.exit(test_web.run(TESTS))
