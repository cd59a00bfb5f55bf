#!/usr/bin/python3
"""test_web_history.py — the history, the replay with the engine's review,
and the rating graph in the browser (docs/web-protocol.md, "History and
replay", version 3).

A real sungka-board (reviews on) and sungka-web on loopback; ana plays in
headless Chromium, ben over a WebSocket speaking the protocol by hand (a
rated game cannot have the service's bot, and a second Chromium would
double the test's time); then ana plays a casual game against the service's
bot. She opens the History: both matches are listed, her rating graph has a
point for the rated one, and its replay steps through the positions the
live board showed, with the value graph of the service's review under it
(one point per move, the review's judgements). Then the page in Filipino.

Usage: test_web_history.py BINDIR SHOTDIR TEST (exit 77 without Chromium).
"""
import json
import os
import re
import shutil
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import test_web  # noqa: E402
from harness import Env, Failure, check  # noqa: E402
from test_web import PLAYABLE, WAIT, _browsers, _register, gateway  # noqa: E402


def _ws_account(web, name, password):
    """A WebSocket client with a kept session of its own, signed up as name."""
    import websocket
    with urllib.request.urlopen(web.url + "/", timeout=WAIT) as r:
        cookies = [c.split(";", 1)[0] for c in r.headers.get_all("Set-Cookie")]
    jar = dict(c.split("=", 1) for c in cookies)
    ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=web.url,
                                     subprotocols=["sungka"], timeout=WAIT,
                                     cookie="; ".join(cookies))
    hello = json.loads(ws.recv())
    check(hello["type"] == "hello" and hello["version"] == 4, f"the first message was {hello}")
    ws.send(json.dumps({"type": "register", "name": name, "password": password,
                        "csrf": jar["sungka_csrf"]}))
    _recv(ws, "the account", lambda m: m["type"] == "account" and m["account"] == name)
    return ws


def _recv(ws, what, pred):
    """Read ws until pred(message); that message."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        m = json.loads(ws.recv())
        if m["type"] == "error" and not pred(m):
            raise Failure(f"waiting for {what}, the gateway said {m}")
        if pred(m):
            return m
    raise Failure(f"the gateway never sent {what}")


def history_replay(bindir):
    with Env(bindir) as env:
        board = env.board("--analysis", "on", "--analysis-depth", "2", "--rated-same-address",
                          "--bot-think", "20")
        web = gateway(env, board)
        (a,) = _browsers(1)
        ws = None
        try:
            _register(a, web.url, "ana", "correct horse 1")
            check(a.js("getComputedStyle(document.getElementById('account-form')).display")
                  == "none", "the sign-in form still shows when signed in")
            ws = _ws_account(web, "ben", "battery staple 2")
            a.js("(document.getElementById('kind').value = 'tictactoe', "
                 "document.getElementById('bot').checked = false, "
                 "document.getElementById('rated').checked = true, true)")
            a.d.find_element("id", "create").click()
            a.wait("the game", "!document.getElementById('game').hidden && "
                               "location.pathname.startsWith('/game/')")
            game = a.js("location.pathname.slice(6)")
            ws.send(json.dumps({"type": "join", "game": game}))
            # Play it out: ana clicks, ben answers over the WebSocket. The
            # board the live page shows is kept for each position ana sees.
            live = {}
            ben_moved_at = -1
            while not a.over():
                mine = a.wait("ana's move or the end",
                              lambda: a.over() or a.d.find_elements("css selector", PLAYABLE))
                if a.over():
                    break
                n = len(a.moves())
                live[n] = a.board()
                a.click_first("a cell to play", PLAYABLE)
                a.wait("ana's move played", lambda: len(a.moves()) > n or a.over())
                if a.over():
                    break
                st = _recv(ws, "ben's turn", lambda m: m["type"] == "state" and (
                    m["over"] is not None or (len(m["moves"]) > ben_moved_at and any(
                        c["move"] >= 0 for c in m["cells"]))))
                if st["over"] is not None:
                    break
                ben_moved_at = len(st["moves"]) + 1
                ws.send(json.dumps({"type": "move",
                                    "move": next(c["move"] for c in st["cells"]
                                                 if c["move"] >= 0)}))
            moves = a.wait("the whole move list", lambda: a.over() and a.moves())
            live[len(moves)] = a.board()
            board.expect_stderr(rf"game {re.escape(game)} reviewed", timeout=WAIT)

            # Then a casual game against the service's bot, played by clicks.
            a.d.find_element("id", "leave").click()
            a.wait("the lobby", "!document.getElementById('lobby').hidden")
            a.js("(document.getElementById('kind').value = 'tictactoe', "
                 "document.getElementById('bot').checked = true, "
                 "document.getElementById('rated').checked = false, true)")
            a.d.find_element("id", "create").click()
            a.wait("the bot's game", "!document.getElementById('game').hidden && "
                                     f"location.pathname.startsWith('/game/') && "
                                     f"location.pathname != '/game/{game}'")
            bot_game = a.js("location.pathname.slice(6)")
            while not a.over():
                mine = a.wait("ana's move or the end",
                              lambda: a.over() or a.d.find_elements("css selector", PLAYABLE))
                if a.over():
                    break
                n = len(a.moves())
                a.click_first("a cell to play", PLAYABLE)
                a.wait("ana's move played", lambda: len(a.moves()) > n or a.over())
            bot_moves = a.wait("the bot game's moves", lambda: a.over() and a.moves())
            bot_end = a.board()
            board.expect_stderr(rf"game {re.escape(bot_game)} reviewed", timeout=WAIT)

            # The History: ana's matches (the account signed in) and her ratings.
            a.d.find_element("id", "history-open").click()
            a.wait("both matches, newest first", "[...document.querySelectorAll('#matches tr')]"
                   f".map(r => r.dataset.match).join() == '{bot_game},{game}'")
            a.d.find_element("css selector",
                             f"#matches tr[data-match='{bot_game}'] button.replay").click()
            a.wait("the bot game's replay at its end",
                   "!document.getElementById('replay').hidden && document.getElementById("
                   f"'replay-where').textContent.startsWith('move {len(bot_moves)} of')")
            check(a.js("[...document.querySelectorAll('#replay-board [data-cell]')]"
                       ".map(g => g.dataset.cell + ':' + g.textContent)") == bot_end,
                  "the bot game's replay does not end as the game did")
            check(a.js("document.querySelectorAll('#value-graph circle[data-step]').length") ==
                  len(bot_moves), "the bot game's value graph has not one point per move")
            a.d.find_element("id", "replay-back").click()
            a.wait("the history again", "!document.getElementById('history').hidden")
            row = a.wait("the match in the history", lambda: a.d.find_elements(
                "css selector", f"#matches tr[data-match='{game}'] button.replay"))
            check(a.js("document.getElementById('game').hidden && "
                       "document.getElementById('lobby').hidden"), "the history is not alone")
            a.wait("a point of the rating graph",
                   "document.querySelectorAll('#rating-graph .rating-point"
                   "[data-kind=tictactoe]').length == 1")
            check(a.js("document.getElementById('history-title').textContent") ==
                  "Matches of ana", "the history is not ana's")
            row[0].click()
            a.wait("the replay", "!document.getElementById('replay').hidden && "
                                 "document.querySelectorAll('#replay-board [data-cell]').length"
                                 f" == {len(live[0])}")

            def shown():
                return a.js("[...document.querySelectorAll('#replay-board [data-cell]')]"
                            ".map(g => g.dataset.cell + ':' + g.textContent)")

            # Opened at the end; Home, then the arrow keys, step through it.
            check(shown() == live[len(moves)],
                  f"the replay's last position {shown()} is not the end {live[len(moves)]}")
            body = a.d.find_element("tag name", "body")
            from selenium.webdriver.common.keys import Keys
            body.send_keys(Keys.HOME)
            check(all(c.endswith(":") for c in shown()), f"the start is not empty: {shown()}")
            for step in range(1, len(moves) + 1):
                body.send_keys(Keys.ARROW_RIGHT)
                where = a.js("document.getElementById('replay-where').textContent")
                check(where.startswith(f"move {step} of {len(moves)}:") and
                      where.split(": ", 1)[1].startswith(moves[step - 1].replace(": ", " played ")),
                      f"step {step} reads {where!r}; the move was {moves[step - 1]!r}")
                if step in live:
                    check(shown() == live[step], f"after move {step} the replay shows {shown()}, "
                                                 f"the live board showed {live[step]}")
            check(len(live) >= 3, f"only {len(live)} live positions to compare")
            body.send_keys(Keys.ARROW_LEFT)
            check(a.js("document.getElementById('replay-where').textContent")
                  .startswith(f"move {len(moves) - 1} of"), "the left arrow does not step back")
            a.d.find_element("id", "replay-first").click()
            check(a.js("document.getElementById('replay-where').textContent")
                  .startswith("move 0 of"), "First does not go to the start")
            a.d.find_element("css selector", "#replay-moves button[data-step='2']").click()
            check(shown() == live.get(2, shown()) and a.js(
                "document.getElementById('replay-where').textContent").startswith("move 2 of"),
                "a move of the list does not show its position")

            # The review: one point per move, judged as the service judged.
            ws.send(json.dumps({"type": "replay", "game": game}))
            served = _recv(ws, "the replay", lambda m: m["type"] == "replay")["review"]
            check(served["done"], f"the service has no review: {served}")
            pts = a.js("[...document.querySelectorAll('#value-graph circle[data-step]')]"
                       ".map(c => c.dataset.judgement)")
            check(len(pts) == len(moves), f"the value graph has {len(pts)} points for "
                                          f"{len(moves)} moves")
            check(pts == [p["judgement"] for p in served["points"]],
                  f"the graph's judgements {pts} are not the review's {served['points']}")
            a.d.find_element("css selector",
                             f"#value-graph circle[data-step='{len(moves)}']").click()
            check(a.js("document.getElementById('replay-where').textContent")
                  .startswith(f"move {len(moves)} of"), "a point of the graph does not jump")
            acc = a.js("document.getElementById('accuracy').textContent")
            check(re.match(r"Accuracy: ana [\d.]+%, ben [\d.]+%$", acc), f"accuracy reads {acc!r}")
            a.shot("history_replay")

            # A game of three seats: ben plays it with two bots; ana types
            # his name into the History; its review draws a line a seat.
            ws.send(json.dumps({"type": "new", "kind": "tictactoe", "bots": 2,
                                "options": ["players=3", "size=3", "dims=2"]}))
            moved_at, three = -1, None
            while True:
                st = _recv(ws, "ben's turn in the game of three", lambda m: m["type"] == "state"
                           and m["game"] != game and (m["over"] is not None or (
                               len(m["moves"]) > moved_at and any(c["move"] >= 0
                                                                  for c in m["cells"]))))
                three = st["game"]
                if st["over"] is not None:
                    break
                moved_at = len(st["moves"]) + 1
                ws.send(json.dumps({"type": "move", "move": next(
                    c["move"] for c in st["cells"] if c["move"] >= 0)}))
            a.d.find_element("id", "replay-back").click()
            a.wait("the history again", "!document.getElementById('history').hidden")
            field = a.d.find_element("id", "history-player")
            field.clear()
            field.send_keys("ben\n")
            for _ in range(50):    # the review may still wait its turn: open it again
                a.wait("ben's game of three in his history", lambda: a.d.find_elements(
                    "css selector", f"#matches tr[data-match='{three}'] button.replay"))[0].click()
                # (the two-seat game's graph may still be there: wait for this one's)
                a.wait("the replay's review or why not",
                       "document.querySelector('#value-graph polyline[data-seat=\"2\"], "
                       "#value-graph .not-reviewed')")
                if a.js("!!document.querySelector('#value-graph polyline[data-seat=\"2\"]')"):
                    break
                a.d.find_element("id", "replay-back").click()
                time.sleep(0.2)
            lines = a.js("[...document.querySelectorAll('#value-graph polyline')]"
                         ".map(l => l.dataset.seat).join(',')")
            check(lines == "0,1,2", f"the game of three's graph has lines {lines!r}, not a seat's each")
            label = a.js("document.querySelector('#value-graph svg').getAttribute('aria-label')")
            check(label == "Value graph: each player's winning chance after their own moves",
                  f"the graph of three says {label!r}")
            acc = a.js("document.getElementById('accuracy').textContent")
            check(re.match(r"Accuracy: ben [\d.]+%, bot-1 [\d.]+%, bot-2 [\d.]+%$", acc),
                  f"accuracy of three reads {acc!r}")
            check(a.js("document.getElementById('history-title').textContent") ==
                  "Matches of ben", "the history typed is not ben's")
            errors = a.console_errors()
            check(not errors, f"the browser's console has errors: {errors}")

            # The same in Filipino: the words come from po/fil.po.
            a.js("(localStorage.setItem('sungka-lang', 'fil'), true)")
            a.d.refresh()
            a.wait("the page in Filipino",
                   "document.getElementById('history-open').textContent == 'Kasaysayan'")
            a.wait("connected", "document.getElementById('who').textContent.includes('ana')")
            a.d.find_element("id", "history-open").click()
            a.wait("the history in Filipino",
                   "document.getElementById('history-title').textContent == 'Mga laban ni ana'")
            check(a.js("document.getElementById('replay-first').textContent") == "Una",
                  "the replay's buttons are not in Filipino")
            a.shot("history_fil")
        finally:
            if ws:
                ws.close()
            a.close()


TESTS = {"history_replay": history_replay}


if __name__ == "__main__":
    sys.exit(test_web.run(TESTS))
