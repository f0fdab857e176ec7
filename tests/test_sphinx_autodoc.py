"""What Sphinx autodoc makes of an enum class under the backport.

dir() lists from_value and from_name (SPEC.md), so autodoc with
``:inherited-members:`` documents both under every enum class, and the
line README.rst gives leaves them out again:

    autodoc_default_options['exclude-members'] = 'from_name, from_value'

Each case builds a one-page project in a child process, so that whether
enum_backport is imported there is up to the project's conf.py.  Sphinx is
installed by the 'typing' tox environment; elsewhere these tests are
skipped, with the reason.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

try:
    import sphinx
except ImportError:
    sphinx = None

import enum_backport

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(enum_backport.__file__)))
EXCLUDE_LINE = "autodoc_default_options['exclude-members'] = 'from_name, from_value'"

MODULE = '''\
"""Colours."""
import enum


class Color(enum.Enum):
    """A colour."""
    RED = 1
    GREEN = 2
'''
INDEX = '''\
Colours
=======

.. automodule:: colors
   :members:
'''


@unittest.skipIf(sphinx is None, 'sphinx is not installed (tox -e typing installs it)')
class AutodocTest(unittest.TestCase):

    def build(self, backport, extra=''):
        """The text autodoc writes for Color, with the given conf.py lines."""
        with tempfile.TemporaryDirectory() as project:
            conf = textwrap.dedent('''\
                import os, sys
                sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), %r]
                %s
                extensions = ['sphinx.ext.autodoc']
                autodoc_default_options = {'members': True, 'inherited-members': True}
                ''') % (PACKAGE_ROOT, 'import enum_backport' if backport else '')
            for name, text in (('conf.py', conf + extra + '\n'), ('colors.py', MODULE),
                               ('index.rst', INDEX)):
                with open(os.path.join(project, name), 'w', encoding='utf-8') as f:
                    f.write(text)
            out = os.path.join(project, '_build')
            result = subprocess.run(
                [sys.executable, '-m', 'sphinx', '-q', '-b', 'text', project, out],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(result.returncode, 0, result.stdout)
            with open(os.path.join(out, 'index.txt'), encoding='utf-8') as f:
                return f.read()

    def test_inherited_members_lists_both_methods(self):
        text = self.build(backport=True)
        self.assertIn('class colors.Color', text)
        self.assertIn('from_value(value, /, default=<not given>)', text)
        self.assertIn('from_name(name, /, default=<not given>)', text)

    def test_without_the_backport_neither_is_listed(self):
        text = self.build(backport=False)
        self.assertIn('class colors.Color', text)
        self.assertNotIn('from_value', text)
        self.assertNotIn('from_name', text)

    def test_the_readme_line_leaves_them_out(self):
        text = self.build(backport=True, extra=EXCLUDE_LINE)
        self.assertIn('class colors.Color', text)
        self.assertNotIn('from_value', text)
        self.assertNotIn('from_name', text)


class ReadmeTest(unittest.TestCase):

    def test_the_readme_gives_the_line_tested_here(self):
        readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              'README.rst')
        with open(readme, encoding='utf-8') as f:
            text = f.read()
        self.assertTrue(EXCLUDE_LINE in text, 'README.rst does not give: ' + EXCLUDE_LINE)


if __name__ == '__main__':
    unittest.main()
