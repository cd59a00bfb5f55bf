#!/usr/bin/python3
"""test_web_quick.py — sungka-web: spectators' chat through the shared
observer, end to end.

A real sungka-board and sungka-web on loopback, and WebSocket clients
(python3-websocket) speaking docs/web-protocol.md.

Usage: test_web_quick.py BINDIR SHOTDIR TEST. Every process started is
stopped at the end.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from harness import Env, check  # noqa: E402
import test_web  # noqa: E402
from test_web import PLAYABLE, WAIT, _browsers, _in_game, gateway  # noqa: E402
from test_web_ops import recv_until  # noqa: E402


def _ws_named(web):
    """A browser's WebSocket and the guest name the gateway gave it."""
    import websocket
    ws = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=web.url,
                                     subprotocols=["sungka"], timeout=WAIT)
    hello = json.loads(ws.recv())
    check(hello["type"] == "hello", f"the first message was {hello}")
    recv_until(ws, "the lobby", lambda m: m["type"] == "lobby")
    return ws, hello["name"]


def _chat_of(line):
    return lambda m: m["type"] == "event" and m["event"] == "chat" and m["text"] == line


def watcher_chat(bindir):
    """Two browsers watch a game through the gateway's one observer, and a
    player waits at it: a watcher's chat line reaches the player and the
    other watcher (and the watcher itself, once), said by the watcher's own
    name. A browser cannot send the gateway's own session commands."""
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board)
        a, _ = _ws_named(web)
        a.send(json.dumps({"type": "new", "kind": "kalah"}))
        game = recv_until(a, "the new game", lambda m: m["type"] == "state")["game"]
        (w1, w1_name), (w2, _) = _ws_named(web), _ws_named(web)
        for w in (w1, w2):
            w.send(json.dumps({"type": "join", "game": game, "observe": True}))
            recv_until(w, "the watched game", lambda m: m["type"] == "state"
                       and m["game"] == game and m["my_seat"] == -1)
        line = "kumusta mula sa mga nanonood"
        w1.send(json.dumps({"type": "chat", "text": line}))
        for who, ws in (("the watcher", w1), ("the player", a), ("the other watcher", w2)):
            got = recv_until(ws, f"the watcher's line at {who}", lambda m: m["type"] == "error"
                             or _chat_of(line)(m))
            check(got["type"] == "event", f"{who} was told {got}")
            check(got["name"] == w1_name, f"the line reached {who} as {got['name']}'s, not "
                  f"{w1_name}'s")
        # Its own observer, which says the line, is heard through the hub
        # only: nothing of it comes to the browser twice.
        w1.send(json.dumps({"type": "list"}))
        while True:
            m = json.loads(w1.recv())
            check(not _chat_of(line)(m), "the watcher got its own line twice")
            check(m["type"] != "error", f"the watcher was told {m}")
            if m["type"] == "lobby":
                break
        # A second line: the observer is already seated.
        w1.send(json.dumps({"type": "chat", "text": "ikalawa"}))
        recv_until(a, "the second line", _chat_of("ikalawa"))
        w2.send(json.dumps({"type": "_watch_chat", "game": game, "text": "x"}))
        err = recv_until(w2, "the refusal", lambda m: m["type"] == "error")
        check(err["code"] == "bad_command", f"a browser's _watch_chat was answered {err}")
        for ws in (a, w1, w2):
            ws.close()


def _waiting(ws, size):
    return recv_until(ws, f"a pool of {size}", lambda m: m["type"] == "error" or (
        m["type"] == "pairing" and m["waiting"] and m["pool_size"] == size))


def quick_pair(bindir):
    """Quick pairing from two browsers: the first waits, told the pool's
    size, and the gateway still answers it (another command is refused while
    it waits; Cancel takes it out of the pool and back to the lobby); asked
    again, it waits until a second browser asks for quick kalah 5+3, and the
    two are seated in one clocked game; the lobby lists the pools. Then the
    app's Quick game panel in Chromium: the pools, the wait with the pool's
    size, Cancel, and a pairing."""
    with Env(bindir) as env:
        board = env.board("--client-pairings", "2")
        web = gateway(env, board)
        (a, _), (b, _) = _ws_named(web), _ws_named(web)
        quick = json.dumps({"type": "quick", "kind": "kalah", "clock": "5+3"})
        a.send(quick)
        got = _waiting(a, 1)
        check(got["type"] == "pairing", f"asking for a quick game was answered {got}")
        a.send(json.dumps({"type": "list"}))
        err = recv_until(a, "the refusal", lambda m: m["type"] in ("error", "lobby"))
        check(err["type"] == "error" and "cancel" in err["message"],
              f"a list while waiting was answered {err}")
        # The lobby shows the pool a waits in: b, without an agent of its
        # own, reads the gateway's shared lobby, up to a second old.
        end = time.monotonic() + WAIT
        while True:
            b.send(json.dumps({"type": "list"}))
            lobby = recv_until(b, "the lobby", lambda m: m["type"] == "lobby")
            pools = [(p["kind"], p["clock"], p["players"]) for p in lobby.get("pools", [])]
            if ("kalah", "5+3", 1) in pools or time.monotonic() > end:
                break
            time.sleep(0.2)
        check(("kalah", "5+3", 1) in pools, f"the lobby's pools are {pools}")
        a.send(json.dumps({"type": "quick_cancel"}))
        got = recv_until(a, "the end of the wait", lambda m: m["type"] == "pairing"
                         and not m["waiting"])
        check(not got["paired"], f"a cancelled wait said {got}")
        recv_until(a, "the lobby after the cancel", lambda m: m["type"] == "lobby")
        a.send(quick)
        _waiting(a, 1)
        b.send(quick)
        games = []
        for ws in (a, b):
            got = recv_until(ws, "the pairing", lambda m: m["type"] == "error" or (
                m["type"] == "pairing" and not m["waiting"]))
            check(got.get("paired"), f"a browser asking for quick kalah was told {got}")
            st = recv_until(ws, "the paired game", lambda m: m["type"] == "state")
            check(st["kind"] == "kalah" and st["my_seat"] >= 0 and st["time_control"] == "5+3",
                  f"the paired game is {st['kind']} {st['time_control']!r}, seat "
                  f"{st['my_seat']}")
            games.append((st["game"], st["my_seat"]))
        check(games[0][0] == games[1][0] and games[0][1] != games[1][1],
              f"the two browsers were seated at {games}")
        for ws in (a, b):
            ws.close()

        # The app's Quick game panel (Chromium): waiting with the pool's
        # size, Cancel, and paired with a WebSocket browser the second time.
        c, _ = _ws_named(web)
        c.send(json.dumps({"type": "quick", "kind": "kalah", "clock": "10"}))
        _waiting(c, 1)
        (page,) = _browsers(1)
        try:
            page.d.get(web.url)
            page.wait("the lobby", "document.getElementById('kind').options.length > 0")
            pools = page.wait("the pool c waits in", "[...document.querySelectorAll('#pools li')]"
                              ".map(li => li.textContent).join('|')")
            check("kalah" in pools and "clock 10: 1 waiting" in pools,
                  f"the page shows the pools as {pools!r}")
            page.js("document.getElementById('kind').value = 'kalah'")
            page.d.find_element("id", "quick").click()
            page.wait("the wait", "!document.getElementById('quick-wait').hidden && "
                      "document.getElementById('quick-status').textContent.includes('1 in the')")
            check(page.js("document.getElementById('create').disabled"),
                  "a new game can be made while waiting for a quick one")
            page.d.find_element("id", "quick-cancel").click()
            page.wait("the wait's end", "document.getElementById('quick-wait').hidden && "
                      "!document.getElementById('create').disabled")
            page.d.find_element("id", "quick").click()
            page.wait("the second wait", "!document.getElementById('quick-wait').hidden")
            c.send(json.dumps({"type": "quick_cancel"}))
            recv_until(c, "the lobby after the cancel", lambda m: m["type"] == "lobby")
            c.send(json.dumps({"type": "quick", "kind": "kalah"}))
            st = recv_until(c, "the game", lambda m: m["type"] in ("error", "state"))
            check(st["type"] == "state", f"the WebSocket browser was told {st}")
            _in_game(page, "the quick game")
            check(page.js("location.pathname") == f"/game/{st['game']}",
                  f"the page is at {page.js('location.pathname')}, not game {st['game']}")
            check(page.js("document.getElementById('quick-wait').hidden"),
                  "the page still says it waits")
            c.close()
        finally:
            page.close()


def sowing_and_reasons(bindir):
    """A kalah move's "moved" event carries its sowing path (the cell played
    and each step, whose last values are the state's), and the app plays
    it cup by cup (data-sowings counts the animations played); with
    prefers-reduced-motion it skips them (data-sowings-skipped) and plays
    none. Then the same page in Filipino (one Chromium for both) resigns:
    the game's end is said with the Filipino reason, from the gateway's
    codes (over.why, out, who), not its English sentence, and so is a
    refusal (the error's reason) and the board's description for screen
    readers (its parts), a player's departure (the event's why), and the
    notice that the service is lost (its code); and the page's own labels
    (index.html) are Filipino."""
    with Env(bindir) as env:
        board = env.board("--bot-think", "400")
        web = gateway(env, board)
        ws, _ = _ws_named(web)
        ws.send(json.dumps({"type": "new", "kind": "kalah", "bots": 1}))
        st = recv_until(ws, "my turn", lambda m: m["type"] == "error" or (
            m["type"] == "state" and m["to_move"] == m["my_seat"] >= 0))
        check(st["type"] == "state", f"a new kalah game against a bot: {st}")
        cell = next(c for c in st["cells"] if c["move"] >= 0)
        ws.send(json.dumps({"type": "move", "move": cell["move"]}))
        moved = recv_until(ws, "my move", lambda m: m["type"] == "event"
                           and m["event"] == "moved" and m["seat"] == st["my_seat"])
        after = recv_until(ws, "the state after it", lambda m: m["type"] == "state")
        check(moved["from"] == cell["cell"], f"the move from cell {cell['cell']} says from "
              f"{moved['from']}")
        check(len(moved["steps"]) >= cell["value"],
              f"{cell['value']} stones sown in {len(moved['steps'])} steps: {moved['steps']}")
        last = {}
        for c, v in moved["steps"]:
            last[c] = v
        for c, v in last.items():
            check(after["cells"][c]["value"] == v, f"cell {c} is {after['cells'][c]['value']} "
                  f"after the move, its last step says {v}")
        ws.send(json.dumps({"type": "answer_draw", "accept": True}))
        err = recv_until(ws, "the refusal", lambda m: m["type"] == "error")
        check(err["code"] == "refused" and err.get("reason") == "NO_OFFER",
              f"accepting a draw nobody offered was answered {err}")
        ws.close()

        (b,) = _browsers(1)
        try:
            b.d.get(web.url)
            b.wait("the lobby", "document.getElementById('kind').options.length > 0")
            b.js("document.getElementById('kind').value = 'kalah'")
            b.d.find_element("id", "create").click()
            _in_game(b)
            count = "Number(document.body.dataset.%s || 0)"

            def play():
                b.wait("a cup to play", f"document.querySelector('{PLAYABLE}') && "
                       "!document.getElementById('board').classList.contains('sowing')")
                b.d.find_element("css selector", PLAYABLE).click()

            play()
            b.wait("a sowing played", count % "sowings" + " >= 1")
            b.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                {"name": "prefers-reduced-motion", "value": "reduce"}]})
            played = b.js(count % "sowings")
            skipped = b.js(count % "sowingsSkipped")
            play()
            b.wait("a sowing skipped", count % "sowingsSkipped" + f" > {skipped}")
            check(not b.js("document.getElementById('board').classList.contains('sowing')"),
                  "the board is sowing for a reader who asks for reduced motion")
            check(b.js(count % "sowings") == played, "a sowing was played for a reader who "
                  "asks for reduced motion")
            b.js("localStorage.setItem('sungka-lang', 'fil') || true")
            b.d.refresh()
            _in_game(b, "the game again, in Filipino")
            b.wait("the page in Filipino", "document.documentElement.lang === 'fil'")
            me = b.js("document.getElementById('connection').textContent")
            said = b.js("document.getElementById('description').textContent")
            check(": mga bahay " in said and ", ulo " in said and "cups" not in said,
                  f"a Filipino page describes the board as {said!r}")
            for id_, want in (("offer-draw", "Mag-alok ng tabla"), ("clock-label", "Orasan"),
                              ("chat-to-label", "Para kay (walang laman: lahat)")):
                got = b.js(f"document.getElementById('{id_}').textContent")
                check(got == want, f"#{id_} reads {got!r} on a Filipino page, not {want!r}")
            b.d.find_element("id", "resign").click()
            over = b.wait("the game's end", "document.getElementById('over').hidden === false && "
                          "document.getElementById('over').textContent")
            check("Sumuko si guest-" in over and "resigned" not in over,
                  f"a Filipino page says the end as {over!r} ({me})")
            # A refusal (GAME_ENDED) in Filipino too, from the error's reason.
            b.js("send({type: 'offer_draw'}) || true")
            said = b.wait("the refusal", "document.getElementById('error').hidden === false && "
                          "document.getElementById('error').textContent")
            check(said == "Tapos na ang laro.", f"a Filipino page says a refusal as {said!r}")
            # A player whose connection drops (a kept session: its seat is
            # kept for it) departs, said in Filipino from the event's why.
            _departing_opponent(web, b)
            # The board service goes: the gateway's agent says it reconnects,
            # in Filipino on this page (the notice's code, said: lost).
            board.stop()
            b.wait("the reconnecting notice in Filipino", "document.getElementById('connection')"
                   ".textContent.startsWith('Naputol ang koneksyon sa ')")
            errors = b.console_errors()
            check(not errors, f"the browser's console has errors: {errors}")
        finally:
            b.close()


def _departing_opponent(web, b):
    """A browser with a kept session makes a kalah game, page b joins it,
    and the browser's connection drops: b says so in Filipino."""
    import urllib.request
    import websocket
    with urllib.request.urlopen(web.url + "/", timeout=WAIT) as r:
        cookie = "; ".join(c.split(";")[0] for c in r.headers.get_all("Set-Cookie")
                           if c.startswith("sungka_session="))
    check(cookie, "the page came without a session cookie")
    x = websocket.create_connection(f"ws://127.0.0.1:{web.port}/ws", origin=web.url,
                                    subprotocols=["sungka"], timeout=WAIT, cookie=cookie)
    hello = recv_until(x, "hello", lambda m: m["type"] == "hello")
    check(hello["kept"], f"a browser with its cookie is not kept: {hello}")
    x.send(json.dumps({"type": "new", "kind": "kalah"}))
    game = recv_until(x, "the new game", lambda m: m["type"] == "state")["game"]
    b.js(f"send({{type: 'join', game: {json.dumps(game)}, observe: false}}) || true")
    recv_until(x, "the game under way", lambda m: m["type"] == "state"
               and m["status"] == "running")
    x.close()
    said = b.wait("the departure", "[...document.querySelectorAll('#chat li.departed')]"
                  ".map(li => li.textContent).join(' ')")
    check(said.startswith("Umalis si guest-") and "naputol ang koneksiyon" in said
          and "Nakalaan ang upuan" in said, f"a Filipino page says a departure as {said!r}")


TESTS = {f.__name__: f for f in (watcher_chat, quick_pair, sowing_and_reasons)}


if __name__ == "__main__":
    sys.exit(test_web.run(TESTS))
