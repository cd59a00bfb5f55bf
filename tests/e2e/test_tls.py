#!/usr/bin/python3
"""test_tls.py — TLS people actually use: `sungka-board --tls-self-signed`
makes and keeps its certificate; `sungka-player --tls` trusts it on first
use (shows the fingerprint, remembers it per server in a private file) and
refuses, as ssh does, when it changes.

Real sungka-board and sungka-player processes on loopback, each test with a
private XDG directory (harness.Env). Usage: test_tls.py BINDIR TEST.
(The CA-signed certificates of --tls-ca are test_security.py's `tls`.)
"""
import os
import re
import socket
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402
from harness import Autoplayer, Env, check, main  # noqa: E402

FINGERPRINT = r"SHA256:(?:[0-9A-F]{2}:){31}[0-9A-F]{2}"


def _self_signed_board(env, db, port=0):
    """A service with --tls-self-signed keeping its files beside `db`; its
    fingerprint as logged, and whether it made the certificate now."""
    board = env.board("--tls-self-signed", "--db", db, port=port)
    check("(TLS)" in board.lines[0], "the service must say it serves TLS\n" + board.dump())
    board.expect_stderr(r"TLS certificate " + FINGERPRINT, timeout=15)
    line = next(l for l in board.err_lines if "TLS certificate" in l)
    board.fingerprint = re.search(FINGERPRINT, line).group(0)
    board.made = "made now" in line
    return board


def _openssl_fingerprint(path):
    out = subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", path],
                         check=True, capture_output=True, text=True, timeout=30).stdout
    return "SHA256:" + out.strip().split("=", 1)[1]


def _known_servers(env):
    return os.path.join(env.state_dir, "config", "sungka", "known-servers")


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def self_signed_kept(bindir):
    """The service makes a key and certificate on its first start, private
    files beside its database, logs the fingerprint openssl also computes,
    and reuses them on the next start: the same fingerprint."""
    with Env(bindir, sqlite_only="the certificate is kept beside the database file") as env:
        home = os.path.join(env.state_dir, "service")
        db = os.path.join(home, "sungka.db")
        board = _self_signed_board(env, db)
        check(board.made, "the first start must make the certificate\n" + board.dump())
        cert, key = os.path.join(home, "tls-cert.pem"), os.path.join(home, "tls-key.pem")
        for f in (cert, key):
            check(_mode(f) == 0o600, f"{f} must be 0600, not {oct(_mode(f))}")
        check(_openssl_fingerprint(cert) == board.fingerprint,
              f"logged {board.fingerprint}, openssl says {_openssl_fingerprint(cert)}")
        text = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in",
                               cert], check=True, capture_output=True, text=True,
                              timeout=30).stdout
        for name in ("DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1"):
            check(name in text, f"the certificate must name {name}: {text}")
        port = board.port
        board.stop()
        again = _self_signed_board(env, db, port=port)
        check(not again.made, "the second start must keep the certificate\n" + again.dump())
        check(again.fingerprint == board.fingerprint,
              f"a restart changed the certificate: {board.fingerprint} -> {again.fingerprint}")


def trust_on_first_use(bindir):
    """Players connect with --tls to localhost and to 127.0.0.1: each is
    told the fingerprint the service logged, each server is remembered in a
    private file, and they play. Remembered, the server is spoken to in
    TLS without --tls too, and without another first-use notice; but the
    agent's own service (--serve) on that address is checked against its
    own certificate, not the one remembered there."""
    with Env(bindir) as env:
        board = _self_signed_board(env, os.path.join(env.state_dir, "svc", "sungka.db"))
        alice = env.player("alice", "--server", f"localhost:{board.port}", "--tls",
                           "--new", "kalah")
        game = alice.expect(r"Created game (\d+)").group(1)
        m = alice.expect(r"^Notice: first TLS connection to localhost:\d+: its certificate, "
                         r"fingerprint (" + FINGERPRINT + ")")
        check(m.group(1) == board.fingerprint,
              f"alice was shown {m.group(1)}, the service logged {board.fingerprint}")
        bob = env.player("bob", "--server", board.address, "--tls", "--game", game)
        m = bob.expect(r"^Notice: first TLS connection to 127\.0\.0\.1:\d+: its certificate, "
                       r"fingerprint (" + FINGERPRINT + ")")
        check(m.group(1) == board.fingerprint, bob.dump())
        bob.expect(r"^You are bob, seat 1\.")
        alice.expect(r"^Your turn")
        alice.send("1")
        bob.expect(r"^alice played cup 1\.")

        path = _known_servers(env)
        check(_mode(path) == 0o600, f"{path} must be 0600, not {oct(_mode(path))}")
        with open(path) as f:
            lines = [l.split() for l in f if l.strip() and not l.startswith("#")]
        want = {f"localhost:{board.port}", f"127.0.0.1:{board.port}"}
        check({l[0] for l in lines} == want, f"remembered {[l[0] for l in lines]}")
        check(all(l[1] == board.fingerprint for l in lines), f"fingerprints: {lines}")

        # Remembered: no --tls needed, no second notice; it watches in TLS
        # (the service speaks nothing else).
        carol = env.player("carol", "--server", f"localhost:{board.port}", "--game", game,
                           "--observe")
        carol.expect(r"^You are observing\.")
        check(not any("first TLS connection" in l for l in carol.lines), carol.dump())
        check(not any("plaintext" in l for l in carol.err_lines),
              "a remembered TLS service must not be warned about as plaintext\n" + carol.dump())
        for p in (alice, bob, carol):
            p.quit()

        # The agent's own service on that very address is ours: it pins the
        # certificate that service serves (its own, in another directory than
        # the one remembered there), which is not asked for.
        port = board.port
        board.stop()
        dan = env.player("dan", "--serve", f"127.0.0.1:{port}", "--new", "kalah")
        dan.expect(r"^You are dan, seat 0\.")
        dan.quit()


def changed_certificate(bindir):
    """The service makes a new certificate (its files deleted): an agent
    that trusted the old one refuses, with or without --tls, in ssh's words
    naming the file and line to delete, and never joins; a service now in
    plaintext on a remembered address is refused too. Once the line is
    deleted, the new certificate is trusted on first use."""
    with Env(bindir, sqlite_only="the certificate is kept beside the database file") as env:
        home = os.path.join(env.state_dir, "svc")
        board = _self_signed_board(env, os.path.join(home, "sungka.db"))
        server = f"localhost:{board.port}"
        alice = env.player("alice", "--server", server, "--tls", "--new", "kalah")
        alice.expect(r"^You are alice, seat 0\.")
        alice.quit()
        port, old = board.port, board.fingerprint
        board.stop()
        for f in ("tls-cert.pem", "tls-key.pem"):
            os.unlink(os.path.join(home, f))
        board = _self_signed_board(env, os.path.join(home, "sungka.db"), port=port)
        check(board.made and board.fingerprint != old, "a new certificate was expected")

        path = _known_servers(env)
        for extra in (["--tls"], []):
            eve = env.player("alice", "--server", server, *extra, "--new", "kalah")
            check(eve.wait_exit() != 0, "a changed certificate must be refused\n" + eve.dump())
            said = " ".join(eve.err_lines)
            for words in ("HAS CHANGED", board.fingerprint, "man-in-the-middle",
                          "Not connecting", f"delete line 4 of {path}"):
                check(words in said, f"the refusal must say '{words}'\n" + eve.dump())
        check(not any("joined" in l for l in board.err_lines),
              "a refused agent must not reach the service\n" + board.dump())

        # Deleting the line accepts the new certificate, on first use again.
        with open(path) as f:
            kept = [l for l in f if not l.startswith(server + " ")]
        with open(path, "w") as f:
            f.writelines(kept)
        alice = env.player("alice", "--server", server, "--tls", "--new", "kalah")
        m = alice.expect(r"^Notice: first TLS connection .*fingerprint (" + FINGERPRINT + ")")
        check(m.group(1) == board.fingerprint, alice.dump())
        alice.expect(r"^You are alice, seat 0\.")
        alice.quit()

        # The same address, now in plaintext: not spoken to in plaintext.
        board.stop()
        plain = env.board("--db", ":memory:", port=port)
        bob = env.player("bob", "--server", server, "--new", "kalah")
        check(bob.wait_exit() != 0, "a remembered TLS service must not be used in plaintext")
        check(any("remembered as a TLS service" in l and "delete that line" in l
                  for l in bob.err_lines), bob.dump())
        check(not any("joined" in l for l in plain.err_lines), plain.dump())


def service_bots(bindir):
    """The service's own bots play on a TLS service (--tls-self-signed):
    they trust its certificate. (They connected in plaintext, were refused,
    and the game waited for them for good.)"""
    with Env(bindir) as env:
        board = _self_signed_board(env, os.path.join(env.state_dir, "b.db"))
        me = env.player("me", "--server", board.address, "--tls", "--new", "kalah", "--bots",
                        "1", "--bot-level", "1")
        me.expect(r"^The game starts", timeout=30)
        Autoplayer(env, [me], seed=2).play_moves(3)
        check(any(re.match(r"bot-1 played cup \d+\.", l) for l in me.lines),
              "the bot never played\n" + me.dump())
        me.quit()


def _free_port():
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return sk.getsockname()[1]


def serve_tls(bindir):
    """The README's way to play a friend: `sungka-player --serve` serves TLS
    with the service's own certificate (--tls-self-signed, also its default)
    and shows the fingerprint, which openssl computes from the kept file; the
    friend joins with --tls as it says, is shown the same fingerprint on
    first use, and both play a move. Plaintext clients are refused by that
    listener: an agent without --tls (told to give it) and a stock gRPC
    client. (--serve served plaintext only: the friend's --tls found no TLS
    there, and sungka-player refused --tls-self-signed.)"""
    with Env(bindir) as env:
        address = f"127.0.0.1:{_free_port()}"
        host = env.player("alice", "--serve", address, "--tls-self-signed", "--new", "kalah")
        host.expect(r"^Hosting a board service on " + re.escape(address) + r" in TLS\.")
        shown = host.expect(r"^  (" + FINGERPRINT + r")$").group(1)
        cert = os.path.join(env.env["XDG_DATA_HOME"], "sungka", "tls-cert.pem")
        check(_openssl_fingerprint(cert) == shown,
              f"shown {shown}, openssl says {_openssl_fingerprint(cert)}\n" + host.dump())
        game = host.expect(r"^Created game (\d+)\.").group(1)
        join = host.expect(r"^  sungka-player --server THIS-HOST:(\d+) (.*)$")
        check(address.endswith(":" + join.group(1)) and "--tls" in join.group(2).split(),
              "the join line must name the port and --tls\n" + host.dump())
        host.expect(r"^You are alice, seat 0\.")

        bob = env.player("bob", "--server", address, "--tls", "--game", game)
        m = bob.expect(r"^Notice: first TLS connection to " + re.escape(address) +
                       r": its certificate, fingerprint (" + FINGERPRINT + ")")
        check(m.group(1) == shown, f"bob was shown {m.group(1)}, the host {shown}")
        bob.expect(r"^You are bob, seat 1\.")
        players = Autoplayer(env, [host, bob], seed=3)
        for _ in range(8):
            players.play_moves(1)
            played = {m.group(1) for m in (re.match(r"^(alice|bob) played cup \d+\.", l)
                                           for l in bob.lines) if m}
            if played == {"alice", "bob"}:
                break
        check(played == {"alice", "bob"}, "both must have played\n" + env.dump_all())

        # Remembered, the address is spoken to in TLS without --tls: carol
        # remembers nothing.
        carol = env.player("carol", "--server", address, "--game", game, "--observe",
                           "--known-servers", "")
        check(carol.wait_exit() != 0, "a plaintext agent was let in\n" + carol.dump())
        check(any("give --tls" in l for l in carol.err_lines),
              "the plaintext agent must be told to give --tls\n" + carol.dump())
        client = wire.Client(address)
        code, text = client.raw("/sungka.v1.Register/ListGames", b"")
        client.close()
        check(code == "UNAVAILABLE", f"a plaintext gRPC call got {code} {text}")
        check(not any("plaintext" in l for l in host.err_lines),
              "the host must not warn of plaintext\n" + host.dump())
        for p in (host, bob):
            p.quit()

        alone = subprocess.run([os.path.join(bindir, "sungka-player"), "--tls-self-signed",
                                "--name", "dan"], capture_output=True, text=True, timeout=30,
                               env=env.env)
        check(alone.returncode == 2 and "--tls-self-signed goes with --serve" in alone.stderr,
              f"--tls-self-signed without --serve: {alone.returncode} {alone.stderr}")


TESTS = {f.__name__: f for f in (self_signed_kept, trust_on_first_use, changed_certificate,
                                  service_bots, serve_tls)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
