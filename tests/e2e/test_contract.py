#!/usr/bin/python3
"""test_contract.py — the wire contract as a stranger reads it, from a stock
Python gRPC client (stubs protoc compiles from proto/, as test_accounts.py
does): Register.ListKinds says every kind with its options, and a game made
with each advertised default, minimum and maximum is accepted while a value
beside them is refused with the advertised range; the lists are read a page
at a time (page_size, page_token) with nothing lost or repeated while games
are added between pages, and a forged token is refused with a sentence.
Usage: test_contract.py BINDIR TEST.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, Client, refused, with_board)

T = stubs.CALL_TIMEOUT


def _values(option):
    """Every value the contract says the option takes."""
    return list(range(option.min, option.max + 1, option.step))


def list_kinds(bindir):
    """ListKinds names the five kinds with their options (defaults, ranges,
    steps), seats, cells and named moves, and the service holds to every word
    of it: each advertised default, min and max makes a game (seats as
    advertised), and each value just outside, or between steps, is refused
    INVALID_ARGUMENT with a sentence giving the advertised range."""
    def body(env, board, client):
        pb = stubs.pb
        c = client()
        kinds = {k.name: k for k in c.lobby.ListKinds(pb.ListKindsRequest(), timeout=T).kinds}
        check(sorted(kinds) == ["congklak", "kalah", "reversi", "sungka", "tictactoe"],
              f"kinds: {sorted(kinds)}")
        sungka = kinds["sungka"]
        check([(o.name, o.default_value, o.min, o.max) for o in sungka.options] ==
              [("players", 2, 2, 6), ("cups", 6, 3, 12), ("stones", 7, 1, 20)],
              f"sungka's options: {sungka.options}")
        check((sungka.min_seats, sungka.max_seats) == (2, 6), f"sungka seats: {sungka}")
        check(sungka.layout == pb.BOARD_LAYOUT_MANCALA and "s*(cups+1)+c" in sungka.cells,
              f"sungka's cells: {sungka.layout} {sungka.cells!r}")
        size = kinds["reversi"].options[0]
        check((size.name, size.min, size.max, size.step) == ("size", 4, 16, 2),
              f"reversi's size: {size}")
        check(kinds["reversi"].layout == pb.BOARD_LAYOUT_DISCS, "reversi's layout")
        check((kinds["kalah"].min_seats, kinds["kalah"].max_seats) == (2, 2), "kalah's seats")
        check([(m.move, m.name) for m in kinds["kalah"].named_moves] == [(-2, "swap")],
              f"kalah's named moves: {kinds['kalah'].named_moves}")
        check(not kinds["sungka"].named_moves, "sungka offers no swap")
        made = 0
        for kind in kinds.values():
            check(kind.title and kind.cells, f"{kind.name}: no title or cells")
            for o in kind.options:
                check(o.type == pb.OPTION_TYPE_INTEGER and o.description and o.step >= 1,
                      f"{kind.name}.{o.name}: {o}")
                check(o.default_value in _values(o), f"{kind.name}.{o.name}: default off range")
                for v in sorted({o.min, o.max, o.default_value}):
                    reply = c.lobby.CreateGame(pb.CreateGameRequest(
                        kind=kind.name, options=[pb.GameOption(name=o.name, value=v)]),
                        timeout=T)
                    made += 1
                    got = {x.name: x.value for x in reply.game.options}
                    if (kind.name, o.name, v) == ("congklak", "first", -1):
                        # "-1: the board service picks the first player at
                        # random": the game shows whom it picked.
                        check(got.get(o.name) in (0, 1), f"congklak first=-1: made {got}")
                    else:
                        check(got.get(o.name) == v, f"{kind.name} {o.name}={v}: made {got}")
                    seats = len(reply.game.seats)
                    check(kind.min_seats <= seats <= kind.max_seats,
                          f"{kind.name} {o.name}={v}: {seats} seats, not "
                          f"{kind.min_seats}..{kind.max_seats}")
                    if o.name == "players":
                        check(seats == v, f"{kind.name} players={v}: {seats} seats")
                between = [o.min + 1] if o.step > 1 else []
                for v in [o.min - 1, o.max + 1] + between:
                    e = stubs.refused(f"{kind.name} {o.name}={v}",
                                      stubs.grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST",
                                      c.lobby.CreateGame,
                                      pb.CreateGameRequest(kind=kind.name, options=[
                                          pb.GameOption(name=o.name, value=v)]))
                    check(f"{o.name} must be {o.min}..{o.max}" in e.details(),
                          f"{kind.name} {o.name}={v}: the sentence gives not the advertised "
                          f"range: {e.details()!r}")
                    if o.step > 1:
                        check(f"in steps of {o.step}" in e.details(),
                              f"{kind.name} {o.name}={v}: no step in {e.details()!r}")
        check(made >= 20, f"only {made} games made")
    stubs.with_board(bindir, body, "--max-games-per-client", "1000")


# ------------------------------------------------------------- pagination

def _pages(fetch, keys_of, between=(), size=10):
    """Read a list a page at a time: fetch(page_size, page_token) answers a
    reply, keys_of(reply) its rows' keys; between[i]() runs after page i+1
    (rows added while a client pages). Returns the pages' keys."""
    pages, token = [], ""
    for i in range(100):
        reply = fetch(size, token)
        keys = keys_of(reply)
        check(len(keys) <= size, f"page {i + 1}: {len(keys)} rows, over page_size {size}")
        pages.append(keys)
        token = reply.next_page_token
        print(f"  page {i + 1}: {keys}{' (last)' if not token else ''}")
        if not token:
            return pages
        check(keys, f"page {i + 1}: no rows, and yet a next_page_token")
        if i < len(between):
            between[i]()
    raise AssertionError("100 pages: the tokens never end")


def _flat(pages):
    out = [k for p in pages for k in p]
    check(len(out) == len(set(out)), f"a row came twice: {out}")
    return out


def _refuses_tokens(what, call, make, good):
    """call(request) refuses garbage, a cut token, another list's token
    (good: a token of another list) and a negative page_size, each
    INVALID_ARGUMENT with a sentence naming page_token or page_size."""
    C = stubs.grpc.StatusCode
    for label, token in (("garbage", "garbage!"), ("random base64", "QUJDREVGR0g"),
                         ("another list's token", good)):
        e = stubs.refused(f"{what} with {label}", C.INVALID_ARGUMENT, "BAD_REQUEST", call,
                          make(page_size=10, page_token=token))
        check("page_token" in e.details(), f"{what}: the sentence names no page_token")
    e = stubs.refused(f"{what} with page_size -1", C.INVALID_ARGUMENT, "BAD_REQUEST", call,
                      make(page_size=-1))
    check("page_size" in e.details(), f"{what}: the sentence names no page_size")


def _new_game(c, kind="kalah"):
    return c.lobby.CreateGame(stubs.pb.CreateGameRequest(kind=kind), timeout=T).game.game_id


def games_pages(bindir):
    """ListGames, 25 games read 10 at a time while 3 more are made between
    the pages: 3 pages, every game once, in the order of their ids, the new
    ones at the end; a token of another list, a cut one and garbage are
    refused; without page_size every game comes in one page."""
    def body(env, board, client):
        pb = stubs.pb
        c = client()
        first = [_new_game(c) for _ in range(25)]
        added = []
        pages = _pages(lambda size, token: c.lobby.ListGames(pb.ListGamesRequest(
                           page_size=size, page_token=token), timeout=T),
                       lambda r: [g.game_id for g in r.games],
                       between=(lambda: added.extend(_new_game(c) for _ in range(2)),
                                lambda: added.append(_new_game(c))))
        check(len(pages) == 3 and [len(p) for p in pages] == [10, 10, 8],
              f"pages of {[len(p) for p in pages]}, not 10, 10, 8")
        check(_flat(pages) == first + added,
              f"paged {_flat(pages)}\nnot     {first + added}")
        everything = c.lobby.ListGames(pb.ListGamesRequest(), timeout=T)
        check([g.game_id for g in everything.games] == first + added and
              not everything.next_page_token, "ListGames without page_size: not all in one")
        kalah = c.lobby.ListGames(pb.ListGamesRequest(kind="sungka", page_size=10), timeout=T)
        check(not kalah.games and not kalah.next_page_token, "no sungka games, yet some")
        matches = c.lobby.ListMatches(pb.ListMatchesRequest(), timeout=T)
        check(not matches.next_page_token, "no matches, yet a token")
        cut = c.lobby.ListGames(pb.ListGamesRequest(page_size=10), timeout=T).next_page_token
        _refuses_tokens("ListGames", c.lobby.ListGames, pb.ListGamesRequest, cut[:len(cut) // 2])
    stubs.with_board(bindir, body, "--max-games-per-client", "1000")


def _resigned_game(c, names=("alice", "bob"), sessions=(None, None), rated=False):
    """A kalah game whose first player resigns at once: one more match (and
    with accounts and rated, one more rating point each)."""
    pb = stubs.pb
    game = c.lobby.CreateGame(pb.CreateGameRequest(kind="kalah", autostart=True, rated=rated),
                              metadata=sessions[0], timeout=T).game.game_id
    refs = [c.lobby.JoinGame(pb.JoinGameRequest(game_id=game, name=n), metadata=md, timeout=T)
            for n, md in zip(names, sessions)]
    c.board.Resign(pb.ResignRequest(), metadata=stubs.auth(refs[0].token), timeout=T)
    return game


def matches_pages(bindir):
    """ListMatches, 25 ended games read 10 at a time while 3 more end between
    the pages: every match of the 25 once, newest end first, the new ones
    (newer than the first page) in none; the history's tokens are its own."""
    def body(env, board, client):
        pb = stubs.pb
        c = client()
        for _ in range(25):
            _resigned_game(c)
        before = [m.game_id for m in c.lobby.ListMatches(
            pb.ListMatchesRequest(page_size=200), timeout=T).matches]
        check(len(before) == 25, f"{len(before)} matches, not 25")
        pages = _pages(lambda size, token: c.lobby.ListMatches(pb.ListMatchesRequest(
                           page_size=size, page_token=token), timeout=T),
                       lambda r: [m.game_id for m in r.matches],
                       between=(lambda: [_resigned_game(c) for _ in range(2)],
                                lambda: _resigned_game(c)))
        check([len(p) for p in pages] == [10, 10, 5], f"pages of {[len(p) for p in pages]}")
        check(_flat(pages) == before, f"paged {_flat(pages)}\nnot     {before}")
        mine = _pages(lambda size, token: c.lobby.ListMatches(pb.ListMatchesRequest(
                          player="alice", page_size=size, page_token=token), timeout=T),
                      lambda r: [m.game_id for m in r.matches], size=7)
        check(len(_flat(mine)) == 28, f"alice's matches: {len(_flat(mine))}, not 28")
        games = c.lobby.ListGames(pb.ListGamesRequest(page_size=1), timeout=T).next_page_token
        _refuses_tokens("ListMatches", c.lobby.ListMatches, pb.ListMatchesRequest, games)
    stubs.with_board(bindir, body, "--max-games-per-client", "1000",
                     "--client-join-rate", "1000")


RATED = ("--rated-same-address", "--rated-min-moves", "0", "--rated-pair-games", "0",
         "--client-registrations", "100", "--client-signin-rate", "1000",
         "--client-join-rate", "1000", "--max-games-per-client", "1000")


def leaderboard_pages(bindir):
    """Leaderboard by wins and by a kind's rating, 12 and 14 accounts read 5
    at a time while two newcomers play between the first two pages, one who
    ranks before the page already read (the winner: first by name among
    equals) and one after it: every player of the start once, in the board's
    order; the newcomer after the cursor in its place, the one before it on
    no page (an offset would have shown a player twice instead); a kind's
    token is refused for another kind, and the history pages go back in time."""
    def body(env, board, client):
        pb = stubs.pb
        people = {}
        for name in [f"p{i:02d}" for i in range(12)] + ["a00", "z00", "b00", "y00"]:
            people[name] = client()
            people[name].create(name)
        host = people["p00"]

        def play(loser, winner):
            _resigned_game(host, (loser, winner),
                           (people[loser].md(), people[winner].md()), rated=True)
        for i in range(0, 12, 2):
            play(f"p{i:02d}", f"p{i + 1:02d}")

        def board_of(kind):
            return [p.name for p in host.lobby.Leaderboard(
                pb.LeaderboardRequest(kind=kind, page_size=100), timeout=T).players]
        for kind, count, (loser, winner) in (("", 12, ("z00", "a00")),
                                             ("kalah", 14, ("y00", "b00"))):
            start = board_of(kind)
            check(len(start) == count, f"leaderboard {kind!r}: {start}")
            pages = _pages(lambda size, token: host.lobby.Leaderboard(pb.LeaderboardRequest(
                               kind=kind, page_size=size, page_token=token), timeout=T),
                           lambda r: [p.name for p in r.players],
                           between=(lambda: play(loser, winner),), size=5)
            final = board_of(kind)
            cursor = final.index(pages[0][-1])
            want = [n for n in final if n in start or final.index(n) > cursor]
            check(winner in final and final.index(winner) < cursor and loser in want,
                  f"leaderboard {kind!r}: the newcomers rank {final}")
            check(_flat(pages) == want,
                  f"leaderboard {kind!r}: paged {_flat(pages)}\nnot {want}")
        kalah = host.lobby.Leaderboard(pb.LeaderboardRequest(kind="kalah", page_size=2),
                                       timeout=T).next_page_token
        stubs.refused("a kalah token for reversi", stubs.grpc.StatusCode.INVALID_ARGUMENT,
                      "BAD_REQUEST", host.lobby.Leaderboard,
                      pb.LeaderboardRequest(kind="reversi", page_token=kalah))
        _refuses_tokens("Leaderboard", host.lobby.Leaderboard, pb.LeaderboardRequest, kalah)

        # RatingHistory: p00's 9 points read 4 at a time, newest first, while
        # two more games end between the pages (newer: on no later page).
        for _ in range(8):
            play("p00", "p01")
        full = [p.game_id for p in host.lobby.RatingHistory(
            pb.RatingHistoryRequest(name="p00", page_size=1000), timeout=T).points]
        check(len(full) == 9, f"p00's history: {len(full)} points, not 9")
        pages = _pages(lambda size, token: host.lobby.RatingHistory(pb.RatingHistoryRequest(
                           name="p00", page_size=size, page_token=token), timeout=T),
                       lambda r: [p.game_id for p in r.points],
                       between=(lambda: play("p00", "p01"), lambda: play("p00", "p01")), size=4)
        check([len(p) for p in pages] == [4, 4, 1], f"pages of {[len(p) for p in pages]}")
        check(_flat(list(reversed(pages))) == full,
              f"paged back {pages}\nnot the history {full}")
        _refuses_tokens("RatingHistory", host.lobby.RatingHistory,
                        lambda **kw: pb.RatingHistoryRequest(name="p00", **kw), kalah)
    stubs.with_board(bindir, body, *RATED)


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (list_kinds, games_pages, matches_pages,
                                           leaderboard_pages)}))
