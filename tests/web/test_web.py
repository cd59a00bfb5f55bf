#!/usr/bin/python3
"""test_web.py — Sungka in the browser: sungka-web end to end.

A real sungka-board and sungka-web on loopback, and real browsers: headless
Chromium (Debian chromium, chromium-driver) driven with python3-selenium, as
a person would use the page; and a WebSocket client (python3-websocket)
speaking docs/web-protocol.md by hand, for what a browser would never send.

Usage: test_web.py BINDIR SHOTDIR TEST. Exit 77 (skipped) when Chromium or
its driver is missing. Screenshots go to SHOTDIR (build/screenshots/), as
the GTK tests' do. Every process started is stopped at the end.
"""
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from harness import WRAPPER, Env, Failure, Proc, check  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 30.0
SHOTS = None


def gateway(env, board, *extra, port=0):
    """A sungka-web in front of board; .port, .url."""
    argv = WRAPPER + [os.path.join(env.bindir, "sungka-web"), "--listen", f"127.0.0.1:{port}",
                      "--server", board.address, *extra]
    p = Proc("web", argv, stdin=False, env=env.env)
    env.procs.append(p)
    m = p.expect(r"listening on 127\.0\.0\.1:(\d+)", timeout=15)
    p.port = int(m.group(1))
    p.url = f"http://127.0.0.1:{p.port}"
    return p


class Browser:
    """One headless Chromium window; closed with the test."""

    def __init__(self, width=1100, height=900, trust_any_certificate=False):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        self.profile = tempfile.mkdtemp(prefix="sungka-chromium-")
        opts = Options()
        opts.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  f"--window-size={width},{height}", f"--user-data-dir={self.profile}",
                  "--no-first-run", "--disable-extensions"):
            opts.add_argument(a)
        if trust_any_certificate:      # a gateway's own self-signed one (test https)
            opts.add_argument("--ignore-certificate-errors")
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)

    def close(self):
        try:
            self.d.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    def wait(self, what, cond, timeout=WAIT):
        """Poll cond() (a JavaScript expression's value, or a callable) until
        it is true; return it."""
        from selenium.common.exceptions import StaleElementReferenceException
        end = time.monotonic() + timeout
        while True:
            try:
                v = cond() if callable(cond) else self.d.execute_script(f"return ({cond});")
                if v:
                    return v
            except StaleElementReferenceException:
                pass
            if time.monotonic() > end:
                raise Failure(f"the page never showed {what}; it shows:\n" + self.text())
            time.sleep(0.05)

    def click_first(self, what, selector, timeout=WAIT):
        """Click the first element matching selector, finding it again when
        the page redrew it between finding and clicking (a state or an
        animation frame replaces the board's cells)."""
        from selenium.common.exceptions import StaleElementReferenceException
        end = time.monotonic() + timeout
        while True:
            found = self.d.find_elements("css selector", selector)
            if found:
                try:
                    found[0].click()
                    return
                except StaleElementReferenceException:
                    pass
            if time.monotonic() > end:
                raise Failure(f"the page never had {what} to click; it shows:\n" + self.text())
            time.sleep(0.05)

    def js(self, expr):
        return self.d.execute_script(f"return ({expr});")

    def text(self):
        try:
            return self.js("document.body.innerText")
        except Exception as e:   # noqa: BLE001 - only for a failure's message
            return f"(cannot read the page: {e})"

    def board(self):
        """Each cell's number and what it shows, in cell order, once a
        sowing being animated has ended (app.js: the board's class sowing)."""
        self.wait("the sowing's end", "!document.querySelector('#board.sowing')")
        return self.js("[...document.querySelectorAll('#board [data-cell]')]"
                       ".map(g => g.dataset.cell + ':' + g.textContent)")

    def moves(self):
        return self.js("[...document.querySelectorAll('#moves li')].map(li => li.textContent)")

    def over(self):
        return self.js("document.getElementById('over').hidden ? '' : "
                       "document.getElementById('over').textContent")

    def shot(self, name):
        path = os.path.join(SHOTS, f"web_{name}.png")
        self.d.save_screenshot(path)
        check(os.path.getsize(path) > 5000, f"the screenshot {path} is empty")

    def console_errors(self):
        return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]


def _browsers(n):
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        print("skipped: chromium and chromium-driver are not installed")
        sys.exit(77)
    return [Browser() for _ in range(n)]


def play_kalah(bindir):
    """A guest opens the lobby, starts kalah against the service's bot and
    plays it to the end by clicking cups; a second browser opens the game's
    link in the middle and sees every later move and the same board."""
    with Env(bindir) as env:
        board = env.board("--bot-think", "20")
        web = gateway(env, board)
        a, b = _browsers(2)
        try:
            a.d.get(web.url + "/")
            a.wait("the lobby's kinds", "document.querySelectorAll('#kind option').length > 0")
            a.wait("the name it plays under",
                   "document.getElementById('connection').textContent.startsWith('Connected as')")
            a.shot("lobby")
            a.js("(document.getElementById('kind').value = 'kalah', true)")
            a.d.find_element("id", "create").click()
            a.wait("the game", "!document.getElementById('game').hidden")
            link = a.js("document.getElementById('game-link').textContent")
            check(link.startswith(web.url + "/game/"), f"the game's link is {link!r}")
            clicks = 0
            watching = False
            while not a.over():
                cell = a.wait("a cup to play or the end",
                              lambda: a.over() or a.d.find_elements("css selector",
                                                                    "#board [data-move]"))
                if a.over():
                    break
                before = len(a.moves())
                # The keyboard and the pointer both play: every third move by Enter.
                if clicks % 3 == 2:
                    cell[0].send_keys("\n")
                else:
                    cell[0].click()
                clicks += 1
                a.wait("the move played", lambda: len(a.moves()) > before or a.over())
                if clicks == 3 and not watching:
                    a.shot("kalah_midgame")
                    b.d.get(link)
                    b.wait("the watched game", "!document.getElementById('game').hidden")
                    b.wait("the watched board", "document.querySelectorAll('#board [data-cell]')"
                                                ".length == 14")
                    check(b.js("document.getElementById('turn').textContent")
                          .startswith("You are observing"), "the watcher is not told it watches")
                    check(not b.d.find_elements("css selector", "#board [data-move]"),
                          "a watcher is offered cups to play")
                    watching = True
                    # Chat reaches the watcher as text, never as markup.
                    line = '<img src=x id=injected> & <b>bold</b>'
                    a.d.find_element("id", "chat-text").send_keys(line + "\n")
                    b.wait("the chat line", "[...document.querySelectorAll('#chat li')]"
                           f".some(li => li.textContent.endsWith({json.dumps(line)}))")
                    check(not b.js("document.querySelector('#chat img, #chat b, #injected')"),
                          "a chat line was put into the watcher's page as markup")
            check(watching, "the game ended before anyone could watch it")
            end = a.over()
            check(end.startswith("Game over:"), f"the end reads {end!r}")
            b.wait("the end", lambda: b.over() == end)
            a.shot("kalah_over")
            b.shot("kalah_watcher")
            seen, all_moves = b.moves(), a.moves()
            check(seen and all_moves[-len(seen):] == seen,
                  f"the watcher's moves {seen} are not the last of the player's {all_moves}")
            check(len(seen) >= len(all_moves) - 8,
                  f"the watcher saw {len(seen)} of {len(all_moves)} moves")
            check(a.board() == b.board(), f"the boards differ:\n{a.board()}\n{b.board()}")
            for who in (a, b):
                errors = who.console_errors()
                check(not errors, f"the browser's console has errors: {errors}")
            # A phone's width: the narrow layout still shows the board and the end.
            a.d.set_window_size(390, 844)
            a.wait("the narrow layout", "window.innerWidth <= 600")
            check(a.js("document.getElementById('board').getBoundingClientRect().width <= 390"),
                  "the board does not fit a phone's width")
            a.shot("kalah_narrow")
        finally:
            a.close()
            b.close()


def every_kind(bindir):
    """Every kind is drawn from what the gateway sends (no rules in the
    page): a game of each against the service's bot, one move clicked, the
    bot's answer seen, a screenshot."""
    with Env(bindir) as env:
        board = env.board("--bot-think", "20")
        web = gateway(env, board)
        (a,) = _browsers(1)
        try:
            a.d.get(web.url + "/")
            a.wait("the lobby's kinds", "document.querySelectorAll('#kind option').length == 5")
            for kind, drawing in (("sungka", "mancala"), ("congklak", "mancala"),
                                  ("kalah", "mancala"), ("reversi", "discs"),
                                  ("tictactoe", "slices")):
                if a.js("document.getElementById('lobby').hidden"):
                    a.d.find_element("id", "leave").click()
                    a.wait("the lobby", "!document.getElementById('lobby').hidden")
                a.js(f"(document.getElementById('kind').value = '{kind}', true)")
                a.d.find_element("id", "create").click()
                a.wait(f"a {kind} game", "!document.getElementById('game').hidden && "
                       f"document.getElementById('game-title').textContent.length > 0")
                cells = a.wait(f"the {kind} board's playable cells",
                               lambda: a.d.find_elements("css selector", "#board [data-move]"))
                shape = {"mancala": "ellipse", "discs": "rect.square", "slices": "rect.slice"}
                check(a.d.find_elements("css selector", f"#board [data-cell] {shape[drawing]}"),
                      f"{kind} is not drawn as {drawing}")
                # Until the bot has answered: a move may give another turn.
                bot_moved = lambda: any(m.startswith("bot-1:") for m in a.moves())  # noqa: E731
                for _ in range(30):
                    before = len(a.moves())
                    cells[0].click()
                    a.wait(f"the move played in {kind}", lambda: len(a.moves()) > before)
                    cells = a.wait(f"the bot's answer in {kind}", lambda: bot_moved() or
                                   a.d.find_elements("css selector", "#board [data-move]"))
                    if bot_moved():
                        break
                check(bot_moved(), f"the bot never answered in {kind}")
                check(a.js("document.getElementById('description').textContent.length > 10"),
                      f"{kind}: no description for screen readers")
                a.shot(f"{kind}")
        finally:
            a.close()


def _ws(web, origin=None):
    import websocket
    ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws",
                                     origin=origin or web.url, subprotocols=["sungka"],
                                     timeout=WAIT)
    hello = json.loads(ws.recv())
    check(hello["type"] == "hello" and hello["version"] == 4, f"the first message was {hello}")
    lobby = json.loads(ws.recv())
    check(lobby["type"] == "lobby", f"the second message was {lobby}")
    return ws


def _error(ws, sent, code):
    ws.send(sent)
    m = json.loads(ws.recv())
    check(m["type"] == "error" and m["code"] == code and m["message"],
          f"{sent[:40]!r} was answered {m}, not an error {code}")


def security(bindir):
    """The headers every page carries, a foreign Origin refused, a limit per
    address."""
    import websocket
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board, "--max-per-address", "2", "--sessions-per-address", "2")
        # Listening on 127.0.0.1 is on that address only (libwebsockets
        # would take every address of an IPv6 socket otherwise).
        import socket
        try:
            socket.create_connection(("127.0.0.2", web.port), timeout=5).close()
            raise Failure("a gateway listening on 127.0.0.1 answers on 127.0.0.2 too")
        except ConnectionRefusedError:
            pass
        for path in ("/", "/game/1", "/app.js"):
            with urllib.request.urlopen(web.url + path, timeout=WAIT) as r:
                csp = r.headers.get("Content-Security-Policy", "")
                check("script-src 'self'" in csp and "unsafe-inline" not in csp
                      and "default-src 'none'" in csp, f"{path}: Content-Security-Policy {csp!r}")
                check(r.headers.get("X-Content-Type-Options") == "nosniff",
                      f"{path}: no X-Content-Type-Options: nosniff")
                body = r.read().decode()
                if path != "/app.js":
                    check("<script src=\"/app.js\"" in body and "<script>" not in body,
                          f"{path} is not the app, or has inline script")
                # The app's page gives a session in an HttpOnly, SameSite=Strict
                # cookie (two pages, the limit for this address); a file does not.
                cookies = r.headers.get_all("Set-Cookie") or []
                session = [c for c in cookies if c.startswith("sungka_session=")]
                check(bool(session) == (path != "/app.js"), f"{path}: cookies {cookies}")
                check(all("HttpOnly" in c and "SameSite=Strict" in c for c in session),
                      f"{path}: the session cookie is {session}")
        # A third page from this address in the hour: served without a session.
        with urllib.request.urlopen(web.url + "/", timeout=WAIT) as r:
            check(not r.headers.get_all("Set-Cookie"), "a third session was made for one "
                  "address with --sessions-per-address 2")
        web.expect_stderr(r"no new browser session for 127\.0\.0\.1: 2 made for it")
        for origin in ("http://evil.example", f"http://127.0.0.1:{web.port + 1}",
                       f"https://127.0.0.1:{web.port}"):
            try:
                ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=origin,
                                                 subprotocols=["sungka"], timeout=WAIT)
                ws.close()
                raise Failure(f"a WebSocket from {origin} was accepted")
            except (websocket.WebSocketException, ConnectionError):
                pass
        web.expect_stderr(r"refused a WebSocket from a page on another site", count=3)
        one, two = _ws(web), _ws(web)
        try:
            _ws(web)
            raise Failure("a third connection from one address was accepted with a limit of 2")
        except (websocket.WebSocketException, ConnectionError):
            pass
        web.expect_stderr(r"refused a WebSocket from 127\.0\.0\.1: 2 connections already")
        one.close()
        # Its place is free again once it closed.
        end = time.monotonic() + WAIT
        while True:
            try:
                _ws(web).close()
                break
            except (websocket.WebSocketException, ConnectionError):
                check(time.monotonic() < end, "a closed connection's place never came free")
                time.sleep(0.1)
        two.close()


def protocol(bindir):
    """What a browser would never send: an error sentence or a close, never
    a crash; the gateway serves the next browser as before."""
    import websocket
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board)
        ws = _ws(web)
        _error(ws, "{bad", "bad_json")
        _error(ws, "[1, 2]", "bad_json")
        _error(ws, '{"type": "launch"}', "bad_command")
        _error(ws, '{"kind": "kalah"}', "bad_command")
        _error(ws, '{"type": "move", "move": "three"}', "bad_field")
        _error(ws, '{"type": "move", "move": 2}', "refused")
        _error(ws, '{"type": "join", "game": 7}', "bad_field")
        _error(ws, '{"type": "join", "game": "999"}', "refused")
        _error(ws, '{"type": "new", "kind": "chess"}', "refused")
        _error(ws, '{"type": "hello", "version": 5}', "version")
        # Version 2's commands: their fields checked, refused away from a game.
        _error(ws, '{"type": "answer_draw", "accept": "yes"}', "refused")
        _error(ws, '{"type": "offer_draw"}', "refused")
        _error(ws, '{"type": "sign_in", "name": "ana"}', "bad_field")
        _error(ws, '{"type": "sign_in", "name": "ana", "password": "p", "csrf": "x"}', "csrf")
        # A page of version 1 is still spoken to (no error).
        ws.send('{"type": "hello", "version": 1}')
        ws.send('{"type": "list"}')
        check(json.loads(ws.recv())["type"] == "lobby", "a version 1 hello was refused")
        ws.send('{"type": "list"}')
        check(json.loads(ws.recv())["type"] == "lobby", "list after errors is not answered")
        # A burst sent faster than the gateway answers (a page catching up, a
        # busy gateway) is held back by flow control and answered whole: the
        # gateway stops reading the browser while 64 commands wait. (Before,
        # the 65th waiting closed the connection: "too many commands waiting".)
        burst = 300
        for _ in range(burst):
            ws.send('{"type": "list"}')
        answers = [json.loads(ws.recv())["type"] for _ in range(burst)]
        check(answers == ["lobby"] * burst,
              f"a burst of {burst} lists got {len(answers)} answers: {set(answers)}")
        # A command bigger than the gateway takes: closed with 1009 and a reason.
        ws.send(json.dumps({"type": "chat", "text": "x" * 5000}))
        op, frame = ws.recv_data(control_frame=True)
        check(op == websocket.ABNF.OPCODE_CLOSE, f"an oversized command got opcode {op}")
        code = int.from_bytes(frame[:2], "big")
        check(code == 1009 and b"too large" in frame[2:],
              f"an oversized command was closed with {code} {frame[2:]!r}")
        ws.close()
        # A binary frame: closed too.
        ws = _ws(web)
        ws.send_binary(b"\x00\x01")
        op, frame = ws.recv_data(control_frame=True)
        check(op == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(frame[:2], "big") == 1003,
              f"a binary frame was answered with opcode {op} {frame!r}")
        ws.close()
        # Still serving, and a game works through the protocol alone.
        ws = _ws(web)
        ws.send(json.dumps({"type": "new", "kind": "kalah", "options": ["cups=4"]}))
        st = json.loads(ws.recv())
        check(st["type"] == "state" and st["kind"] == "kalah" and st["status"] == "waiting"
              and len(st["cells"]) == 10, f"a new game's state was {st}")
        ws.close()
        check(web.p.poll() is None, "the gateway died")


def slow_browser(bindir):
    """A browser that sends but never reads is cut off with a reason once
    its outbox is full, rather than the gateway keeping its answers
    without bound; the gateway serves the next one."""
    import socket
    import websocket
    with Env(bindir) as env:
        board = env.board("--client-join-rate", "1000")   # 30 games at once from one address
        web = gateway(env, board)
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{web.port}/ws", origin=web.url, subprotocols=["sungka"],
            timeout=WAIT, sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
        # A lobby of 30 games is some 5 KB; asked for 3,000 times it is several
        # times the outbox and the socket's buffers.
        maker = _ws(web)
        for _ in range(30):
            maker.send(json.dumps({"type": "new", "kind": "kalah"}))
            answer = json.loads(maker.recv())
            check(answer["type"] == "state", f"a new game was refused: {answer}")
        # Sent as fast as the gateway takes them: it stops reading while 64
        # wait (flow control), so what fills is the outbox of answers.
        try:
            for _ in range(3000):
                ws.send('{"type": "list"}')
        except (websocket.WebSocketException, OSError):
            pass   # cut off already
        web.expect_stderr(r"cut off the browser at 127\.0\.0\.1: too slow", timeout=WAIT)
        # It reads at last: what was sent before the cut, then the end (the
        # close frame when it still fitted in the socket, else the end of
        # the stream), never an endless stream.
        code, reason = None, b""
        try:
            while True:
                op, frame = ws.recv_data(control_frame=True)
                if op == websocket.ABNF.OPCODE_CLOSE:
                    code, reason = int.from_bytes(frame[:2], "big"), frame[2:]
                    break
        except (websocket.WebSocketConnectionClosedException, ConnectionError):
            pass
        check(code is None or (code == 1008 and reason.startswith(b"too slow")),
              f"a browser that does not read was closed with {code} {reason!r}")
        ws.close()
        _ws(web).close()


def tls(bindir):
    """--tls and --tls-ca: the gateway plays on a service that speaks only
    TLS, checking its certificate; without --tls it cannot, and says so."""
    import websocket
    with Env(bindir, sqlite_only="the certificate is kept beside the database file") as env:
        home = os.path.join(env.state_dir, "tls")
        os.makedirs(home)
        board = env.board("--tls-self-signed", "--db", os.path.join(home, "board.db"))
        cert = os.path.join(home, "tls-cert.pem")
        web = gateway(env, board, "--tls-ca", cert)
        ws = _ws(web)
        ws.send(json.dumps({"type": "new", "kind": "kalah", "options": ["cups=4"]}))
        st = json.loads(ws.recv())
        check(st["type"] == "state" and st["status"] == "waiting", f"over TLS: {st}")
        ws.close()
        plain = gateway(env, board)
        ws = websocket.create_connection(f"ws://127.0.0.1:{plain.port}/ws", origin=plain.url,
                                         subprotocols=["sungka"], timeout=WAIT)
        m = json.loads(ws.recv())
        check(m["type"] == "error" and m["code"] == "unreachable" and m["message"],
              f"a gateway without --tls before a TLS service said {m}")
        ws.close()
        bad = os.path.join(home, "not-a-cert.pem")
        with open(bad, "w") as f:
            f.write("nothing\n")
        p = Proc("web-bad", WRAPPER + [os.path.join(bindir, "sungka-web"), "--listen",
                                       "127.0.0.1:0", "--server", board.address, "--tls-ca", bad],
                 stdin=False, env=env.env)
        env.procs.append(p)
        check(p.wait_exit() == 1, "a gateway with an unreadable --tls-ca did not exit 1")
        p.expect_stderr(r"not-a-cert\.pem")   # the sentence names the file


# --- the player's side: clocks, offers, accounts, coming back ---

PLAYABLE = "#board [data-move]"


def _in_game(b, what="the game"):
    b.wait(what, "!document.getElementById('game').hidden && "
                 "document.getElementById('game-title').textContent.length > 0")


def _game_id(b):
    return b.js("location.pathname.startsWith('/game/') ? location.pathname.slice(6) : ''")


def _play_one(players):
    """Whoever of players has a cell to play clicks one; wait until every
    one of them has the move in its list. The player who moved."""
    def mover():
        for p in players:
            if p.d.find_elements("css selector", PLAYABLE):
                return p
        return None
    who = players[0].wait("a cell to play", mover)
    before = [len(p.moves()) for p in players]
    who.click_first("a cell to play", PLAYABLE)
    for p, n in zip(players, before):
        p.wait("the move in the list", lambda p=p, n=n: len(p.moves()) > n)
    return who


def _clock_ms(b, seat):
    return b.js(f"(e => e ? Number(e.dataset.ms) : -1)(document.getElementById('clock-{seat}'))")


def _lobby_join(b, url, game):
    b.d.get(url + "/")
    join = b.wait(f"game {game} to join in the lobby",
                  lambda: b.d.find_elements("css selector", f"tr[data-game='{game}'] button.join"))
    join[0].click()
    _in_game(b)


def _recv_until(ws, what, pred):
    """WebSocket messages until one for which pred(msg) is true; that one."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        m = json.loads(ws.recv())
        if pred(m):
            return m
    raise Failure(f"never got {what}")


def _own_line(w, line):
    got = _recv_until(w, f"the watcher's line {line!r}", lambda m: m["type"] == "error" or (
        m["type"] == "event" and m["event"] == "chat" and m["text"] == line))
    check(got["type"] == "event", f"the watcher's line {line!r} was answered {got}")


def _chat_seen(p, line):
    p.wait(f"the line {line!r}", "[...document.querySelectorAll('#chat li')]"
                                 f".some(li => li.textContent.includes({json.dumps(line)}))")


def clocked_rematch(bindir):
    """Two browsers play a clocked reversi game: the clocks are shown and
    the one running counts down; one offers a draw, the other declines; one
    resigns; both ask for a rematch and the new game starts for both. A
    watcher (a WebSocket client, through the gateway's shared observer)
    speaks in the game, follows it to the rematch, and its line after the
    rematch is said there: the players read it."""
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board)
        a, b = _browsers(2)
        try:
            a.d.get(web.url + "/")
            a.wait("the lobby's kinds", "document.querySelectorAll('#kind option').length > 0")
            a.js("(document.getElementById('kind').value = 'reversi', "
                 "document.getElementById('bot').checked = false, "
                 "document.getElementById('clock').value = '5+3', true)")
            a.d.find_element("id", "create").click()
            _in_game(a)
            game = a.wait("the game's address", lambda: _game_id(a))
            _lobby_join(b, web.url, game)
            w = _ws(web)
            w.send(json.dumps({"type": "join", "game": game, "observe": True}))
            _recv_until(w, "the watched game", lambda m: m["type"] == "state"
                        and m["game"] == game)
            # Its line while the game runs reaches the spectators only (its
            # own observer says it there, the gateway's hears it).
            w.send(json.dumps({"type": "chat", "text": "mabuhay"}))
            _own_line(w, "mabuhay")
            for p in (a, b):
                p.wait("both clocks", "document.getElementById('clock-0') && "
                                      "document.getElementById('clock-1')")
                check("5+3" in p.js("document.getElementById('game-title').textContent"),
                      "the title does not give the time control")
            first = _play_one([a, b])
            # The clock of the one to move now counts down in both pages.
            other = b if first is a else a
            seat = other.js("(() => { const li = [...document.querySelectorAll('.clock')]"
                            ".findIndex(c => c.classList.contains('running')); return li; })()")
            check(seat in (0, 1), "no clock runs after the first move")
            start = _clock_ms(other, seat)
            check(0 < start <= 5 * 60 * 1000 + 3000, f"the running clock shows {start} ms")
            other.wait("the running clock counting down",
                       lambda: 0 < _clock_ms(other, seat) < start)
            # Fifteen seconds given by the one waiting to the one to move:
            # the running clock gains them in both pages.
            before = _clock_ms(first, seat)
            first.d.find_element("id", "give-time").click()
            for p in (a, b):
                p.wait("15 s given", lambda p=p: _clock_ms(p, seat) >= before + 13000)
            # A draw offered and declined.
            other.d.find_element("id", "offer-draw").click()
            first.wait("the draw offer", "!document.getElementById('answer-draw').hidden")
            first.d.find_element("id", "decline-draw").click()
            first.wait("the offer gone", "document.getElementById('answer-draw').hidden")
            other.wait("the offer gone", "!document.getElementById('offer-draw').hidden")
            # A tell: to one player, marked as private.
            b_name = b.js("document.getElementById('who').textContent.match(/guest-[0-9a-f]+/)[0]")
            a.d.find_element("id", "chat-to").send_keys(b_name)
            a.d.find_element("id", "chat-text").send_keys("psst\n")
            b.wait("the tell", "[...document.querySelectorAll('#chat li.tell')]"
                               f".some(li => li.textContent.includes('(to {b_name}): psst'))")
            a.shot("reversi_clocked")
            # One resigns: the game is over for both, the other won.
            b.d.find_element("id", "resign").click()
            for p in (a, b):
                p.wait("the end", lambda p=p: p.over())
            end = a.over()
            check("resign" in end.lower() and a.js("document.getElementById('clock-0') !== null"),
                  f"the end reads {end!r}")
            check(a.moves() == b.moves() and len(a.moves()) == 1,
                  f"the move lists differ: {a.moves()} / {b.moves()}")
            # Both ask for a rematch; the new game starts for both.
            a.wait("the rematch button", "!document.getElementById('rematch').hidden")
            a.d.find_element("id", "rematch").click()
            b.wait("the rematch asked for", "!document.getElementById('rematch-status').hidden")
            b.d.find_element("id", "rematch").click()
            for p in (a, b):
                p.wait("the rematch", lambda p=p: _game_id(p) not in ("", game))
                p.wait("the rematch under way",
                       "document.getElementById('over').hidden && "
                       "document.querySelectorAll('#moves li').length == 0 && "
                       "document.getElementById('clock-0') !== null")
            check(_game_id(a) == _game_id(b), "the two browsers are in different rematches")
            # The watcher is at the rematch too.
            rematch = _game_id(a)
            _recv_until(w, "the rematch's board", lambda m: m["type"] == "state"
                        and m["game"] == rematch)
            _play_one([a, b])
            a.shot("reversi_rematch")
            # Before everyone has moved, a game may be aborted: over, no result.
            a.d.find_element("id", "abort").click()
            for p in (a, b):
                p.wait("the aborted game", lambda p=p: "abort" in p.over().lower())
            # The watcher's line is said in the rematch, over now: the
            # players read it.
            _recv_until(w, "the rematch's end", lambda m: m["type"] == "state"
                        and m["game"] == rematch and m["over"] is not None)
            w.send(json.dumps({"type": "chat", "text": "isa pa"}))
            _own_line(w, "isa pa")
            for p in (a, b):
                _chat_seen(p, "isa pa")
            w.close()
            for who in (a, b):
                errors = who.console_errors()
                check(not errors, f"the browser's console has errors: {errors}")
        finally:
            a.close()
            b.close()


def _register(b, url, name, password):
    b.d.get(url + "/")
    b.wait("the sign-in form", "!document.getElementById('account-form').hidden")
    b.d.find_element("id", "account-name").send_keys(name)
    b.d.find_element("id", "account-password").send_keys(password)
    b.d.find_element("id", "register").click()
    b.wait("signed in", f"document.getElementById('who').textContent.includes('{name}') && "
                        "!document.getElementById('sign-out').hidden")


def signed_in_reload(bindir):
    """Two players register in their browsers and play a rated, clocked
    game; one reloads the page in the middle: its seat, its account and the
    clocks come back, with the moves so far. The session is in an HttpOnly
    cookie no script reads and in no address; a sign-in without the page's
    CSRF token is refused."""
    import websocket
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board)
        a, b = _browsers(2)
        try:
            _register(a, web.url, "ana", "correct horse 1")
            _register(b, web.url, "ben", "battery staple 2")
            check("sungka_session" not in a.js("document.cookie"),
                  "a script can read the session cookie")
            cookies = {c["name"]: c for c in a.d.get_cookies()}
            s = cookies.get("sungka_session")
            check(s and s.get("httpOnly") and s.get("sameSite") == "Strict",
                  f"the session cookie is not HttpOnly and SameSite=Strict: {s}")
            a.js("(document.getElementById('kind').value = 'kalah', "
                 "document.getElementById('bot').checked = false, "
                 "document.getElementById('clock').value = '10', "
                 "document.getElementById('rated').checked = true, true)")
            a.d.find_element("id", "create").click()
            _in_game(a)
            game = a.wait("the game's address", lambda: _game_id(a))
            _lobby_join(b, web.url, game)
            check("rated" in a.js("document.getElementById('game-title').textContent"),
                  "the game is not shown as rated")
            for _ in range(3):
                _play_one([a, b])
            moves = a.moves()
            check(s["value"] not in a.d.current_url, "the session id is in the address")
            a.d.refresh()
            a.wait("signed in again", "document.getElementById('who').textContent"
                                      ".includes('ana')")
            _in_game(a, "the game again after the reload")
            check(_game_id(a) == game, f"back at game {_game_id(a)}, not {game}")
            a.wait("its seat", "document.getElementById('turn').textContent"
                               ".startsWith('You are ana')")
            a.wait("the clocks", "document.getElementById('clock-0') && "
                                 "document.getElementById('clock-1')")
            for seat in (0, 1):
                ms = _clock_ms(a, seat)
                check(0 < ms < 10 * 60 * 1000, f"seat {seat}'s clock shows {ms} ms after reload")
            a.wait("the moves so far", lambda: a.moves() == moves)
            _play_one([a, b])
            check(a.moves() == b.moves(), f"the lists differ: {a.moves()} / {b.moves()}")
            a.shot("signed_in_reload")
            # Sign-in needs the page's CSRF token as well as the right Origin.
            ws = websocket.create_connection(
                f"ws://127.0.0.1:{web.port}/ws", origin=web.url, subprotocols=["sungka"],
                timeout=WAIT, cookie=f"sungka_session={s['value']}")
            try:
                ws.send(json.dumps({"type": "sign_in", "name": "ana",
                                    "password": "correct horse 1", "csrf": "0" * 64}))
                while True:     # past the hello, lobby and state of the game taken back
                    m = json.loads(ws.recv())
                    if m["type"] in ("error", "account"):
                        break
                check(m["type"] == "error" and m["code"] == "csrf",
                      f"a sign-in without the CSRF token was answered {m}")
            finally:
                ws.close()
        finally:
            a.close()
            b.close()


def gateway_restart(bindir):
    """The gateway is killed (SIGKILL) in the middle of a game and started
    again on the same port: both browsers connect again by themselves, take
    their seats back, and the move list misses no move; the game goes on."""
    with Env(bindir) as env:
        board = env.board()
        state = os.path.join(env.state_dir, "web-sessions")
        web = gateway(env, board, "--state-dir", state)
        a, b = _browsers(2)
        try:
            a.d.get(web.url + "/")
            a.wait("the lobby's kinds", "document.querySelectorAll('#kind option').length > 0")
            a.js("(document.getElementById('kind').value = 'kalah', "
                 "document.getElementById('bot').checked = false, true)")
            a.d.find_element("id", "create").click()
            _in_game(a)
            game = a.wait("the game's address", lambda: _game_id(a))
            _lobby_join(b, web.url, game)
            for _ in range(3):
                _play_one([a, b])
            moves = a.moves()
            web.p.kill()
            web.p.wait()
            for p in (a, b):
                p.wait("the lost connection", "document.getElementById('connection')"
                                              ".textContent.includes('Connecting again')")
            web = gateway(env, board, "--state-dir", state, port=web.port)
            for p in (a, b):
                p.wait("the connection back", "document.getElementById('connection')"
                                              ".textContent.startsWith('Connected as')")
                p.wait("the game back with every move", lambda p=p: p.moves() == moves)
                check(_game_id(p) == game, f"back at game {_game_id(p)}, not {game}")
            check(a.js("document.getElementById('turn').textContent").startswith("You are guest-"),
                  "the seat did not come back")
            _play_one([a, b])
            check(a.moves() == b.moves() and len(a.moves()) == len(moves) + 1,
                  f"after the restart: {a.moves()} / {b.moves()}")
            a.shot("gateway_restart")
        finally:
            a.close()
            b.close()


def https(bindir):
    """--https-self-signed: browsers come over HTTPS and wss:// with the
    gateway's own certificate, kept in its state directory; the cookies are
    Secure; an http:// Origin is refused over TLS; plain HTTP gets no page;
    a real browser (told to trust the certificate) plays from the lobby."""
    import http.client
    import ssl
    import websocket
    with Env(bindir) as env:
        board = env.board()
        state = os.path.join(env.state_dir, "web-https")
        argv = WRAPPER + [os.path.join(env.bindir, "sungka-web"), "--listen", "127.0.0.1:0",
                          "--server", board.address, "--state-dir", state,
                          "--https-self-signed"]
        web = Proc("web", argv, stdin=False, env=env.env)
        env.procs.append(web)
        web.expect(r"HTTPS certificate \S+ \(made now:", timeout=15)
        port = int(web.expect(r"listening on 127\.0\.0\.1:(\d+).*open https://",
                              timeout=15).group(1))
        cert = os.path.join(state, "https", "tls-cert.pem")
        check(os.path.exists(cert), f"no certificate kept at {cert}")
        tls = ssl.create_default_context(cafile=cert)
        c = http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=WAIT)
        c.request("GET", "/")
        r = c.getresponse()
        body = r.read()
        cookies = r.headers.get_all("Set-Cookie") or []
        check(r.status == 200 and b"<html" in body.lower(), f"GET / over HTTPS: {r.status}")
        check(cookies and all("; Secure" in k for k in cookies),
              f"the cookies over HTTPS are not Secure: {cookies}")
        c.close()
        origin = f"https://127.0.0.1:{port}"
        ws = websocket.create_connection(f"wss://127.0.0.1:{port}/ws", origin=origin,
                                         subprotocols=["sungka"], timeout=WAIT,
                                         sslopt={"ca_certs": cert})
        hello = json.loads(ws.recv())
        check(hello["type"] == "hello", f"the first message over wss was {hello}")
        ws.close()
        try:
            websocket.create_connection(f"wss://127.0.0.1:{port}/ws",
                                        origin=f"http://127.0.0.1:{port}",
                                        subprotocols=["sungka"], timeout=WAIT,
                                        sslopt={"ca_certs": cert}).close()
            raise Failure("an http:// Origin was let in over TLS")
        except (websocket.WebSocketException, ConnectionError):
            pass
        web.expect_stderr(r"refused a WebSocket from a page on another site")
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
        try:
            plain.request("GET", "/")
            got = plain.getresponse().status
        except (OSError, http.client.HTTPException):
            got = None
        check(got != 200, "plain HTTP got the page from a gateway serving HTTPS")
        # A browser that trusts the certificate plays as it would on http.
        b = Browser(trust_any_certificate=True)
        try:
            b.d.get(origin + "/")
            b.wait("the lobby over wss", "document.querySelectorAll('#kind option').length > 0")
            check(b.d.execute_script("return location.protocol") == "https:", "not on https")
        finally:
            b.close()
        web.stop()
        # Started again: the kept certificate, not a new one.
        web = Proc("web2", argv, stdin=False, env=env.env)
        env.procs.append(web)
        web.expect(r"HTTPS certificate \S+ \(kept in", timeout=15)


TESTS = {f.__name__: f for f in (play_kalah, every_kind, security, protocol, slow_browser,
                                  tls, clocked_rematch, signed_in_reload,
                                  gateway_restart, https)}


def run(tests):
    """The main of every browser test file: BINDIR SHOTDIR NAME, one of tests
    (screenshots go to SHOTDIR: Browser.shot, SHOTS)."""
    global SHOTS
    if len(sys.argv) != 4 or sys.argv[3] not in tests:
        print(f"usage: {sys.argv[0]} BINDIR SHOTDIR {{{'|'.join(tests)}}}", file=sys.stderr)
        return 2
    bindir, SHOTS, name = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(SHOTS, exist_ok=True)
    started = time.monotonic()
    try:
        tests[name](bindir)
    except Failure as f:
        print(f"FAIL {name}: {f}")
        return 1
    print(f"ok {name} ({time.monotonic() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run(TESTS))
