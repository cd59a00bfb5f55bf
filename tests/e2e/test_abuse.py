#!/usr/bin/python3
"""test_abuse.py — what an outside attack test found, each as a test: limits
per client address (streams, observer seats, joins, chat), observers who come
and go without growing a game's log, and text that is refused at the door or
served escaped.

Every client here is a stock Python gRPC client sending exactly the bytes it
wants (wire.py). Usage: test_abuse.py BINDIR TEST
"""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, Failure, check, main  # noqa: E402
import wire  # noqa: E402
from e2e_util import _event_kind, _raw_game  # noqa: E402

REGISTER = "/sungka.v1.Register/"
BOARD = "/sungka.v1.Board/"


def _join(client, game_id, name, observe=False):
    return client.raw(REGISTER + "JoinGame",
                      wire.message((1, game_id), (2, name), (3, observe)))


def _token(client, game_id, name, observe=False):
    code, ref = _join(client, game_id, name, observe)
    check(code == "OK", f"JoinGame {name}: {code} {ref}")
    return wire.get(ref, 3).decode()


def _snapshot(client, token):
    """Open a stream, take its snapshot; returns (stream, last_seq)."""
    stream = client.stream(BOARD + "Subscribe", b"", token=token, timeout=60)
    snap = next(stream)
    check(_event_kind(snap) == 10, "the first event must be a snapshot")
    return stream, wire.get(wire.get(snap, 10), 5, 0)


def _until(what, attempt, timeout=10.0):
    """Retry attempt() until it returns a true value; fail after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = attempt()
        if result:
            return result
        time.sleep(0.05)
    raise Failure(f"{what}: not within {timeout} s")


def client_streams(bindir):
    """One address may hold --max-client-streams event streams, whatever
    tokens it uses; a closed one makes room for another."""
    with Env(bindir) as env:
        board = env.board("--max-client-streams", "4")
        client = wire.Client(board.address)
        streams = []
        try:
            game_id, tokens = _raw_game(client)
            tokens += [_token(client, game_id, f"watcher{i}", True) for i in range(3)]
            for t in tokens[:4]:
                streams.append(_snapshot(client, t)[0])
            refused = client.stream(BOARD + "Subscribe", b"", token=tokens[4])
            try:
                next(refused)
                check(False, "a fifth stream from one address was accepted")
            except Exception as e:          # grpc.RpcError
                check(e.code().name == "RESOURCE_EXHAUSTED" and
                      "open event streams" in e.details(), f"the fifth stream: {e}")
            streams.pop().cancel()          # watcher1 closes its stream

            def fifth():
                s = client.stream(BOARD + "Subscribe", b"", token=tokens[4])
                try:
                    next(s)
                    streams.append(s)
                    return True
                except Exception:
                    return False
            _until("a stream after one closed", fifth)
        finally:
            for s in streams:
                s.cancel()
            client.close()


def client_observers(bindir):
    """One address may watch with --max-client-observers seats, across every
    game; leaving gives the seat back."""
    with Env(bindir) as env:
        board = env.board("--max-client-observers", "3")
        client = wire.Client(board.address)
        try:
            first, _ = _raw_game(client)
            code, reply = client.raw(REGISTER + "CreateGame", wire.message((1, "kalah")))
            check(code == "OK", f"CreateGame: {code} {reply}")
            second = wire.first_string(wire.first_message(reply, 1), 1)
            watchers = [_token(client, g, f"w{i}", True)
                        for i, g in enumerate((first, second, second))]
            code, text = _join(client, first, "w3", True)
            check(code == "RESOURCE_EXHAUSTED" and "observer seats" in text,
                  f"a fourth observer seat: {code} {text}")
            code, text = client.raw(BOARD + "Leave", b"", token=watchers[0])
            check(code == "OK", f"Leave: {code} {text}")
            _token(client, first, "w3", True)
        finally:
            client.close()


def client_join_rate(bindir):
    """Joins from one address are limited per second, whatever the names."""
    with Env(bindir) as env:
        board = env.board("--client-join-rate", "5")
        client = wire.Client(board.address)
        try:
            code, reply = client.raw(REGISTER + "CreateGame", wire.message((1, "sungka")))
            check(code == "OK", f"CreateGame: {code} {reply}")
            game_id = wire.first_string(wire.first_message(reply, 1), 1)
            codes = [_join(client, game_id, f"n{i}", True) for i in range(8)]
            refused = [t for c, t in codes if c == "RESOURCE_EXHAUSTED"]
            check(refused and "too many joins from your address: at most 5 a second"
                  in refused[0], f"eight joins at once: {[c for c, _ in codes]} {refused}")
            _until("a join after the second passed",
                   lambda: _join(client, game_id, "late", True)[0] == "OK")
        finally:
            client.close()


def client_chat_rate(bindir):
    """Many observer identities from one address share one chat budget."""
    with Env(bindir) as env:
        board = env.board("--chat-rate", "5", "--client-chat-rate", "8")
        client = wire.Client(board.address)
        try:
            game_id, _ = _raw_game(client)
            people = [_token(client, game_id, f"talker{i}", True) for i in range(3)]
            results = []
            for t in people:
                for _ in range(3):
                    results.append(client.raw(BOARD + "Chat", wire.message((1, "hello")),
                                              token=t))
            codes = [c for c, _ in results]
            check(codes[:8] == ["OK"] * 8, f"the first eight lines: {codes}")
            check(codes[8] == "RESOURCE_EXHAUSTED" and "from your address" in results[8][1],
                  f"the ninth line: {results[8]}")
        finally:
            client.close()


def observers_leave_no_trace(bindir):
    """Observers' comings and goings are not events: hundreds of join/leave
    cycles and a crowd that leaves at once add nothing to the log and send
    the players nothing; pings say how many are watching."""
    with Env(bindir) as env:
        board = env.board("--client-join-rate", "100000", "--ping-interval", "1")
        client = wire.Client(board.address)
        streams = []
        try:
            game_id, (alice, bob) = _raw_game(client)
            bob_stream, before = _snapshot(client, bob)
            streams.append(bob_stream)
            for i in range(300):
                t = _token(client, game_id, f"passer{i}", True)
                code, text = client.raw(BOARD + "Leave", b"", token=t)
                check(code == "OK", f"Leave {i}: {code} {text}")
            crowd = []
            for i in range(50):
                s, _ = _snapshot(client, _token(client, game_id, f"crowd{i}", True))
                crowd.append(s)
            streams += crowd

            def ping_says(n):
                for ev in bob_stream:
                    if wire.get(ev, 1, 0) != 0:
                        raise Failure(f"bob got a logged event: {wire.fields(ev)}")
                    if _event_kind(ev) == 19 and wire.get(wire.get(ev, 19), 3, 0) == n:
                        return True
            check(ping_says(50), "no ping said 50 are watching")
            for s in crowd:
                s.cancel()
            check(ping_says(0), "no ping said nobody is watching")
            probe, after = _snapshot(client, alice)
            streams.append(probe)
            check(after == before, f"the log grew from {before} to {after} events")
        finally:
            for s in streams:
                s.cancel()
            client.close()


def bad_text_refused(bindir):
    """Invalid UTF-8 in any string field, controls, bidi and invisible
    characters in names, titles and chat are refused with INVALID_ARGUMENT;
    nothing of them reaches the log."""
    esc_title = "\x1b]0;PWNED\x07\x1b[2J"
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            game_id, (alice, bob) = _raw_game(client)
            cases = [
                ("Chat", wire.message((1, b"a\xc0\x9b")), alice,
                 "sungka.v1.ChatRequest.text is not valid UTF-8"),
                ("Chat", wire.message((1, "hi"), (2, b"\xff")), alice,
                 "sungka.v1.ChatRequest.to is not valid UTF-8"),
                ("Chat", wire.message((1, "evil\u202etxt")), alice,
                 "bidirectional control (U+202E)"),
                ("Chat", wire.message((1, "x\u009b2J")), alice, "control character (U+009B)"),
                ("Chat", wire.message((1, "zero\u200bwidth")), alice,
                 "invisible character (U+200B)"),
            ]
            for method, payload, token, expect in cases:
                code, text = client.raw(BOARD + method, payload, token=token)
                check(code == "INVALID_ARGUMENT" and expect in text,
                      f"{method} {payload!r}: {code} {text}")
            register = [
                ("CreateGame", wire.message((1, "kalah"), (3, esc_title)),
                 "the title contains a control character (U+001B)"),
                ("CreateGame", wire.message((1, "kalah"), (2, wire.message((1, b"cu\xc0\x9bps"),
                                                                           (2, 4)))),
                 "sungka.v1.GameOption.name is not valid UTF-8"),
                ("JoinGame", wire.message((1, game_id), (2, "mal\u009bory"), (3, True)),
                 "the name contains a control character (U+009B)"),
                ("JoinGame", wire.message((1, game_id), (2, "ali\u200bce"), (3, True)),
                 "the name contains an invisible character (U+200B)"),
                ("JoinGame", wire.message((1, b"\xc0\xb1"), (2, "x")),
                 "sungka.v1.JoinGameRequest.game_id is not valid UTF-8"),
                ("ListGames", wire.message((1, b"\xed\xa0\x80")),
                 "sungka.v1.ListGamesRequest.kind is not valid UTF-8"),
            ]
            for method, payload, expect in register:
                code, text = client.raw(REGISTER + method, payload)
                check(code == "INVALID_ARGUMENT" and expect in text,
                      f"{method} {payload!r}: {code} {text}")
            code, text = client.raw(BOARD + "Chat", wire.message((1, "still here")), token=alice)
            check(code == "OK", f"a clean chat line: {code} {text}")
            # The log holds the one clean line and none of the refused ones
            # (chat is the only event whose text a client chose here).
            replay = client.stream(BOARD + "Subscribe", wire.message((1, 1)), token=bob)
            for ev in replay:
                if _event_kind(ev) == 17:
                    text = wire.get(wire.get(ev, 17), 3)
                    check(text == b"still here", f"the log holds the chat line {text!r}")
                    break
            replay.cancel()
        finally:
            client.close()


def options_refused(bindir):
    """An option given twice, or more options than the kind has, is refused."""
    with Env(bindir) as env:
        board = env.board()
        client = wire.Client(board.address)
        try:
            cups = wire.message((1, "cups"), (2, 3))
            code, text = client.raw(REGISTER + "CreateGame",
                                    wire.message((1, "kalah"), (2, cups), (2, cups)))
            check(code == "INVALID_ARGUMENT" and "the option 'cups' is given twice" in text,
                  f"cups twice: {code} {text}")
            many = wire.message((1, "kalah"), *[(2, cups)] * 3000)
            code, text = client.raw(REGISTER + "CreateGame", many)
            check(code == "INVALID_ARGUMENT" and "kalah takes at most 3 options, not 3000"
                  in text, f"3000 options: {code} {text}")
            code, text = client.raw(REGISTER + "JoinGame",
                                    wire.message((2, "ann"), (4, "kalah"), (5, cups), (5, cups)))
            check(code == "INVALID_ARGUMENT" and "given twice" in text,
                  f"any game, cups twice: {code} {text}")
        finally:
            client.close()


def stored_bad_text(bindir):
    """A database that already holds an event with invalid UTF-8 and a
    terminal escape (stored before text was checked) is served escaped after
    a restart, so every conforming client can still read the game."""
    with Env(bindir, sqlite_only="an SQLite file as an older service left it, "
                                 "forged with sqlite3") as env:
        db = os.path.join(env.state_dir, "old.db")
        board = env.board("--db", db, "--grace", "60")
        client = wire.Client(board.address)
        game_id, (alice, bob) = _raw_game(client)
        code, text = client.raw(BOARD + "Chat", wire.message((1, "hello there")), token=alice)
        check(code == "OK", f"Chat: {code} {text}")
        client.close()
        board.stop()
        # Forge what an older service stored: the same length, other bytes.
        con = sqlite3.connect(db)
        rows = con.execute("SELECT seq, data FROM events WHERE game_id = ?", (game_id,))
        forged = 0
        for seq, data in rows.fetchall():
            if b"hello there" in data:
                data = data.replace(b"hello there", b"he\xc0\x9b\x1b[2Jthe")
                con.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = ?",
                            (data, game_id, seq))
                forged += 1
        con.commit()
        con.close()
        check(forged == 1, f"forged {forged} events")
        board = env.board("--db", db, "--grace", "60")
        board.expect_stderr(r"served escaped")
        client = wire.Client(board.address)
        try:
            replay = client.stream(BOARD + "Subscribe", wire.message((1, 1)), token=bob)
            for ev in replay:
                if _event_kind(ev) != 17:
                    continue
                text = wire.get(wire.get(ev, 17), 3)
                check(text.decode("utf-8") == "he\ufffd\ufffd\\u{1B}[2Jthe",
                      f"the stored chat was served as {text!r}")
                break
            replay.cancel()
        finally:
            client.close()


def refused_create_makes_nothing(bindir):
    """A CreateGame that is refused (three bots for kalah's two seats) makes
    no game: nothing in the lobby, nothing counted against the client's open
    games. (Each such refusal left an empty game behind: three of them used
    up a limit of three, and the client's next game was refused.)"""
    with Env(bindir) as env:
        board = env.board("--max-games-per-client", "3")
        client = wire.Client(board.address)
        try:
            for _ in range(3):
                code, text = client.raw(REGISTER + "CreateGame",
                                        wire.message((1, "kalah"), (5, 3)))
                check(code == "INVALID_ARGUMENT" and "bots can fill at most" in text,
                      f"three bots: {code} {text}")
            code, reply = client.raw(REGISTER + "ListGames", b"")
            check(code == "OK" and not wire.repeated(reply, 1),
                  f"the lobby lists games nobody made: {reply!r}")
            code, text = client.raw(REGISTER + "CreateGame", wire.message((1, "kalah")))
            check(code == "OK", f"a good game refused after three refused ones: {code} {text}")
        finally:
            client.close()


def observer_resumes(bindir):
    """An observer whose stream ended resumes with its token after the last
    event it saw, as the contract says (its token died with its stream, so
    resuming failed UNAUTHENTICATED); while away it is not counted as
    watching, and its going and coming are no events."""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1", "--grace", "30")
        client = wire.Client(board.address)
        streams = []
        try:
            game_id, (alice, bob) = _raw_game(client)
            olga = _token(client, game_id, "olga", True)
            first, last = _snapshot(client, olga)
            first.cancel()
            bob_stream, before = _snapshot(client, bob)
            streams.append(bob_stream)
            code, text = client.raw(BOARD + "Chat", wire.message((1, "while olga was away")),
                                    token=alice)
            check(code == "OK", f"chat: {code} {text}")
            again = client.stream(BOARD + "Subscribe", wire.message((1, last)), token=olga,
                                  timeout=60)
            streams.append(again)
            try:
                ev = next(again)
            except Exception as e:           # grpc.RpcError: the token was gone
                raise Failure(f"the observer could not resume: {e}")
            check(wire.get(ev, 1, 0) == last + 1 and _event_kind(ev) == 17,
                  f"resumed at {wire.fields(ev)}, not at the chat after {last}")
            probe, after = _snapshot(client, alice)
            streams.append(probe)
            check(after == before + 1, f"the log grew from {before} to {after}: only the chat")
        finally:
            for s in streams:
                s.cancel()
            client.close()


def comings_and_goings_bounded(bindir):
    """A seated player who subscribes and cancels on end cannot grow the
    log (and the database) without bound: past 20 comings and goings in 10
    minutes they are no longer logged. (Each cycle logged two events: 4,000
    events and 8.6 MB in two seconds.)"""
    with Env(bindir) as env:
        board = env.board("--ping-interval", "1")
        client = wire.Client(board.address)
        streams = []
        try:
            game_id, (alice, bob) = _raw_game(client)
            probe, before = _snapshot(client, alice)
            streams.append(probe)
            for _ in range(100):
                s, _ = _snapshot(client, bob)
                s.cancel()
                time.sleep(0.03)             # the service sees the stream end first
            time.sleep(1)
            probe2, after = _snapshot(client, alice)
            streams.append(probe2)
            check(after - before <= 2 * 20 + 2,
                  f"100 comings and goings grew the log by {after - before} events")
            board.expect_stderr(r"bob comes and goes too often", timeout=10)
        finally:
            for s in streams:
                s.cancel()
            client.close()


TESTS = {f.__name__: f for f in (
    client_streams, client_observers, client_join_rate, client_chat_rate,
    observers_leave_no_trace, bad_text_refused, options_refused, stored_bad_text,
    refused_create_makes_nothing, observer_resumes, comings_and_goings_bounded)}

if __name__ == "__main__":
    sys.exit(main(TESTS))
