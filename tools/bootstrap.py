"""Run a tool of tools/ as a module of the package `tools`, in the tools' venv.

Each entry point, run as a file, calls run("tools.X"): the checkout takes
the place of tools/ at the head of sys.path (the one place that does), and
an interpreter that lacks what tools/requirements.txt pins is swapped for
the cache's venv that has them, made whole or not at all.  Only the
standard library is used before that.
"""

import hashlib
import importlib.util
import os
import runpy
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "tools" / "requirements.txt"
NEEDED = ("filelock", "nox", "psutil", "tox")


def ready():
    """Whether this interpreter has what the tools need."""
    return all(importlib.util.find_spec(name) is not None for name in NEEDED)


def tools_python(cache):
    """The python of the tools' venv under CACHE, made unless made before (plumbing.venv).

    Made where it stays, under a lock (fcntl: filelock is not there yet), so
    that the scripts pip writes name their own interpreter.
    """
    import fcntl
    from tools import plumbing

    text = REQUIREMENTS.read_bytes()
    key = hashlib.sha256(text + sys.version.encode() + os.path.realpath(
        sys.executable).encode()).hexdigest()[:12]
    venv = Path(cache) / "venvs" / ("tools-" + key)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(str(venv.parent / (".%s.lock" % venv.name)), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / "tools-ok").is_file():
            print("tools: installing what tools/requirements.txt pins into %s" % venv,
                  file=sys.stderr, flush=True)
            plumbing.venv(venv, sys.executable, ["-r", REQUIREMENTS], marker="tools-ok",
                          run=lambda argv: subprocess.call([str(a) for a in argv],
                                                           stdin=subprocess.DEVNULL))
    return venv / "bin" / "python"


def run(module):
    """Run MODULE (tools.X) as __main__, in an interpreter that has what it needs."""
    if sys.version_info < (3, 11):  # before pip's errors for what it cannot install
        raise SystemExit("tools: error: the tools need Python 3.11 or newer, not %s (%s): "
                         "run them with python3.11 or later"
                         % (".".join(map(str, sys.version_info[:3])), sys.executable))
    sys.path[0] = str(ROOT)
    from tools import plumbing

    if not ready():
        try:
            python = str(tools_python(plumbing.cache_dir()))
        except plumbing.Error as error:
            raise SystemExit("tools: error: %s" % error)
        os.execv(python, [python, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    sys.exit(0)
