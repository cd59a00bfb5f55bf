#!/usr/bin/python3
"""test_rematch.py — rematch (issue 16, docs/rules.md "Leaving a game"): after the
end a player offers, the others accept, and a new game with the same
settings starts with each player one seat on; a decline ends the offer; the
new game survives kill -9 of the service; and a stock gRPC client does the
same through Board.Rematch; an open offer survives kill -9 too. Usage: test_rematch.py BINDIR TEST.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, auth, seat, refused)


def _finished_pair(env, board):
    alice = env.player("alice", "--server", board.address, "--new", "kalah",
                       "--option", "cups=3", "--option", "stones=1")
    game = alice.expect(r"Created game (\d+)").group(1)
    bob = env.player("bob", "--server", board.address, "--game", game)
    alice.expect(r"^The game starts")
    Autoplayer(env, [alice, bob], seed=3).play_to_end()
    return game, alice, bob


def _rematch_pair(alice, bob, game):
    alice.send("rematch")
    alice.expect(r"^You accept a rematch \(1 of 2 accepted\)\.")
    bob.expect(r"^alice wants a rematch \(1 of 2 accepted\): type rematch to play again")
    bob.send("rematch")
    new = str(int(game) + 1)
    for p in (alice, bob):
        p.expect(rf"^The rematch starts: game {new}\.")
    alice.expect(r"^You are alice, seat 1\.")        # one seat on
    bob.expect(r"^You are bob, seat 0\.")
    return new


def two_players(bindir):
    """Offer, accept, and the rematch is played in rotated seats."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _finished_pair(env, board)
        _rematch_pair(alice, bob, game)
        Autoplayer(env, [alice, bob], seed=4).play_to_end()
        for p in (alice, bob):
            p.quit()


def declined(bindir):
    """A decline ends the offer; rematch during a game is refused."""
    with Env(bindir) as env:
        board = env.board()
        game, alice, bob = _finished_pair(env, board)
        bob.send("rematch")
        alice.expect(r"^bob wants a rematch")
        alice.send("decline")
        for p in (alice, bob):
            p.expect(r"^alice declines the rematch\.")
        new = _rematch_pair(alice, bob, game)         # offered again: fine
        alice.send("rematch")
        alice.expect(r"^A rematch is for the players, once the game is over\.")
        # bob quits the rematch (and loses it): no rematch without him
        bob.quit()
        alice.expect(r"^Game over: bob quit; alice wins")
        alice.send("rematch")
        alice.expect(r"^Refused: bob has left: there is nobody to play seat \d again")
        alice.send("history alice")
        alice.expect(rf"^Match {new}: kalah")
        alice.quit()


def three_seats(bindir):
    """Three-seat sungka: two accept, the third declines; then all accept."""
    with Env(bindir) as env:
        board = env.board()
        ann = env.player("ann", "--server", board.address, "--new", "sungka",
                         "--option", "players=3")
        game = ann.expect(r"Created game (\d+)").group(1)
        ben = env.player("ben", "--server", board.address, "--game", game)
        cy = env.player("cy", "--server", board.address, "--game", game)
        seat = {p.name: int(p.expect(rf"^You are {p.name}, seat (\d)\.").group(1))
                for p in (ann, ben, cy)}
        # Each view must have seen the start: "resign" before it is refused,
        # and the second would only ask again.
        for p in (ann, ben, cy):
            p.expect(r"^The game starts")
        for p in (ann, ben):
            p.send("resign")
            p.send("resign")
        for p in (ann, ben, cy):
            p.expect(r"^Game over: ")
        ann.send("rematch")
        cy.expect(r"^ann wants a rematch \(1 of 3 accepted\)")
        ben.send("rematch")
        cy.expect(r"^ben wants a rematch \(2 of 3 accepted\)")
        cy.send("decline")
        ann.expect(r"^cy declines the rematch\.")
        for p in (ann, ben, cy):
            p.send("rematch")
        for p in (ann, ben, cy):
            p.expect(rf"^The rematch starts: game {int(game) + 1}\.")
        for p in (ann, ben, cy):                      # one seat on
            p.expect(rf"^You are {p.name}, seat {(seat[p.name] + 1) % 3}\.")
        for p in (ann, ben, cy):
            p.quit()


def survives_restart(bindir):
    """kill -9 of the service during the rematch: both agents come back to
    the new game by themselves and finish it."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "rematch.db")
        board = env.board("--db", db)
        game, alice, bob = _finished_pair(env, board)
        new = _rematch_pair(alice, bob, game)
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        env.board("--db", db, port=board.port)
        for p in (alice, bob):
            p.wait_for(r"^Reconnected to ", timeout=30)
        alice.send("who")
        alice.expect(r"^  seat 1: alice")
        Autoplayer(env, [alice, bob], seed=9).play_to_end()
        bob.send("history bob")
        bob.expect(rf"^Match {new}: kalah")
        for p in (alice, bob):
            p.quit()


def offer_survives_restart(bindir):
    """kill -9 of the service between the offer and the acceptance: the
    finished game comes back with its players and the open offer, and the
    acceptance starts the rematch."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "offer.db")
        board = env.board("--db", db)
        game, alice, bob = _finished_pair(env, board)
        alice.send("rematch")
        bob.expect(r"^alice wants a rematch \(1 of 2 accepted\)")
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        restarted = env.board("--db", db, port=board.port)
        restarted.expect_stderr(r"recovered 1 ended game its players may still rematch",
                                timeout=15)
        for p in (alice, bob):
            p.wait_for(r"^Reconnected to ", timeout=30)
        bob.send("rematch")
        for p in (alice, bob):
            p.expect(rf"^The rematch starts: game {int(game) + 1}\.")
        alice.expect(r"^You are alice, seat 1\.")
        for p in (alice, bob):
            p.quit()


def stock_client(bindir):
    """Board.Rematch from a stock gRPC client: refused while the game runs and
    to an observer; the offer and the start as events; each player's new
    BoardRef from the call, seats rotated, and the new game plays."""
    with Env(bindir) as env:
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        board = env.board()
        pb, C = stubs.pb, stubs.grpc.StatusCode
        ch = stubs.grpc.insecure_channel(board.address)
        lobby, b = stubs.pb_grpc.RegisterStub(ch), stubs.pb_grpc.BoardStub(ch)
        game = lobby.CreateGame(pb.CreateGameRequest(kind="kalah", autostart=True),
                                timeout=15).game.game_id
        ana = lobby.JoinGame(pb.JoinGameRequest(game_id=game, name="ana"), timeout=15)
        ben = lobby.JoinGame(pb.JoinGameRequest(game_id=game, name="ben"), timeout=15)
        eve = lobby.JoinGame(pb.JoinGameRequest(game_id=game, name="eve", observe=True),
                             timeout=15)
        stubs.refused("a rematch while the game runs", C.FAILED_PRECONDITION, "WRONG_STATE",
                      b.Rematch, pb.RematchRequest(), metadata=stubs.auth(ana.token))
        b.Resign(pb.ResignRequest(), metadata=stubs.auth(ana.token), timeout=15)
        stubs.refused("a rematch offered by an observer", C.PERMISSION_DENIED, "OBSERVER",
                      b.Rematch, pb.RematchRequest(), metadata=stubs.auth(eve.token))
        first = b.Rematch(pb.RematchRequest(), metadata=stubs.auth(ana.token), timeout=15)
        check(not first.HasField("board"), f"a board before everyone accepted: {first}")
        second = b.Rematch(pb.RematchRequest(), metadata=stubs.auth(ben.token), timeout=15)
        check(second.board.game_id != game and stubs.seat(second.board, "seat") ==
              (stubs.seat(ben, "seat") + 1) % 2, f"ben's rematch seat: {second.board}")
        again = b.Rematch(pb.RematchRequest(), metadata=stubs.auth(ana.token), timeout=15)
        check(again.board.game_id == second.board.game_id and
              stubs.seat(again.board, "seat") == (stubs.seat(ana, "seat") + 1) % 2 and
              again.board.token not in (ana.token, ben.token, second.board.token),
              f"ana's rematch seat: {again.board}")
        log = b.Subscribe(pb.SubscribeRequest(after_seq=1), metadata=stubs.auth(ana.token),
                          timeout=15)
        kinds, started = [], None
        for ev in log:
            kinds.append(ev.WhichOneof("body"))
            if kinds[-1] == "rematch_started":
                started = ev.rematch_started
                break
        log.cancel()
        check("rematch_offered" in kinds and started and
              started.game_id == second.board.game_id and list(started.new_seats) == [1, 0],
              f"the old game's log: {kinds}, {started}")
        tokens = {stubs.seat(again.board, "seat"): again.board.token,
                  stubs.seat(second.board, "seat"): second.board.token}
        b.Move(pb.MoveRequest(move=0), metadata=stubs.auth(tokens[0]), timeout=15)
        ch.close()


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (two_players, declined, three_seats,
                                           survives_restart, offer_survives_restart,
                                           stock_client)}))
