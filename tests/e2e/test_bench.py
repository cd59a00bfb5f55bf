#!/usr/bin/python3
"""test_bench.py — sungka-bench's own behaviour, not its figures (speed is
never asserted): a --pg server it cannot reach stops it before it measures
anything; the databases it makes on a PostgreSQL server are gone after it;
a syscall count it could not take reads "not counted", never "-0.0"; the
cluster's targets are held against the same run's SQLite figures.

Usage: test_bench.py BINDIR TEST (ctest runs one process per test).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Databases, check, main  # noqa: E402


def run_bench(bindir, args, timeout):
    return subprocess.run([os.path.join(bindir, "sungka-bench"), "--quick", *args],
                          capture_output=True, text=True, timeout=timeout)


def pg_unreachable(bindir):
    """With a --pg server that does not answer, nothing is run (before, every
    other section ran and was then thrown away, with a sentence blaming
    sungka-board)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        r = run_bench(bindir, ["--only", "move,cluster", "--json", out,
                               "--pg", "postgresql://nobody@127.0.0.1:1/postgres"], 60)
        check(r.returncode == 2, f"exit {r.returncode}, wanted 2: {r.stderr}")
        check("PostgreSQL server of --pg cannot be reached, so nothing was run" in r.stderr,
              f"no sentence: {r.stderr}")
        check("round trip" not in r.stderr, f"a section ran: {r.stderr}")
        check(not os.path.exists(out), "results written for a run that did not happen")


def tput_and_cluster(bindir):
    """The throughput and cluster sections, run together on the tests'
    PostgreSQL server: each per-move and per-call note gives a syscall count
    >= 0 or says it was not counted (this machine may have no tracefs; before,
    a missing count printed "-0.0 syscalls"); the one node on PostgreSQL is
    held against the same run's SQLite row (the issue's two targets); and
    none of its sungka_bench_PID_* databases is left behind."""
    dbs = Databases()
    check(dbs.url is not None, "no PostgreSQL server given (SUNGKA_TEST_PG_URL_FILE)")
    url = dbs.url_for("postgres")
    with tempfile.TemporaryDirectory() as d:
        r = run_bench(bindir, ["--only", "tput,cluster", "--json", os.path.join(d, "out.json"),
                               "--pg", url], 170)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    notes = [l for l in r.stdout.splitlines() if "syscalls" in l]
    check(len(notes) >= 6, f"{len(notes)} notes with syscalls: {r.stdout}")
    for line in notes:
        m = re.search(r"(-?[0-9.]+) syscalls|syscalls not counted", line)
        check(m is not None, f"no count and no word in: {line}")
        check(m.group(1) is None or float(m.group(1)) >= 0 and not m.group(1).startswith("-"),
              f"a negative count: {line}")
    for target in (r"1 node on PostgreSQL / SQLite, moves/s at 100 games +[0-9.]+ x +"
                   r"\(goal >= 0\.60\)",
                   r"1 node on PostgreSQL / SQLite, CPU per move +[0-9.]+ x +\(goal <= 1\.50\)",
                   r"moves/s across 100 games / bare unary calls/s +[0-9.]+ x +\(goal >= 0\.60\)"):
        check(re.search(target, r.stdout), f"no target /{target}/ in: {r.stdout}")
    left = subprocess.run([Databases.psql(), "-X", "-At", "-d", url, "-c",
                           "SELECT datname FROM pg_database WHERE datname LIKE 'sungka_bench_%'"],
                          capture_output=True, text=True, timeout=60)
    check(left.returncode == 0, f"psql: {left.stderr}")
    check(left.stdout.strip() == "", f"databases left behind: {left.stdout.split()}")


if __name__ == "__main__":
    sys.exit(main({"pg_unreachable": pg_unreachable,
                   "tput_and_cluster": tput_and_cluster}))
