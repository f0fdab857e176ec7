"""Run this interpreter's own stdlib test suites under the backport.

Each suite (``test_enum`` by default) runs in a child interpreter that has
imported enum_backport.  Its failures are then held against the ledger,
which lists, per interpreter version and suite, the tests that fail only
under the backport because they assert the behaviour the 2021 thread
changed, each with a one-line reason.  A failure the ledger does not list,
or a listed test that passes (or no longer exists), is a discrepancy, and
the run exits non-zero.

The ledger also names tests that are excluded from a suite, with the
reason, because they fail on this interpreter without the backport too.
"""

import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    from importlib import resources as _resources
except ImportError:  # pragma: no cover
    _resources = None

DEFAULT_SUITES = ('test_enum',)


def version_key(info=None):
    info = info or sys.version_info
    return '%d.%d.%d' % tuple(info[:3])


def default_ledger_path():
    """The ledger the wheel ships, or the source tree's when run from there."""
    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.join(here, 'ledger.json')
    if os.path.exists(shipped):
        return shipped
    return os.path.join(here, os.pardir, os.pardir, 'tests', 'ledger.json')


def load_ledger(path=None):
    if path is None:
        path = default_ledger_path()
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def ledger_entries(ledger, suite, info=None):
    """Return (version the entries were recorded for, {test id: reason})."""
    recorded = ledger.get('expected_failures', {})
    wanted = version_key(info)
    if wanted in recorded:
        return wanted, recorded[wanted].get(suite, {})
    # An interpreter the ledger was not made on: take the nearest earlier
    # release of the same minor version, and say so.
    major_minor = wanted.rsplit('.', 1)[0] + '.'
    candidates = sorted(
        (v for v in recorded if v.startswith(major_minor)),
        key=lambda v: tuple(map(int, v.split('.'))),
    )
    earlier = [v for v in candidates
               if tuple(map(int, v.split('.'))) <= tuple(map(int, wanted.split('.')))]
    chosen = (earlier or candidates or [None])[-1]
    if chosen is None:
        return None, {}
    return chosen, recorded[chosen].get(suite, {})


def exclusions(ledger, suite):
    return ledger.get('exclude', {}).get(suite, {})


def _iter_tests(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _iter_tests(test)
        else:
            yield test


def run_in_this_process(suite_name, excluded, verbose=False):
    """Run one suite here; return a dict of what ran and what failed."""
    import enum_backport  # noqa: F401  (patches enum before the tests run)

    loaded = unittest.defaultTestLoader.loadTestsFromName('test.' + suite_name)
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
        'ran': result.testsRun,
        'skipped': len(result.skipped),
        'excluded': dropped,
        'failed': failed,
        'all': kept_ids,
    }


def run(suites=DEFAULT_SUITES, ledger_path=None, verbose=False, out=sys.stdout):
    """Run each suite in a child interpreter and compare with the ledger.

    Return the number of discrepancies (0 means the run agrees).
    """
    ledger = load_ledger(ledger_path)
    discrepancies = 0
    for suite in suites:
        excluded = exclusions(ledger, suite)
        recorded_for, expected = ledger_entries(ledger, suite)
        with tempfile.TemporaryDirectory() as tmp:
            result_path = os.path.join(tmp, 'result.json')
            command = [sys.executable, '-m', 'enum_backport', '_run-one', suite,
                       '--result', result_path]
            if ledger_path:
                command += ['--ledger', ledger_path]
            if verbose:
                command.append('--verbose')
            child = subprocess.run(command)
            if not os.path.exists(result_path):
                print('%s: the child interpreter died (exit %s) before reporting'
                      % (suite, child.returncode), file=out)
                discrepancies += 1
                continue
            with open(result_path, encoding='utf-8') as f:
                result = json.load(f)
        failed, ran_ids = result['failed'], set(result['all'])
        unlisted = sorted(set(failed) - set(expected))
        passing = sorted(t for t in expected if t in ran_ids and t not in failed)
        missing = sorted(t for t in expected if t not in ran_ids)
        print('%s on %s under enum_backport: %d run, %d skipped, %d excluded, '
              '%d failed (%d listed in the ledger%s)' % (
                  suite, version_key(), result['ran'], result['skipped'],
                  len(result['excluded']), len(failed), len(expected),
                  '' if recorded_for in (None, version_key())
                  else ', entries recorded on %s' % recorded_for),
              file=out)
        for pattern, reason in excluded.items():
            print('  excluded %s: %s' % (pattern, reason), file=out)
        for test_id in sorted(set(failed) & set(expected)):
            print('  expected failure %s: %s' % (test_id, expected[test_id]), file=out)
        for test_id in unlisted:
            print('  UNLISTED FAILURE %s: %s' % (test_id, failed[test_id]), file=out)
        for test_id in passing:
            print('  LISTED BUT PASSES %s' % test_id, file=out)
        for test_id in missing:
            print('  LISTED BUT NOT FOUND %s' % test_id, file=out)
        discrepancies += len(unlisted) + len(passing) + len(missing)
    return discrepancies
