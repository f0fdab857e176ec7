"""The handbook: how this repository's CPython change and enum-backport are
made, proven and measured.  Built by ``tox -e docs`` with warnings as
errors, ``-n`` (every cross-reference must resolve), the doctest builder
over the pages' examples, and ``_ext/repolinks.py``, which fails the build
on a link to a path of the repository that does not exist."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '_ext'))

project = 'enum-from-value'
author = 'the enum-from-value contributors'
copyright = '2026, ' + author

extensions = [
    'sphinx.ext.doctest',
    'repolinks',
]

exclude_patterns = ['_build']
nitpicky = True
html_theme = 'alabaster'
# The benchmark tables are wide: a page shows more of them unwrapped.
html_theme_options = {'page_width': '1200px'}
html_sidebars = {'**': ['about.html', 'navigation.html', 'searchbox.html']}

# The package page's examples are the PyPI page's, run as test_package.py
# runs them: one namespace per page, ELLIPSIS on.
doctest_default_flags = __import__('doctest').ELLIPSIS
