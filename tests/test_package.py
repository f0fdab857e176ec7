"""The package as someone who found it on PyPI meets it.

Its page (backport/README.rst, the long description) is run as a doctest,
and its version is the same wherever it is stated: enum_backport.__version__,
`python -m enum_backport --version`, the newest changelog entry and, where
the package is installed, the distribution's metadata.
"""

import doctest
import enum
import os
import re
import subprocess
import sys
import unittest

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import backport_only, enum_backport

BACKPORT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'backport')
PAGE = os.path.join(BACKPORT, 'README.rst')
CHANGELOG = os.path.join(BACKPORT, 'CHANGELOG.rst')


def newest_changelog_version():
    with open(CHANGELOG, encoding='utf-8') as f:
        lines = f.read().splitlines()
    for heading, underline in zip(lines, lines[1:]):
        match = re.match(r'(\d+\.\d+\.\d+\S*) \(', heading)
        if match and underline and set(underline) == {'-'}:
            return match.group(1)
    raise AssertionError('no version heading in %s' % CHANGELOG)


@backport_only
class PageTest(unittest.TestCase):

    def test_examples(self):
        result = doctest.testfile(PAGE, module_relative=False, verbose=False,
                                  optionflags=doctest.ELLIPSIS, report=True)
        self.assertEqual(result.failed, 0)
        self.assertGreater(result.attempted, 20)

    def test_says_where_from_value_answers_what_the_constructor_refuses(self):
        # "The member the constructor would return" has one exception a
        # user meets on 3.11 and later: a class without members, whose
        # constructor raises TypeError where from_value misses.  The page
        # must show it (its doctest then checks the answer everywhere).
        class Empty(enum.Enum):
            pass

        with self.assertRaises(ValueError):
            Empty.from_value(1)
        if sys.version_info >= (3, 11):
            with self.assertRaises(TypeError):
                Empty(1)
        with open(PAGE, encoding='utf-8') as f:
            text = f.read()
        shown = re.search(r'>>> class (\w+)\(enum\.Enum\):\n\.\.\.     pass\n'
                          r'(?:\.\.\.\n)?>>> \1\.from_value\(', text)
        self.assertIsNotNone(shown, 'the page shows no lookup in a class without members')
        self.assertIn('class without members', text)

    def test_no_relative_images_or_repository_paths(self):
        # PyPI shows the page without the repository around it.
        with open(PAGE, encoding='utf-8') as f:
            text = f.read()
        self.assertNotRegex(text, r'\.\. (image|figure)::')
        self.assertNotIn('tools/', text)


@backport_only
class VersionTest(unittest.TestCase):

    def test_command_line_version(self):
        result = subprocess.run([sys.executable, '-m', 'enum_backport', '--version'],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True,
                                cwd=os.path.dirname(os.path.dirname(enum_backport.__file__)))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, enum_backport.__version__ + '\n')

    def test_changelog_names_this_version_first(self):
        self.assertEqual(newest_changelog_version(), enum_backport.__version__)

    def test_installed_metadata(self):
        from importlib.metadata import PackageNotFoundError, version
        try:
            installed = version('enum-backport')
        except PackageNotFoundError:
            self.skipTest('enum-backport is imported from a source tree, not installed')
        self.assertEqual(installed, enum_backport.__version__)


if __name__ == '__main__':
    unittest.main()
