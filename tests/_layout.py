"""Whether these tests run in the repository or in an unpacked sdist.

The sdist ships the package and its tests, not the CPython change (Lib/,
Doc/, Misc/) nor the tools that prove it.  A test module of those calls
`require` first: in an unpacked sdist (which has PKG-INFO at its root) a
missing path skips the module, saying why; in the repository nothing is
skipped, and a missing path fails the module as it would have anyway.
"""

import importlib
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_SDIST = os.path.isfile(os.path.join(ROOT, 'PKG-INFO'))


def require(relative_path):
    """Skip the calling module in an sdist that lacks `relative_path`."""
    if IN_SDIST and not os.path.exists(os.path.join(ROOT, relative_path)):
        raise unittest.SkipTest(
            '%s is in the repository, not in the sdist: its tests run there'
            % relative_path)


def dependents_module(name):
    """tools/dependents/NAME.py, a module of the package tools."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    return importlib.import_module('tools.dependents.' + name)
