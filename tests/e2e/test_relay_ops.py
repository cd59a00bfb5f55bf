#!/usr/bin/python3
"""test_relay_ops.py — sungka-relay as an operator runs it in public: its
configuration file read again on SIGHUP (a changed limit taken at once, a
file with a mistake refused whole with the reason logged), systemd's
readiness protocol (Type=notify), observers served in TLS, and a board
service upstream reached in TLS, pinned to its own certificate (another
certificate refused). Clients are stock Python gRPC (wire.py).
Usage: test_relay_ops.py BINDIR TEST   (ctest runs one process per test)
"""
import hashlib
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
from e2e_util import _raw_game, notify_cycle  # noqa: E402
import wire  # noqa: E402

import grpc  # noqa: E402

REGISTER = "/sungka.v1.Register/"
BOARD = "/sungka.v1.Board/"
T = 15.0


def _write(env, name, text):
    path = os.path.join(env.state_dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _pair(env, name):
    """A new self-signed certificate for 127.0.0.1 and its key (openssl)."""
    check(shutil.which("openssl"), "openssl is not installed")
    cert = os.path.join(env.state_dir, name + ".crt")
    key = os.path.join(env.state_dir, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-subj", f"/CN={name}", "-days", "2",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=30)
    return cert, key


def _raw(channel, method, payload, token=None, timeout=T):
    """wire.Client.raw on any channel (a TLS one here)."""
    call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    md = [("authorization", f"Bearer {token}")] if token else None
    try:
        return "OK", call(payload, timeout=timeout, metadata=md)
    except grpc.RpcError as e:
        return e.code().name, e.details() or ""


def _observers_allowed(relay, game_id, most=10):
    """How many observer seats one address gets at the relay: joins game_id
    as observers until one is refused (for the observer limit), then leaves,
    so the next count starts from none."""
    client = wire.Client(relay.address)
    tokens = []
    try:
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
            check(code == "OK", f"Leave at the relay: {code} {text}")
        return len(tokens)
    finally:
        client.close()


def sighup_reload(bindir):
    """SIGHUP reads the relay's file again: a lower --max-client-observers
    holds from then on, and the log names the change and what needs a
    restart; a file with a mistake is refused whole, with file:line in the
    log, and the limit stays as it was. The relay serves on throughout."""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        game_id, _ = _raw_game(client)
        client.close()
        conf = _write(env, "relay.conf", "[relay]\nmax-client-observers = 3\n")
        relay = env.relay(board.address, "--config", conf)
        check(_observers_allowed(relay, game_id) == 3, "the file's limit (3) does not hold")

        _write(env, "relay.conf", "[relay]\nmax-client-observers = 1\nmax-games = 5\n"
                                  "max-streams = 10\n")
        relay.p.send_signal(signal.SIGHUP)
        relay.expect_stderr(r"sungka-relay: reloaded .*relay\.conf: max-games 1000 -> 5, "
                            r"max-client-observers 3 -> 1; changed, but they need a restart: "
                            r"max-streams")
        check(_observers_allowed(relay, game_id) == 1,
              "after the reload the new limit (1) does not hold\n" + relay.dump())

        bad = _write(env, "relay.conf", "[relay]\nmax-client-observers = 4\nmax-games = 0\n")
        relay.p.send_signal(signal.SIGHUP)
        relay.expect_stderr(r"sungka-relay: reload refused, the settings stay as they were: " +
                            bad.replace(".", r"\.") + r":3: max-games must be a whole number")
        check(_observers_allowed(relay, game_id) == 1,
              "a refused file changed the limit\n" + relay.dump())
        check(relay.p.poll() is None, "the relay ended\n" + relay.dump())


def sd_notify(bindir):
    """Under systemd (Type=notify) the relay says READY=1 once it listens,
    RELOADING=1 and READY=1 around a reload, and STOPPING=1 at SIGTERM, on
    the datagram socket $NOTIFY_SOCKET names."""
    with Env(bindir) as env:
        board = env.board()
        conf = _write(env, "relay.conf", "[relay]\nmax-games = 10\n")
        notify_cycle(env, lambda notify: env.relay(board.address, "--config", conf, env=notify))


def _tls_board(env):
    """A board service with --tls-self-signed, and its certificate's file."""
    db = os.path.join(env.state_dir, "board.db")
    board = env.board("--db", db, "--tls-self-signed")
    # Beside the database file; with PostgreSQL, in Sungka's data directory.
    cert = os.path.join(env.state_dir, "tls-cert.pem") if env.dbs.url is None else \
        os.path.join(env.env["XDG_DATA_HOME"], "sungka", "tls-cert.pem")
    check(os.path.exists(cert), "--tls-self-signed kept no tls-cert.pem where it says\n" +
          board.dump())
    return board, cert


def _channel(address, cert):
    with open(cert, "rb") as f:
        return grpc.secure_channel(address, grpc.ssl_channel_credentials(f.read()))


def tls_through(bindir):
    """An observer in TLS at a relay (--tls-cert, --tls-key) that reaches
    its board service in TLS, trusting exactly the service's own certificate
    (--upstream-ca tls-cert.pem): it joins and its stream begins with the
    game's snapshot. The relay refuses plaintext. SIGHUP reads the
    relay's certificate again and new connections get the new one."""
    with Env(bindir) as env:
        board, board_cert = _tls_board(env)
        one = _pair(env, "one")
        two = _pair(env, "two")
        cert = os.path.join(env.state_dir, "served.crt")
        key = os.path.join(env.state_dir, "served.key")
        shutil.copy(one[0], cert)
        shutil.copy(one[1], key)
        conf = _write(env, "relay.conf", f"[relay]\ntls-cert = {cert}\ntls-key = {key}\n")
        relay = env.relay(board.address, "--config", conf, "--upstream-ca", board_cert)
        check(any(l.endswith(" (TLS)") for l in relay.lines),
              "the relay's listening line does not say TLS\n" + relay.dump())

        to_board = _channel(board.address, board_cert)
        code, reply = _raw(to_board, REGISTER + "CreateGame", wire.message((1, "kalah")))
        check(code == "OK", f"CreateGame at the TLS board: {code} {reply}")
        game_id = wire.first_string(wire.first_message(reply, 1), 1)
        to_board.close()

        to_relay = _channel(relay.address, one[0])
        code, ref = _raw(to_relay, REGISTER + "JoinGame",
                         wire.message((1, game_id), (2, "watcher"), (3, True)))
        check(code == "OK", f"an observer's JoinGame through the TLS relay: {code} {ref}\n" +
              relay.dump())
        token = wire.get(ref, 3).decode()
        stream = to_relay.unary_stream(BOARD + "Subscribe", request_serializer=None,
                                       response_deserializer=None)(
            b"", timeout=T, metadata=[("authorization", f"Bearer {token}")])
        first = next(stream)
        check(wire.get(first, 10) is not None,
              f"the relayed stream did not begin with a snapshot: {wire.fields(first)}")
        stream.cancel()
        to_relay.close()

        plain = wire.Client(relay.address)
        code, text = plain.raw(REGISTER + "JoinGame",
                               wire.message((1, game_id), (2, "plain"), (3, True)), timeout=5)
        check(code == "UNAVAILABLE", f"a plaintext client at the TLS relay: {code} {text}")
        plain.close()

        shutil.copy(two[0], cert)
        shutil.copy(two[1], key)
        relay.p.send_signal(signal.SIGHUP)
        relay.expect_stderr(r"reloaded .*: TLS certificate .*served\.crt reloaded")
        pem = ssl.get_server_certificate(("127.0.0.1", relay.port), timeout=10)
        with open(two[0]) as f:
            check(ssl.PEM_cert_to_DER_cert(pem) == ssl.PEM_cert_to_DER_cert(f.read()),
                  "after the reload the relay still serves its old certificate\n" +
                  relay.dump())


def self_signed(bindir):
    """--tls-self-signed at a relay: a certificate of its own, made on the
    first start in Sungka's data directory (relay/) and kept, its SHA-256
    fingerprint logged (the same one a client computes from what it is
    served); an observer trusting that certificate joins in TLS; the next
    start keeps it."""
    with Env(bindir) as env:
        board = env.board()
        relay = env.relay(board.address, "--tls-self-signed", "--tls-name", "relay.example")
        relay.expect_stderr(r"sungka-relay: TLS certificate SHA256:[0-9A-F:]+ \(made now: ")
        cert = os.path.join(env.env["XDG_DATA_HOME"], "sungka", "relay", "tls-cert.pem")
        check(os.path.exists(cert), f"no certificate kept at {cert}\n" + relay.dump())
        pem = ssl.get_server_certificate(("127.0.0.1", relay.port), timeout=10)
        digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper()
        fingerprint = "SHA256:" + ":".join(digest[i:i + 2] for i in range(0, 64, 2))
        check(any(fingerprint in l for l in relay.err_lines),
              f"the logged fingerprint is not the served certificate's ({fingerprint})\n" +
              relay.dump())
        client = wire.Client(board.address)
        game_id, _ = _raw_game(client)
        client.close()
        to_relay = _channel(relay.address, cert)
        code, ref = _raw(to_relay, REGISTER + "JoinGame",
                         wire.message((1, game_id), (2, "watcher"), (3, True)))
        check(code == "OK", f"JoinGame at the self-signed relay: {code} {ref}")
        to_relay.close()
        relay.stop()
        again = env.relay(board.address, "--tls-self-signed")
        again.expect_stderr(rf"sungka-relay: TLS certificate {fingerprint} \(kept in ")


def wrong_upstream_refused(bindir):
    """A relay told to trust another certificate than its board service's
    (--upstream-ca) does not relay from it: an observer's join is refused
    UNAVAILABLE, and the relay's log says why in words; the board service
    saw no join. Without TLS upstream at all, the same. No line of gRPC's
    own (without --verbose)."""
    with Env(bindir) as env:
        board, board_cert = _tls_board(env)
        other = _pair(env, "other")
        to_board = _channel(board.address, board_cert)
        code, reply = _raw(to_board, REGISTER + "CreateGame", wire.message((1, "kalah")))
        check(code == "OK", f"CreateGame at the TLS board: {code} {reply}")
        game_id = wire.first_string(wire.first_message(reply, 1), 1)
        to_board.close()
        for args, want in ((("--upstream-ca", other[0]), "its certificate is not the one "
                                                         "trusted here"),
                           ((), "it closed the connection at once")):
            relay = env.relay(board.address, *args)
            client = wire.Client(relay.address)
            code, text = client.raw(REGISTER + "JoinGame",
                                    wire.message((1, game_id), (2, "watcher"), (3, True)))
            client.close()
            check(code == "UNAVAILABLE",
                  f"a join through a relay with {args or 'no TLS upstream'}: {code} {text}\n" +
                  relay.dump())
            relay.expect_stderr(rf"game {game_id}: cannot reach upstream \(127\.0\.0\.1:\d+\), "
                                rf"{want}")
            relay.stop()
            check(not any(re.match(r"E\d{4} ", l) for l in relay.err_lines),
                  "gRPC's own log lines without --verbose\n" + relay.dump())
        check(not any("watcher" in l for l in board.err_lines),
              "the board service let the relay join\n" + board.dump())


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (sighup_reload, sd_notify, tls_through,
                                           self_signed, wrong_upstream_refused)}))
