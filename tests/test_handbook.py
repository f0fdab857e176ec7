"""README.rst as the front door, and the handbook's generated parts.

README.rst stays short (at most 1,500 words), gives the two Quick start
commands, links only to files that exist, and its example runs.  The
handbook (docs/) is built by `tox -e docs`; what is checked here is what
the tools write into it: tools/dependents writes its table between two
comments of docs/testing.rst, and the benchmarks page includes the file the
harness writes.  An unpacked sdist ships neither docs/ nor the tools, so
there the module skips (tests/_layout.py).
"""

import doctest
import importlib.util
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

import _layout

_layout.require('docs')

from _support import backport_only  # noqa: E402

ROOT = Path(_layout.ROOT)
README = ROOT / 'README.rst'
QUICK_START = ('python3 tools/cpython_change.py all --apt-source',
               'python3 tools/check.py --apt-source')


def readme_text():
    return README.read_text(encoding='utf-8')


class Readme(unittest.TestCase):

    def test_at_most_1500_words(self):
        # As `wc -w` counts them: runs of characters between white space.
        self.assertLessEqual(len(readme_text().split()), 1500)

    def test_quick_start_gives_both_commands(self):
        text = readme_text()
        start = text.index('Quick start\n---')
        following = re.compile(r'\n[^\n]+\n-{3,}\n').search(text, start + len('Quick start'))
        block = text[start:following.start() if following else None]
        for command in QUICK_START:
            self.assertIn('    ' + command + '\n', block)

    def test_timings_say_what_was_measured_and_how(self):
        # Every figure as a tool printed it (seconds), with the conditions
        # it was measured under; no round "took N and M minutes".  README
        # gives the totals, the handbook's test command each step's.
        readme = readme_text()
        start = readme.index('Quick start\n---')
        testing = (ROOT / 'docs' / 'testing.rst').read_text(encoding='utf-8')
        for text, start, end, figures in (
                (readme, start, readme.index('\nLayout\n---'), 2),
                (testing, testing.index('The test command\n'), testing.index('\nStep 1'), 5)):
            block = ' '.join(text[start:end].split())
            for condition in ('fresh machine', 'two cores', 'an empty cache',
                              'beside other work'):
                self.assertIn(condition, block)
            self.assertRegex(block, r'20\d\d-\d\d-\d\d')
            self.assertGreaterEqual(len(re.findall(r'\b[\d,]+ s\b', block)), figures)
            self.assertNotRegex(block, r'took [\d.]+ and [\d.]+ minutes')
            self.assertNotIn('issue 51', block)

    def test_relative_links_name_existing_files(self):
        links = re.findall(r'`[^`<]*<([^>`]+)>`_', readme_text())
        relative = [link for link in links if not re.match(r'[a-z]+:', link)]
        self.assertGreater(len(relative), 5)
        for link in relative:
            with self.subTest(link=link):
                self.assertTrue((ROOT / link.split('#')[0]).exists(), link)

    def test_every_handbook_page_is_linked(self):
        text = readme_text()
        pages = sorted(p.name for p in (ROOT / 'docs').glob('*.rst') if p.name != 'index.rst')
        self.assertGreater(len(pages), 4)
        for page in pages:
            self.assertIn('<docs/%s>`_' % page, text)

    @backport_only
    def test_example_runs(self):
        result = doctest.testfile(str(README), module_relative=False, verbose=False,
                                  optionflags=doctest.ELLIPSIS, report=True)
        self.assertEqual(result.failed, 0)
        self.assertGreater(result.attempted, 5)


class DependentsBlock(unittest.TestCase):
    """tools/dependents writes its table into docs/testing.rst."""

    @classmethod
    def setUpClass(cls):
        cls.report = _layout.dependents_module('report')

    def test_the_page_has_the_block(self):
        self.assertEqual(self.report.PAGE, ROOT / 'docs' / 'testing.rst')
        shown = re.search(re.escape(self.report.START) + r'\n\n(.*?)\n\n'
                          + re.escape(self.report.END), self.report.PAGE.read_text(), re.S)
        self.assertIsNotNone(shown)
        self.assertIn('pairs ran', shown.group(1))

    def test_writing_replaces_the_block_and_nothing_else(self):
        scratch = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(scratch))
        copy = scratch / 'testing.rst'
        shutil.copyfile(str(self.report.PAGE), str(copy))
        before = copy.read_text()
        original, self.report.PAGE = self.report.PAGE, copy
        self.addCleanup(setattr, self.report, 'PAGE', original)
        self.assertIs(self.report.page_current('a new table'), False)
        self.report.write_page('a new table')
        self.assertIs(self.report.page_current('a new table'), True)
        after = copy.read_text()
        head = before.index(self.report.START)
        self.assertEqual(after[:head], before[:head])
        tail = before[before.index(self.report.END):]
        self.assertTrue(after.endswith(tail))

    def test_a_page_without_the_block_is_refused(self):
        scratch = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(scratch))
        copy = scratch / 'testing.rst'
        copy.write_text('Testing\n=======\n')
        original, self.report.PAGE = self.report.PAGE, copy
        self.addCleanup(setattr, self.report, 'PAGE', original)
        self.assertIsNone(self.report.page_current('a table'))
        with self.assertRaises(SystemExit):
            self.report.write_page('a table')
        self.assertEqual(copy.read_text(), 'Testing\n=======\n')


class BenchmarkPage(unittest.TestCase):

    def test_includes_what_the_harness_writes(self):
        page = (ROOT / 'docs' / 'benchmarks.rst').read_text()
        for written in ('benchmarks/results.rst', 'benchmarks/membership.png'):
            self.assertTrue((ROOT / written).is_file(), written)
        self.assertIn('.. include:: ../benchmarks/results.rst\n', page)
        self.assertIn('.. image:: ../benchmarks/membership.png\n', page)
        results = (ROOT / 'benchmarks' / 'results.rst').read_text()
        # The thread table is in results.rst too, so the page shows it.
        self.assertIn('.. thread-results-start', results)
        # Nothing else in the repository keeps a copy of the tables.
        self.assertNotIn('benchmark-results-start', readme_text())
        self.assertNotIn('thread-results-start', readme_text())


class CpythonChangePage(unittest.TestCase):
    """What docs/cpython-change.rst says each PR does to Lib/enum.py, counted."""

    PRS = ('fix', 'unhashable', 'missing', 'feature', 'flag')
    COUNTS = re.compile(r'\*\*000(\d), [^*]+\*\* \((\d+) lines added to ``Lib/enum\.py``,'
                        r'\s+(\d+) removed')

    def test_line_counts_are_the_diffs(self):
        page = (ROOT / 'docs' / 'cpython-change.rst').read_text(encoding='utf-8')
        stated = {self.PRS[int(n) - 1]: (int(added), int(removed))
                  for n, added, removed in self.COUNTS.findall(page)}
        self.assertEqual(sorted(stated), sorted(self.PRS))
        for pr in self.PRS:
            lines = (ROOT / 'Lib' / ('enum.py.%s.diff' % pr)).read_text().splitlines()
            body = [line for line in lines if not line.startswith(('--- ', '+++ '))]
            counted = (sum(line.startswith('+') for line in body),
                       sum(line.startswith('-') for line in body))
            with self.subTest(pr=pr):
                self.assertEqual(stated[pr], counted)


if __name__ == '__main__':
    unittest.main()
