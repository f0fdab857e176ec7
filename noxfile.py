"""The whole test suite, as nox sessions run in this order (python3 tools/check.py -l lists them).

Every session runs on this machine's tools' venv (python=False); what they
share is this module's state, one nox run long.  tox.ini holds the
environments themselves.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nox

from tools import plumbing, tox_interpreters

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / "tools"
nox.options.default_venv_backend = "none"
# What every tox run of this nox run shares: one run name and one place
# for the records, so that the last table names all eleven interpreters.
STATE = {"env": dict(os.environ, ENUM_BACKPORT_TOX_RUN="check-%d-%d" % (os.getpid(), time.time()),
                     ENUM_BACKPORT_RECORDS=str(ROOT / ".tox" / ".interpreters"),
                     ENUM_BACKPORT_JUNIT=str(plumbing.cache_dir() / "junit"))}
PYENV = subprocess.run("pyenv versions --bare", shell=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True).stdout.split()
PYENV = [v for v in PYENV if v.count(".") == 2 and v.replace(".", "").isdigit()
         and tuple(map(int, v.split(".")[:2])) >= (3, 8)]
if PYENV:
    # All of pyenv's 3.8 and newer, so that every pythonX.Y shim answers
    # (a PYENV_VERSION naming one, as a shell may set, would hide the rest).
    STATE["env"]["PYENV_VERSION"] = ":".join(PYENV)


def options(session):
    """The options after `--`: -e ENVS runs those tox environments only (docs, release if named)."""
    parser = argparse.ArgumentParser(prog="tools/check.py ... --")
    parser.add_argument("--apt-source", action="store_true")
    parser.add_argument("--tarball")
    parser.add_argument("-e", "--envs", type=lambda text: text.split(","))
    parser.add_argument("--skip-cpython", action="store_true")
    parser.add_argument("--skip-dependents", action="store_true")
    try:
        return parser.parse_args(session.posargs)
    except SystemExit:
        session.error("bad options after --: %s" % " ".join(session.posargs))


def tool(session, *args, **kwargs):
    """Run a tool of tools/ (as a file, as a user would) with this run's environment."""
    return session.run(sys.executable, *[str(a) for a in args], env=STATE["env"],
                       external=True, **kwargs)


def wanted(session, label):
    """The environments of tox.ini's LABEL this run asks for (-e narrows them)."""
    envs = tox_interpreters.label_envs(ROOT / "tox.ini", label)
    chosen = options(session).envs
    return [e for e in envs if chosen is None or e in chosen]


@nox.session(python=False)
def fetch(session):
    """The CPython 3.13.5 tarball into the cache (--apt-source, --tarball PATH)."""
    args = options(session)
    tool(session, TOOLS / "cpython_change.py", "fetch",
         *(["--apt-source"] if args.apt_source else []),
         *(["--tarball", args.tarball] if args.tarball else []))


@nox.session(python=False)
def cpython(session):
    """tools/cpython_change.py all: the CPython change on every base."""
    if options(session).skip_cpython:
        session.skip("--skip-cpython")
    tool(session, TOOLS / "cpython_change.py", "all")


@nox.session(python=False)
def stock(session):
    """Stock 3.13.5 and 3.13.5t built (cached), for tox's py3135 and py3135t."""
    for variable, flags in (("ENUM_BACKPORT_PY3135", []),
                            ("ENUM_BACKPORT_PY3135T", ["--freethreaded"])):
        out = tool(session, TOOLS / "cpython_change.py", "build", "--stock", *flags,
                   silent=True)
        python = out.strip().splitlines()[-1]
        session.log("%s=%s" % (variable, python))
        STATE["env"][variable] = python
    for old in glob.glob(os.path.join(STATE["env"]["ENUM_BACKPORT_JUNIT"], "*.xml")):
        os.remove(old)


def needs_stock(session):
    if "ENUM_BACKPORT_PY3135T" not in STATE["env"]:
        session.skip("the stock 3.13.5 builds are not there (the stock step)")


@nox.session(python=False, name="tox-root")
def tox_root(session):
    """tox in the Debian root: its py314, py315 and pypy311."""
    envs = wanted(session, "debian-root")
    if not envs:
        session.skip("-e names none of them")
    needs_stock(session)
    home = plumbing.cache_dir() / "debian-root-tox"
    (home / "pip").mkdir(parents=True, exist_ok=True)
    env = STATE["env"]
    junit = env["ENUM_BACKPORT_JUNIT"]
    Path(junit).mkdir(parents=True, exist_ok=True)
    inside = {"PIP_CACHE_DIR": str(home / "pip")}
    for name in ("ENUM_BACKPORT_TOX_RUN", "ENUM_BACKPORT_RECORDS", "ENUM_BACKPORT_JUNIT"):
        inside[name] = env[name]
    root = [TOOLS / "debian_root.py", "run", "--bind", ROOT, "--bind", home, "--bind", junit]
    root += ["--env=%s=%s" % item for item in inside.items()]
    # tox in a venv of the root's python3.14, made unless made whole before.
    venv = home / "venv"
    tox = [venv / "bin" / "python", "-m", "tox"]
    if not (venv / "tox-ok").is_file():
        tool(session, *root, "--", "sh", "-c", 'rm -rf "$2" && "$1" -m venv "$2" && '
             '"$2/bin/python" -m pip install -q "tox>=4.11" && touch "$2/tox-ok"', "sh",
             "/usr/bin/python3.14", venv)
    tool(session, TOOLS / "debian_root.py", "versions")
    try:
        tool(session, *root, "--cwd", ROOT, "--", *tox, "-e", ",".join(envs), "--workdir",
             ROOT / ".tox" / "debian-root", "-p", "2", "--parallel-no-spinner")
    finally:
        pairs = [p for p in tox_interpreters.stdlib_envs(ROOT / "tox.ini") if p[0] in envs]
        tox_interpreters.summary(env["ENUM_BACKPORT_RECORDS"], pairs, run=env[
            "ENUM_BACKPORT_TOX_RUN"])


@nox.session(python=False)
def docs(session):
    """The handbook (tox -e docs)."""
    if options(session).envs is not None and "docs" not in options(session).envs:
        session.skip("-e given without docs")
    tool(session, "-m", "tox", "-e", "docs")


@nox.session(python=False)
def release(session):
    """The release rehearsed (tools/release.py --rehearse)."""
    if options(session).envs is not None and "release" not in options(session).envs:
        session.skip("-e given without release")
    needs_stock(session)
    tool(session, TOOLS / "release.py", "--rehearse")


@nox.session(python=False)
def tox(session):
    """tox on this machine: tox.ini's `host` label, two at a time."""
    envs = wanted(session, "host")
    if not envs:
        session.skip("-e names none of them")
    needs_stock(session)
    tool(session, "-m", "tox", "-p", "2", "--parallel-no-spinner", "-e", ",".join(envs))


@nox.session(python=False)
def dependents(session):
    """tools/dependents: five projects' suites without and with the backport."""
    args = options(session)
    if args.skip_dependents or args.envs is not None:
        session.skip("--skip-dependents" if args.skip_dependents else "-e given")
    STATE["dependents"] = True
    tool(session, TOOLS / "dependents")


@nox.session(python=False)
def summary(session):
    """What the steps before found, in a few lines (nox's own list of the steps follows)."""
    env = STATE["env"]
    pairs = tox_interpreters.stdlib_envs(ROOT / "tox.ini")
    if options(session).envs is not None:
        pairs = [p for p in pairs if p[0] in options(session).envs]
    if pairs:
        tox_interpreters.summary(env["ENUM_BACKPORT_RECORDS"], pairs,
                                 run=env["ENUM_BACKPORT_TOX_RUN"])
    passed = failed = skipped = 0
    for path in sorted(glob.glob(os.path.join(env["ENUM_BACKPORT_JUNIT"], "*.xml"))):
        top = ElementTree.parse(path).getroot()
        for suite in [top] if top.tag == "testsuite" else top.findall("testsuite"):
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skip = int(suite.get("skipped", 0))
            passed += int(suite.get("tests", 0)) - bad - skip
            failed, skipped = failed + bad, skipped + skip
    print("pytest, all environments: %d passed, %d failed, %d skipped"
          % (passed, failed, skipped))
    last = plumbing.cache_dir() / "dependents" / "last-run.json"
    try:
        print("\n".join(json.loads(last.read_text())["summary"]) if STATE.get("dependents")
              else "dependents' suites: NOT RUN")
    except (OSError, ValueError, KeyError):
        print("dependents' suites: no summary in %s: see their output above" % last)
