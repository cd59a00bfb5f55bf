#!/usr/bin/python3
"""test_logs.py — the service's log as an operator reads it (docs/operating.md,
"Logs").

fail2ban: a client signs in wrong and runs into two limits from 127.0.0.1
besides playing; fail2ban-regex (Debian's fail2ban) reads the log the
service itself wrote with packaging/fail2ban/sungka-board.conf and must match
exactly the lines of those failures and refusals, each with the host
127.0.0.1, and none of the normal ones. It reads them twice: as the file a
service's stderr makes ("HH:MM:SS text") and as fail2ban's systemd backend
hands the journal's lines to a filter ("HOST sungka-board[PID]: text").

The relay's limit lines, the same.

limit_lines: a client refused over and over makes a few lines a minute, not
one per refusal.

journal: with JOURNAL_STREAM naming the very pipe its stderr goes to (as
systemd sets it for a unit), every line is "<N>text", N the line's priority
(3 error .. 7 debug), and carries no time of our own; with JOURNAL_STREAM
naming another file (a script redirected stderr), the lines keep their
"HH:MM:SS " and have no prefix. The same for sungka-relay.
Usage: test_logs.py BINDIR TEST   (ctest runs one process per test)
"""
import ast
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SANITIZER, WRAPPER, Env, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _raw_game  # noqa: E402

FILTER = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                       "packaging", "fail2ban", "sungka-board.conf"))
STAMP = re.compile(r"^\d\d:\d\d:\d\d ")
# The lines the filter is for, as the service writes them to a file.
BANNABLE = re.compile(r"^\d\d:\d\d:\d\d client 127\.0\.0\.1: "
                      r"(sign-in failed for \"|limit reached: )")


def _account(client, method, name, password):
    """CreateAccount or SignIn: (code name, details)."""
    return client.raw(f"/sungka.v1.Accounts/{method}",
                      wire.message((1, name), (2, password)))


def _misbehave(client):
    """What the test does from 127.0.0.1 (with --client-registrations 1 and
    --signin-failures 3): plays a little, then two accounts (the second is
    over the limit), three wrong passwords for alice and one for a name
    nobody has, then alice once more (over her name's limit). Returns how
    many failed sign-ins and limit refusals it met, from the answers, and
    the game's id."""
    game_id, _ = _raw_game(client)
    code, _ = _account(client, "CreateAccount", "alice", "correct horse battery")
    check(code == "OK", f"CreateAccount alice: {code}")
    failures = limits = 0
    code, why = _account(client, "CreateAccount", "bob", "correct horse battery")
    check(code == "RESOURCE_EXHAUSTED", f"a second account from one address: {code} {why}")
    limits += 1
    for name in ("alice", "alice", "alice", "nobody"):
        code, why = _account(client, "SignIn", name, "wrong wrong wrong")
        check(code == "UNAUTHENTICATED", f"a wrong password for {name}: {code} {why}")
        failures += 1
    code, why = _account(client, "SignIn", "alice", "correct horse battery")
    check(code == "RESOURCE_EXHAUSTED", f"alice after 3 failures: {code} {why}")
    limits += 1
    return failures, limits, game_id


def _regex(log_path, env):
    """fail2ban-regex over log_path with our filter: the lines it matched,
    and the hosts it took from them."""
    exe = shutil.which("fail2ban-regex")
    check(exe, "fail2ban-regex is missing: install fail2ban "
               "(packaging/debian-packages.txt, section test)")
    out = {}
    for token in ("matches", "ip"):
        r = subprocess.run([exe, "-o", token, log_path, FILTER], capture_output=True,
                           text=True, timeout=60, env=env)
        check(r.returncode == 0, f"fail2ban-regex -o {token}: status {r.returncode}\n"
                                 f"{r.stdout}\n{r.stderr}")
        out[token] = [l for l in r.stdout.splitlines() if l.strip()]
    matched = ["".join(part for part in ast.literal_eval(l)[0]) for l in out["matches"]]
    return matched, out["ip"]


def fail2ban(bindir):
    """The filter matches exactly the failed sign-ins and the limits hit, with
    the host that caused them, and nothing a normal client causes."""
    with Env(bindir) as env:
        board = env.board("--client-registrations", "1", "--signin-failures", "3")
        failures, limits, game_id = _misbehave(wire.Client(board.address))
        board.expect_stderr(r"sign-in failed", count=failures)
        board.expect_stderr(r"limit reached", count=limits)
        board.expect_stderr(r"joined as a player", count=2)
        lines = list(board.err_lines)
        want = [l for l in lines if BANNABLE.search(l)]
        check(len([l for l in want if "sign-in failed" in l]) == failures and
              len([l for l in want if "limit reached" in l]) == limits,
              f"wanted {failures} failed sign-ins and {limits} limits in the log\n" +
              board.dump())
        normal = [l for l in lines if l not in want]
        check(any(re.search(r"client 127\.0\.0\.1: game \w+ created", l) for l in normal) and
              any(re.search(r"client 127\.0\.0\.1: game \w+: alice joined", l) for l in normal),
              "the normal lines do not name their client\n" + board.dump())

        tmp = tempfile.mkdtemp(prefix="sungka-logs-")
        try:
            as_file = os.path.join(tmp, "board.log")
            with open(as_file, "w") as f:
                f.write("\n".join(lines) + "\n")
            matched, hosts = _regex(as_file, env.env)
            check(matched == want, "fail2ban-regex matched\n  " + "\n  ".join(matched) +
                  "\nbut the lines of failures and limits are\n  " + "\n  ".join(want))
            check(hosts == ["127.0.0.1"] * len(want), f"the hosts it found: {hosts}")

            # The journal's form, as fail2ban's systemd backend makes a line of
            # an entry: "HOSTNAME IDENT[PID]: MESSAGE" (its date apart; here
            # the time stays first, which the filter's datepattern reads).
            as_journal = os.path.join(tmp, "journal.log")
            with open(as_journal, "w") as f:
                for l in lines:
                    f.write(f"{l[:8]} testhost sungka-board[{board.p.pid}]: {l[9:]}\n")
            matched_j, hosts_j = _regex(as_journal, env.env)
            check([m[:8] + " " + m.split("]: ", 1)[1] for m in matched_j] == want,
                  "in the journal's form fail2ban-regex matched\n  " + "\n  ".join(matched_j))
            check(hosts_j == ["127.0.0.1"] * len(want), f"the hosts it found: {hosts_j}")

            # sungka-relay's limits, in the same form: the second observer seat
            # from one address over --max-client-observers 1.
            relay = env.relay(board.address, "--max-client-observers", "1")
            watcher = wire.Client(relay.address)
            for i, want_code in enumerate(("OK", "RESOURCE_EXHAUSTED")):
                code, why = watcher.raw("/sungka.v1.Register/JoinGame",
                                        wire.message((1, game_id), (2, f"eve{i}"), (3, True)))
                check(code == want_code, f"observer {i} at the relay: {code} {why}")
            relay.expect_stderr(r"limit reached")
            relay.expect_stderr(r"relaying it")
            relay_lines = list(relay.err_lines)
            want = [l for l in relay_lines if BANNABLE.search(l)]
            check(len(want) == 1, "wanted one limit line from the relay\n" + relay.dump())
            relay_log = os.path.join(tmp, "relay.log")
            with open(relay_log, "w") as f:
                f.write("\n".join(relay_lines) + "\n")
            matched, hosts = _regex(relay_log, env.env)
            check(matched == want and hosts == ["127.0.0.1"],
                  f"fail2ban-regex over the relay's log matched {matched}, hosts {hosts}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def limit_lines(bindir):
    """A flood of refusals is no flood of lines: 30 accounts refused over
    --client-registrations make 11 "limit reached" lines, the last saying
    that more are not logged; every one is refused all the same."""
    with Env(bindir) as env:
        board = env.board("--client-registrations", "1")
        client = wire.Client(board.address)
        code, _ = _account(client, "CreateAccount", "zed", "correct horse battery")
        check(code == "OK", f"CreateAccount zed: {code}")
        for i in range(30):
            code, why = _account(client, "CreateAccount", f"flood{i}", "correct horse battery")
            check(code == "RESOURCE_EXHAUSTED", f"account {i} over the limit: {code} {why}")
        # A line written after every refusal's: the pipe has them all when it is read.
        _raw_game(client)
        board.expect_stderr(r"game \w+ created")
        lines = [l for l in board.err_lines if "limit reached" in l]
        check(len(lines) == 11 and all("127.0.0.1" in l for l in lines) and
              lines[-1].endswith("(more of this address's refusals are not logged for a "
                                 "minute)") and
              not any("not logged" in l for l in lines[:-1]),
              "wanted 11 lines, the last saying the rest are not logged:\n  " +
              "\n  ".join(lines))


def _into_pipe(env, argv, journal_stream, act):
    """A server (argv) whose stderr is a pipe of this test's, with
    JOURNAL_STREAM set by journal_stream(fstat of the pipe); act(address)
    once it listens, then SIGTERM. Returns its stderr lines."""
    rfd, wfd = os.pipe()
    st = os.fstat(wfd)
    child_env = dict(env.env, JOURNAL_STREAM=journal_stream(st))
    p = subprocess.Popen(WRAPPER + argv, env=child_env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=wfd, text=True)
    os.close(wfd)
    try:
        port = None
        deadline = time.monotonic() + 15
        while port is None and time.monotonic() < deadline:
            line = p.stdout.readline()
            check(line, f"{argv[0]} ended before it listened")
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            port = m and int(m.group(1))
        check(port, f"{argv[0]} did not say where it listens")
        act(f"127.0.0.1:{port}")
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
    with os.fdopen(rfd) as r:
        lines = r.read().splitlines()
    bad = [l for l in lines if SANITIZER.search(l)]
    check(not bad, "sanitizer report:\n" + "\n".join(lines))
    return lines


def _board_into_pipe(env, bindir, journal_stream):
    """A sungka-board into a pipe (_into_pipe) that makes a game and a wrong
    sign-in."""
    def act(address):
        client = wire.Client(address)
        _raw_game(client)
        code, _ = _account(client, "SignIn", "nobody", "wrong wrong wrong")
        check(code == "UNAUTHENTICATED", f"a wrong sign-in: {code}")
    argv = [os.path.join(bindir, "sungka-board"), "--listen", "127.0.0.1:0",
            *env.board_args()]
    return _into_pipe(env, argv, journal_stream, act)


def _relay_into_pipe(env, bindir, board, game_id, journal_stream):
    """A sungka-relay into a pipe (_into_pipe), above board, whose game_id an
    observer joins through it."""
    def act(address):
        code, ref = wire.Client(address).raw("/sungka.v1.Register/JoinGame",
                                             wire.message((1, game_id), (2, "carol"), (3, True)))
        check(code == "OK", f"JoinGame through the relay: {code} {ref}")
    argv = [os.path.join(bindir, "sungka-relay"), "--listen", "127.0.0.1:0",
            "--upstream", board.address]
    return _into_pipe(env, argv, journal_stream, act)


def _refused_start(env, bindir, address, journal_stream):
    """A sungka-board on an address in use, its stderr a pipe as in
    _into_pipe: its status and its stderr lines."""
    rfd, wfd = os.pipe()
    st = os.fstat(wfd)
    argv = WRAPPER + [os.path.join(bindir, "sungka-board"), "--listen", address,
                      "--db", ":memory:"]
    p = subprocess.Popen(argv, env=dict(env.env, JOURNAL_STREAM=journal_stream(st)),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=wfd)
    os.close(wfd)
    try:
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    with os.fdopen(rfd) as r:
        return rc, r.read().splitlines()


def journal(bindir):
    """"<N>" and no time stamp when stderr is the journal's stream; a time
    stamp and no "<N>" when JOURNAL_STREAM names something else."""
    with Env(bindir) as env:
        lines = _board_into_pipe(env, bindir, lambda st: f"{st.st_dev}:{st.st_ino}")
        shown = "\n  ".join(lines)
        check(lines and all(re.match(r"<[3-7]>\S", l) for l in lines),
              f"lines without a priority, or with a space after it:\n  {shown}")
        check(not any(STAMP.search(l[3:]) for l in lines),
              f"a time stamp of ours besides the journal's:\n  {shown}")
        for want in (r"^<6>client 127\.0\.0\.1: game \w+ created: sungka$",
                     r"^<6>client 127\.0\.0\.1: game \w+: alice joined as a player$",
                     r"^<5>client 127\.0\.0\.1: sign-in failed for \"nobody\": ",
                     r"^<6>shutting down$"):
            check(any(re.search(want, l) for l in lines), f"no line /{want}/ in\n  {shown}")

        # Another file's device and inode: stderr is not the journal's.
        other = os.stat(env.state_dir)
        lines = _board_into_pipe(env, bindir, lambda st: f"{other.st_dev}:{other.st_ino}")
        shown = "\n  ".join(lines)
        check(lines and all(STAMP.match(l) for l in lines),
              f"lines without their time stamp:\n  {shown}")
        check(not any(re.match(r"<\d>", l) for l in lines), f"a priority prefix:\n  {shown}")

        # A service that cannot start says why as an error, still without a time.
        board = env.board()
        want = (f"sungka-board: cannot listen on {board.address}: the address is in use "
                f"(is another sungka-board running?)")
        rc, lines = _refused_start(env, bindir, board.address,
                                   lambda st: f"{st.st_dev}:{st.st_ino}")
        check(rc == 1 and lines == ["<3>" + want], f"status {rc}, lines {lines}")
        rc, lines = _refused_start(env, bindir, board.address,
                                   lambda st: f"{other.st_dev}:{other.st_ino}")
        check(rc == 1 and lines == [want], f"status {rc}, lines {lines}")

        # sungka-relay, the same.
        game_id, _ = _raw_game(wire.Client(board.address))
        lines = _relay_into_pipe(env, bindir, board, game_id, lambda st: f"{st.st_dev}:{st.st_ino}")
        shown = "\n  ".join(lines)
        check(lines and all(re.match(r"<[3-7]>\S", l) for l in lines) and
              any(re.search(r"^<6>game \S+: relaying it$", l) for l in lines) and
              "<6>shutting down" in lines, f"the relay in the journal:\n  {shown}")
        lines = _relay_into_pipe(env, bindir, board, game_id, lambda st: f"{other.st_dev}:{other.st_ino}")
        shown = "\n  ".join(lines)
        check(lines and all(STAMP.match(l) for l in lines) and
              any(re.search(r"game \S+: relaying it$", l) for l in lines),
              f"the relay elsewhere:\n  {shown}")


if __name__ == "__main__":
    sys.exit(main({"fail2ban": fail2ban, "journal": journal, "limit_lines": limit_lines}))
