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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "tools" / "requirements.txt"
NEEDED = ("filelock", "nox", "psutil", "tox")


def ready():
    """Whether this interpreter has what the tools need."""
    return all(importlib.util.find_spec(name) is not None for name in NEEDED)


def tools_python(cache):
    """The python of the tools' venv under CACHE, made unless made before."""
    text = REQUIREMENTS.read_bytes()
    key = hashlib.sha256(text + sys.version.encode() + os.path.realpath(
        sys.executable).encode()).hexdigest()[:12]
    venv = Path(cache) / "venvs" / ("tools-" + key)
    if not (venv / "tools-ok").is_file():
        venv.parent.mkdir(parents=True, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".%s.partial-" % venv.name, dir=str(venv.parent))
        try:
            print("tools: installing what tools/requirements.txt pins into %s" % venv,
                  file=sys.stderr, flush=True)
            python = os.path.join(staging, "bin", "python")
            for argv in ([sys.executable, "-m", "venv", staging],
                         [python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          "-r", str(REQUIREMENTS)]):
                if subprocess.call(argv, stdin=subprocess.DEVNULL) != 0:
                    raise SystemExit("tools: error: could not make the tools' venv (%s failed)"
                                     % " ".join(argv[1:4]))
            Path(staging, "tools-ok").write_text("ok\n")
            try:
                os.rename(staging, str(venv))
            except OSError:  # another run made it meanwhile
                if not (venv / "tools-ok").is_file():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return venv / "bin" / "python"


def run(module):
    """Run MODULE (tools.X) as __main__, in an interpreter that has what it needs."""
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
