#!/usr/bin/python3
"""test_reflection.py — gRPC server reflection, used as grpcurl uses it
(grpcurl itself is not in Debian 12): a stock Python gRPC client, knowing no
.proto file, lists the services on one reflection stream, asks for the file
declaring sungka.v1.Register (and gets its imports with it), builds message
classes from those descriptors (google.protobuf's descriptor pool and message
factory) and calls CreateGame and ListGames with them. An unknown symbol is
an error response on the same stream, not its end; v1 answers as v1alpha.
Usage: test_reflection.py BINDIR TEST   (ctest runs one process per test)
"""
import os
import queue
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Env, check, main  # noqa: E402
import wire  # noqa: E402

import grpc  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

T = 15.0
V1ALPHA = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
V1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
# ServerReflectionRequest's fields, and ServerReflectionResponse's.
FILE_BY_FILENAME, FILE_CONTAINING_SYMBOL, LIST_SERVICES = 3, 4, 7
ORIGINAL_REQUEST, FILE_DESCRIPTOR_RESPONSE, LIST_SERVICES_RESPONSE, ERROR_RESPONSE = 2, 4, 6, 7


class Reflection:
    """One ServerReflectionInfo stream: ask() sends a request and returns
    its answer (raw bytes), as grpcurl's client does, one at a time."""

    def __init__(self, channel, path=V1ALPHA):
        self.requests = queue.Queue()
        call = channel.stream_stream(path, request_serializer=None, response_deserializer=None)
        self.answers = call(iter(self.requests.get, None), timeout=60)

    def ask(self, field, value):
        request = wire.message((1, "localhost"), (field, value))
        self.requests.put(request)
        answer = next(self.answers)
        check(wire.get(answer, ORIGINAL_REQUEST) == request,
              f"the answer does not carry its request: {wire.fields(answer)}")
        return answer

    def close(self):
        self.requests.put(None)          # the client is done sending: the stream ends OK
        rest = list(self.answers)
        check(rest == [], f"answers after the last request: {rest}")


def _all(buf, num):
    """Every value of a repeated bytes or message field (wire.repeated would
    read them as packed numbers)."""
    return [v for n, v in wire.fields(buf) if n == num]


def _services(answer):
    listed = wire.get(answer, LIST_SERVICES_RESPONSE)
    check(listed is not None, f"no list of services: {wire.fields(answer)}")
    return {wire.get(s, 1).decode() for s in _all(listed, 1)}


def _files(answer):
    got = wire.get(answer, FILE_DESCRIPTOR_RESPONSE)
    check(got is not None, f"no file descriptors: {wire.fields(answer)}")
    return [descriptor_pb2.FileDescriptorProto.FromString(b) for b in _all(got, 1)]


def call_without_protos(bindir):
    with Env(bindir) as env:
        board = env.board()
        channel = grpc.insecure_channel(board.address)
        r = Reflection(channel)
        services = _services(r.ask(LIST_SERVICES, ""))
        want = {"sungka.v1.Register", "sungka.v1.Board", "sungka.v1.Accounts", "sungka.v1.Admin",
                "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}
        check(want <= services, f"list_services lacks {sorted(want - services)}: {services}")

        files = _files(r.ask(FILE_CONTAINING_SYMBOL, "sungka.v1.Register"))
        check(files and files[0].package == "sungka.v1" and
              any(s.name == "Register" for s in files[0].service),
              f"the file declaring sungka.v1.Register: {[f.name for f in files]}")
        names = {f.name for f in files}
        for f in files:
            check(set(f.dependency) <= names, f"{f.name} imports {list(f.dependency)}, not all "
                                              f"sent with it ({sorted(names)})")
        # A method and a nested type name their file too, as grpcurl asks.
        for symbol in ("sungka.v1.Register.CreateGame", "sungka.v1.CreateGameRequest"):
            got = _files(r.ask(FILE_CONTAINING_SYMBOL, symbol))
            check(got[0].name == files[0].name, f"{symbol} is in {got[0].name}")
        health = _files(r.ask(FILE_BY_FILENAME, "grpc/health/v1/health.proto"))
        check(any(s.name == "Health" and [m.name for m in s.method] == ["Check", "Watch"]
                  for s in health[0].service), f"health.proto as served: {health[0]}")
        # Not served: an error answer, and the stream goes on.
        err = wire.get(r.ask(FILE_CONTAINING_SYMBOL, "sungka.v1.NoSuchThing"), ERROR_RESPONSE)
        check(err is not None and wire.get(err, 1) == 5,
              f"an unknown symbol's answer: {wire.fields(err) if err else None}")
        check(_services(r.ask(LIST_SERVICES, "")) == services, "the stream did not go on")
        r.close()

        # What grpcurl does next: message classes from the descriptors, a call.
        pool = descriptor_pool.DescriptorPool()
        for f in reversed(files):        # imports were sent after what imports them
            pool.Add(f)
        factory = message_factory.MessageFactory(pool)
        register = pool.FindServiceByName("sungka.v1.Register")

        def stub(method):
            m = register.FindMethodByName(method)
            req, resp = factory.GetPrototype(m.input_type), factory.GetPrototype(m.output_type)
            return req, channel.unary_unary(f"/sungka.v1.Register/{method}",
                                            request_serializer=req.SerializeToString,
                                            response_deserializer=resp.FromString)

        CreateGame, create = stub("CreateGame")
        made = create(CreateGame(kind="kalah", title="made by reflection"), timeout=T)
        ListGames, list_games = stub("ListGames")
        listed = list_games(ListGames(kind="kalah"), timeout=T)
        titles = [g.title for g in listed.games]
        check("made by reflection" in titles,
              f"the game made through reflection's classes is not listed: {made} {titles}")

        # v1 answers as v1alpha (the same messages).
        r1 = Reflection(channel, V1)
        check(_services(r1.ask(LIST_SERVICES, "")) == services, "v1 lists other services")
        r1.close()
        channel.close()


def streams_capped(bindir):
    """--max-reflection-streams 4: one open reflection stream per client
    address (a quarter); a second is refused RESOURCE_EXHAUSTED with a
    sentence saying so, and once the first ends, the address may open one
    again."""
    with Env(bindir) as env:
        board = env.board("--max-reflection-streams", "4")
        channel = grpc.insecure_channel(board.address)
        first = Reflection(channel)
        _services(first.ask(LIST_SERVICES, ""))
        second = Reflection(channel)
        try:
            second.ask(LIST_SERVICES, "")
            check(False, "a second reflection stream from one address was answered")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and
                  "your address has 1 ServerReflectionInfo streams open" in e.details(),
                  f"the second stream: {e.code()} {e.details()}")
        second.requests.put(None)        # its request iterator ends too
        first.close()
        deadline = time.monotonic() + T
        while True:
            again = Reflection(channel)
            try:
                _services(again.ask(LIST_SERVICES, ""))
                again.close()
                break
            except grpc.RpcError as e:
                again.requests.put(None)
                check(time.monotonic() < deadline, f"still refused after the first ended: {e}")
                time.sleep(0.2)
        channel.close()
        board.stop()
        check(board.p.returncode == 0, "the service did not stop cleanly\n" + board.dump())


if __name__ == "__main__":
    sys.exit(main({f.__name__: f for f in (call_without_protos, streams_capped)}))
