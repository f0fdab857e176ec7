"""`python -m enum_backport test` given bad input, and how it counts.

Each bad input (a ledger that cannot be read, is not JSON or is not shaped
as a ledger; a suite this interpreter does not have; a timeout that is not
positive) gets one line on stderr that says what is wrong, nothing on
stdout, no traceback, and exit status 2, before any suite runs.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import backport_only, enum_backport

PREFIX = 'python -m enum_backport test: error: '


@backport_only
class CommandLine(unittest.TestCase):

    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix='enum-backport-cli-')
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def run_test(self, *args):
        # From the directory that holds the package, so that `-m` finds
        # the one imported here (a source tree or site-packages).
        return subprocess.run(
            [sys.executable, '-m', 'enum_backport', 'test'] + list(args),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, timeout=300,
            cwd=os.path.dirname(os.path.dirname(enum_backport.__file__)))

    def assertOneLineError(self, args, *fragments):
        result = self.run_test(*args)
        output = 'stdout:\n%s\nstderr:\n%s' % (result.stdout, result.stderr)
        self.assertEqual(result.returncode, 2, output)
        self.assertEqual(result.stdout, '', output)
        self.assertNotIn('Traceback', result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, output)
        self.assertTrue(lines[0].startswith(PREFIX), output)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        return lines[0]

    def test_a_ledger_that_does_not_exist(self):
        path = os.path.join(self.scratch, 'missing.json')
        self.assertOneLineError(['--ledger', path],
                                'cannot read the ledger %s: ' % path)

    def test_a_ledger_that_is_a_directory(self):
        self.assertOneLineError(['--ledger', self.scratch],
                                'cannot read the ledger %s: ' % self.scratch)

    def test_a_ledger_that_is_not_json(self):
        path = self.write('ledger.json', '{"expected_failures": {')
        self.assertOneLineError(['--ledger', path],
                                'the ledger %s is not valid JSON: ' % path)

    def test_a_ledger_that_is_not_utf8(self):
        path = os.path.join(self.scratch, 'ledger.json')
        with open(path, 'wb') as f:
            f.write(b'{"exclude": {"\xff": {}}}')
        self.assertOneLineError(['--ledger', path],
                                'the ledger %s is not valid JSON: ' % path)

    def test_ledgers_not_shaped_as_a_ledger(self):
        cases = [
            ([], 'it holds a JSON array, not an object'),
            (7, 'it holds a JSON number, not an object'),
            ({'expected_failure': {}}, "unknown key 'expected_failure'"),
            ({'expected_failures': {'3.11': {'test_enum': ['t.a']}}},
             "'expected_failures' is not {version: {suite: {test id: reason}}}"),
            ({'expected_failures': {'3.11': {'test_enum': {'t.a': None}}}},
             "'expected_failures' is not"),
            ({'recorded_on': {'3.11': '3.11.7'}}, "'recorded_on' is not"),
            ({'exclude': {'test_enum': {'*x*': {'on': '3.11', 'reason': 'why'}}}},
             "'exclude' is not"),
            ({'exclude': {'test_enum': {'*x*': {'reason': 'why'}}}}, "'exclude' is not"),
        ]
        for ledger, problem in cases:
            with self.subTest(ledger=ledger):
                path = self.write('ledger.json', json.dumps(ledger))
                self.assertOneLineError(
                    ['--ledger', path],
                    'the ledger %s is not shaped as a ledger: %s' % (path, problem))

    def test_an_unknown_suite_names_those_that_exist(self):
        where = importlib.util.find_spec('test').submodule_search_locations[0]
        line = self.assertOneLineError(
            ['test_enum', 'test_enmu'], "no stdlib suite 'test_enmu' on Python ",
            '(did you mean test_enum?)', 'suites are the test_* modules in ', where)
        self.assertRegex(line, r'its \d{3,} suites')

    def test_a_suite_with_no_close_name(self):
        line = self.assertOneLineError(['no_such_suite'], "no stdlib suite 'no_such_suite'")
        self.assertNotIn('did you mean', line)

    def test_a_timeout_that_is_not_positive(self):
        for timeout in ('0', '-3', '-0.5'):
            with self.subTest(timeout=timeout):
                self.assertOneLineError(['--timeout', timeout],
                                        '--timeout is the seconds a suite may take, '
                                        'a positive number, not ' + timeout)

    def test_a_timeout_in_fractions_of_a_second(self):
        # Seconds, not whole seconds: no suite finishes in a millisecond,
        # so the child is killed, and the run says so.
        result = self.run_test('--timeout', '0.001', 'test_keyword')
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn('test_keyword: did not finish within 0.001 s; the child was killed',
                      result.stdout.splitlines())

    def test_the_summary_says_which_failures_are_expected(self):
        # Under the backport some stdlib tests fail on purpose; the ledger
        # lists them.  The summary must say that those failures are
        # expected, rather than "N failed" and nothing more.
        from enum_backport import _stdlib
        filed_under, expected = _stdlib.ledger_entries(_stdlib.load_ledger(), 'test_enum')
        self.assertTrue(expected, 'the ledger lists no test_enum failure for this Python')
        result = self.run_test('test_enum')
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        summary, = [line for line in lines if line.startswith('test_enum on ')]
        count = len(expected)
        self.assertIn(', %d failed, %s expected under the backport (listed in the ledger for %s, '
                      'checked on ' % (count, 'all %d' % count if count > 1 else 'it',
                                       filed_under), summary)
        self.assertIn('%s what the backport changes)' % ('they assert' if count > 1
                                                         else 'it asserts'), summary)
        self.assertEqual(lines[-1], '0 discrepancies with the ledger (every test that failed '
                                    'is one it lists, and every test it lists failed)')
        # With a ledger that lists none of them, the same failures are not
        # expected, and each is a discrepancy.
        path = self.write('ledger.json', '{}')
        result = self.run_test('--ledger', path, 'test_enum')
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        summary, = [line for line in lines if line.startswith('test_enum on ')]
        self.assertIn(', %d failed, none of them listed in the ledger, which has no entries '
                      'for %s' % (count, ' or '.join(_stdlib.ledger_keys())), summary)
        self.assertEqual(lines[-1], '%d %s with the ledger' % (
            count, 'discrepancy' if count == 1 else 'discrepancies'))

    def test_discrepancies_are_counted_in_english(self):
        from enum_backport import _stdlib
        # A small suite, with a ledger that lists tests it does not have:
        # each is a discrepancy.
        key = _stdlib.ledger_keys()[1]
        for count, summary in ((1, '1 discrepancy with the ledger'),
                               (2, '2 discrepancies with the ledger')):
            with self.subTest(count=count):
                listed = {'test.test_keyword.NoSuchTest.test_%d' % i: 'a test that is not there'
                          for i in range(count)}
                path = self.write('ledger.json', json.dumps({
                    'expected_failures': {key: {'test_keyword': listed}},
                    'recorded_on': {key: [_stdlib.version_key()]},
                }))
                result = self.run_test('--ledger', path, 'test_keyword')
                self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
                lines = result.stdout.splitlines()
                self.assertEqual(lines[-1], summary, result.stdout)
                for test_id in listed:
                    self.assertIn('  LISTED BUT NOT FOUND %s' % test_id, lines)


@backport_only
class Report(unittest.TestCase):

    def test_the_deprecation_warning_before_the_type_error(self):
        # The package page says so: 3.8 and 3.9 raise TypeError for
        # `1 in Color`; 3.10 and 3.11 (PyPy 3.11 too) warn first; from 3.12
        # `in` checks values.
        result = subprocess.run(
            [sys.executable, '-m', 'enum_backport'], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
            cwd=os.path.dirname(os.path.dirname(enum_backport.__file__)))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = [line.strip() for line in result.stdout.splitlines() if '`1 in Color`' in line]
        version = sys.version_info[:2]
        if version >= (3, 12):
            self.assertEqual(lines, [], result.stdout)
            return
        warns = version >= (3, 10)
        self.assertEqual(lines, ['- `1 in Color` raises TypeError%s instead of checking values'
                                 % (' (after a DeprecationWarning)' if warns else '')],
                         result.stdout)


if __name__ == '__main__':
    unittest.main()
