"""test_install.py — Sungka installed the way a user installs it.

    test_install.py --build DIR --source DIR --version VERSION --cmake CMAKE
                    --cpack CPACK [--gtk] {deb|prefix}

deb     `cpack -G DEB` makes the package in a temporary directory and
        `dpkg -x` unpacks it into a temporary tree (nothing is installed on
        this machine). Its control fields: the version of project(); a
        Depends, found by dpkg-shlibdeps, that names the package of every
        library the programs link, and nothing that the README's install
        command (debian-packages.txt, `build`) did not install; Recommends
        from the `desktop` section. Then the checks below on TREE/usr.
prefix  `cmake --install BUILD --prefix TMP`, then the checks below on TMP.

On the installed tree:
  - exactly the expected files: four programs (no test program), four man
    pages, the unit, the completions, the documents, the translations of
    po/LINGUAS, and with --gtk the desktop entry and the icon;
  - the installed sungka-player has no GTK test hook (views/gtk/gtk_script.c:
    neither its variable SUNGKA_GTK_SCRIPT, nor the words of its script, nor
    its functions), all of which the build tree's sungka-player-gtk-test has;
  - the programs run from there without LD_LIBRARY_PATH: `--version` says
    "NAME VERSION", `sungka-player --help` works, and sungka-player without
    --server starts the sungka-board installed beside it; under
    LANGUAGE=fil it speaks Filipino, from the catalogs installed beside it;
  - the man pages are roff pages of the right name and version;
  - `systemd-analyze verify` accepts the unit (for the .deb, a copy whose
    ExecStart points into the tree), `systemd-analyze security` rates its
    exposure 2.0 or less, and it says what the README promises;
  - `desktop-file-validate` accepts the desktop entry, its Exec and Icon
    are installed; the icon is an SVG drawing;
  - the bash completions, run by bash-completion, offer the options, kinds,
    views and kind options that --help lists.
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

PROGRAMS = ["sungka-board", "sungka-player", "sungka-relay", "sungka-admin", "sungka-perft",
            "sungka-bench"]
KINDS = ["sungka", "congklak", "kalah", "reversi", "tictactoe"]
# The GTK view's application id, which names its desktop entry.
APP_ID = "io.github.sungka.Player"
TIMEOUT = 120


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
    files.add("lib/systemd/system/sungka-board.service")
    files |= {f"share/bash-completion/completions/{p}"
              for p in ("sungka-board", "sungka-player", "sungka-admin")}
    files |= {f"share/doc/sungka/{d}" for d in ("README.md", "LICENSE", "rules.md",
                                                  "architecture.md", "cluster.md",
                                                  "operating.md", "board.conf.example",
                                                  "examples/fail2ban/sungka-board.conf",
                                                  "examples/fail2ban/"
                                                  "sungka-board.local.example")}
    if gtk:
        files.add(f"share/applications/{APP_ID}.desktop")
        files.add("share/icons/hicolor/scalable/apps/sungka.svg")
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
             "--state-dir", ""], input="quit\n", env=env, timeout=60)
    check(r.returncode == 0 and "Connected" in r.stdout,
          f"the installed sungka-player did not play ({r.returncode}):\n{r.stdout}\n{r.stderr}")
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


def check_man(prefix, version):
    for p in PROGRAMS:
        with gzip.open(os.path.join(prefix, "share", "man", "man1", f"{p}.1.gz"), "rt") as f:
            page = f.read()
        th = re.search(r'^\.TH\s+"?([^"\s]+)"?\s+"?(\S+?)"?\s.*$', page, re.M)
        check(th and th.group(1) == p.upper() and th.group(2) == "1",
              f"{p}.1: no .TH {p.upper()} 1 line")
        check(f"{p} {version}" in th.group(0), f"{p}.1 is not of version {version}: {th.group(0)}")
        check(re.search(r"^\.SH (NAME|\"NAME\")\n" + re.escape(p) + r" \\- ", page, re.M),
              f"{p}.1 has no NAME section")
        check("version" in page, f"{p}.1 does not list --version")


def check_unit(prefix, exec_path, tmp):
    unit = os.path.join(prefix, "lib", "systemd", "system", "sungka-board.service")
    with open(unit) as f:
        text = f.read()
    settings = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            settings.setdefault(k, []).append(v)
    start = settings["ExecStart"][0]
    check(start.startswith(exec_path + " "),
          f"ExecStart is '{start}', not {exec_path} ...")
    check("--db /var/lib/sungka/sungka.db" in start and "--listen ${SUNGKA_LISTEN}" in start,
          f"ExecStart lacks the database or the address: {start}")
    for k, v in (("Environment", "SUNGKA_LISTEN=0.0.0.0:7070"), ("DynamicUser", "yes"),
                 ("StateDirectory", "sungka"), ("ProtectSystem", "strict"),
                 ("NoNewPrivileges", "yes"), ("Documentation", "man:sungka-board(1)"),
                 ("Type", "notify"), ("ExecReload", "/bin/kill -HUP $MAINPID")):
        check(v in settings.get(k, []), f"the unit lacks {k}={v}")

    # systemd-analyze needs ExecStart to exist: in the .deb's tree it is
    # /usr/bin/sungka-board, so verify a copy that points into the tree.
    copy = os.path.join(tmp, "sungka-board.service")
    with open(copy, "w") as f:
        f.write(text.replace("ExecStart=" + exec_path,
                             "ExecStart=" + os.path.join(prefix, "bin", "sungka-board")))
    # --man=no: there is no man page on this system's MANPATH; check_man has
    # checked the one Documentation= names.
    # Only what it says about our unit counts: a container's own units may
    # draw remarks of their own.
    r = run(["systemd-analyze", "verify", "--man=no", copy], cwd=tmp)
    ours = [l for l in (r.stdout + r.stderr).splitlines() if "sungka-board" in l]
    check(r.returncode == 0 and not ours,
          f"systemd-analyze verify ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    r = run(["systemd-analyze", "security", "--offline=yes", "--threshold=20", copy], cwd=tmp)
    m = re.search(r"Overall exposure level for sungka-board.service: (\S+)", r.stdout)
    check(r.returncode == 0 and m,
          f"systemd-analyze security: exposure above 2.0, or no rating ({r.returncode}):\n"
          f"{r.stdout[-3000:]}\n{r.stderr}")
    print(f"unit exposure {m.group(1)}")


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
complete -p sungka-board sungka-player >/dev/null || exit 5
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
try sungka-admin ''
try sungka-admin --server 127.0.0.1:7070 ban-
"""


def check_completion(prefix, gtk):
    comp = os.path.join(prefix, "share", "bash-completion", "completions", "sungka-player")
    env = dict(os.environ, PATH=os.path.join(prefix, "bin") + ":" + os.environ["PATH"])
    r = run(["bash", "--norc", "--noprofile", "-c", COMPLETE, "bash", comp], env=env)
    check(r.returncode == 0, f"the completion script did not load ({r.returncode}):\n{r.stderr}")
    lines = r.stdout.split("\n")
    check(len(lines) >= 9, f"completion output: {r.stdout!r}")
    new, any_, views, opts, board, ver, listen, admin, ban = (l.split() for l in lines[:9])
    check(sorted(new) == sorted(KINDS), f"--new completes to {new}")
    check(sorted(any_) == sorted(KINDS), f"--any completes to {any_}")
    want_views = {"text", "bot"} | ({"gtk"} if gtk else set())
    check(set(views) == want_views, f"--view completes to {views}")
    check(sorted(opts) == ["cups=", "stones=", "swap="], f"--new kalah --option completes to {opts}")
    for o in ("--listen", "--db", "--grace", "--help", "--version"):
        check(o in board, f"sungka-board -- does not complete to {o}: {board}")
    check(ver == ["--version"], f"sungka-player --vers completes to {ver}")
    check(listen == [], f"--listen completes to {listen}, not to nothing")
    check({"online", "ban", "ban-address", "log"} <= set(admin),
          f"sungka-admin completes to {admin}")
    check(ban == ["ban-address"], f"sungka-admin ... ban- completes to {ban}")


def check_tree(prefix, exec_path, version, gtk, tmp, build):
    check_no_hook(prefix, build, gtk)
    check_programs(prefix, version, os.path.join(tmp, "home"))
    check_man(prefix, version)
    check_unit(prefix, exec_path, tmp)
    if gtk:
        check_desktop(prefix)
    check_completion(prefix, gtk)
    rules = open(os.path.join(prefix, "share", "doc", "sungka", "rules.md")).read()
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


def check_deb_fields(deb, tree, args):
    r = run_ok(["dpkg-deb", "-f", deb, "Package", "Version", "Depends", "Recommends"])
    fields = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
    print("control:", fields)
    check(fields.get("Package") == "sungka", f"Package: {fields.get('Package')}")
    check(fields.get("Version") == args.version, f"Version: {fields.get('Version')}")
    depends = depends_names(fields.get("Depends", ""))
    # Complete: every library any program links comes from a package named.
    needed = []   # (program, soname, path)
    for p in PROGRAMS:
        path = os.path.join(tree, "usr", "bin", p)
        found = dict(re.findall(r"^\s*(\S+) => (/\S+)", run_ok(["ldd", path]).stdout, re.M))
        out = run_ok(["readelf", "-d", path]).stdout
        for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out):
            check(soname in found, f"{p}: ldd does not find {soname}")
            needed.append((p, soname, found[soname]))
    owner = owners({lib for _, _, lib in needed})
    for p, soname, lib in needed:
        check(lib in owner, f"no installed package has {lib} ({soname}, linked by {p})")
        check(owner[lib] in depends, f"{p} links {soname} from {owner[lib]}, which Depends "
                                     f"lacks: {fields.get('Depends')}")
    # From the one list: nothing the README's install command did not bring.
    closure = installed_closure(section(args.source, "build"))
    stray = sorted(depends - closure)
    check(not stray, f"Depends names {stray}, which the build section of "
                     "packaging/debian-packages.txt does not install")
    want = section(args.source, "desktop") if args.gtk else []
    got = sorted(depends_names(fields.get("Recommends", "")))
    check(got == sorted(want), f"Recommends {got}, not the desktop section {want}")


def test_deb(args, tmp):
    out = os.path.join(tmp, "pkg")
    r = run_ok([args.cpack, "-G", "DEB", "-B", out,
                "--config", os.path.join(args.build, "CPackConfig.cmake")], cwd=tmp)
    debs = [f for f in os.listdir(out) if f.endswith(".deb")]
    check(len(debs) == 1, f"cpack made {debs}:\n{r.stdout}")
    deb = os.path.join(out, debs[0])
    check(re.fullmatch(rf"sungka_{re.escape(args.version)}_[a-z0-9]+\.deb", debs[0]),
          f"the package is called {debs[0]}")
    tree = os.path.join(tmp, "root")
    run_ok(["dpkg", "-x", deb, tree])
    files = tree_files(tree)
    want = {"usr/" + f for f in expected_files(args.gtk, args.source)}
    check(files == want, f"the .deb holds {sorted(files - want)} besides, and lacks "
                         f"{sorted(want - files)}")
    check_deb_fields(deb, tree, args)
    check_tree(os.path.join(tree, "usr"), "/usr/bin/sungka-board", args.version, args.gtk, tmp,
               args.build)


def test_prefix(args, tmp):
    prefix = os.path.join(tmp, "prefix")
    run_ok([args.cmake, "--install", args.build, "--prefix", prefix])
    files = tree_files(prefix)
    want = expected_files(args.gtk, args.source)
    check(files == want, f"the install holds {sorted(files - want)} besides, and lacks "
                         f"{sorted(want - files)}")
    check_tree(prefix, os.path.join(prefix, "bin", "sungka-board"), args.version, args.gtk, tmp,
               args.build)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--cpack", required=True)
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
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"install_{args.test}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
