"""Prove the change on an interpreter of a base, and check it for refleaks.

On each patched interpreter (3.13.5 built from source; Debian's 3.14 and
3.15 with the merged files overlaid):

1. the enum module that runs is the patched one (its EnumType has
   from_value, and its file is byte for byte the one the tool made);
2. the interpreter's own stdlib suites that lean on enum pass;
3. enum_backport cannot be imported, so what follows tests the native API;
4. tests/test_behaviour*.py pass (plain unittest: no pytest there);
5. the property, bad-input and thread tests pass, from a venv of that
   interpreter that adds hypothesis.

Refleaks are checked as CPython's refleak buildbots check them, with
`-m test -R 3:3 test_enum` on the debug build: once with the merged files,
and once with the stock ones as the control; both runs go side by side.
"""

import hashlib
import sys

from .base import RUN_DIR
from .util import ToolError, say, side_by_side

SUITES = ["test_enum", "test_re", "test_signal", "test_socket", "test_httplib",
          "test_inspect", "test_pydoc", "test_typing", "test_dataclasses"]
# test_socket's VSOCK tests find /dev/vsock on this kind of VM but no vsock
# loopback transport: connect() fails with ENODEV and accept() times out.
# They fail the same way on the stock interpreters, so say nothing about enum.
IGNORE = ["*VSOCK*"]
NATIVE_TESTS = ["tests.test_properties", "tests.test_bad_inputs", "tests.test_threads"]

PROBE_ENUM = ("import enum, hashlib; print(hasattr(enum.EnumType, 'from_value'));"
              "print(enum.__file__);"
              "print(hashlib.sha256(open(enum.__file__, 'rb').read()).hexdigest())")
# unittest, but every skip is listed with its reason at the end.
UNITTEST = ("import sys, unittest\n"
            "result = unittest.main(module=None, argv=['unittest'] + sys.argv[1:],"
            " exit=False).result\n"
            "for test, reason in result.skipped:\n"
            "    print('skipped: %s: %s' % (test.id(), reason))\n"
            "sys.exit(not result.wasSuccessful())\n")
PROBE_BACKPORT = ("import importlib.util, sys; sys.path[:0] = ['', 'tests'];"
                  "print(importlib.util.find_spec('enum_backport') is None)")


def _check(code, what, interp):
    if code != 0:
        raise ToolError("%s failed on %s (exit %d)" % (what, interp.label, code))


def prove(interp, enum_py, repo, venv_dir, jobs=2, work_dir=None, out=None):
    """Steps 1-5 above on INTERP, whose enum must be the file ENUM_PY."""
    out = out or sys.stdout
    probe = interp.capture(["-s", "-c", PROBE_ENUM], cwd=work_dir)
    lines = probe.stdout.split()
    want = hashlib.sha256(enum_py.read_bytes()).hexdigest()
    if probe.returncode != 0 or lines[:1] != ["True"] or lines[-1:] != [want]:
        raise ToolError("%s does not run the patched enum.py (probe said: %s)"
                        % (interp.label, probe.stdout.strip()))
    say("%s runs %s: EnumType.from_value present, sha256 %s... as made"
        % (interp.label, lines[1], want[:16]), out)

    # --rerun, as CPython's own CI runs them: a test that fails is run again
    # alone, verbosely, so that a timing test that lost to the load of the
    # bases running side by side shows as such (regrtest then reports
    # "FAILURE then SUCCESS" and names it); one that fails again fails the run.
    command = ["-s", "-m", "test", "-j%d" % jobs, "--rerun"]
    for pattern in IGNORE:
        command += ["--ignore", pattern]
    say("stdlib suites on %s (test_socket's VSOCK tests left out: this VM has "
        "/dev/vsock but no vsock loopback)" % interp.label, out)
    _check(interp.live(command + SUITES, cwd=work_dir, out=out), "the stdlib suites", interp)

    venv = interp.venv(venv_dir, ["hypothesis"], out=out)
    for who in (interp, venv):
        found = who.capture(["-s", "-c", PROBE_BACKPORT] if who is interp
                            else ["-c", PROBE_BACKPORT], cwd=str(repo))
        if found.stdout.strip() != "True":
            raise ToolError("enum_backport is importable on %s from %s; the tests would "
                            "not test the native API (%s)"
                            % (who.label, repo, found.stdout.strip()))
    say("enum_backport is not importable there (nor from the venv): native API only", out)

    say("behaviour tests on %s, natively" % interp.label, out)
    _check(interp.live(["-s", "-c", UNITTEST, "discover", "-s", "tests", "-p",
                        "test_behaviour*.py"], cwd=str(repo), out=out),
           "the behaviour tests", interp)
    say("property, bad-input and thread tests on %s, natively" % interp.label, out)
    _check(venv.live(["-c", UNITTEST] + NATIVE_TESTS, cwd=str(repo), out=out),
           "the property, bad-input and thread tests", interp)


def refleaks(base, merged, out=None):
    """`-m test -R 3:3 test_enum` on BASE's debug build, merged and stock, side by side."""
    def one(overlay):
        def job(log):
            with base.interpreter(overlay=overlay, debug=True) as interp:
                code = interp.live(["-s", "-m", "test", "-R", "3:3", "test_enum"],
                                   cwd=RUN_DIR, out=log)
            _check(code, "-R 3:3 test_enum", interp)
        return job

    side_by_side([("refleaks %s, merged" % base.version, one(merged)),
                  ("refleaks %s, stock (control)" % base.version, one(None))], out)
