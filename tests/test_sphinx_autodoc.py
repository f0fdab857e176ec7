"""What Sphinx autodoc makes of an enum class under the backport.

dir() of an enum class keeps stock's shape, dunders and members only
(SPEC.md), so autodoc, even with ``:inherited-members:`` (often switched on
for a whole project through ``autodoc_default_options``), documents nothing
under a user's enum that it would not document without the backport:
neither from_value nor from_name, and no ``exclude-members`` is needed.

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
# conf.py's lines for a build under the backport, which they check is there.
BACKPORT_LINES = "import enum, enum_backport; assert hasattr(enum.EnumMeta, 'from_value')"

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

    def build(self, backport):
        """The text autodoc writes for Color, with or without the backport."""
        with tempfile.TemporaryDirectory() as project:
            conf = textwrap.dedent('''\
                import os, sys
                sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), %r]
                %s
                extensions = ['sphinx.ext.autodoc']
                autodoc_default_options = {'members': True, 'inherited-members': True}
                ''') % (PACKAGE_ROOT, BACKPORT_LINES if backport else '')
            for name, text in (('conf.py', conf), ('colors.py', MODULE),
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

    def test_inherited_members_documents_nothing_new(self):
        text = self.build(backport=True)
        self.assertIn('class colors.Color', text)
        self.assertNotIn('from_value', text)
        self.assertNotIn('from_name', text)
        self.assertEqual(text, self.build(backport=False))


if __name__ == '__main__':
    unittest.main()
