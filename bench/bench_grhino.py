#!/usr/bin/env python3
"""bench_grhino.py — the strongest reversi level against Debian's grhino (issue 19).

A benchmark, not a test: it is never run by ctest. A referee between two GTP
engines, ours (sungka-bench-gtp: games/search at a fixed level and time a
move) and gtp-rhino (grhino's GTP front end at a fixed AI level), playing
GAMES games of 8x8 Othello from the standard start, colours alternating (ours
is black in the first, third, ... game). The referee keeps no board of its own:
every move one engine makes is played on the other, which must accept it (a
pass only on ours: gtp-rhino passes by itself and refuses "play C pass"), and
at the end both engines' final_score must agree (up to the empty cells of a
game that ends before the board is full, which grhino gives to the winner),
so each rules engine checks the other. Prints one line a game and a summary with the load averages before
and after (the machine is shared; our budget is wall-clock time).

Usage: bench_grhino.py [--ours PATH] [--level N] [--ms MS] [--grhino PATH]
                       [--grhino-level N] [--games N] [--opponent CMD]
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


class Engine:
    """One GTP engine on pipes; ask() returns the answer or raises."""

    def __init__(self, name, argv, stderr=subprocess.DEVNULL):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, text=True, bufsize=1)

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"{self.name} exited on '{command}'")
            line = line.rstrip("\n")
            if line == "" and lines:
                break
            if line != "" or lines:
                lines.append(line)
        head, text = lines[0][:1], "\n".join([lines[0][1:].strip()] + lines[1:]).strip()
        if head != "=":
            raise RuntimeError(f"{self.name} refused '{command}': {text}")
        return text

    def close(self):
        try:
            self.ask("quit")
        except (RuntimeError, BrokenPipeError):
            pass
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def score_of(text):
    """'B+12' / 'W+4' / '0' -> black's margin."""
    text = text.strip().upper()
    if text in ("0", "DRAW"):
        return 0
    m = re.fullmatch(r"([BW])\+(\d+)(\.0)?", text)
    if not m:
        raise RuntimeError(f"cannot read the score '{text}'")
    return int(m.group(2)) * (1 if m.group(1) == "B" else -1)


def discs_of(board):
    """Our showboard: X black, O white."""
    return board.count("X"), board.count("O")


def play_game(ours, theirs, ours_black):
    engines = {"black": ours if ours_black else theirs, "white": theirs if ours_black else ours}
    for e in (ours, theirs):
        e.ask("boardsize 8")
        e.ask("clear_board")
    colour, passes, moves, times = "black", 0, [], {ours.name: [], theirs.name: []}
    while passes < 2:
        mover = engines[colour]
        other = engines["white" if colour == "black" else "black"]
        t0 = time.monotonic()
        move = mover.ask(f"genmove {colour}").lower()
        times[mover.name].append(time.monotonic() - t0)
        if move != "pass" or other is ours:
            other.ask(f"play {colour} {move}")   # ours refuses a pass that is not forced
        passes = passes + 1 if move == "pass" else 0
        if move != "pass":
            moves.append(move)
        colour = "white" if colour == "black" else "black"
    ours_score, theirs_score = score_of(ours.ask("final_score")), score_of(theirs.ask("final_score"))
    board = ours.ask("showboard")
    black, white = discs_of(board)
    # A game can end with empty cells (neither side can move). Ours scores
    # discs only (docs/rules.md §4); grhino gives the empties to the winner,
    # as tournament Othello does. Either way the same side wins.
    empties = board.count(".")
    if theirs_score not in (ours_score, ours_score + (empties if ours_score > 0 else -empties)):
        raise RuntimeError(f"the engines disagree on the score: {ours_score} vs {theirs_score}")
    return black, white, moves, times


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", default=os.path.join(here, "..", "build", "bin", "sungka-bench-gtp"))
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--ms", type=int, default=200)
    ap.add_argument("--grhino", default="/usr/games/gtp-rhino")
    ap.add_argument("--grhino-level", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--opponent", help="another GTP engine's command line instead of "
                    "gtp-rhino (e.g. an older build of sungka-bench-gtp, for an A/B run)")
    args = ap.parse_args()

    print(f"load average before: {loadavg()}", flush=True)
    log = tempfile.TemporaryFile(mode="w+")
    ours = Engine("ours", [args.ours, "--level", str(args.level), "--ms", str(args.ms)], stderr=log)
    theirs = Engine("grhino", shlex.split(args.opponent) if args.opponent
                    else [args.grhino, f"--level={args.grhino_level}"])
    won = lost = drawn = 0
    ours_total = theirs_total = 0
    try:
        for g in range(args.games):
            ours_black = g % 2 == 0
            black, white, moves, times = play_game(ours, theirs, ours_black)
            mine, its = (black, white) if ours_black else (white, black)
            ours_total += mine
            theirs_total += its
            verdict = "win" if mine > its else "loss" if mine < its else "draw"
            won += verdict == "win"
            lost += verdict == "loss"
            drawn += verdict == "draw"
            t_ours = sum(times["ours"]) / max(1, len(times["ours"]))
            t_its = sum(times["grhino"]) / max(1, len(times["grhino"]))
            print(f"game {g + 1:2d}: ours {'black' if ours_black else 'white'}  "
                  f"ours {mine:2d} - grhino {its:2d}  {verdict:4s}  "
                  f"({len(moves)} discs placed; a move: ours {t_ours * 1000:.0f} ms, "
                  f"grhino {t_its * 1000:.0f} ms; load {loadavg()})\n"
                  f"         {' '.join(moves)}", flush=True)
    finally:
        ours.close()
        theirs.close()
    log.seek(0)
    depths = [int(m.group(1)) for m in re.finditer(r"# depth (\d+)", log.read())]
    print(f"ours (level {args.level}, {args.ms} ms a move) against grhino level "
          f"{args.grhino_level}: {won} won, {lost} lost, {drawn} drawn; discs {ours_total} - "
          f"{theirs_total}; ours searched {len(depths)} moves, median depth "
          f"{sorted(depths)[len(depths) // 2] if depths else 0}")
    print(f"load average after: {loadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
