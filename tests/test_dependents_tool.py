"""Tests of tools/dependents' judgement, which need no dependent installed.

The runner fetches and runs other projects' suites; what it concludes from
them is decided by two pure modules, checked here on every interpreter:
compare.py (differences, the allow-list, fails in both runs, id rewrites)
and results.py (pytest's junit files, Django's verbose output, the process
records of the start-up hook).  The data files themselves are checked too:
every allow-list entry and every exclusion must say why, and every release's
pins must pin the release.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import _layout

_layout.require('tools/dependents')

TOOL = Path(__file__).resolve().parent.parent / 'tools' / 'dependents'

compare = _layout.dependents_module('compare')
results = _layout.dependents_module('results')

ENTRY = {'project': 'click', 'interpreters': ['3.8'], 'test': 'tests.test_a::test_x',
         'without': 'passed', 'with': 'failed',
         'why': 'the test asserts that `in` raises TypeError, which the backport changes'}


class Differences(unittest.TestCase):

    def test_changed_and_absent_outcomes_are_differences(self):
        without = {'a': 'passed', 'b': 'failed', 'c': 'skipped', 'd': 'passed'}
        with_ = {'a': 'passed', 'b': 'passed', 'd': 'error', 'e': 'passed'}
        self.assertEqual(compare.differences(without, with_), [
            ('b', 'failed', 'passed'), ('c', 'skipped', 'absent'),
            ('d', 'passed', 'error'), ('e', 'absent', 'passed')])

    def test_identical_runs_have_none(self):
        runs = {'a': 'passed', 'b': 'xfailed', 'c': 'failed'}
        self.assertEqual(compare.differences(runs, dict(runs)), [])

    def test_failing_in_both_counts_failures_and_errors(self):
        without = {'a': 'failed', 'b': 'error', 'c': 'failed', 'd': 'passed'}
        with_ = {'a': 'error', 'b': 'error', 'c': 'passed', 'd': 'failed'}
        self.assertEqual(compare.failing_in_both(without, with_), ['a', 'b'])

    def test_counts(self):
        self.assertEqual(compare.counts({'a': 'passed', 'b': 'passed', 'c': 'skipped'}),
                         {'passed': 2, 'skipped': 1})


class AllowList(unittest.TestCase):

    def test_an_entry_excuses_exactly_its_difference(self):
        found = [('tests.test_a::test_x', 'passed', 'failed'), ('tests.test_a::test_y', 'passed', 'failed')]
        hits, unexpected, stale = compare.judge(found, [ENTRY], 'click', '3.8')
        self.assertEqual(hits, [(found[0], ENTRY)])
        self.assertEqual(unexpected, [found[1]])
        self.assertEqual(stale, [])

    def test_an_entry_whose_difference_is_gone_is_stale(self):
        hits, unexpected, stale = compare.judge([], [ENTRY], 'click', '3.8')
        self.assertEqual((hits, unexpected, stale), ([], [], [ENTRY]))

    def test_other_outcomes_do_not_match(self):
        found = [('tests.test_a::test_x', 'passed', 'error')]
        hits, unexpected, stale = compare.judge(found, [ENTRY], 'click', '3.8')
        self.assertEqual((hits, unexpected, stale), ([], found, [ENTRY]))

    def test_an_entry_speaks_only_of_its_project_and_interpreters(self):
        found = [('tests.test_a::test_x', 'passed', 'failed')]
        for project, interpreter in (('click', '3.15'), ('django', '3.8')):
            hits, unexpected, stale = compare.judge(found, [ENTRY], project, interpreter)
            self.assertEqual((hits, unexpected, stale), ([], found, []))
        anywhere = dict(ENTRY, interpreters='*')
        hits, unexpected, stale = compare.judge(found, [anywhere], 'click', '3.15')
        self.assertEqual((len(hits), unexpected, stale), (1, [], []))

    def test_check_allow_list(self):
        check = lambda entries: compare.check_allow_list(entries, ['click'], ['3.8', '3.15'])  # noqa: E731
        self.assertEqual(check([ENTRY]), [])
        self.assertEqual(check([dict(ENTRY, interpreters='*')]), [])
        for broken, words in (
                (dict(ENTRY, project='flask'), 'unknown project'),
                (dict(ENTRY, interpreters=['3.9']), 'names interpreters'),
                (dict(ENTRY, interpreters='3.8'), 'names interpreters'),
                (dict(ENTRY, without='ok'), 'is not one of'),
                (dict(ENTRY, **{'with': 'passed'}), 'no difference'),
                (dict(ENTRY, why='expected'), 'must say why'),
                ({k: v for k, v in ENTRY.items() if k != 'why'}, 'lacks why')):
            problems = check([broken])
            self.assertEqual(len(problems), 1, problems)
            self.assertIn(words, problems[0])
        self.assertIn('repeats', check([ENTRY, dict(ENTRY)])[0])


class Rewrites(unittest.TestCase):

    def test_ids_made_equal_are_numbered_in_order(self):
        rule = (re.compile(r'\d\d:\d\d:\d\d'), '<now>')
        outcomes = {'t[13:01:02]': 'passed', 'u': 'failed', 't[13:01:03]': 'skipped'}
        rewritten, used = compare.rewrite_ids(outcomes, [rule])
        self.assertEqual(list(rewritten.items()),
                         [('t[<now>]', 'passed'), ('u', 'failed'), ('t[<now>]#2', 'skipped')])
        self.assertEqual(used, {r'\d\d:\d\d:\d\d': 2})

    def test_an_unused_rule_is_counted_as_such(self):
        rewritten, used = compare.rewrite_ids({'a': 'passed'}, [(re.compile('x'), 'y')])
        self.assertEqual((rewritten, used), ({'a': 'passed'}, {'x': 0}))


JUNIT = '''<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="2" tests="7">
<testcase classname="tests.test_a.TestX" name="test_pass[1-2]" time="0.1"/>
<testcase classname="tests.test_a.TestX" name="test_fail" time="0.1"><failure message="no">x</failure></testcase>
<testcase classname="tests.test_a" name="test_error" time="0.1"><failure message="a"/><error message="teardown"/></testcase>
<testcase classname="tests.test_a" name="test_skip" time="0"><skipped type="pytest.skip" message="no db"/></testcase>
<testcase classname="tests.test_a" name="test_xfail" time="0"><skipped type="pytest.xfail" message=""/></testcase>
<testcase classname="" name="tests.test_broken" time="0"><error message="collection failure"/></testcase>
<testcase classname="tests.test_a" name="test_pass[1-2]" time="0"/>
</testsuite></testsuites>
'''

# Django's runtests.py -v 2 on 3.11 and later: docstring lines, a skip, a
# failing subtest (named again in the FAIL: header), an error in
# setUpClass, and an expected failure.
DJANGO_NEW = '''Found 6 test(s).
System check identified no issues (0 silenced).
test_one (app.tests.T.test_one) ... ok
test_two (app.tests.T.test_two)
The docstring's first line. ... ok
test_skip (app.tests.T.test_skip) ... skipped 'needs Pillow'
test_sub (app.tests.T.test_sub) ... test_sub (app.tests.T.test_sub) (n=2) ... FAIL
test_bad (app.tests.T.test_bad) ... ERROR
test_xf (app.tests.T.test_xf) ... expected failure
setUpClass (app.tests.U) ... ERROR

======================================================================
ERROR: setUpClass (app.tests.U)
----------------------------------------------------------------------
Traceback (most recent call last):
RuntimeError

======================================================================
ERROR: test_bad (app.tests.T.test_bad)
----------------------------------------------------------------------
Traceback (most recent call last):
KeyError

======================================================================
FAIL: test_sub (app.tests.T.test_sub) (n=2)
----------------------------------------------------------------------
AssertionError

----------------------------------------------------------------------
Ran 6 tests in 0.010s

FAILED (failures=1, errors=2, skipped=1, expected failures=1)
'''

# The same run on 3.8, which names the class only and prints nothing for a
# failing subtest but its FAIL: header.
DJANGO_OLD = '''test_one (app.tests.T) ... ok
test_sub (app.tests.T) ... ok
test_two (app.tests.T) ... FAIL

======================================================================
FAIL: test_sub (app.tests.T) (n=2)
----------------------------------------------------------------------
FAIL: test_two (app.tests.T)
----------------------------------------------------------------------
Ran 3 tests in 0.010s
'''


class Results(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def test_junit_outcomes(self):
        path = os.path.join(self.folder, 'junit.xml')
        with open(path, 'w') as handle:
            handle.write(JUNIT)
        self.assertEqual(results.junit_outcomes(path), {
            'tests.test_a.TestX::test_pass[1-2]': 'passed',
            'tests.test_a.TestX::test_fail': 'failed',
            'tests.test_a::test_error': 'error',
            'tests.test_a::test_skip': 'skipped',
            'tests.test_a::test_xfail': 'xfailed',
            '::tests.test_broken': 'error',
            'tests.test_a::test_pass[1-2]': 'passed'})

    def test_junit_duplicates_are_numbered(self):
        path = os.path.join(self.folder, 'junit.xml')
        with open(path, 'w') as handle:
            handle.write('<testsuite><testcase classname="a" name="t"/>'
                         '<testcase classname="a" name="t"><failure/></testcase></testsuite>')
        self.assertEqual(results.junit_outcomes(path), {'a::t': 'passed', 'a::t#2': 'failed'})

    def test_a_missing_or_broken_junit_file_is_an_error(self):
        path = os.path.join(self.folder, 'junit.xml')
        with self.assertRaises(results.ResultsError):
            results.junit_outcomes(path)
        with open(path, 'w') as handle:
            handle.write('<testsuite><testcase')
        with self.assertRaises(results.ResultsError):
            results.junit_outcomes(path)

    def test_django_outcomes(self):
        self.assertEqual(results.django_outcomes(DJANGO_NEW), {
            'app.tests.T.test_one': 'passed', 'app.tests.T.test_two': 'passed',
            'app.tests.T.test_skip': 'skipped', 'app.tests.T.test_sub': 'failed',
            'app.tests.T.test_bad': 'error', 'app.tests.T.test_xf': 'xfailed',
            'app.tests.U.setUpClass': 'error'})
        self.assertEqual(results.django_outcomes(DJANGO_OLD), {
            'app.tests.T.test_one': 'passed', 'app.tests.T.test_sub': 'failed',
            'app.tests.T.test_two': 'failed'})

    def test_django_output_that_does_not_add_up_is_an_error(self):
        with self.assertRaisesRegex(results.ResultsError, 'ran 7 tests; its output names 6'):
            results.django_outcomes(DJANGO_NEW.replace('Ran 6 tests', 'Ran 7 tests'))
        with self.assertRaisesRegex(results.ResultsError, '0 .Ran N tests. lines'):
            results.django_outcomes(DJANGO_NEW.replace('Ran 6 tests', 'Walked 6 tests'))

    def record(self, **fields):
        record = {'pid': 1, 'argv': ['/v/lib/python3.8/site-packages/pytest/__main__.py'],
                  'enum_backport_loaded': True, 'patched': ['from_value'],
                  'from_value_file': '/v/site-packages/enum_backport/_lookup.py',
                  'from_value_from_backport': True, 'contains_from_backport': True}
        record.update(fields)
        return record

    def test_the_backport_where_it_should_be(self):
        absent = self.record(enum_backport_loaded=False, patched=[], from_value_file=None,
                             from_value_from_backport=False, contains_from_backport=False)
        child = dict(self.record(), argv=['-c'])
        ok, account = results.check_effect([self.record(), child], 'pytest', True)
        self.assertTrue(ok, account)
        self.assertIn('active in the test process', account)
        self.assertIn('1 child process', account)
        self.assertTrue(results.check_effect([absent], 'pytest', False)[0])

    def test_the_backport_where_it_should_not_be(self):
        absent = self.record(enum_backport_loaded=False, patched=[], from_value_file=None,
                             from_value_from_backport=False, contains_from_backport=False)
        # imported, but its `in` was not on the metaclass at exit
        undone = self.record(contains_from_backport=False)
        for records, with_backport in (([absent], True), ([self.record()], False),
                                       ([undone], True), ([self.record(), dict(absent, argv=['-c'])], True)):
            ok, account = results.check_effect(records, 'pytest', with_backport)
            self.assertFalse(ok, account)
        ok, account = results.check_effect([dict(self.record(), argv=['-c'])], 'pytest', True)
        self.assertFalse(ok)
        self.assertIn('no record from the test process', account)

    def test_django_test_process(self):
        record = self.record(argv=['runtests.py', '-v', '2'])
        self.assertTrue(results.is_test_process(record, 'django'))
        self.assertFalse(results.is_test_process(record, 'pytest'))

    def test_read_records(self):
        for number in (1, 2):
            with open(os.path.join(self.folder, '%d.json' % number), 'w') as handle:
                json.dump({'pid': number}, handle)
        self.assertEqual([r['pid'] for r in results.read_records(self.folder)], [1, 2])
        self.assertEqual(results.read_records(os.path.join(self.folder, 'none')), [])


class Hook(unittest.TestCase):
    """hook.py, run as the venvs run it, in a fresh interpreter."""

    def records(self, **env):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        environ = {k: v for k, v in os.environ.items() if not k.startswith('ENUM_DEPENDENTS_')}
        environ.update(env, ENUM_DEPENDENTS_RECORD=folder)
        code = ('import sys; sys.path.insert(0, %r); import hook; '
                'import enum; print(type(enum.Enum).__name__)' % str(TOOL))
        subprocess.run([sys.executable, '-c', code], env=environ, check=True,
                       stdout=subprocess.DEVNULL)
        found = results.read_records(folder)
        # One record, or two in a venv of tools/dependents, whose own .pth
        # runs the same hook first.
        self.assertIn(len(found), (1, 2))
        return found

    def test_with_the_backport(self):
        for record in self.records(ENUM_DEPENDENTS_BACKPORT='1'):
            self.assertEqual(results.backport_state(record), 'active', record)
            self.assertIn('from_value', record['patched'])
            self.assertTrue(record['from_value_file'].endswith('_lookup.py'), record)

    def test_without_the_backport(self):
        for record in self.records(ENUM_DEPENDENTS_BACKPORT='0'):
            self.assertEqual(results.backport_state(record), 'absent', record)
            self.assertFalse(record['enum_backport_loaded'])


class DataFiles(unittest.TestCase):
    """projects.json and allowed.json as the runner reads them."""

    def setUp(self):
        with open(str(TOOL / 'projects.json')) as handle:
            self.projects = json.load(handle)
        with open(str(TOOL / 'allowed.json')) as handle:
            self.allowed = json.load(handle)['allowed']

    def test_the_allow_list_is_sound(self):
        names = [p['name'] for p in self.projects['projects']]
        interpreters = [i['name'] for i in self.projects['interpreters']]
        self.assertEqual(compare.check_allow_list(self.allowed, names, interpreters), [])

    def test_every_choice_says_why(self):
        for spec in self.projects['interpreters']:
            self.assertTrue(spec.get('why'), spec['name'])
        for project in self.projects['projects']:
            things = ([project, project['suite']] + project['releases']
                      + project.get('excluded', []) + project.get('id_rewrites', []))
            for thing in things:
                self.assertGreaterEqual(len(thing.get('why', '').split()), 5,
                                        (project['name'], thing))

    def test_every_release_pins_itself_exactly(self):
        for project in self.projects['projects']:
            versions = [r['min_python'] for r in project['releases']]
            self.assertEqual(versions, sorted(versions, key=lambda v: [int(p) for p in v.split('.')],
                                              reverse=True), project['name'])
            for release in project['releases']:
                pins = release['pins']
                wanted = '%s==%s' % (project['pypi'].lower(), release['version'])
                self.assertIn(wanted, [p.split(';')[0].strip().lower() for p in pins])
                for pin in pins:
                    self.assertRegex(pin, r'^[A-Za-z0-9_.\[\],-]+==[^=;\s]+(; .+)?$')


if __name__ == '__main__':
    unittest.main()
