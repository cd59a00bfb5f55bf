#!/usr/bin/python3
"""test_text_terminal.py — The text view at a real terminal (tmux): line
editing and history with libedit, events printed above a half-typed line,
and boards that fit a 40-column terminal.

Real sungka-board and sungka-player processes on loopback. Usage:
test_text_terminal.py BINDIR TEST (ctest runs one process per test).
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402


class Terminal:
    """A tmux server of its own with one window running `command`."""
    made = 0

    def __init__(self, command, width, height=40):
        self.tmux = shutil.which("tmux")
        check(self.tmux is not None, "tmux is not installed")
        Terminal.made += 1
        self.sock = f"sungka-e2e-{os.getpid()}-{Terminal.made}"
        self.tm("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
                f"{command}; sleep 60")

    def tm(self, *args):
        return subprocess.run([self.tmux, "-L", self.sock, *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout

    def keys(self, *keys):
        self.tm("send-keys", "-t", "t", *keys)

    def screen(self, joined=False):
        """The window's lines (joined: the lines the terminal wrapped, whole,
        and the scrollback too)."""
        args = ["-J", "-S", "-"] if joined else []
        return self.tm("capture-pane", "-p", "-t", "t", *args)

    def has(self, pattern, timeout=20, joined=False):
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen(joined)
            if re.search(pattern, screen, re.M):
                return screen
            if time.monotonic() > deadline:
                raise Failure(f"the terminal never showed /{pattern}/:\n{screen}")
            time.sleep(0.1)

    def close(self):
        subprocess.run([self.tmux, "-L", self.sock, "kill-server"], capture_output=True,
                       timeout=10)


def player_command(bindir, env, state, *args):
    os.makedirs(state, exist_ok=True)
    return " ".join([os.path.join(bindir, "sungka-player"), "--state-dir", state, *args])


def editing(bindir):
    """Arrow keys edit the line instead of being sent raw, Tab completes a
    command's name, the up arrow recalls earlier commands (also those of an
    earlier run, from the history file, which is private), an event that
    arrives while a line is half typed is printed above it and the line
    stays as typed, and a password asked for is neither shown nor kept."""
    with Env(bindir) as env:
        board = env.board()
        state = os.path.join(env.state_dir, "alice")
        cmd = player_command(bindir, env, state, "--server", board.address, "--name", "alice")
        term = Terminal(cmd, 100)
        try:
            term.has(r"^You are in the lobby")
            term.keys("new sungka", "Enter")
            term.has(r"^You are alice, seat 0")
            # Tab completes "boa" to "board"
            term.keys("boa", "Tab", "Enter")
            term.has(r"^> board\n\n\s+5\s+4")
            # the left arrow moves back in the line: "hat hi" becomes "chat hi"
            term.keys("hat hi")
            term.keys("Home")
            term.keys("c", "Enter")
            term.has(r"^\[chat\] alice: hi$")
            screen = term.screen()
            check("Unknown command" not in screen and "\x1b" not in screen and "^[" not in screen,
                  f"an editing key reached the view raw:\n{screen}")
            # up arrow: the last command again
            term.keys("Up", "Enter")
            term.has(r"^\[chat\] alice: hi\n> chat hi\n\[chat\] alice: hi$")
            # an event while a line is half typed: printed above it
            term.keys("chat he")
            term.has(r"^> chat he$")
            bob = env.player("bob", "--server", board.address, "--game", "1", ready=False)
            bob.expect(r"^You are bob")
            screen = term.has(r"^bob joined, seat 1\.\n> chat he\s*$")
            term.keys("llo", "Enter")
            bob.expect(r"^\[chat\] alice: hello$")
            # a password: not echoed, not in the history
            term.keys("register alice", "Enter")
            term.has(r"^Choose a password")
            term.keys("sesame-open-1", "Enter")
            term.has(r"^The same password again")
            term.keys("sesame-open-1", "Enter")
            term.has(r"Signed in\.")
            check("sesame" not in term.screen(), "the password was shown")
            term.keys("quit", "Enter")
            term.has(r"^You left game 1\.")
            bob.quit()
        finally:
            term.close()
        history = os.path.join(state, "history")
        check(os.path.exists(history), f"no history file at {history}")
        mode = stat.S_IMODE(os.stat(history).st_mode)
        check(mode == 0o600, f"the history file is mode {oct(mode)}, not 0600")
        with open(history) as f:
            kept = f.read()
        check("sesame" not in kept, "the password is in the history")
        check("register" in kept and "chat" in kept, f"the history lacks commands:\n{kept}")
        # a second run finds the first one's history
        term = Terminal(cmd, 100)
        try:
            term.has(r"^You are in the lobby")
            term.keys("Up")
            term.has(r"^> quit$")
            term.keys("Up", "Up")      # (the password lines were never kept)
            term.has(r"^> chat hello$")
            term.keys("C-u", "quit", "Enter")
        finally:
            term.close()


def _fits(term, width, what):
    """Every line of a board on the screen (wrapped lines joined) is at most
    width columns."""
    board_line = re.compile(r"\[\s*\d+\]|^\s*\d+( [.XO*])+\s+\d+$")
    for line in term.screen(joined=True).splitlines():
        if board_line.search(line):
            check(len(line.rstrip()) <= width,
                  f"{what}: a board line of {len(line.rstrip())} columns at {width}:\n{line}\n"
                  f"--- screen:\n{term.screen(joined=True)}")


def narrow(bindir):
    """At 40 columns no board wraps: two-seat sungka with twelve cups, six
    seats of twelve cups, and the largest reversi board."""
    with Env(bindir) as env:
        board = env.board()
        cmd = player_command(bindir, env, os.path.join(env.state_dir, "alice"), "--server",
                             board.address, "--name", "alice")
        for n, (options, drawn) in enumerate([
                ("sungka cups=12 stones=20", r"^\s*11 \[ *20\]"),
                ("sungka players=6 cups=12 stones=20", r"^\s*11 \[ *20\]\[ *20\]"),
                ("reversi size=16", r"^\s+16( \.)+\s+16$")]):
            term = Terminal(cmd, 40, 60)
            try:
                term.has(r"^You are in the lobby", joined=True)
                term.keys(f"new {options}", "Enter")
                term.has(r"^You are alice, seat 0", joined=True)
                term.has(drawn, joined=True)
                _fits(term, 40, options)
                term.keys("quit", "Enter")
                term.has(rf"^You left game {n + 1}\.", joined=True)
            finally:
                term.close()


def clock_prompt(bindir):
    """While our clock runs, the clocks are the prompt, rewritten every
    second before the line being typed: one prompt line, never a line a
    second, never a prompt drawn twice; after our move the usual prompt."""
    with Env(bindir) as env:
        board = env.board()
        cmd = player_command(bindir, env, os.path.join(env.state_dir, "alice"), "--server",
                             board.address, "--name", "alice")
        term = Terminal(cmd, 100)
        try:
            term.has(r"^You are in the lobby")
            term.keys("new kalah clock=5", "Enter")
            term.has(r"^You are alice, seat 0")
            bob = env.player("bob", "--server", board.address, "--game", "1")
            bob.expect(r"^You are bob")
            term.keys("ready", "Enter")
            term.has(r"^Your turn")
            term.keys("cha")
            term.has(r"^Clocks: alice 4:5\d \(running\), bob 5:00\. > cha$")
            time.sleep(2.5)           # two more ticks
            screen = term.has(r"^Clocks: alice 4:5\d \(running\), bob 5:00\. > cha$")
            prompts = [l for l in screen.splitlines() if " > " in l]
            check(len(prompts) == 1, f"the clock prompt was drawn {len(prompts)} times:\n{screen}")
            term.keys("C-u", "1", "Enter")
            term.has(r"^Waiting for bob to move\.\nClocks: .*\n>\s*$")
            bob.quit()
        finally:
            term.close()


TESTS = {f.__name__: f for f in (editing, narrow, clock_prompt)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
