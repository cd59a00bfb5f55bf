#!/usr/bin/python3
"""test_takeover.py — a service bot takes a departed player's seat (issue 16,
docs/rules.md "Leaving a game"): in a game created with bot-takes-over, a
player whose agent is killed and who does not come back within the grace is
replaced by a bot that plays on, so three-player sungka finishes with three
seats playing; the player has lost; their old seat token no longer moves;
and after kill -9 of the service the bot comes back by itself.
Usage: test_takeover.py BINDIR TEST.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
import test_accounts as stubs  # noqa: E402  (generate, auth)

GRACE = "2"


def _three(env, board):
    """alice, bob and carol in a three-seat sungka game with bot-takes-over,
    two moves in; carol's agent is then killed."""
    alice = env.player("alice", "--server", board.address, "--new", "sungka",
                       "--option", "players=3", "--bot-takes-over", "--bot-level", "2")
    game = alice.expect(r"Created game (\d+)").group(1)
    bob = env.player("bob", "--server", board.address, "--game", game)
    carol = env.player("carol", "--server", board.address, "--game", game)
    seat = carol.expect(r"^You are carol, seat (\d)\.").group(1)
    alice.expect(r"^The game starts")
    Autoplayer(env, [alice, bob, carol], seed=5).play_moves(2)
    carol.p.send_signal(signal.SIGKILL)
    carol.p.wait(5)
    for p in (alice, bob):
        p.expect(rf"^carol did not come back: bot-1 \(a level 2 bot\) plays seat {seat} from "
                 r"now on\.", timeout=30)
    return game, alice, bob, seat


def three_seats(bindir):
    """The bot plays carol's seat to the end; carol has lost; the summary
    says the game was made with the option."""
    with Env(bindir) as env:
        board = env.board("--grace", GRACE, "--bot-think", "20")
        game, alice, bob, seat = _three(env, board)
        alice.send("who")
        alice.expect(rf"^  seat {seat}: bot-1")
        # If it was already alice's or bob's turn when carol was killed, the
        # expects above took that prompt: "board" says it again (a prompt
        # said twice is still one turn to the Autoplayer).
        for p in (alice, bob):
            p.send("board")
        Autoplayer(env, [alice, bob], seed=6).play_to_end()
        bob.send("stats carol")
        bob.expect(r"^carol: 1 played, 0 won, 1 lost, 0 drawn")
        for p in (alice, bob):
            p.quit()


def old_token_refused(bindir):
    """A stock gRPC client: the game's summary says bot_takes_over; once the
    bot has the seat, the departed player's token may watch but not move."""
    with Env(bindir) as env:
        stubs.generate(os.path.join(env.state_dir, "stubs"))
        board = env.board("--grace", GRACE, "--bot-think", "20")
        pb = stubs.pb
        ch = stubs.grpc.insecure_channel(board.address)
        lobby, boardc = stubs.pb_grpc.RegisterStub(ch), stubs.pb_grpc.BoardStub(ch)
        made = lobby.CreateGame(pb.CreateGameRequest(kind="kalah", autostart=True,
                                                     bot_takes_over=True, bot_level=1),
                                timeout=15).game
        check(made.bot_takes_over, f"the summary does not say bot_takes_over: {made}")
        ana = lobby.JoinGame(pb.JoinGameRequest(game_id=made.game_id, name="ana"), timeout=15)
        ben = lobby.JoinGame(pb.JoinGameRequest(game_id=made.game_id, name="ben"), timeout=15)
        # ben's stream opens and goes away: he is departed, and after the
        # grace a bot has his seat. ana answers her pings meanwhile.
        gone = boardc.Subscribe(pb.SubscribeRequest(), metadata=stubs.auth(ben.token), timeout=60)
        next(gone)                                  # the snapshot: he was there
        gone.cancel()
        events = boardc.Subscribe(pb.SubscribeRequest(), metadata=stubs.auth(ana.token),
                                  timeout=60)
        taken = None
        try:
            for ev in events:
                if ev.WhichOneof("body") == "ping":
                    boardc.Ping(pb.PingRequest(nonce=ev.ping.nonce),
                                metadata=stubs.auth(ana.token), timeout=15)
                if ev.WhichOneof("body") == "seat_taken_over":
                    taken = ev.seat_taken_over
                    break
        finally:
            events.cancel()
        check(taken and taken.departed == "ben" and taken.level == 1 and
              taken.bot.seat.value == stubs.seat(ben, "seat"), f"SeatTakenOver: {taken}")
        C = stubs.grpc.StatusCode
        stubs.refused("ben's old token moving", C.PERMISSION_DENIED, "OBSERVER",
                      boardc.Move, pb.MoveRequest(move=0), metadata=stubs.auth(ben.token))
        ch.close()


def survives_restart(bindir):
    """kill -9 of the service after the takeover: after the restart the bot
    plays carol's seat again and the game finishes."""
    with Env(bindir) as env:
        db = os.path.join(env.state_dir, "takeover.db")
        board = env.board("--db", db, "--grace", GRACE, "--bot-think", "20")
        game, alice, bob, seat = _three(env, board)
        board.p.send_signal(signal.SIGKILL)
        board.p.wait(5)
        env.board("--db", db, "--grace", "30", "--bot-think", "20", port=board.port)
        for p in (alice, bob):
            p.wait_for(r"^Reconnected to ", timeout=30)
        Autoplayer(env, [alice, bob], seed=7).play_to_end()
        for p in (alice, bob):
            p.quit()


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (three_seats, old_token_refused, survives_restart)}))
