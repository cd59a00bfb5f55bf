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


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (list_kinds,)}))
