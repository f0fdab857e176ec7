"""The ledger of stdlib tests that fail only under the backport, and how it is read.

Entries are filed by minor version, so that a patch release (3.15.3 after
3.15.2) finds the entries checked on the one before; PyPy's carry its name.
"""

import json
import os
import unittest

import _support  # imports enum_backport unless enum has the change
from _support import backport_only

LEDGER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ledger.json')


def load():
    with open(LEDGER, encoding='utf-8') as f:
        return json.load(f)


@backport_only
class LookupTest(unittest.TestCase):

    def setUp(self):
        from enum_backport import _stdlib
        self.stdlib = _stdlib
        self.ledger = {
            'expected_failures': {
                '3.15': {'test_enum': {'t.a': 'why a'}},
                '3.13.0': {'test_enum': {'t.b': 'why b'}},
                '3.13': {'test_enum': {'t.c': 'why c'}},
                'pypy3.11': {'test_enum': {'t.d': 'why d'}},
            },
            'recorded_on': {'3.15': ['3.15.2']},
            'exclude': {
                'test_x': {'*ALWAYS*': 'everywhere',
                           't.only': {'on': ['3.13'], 'reason': 'only on 3.13'}},
            },
        }

    def entries(self, version, implementation='cpython'):
        return self.stdlib.ledger_entries(self.ledger, 'test_enum', version, implementation)

    def test_a_patch_release_finds_its_minor_versions_entries(self):
        for version in ((3, 15, 2), (3, 15, 3), (3, 15, 10)):
            with self.subTest(version=version):
                self.assertEqual(self.entries(version), ('3.15', {'t.a': 'why a'}))
        self.assertEqual(self.stdlib.recorded_on(self.ledger, '3.15'), ['3.15.2'])

    def test_a_patch_release_of_its_own_comes_first(self):
        self.assertEqual(self.entries((3, 13, 0)), ('3.13.0', {'t.b': 'why b'}))
        self.assertEqual(self.entries((3, 13, 5)), ('3.13', {'t.c': 'why c'}))

    def test_other_implementations_are_filed_apart(self):
        self.assertEqual(self.entries((3, 11, 17), 'pypy'), ('pypy3.11', {'t.d': 'why d'}))
        self.assertEqual(self.entries((3, 11, 17)), (None, {}))
        self.assertEqual(self.entries((3, 15, 2), 'pypy'), (None, {}))

    def test_an_unknown_minor_version_has_no_entries(self):
        self.assertEqual(self.entries((3, 16, 0)), (None, {}))

    def test_exclusions_apply_where_they_say(self):
        exclusions = self.stdlib.exclusions
        self.assertEqual(exclusions(self.ledger, 'test_x', (3, 13, 5), 'cpython'),
                         {'*ALWAYS*': 'everywhere', 't.only': 'only on 3.13'})
        self.assertEqual(exclusions(self.ledger, 'test_x', (3, 15, 2), 'cpython'),
                         {'*ALWAYS*': 'everywhere'})
        self.assertEqual(exclusions(self.ledger, 'test_y', (3, 13, 5), 'cpython'), {})


class ShippedLedgerTest(unittest.TestCase):

    def test_every_entry_has_a_reason_and_versions_it_was_checked_on(self):
        ledger = load()
        for key, suites in ledger['expected_failures'].items():
            with self.subTest(key=key):
                self.assertTrue(ledger['recorded_on'].get(key), key)
                for suite, entries in suites.items():
                    self.assertTrue(entries, (key, suite))
                    for test_id, reason in entries.items():
                        self.assertTrue(test_id.startswith('test.' + suite + '.'), test_id)
                        self.assertGreater(len(reason), 20, test_id)

    def test_reasons_name_what_they_refer_to(self):
        # A reason is printed alone, to someone who has not read SPEC.md:
        # "the thread" there is the python-ideas thread of March 2021.
        for key, suites in load()['expected_failures'].items():
            for suite, entries in suites.items():
                for test_id, reason in entries.items():
                    with self.subTest(key=key, test_id=test_id):
                        self.assertNotRegex(reason, r'(?i)\bthe thread\b')

    @backport_only
    def test_the_shipped_ledger_is_shaped_as_a_ledger(self):
        from enum_backport import _stdlib
        self.assertIsNone(_stdlib.ledger_problem(load()))

    def test_every_exclusion_has_a_reason(self):
        for suite, patterns in load()['exclude'].items():
            for pattern, entry in patterns.items():
                with self.subTest(suite=suite, pattern=pattern):
                    reason = entry['reason'] if isinstance(entry, dict) else entry
                    self.assertGreater(len(reason), 20)
                    if isinstance(entry, dict):
                        self.assertTrue(entry['on'])

    @backport_only
    def test_this_interpreter_has_entries(self):
        # An interpreter the ledger was never checked on fails its stdlib
        # run on the first listing test; say so here too, by name.
        from enum_backport import _stdlib
        key, entries = _stdlib.ledger_entries(load(), 'test_enum')
        self.assertIsNotNone(key, 'no ledger entries for %s' % ' or '.join(_stdlib.ledger_keys()))
        self.assertTrue(entries)


if __name__ == '__main__':
    unittest.main()
