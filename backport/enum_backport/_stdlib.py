"""Run this interpreter's own stdlib test suites under the backport.

Each suite (``test_enum`` by default) runs in a child interpreter that has
imported enum_backport.  Its failures are then held against the ledger,
which lists, per interpreter version and suite, the tests that fail only
under the backport (because they assert the ``in`` the backport replaces,
or compare help()'s text for it), each with a one-line reason.  A failure
the ledger does not list, or a listed test that passes (or no longer
exists), is a discrepancy, and the run exits non-zero.

The ledger also names tests that are excluded from a suite, with the
reason, because they fail on this interpreter without the backport too.
Running the suites without the backport (``--without-backport``) shows
which those are, and that every test the ledger lists passes there.  With
``--help-text-restored`` they run under the backport with help()'s text
for ``in`` (the docstring and signature of ``__contains__``) put back as
the interpreter has it, which shows which listed tests fail for that text
alone (test_pydoc's, from 3.11): a test that still fails then asserts
something else.

A suite is loaded the way regrtest loads it (through its ``test_main()``
where it has one, as on 3.8), with every test resource enabled except
network access, since tests that need it reach hosts on the internet.
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib
import importlib.util
import json
import os
import pkgutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, TextIO, Tuple
import unittest

#: A ledger as JSON gives it (its shape: `LEDGER_SHAPE`).
Ledger = Dict[str, Any]

try:
    from importlib import resources as _resources
except ImportError:  # pragma: no cover
    _resources = None

DEFAULT_SUITES = ('test_enum',)

#: The test resources enabled in the child: regrtest's, less 'network' and
#: 'urlfetch' (the internet), 'largefile' (gigabytes of disk) and those that
#: need a terminal, a display or sound.
RESOURCES = ('cpu', 'decimal', 'subprocess', 'tzdata', 'walltime')

#: Seconds a suite may take before the child is killed and the run fails.
DEFAULT_TIMEOUT = 1800


def version_key(info: Optional[Sequence[int]] = None) -> str:
    return '%d.%d.%d' % tuple(sys.version_info[:3] if info is None else info[:3])


def ledger_keys(info: Optional[Sequence[int]] = None,
                implementation: Optional[str] = None) -> Tuple[str, str]:
    """The keys the ledger may file this interpreter under, the exact one first.

    Entries are filed by minor version ('3.15'), so that the next patch
    release finds them, unless a patch release needs entries of its own
    ('3.13.0').  Another implementation's keys carry its name ('pypy3.11').
    """
    implementation = implementation or sys.implementation.name
    prefix = '' if implementation == 'cpython' else implementation
    exact = version_key(info)
    return prefix + exact, prefix + exact.rsplit('.', 1)[0]


def default_ledger_path() -> str:
    """The ledger the wheel ships, or the source tree's when run from there."""
    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.join(here, 'ledger.json')
    if os.path.exists(shipped):
        return shipped
    return os.path.join(here, os.pardir, os.pardir, 'tests', 'ledger.json')


class LedgerError(ValueError):
    """The ledger cannot be read, is not JSON, or is not shaped as a ledger."""


def load_ledger(path: Optional[str] = None) -> Ledger:
    """The ledger at `path` (default: `default_ledger_path`), checked.

    Raise LedgerError, saying in one line what is wrong, if the file cannot
    be read, is not JSON, or is not shaped as `ledger_problem` expects.
    """
    if path is None:
        path = default_ledger_path()
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as error:
        raise LedgerError('cannot read the ledger %s: %s'
                          % (path, error.strerror or error)) from None
    try:
        ledger = json.loads(data.decode('utf-8'))
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise LedgerError('the ledger %s is not valid JSON: %s' % (path, error)) from None
    problem = ledger_problem(ledger)
    if problem:
        raise LedgerError('the ledger %s is not shaped as a ledger: %s' % (path, problem))
    return ledger


def _mapping(value: object, values_fit: Callable[[object], bool]) -> bool:
    return isinstance(value, dict) and all(
        isinstance(key, str) and values_fit(item) for key, item in value.items())


def _text(value: object) -> bool:
    return isinstance(value, str)


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(map(_text, value))


def _exclusion(value: object) -> bool:
    return _text(value) or (isinstance(value, dict) and set(value) == {'on', 'reason'}
                            and _texts(value['on']) and _text(value['reason']))


#: What each key of a ledger holds, as said in an error, and its check.
LEDGER_SHAPE: Dict[str, Tuple[str, Callable[[object], bool]]] = {
    'expected_failures': (
        '{version: {suite: {test id: reason}}}',
        lambda v: _mapping(v, lambda s: _mapping(s, lambda t: _mapping(t, _text)))),
    'recorded_on': ('{version: [version, ...]}', lambda v: _mapping(v, _texts)),
    'exclude': (
        '{suite: {pattern: reason, or {"on": [version, ...], "reason": reason}}}',
        lambda v: _mapping(v, lambda s: _mapping(s, _exclusion))),
}


def ledger_problem(ledger: object) -> Optional[str]:
    """What keeps `ledger` (parsed JSON) from being a ledger, or None."""
    if not isinstance(ledger, dict):
        return 'it holds a JSON %s, not an object' % {
            list: 'array', str: 'string', bool: 'boolean', type(None): 'null',
        }.get(type(ledger), 'number')
    unknown = sorted(set(ledger) - set(LEDGER_SHAPE))
    if unknown:
        return 'unknown key %s (a ledger has %s)' % (
            ', '.join(map(repr, unknown)), ', '.join(LEDGER_SHAPE))
    for key, (shape, fits) in LEDGER_SHAPE.items():
        if key in ledger and not fits(ledger[key]):
            return '%r is not %s' % (key, shape)
    return None


def suite_problem(suite: str) -> Optional[str]:
    """Why `suite` names no stdlib suite of this interpreter, or None.

    The suites are the ``test_*`` modules and packages of the ``test``
    package, found without importing them.
    """
    spec = importlib.util.find_spec('test')
    if spec is None or not spec.submodule_search_locations:
        return ("this interpreter has no stdlib test package ('test'), so no suite to run "
                '(Debian and Ubuntu ship it as libpython%d.%d-testsuite)'
                % sys.version_info[:2])
    locations = list(spec.submodule_search_locations)
    suites = sorted({name for _, name, _ in pkgutil.iter_modules(locations)
                     if name.startswith('test_')})
    if suite in suites:
        return None
    close = difflib.get_close_matches(suite, suites, n=1)
    return ('no stdlib suite %r on Python %s%s; its %d suites are the test_* modules in %s'
            ' (%s is the default)' % (
                suite, version_key(), ' (did you mean %s?)' % close[0] if close else '',
                len(suites), os.pathsep.join(locations), ' '.join(DEFAULT_SUITES)))


def ledger_entries(ledger, suite, info=None, implementation=None):
    """Return (the key the entries are filed under or None, {test id: reason})."""
    recorded = ledger.get('expected_failures', {})
    for key in ledger_keys(info, implementation):
        if key in recorded:
            return key, recorded[key].get(suite, {})
    return None, {}


def recorded_on(ledger, key):
    """The exact versions the entries filed under `key` were checked on."""
    return ledger.get('recorded_on', {}).get(key, [])


def exclusions(ledger, suite, info=None, implementation=None):
    """{pattern: reason} of the tests left out of `suite` on this interpreter.

    An exclusion is a reason (it applies everywhere) or ``{"on": [key,
    ...], "reason": ...}`` with the ledger keys it applies to.
    """
    keys = set(ledger_keys(info, implementation))
    found = {}
    for pattern, entry in ledger.get('exclude', {}).get(suite, {}).items():
        if isinstance(entry, dict):
            if keys.isdisjoint(entry['on']):
                continue
            entry = entry['reason']
        found[pattern] = entry
    return found


def _iter_tests(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _iter_tests(test)
        else:
            yield test


def load_suite(suite_name):
    """Load stdlib suite `suite_name` as regrtest would run it."""
    module = importlib.import_module('test.' + suite_name)
    if hasattr(module, 'test_main'):
        # An old-style suite (3.8) names its test classes in test_main(),
        # and its module also holds mixin TestCases that only work combined.
        return _collect_test_main(module)
    return unittest.defaultTestLoader.loadTestsFromModule(module)


def _collect_test_main(module):
    from test import support

    collected = []

    def collect(*tests, **ignored):
        collected.extend(tests)

    patched = [(support, 'run_unittest')]
    if hasattr(module, 'run_unittest'):
        patched.append((module, 'run_unittest'))
    saved = [(owner, name, getattr(owner, name)) for owner, name in patched]
    try:
        for owner, name in patched:
            setattr(owner, name, collect)
        module.test_main()
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite()
    for test in collected:
        if isinstance(test, str):
            suite.addTest(loader.loadTestsFromModule(sys.modules[test]))
        elif isinstance(test, type) and issubclass(test, unittest.TestCase):
            suite.addTest(loader.loadTestsFromTestCase(test))
        else:
            suite.addTest(test)
    return suite


def restore_help_text():
    """Give the patched ``in`` the interpreter's own help() text.

    help() of an enum class then shows the original docstring and signature
    of ``__contains__``.  What stays patched is the behaviour: `in` still
    checks values, but help() no longer describes it.
    """
    import inspect

    from . import _patch

    contains, original = vars(_patch.EnumType)['__contains__'], _patch.original('__contains__')
    contains.__doc__ = original.__doc__
    contains.__signature__ = inspect.signature(original)


def run_in_this_process(suite_name, excluded, verbose=False, backport=True,
                        help_text_restored=False):
    """Run one suite here; return a dict of what ran and what failed."""
    if backport:
        import enum_backport  # noqa: F401  (patches enum before the tests run)
        if help_text_restored:
            restore_help_text()
    else:
        enum_type = getattr(__import__('enum'), 'EnumType', None)
        if enum_type is not None and 'from_value' in enum_type.__dict__:
            if getattr(enum_type.from_value, '__enum_backport__', False):
                raise RuntimeError('enum_backport was imported in a run without it')
    notes = []
    try:
        import _testcapi  # noqa: F401
    except ImportError:
        pass
    except Exception as exc:
        # PyPy builds _testcapi from C source on first import; where that
        # cannot be done (Debian's PyPy ships no _testcapimodule.c) the
        # import fails with another error, which test.support does not
        # catch.  Blocked, it raises ImportError, and the tests that need
        # it skip, as on a CPython built without its test modules.
        sys.modules['_testcapi'] = None
        notes.append('_testcapi cannot be imported here (%s: %s), so the tests that '
                     'need it skip' % (type(exc).__name__, exc))
    from test import support

    support.use_resources = list(RESOURCES)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # A run started in the background (`cmd &`, nohup) hands its
        # children SIGINT ignored, and test_signal's KeyboardInterrupt
        # tests would fail for that; restore what an interpreter started
        # in the foreground has.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    loaded = load_suite(suite_name)
    kept, dropped = unittest.TestSuite(), []
    for test in _iter_tests(loaded):
        if any(fnmatch.fnmatchcase(test.id(), pattern) for pattern in excluded):
            dropped.append(test.id())
        else:
            kept.addTest(test)
    kept_ids = sorted(test.id() for test in _iter_tests(kept))
    stream = sys.stderr if verbose else open(os.devnull, 'w')
    result = unittest.TextTestRunner(
        stream=stream, verbosity=2 if verbose else 0,
    ).run(kept)
    failed = {}
    for test, trace in result.failures + result.errors:
        failed[test.id()] = trace.strip().splitlines()[-1]
    for test in result.unexpectedSuccesses:
        failed[test.id()] = 'unexpected success'
    return {
        'backport': backport,
        'ran': result.testsRun,
        'skipped': len(result.skipped),
        'excluded': dropped,
        'failed': failed,
        'all': kept_ids,
        'notes': notes,
    }


def child_main(argv: Sequence[str]) -> int:
    """Run one suite in this (child) process and write the result as JSON."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument('suite')
    parser.add_argument('--result', required=True)
    parser.add_argument('--ledger')
    parser.add_argument('--verbose', action='store_true')
    parser.add_argument('--without-backport', action='store_true')
    parser.add_argument('--help-text-restored', action='store_true')
    args = parser.parse_args(argv)
    excluded = exclusions(load_ledger(args.ledger), args.suite)
    result = run_in_this_process(
        args.suite, excluded, args.verbose, backport=not args.without_backport,
        help_text_restored=args.help_text_restored)
    with open(args.result, 'w', encoding='utf-8') as f:
        json.dump(result, f)
    return 0


# The child of a run without the backport is this script, written to a
# temporary file: it loads this module by its path, so that importing the
# enum_backport package cannot patch enum first.  (A `python -c` child
# would leave its own source in linecache as '<string>' on 3.13.0, which
# test_inspect notices.)
#
# It runs the suite only as the main script: multiprocessing's forkserver,
# the default from 3.14, imports the main script again in its server.
_CHILD_WITHOUT_BACKPORT = """\
import importlib.util, os, sys
if __name__ == '__main__':
    sys.path[0] = os.getcwd()  # as under `python -m`
    spec = importlib.util.spec_from_file_location('_enum_backport_stdlib', sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.exit(module.child_main(sys.argv[2:]))
"""


def _child_command(suite, tmp, result_path, ledger_path, verbose, backport,
                   help_text_restored=False):
    if backport:
        command = [sys.executable, '-m', 'enum_backport', '_run-one', suite]
        if help_text_restored:
            command.append('--help-text-restored')
    else:
        script = os.path.join(tmp, 'run_without_backport.py')
        with open(script, 'w', encoding='utf-8') as f:
            f.write(_CHILD_WITHOUT_BACKPORT)
        command = [sys.executable, script, os.path.abspath(__file__), suite,
                   '--without-backport']
    command += ['--result', result_path]
    if ledger_path:
        command += ['--ledger', os.path.abspath(ledger_path)]
    if verbose:
        command.append('--verbose')
    return command


def describe_failures(failed: Iterable[str], expected: Dict[str, str], ledger_for: str) -> str:
    """The failures of a suite run under the backport, held against the ledger, in words.

    `ledger_for` says which of the ledger's entries applied ("in the ledger
    for 3.8, checked on 3.8.18").
    """
    failed = list(failed)
    count, listed = len(failed), sum(1 for test_id in failed if test_id in expected)
    if not count:
        return '0 failed (%d listed %s)' % (len(expected), ledger_for)
    if listed == count:
        return '%d failed, %s expected under the backport (listed %s: %s what the backport ' \
               'changes)' % (count, 'all %d' % count if count > 1 else 'it', ledger_for,
                            'they assert' if count > 1 else 'it asserts')
    if not listed:
        return '%d failed, none of them listed %s' % (count, ledger_for)
    return '%d failed: %d expected under the backport (listed %s), %d not listed' % (
        count, listed, ledger_for, count - listed)


def _print_tail(output, out, lines=30):
    if output:
        text = output.decode('utf-8', 'replace') if isinstance(output, bytes) else output
        for line in text.splitlines()[-lines:]:
            print('  | ' + line, file=out)


def run(suites: Iterable[str] = DEFAULT_SUITES, ledger_path: Optional[str] = None,
        verbose: bool = False, out: Optional[TextIO] = None, backport: bool = True,
        timeout: float = DEFAULT_TIMEOUT, help_text_restored: bool = False) -> int:
    """Run each suite in a child interpreter and compare with the ledger.

    Under the backport (the default) a failure the ledger does not list,
    and a listed test that passes or is not found, is a discrepancy.
    Without it (``backport=False``) every failure is one, since the
    ledger's exclusions should have removed them, and so is a listed test
    that is not found.  With ``help_text_restored`` (see `restore_help_text`)
    an unlisted failure and a listed test not found are discrepancies, and
    the listed tests that still fail are named.  Return the number of
    discrepancies (0 means the run agrees).
    """
    out = sys.stdout if out is None else out
    ledger = load_ledger(ledger_path)
    print('Ledger: %s' % os.path.abspath(ledger_path or default_ledger_path()), file=out)
    discrepancies = 0
    under = 'under enum_backport' if backport else 'without enum_backport'
    if backport and help_text_restored:
        under += ', help text of in restored'
    for suite in suites:
        excluded = exclusions(ledger, suite)
        filed_under, expected = ledger_entries(ledger, suite)
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            result_path = os.path.join(tmp, 'result.json')
            command = _child_command(suite, tmp, result_path, ledger_path, verbose, backport,
                                     help_text_restored)
            # What the tests print is shown with --verbose, or when the
            # child does not report.
            captured = None if verbose else subprocess.PIPE
            try:
                child = subprocess.run(command, timeout=timeout, stdin=subprocess.DEVNULL,
                                       stdout=captured, stderr=captured and subprocess.STDOUT)
            except subprocess.TimeoutExpired as timed_out:
                print('%s: did not finish within %g s; the child was killed'
                      % (suite, timeout), file=out)
                _print_tail(timed_out.output, out)
                discrepancies += 1
                continue
            if not os.path.exists(result_path):
                print('%s: the child interpreter died (exit %s) before reporting'
                      % (suite, child.returncode), file=out)
                _print_tail(child.stdout, out)
                discrepancies += 1
                continue
            with open(result_path, encoding='utf-8') as f:
                result = json.load(f)
        elapsed = time.monotonic() - started
        failed, ran_ids = result['failed'], set(result['all'])
        missing = sorted(t for t in expected if t not in ran_ids)
        if backport:
            unlisted = sorted(set(failed) - set(expected))
            passing = sorted(t for t in expected if t in ran_ids and t not in failed)
            if help_text_restored:
                passing = []
        else:
            unlisted, passing = sorted(failed), []
        if filed_under is None:
            where = 'none for %s' % ' or '.join(ledger_keys())
            ledger_for = 'in the ledger, which has no entries for %s' % ' or '.join(ledger_keys())
        else:
            where = 'for %s, checked on %s' % (
                filed_under, ', '.join(recorded_on(ledger, filed_under)) or 'no version named')
            ledger_for = 'in the ledger ' + where
        if backport and not help_text_restored:
            failures = describe_failures(failed, expected, ledger_for)
        else:
            failures = '%d failed (%d listed in the ledger, %s)' % (
                len(failed), len(expected), where)
        print('%s on %s %s: %d run, %d skipped, %d excluded, %s in %.0f s' % (
            suite, version_key(), under, result['ran'], result['skipped'],
            len(result['excluded']), failures, elapsed), file=out)
        for note in result.get('notes', ()):
            print('  note: ' + note, file=out)
        for pattern, reason in excluded.items():
            matched = sum(1 for t in result['excluded'] if fnmatch.fnmatchcase(t, pattern))
            if matched:
                print('  excluded %s (%d): %s' % (pattern, matched, reason), file=out)
        if backport and help_text_restored:
            listed_passing = sum(1 for t in expected if t in ran_ids and t not in failed)
            print('  %d of the %d tests the ledger lists pass with the help text of in restored'
                  % (listed_passing, len(expected)), file=out)
            for test_id in sorted(set(failed) & set(expected)):
                print('  still fails %s: %s' % (test_id, failed[test_id]), file=out)
            for test_id in unlisted:
                print('  UNLISTED FAILURE %s: %s' % (test_id, failed[test_id]), file=out)
        elif backport:
            for test_id in sorted(set(failed) & set(expected)):
                print('  expected failure %s: %s' % (test_id, expected[test_id]), file=out)
            for test_id in unlisted:
                print('  UNLISTED FAILURE %s: %s' % (test_id, failed[test_id]), file=out)
        else:
            listed_passing = sum(1 for t in expected if t in ran_ids and t not in failed)
            if expected:
                print('  %d of the %d tests the ledger lists pass without the backport'
                      % (listed_passing, len(expected)), file=out)
            for test_id in unlisted:
                print('  FAILS WITHOUT THE BACKPORT %s: %s' % (test_id, failed[test_id]),
                      file=out)
        for test_id in passing:
            print('  LISTED BUT PASSES %s' % test_id, file=out)
        for test_id in missing:
            print('  LISTED BUT NOT FOUND %s' % test_id, file=out)
        discrepancies += len(unlisted) + len(passing) + len(missing)
    return discrepancies
