#!/usr/bin/python3
"""bench_accounts.py — what accounts cost the board service: one sign-in
(Argon2id on a worker, then the wake of the loop), a sign-in for an unknown
name (the dummy hash: it should cost the same), how many sign-ins a second
the workers finish, and how the loop answers other calls (ListGames) while
40 clients keep the workers and their queue full. A benchmark, not a test:
run by hand, numbers in PERFORMANCE.md ("Accounts").

Usage: bench/bench_accounts.py BUILD/bin/sungka-board
Needs python3-grpcio, protobuf-compiler and protobuf-compiler-grpc.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PROTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto")


def main(board_path):
    out = tempfile.mkdtemp(prefix="sungka-bench-accounts-")
    board = None
    try:
        subprocess.run(["protoc", f"--python_out={out}", f"--grpc_out={out}",
                        "--plugin=protoc-gen-grpc=" + shutil.which("grpc_python_plugin"),
                        "-I", PROTO, "sungka/v1/sungka.proto"], check=True)
        sys.path.insert(0, out)
        import grpc
        from sungka.v1 import sungka_pb2 as pb, sungka_pb2_grpc as pbg
        board = subprocess.Popen([board_path, "--listen", "127.0.0.1:0", "--db", ":memory:",
                                  "-q", "--client-registrations", "100000",
                                  # one address plays the crowd: lift its share
                                  "--client-signin-jobs", "100000", "--signin-rate", "1000000",
                                  "--client-signin-rate", "1000000"],
                                 stdout=subprocess.PIPE, text=True)
        port = int(re.search(r":(\d+)", board.stdout.readline()).group(1))
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(ch).result(timeout=10)
        acc, reg = pbg.AccountsStub(ch), pbg.RegisterStub(ch)

        def timed(fn, n):
            t = []
            for i in range(n):
                s = time.monotonic()
                try:
                    fn(i)
                except grpc.RpcError:
                    pass
                t.append(time.monotonic() - s)
            return sorted(t)

        for i in range(40):
            acc.CreateAccount(pb.CreateAccountRequest(name=f"user{i}", password="correct horse"))
        one = timed(lambda i: acc.SignIn(pb.SignInRequest(name="user0",
                                                          password="correct horse")), 10)
        unknown = timed(lambda i: acc.SignIn(pb.SignInRequest(name=f"nobody{i}",
                                                              password="correct horse")), 10)
        print(f"SignIn, one at a time: median {statistics.median(one) * 1000:.0f} ms")
        print(f"SignIn, unknown name:  median {statistics.median(unknown) * 1000:.0f} ms")
        idle = timed(lambda i: reg.ListGames(pb.ListGamesRequest()), 200)

        stop, ok, busy = False, [0], [0]

        def hammer(i):
            while not stop:
                try:
                    acc.SignIn(pb.SignInRequest(name=f"user{i}", password="correct horse"),
                               timeout=30)
                    ok[0] += 1
                except grpc.RpcError as e:
                    busy[0] += e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        threads = [threading.Thread(target=hammer, args=(i,)) for i in range(40)]
        for t in threads:
            t.start()
        time.sleep(1)
        start, ok0 = time.monotonic(), ok[0]
        loaded = []
        while time.monotonic() - start < 10:
            loaded += timed(lambda i: reg.ListGames(pb.ListGamesRequest()), 1)
            time.sleep(0.02)
        rate = (ok[0] - ok0) / (time.monotonic() - start)
        stop = True
        for t in threads:
            t.join()
        loaded.sort()

        def p99(t):
            return t[int(len(t) * 0.99) - 1] * 1000
        print(f"ListGames, idle: median {statistics.median(idle) * 1000:.1f} ms, "
              f"p99 {p99(idle):.1f} ms")
        print(f"ListGames, 40 clients signing in: median "
              f"{statistics.median(loaded) * 1000:.1f} ms, p99 {p99(loaded):.1f} ms, "
              f"max {loaded[-1] * 1000:.1f} ms")
        print(f"sign-ins finished: {rate:.1f}/s; refused as busy (queue full): {busy[0]}")
        with open(f"/proc/{board.pid}/status") as f:
            peak = re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)
        print(f"service peak resident memory: {int(peak) // 1024} MiB")
    finally:
        if board:
            board.terminate()
            board.wait()
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
