"""The typed helpers, as mypy --strict and pyright see them.

tests/typing/example.py must check clean; tests/typing/wrong.py, a control,
must produce one error per line it marks.  The checkers are installed by the
'typing' tox environment; elsewhere these tests are skipped, with the reason.
"""

import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, 'typing', 'example.py')
WRONG = os.path.join(HERE, 'typing', 'wrong.py')
WRONG_LINES = 3


def _have_module(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def _pyright():
    beside = os.path.join(os.path.dirname(sys.executable), 'pyright')
    return beside if os.path.exists(beside) else shutil.which('pyright')


def _run(command):
    return subprocess.run(command, capture_output=True, text=True, cwd=HERE)


@unittest.skipUnless(_have_module('mypy'), 'mypy is not installed (tox -e typing installs it)')
class MypyTests(unittest.TestCase):
    def mypy(self, path):
        return _run([sys.executable, '-m', 'mypy', '--strict', '--no-incremental', path])

    def test_example_is_clean(self):
        result = self.mypy(EXAMPLE)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_wrong_is_reported(self):
        result = self.mypy(WRONG)
        errors = [line for line in result.stdout.splitlines() if ': error:' in line]
        self.assertEqual(len(errors), WRONG_LINES, result.stdout)


@unittest.skipUnless(_pyright(), 'pyright is not installed (tox -e typing installs it)')
class PyrightTests(unittest.TestCase):
    def pyright(self, path):
        return _run([_pyright(), '--pythonpath', sys.executable,
                     '--pythonversion', '3.8', path])

    def test_example_is_clean(self):
        result = self.pyright(EXAMPLE)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_wrong_is_reported(self):
        result = self.pyright(WRONG)
        errors = [line for line in result.stdout.splitlines() if ' - error:' in line]
        self.assertEqual(len(errors), WRONG_LINES, result.stdout)


if __name__ == '__main__':
    unittest.main()
