#!/usr/bin/env python3
"""Run the whole test suite: nox runs the steps of the checkout's noxfile.py, in order.

    python3 tools/check.py [--apt-source] [--tarball PATH] [-e ENVS]
                           [--skip-cpython] [--skip-dependents]
    python3 tools/check.py [NOX OPTIONS] -- [THOSE OPTIONS]    (-l lists the steps)

docs/testing.rst ("The test command") says what it runs, prints and stops.
"""

if __name__ == "__main__" and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file: the package, in the tools' venv
    bootstrap.run("tools.check")

import json
import sys
import tempfile
import time
from pathlib import Path

from . import plumbing

NOXFILE = Path(__file__).resolve().parent.parent / "noxfile.py"
# The steps' own options (noxfile.py's `options`), and whether each takes a value.
STEPS = {"--apt-source": False, "--tarball": True, "-e": True, "--envs": True,
         "--skip-cpython": False, "--skip-dependents": False}


def check(argv):
    nox_args, _, step_args = _split(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="check-") as scratch:
        report = Path(scratch) / "report.json"
        code = plumbing.call([sys.executable, "-m", "nox", "-f", NOXFILE, "--report", report]
                             + nox_args + ["--"] + step_args, cwd=str(NOXFILE.parent))
        if report.is_file():
            plumbing.say("the steps took %.0f s" % (time.monotonic() - started))
            results = [s["result"] for s in json.loads(report.read_text())["sessions"]]
            print("steps: %d passed, %d failed, %d skipped"
                  % (results.count("success"), len(results) - results.count("success")
                     - results.count("skipped"), results.count("skipped")), flush=True)
    return code


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    return plumbing.main(check, "check", argv)


def _split(argv):
    """ARGV as (nox's options, '--', the steps' options): after `--`, or those of STEPS."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], "--", argv[at + 1:]
    nox_args, step_args, given = [], [], iter(argv)
    for arg in given:
        name = arg.split("=", 1)[0]
        if name not in STEPS:
            nox_args.append(arg)
            continue
        step_args.append(arg)
        if STEPS[name] and "=" not in arg:
            step_args.append(next(given, ""))
    return nox_args, "--", step_args


if __name__ == "__main__":
    sys.exit(main())
