"""Read what one run of a suite produced: test outcomes and process records.

* pytest's junit XML: a test id is ``classname::name``, as pytest wrote it;
* Django's runner with ``-v 2``: its status lines and ``FAIL:``/``ERROR:``
  headers, checked against ``Ran N tests`` (a log that does not add up is an
  error, never a partial result);
* the records the venv's start-up hook (hook.py) writes at each process's exit.

Pure functions of their input, checked by tests/test_dependents_tool.py.
"""

import json
import os
import re
import xml.etree.ElementTree as ElementTree

from ..plumbing import Error
from .compare import numbered
from .report import plural


class ResultsError(Error):
    """A run's results cannot be read; the message says why."""


def junit_outcomes(path):
    """{test id: outcome} from a pytest junit XML file."""
    try:
        root = ElementTree.parse(str(path)).getroot()
    except (OSError, ElementTree.ParseError) as error:
        raise ResultsError('no readable junit file %s: %s' % (path, error))
    outcomes = {}
    for case in root.iter('testcase'):
        test = '%s::%s' % (case.get('classname', ''), case.get('name', ''))
        tags = [child.tag for child in case]
        if 'error' in tags:
            outcome = 'error'
        elif 'failure' in tags:
            outcome = 'failed'
        elif 'skipped' in tags:
            skipped = case.find('skipped')
            outcome = 'xfailed' if skipped.get('type') == 'pytest.xfail' else 'skipped'
        else:
            outcome = 'passed'
        # The same id twice (a test that fails and then errors in teardown is
        # written once with both; distinct tests can share an id only through
        # odd parametrisation): keep each, numbered in file order.
        outcomes[numbered(test, outcomes)] = outcome
    return outcomes


_STATUS = re.compile(
    r'^(?P<method>\w+) \((?P<where>[\w.]+)\)(?P<sub> \[.*\]| \(.*\))?\n?(?:[^\n]*\n)??'
    r'[^\n]*? \.\.\. (?P<status>ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$',
    re.M)
_HEADER = re.compile(r'^(?P<kind>FAIL|ERROR): (?P<method>\w+) \((?P<where>[\w.]+)\)', re.M)
_RAN = re.compile(r'^Ran (\d+) tests? in ', re.M)
_FIXTURES = ('setUpClass', 'tearDownClass', 'setUpModule', 'tearDownModule')
_STATUS_OUTCOME = {'ok': 'passed', 'FAIL': 'failed', 'ERROR': 'error',
                   'expected failure': 'xfailed', 'unexpected success': 'failed'}


def _django_id(method, where):
    # 3.11 and later print "method (module.Class.method)", earlier ones
    # "method (module.Class)": one id for both.
    return where if where.endswith('.' + method) else '%s.%s' % (where, method)


def django_outcomes(log):
    """{test id: outcome} from the output of Django's runtests.py -v 2."""
    outcomes = {}
    rank = {'passed': 0, 'skipped': 0, 'xfailed': 0, 'failed': 1, 'error': 2}
    for match in _STATUS.finditer(log):
        status = match.group('status')
        outcome = 'skipped' if status.startswith('skipped') else _STATUS_OUTCOME[status]
        test = _django_id(match.group('method'), match.group('where'))
        if match.group('sub') and outcome == 'passed':
            continue    # a subtest's own line; the test has a line of its own
        if rank[outcome] >= rank.get(outcomes.get(test), -1):
            outcomes[test] = outcome
    for match in _HEADER.finditer(log):
        test = _django_id(match.group('method'), match.group('where'))
        outcome = 'error' if match.group('kind') == 'ERROR' else 'failed'
        if rank[outcome] >= rank.get(outcomes.get(test), -1):
            outcomes[test] = outcome
    ran = _RAN.findall(log)
    if len(ran) != 1:
        raise ResultsError("Django's output has %d 'Ran N tests' lines, not one" % len(ran))
    # An error in setUpClass and the like is reported under that name, for
    # the class or module, and is not counted as a test that ran; every
    # test that ran has a status line or a header.
    named = sum(1 for test in outcomes if test.rsplit('.', 1)[-1] not in _FIXTURES)
    if named != int(ran[0]):
        raise ResultsError("Django says it ran %s tests; its output names %d"
                           % (ran[0], named))
    return outcomes


def read_records(directory):
    """The process records a run left, oldest first."""
    records = []
    try:
        names = sorted(os.listdir(str(directory)))
    except OSError:
        return records
    for name in names:
        if name.endswith('.json'):
            try:
                with open(os.path.join(str(directory), name)) as handle:
                    records.append(json.load(handle))
            except (OSError, ValueError) as error:
                raise ResultsError('unreadable process record %s: %s' % (name, error))
    return records


def is_test_process(record, runner):
    """Whether a record comes from the process that ran the tests."""
    argv0 = (record.get('argv') or [''])[0].replace('\\', '/')
    if runner == 'pytest':
        return argv0.endswith('/pytest/__main__.py') or argv0.endswith('/bin/pytest')
    return argv0.endswith('runtests.py')


def backport_state(record):
    """'active' when the backport's from_value and `in` were on the enum
    metaclass at the process's exit, 'absent' when enum_backport was never
    imported and from_value was not there, 'mixed' otherwise."""
    loaded = record.get('enum_backport_loaded')
    ours = record.get('from_value_from_backport') and record.get('contains_from_backport')
    if loaded and ours and record.get('patched'):
        return 'active'
    if not loaded and not record.get('from_value_file'):
        return 'absent'
    return 'mixed'


def check_effect(records, runner, with_backport):
    """(ok, one-line account) of whether the backport was where it should be: in every
    process that recorded in the run with it, in none in the run without."""
    wanted = 'active' if with_backport else 'absent'
    tests = [r for r in records if is_test_process(r, runner)]
    others = [r for r in records if not is_test_process(r, runner)]
    if not tests:
        return False, 'no record from the test process (%d other processes recorded)' % len(others)
    where = tests[0].get('from_value_file')
    account = 'backport %s in the test process (pid %s: %s)' % (
        backport_state(tests[0]), tests[0].get('pid'),
        'the enum metaclass had no from_value' if not where
        else 'its from_value came from ' + where.split('site-packages/')[-1])
    if others:
        account += ' and in %d child process%s' % (len(others), '' if len(others) == 1 else 'es')
    wrong = [r for r in records if backport_state(r) != wanted]
    if wrong:
        return False, '%s; wanted %s in every process, but %s: %s' % (
            account, wanted, plural(len(wrong), 'process was not', 'processes were not'),
            '; '.join('pid %s (%s) was %s' % (
                r.get('pid'), os.path.basename((r.get('argv') or ['?'])[0]) or '?',
                backport_state(r)) for r in wrong[:3]))
    return True, account
