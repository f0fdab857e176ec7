"""The CPython change's NEWS entries, one per PR, are ones that blurb itself accepts.

CPython's release tooling reads Misc/NEWS.d/next/<section>/ with blurb, so
the entry is checked by blurb's own parser rather than by a copy of its
rules: blurb takes the section, issue number, date and nonce from the file
name and rejects an empty body, a body that starts with "gh-", and so on.
"""

import os
import re
import unittest

import _layout

_layout.require('Misc/NEWS.d')

try:
    # blurb 2.1 and later split the tool into private modules.
    from blurb._blurb_file import BlurbError, Blurbs
    from blurb._utils.text import textwrap_body
except ImportError:
    try:
        # blurb 1.x and 2.0 keep everything in one module.
        from blurb.blurb import BlurbError, Blurbs, textwrap_body
    except ImportError:
        Blurbs = None

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEXT_DIR = os.path.join(REPO_ROOT, 'Misc', 'NEWS.d', 'next')
SECTION = 'Library'

# What `blurb add` names a file, <date-time>.gh-issue-<number>.<nonce>.rst,
# but with the PR (fix, flag or feature) as the nonce (tools/cpython/change.py);
# tools/cpython_change.py patch gives each a real number and nonce.
NEXT_NAME = re.compile(
    r'\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}'
    r'\.gh-issue-(?P<issue>[1-9]\d*)'
    r'\.(?P<nonce>fix|unhashable|missing|feature|flag)\.rst'
)


def entry_paths():
    """Every NEWS entry this repository holds, whatever its section."""
    found = []
    for dirpath, _dirnames, filenames in os.walk(NEXT_DIR):
        found.extend(os.path.join(dirpath, name) for name in filenames)
    return sorted(found)


class NewsEntryLayoutTests(unittest.TestCase):
    """What does not need blurb: where the entry is and what it is called."""

    def test_one_entry_per_pr_in_the_library_section(self):
        paths = entry_paths()
        self.assertEqual(len(paths), 5, paths)
        for path in paths:
            self.assertEqual(os.path.dirname(path), os.path.join(NEXT_DIR, SECTION))
        self.assertEqual(sorted(NEXT_NAME.fullmatch(os.path.basename(p)).group('nonce')
                                for p in paths),
                         ['feature', 'fix', 'flag', 'missing', 'unhashable'])

    def test_file_name_is_the_one_blurb_add_makes(self):
        for path in entry_paths():
            with self.subTest(path=path):
                self.assertRegex(os.path.basename(path), '^%s$' % NEXT_NAME.pattern)


@unittest.skipIf(Blurbs is None,
                 'blurb is not installed: the NEWS entry was NOT checked by blurb '
                 '(pip install blurb)')
class NewsEntryBlurbTests(unittest.TestCase):

    def load(self, path):
        blurbs = Blurbs()
        try:
            blurbs.load_next(path)
        except (BlurbError, AssertionError) as exc:
            self.fail('blurb rejects %s: %s' % (path, exc))
        return blurbs

    def test_blurb_parses_the_entry(self):
        paths = entry_paths()
        self.assertTrue(paths, 'no NEWS entry under %s' % NEXT_DIR)
        for path in paths:
            with self.subTest(path=path):
                blurbs = self.load(path)
                self.assertEqual(len(blurbs), 1)
                metadata, body = blurbs[0]
                issue = NEXT_NAME.fullmatch(os.path.basename(path)).group('issue')
                self.assertEqual(metadata['section'], SECTION)
                self.assertEqual(metadata['gh-issue'], issue)
                if NEXT_NAME.fullmatch(os.path.basename(path)).group('nonce') == 'feature':
                    self.assertIn(':meth:`enum.EnumType.from_value`', body)
                    self.assertIn(':meth:`enum.EnumType.from_name`', body)
                else:  # the fix is backported: it may not name the feature
                    self.assertNotIn('from_value', body)
                    self.assertNotIn('from_name', body)
                # NEWS names no private attribute
                self.assertNotIn('_value2member_map_', body)

    def test_entry_is_one_paragraph_as_blurb_writes_it(self):
        for path in entry_paths():
            with self.subTest(path=path):
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                _metadata, body = self.load(path)[0]
                # blurb writes a "next" file as its wrapped body and nothing
                # else, so a file it made reads back unchanged.
                self.assertEqual(text, body)
                self.assertEqual(textwrap_body(text), text)
                self.assertNotIn('\n\n', text.strip())


if __name__ == '__main__':
    unittest.main()
