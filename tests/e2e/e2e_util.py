"""e2e_util.py — helpers several end-to-end test files share: a finished
agent's report, the moves it saw, a game made and joined over the raw wire,
and an event's kind."""
import re

from harness import check  # noqa: E402
import wire  # noqa: E402


def final_report(agent):
    """The lines after 'Game over:' up to the winners line."""
    agent.cursor = 0
    agent.expect(r"^Game over:")
    scores = agent.expect(r"^Scores:").string
    result = agent.expect(r"^(Winners?:|Nobody wins)").string
    return scores, result


def moves_seen(agent):
    return [l for l in agent.lines if re.match(r"^\S+ played (cup|cell) \S+\.$", l)]


def _raw_game(client, n_players=2):
    """Create a sungka game and seat alice and bob; returns (id, [tokens])."""
    code, reply = client.raw("/sungka.v1.Register/CreateGame", wire.message((1, "sungka")))
    check(code == "OK", f"CreateGame: {code} {reply}")
    game_id = wire.first_string(wire.first_message(reply, 1), 1)
    tokens = []
    for name in ("alice", "bob")[:n_players]:
        code, ref = client.raw("/sungka.v1.Register/JoinGame",
                               wire.message((1, game_id), (2, name)))
        check(code == "OK", f"JoinGame {name}: {code} {ref}")
        tokens.append(wire.get(ref, 3).decode())
    for token in tokens:
        code, text = client.raw("/sungka.v1.Board/Ready", wire.message((1, True)), token=token)
        check(code == "OK", f"Ready: {code} {text}")
    return game_id, tokens


def _event_kind(ev):
    """The oneof body field number of an Event (10 snapshot .. 20 notice)."""
    return next(n for n, _ in wire.fields(ev) if n >= 10)
