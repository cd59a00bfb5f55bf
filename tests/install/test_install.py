"""test_install.py — Sungka installed the way a user installs it.

    test_install.py --build DIR --source DIR --version VERSION --cmake CMAKE
                    [--jobs N] [--debs DIR] [--gtk] {deb|prefix}

deb     dpkg-buildpackage -b builds the Debian packages (debian/) from a copy
        of the source in a temporary directory, as a Debian build does:
        sungka-server, sungka-terminal and sungka-gtk. Then:
          - lintian: no error, no warning (debian/*.lintian-overrides say
            why for what is overridden);
          - each package unpacked alone (`dpkg -x`; nothing is installed on
            this machine) holds exactly its files; its control fields: the
            project's version; a Depends, found by dpkg-shlibdeps, naming the
            package of every library its programs link and nothing that the
            README's install command (debian-packages.txt, `build`) did not
            install; the players Provide, Conflict with and Replace
            sungka-player; sungka-gtk Recommends the `desktop` section;
          - every program is hardened (PIE, RELRO, BIND_NOW, stack protector,
            FORTIFY), as dpkg-buildflags' hardening=+all makes it;
          - sungka-server's maintainer scripts restart its units on upgrade,
            stop them on remove, and on purge (run for real, in a mount
            namespace) remove the service's state in /var/lib;
          - sungka-terminal's sungka-player links no GTK and offers no gtk view;
          - sungka-server with sungka-gtk in one tree: the checks below;
          - sungka-server alone, run as an operator runs it (server_tree.py:
            a configuration file, SIGHUP, bans through sungka-admin,
            Prometheus, fail2ban).
prefix  `cmake --install BUILD --prefix TMP`, then the checks below on TMP.

On the installed tree:
  - the installed sungka-player has no GTK test hook (views/gtk/gtk_script.c:
    neither its variable SUNGKA_GTK_SCRIPT, nor the words of its script, nor
    its functions), all of which the build tree's sungka-player-gtk-test has;
  - the programs run from there without LD_LIBRARY_PATH: `--version` says
    "NAME VERSION", `sungka-player --help` works, and sungka-player without
    --server starts the sungka-board installed beside it; under
    LANGUAGE=fil it speaks Filipino, from the catalogs installed beside it;
  - the man pages are roff pages of the right name and version, with EXIT
    STATUS (and SIGNALS, ENVIRONMENT where they apply), and sungka-player's
    INTERACTIVE COMMANDS names every command its text view's "help" lists;
  - `systemd-analyze verify` accepts every unit (for a package, a copy whose
    ExecStart points into the tree), `systemd-analyze security` rates each
    one's exposure 2.0 or less, and they say what the README promises;
  - `desktop-file-validate` accepts the desktop entry, its Exec and Icon
    are installed; the icon is an SVG drawing; `appstreamcli validate`
    accepts the AppStream metainfo, whose newest release is this version;
  - the bash completions of every program, run by bash-completion, offer
    the options, kinds, views and kind options that --help lists.
"""
import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_tree  # noqa: E402

PROGRAMS = ["sungka-board", "sungka-player", "sungka-relay", "sungka-admin", "sungka-perft",
            "sungka-bench", "sungka-web"]
UNITS = ["sungka-board", "sungka-relay", "sungka-web"]
# The web app sungka-web serves (web/app/).
WEB_FILES = ["index.html", "app.js", "app.css", "favicon.svg", "i18n.js", "history.js", "i18n/fil.json",
             "i18n/id.json", "tournament.js"]
KINDS = ["sungka", "congklak", "kalah", "reversi", "tictactoe"]
# The GTK view's application id, which names its desktop entry.
APP_ID = "io.github.sungka.Player"
TIMEOUT = 120
BUILD_TIMEOUT = 1200   # dpkg-buildpackage: a whole build, on a busy machine


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, timeout=TIMEOUT, **kw):
    """Run argv to completion (bounded); the CompletedProcess, text mode."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except FileNotFoundError:
        raise Failure(f"{argv[0]} is not installed (see debian-packages.txt, section test)")
    except subprocess.TimeoutExpired:
        raise Failure(f"{' '.join(argv)}: no end within {timeout} s")


def run_ok(argv, **kw):
    r = run(argv, **kw)
    check(r.returncode == 0,
          f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def tree_files(root):
    """Every file and symlink under root, as paths relative to it."""
    out = set()
    for d, _, files in os.walk(root):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def linguas(source):
    """The languages of po/LINGUAS."""
    with open(os.path.join(source, "po", "LINGUAS")) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def expected_files(gtk, source):
    """The files of an install, relative to its prefix."""
    files = {f"bin/{p}" for p in PROGRAMS}
    files |= {f"share/locale/{lang}/LC_MESSAGES/sungka.mo" for lang in linguas(source)}
    files |= {f"share/man/man1/{p}.1.gz" for p in PROGRAMS}
    files |= {f"lib/systemd/system/{u}.service" for u in UNITS}
    files |= {f"share/bash-completion/completions/{p}" for p in PROGRAMS}
    files |= {f"share/sungka/web/{f}" for f in WEB_FILES}
    files |= {f"share/doc/sungka/{d}" for d in ("README.md", "LICENSE", "rules.md",
                                                  "architecture.md", "cluster.md",
                                                  "operating.md", "board.conf.example",
                                                  "relay.conf.example", "web.conf.example",
                                                  "examples/fail2ban/sungka-board.conf",
                                                  "examples/fail2ban/"
                                                  "sungka-board.local.example",
                                                  "examples/prometheus/sungka.rules.yml")}
    if gtk:
        files.add(f"share/applications/{APP_ID}.desktop")
        files.add("share/icons/hicolor/scalable/apps/sungka.svg")
        files.add(f"share/metainfo/{APP_ID}.metainfo.xml")
    return files


def section(source, name):
    """The packages of one section of packaging/debian-packages.txt."""
    pkgs = []
    with open(os.path.join(source, "packaging", "debian-packages.txt")) as f:
        for line in f:
            m = re.match(r"^(\S+)\s+([^\s#]+)", line)
            if m and m.group(1) == name:
                pkgs.append(m.group(2))
    return pkgs


# --- checks of one installed tree ---

# What the GTK view's test hook leaves in a program that has it: its
# variable and the words of its script, and in an unstripped program its
# functions defined (sungka-player only refers to them, weakly: NULL there).
HOOK_TEXT = [b"SUNGKA_GTK_SCRIPT", b"script: ", b"wait-connect"]


def hook_marks(path):
    with open(path, "rb") as f:
        data = f.read()
    marks = [m.decode() for m in HOOK_TEXT if m in data]
    r = run(["nm", "--defined-only", path])   # "no symbols" when stripped
    marks += sorted(set(re.findall(r"\b(gscript_\w+)$", r.stdout, re.M)))
    return marks


def check_no_hook(prefix, build, gtk):
    """The test hook is only in the test program, never installed."""
    found = hook_marks(os.path.join(prefix, "bin", "sungka-player"))
    check(not found, f"the installed sungka-player has the GTK test hook: {found}")
    if gtk:   # the marks are the right ones: the test program has them
        test_prog = os.path.join(build, "bin", "sungka-player-gtk-test")
        marks = hook_marks(test_prog)
        check(len(marks) == len(HOOK_TEXT) + 2,
              f"{test_prog} has only {marks} of the hook's marks: check_no_hook looks for "
              "the wrong ones")


def check_programs(prefix, version, home):
    """Returns the text view's commands, as its "help" lists them."""
    bindir = os.path.join(prefix, "bin")
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LANGUAGE", "LC_ALL")}
    env["LC_MESSAGES"] = "C"       # English, whatever the developer's locale
    for p in PROGRAMS:
        path = os.path.join(bindir, p)
        r = run(["ldd", path], env=env)
        check("not found" not in r.stdout, f"{p} misses libraries:\n{r.stdout}")
        r = run_ok([path, "--version"], env=env)
        check(r.stdout == f"{p} {version}\n",
              f"{p} --version said {r.stdout!r}, not '{p} {version}'")
        r = run_ok([path, "--help"], env=env)
        check("--version" in r.stdout, f"{p} --help does not list --version")
    r = run_ok([os.path.join(bindir, "sungka-player"), "--help"], env=env)
    check(r.stdout.startswith("Usage: sungka-player"), "sungka-player --help: " + r.stdout[:200])
    for k in KINDS:
        check(re.search(rf"^  {k} ", r.stdout, re.M), f"sungka-player --help lacks kind {k}")

    # Without --server the installed agent starts the sungka-board beside it,
    # whose database lands under XDG_DATA_HOME.
    env.update(HOME=home, XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_STATE_HOME=os.path.join(home, "state"),
               XDG_CONFIG_HOME=os.path.join(home, "cfg"))
    r = run([os.path.join(bindir, "sungka-player"), "--name", "installed", "--new", "kalah",
             "--state-dir", ""], input="help\nquit\n", env=env, timeout=60)
    check(r.returncode == 0 and "Connected" in r.stdout,
          f"the installed sungka-player did not play ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    listed = r.stdout.split("Commands:\n", 1)[-1]
    commands = re.findall(r"^  ([a-z]+)\b", listed, re.M)
    check(len(commands) >= 20, f"the text view's help lists {commands}")
    check(os.path.exists(os.path.join(home, "data", "sungka", "sungka.db")),
          "the installed sungka-board did not run beside sungka-player (no database)")
    # The translations are found beside the installed program (not in the
    # build tree, which a user does not have): in Filipino under LANGUAGE=fil.
    fil = dict(env, LANGUAGE="fil", LANG="C.UTF-8")
    fil.pop("LC_ALL", None)
    fil.pop("LC_MESSAGES", None)
    r = run([os.path.join(bindir, "sungka-player"), "--name", "installed", "--new", "kalah",
             "--state-dir", ""], input="quit\n", env=fil, timeout=60)
    check(r.returncode == 0 and "Nakakonekta. I-type ang help para sa mga utos." in r.stdout,
          f"the installed sungka-player did not speak Filipino ({r.returncode}):\n{r.stdout}\n"
          f"{r.stderr}")
    return commands

    check_web(prefix, env)


def check_web(prefix, env):
    """The installed sungka-web serves the installed app (share/sungka/web
    beside it), without --web-root."""
    import urllib.request
    p = subprocess.Popen([os.path.join(prefix, "bin", "sungka-web"), "--listen", "127.0.0.1:0",
                          "--server", "127.0.0.1:1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        check(m, f"the installed sungka-web did not start: {line!r}")
        with open(os.path.join(prefix, "share", "sungka", "web", "app.js"), "rb") as f:
            installed = f.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/app.js", timeout=30) as r:
            check(r.read() == installed,
                  "the installed sungka-web does not serve the installed app")
    finally:
        p.terminate()
        p.wait(timeout=30)


# The sections every page has besides help2man's, and those of some.
MAN_SECTIONS = {p: ["EXIT STATUS"] for p in PROGRAMS}
for p in ("sungka-board", "sungka-relay", "sungka-player"):
    MAN_SECTIONS[p] += ["SIGNALS", "ENVIRONMENT"]
MAN_SECTIONS["sungka-player"].append("INTERACTIVE COMMANDS")
MAN_SECTIONS["sungka-bench"].append("ENVIRONMENT")
MAN_SECTIONS["sungka-admin"].append("ENVIRONMENT")


def man_section(page, name):
    """The roff text of one section of a page ("" when it has none)."""
    m = re.search(r'^\.SH "?' + re.escape(name) + r'"?\n(.*?)(?=^\.SH |\Z)', page, re.M | re.S)
    return m.group(1) if m else ""


def check_man(prefix, version, commands):
    """commands: the text view's, which INTERACTIVE COMMANDS must all name."""
    for p in PROGRAMS:
        with gzip.open(os.path.join(prefix, "share", "man", "man1", f"{p}.1.gz"), "rt") as f:
            page = f.read()
        for sec in MAN_SECTIONS[p]:
            check(man_section(page, sec).strip(), f"{p}.1 has no {sec} section")
        if p == "sungka-player":
            text = re.sub(r"\\f[BIRP]|\\-", "", man_section(page, "INTERACTIVE COMMANDS"))
            missing = [c for c in commands if not re.search(rf"\b{c}\b", text)]
            check(not missing, f"sungka-player.1's INTERACTIVE COMMANDS lacks {missing}")
        th = re.search(r'^\.TH\s+"?([^"\s]+)"?\s+"?(\S+?)"?\s.*$', page, re.M)
        check(th and th.group(1) == p.upper() and th.group(2) == "1",
              f"{p}.1: no .TH {p.upper()} 1 line")
        check(f"{p} {version}" in th.group(0), f"{p}.1 is not of version {version}: {th.group(0)}")
        check(re.search(r"^\.SH (NAME|\"NAME\")\n" + re.escape(p) + r" \\- ", page, re.M),
              f"{p}.1 has no NAME section")
        check("version" in page, f"{p}.1 does not list --version")


# What each unit must say besides ExecStart's program: (key, value) pairs,
# and words its ExecStart must have.
UNIT_SAYS = {
    "sungka-board": ([("Environment", "SUNGKA_LISTEN=0.0.0.0:7070"),
                      ("StateDirectory", "sungka")],
                     ["--db /var/lib/sungka/sungka.db", "--listen ${SUNGKA_LISTEN}"]),
    "sungka-relay": ([("Environment", "SUNGKA_LISTEN=0.0.0.0:7171")],
                     ["--listen ${SUNGKA_LISTEN}"]),
    "sungka-web": ([("Environment", "SUNGKA_LISTEN=0.0.0.0:8080")],
                   ["--listen ${SUNGKA_LISTEN}"]),
}


def check_unit(prefix, unit_dir, bindir, tmp):
    """Every unit, from unit_dir (a directory of the tree): ExecStart names
    the program in bindir (as installed: /usr/bin in a package)."""
    for name in UNITS:
        unit = os.path.join(unit_dir, f"{name}.service")
        with open(unit) as f:
            text = f.read()
        settings = {}
        for line in text.splitlines():
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                settings.setdefault(k, []).append(v)
        start = settings["ExecStart"][0]
        exec_path = os.path.join(bindir, name)
        check(start.startswith(exec_path + " "), f"{name}: ExecStart is '{start}', not "
                                                 f"{exec_path} ...")
        pairs, words = UNIT_SAYS[name]
        for w in words:
            check(w in start, f"{name}: ExecStart lacks {w}: {start}")
        for k, v in pairs + [("DynamicUser", "yes"), ("ProtectSystem", "strict"),
                             ("NoNewPrivileges", "yes"), ("Documentation", f"man:{name}(1)"),
                             ("Type", "notify"), ("ExecReload", "/bin/kill -HUP $MAINPID")]:
            check(v in settings.get(k, []), f"{name}: the unit lacks {k}={v}")

        # systemd-analyze needs ExecStart to exist: in a package's tree it is
        # /usr/bin/NAME, so verify a copy that points into the tree.
        copy = os.path.join(tmp, f"{name}.service")
        with open(copy, "w") as f:
            f.write(text.replace("ExecStart=" + exec_path,
                                 "ExecStart=" + os.path.join(prefix, "bin", name)))
        # --man=no: there is no man page on this system's MANPATH; check_man
        # has checked the one Documentation= names.
        # Only what it says about our unit counts: a container's own units may
        # draw remarks of their own.
        r = run(["systemd-analyze", "verify", "--man=no", copy], cwd=tmp)
        ours = [l for l in (r.stdout + r.stderr).splitlines() if name in l]
        check(r.returncode == 0 and not ours,
              f"systemd-analyze verify {name} ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        r = run(["systemd-analyze", "security", "--offline=yes", "--threshold=20", copy],
                cwd=tmp)
        m = re.search(rf"Overall exposure level for {name}.service: (\S+)", r.stdout)
        check(r.returncode == 0 and m,
              f"systemd-analyze security {name}: exposure above 2.0, or no rating "
              f"({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr}")
        print(f"{name}.service exposure {m.group(1)}")


def check_desktop(prefix):
    entry = os.path.join(prefix, "share", "applications", f"{APP_ID}.desktop")
    r = run(["desktop-file-validate", entry])
    check(r.returncode == 0 and not r.stdout.strip(),
          f"desktop-file-validate:\n{r.stdout}{r.stderr}")
    with open(entry) as f:
        fields = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
    check(fields.get("Exec") == "sungka-player --view gtk", f"Exec={fields.get('Exec')}")
    check(os.access(os.path.join(prefix, "bin", "sungka-player"), os.X_OK),
          "Exec's sungka-player is not installed")
    icon = os.path.join(prefix, "share", "icons", "hicolor", "scalable", "apps",
                        fields.get("Icon", "?") + ".svg")
    check(os.path.exists(icon), f"Icon={fields.get('Icon')}: no {icon}")
    svg = ET.parse(icon).getroot()
    check(svg.tag == "{http://www.w3.org/2000/svg}svg", f"{icon} is not an SVG drawing")
    box = svg.get("viewBox", "").split()
    check(len(box) == 4 and box[2] == box[3], f"{icon}: no square viewBox")
    check(len(list(svg.iter("{http://www.w3.org/2000/svg}circle"))) >= 10,
          f"{icon}: a mancala board has at least ten cups")


COMPLETE = r"""
source /usr/share/bash-completion/bash_completion || exit 3
source "$1" || exit 4
# Each program's own file registers it (bash-completion loads by name).
for p in sungka-board sungka-player sungka-relay sungka-admin sungka-perft sungka-bench; do
    (source "$2/$p" && complete -p "$p" >/dev/null) || exit 5
done
try() {  # the completions of the last word of a command line
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _sungka "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
    echo "${COMPREPLY[*]}"
}
try sungka-player --new ''
try sungka-player --any ''
try sungka-player --view ''
try sungka-player --new kalah --option ''
try sungka-board --
try sungka-player --vers
try sungka-board --listen ''
try sungka-relay --
try sungka-perft ''
try sungka-perft kalah 3 ''
try sungka-bench --only move,f
try sungka-admin ''
try sungka-admin --server 127.0.0.1:7070 ban-
"""


def check_completion(prefix, gtk):
    """The completions of every program: each one's file registers it."""
    comps = os.path.join(prefix, "share", "bash-completion", "completions")
    env = dict(os.environ, PATH=os.path.join(prefix, "bin") + ":" + os.environ["PATH"])
    r = run(["bash", "--norc", "--noprofile", "-c", COMPLETE, "bash",
             os.path.join(comps, "sungka-player"), comps], env=env)
    check(r.returncode == 0, f"the completion scripts did not load ({r.returncode}):\n{r.stderr}")
    lines = r.stdout.split("\n")
    check(len(lines) >= 13, f"completion output: {r.stdout!r}")
    (new, any_, views, opts, board, ver, listen, relay, perft_kinds, perft_opts,
     bench_only, admin, ban) = (l.split() for l in lines[:13])
    check({"online", "ban", "ban-address", "log"} <= set(admin),
          f"sungka-admin completes to {admin}")
    check(ban == ["ban-address"], f"sungka-admin ... ban- completes to {ban}")
    for o in ("--upstream", "--config", "--metrics", "--version"):
        check(o in relay, f"sungka-relay -- does not complete to {o}: {relay}")
    check(sorted(perft_kinds) == sorted(KINDS), f"sungka-perft completes kinds to {perft_kinds}")
    check(sorted(perft_opts) == ["cups=", "stones=", "swap="],
          f"sungka-perft kalah 3 completes to {perft_opts}")
    check(bench_only == ["move,fanout"], f"sungka-bench --only move,f completes to {bench_only}")
    check(sorted(new) == sorted(KINDS), f"--new completes to {new}")
    check(sorted(any_) == sorted(KINDS), f"--any completes to {any_}")
    want_views = {"text", "bot"} | ({"gtk"} if gtk else set())
    check(set(views) == want_views, f"--view completes to {views}")
    check(sorted(opts) == ["cups=", "stones=", "swap="], f"--new kalah --option completes to {opts}")
    for o in ("--listen", "--db", "--grace", "--help", "--version"):
        check(o in board, f"sungka-board -- does not complete to {o}: {board}")
    check(ver == ["--version"], f"sungka-player --vers completes to {ver}")
    check(listen == [], f"--listen completes to {listen}, not to nothing")


def check_metainfo(prefix, version):
    """appstreamcli validate accepts the AppStream file, which names the
    desktop entry and has a release of this version."""
    path = os.path.join(prefix, "share", "metainfo", f"{APP_ID}.metainfo.xml")
    r = run(["appstreamcli", "validate", "--no-net", path])
    check(r.returncode == 0, f"appstreamcli validate {path}:\n{r.stdout}{r.stderr}")
    root = ET.parse(path).getroot()
    check(root.findtext("id") == APP_ID, f"{path}: id {root.findtext('id')}")
    check(root.findtext("launchable") == f"{APP_ID}.desktop", f"{path}: launchable")
    releases = [r.get("version") for r in root.iter("release")]
    check(releases and releases[0] == version,
          f"{path}: the newest release is {releases[:1]}, not {version}")


def check_tree(prefix, unit_dir, bindir, version, gtk, tmp, build, docdir):
    """prefix: the tree's usr (or the install's prefix); unit_dir: where its
    units are; bindir: where the units' ExecStart expect the programs;
    docdir: the documentation's directory."""
    check_no_hook(prefix, build, gtk)
    commands = check_programs(prefix, version, os.path.join(tmp, "home"))
    check_man(prefix, version, commands)
    check_unit(prefix, unit_dir, bindir, tmp)
    if gtk:
        check_desktop(prefix)
        check_metainfo(prefix, version)
    check_completion(prefix, gtk)
    rules_md = os.path.join(docdir, "rules.md")
    if os.path.exists(rules_md + ".gz"):
        with gzip.open(rules_md + ".gz", "rt") as f:
            rules = f.read()
    else:
        with open(rules_md) as f:
            rules = f.read()
    for n, k in enumerate(KINDS, 1):
        check(re.search(rf"^## {n}\. .*`{k}`", rules, re.M), f"rules.md has no § {n} for {k}")


# --- the .deb's control fields ---

def depends_names(field):
    """Package names of a Depends-style field (alternatives included)."""
    names = set()
    for part in field.split(","):
        for alt in part.split("|"):
            alt = alt.strip()
            if alt:
                names.add(re.split(r"[\s(:]", alt, 1)[0])
    return names


def owners(paths):
    """{library path: the installed package that has it}, in one dpkg -S
    (which is slow). Merged /usr: dpkg may know a file by either spelling."""
    spell = {}
    for p in paths:
        for c in (p, os.path.realpath(p)):
            for s in (c, c[4:] if c.startswith("/usr/") else "/usr" + c):
                spell[s] = p
    out = {}
    for line in run(["dpkg", "-S"] + sorted(spell)).stdout.splitlines():
        if line.startswith("diversion") or ": " not in line:
            continue
        pkgs, path = line.split(": ", 1)
        if path in spell:
            out[spell[path]] = pkgs.split(",")[0].split(":")[0].strip()
    return out


def installed_closure(roots):
    """Every installed package that `roots` depend on, directly or not,
    themselves included (Depends and Pre-Depends; alternatives and
    virtual packages resolved to what is installed)."""
    r = run_ok(["dpkg-query", "-W",
                "-f=${db:Status-Abbrev}\t${Package}\t${Provides}\t${Depends}, ${Pre-Depends}\n"])
    deps, providers = {}, {}
    for line in r.stdout.splitlines():
        status, pkg, provides, dep = (line.split("\t") + ["", "", ""])[:4]
        if not status.startswith("ii"):
            continue
        deps[pkg] = depends_names(dep)
        providers.setdefault(pkg, set()).add(pkg)
        for v in depends_names(provides):
            providers.setdefault(v, set()).add(pkg)
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        for pkg in providers.get(name, ()):
            if pkg not in seen:
                seen.add(pkg)
                todo.extend(deps.get(pkg, ()))
    return seen


SERVER_PROGRAMS = [p for p in PROGRAMS if p != "sungka-player"]


def package_files(pkg, gtk, source):
    """The files of one package, relative to its root; documents without
    the .gz that dh_compress gives the larger ones."""
    doc = f"usr/share/doc/{pkg}/"
    files = {doc + "copyright", doc + "changelog"}
    if pkg == "sungka-server":
        progs = SERVER_PROGRAMS
        files |= {f"lib/systemd/system/{u}.service" for u in UNITS}
        files |= {"etc/sungka/board.conf", "etc/sungka/relay.conf", "etc/sungka/web.conf",
                  "usr/share/lintian/overrides/sungka-server"}
        files |= {doc + d for d in ("README.md", "architecture.md", "cluster.md",
                                    "operating.md", "rules.md", "examples/board.conf.example",
                                    "examples/relay.conf.example", "examples/web.conf.example",
                                    "examples/fail2ban/sungka-board.conf",
                                    "examples/fail2ban/sungka-board.local.example",
                                    "examples/prometheus/sungka.rules.yml")}
        files |= {f"usr/share/sungka/web/{f}" for f in WEB_FILES}
    else:
        progs = ["sungka-player"]
        files |= {doc + "README.md", doc + "rules.md"}
        files |= {f"usr/share/locale/{lang}/LC_MESSAGES/sungka.mo" for lang in linguas(source)}
    if pkg == "sungka-gtk":
        files |= {f"usr/share/applications/{APP_ID}.desktop",
                  "usr/share/icons/hicolor/scalable/apps/sungka.svg",
                  f"usr/share/metainfo/{APP_ID}.metainfo.xml"}
    files |= {f"usr/bin/{p}" for p in progs}
    files |= {f"usr/share/man/man1/{p}.1.gz" for p in progs}
    files |= {f"usr/share/bash-completion/completions/{p}" for p in progs}
    return files


def check_deb_fields(pkg, deb, tree, args):
    """The control fields of one package, unpacked alone in tree."""
    names = ["Package", "Version", "Architecture", "Section", "Depends", "Recommends",
             "Provides", "Conflicts", "Replaces"]
    r = run_ok(["dpkg-deb", "-f", deb] + names)
    fields = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
    print(f"{pkg}:", fields)
    check(fields.get("Package") == pkg, f"Package: {fields.get('Package')}")
    check(fields.get("Version") == args.version, f"{pkg}: Version {fields.get('Version')}, "
                                                 f"not the project's {args.version}")
    depends = depends_names(fields.get("Depends", ""))
    # Complete: every library any program links comes from a package named.
    needed = []   # (program, soname, path)
    bindir = os.path.join(tree, "usr", "bin")
    for p in os.listdir(bindir):
        path = os.path.join(bindir, p)
        found = dict(re.findall(r"^\s*(\S+) => (/\S+)", run_ok(["ldd", path]).stdout, re.M))
        out = run_ok(["readelf", "-d", path]).stdout
        for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out):
            check(soname in found, f"{p}: ldd does not find {soname}")
            needed.append((p, soname, found[soname]))
    owner = owners({lib for _, _, lib in needed})
    for p, soname, lib in needed:
        check(lib in owner, f"no installed package has {lib} ({soname}, linked by {p})")
        check(owner[lib] in depends, f"{pkg}: {p} links {soname} from {owner[lib]}, which "
                                     f"Depends lacks: {fields.get('Depends')}")
    # From the one list: nothing the README's install command did not bring.
    closure = installed_closure(section(args.source, "build"))
    stray = sorted(depends - closure)
    check(not stray, f"{pkg}: Depends names {stray}, which the build section of "
                     "packaging/debian-packages.txt does not install")
    recommends = depends_names(fields.get("Recommends", ""))
    if pkg == "sungka-server":
        check("sungka-player" in recommends, f"{pkg} does not recommend a sungka-player (its "
                                             "bots are sungka-player)")
    else:
        # One sungka-player at a time: the two packages replace each other.
        for f in ("Provides", "Conflicts", "Replaces"):
            check(fields.get(f) == "sungka-player", f"{pkg}: {f}: {fields.get(f)}")
        check("sungka-server" in recommends, f"{pkg} does not recommend sungka-server")
    if pkg == "sungka-gtk":
        want = set(section(args.source, "desktop"))
        check(want <= recommends, f"{pkg}: Recommends {sorted(recommends)} lacks the desktop "
                                  f"section's {sorted(want - recommends)}")


def check_hardening(tree):
    """dpkg-buildflags' hardening=+all in every program: PIE, full RELRO
    (BIND_NOW), the stack protector and FORTIFY's checked functions."""
    bindir = os.path.join(tree, "usr", "bin")
    for p in sorted(os.listdir(bindir)):
        path = os.path.join(bindir, p)
        header = run_ok(["readelf", "-hlW", path]).stdout
        dynamic = run_ok(["readelf", "-dW", path]).stdout
        syms = run_ok(["readelf", "--dyn-syms", "-W", path]).stdout
        check(re.search(r"Type:\s+DYN", header), f"{p} is not a position-independent executable")
        check("GNU_RELRO" in header, f"{p} has no RELRO segment")
        check(re.search(r"\(BIND_NOW\)|\(FLAGS_1\).*\bNOW\b", dynamic), f"{p}: no BIND_NOW")
        check("__stack_chk_fail" in syms, f"{p}: no stack protector")
        check(re.search(r"\b__\w+_chk\b", syms.replace("__stack_chk_fail", "")),
              f"{p}: no FORTIFY_SOURCE checked function")


def check_scripts(deb, tmp):
    """sungka-server's maintainer scripts: the units restarted on upgrade
    and stopped on remove (dh_installsystemd), the conffiles dpkg's, and
    purge removes the service's state: run for real, inside a mount
    namespace whose /var/lib is a scratch directory."""
    ctrl = os.path.join(tmp, "server-control")
    run_ok(["dpkg-deb", "-e", deb, ctrl])
    read = lambda name: open(os.path.join(ctrl, name)).read()  # noqa: E731
    check(read("conffiles").split() == ["/etc/sungka/board.conf", "/etc/sungka/relay.conf",
                                        "/etc/sungka/web.conf"],
          f"conffiles: {read('conffiles')!r}")
    postinst, prerm = read("postinst"), read("prerm")
    for u in UNITS:
        check(re.search(r"_dh_action=restart", postinst) and
              f"deb-systemd-invoke $_dh_action '{u}.service'" in postinst,
              f"postinst does not restart {u} on upgrade:\n{postinst}")
        check(f"deb-systemd-invoke stop '{u}.service'" in prerm,
              f"prerm does not stop {u} on remove:\n{prerm}")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("postrm purge: not run (needs root for a mount namespace)")
        return
    varlib = os.path.join(tmp, "varlib")
    os.makedirs(os.path.join(varlib, "private", "sungka"))
    with open(os.path.join(varlib, "private", "sungka", "sungka.db"), "w") as f:
        f.write("state")
    os.symlink("private/sungka", os.path.join(varlib, "sungka"))
    os.makedirs(os.path.join(varlib, "other"))
    for arg in ("remove", "purge"):
        r = run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 'mount --bind "$1" /var/lib && exec sh "$2" "$3"', "sh", varlib,
                 os.path.join(ctrl, "postrm"), arg])
        check(r.returncode == 0, f"postrm {arg} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        left = sorted(os.listdir(varlib))
        if arg == "remove":
            check("sungka" in left and os.path.exists(os.path.join(varlib, "private", "sungka",
                                                                   "sungka.db")),
                  f"postrm remove took the state away: {left}")
    check(not os.path.lexists(os.path.join(varlib, "sungka")) and
          not os.path.exists(os.path.join(varlib, "private", "sungka")) and
          os.path.isdir(os.path.join(varlib, "other")),
          f"postrm purge left {sorted(os.listdir(varlib))} in /var/lib "
          f"(private: {os.listdir(os.path.join(varlib, 'private'))})")


def build_packages(args, tmp):
    """dpkg-buildpackage -b on a copy of the source (without its build
    trees): {package: .deb path}, and the .changes file."""
    src = os.path.join(tmp, "src")
    skip = {".git", os.path.basename(os.path.normpath(args.build))}

    def ignore(d, names):
        if os.path.samefile(d, args.source):
            return [n for n in names if n in skip or n.startswith(("build", "obj-"))]
        return []
    shutil.copytree(args.source, src, ignore=ignore, symlinks=True)
    env = dict(os.environ, DEB_BUILD_OPTIONS=f"parallel={args.jobs} nocheck")
    r = run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src, env=env, timeout=BUILD_TIMEOUT)
    check(r.returncode == 0, f"dpkg-buildpackage failed ({r.returncode}):\n"
                             f"{(r.stdout + r.stderr)[-6000:]}")
    debs = {}
    for f in os.listdir(tmp):
        m = re.fullmatch(r"([a-z-]+)_([^_]+)_([a-z0-9]+)\.deb", f)
        if m and not m.group(1).endswith("-dbgsym"):
            check(m.group(2) == args.version, f"{f} is not of version {args.version}")
            debs[m.group(1)] = os.path.join(tmp, f)
    changes = [f for f in os.listdir(tmp) if f.endswith(".changes")]
    check(len(changes) == 1, f"dpkg-buildpackage made {changes}")
    return debs, os.path.join(tmp, changes[0])


def check_lintian(changes):
    """No error and no warning from lintian on any package (each override in
    debian/*.lintian-overrides says why)."""
    r = run(["lintian", "--fail-on", "error,warning", changes], timeout=BUILD_TIMEOUT)
    bad = [l for l in r.stdout.splitlines() if re.match(r"[EW]: ", l)]
    check(r.returncode == 0 and not bad,
          f"lintian ({r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}")


def unpack(debs, names, tree):
    os.makedirs(tree, exist_ok=True)
    for n in names:
        run_ok(["dpkg", "-x", debs[n], tree])


def built_packages(args, tmp):
    """--debs DIR: the packages a dpkg-buildpackage of this source left in
    DIR (to run the checks again by hand without building again)."""
    for f in os.listdir(args.debs):
        if f.endswith((".deb", ".changes", ".buildinfo")):
            shutil.copy(os.path.join(args.debs, f), tmp)
    debs = {}
    for f in os.listdir(tmp):
        m = re.fullmatch(r"([a-z-]+)_([^_]+)_([a-z0-9]+)\.deb", f)
        if m and not m.group(1).endswith("-dbgsym"):
            debs[m.group(1)] = os.path.join(tmp, f)
    changes = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".changes")]
    check(len(changes) == 1, f"{args.debs} has no .changes file")
    return debs, changes[0]


def test_deb(args, tmp):
    debs, changes = built_packages(args, tmp) if args.debs else build_packages(args, tmp)
    packages = ["sungka-server", "sungka-terminal", "sungka-gtk"]
    check(sorted(debs) == sorted(packages), f"dpkg-buildpackage made {sorted(debs)}")
    check_lintian(changes)
    for pkg in packages:
        tree = os.path.join(tmp, "alone", pkg)
        unpack(debs, [pkg], tree)
        files = {re.sub(r"^(usr/share/doc/.*)\.gz$", r"\1", f) for f in tree_files(tree)}
        want = package_files(pkg, args.gtk, args.source)
        check(files == want, f"{pkg} holds {sorted(files - want)} besides, and lacks "
                             f"{sorted(want - files)}")
        check_deb_fields(pkg, debs[pkg], tree, args)
        check_hardening(tree)
    check_scripts(debs["sungka-server"], tmp)

    # The terminal's player has no GTK, and says so.
    player = os.path.join(tmp, "alone", "sungka-terminal", "usr", "bin", "sungka-player")
    needed = run_ok(["readelf", "-d", player]).stdout
    check("libgtk" not in needed, "sungka-terminal's sungka-player links GTK")
    views = run_ok([player, "--help"]).stdout.split("Views:", 1)[-1]
    check(re.search(r"^  text ", views, re.M) and not re.search(r"^  gtk ", views, re.M),
          f"sungka-terminal's sungka-player lists the views {views[:300]}")

    # Server and window together, as a desktop with a board service has them.
    tree = os.path.join(tmp, "root")
    unpack(debs, ["sungka-server", "sungka-gtk"], tree)
    check_tree(os.path.join(tree, "usr"), os.path.join(tree, "lib", "systemd", "system"),
               "/usr/bin", args.version, args.gtk, tmp, args.build,
               os.path.join(tree, "usr", "share", "doc", "sungka-server"))
    # The server alone, run as an operator runs it.
    server_tree.run(os.path.join(tmp, "alone", "sungka-server"), tmp)


def test_prefix(args, tmp):
    prefix = os.path.join(tmp, "prefix")
    run_ok([args.cmake, "--install", args.build, "--prefix", prefix])
    files = tree_files(prefix)
    want = expected_files(args.gtk, args.source)
    check(files == want, f"the install holds {sorted(files - want)} besides, and lacks "
                         f"{sorted(want - files)}")
    check_tree(prefix, os.path.join(prefix, "lib", "systemd", "system"),
               os.path.join(prefix, "bin"), args.version, args.gtk, tmp, args.build,
               os.path.join(prefix, "share", "doc", "sungka"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--jobs", type=int, default=2, help="dpkg-buildpackage's parallel=N")
    ap.add_argument("--debs", help="check the packages already built in this directory")
    ap.add_argument("--gtk", action="store_true")
    ap.add_argument("test", choices=["deb", "prefix"])
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.build, "packaging", "man", "sungka-board.1.gz")):
        print("FAIL: no man pages in the build: install help2man (Debian package help2man) "
              "and build again", file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix=f"sungka-install-{args.test}-")
    try:
        {"deb": test_deb, "prefix": test_prefix}[args.test](args, tmp)
    except (Failure, server_tree.Failure) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"install_{args.test}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
