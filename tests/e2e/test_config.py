#!/usr/bin/python3
"""test_config.py — sungka-board's configuration file (--config), its reload
on SIGHUP, and systemd's readiness protocol (sd_notify); sungka-relay's file.

The limit the tests watch is --max-client-observers: observer seats one
client address may hold, refused with RESOURCE_EXHAUSTED beyond it, counted
exactly (no clock involved). Clients are stock Python gRPC (wire.py).
Usage: test_config.py BINDIR TEST
"""
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Proc, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _raw_game, notify_cycle  # noqa: E402

REGISTER = "/sungka.v1.Register/"
BOARD = "/sungka.v1.Board/"


def _write(env, name, text):
    path = os.path.join(env.state_dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _observers_allowed(board, most=10):
    """How many observer seats one address gets: joins a new game as
    observers until one is refused (which must be for the observer limit),
    then leaves, so the next count starts from none."""
    client = wire.Client(board.address)
    tokens = []
    try:
        game_id, _ = _raw_game(client)
        for n in range(most):
            code, ref = client.raw(REGISTER + "JoinGame",
                                   wire.message((1, game_id), (2, f"w{n}"), (3, True)))
            if code != "OK":
                check(code == "RESOURCE_EXHAUSTED" and "observer seats" in ref,
                      f"observer {n + 1} refused for another reason: {code} {ref}")
                break
            tokens.append(wire.get(ref, 3).decode())
        for t in tokens:
            code, text = client.raw(BOARD + "Leave", b"", token=t)
            check(code == "OK", f"Leave: {code} {text}")
        return len(tokens)
    finally:
        client.close()


def _run(env, bindir, *args, timeout=15):
    """sungka-board expected to exit by itself: the Proc, with .rc."""
    p = Proc("board", [os.path.join(bindir, "sungka-board"), *args], stdin=False,
             env=env.env)
    env.procs.append(p)
    p.rc = p.wait_exit(timeout)
    p.stop()
    return p


def file_and_flags(bindir):
    """A limit from --config FILE is in force; the same option on the
    command line overrides it."""
    with Env(bindir) as env:
        conf = _write(env, "board.conf", "# limits\n[board]\nmax-client-observers = 2\n"
                                         "rated-same-address = true\n")
        board = env.board("--config", conf)
        check(_observers_allowed(board) == 2, "the file's max-client-observers = 2 is not "
              "in force\n" + board.dump())
        board.stop()
        board = env.board("--config", conf, "--max-client-observers", "3")
        check(_observers_allowed(board) == 3, "--max-client-observers 3 did not override "
              "the file's 2\n" + board.dump())


def bad_file(bindir):
    """A file with an error is refused before anything starts: status 2 and
    one sentence naming the file, the line and the key."""
    with Env(bindir) as env:
        cases = [
            ("[board]\nmax-client-observers = 2\n\nmax-client-obsrevers = 3\n",
             r"{}:4: unknown key 'max-client-obsrevers'"),
            ("[board]\nmax-client-observers = many\n",
             r"{}:2: max-client-observers must be a whole number 1\.\.\d+, not 'many'"),
            ("[board]\nrequire-accounts = perhaps\n",
             r"{}:2: 'require-accounts' is true or false, not 'perhaps'"),
            ("max-games = 5\n", r"{}:1: 'max-games' is outside a section; put it under "
                                r"\[board\]"),
            ("[board]\nlisten\n", r"{}:2: not a \"key = value\" line"),
            ("[board]\nhelp = true\n", r"{}:2: 'help' is something to do"),
        ]
        for i, (text, want) in enumerate(cases):
            conf = _write(env, f"bad{i}.conf", text)
            p = _run(env, bindir, "--config", conf, "--listen", "127.0.0.1:0", "--db", "")
            check(p.rc == 2, f"{text!r}: status {p.rc}, not 2\n" + p.dump())
            check(not any("listening" in l for l in p.lines), f"{text!r}: it started")
            rx = "^sungka-board: " + want.format(re.escape(conf))
            check(len(p.err_lines) == 1 and re.search(rx, p.err_lines[0]),
                  f"{text!r}: wanted one line /{rx}/\n" + p.dump())
        missing = os.path.join(env.state_dir, "none.conf")
        p = _run(env, bindir, "--config", missing, "--db", "")
        check(p.rc == 2 and p.err_lines == [f"sungka-board: cannot read {missing}: No such "
                                            f"file or directory"], p.dump())


def sighup_reload(bindir):
    """SIGHUP re-reads the file: a new limit is in force at once and the log
    says what changed and what needs a restart; a file with an error is
    refused and the old settings stay. The service stays up throughout
    (SIGHUP used to end it)."""
    with Env(bindir) as env:
        conf = _write(env, "board.conf", "[board]\nmax-client-observers = 2\n")
        board = env.board("--config", conf)
        check(_observers_allowed(board) == 2, "the file's limit is not in force")

        _write(env, "board.conf", "[board]\nmax-client-observers = 4\nping-interval = 3\n")
        board.p.send_signal(signal.SIGHUP)
        board.expect_stderr(r"sungka-board: reloaded .*board\.conf: max-client-observers 2 "
                            r"-> 4; changed, but they need a restart: ping-interval")
        check(board.p.poll() is None, "SIGHUP ended the service\n" + board.dump())
        check(_observers_allowed(board) == 4, "the reloaded max-client-observers = 4 is not "
              "in force\n" + board.dump())

        _write(env, "board.conf", "[board]\nmax-client-observers = 1\nno-such-key = 1\n")
        board.p.send_signal(signal.SIGHUP)
        board.expect_stderr(r"sungka-board: reload refused, the settings stay as they were: "
                            r".*board\.conf:3: unknown key 'no-such-key'")
        check(_observers_allowed(board) == 4, "a refused file changed the limit\n" +
              board.dump())
        check(board.p.poll() is None, "the service ended\n" + board.dump())


def example_file(bindir):
    """packaging/board.conf.example names every option of --help but the
    things to do, each with a value the service accepts: uncommented, the
    file starts a service."""
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "packaging", "board.conf.example")
    actions = {"help", "version", "check", "cluster-status", "rating-report", "reports", "config"}
    with Env(bindir) as env:
        h = _run(env, bindir, "--help")
        options = set(re.findall(r"^ {2,6}(?:-\w, )?--([a-z0-9-]+)", "\n".join(h.lines),
                                 re.M)) - actions
        with open(example) as f:
            text = f.read()
        keys = set(re.findall(r"^#([a-z0-9-]+) =", text, re.M))
        check(options <= keys, f"board.conf.example lacks {sorted(options - keys)}")
        check(keys <= options, f"board.conf.example has keys --help lacks: "
                               f"{sorted(keys - options)}")
        # Every key with a default value, uncommented (those without one name
        # files or addresses of the site; the test's own listen and db win).
        live = re.sub(r"^#([a-z0-9-]+ = \S)", r"\1", text, flags=re.M)
        conf = _write(env, "example.conf", live)
        board = env.board("--config", conf)
        check(board.p.poll() is None, "the example's defaults did not start a service\n" +
              board.dump())


def _pair(env, name):
    """A new self-signed certificate and its key (openssl), as PEM files."""
    cert = os.path.join(env.state_dir, name + ".crt")
    key = os.path.join(env.state_dir, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-subj", f"/CN={name}", "-days", "2",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=30)
    return cert, key


def _served_cert(board):
    """The certificate the service presents to a new TLS connection (DER)."""
    pem = ssl.get_server_certificate(("127.0.0.1", board.port), timeout=10)
    return ssl.PEM_cert_to_DER_cert(pem)


def _der(path):
    with open(path) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


def tls_reload(bindir):
    """SIGHUP reads --tls-cert and --tls-key again (a renewed certificate
    under the same names) and new connections get the new one, without a
    restart; a pair that does not belong together is refused and the old
    certificate is still served."""
    with Env(bindir) as env:
        one, two = _pair(env, "one"), _pair(env, "two")
        cert = os.path.join(env.state_dir, "served.crt")
        key = os.path.join(env.state_dir, "served.key")
        shutil.copy(one[0], cert)
        shutil.copy(one[1], key)
        conf = _write(env, "board.conf", f"[board]\ntls-cert = {cert}\ntls-key = {key}\n")
        board = env.board("--config", conf)
        check(_served_cert(board) == _der(one[0]), "the service does not serve its certificate")

        shutil.copy(two[0], cert)
        shutil.copy(two[1], key)
        board.p.send_signal(signal.SIGHUP)
        board.expect_stderr(r"reloaded .*: TLS certificate .*served\.crt reloaded")
        check(_served_cert(board) == _der(two[0]), "after the reload a new connection still "
              "gets the old certificate\n" + board.dump())

        shutil.copy(one[0], cert)              # one's certificate, two's key: no pair
        board.p.send_signal(signal.SIGHUP)
        board.expect_stderr(r"the TLS certificate is not reloaded, the old one is served: "
                            r".*do not belong together")
        check(_served_cert(board) == _der(two[0]), "a refused pair changed the certificate")
        check(board.p.poll() is None, "the service ended\n" + board.dump())


def relay_file(bindir):
    """sungka-relay reads its [relay] section the same way: a file that names
    the upstream starts one; a mistake is refused with file:line."""
    with Env(bindir) as env:
        board = env.board()
        conf = _write(env, "relay.conf", f"[relay]\nupstream = {board.address}\n")
        relay = Proc("relay", [os.path.join(bindir, "sungka-relay"), "--listen", "127.0.0.1:0",
                               "--config", conf], stdin=False, env=env.env)
        env.procs.append(relay)
        relay.expect(r"sungka-relay listening on 127\.0\.0\.1:\d+", timeout=15)
        bad = _write(env, "bad.conf", f"[relay]\nupstream = {board.address}\n"
                                      "max-games = 0\n")
        p = Proc("relay", [os.path.join(bindir, "sungka-relay"), "--config", bad],
                 stdin=False, env=env.env)
        env.procs.append(p)
        rc = p.wait_exit()
        p.stop()
        want = f"sungka-relay: {bad}:3: max-games must be a whole number 1..1000000, not '0'"
        check(rc == 2 and p.err_lines == [want], f"wanted status 2 and\n  {want}\n" + p.dump())


def sd_notify(bindir):
    """Under systemd (Type=notify) the service says READY=1 once it listens,
    RELOADING=1 and READY=1 around a reload, and STOPPING=1 at SIGTERM, on
    the datagram socket $NOTIFY_SOCKET names."""
    with Env(bindir) as env:
        conf = _write(env, "board.conf", "[board]\nmax-games = 10\n")
        notify_cycle(env, lambda notify: env.board("--config", conf, env=notify))


if __name__ == "__main__":
    sys.exit(main({"file_and_flags": file_and_flags, "bad_file": bad_file,
                   "sighup_reload": sighup_reload, "example_file": example_file,
                   "relay_file": relay_file, "tls_reload": tls_reload,
                   "sd_notify": sd_notify}))
