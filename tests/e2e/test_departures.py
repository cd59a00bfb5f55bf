#!/usr/bin/python3
"""test_departures.py — Coming and going: a killed or frozen agent, the grace,
quitting, a vanishing client, a clean shutdown.

Real sungka-board and sungka-player processes on loopback, driven as a person
would drive them. Usage: test_departures.py BINDIR TEST (ctest runs one
process per test).
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Autoplayer, Env, check, main  # noqa: E402
from e2e_util import final_report, moves_seen  # noqa: E402


def sigkill_noticed(bindir):
    """Killing an agent with SIGKILL is noticed by the others at once (its
    connection closes); its seat is kept for the grace, then the others may
    claim it."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "2")
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        obs = env.player("olga", "--server", board.address, "--game", game, "--observe")
        obs.expect(r"^You are observing\.")
        alice.expect(r"^Your turn")
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        started = time.monotonic()
        # The closed connection, not the missed pings (3 s later), says so.
        alice.expect(r"^bob departed: the connection closed\. The seat is kept for 2 s\.",
                     timeout=10)
        obs.expect(r"^bob departed: the connection closed", timeout=10)
        elapsed = time.monotonic() - started
        check(elapsed < 10, f"departure noticed after {elapsed:.1f}s")
        for p in (alice, obs):
            p.expect(r"^bob departed: did not come back within 2 s\.")
        alice.expect(r"^Type claim to take the win")
        for p in (alice, obs):
            p.quit()


def frozen_and_back(bindir):
    """An agent that stops answering (SIGSTOP: its connection stays open) is
    found by the missed pings; when it wakes within the grace it reconnects
    with its token, resumes after the last event it saw, and the game goes
    on with nothing lost."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        alice.send("chat before")
        bob.expect(r"^\[chat\] alice: before")
        bob.p.send_signal(signal.SIGSTOP)
        try:
            alice.expect(r"^bob departed: no answer to pings.*kept for 60 s", timeout=15)
            alice.send("chat while you were away")   # logged: bob must get it on return
            alice.send("0")                            # 2 stones: cups 1, 2: bob's turn next
            alice.expect(r"^alice played cup 0\.")
        finally:
            bob.p.send_signal(signal.SIGCONT)
        bob.expect(r"^Lost the connection to ", timeout=15)
        alice.expect(r"^bob is back\.", timeout=15)
        bob.expect(r"^\[chat\] alice: while you were away")
        bob.expect(r"^alice played cup 0\.")
        Autoplayer(env, [alice, bob], seed=5).play_to_end()
        a, b = final_report(alice), final_report(bob)
        check(a == b, f"final reports differ: {a} {b}")
        check(moves_seen(alice) == moves_seen(bob), "the two saw different moves")
        for p in (alice, bob):
            p.quit()


def killed_and_back(bindir):
    """A player whose agent is killed starts it again with the same game and
    name: the saved token takes the seat back and the game goes on."""
    with Env(bindir) as env:
        board = env.board("--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "cups=3", "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^Waiting for alice to move\.")
        bob.p.send_signal(signal.SIGKILL)
        bob.p.wait(5)
        alice.expect(r"^bob departed: ")
        alice.send("0")
        alice.expect(r"^alice played cup 0\.")
        bob2 = env.player("bob", "--server", board.address, "--game", game, ready=False)
        bob2.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^bob is back\.")
        Autoplayer(env, [alice, bob2], seed=2).play_to_end()
        check(final_report(alice) == final_report(bob2), "final reports differ")
        for p in (alice, bob2):
            p.quit()


def grace_runs_out(bindir):
    """A player who does not come back within the grace: the other may
    claim the win (docs/rules.md, "Leaving a game"), and the statistics
    say so. When the one left behind goes too, the game is abandoned."""
    with Env(bindir) as env:
        board = env.board("--grace", "1")
        alice = env.player("alice", "--server", board.address, "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        bob.expect(r"^Waiting for alice to move\.")
        bob.p.send_signal(signal.SIGKILL)
        alice.expect(r"^bob departed: did not come back within 1 s\.")
        alice.expect(r"^Type claim to take the win, or wait for bob to come back\.")
        alice.send("claim")
        alice.expect(r"^bob is out of the game: left the game\.")
        alice.expect(r"^Game over: bob left the game; alice wins\.")
        alice.send("stats bob")
        alice.expect(r"^bob: 1 played, 0 won, 1 lost")
        alice.quit()

        carol = env.player("carol", "--server", board.address, "--new", "kalah")
        game = carol.expect(r"Created game (\d+)").group(1)
        dan = env.player("dan", "--server", board.address, "--game", game)
        dan.expect(r"^Waiting for carol to move\.")
        dan.p.send_signal(signal.SIGKILL)
        carol.expect(r"^dan departed: did not come back within 1 s\.")
        carol.p.send_signal(signal.SIGKILL)
        board.expect_stderr(rf"game {game} over: carol did not come back within 1 s; the game "
                            r"ends with no winner", timeout=15)


def vanishing_client(bindir):
    """Clients that vanish mid-call or mid-stream do not disturb the service."""
    with Env(bindir) as env:
        board = env.board()
        for _ in range(5):
            alice = env.player("alice", "--server", board.address, "--new", "sungka")
            alice.expect(r"^You are alice, seat 0\.")
            alice.p.send_signal(signal.SIGKILL)
            alice.p.wait(5)
        board.expect_stderr(r"alice departed", timeout=15, count=5)
        bob = env.player("bob", "--server", board.address, "--new", "sungka")
        bob.expect(r"^You are bob, seat 0\.")
        bob.quit()
        check(board.p.poll() is None, "the board service died\n" + board.dump())


def quit_confirms(bindir):
    """A player quitting a running game is asked first; the second quit
    loses the game at once, as resigning does (issue 16: it used to end the
    game with no winner, so nobody ever lost by walking away)."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        alice.send("quit")
        alice.expect(r"^Leaving now loses the game, as resigning does")
        alice.send("who")                 # anything else disarms the question
        alice.send("quit")
        alice.expect(r"^Leaving now loses the game, as resigning does")
        alice.send("quit")
        check(alice.wait_exit() == 0, "alice did not exit")
        bob.expect(r"^alice is out of the game: quit\.")
        bob.expect(r"^Game over: alice quit; bob wins")
        bob.send("stats alice")
        bob.expect(r"^alice: 1 played, 0 won, 1 lost, 0 drawn")
        bob.quit()


def clean_shutdown(bindir):
    """SIGTERM stops the service promptly with agents connected; they try to
    reconnect for as long as they were told to, then say so and exit."""
    with Env(bindir) as env:
        board = env.board()
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--reconnect-for", "1")
        alice.expect(r"^You are alice, seat 0\.")
        board.p.send_signal(signal.SIGTERM)
        check(board.wait_exit(10) == 0, "the service did not exit cleanly\n" + board.dump())
        alice.expect(r"^Lost the connection to 127\.0\.0\.1:\d+; trying again for 1 s")
        alice.expect(r"^Disconnected from the board service \(could not reconnect within 1 s; "
                     r"giving up\)")
        check(alice.wait_exit() != 0, "an interrupted game should exit non-zero")


def service_stalled(bindir):
    """The service itself stops (SIGSTOP) past the ping timeout and goes on:
    its players answered every ping they got, so none is taken for departed
    (it took all of them for departed at once when it woke)."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--ping-timeout", "3", "--grace", "60")
        alice = env.player("alice", "--server", board.address, "--new", "sungka",
                           "--option", "stones=2")
        game = alice.expect(r"Created game (\d+)").group(1)
        bob = env.player("bob", "--server", board.address, "--game", game)
        alice.expect(r"^Your turn")
        board.p.send_signal(signal.SIGSTOP)
        try:
            time.sleep(6)
        finally:
            board.p.send_signal(signal.SIGCONT)
        time.sleep(3)                            # its ticks after the stall
        gone = [l for l in board.err_lines if re.search(r"\S+ departed \(", l)]
        check(not gone, f"players taken for departed after the service's own stall: {gone}")
        board.expect_stderr(r"stalled for \d+ ms", timeout=10)
        alice.send("0")                          # the game goes on
        for p in (alice, bob):
            p.expect(r"^alice played cup 0\.")
        for p in (alice, bob):
            p.quit()



TESTS = {f.__name__: f for f in (
    sigkill_noticed, frozen_and_back, killed_and_back, grace_runs_out, vanishing_client, quit_confirms, clean_shutdown,
    service_stalled)}


if __name__ == "__main__":
    sys.exit(main(TESTS))
