"""server_tree.py — the package sungka-server, unpacked into a clean tree,
run as an operator runs it (test_install.py calls run() on that tree).

    run(tree, tmp)   tree: where `dpkg -x` unpacked sungka-server

From the tree alone (its programs, its /etc/sungka/board.conf, its examples):
  - sungka-board starts with a configuration file: the package's own
    conffile with the test's settings added (limits, a metrics listener);
  - SIGHUP reloads it: a changed live limit (max-client-observers 2 -> 4)
    is in force at once, and the log says "reloaded";
  - the package's sungka-admin bans an account and an address (127.0.0.2,
    through e2e_util.OtherAddress): the account's sign-in and the address's
    calls are refused with the reasons given, 127.0.0.1 goes on, and the log
    has each ban;
  - a real Prometheus server scrapes its /metrics and loads the alert rules
    the package ships (examples/prometheus/sungka.rules.yml), and sees the
    failed sign-ins the test caused;
  - fail2ban-regex with the package's filter (examples/fail2ban/) matches
    exactly the lines of the failed sign-ins and limits in the service's own
    log, each with the host that caused them.
The clients are tests/e2e's (stock Python gRPC, wire.py), the processes
tests/e2e's harness (stopped at the end, passed or failed).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

E2E = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e")
sys.path.insert(0, os.path.normpath(E2E))
from harness import Env, Failure, Proc, check  # noqa: E402
from e2e_util import OtherAddress  # noqa: E402
import wire  # noqa: E402
import test_config  # noqa: E402
import test_logs  # noqa: E402
from test_metrics import free_port, metrics_port  # noqa: E402

DOC = os.path.join("usr", "share", "doc", "sungka-server")


def _conf(tree, tmp, observers):
    """The package's /etc/sungka/board.conf (every key commented out) with
    the test's settings after it, in its [board] section."""
    with open(os.path.join(tree, "etc", "sungka", "board.conf")) as f:
        shipped = f.read()
    check(shipped.rstrip().splitlines()[-1].startswith("#"),
          "the shipped board.conf sets something: it should only list the keys")
    path = os.path.join(tmp, "board.conf")
    with open(path, "w") as f:
        f.write(shipped + "\n# tests/install/server_tree.py\n"
                f"max-client-observers = {observers}\n"
                "metrics = 127.0.0.1:0\n"
                "client-registrations = 1\n"
                "signin-failures = 3\n")
    return path


def _prometheus(env, tmp, tree, port, want_failures):
    """A Prometheus server scraping port every second with the package's
    alert rules: the rules load, and it sees want_failures failed sign-ins."""
    rules = os.path.join(tree, DOC, "examples", "prometheus", "sungka.rules.yml")
    r = subprocess.run(["promtool", "check", "rules", rules], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 0, f"promtool check rules {rules}:\n{r.stdout}{r.stderr}")
    conf = os.path.join(tmp, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                f"rule_files:\n  - {rules}\n"
                "scrape_configs:\n  - job_name: sungka\n    static_configs:\n"
                f"      - targets: ['127.0.0.1:{port}']\n")
    web = free_port()
    prom = Proc("prometheus", ["prometheus", "--config.file", conf,
                               "--storage.tsdb.path", os.path.join(tmp, "prom-data"),
                               "--web.listen-address", f"127.0.0.1:{web}"],
                stdin=False, env=env.env)
    env.procs.append(prom)
    prom.expect_stderr(r"Server is ready to receive web requests", timeout=60)

    def ask(path):
        with urllib.request.urlopen(f"http://127.0.0.1:{web}{path}", timeout=10) as r:
            answer = json.load(r)
        check(answer["status"] == "success", f"{path}: {answer}")
        return answer["data"]

    groups = ask("/api/v1/rules")["groups"]
    names = sorted(r["name"] for g in groups for r in g["rules"])
    check("SungkaDown" in names and "SungkaStoreErrors" in names,
          f"Prometheus loaded the rules {names}\n" + prom.dump())
    query = urllib.parse.quote("sungka_signin_failures_total")
    deadline = time.monotonic() + 60
    seen = None
    while seen != str(want_failures):
        check(time.monotonic() < deadline,
              f"Prometheus saw sungka_signin_failures_total {seen}\n" + prom.dump())
        time.sleep(0.5)
        result = ask(f"/api/v1/query?query={query}")["result"]
        if result:
            seen = result[0]["value"][1]
    # Every target up: SungkaDown is not firing.
    up = ask("/api/v1/query?query=" + urllib.parse.quote('up{job="sungka"}'))["result"]
    check(up and up[0]["value"][1] == "1", f"up: {up}")
    prom.stop()


def _fail2ban(tree, tmp, board, env):
    """The package's filter over the service's own log: exactly the failed
    sign-ins' and the limits' lines, each with 127.0.0.1."""
    test_logs.FILTER = os.path.join(tree, DOC, "examples", "fail2ban", "sungka-board.conf")
    lines = list(board.err_lines)
    want = [l for l in lines if test_logs.BANNABLE.search(l)]
    check(any("sign-in failed" in l for l in want) and any("limit reached" in l for l in want),
          "no failed sign-in or limit in the log\n" + board.dump())
    log = os.path.join(tmp, "board.log")
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    matched, hosts = test_logs._regex(log, env.env)
    check(matched == want, "fail2ban-regex matched\n  " + "\n  ".join(matched) +
          "\nbut the lines of failures and limits are\n  " + "\n  ".join(want))
    check(hosts == ["127.0.0.1"] * len(want), f"the hosts it found: {hosts}")


def _bans(env, tree, board):
    """sungka-admin (the token: the one the service made beside its default
    database, which sungka-admin reads by default) bans an account and an
    address; both are refused afterwards, with the reason."""
    admin = os.path.join(tree, "usr", "bin", "sungka-admin")

    def run_admin(*args):
        r = subprocess.run([admin, "--server", board.address, *args], capture_output=True,
                           text=True, timeout=60, env=env.env)
        check(r.returncode == 0, f"sungka-admin {' '.join(args)}: status {r.returncode}\n"
                                 f"{r.stdout}{r.stderr}\n" + board.dump())
        return r.stdout

    password = "correct horse battery"
    with OtherAddress(board.address) as other:
        far, near = wire.Client(other.address), wire.Client(board.address)
        code, why = test_logs._account(far, "CreateAccount", "carol", password)
        check(code == "OK", f"CreateAccount carol: {code} {why}")
        out = run_admin("ban", "carol", "cheating at kalah")
        check("banned account carol" in out, out)
        code, why = test_logs._account(far, "SignIn", "carol", password)
        check(code == "PERMISSION_DENIED" and why == "This account is disabled: cheating at kalah",
              f"carol's sign-in after the ban: {code} {why}")
        out = run_admin("ban-address", "127.0.0.2", "flooding the lobby")
        check("banned address 127.0.0.2/32" in out, out)
        code, why = far.raw("/sungka.v1.Register/ListGames", wire.message())
        check(code == "PERMISSION_DENIED" and why.startswith(
                  "Your address is banned from this service: flooding the lobby"),
              f"a call from the banned address: {code} {why}")
        code, why = near.raw("/sungka.v1.Register/ListGames", wire.message())
        check(code == "OK", f"a call from 127.0.0.1 after the address's ban: {code} {why}")
        far.close()
        near.close()
    board.expect_stderr(r"admin 127\.0\.0\.1: ban account carol: cheating at kalah")
    board.expect_stderr(r"admin 127\.0\.0\.1: ban address 127\.0\.0\.2/32: flooding the lobby")


def run(tree, tmp):
    bindir = os.path.join(tree, "usr", "bin")
    try:
        with Env(bindir, sqlite_only="the package's service on its own file") as env:
            conf = _conf(tree, tmp, 2)
            board = env.board("--config", conf)
            port = metrics_port(board)
            check(test_config._observers_allowed(board) == 2,
                  "the file's max-client-observers = 2 is not in force\n" + board.dump())

            # SIGHUP: the same file with another limit.
            _conf(tree, tmp, 4)
            board.p.send_signal(signal.SIGHUP)
            board.expect_stderr(r"sungka-board: reloaded .*board\.conf: "
                                r"max-client-observers 2 -> 4")
            check(board.p.poll() is None, "SIGHUP ended the service\n" + board.dump())
            check(test_config._observers_allowed(board) == 4,
                  "the reloaded max-client-observers = 4 is not in force\n" + board.dump())

            _bans(env, tree, board)

            failures, limits, _ = test_logs._misbehave(wire.Client(board.address))
            board.expect_stderr(r"sign-in failed", count=failures)
            board.expect_stderr(r"limit reached", count=limits)
            _prometheus(env, tmp, tree, port, failures)
            _fail2ban(tree, tmp, board, env)
    except Failure as e:
        raise Failure(f"the installed sungka-server: {e}")
    finally:
        shutil.rmtree(os.path.join(tmp, "prom-data"), ignore_errors=True)
