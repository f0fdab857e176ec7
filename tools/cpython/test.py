"""Prove the change on an interpreter of a base, and check it for refleaks.

On each patched interpreter (docs/cpython-change.rst, "How each PR is
proven"): its enum is the patched one, the stdlib suites that lean on enum
pass, enum_backport cannot be imported, the behaviour tests pass natively
(without a PR, those that need no missing PR: `selection`), and its own stock
test_enum.py fails only what the ledger lists (texts.py).  `refleaks` runs
`-m test -R 3:3 test_enum` on the debug build, each PR set and stock.
"""

import ast
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from . import change, texts
from .base import RUN_DIR
from .util import ToolError, say, side_by_side

SUITES = ["test_enum", "test_re", "test_signal", "test_socket", "test_httplib",
          "test_inspect", "test_pydoc", "test_typing", "test_dataclasses"]
# test_socket's VSOCK tests find /dev/vsock on this kind of VM but no vsock
# loopback transport: connect() fails with ENODEV and accept() times out.
# They fail the same way on the stock interpreters, so say nothing about enum.
IGNORE = ["*VSOCK*"]
NATIVE_TESTS = ["tests.test_properties", "tests.test_bad_inputs", "tests.test_threads"]

FEATURE_NAMES = frozenset(["from_value", "from_name"])
# What names a PR's behaviour in a test (tests/_support.py's needs_backports
# and needs_flag_pr mark the tests of those PRs' behaviour that name no
# feature).
BACKPORT_MARK = frozenset(["needs_backports"])
PR_NAMES = {"unhashable": BACKPORT_MARK, "missing": BACKPORT_MARK,
            "feature": FEATURE_NAMES, "flag": frozenset(["needs_flag_pr"])}
# A test that touches these needs the backport, whichever methods it uses.
BACKPORT_NAMES = frozenset(["enum_backport", "backport_only"])

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
# Without the feature enum has no from_value, so tests/_support.py imports
# enum_backport (to patch it in); here that would test the backport, not
# the PRs, and the tool proves enum_backport is not importable.  The
# selected tests use neither method nor the backport, so an empty stand-in
# module lets their modules import; any use of it fails the test.
NO_FEATURE_RUNNER = (
    "import enum, sys, types, unittest\n"
    "if hasattr(enum.EnumMeta, 'from_value'):  # EnumType's old name\n"
    "    sys.exit('this enum has from_value: not without the feature')\n"
    "stand_in = types.ModuleType('enum_backport')\n"
    "def _refuse(name):\n"
    "    raise AttributeError('enum_backport.%s: a stand-in where enum has no from_value' % name)\n"
    "stand_in.__getattr__ = _refuse\n"
    "sys.modules['enum_backport'] = stand_in\n"
    "sys.path[:0] = ['tests']\n"
    "suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])\n"
    "result = unittest.TextTestRunner(verbosity=1).run(suite)\n"
    "for test, reason in result.skipped:\n"
    "    print('skipped: %s: %s' % (test.id(), reason))\n"
    "sys.exit(not result.wasSuccessful())\n")
# The selected tests, by id, from tests/ (with the feature there).
SELECTED_RUNNER = "import sys\nsys.path[:0] = ['tests']\n" + UNITTEST
# The interpreter's own test_enum.py from a directory of its own (argv[1]),
# as a top-level module: it names itself by __name__ only.
STOCK_RUNNER = (
    "import json, sys, unittest\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "import test_enum\n"
    "if not test_enum.__file__.startswith(sys.argv[1]):\n"
    "    sys.exit('imported %s, not the stock file' % test_enum.__file__)\n"
    "ran = []\n"
    "class Result(unittest.TextTestResult):\n"
    "    def startTest(self, test):\n"
    "        super().startTest(test)\n"
    "        ran.append(test)\n"
    "suite = unittest.defaultTestLoader.loadTestsFromModule(test_enum)\n"
    "result = unittest.TextTestRunner(verbosity=1, resultclass=Result).run(suite)\n"
    "def name(test):\n"
    "    return '.'.join(getattr(test, 'test_case', test).id().split(' ')[0].split('.')[-2:])\n"
    "bad = result.failures + result.errors + [(t, '') for t in result.unexpectedSuccesses]\n"
    "print('STOCK-TEST-RESULT ' + json.dumps({'ran': sorted({name(t) for t in ran}),\n"
    "                                      'failed': sorted({name(t) for t, _ in bad})}))\n")
STOCK_MARK = "STOCK-TEST-RESULT "
PROBE_BACKPORT = ("import importlib.util, sys; sys.path[:0] = ['', 'tests'];"
                  "print(importlib.util.find_spec('enum_backport') is None)")


def _check(code, what, interp):
    if code != 0:
        raise ToolError("%s failed on %s (exit %d)" % (what, interp.label, code))


def prove(interp, enum_py, repo, venv_dir, jobs=2, work_dir=None, out=None,
          prs=change.ALL):
    """Prove INTERP, patched with PRS, whose enum must be the file ENUM_PY (all but the ledger)."""
    out = out or sys.stdout
    feature = "feature" in prs
    probe = interp.capture(["-s", "-c", PROBE_ENUM], cwd=work_dir)
    lines = probe.stdout.split()
    want = hashlib.sha256(enum_py.read_bytes()).hexdigest()
    if probe.returncode != 0 or lines[:1] != [str(feature)] or lines[-1:] != [want]:
        raise ToolError("%s does not run the enum.py patched with %s (probe said: %s)"
                        % (interp.label, "+".join(prs), probe.stdout.strip()))
    say("%s runs %s: EnumType.from_value %s, sha256 %s... as made"
        % (interp.label, lines[1], "present" if feature else "absent (no feature)",
           want[:16]), out)

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

    every_pr = tuple(prs) == change.ALL
    venv = interp.venv(venv_dir, ["hypothesis"], out=out) if every_pr else None
    for who in [interp] + ([venv] if venv else []):
        found = who.capture(["-s", "-c", PROBE_BACKPORT] if who is interp
                            else ["-c", PROBE_BACKPORT], cwd=str(repo))
        if found.stdout.strip() != "True":
            raise ToolError("enum_backport is importable on %s from %s; the tests would "
                            "not test the native API (%s)"
                            % (who.label, repo, found.stdout.strip()))
    say("enum_backport is not importable there%s: native API only"
        % (" (nor from the venv)" if venv else ""), out)

    if not every_pr:
        selected, left_out = selection(Path(repo) / "tests", prs)
        say("behaviour tests on %s, natively, with %s: %d tests that need no other PR; "
            "%d left out:" % (interp.label, "+".join(prs), len(selected), len(left_out)), out)
        for test_id in sorted(left_out):
            print("  left out: %s (%s)" % (test_id, left_out[test_id]), file=out, flush=True)
        runner = SELECTED_RUNNER if feature else NO_FEATURE_RUNNER
        _check(interp.live(["-s", "-c", runner] + selected, cwd=str(repo), out=out),
               "the behaviour tests of %s" % "+".join(prs), interp)
    else:
        say("behaviour tests on %s, natively" % interp.label, out)
        _check(interp.live(["-s", "-c", UNITTEST, "discover", "-s", "tests", "-p",
                            "test_behaviour*.py"], cwd=str(repo), out=out),
               "the behaviour tests", interp)
    if not every_pr:
        say("the property, bad-input and thread tests are left out without all five PRs: "
            "they compare everything with from_value, and hold `in` to creating nothing",
            out)
        return
    say("property, bad-input and thread tests on %s, natively" % interp.label, out)
    _check(venv.live(["-c", UNITTEST] + NATIVE_TESTS, cwd=str(repo), out=out),
           "the property, bad-input and thread tests", interp)


def _mentions(nodes, names):
    """The NAMES that NODES use (attributes, names, strings)."""
    found = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute):
                name = sub.attr
            elif isinstance(sub, ast.Name):
                name = sub.id
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                name = sub.value
            elif isinstance(sub, ast.alias):
                name = sub.asname or sub.name
            else:
                continue
            if name in names:
                found.add(name)
    return found


def _names(nodes):
    return {sub.id for node in nodes for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def selection(tests_dir, prs, pattern="test_behaviour*.py"):
    """(module.Class.method ids to run with PRS; {test id left out: why}).

    A test is left out when it, or what of its module it reaches by name
    (transitively), names what a PR missing from PRS names (PR_NAMES),
    enum_backport or backport_only.
    """
    names = set(BACKPORT_NAMES)
    for pr, pr_names in PR_NAMES.items():
        if pr not in prs:
            names |= pr_names
    selected, left_out = [], {}
    for path in sorted(Path(tests_dir).glob(pattern)):
        module = ast.parse(path.read_text(encoding="utf-8"), str(path))
        tops = {n.name: n for n in module.body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))}
        assigns = {}
        for n in module.body:
            if isinstance(n, ast.Assign):
                for target in n.targets:
                    if isinstance(target, ast.Name):
                        assigns[target.id] = n

        def reach(start):
            """Nodes START reaches by name within the module."""
            seen, todo, nodes = set(), list(start), []
            while todo:
                node = todo.pop()
                nodes.append(node)
                for name in _names([node]):
                    target = tops.get(name) or assigns.get(name)
                    if target is not None and name not in seen:
                        seen.add(name)
                        todo.append(target)
            return nodes

        for cls in [n for n in module.body if isinstance(n, ast.ClassDef)]:
            tests = [n for n in cls.body if isinstance(n, ast.FunctionDef)
                     and n.name.startswith("test")]
            if not tests:
                continue
            shared = [n for n in cls.body if not (isinstance(n, ast.FunctionDef)
                                                  and n.name.startswith("test"))]
            shared += cls.decorator_list + cls.bases
            for base_name in _names(cls.bases):
                base = tops.get(base_name)
                if isinstance(base, ast.ClassDef):
                    shared.append(base)
            for test in tests:
                test_id = "%s.%s.%s" % (path.stem, cls.name, test.name)
                used = _mentions(reach([test] + shared), names)
                if used:
                    left_out[test_id] = "uses " + ", ".join(sorted(used))
                else:
                    selected.append(test_id)
    if not selected:
        raise ToolError("no behaviour test in %s runs with %s alone"
                        % (tests_dir, "+".join(prs)))
    return selected, left_out


def stock_tests(interp, stock_test, base_name, prs, ledger, host_dir, inside_dir=None,
                out=None):
    """The interpreter's own test_enum.py (bytes STOCK_TEST, written to HOST_DIR, seen as
    INSIDE_DIR by INTERP) against the patched enum, judged by the ledger."""
    out = out or sys.stdout
    enum = "+".join(prs)
    (Path(host_dir) / "test_enum.py").write_bytes(stock_test)
    say("%s's own test_enum.py on %s (enum.py patched with %s)"
        % (base_name, interp.label, enum), out)
    with tempfile.TemporaryFile("w+") as log:
        code = interp.live(["-s", "-c", STOCK_RUNNER, inside_dir or host_dir],
                           cwd=inside_dir or host_dir, out=log)
        log.seek(0)
        text = log.read()
    out.write("".join(l for l in text.splitlines(keepends=True)
                      if not l.startswith(STOCK_MARK)))
    marks = [l[len(STOCK_MARK):] for l in text.splitlines() if l.startswith(STOCK_MARK)]
    if not marks:
        raise ToolError("%s's own test_enum.py did not run to the end on %s (exit %d)"
                        % (base_name, interp.label, code))
    result = json.loads(marks[-1])
    allowed = texts.expected_failures(ledger, base_name, enum)
    for test in result["failed"]:
        reason = texts.listed(test, allowed)
        say("  failed: %s%s" % (test, " (listed: %s)" % reason if reason else ""), out)
    problems = texts.judge_stock_run(ledger, base_name, enum, result["ran"], result["failed"])
    if problems:
        raise ToolError("%s's own test_enum.py with %s:\n  %s"
                        % (base_name, enum, "\n  ".join(problems)))
    say("%s's own test_enum.py with %s: %d tests, %d failed, each listed"
        % (base_name, enum, len(result["ran"]), len(result["failed"])), out)


def refleaks(base, merged, out=None):
    """`-m test -R 3:3 test_enum` on BASE's debug build with each overlay of MERGED
    ({PR set label: overlay}) and, as the control, the stock files, side by side."""
    def one(overlay):
        def job(log):
            with base.interpreter(overlay=overlay, debug=True) as interp:
                code = interp.live(["-s", "-m", "test", "-R", "3:3", "test_enum"],
                                   cwd=RUN_DIR, out=log)
            _check(code, "-R 3:3 test_enum", interp)
        return job

    side_by_side([("refleaks %s, merged, %s" % (base.version, enum), one(files))
                  for enum, files in merged.items()]
                 + [("refleaks %s, stock (control)" % base.version, one(None))], out)
