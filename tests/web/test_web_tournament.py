#!/usr/bin/python3
"""test_web_tournament.py — tournaments in the browser (version 4 of
docs/web-protocol.md), end to end.

A real sungka-board (with its store: tournaments are kept there) and
sungka-web on loopback, and three headless Chromium windows.

round_robin: a guest makes a round robin of two players of 3x3 tic-tac-toe
through the lobby's New tournament form, whose page opens; a second guest
finds it in the lobby's list and opens it, and a third browser opens its
link (/tournament/ID) and watches. Both guests Join; the tournament starts,
seats them at one game, and each page opens the game's board; they play it
to the end by clicking (X takes the top row), and both pages come back to
the tournament with the final standings (the winner 2 points, the loser 0),
which the watcher's page shows too, as they change. The watcher joins and
withdraws before the start; a second Join from one browser is refused; the
first player reloads its page while it waits and is still in (its place
kept with its browser's session) when the tournament seats it.

Usage: test_web_tournament.py BINDIR SHOTDIR TEST. Every process started is
stopped at the end.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from harness import Env, check  # noqa: E402
import test_web  # noqa: E402
from test_web import _browsers, _in_game, gateway  # noqa: E402


def _standings(b):
    """The tournament page's standings: (name, points) best first."""
    return b.js("[...document.querySelectorAll('#standings tbody tr')]"
                ".map(r => [r.dataset.player, Number(r.querySelector('.points').textContent)])")


def _tournament_shown(b, what):
    b.wait(what, "!document.getElementById('tournament').hidden && "
                 "document.getElementById('tournament-title').textContent.length > 0")


def round_robin(bindir):
    with Env(bindir) as env:
        board = env.board()
        web = gateway(env, board)
        a, b, c = _browsers(3)
        try:
            a.d.get(web.url + "/")
            a.wait("the lobby's kinds", "document.querySelectorAll('#tour-kind option').length > 0")
            a.d.find_element("id", "tour-title").send_keys("Kopa ng Linggo")
            a.js("(document.getElementById('tour-format').value = 'round_robin', "
                 "document.getElementById('tour-kind').value = 'tictactoe', "
                 "document.getElementById('tour-max').value = '2', true)")
            a.d.find_element("id", "tour-options").send_keys("size=3 dims=2")
            a.d.find_element("id", "tour-create").click()
            _tournament_shown(a, "the new tournament's page")
            tid = a.js("location.pathname.slice('/tournament/'.length)")
            check(a.js("document.getElementById('tournament-title').textContent")
                  .endswith("Kopa ng Linggo"), "the page does not say the tournament's name")
            about = a.js("document.getElementById('tournament-about').textContent")
            check("round robin" in about and "tictactoe" in about and "0/2" in about,
                  f"the tournament is described as {about!r}")

            # The watcher opens its link, as one would from a message.
            c.d.get(f"{web.url}/tournament/{tid}")
            _tournament_shown(c, "the tournament's page from its link")
            check(not _standings(c), f"a new tournament has standings {_standings(c)}")

            # The second guest finds it in the lobby's list.
            b.d.get(web.url + "/")
            b.wait("the tournament in the lobby",
                   f"document.querySelector('#tournaments tr[data-tournament=\"{tid}\"]')")
            row = b.js(f"document.querySelector('#tournaments tr[data-tournament=\"{tid}\"]')"
                       ".textContent")
            check("tictactoe" in row and "round robin" in row and "0/2" in row
                  and "waiting for players" in row, f"the lobby lists it as {row!r}")
            link = b.js(f"document.querySelector('#tournaments tr[data-tournament=\"{tid}\"] "
                        "a').getAttribute('href')")
            check(link == f"/tournament/{tid}", f"its link is {link!r}")
            b.shot("tournament_lobby")

            # The watcher joins and withdraws before it starts: forgotten.
            c.d.find_element("id", "tournament-join").click()
            c.wait("the watcher in the standings", lambda: len(_standings(c)) == 1)
            check(not c.js("document.getElementById('tournament-withdraw').hidden"),
                  "a player of a tournament not started is not offered to withdraw")
            c.d.find_element("id", "tournament-withdraw").click()
            c.wait("the standings without the watcher", lambda: not _standings(c))
            check(not c.js("document.getElementById('tournament-join').hidden"),
                  "the watcher is not offered to join again")

            a.d.find_element("id", "tournament-join").click()
            a.wait("a in the standings", lambda: len(_standings(a)) == 1)
            c.wait("the first player in the watcher's standings", lambda: len(_standings(c)) == 1)
            # A second Join from the same browser is refused, in words.
            a.js("send({type: 'tournament_join', id: " + repr(tid) + "}) || true")
            err = a.wait("the refusal", "!document.getElementById('error').hidden && "
                         "document.getElementById('error').textContent")
            check("already" in err, f"a second join was answered {err!r}")
            # A reload keeps the place (its token kept in the browser's
            # session): the page comes back joined, and the start seats it.
            a.d.refresh()
            _tournament_shown(a, "the tournament's page after a reload")
            a.wait("joined after the reload",
                   "!document.getElementById('tournament-withdraw').hidden")
            check(len(_standings(a)) == 1, f"after a reload the standings are {_standings(a)}")

            b.click_first("the tournament's link", f"#tournaments tr[data-tournament=\"{tid}\"] a")
            _tournament_shown(b, "the tournament's page in the second browser")
            b.d.find_element("id", "tournament-join").click()

            # Both are seated at the round's one game: each page opens its board.
            for who in (a, b):
                _in_game(who, "the tournament's game")
            c.wait("both in the watcher's standings", lambda: len(_standings(c)) == 2)
            game = a.js("current.game")
            check(b.js("current.game") == game, "the two players are at different games")
            seats = {a.js("current.my_seat"): a, b.js("current.my_seat"): b}
            check(sorted(seats) == [0, 1], f"the players sit at seats {sorted(seats)}")
            x, o = seats[0], seats[1]
            # X takes the top row (cells 0, 1, 2) while O plays 3 and 4.
            for n, (who, cell) in enumerate(((x, 0), (o, 3), (x, 1), (o, 4), (x, 2))):
                who.click_first(f"cell {cell}", f"#board [data-cell=\"{cell}\"][data-move]")
                for p in (x, o):
                    p.wait(f"move {n + 1} on both boards", lambda p=p: len(p.moves()) > n)
            x_name = x.js("me")
            for who in (x, o, c):
                _tournament_shown(who, "the tournament's page after the game")
                who.wait("the final standings", lambda who=who: _standings(who)
                         == [[x_name, 2], [o.js("me"), 0]])
                who.wait("the game listed as over", f"document.querySelector("
                         f"'#tournament-games li[data-game=\"{game}\"]').textContent"
                         ".includes('over')")
            check("finished" in c.js("document.getElementById('tournament-about').textContent"),
                  "the watcher is not told the tournament has finished")
            c.shot("tournament_standings")
            x.shot("tournament_winner")
            for who in (a, b, c):
                errors = who.console_errors()
                check(not errors, f"the browser's console has errors: {errors}")
        finally:
            for who in (a, b, c):
                who.close()


TESTS = {f.__name__: f for f in (round_robin,)}


if __name__ == "__main__":
    sys.exit(test_web.run(TESTS))
