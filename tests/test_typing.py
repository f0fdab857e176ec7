"""What mypy and pyright see: the typed functions, the plugin, the typeshed copies.

- tests/typing/example.py must check clean under mypy --strict and pyright;
  tests/typing/wrong.py, a control, must give one error per line it marks.
- One set of overloads: the same lookups, written as methods
  (``Color.from_value(x, default=None)``) and as typed functions
  (``from_value(Color, x, default=None)``), must reveal the types in LOOKUPS under
  every route: the mypy plugin, typeshed's enum.pyi with the 3.16 entry
  (mypy and pyright), and the typeshed copy that ``python -m enum_backport
  typeshed`` makes for pyright.
- The plugin on its own terms: ``x in Color`` on 3.10, a method the enum
  defines itself, the incremental cache, positional-only parameters.

The checkers are installed by the 'typing' tox environments; elsewhere these
tests are skipped, with the reason.  In those environments
ENUM_BACKPORT_TYPING_REQUIRED names the checkers that must be there, so
that a missing one fails instead of skipping.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(os.path.dirname(HERE), 'backport', 'README.rst')
EXAMPLE = os.path.join(HERE, 'typing', 'example.py')
WRONG = os.path.join(HERE, 'typing', 'wrong.py')
WRONG_LINES = 5

#: (method, arguments after the class, revealed type).  The methods are
#: called as ``Color.method(args)``, the functions as ``method(Color, args)``.
LOOKUPS = [
    ('from_value', 'value', 'Color'),
    ('from_value', 'value, default=None', 'Color | None'),
    ('from_value', "value, default='n/a'", 'Color | str'),
    ('from_name', 'name', 'Color'),
    ('from_name', 'name, default=None', 'Color | None'),
    ('from_name', 'name, default=Color.RED', 'Color'),
    ('from_name', 'name, default=0', 'Color | int'),
]

SAMPLE_HEAD = '''\
import enum

from enum_backport import from_name, from_value


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def lookups(value: object, name: str) -> None:
'''


def sample(form):
    """A module that reveals each of LOOKUPS, as methods or as functions."""
    lines = []
    for method, args, _ in LOOKUPS:
        if form == 'methods':
            lines.append('    reveal_type(Color.%s(%s))' % (method, args))
        else:
            lines.append('    reveal_type(%s(Color, %s))' % (method, args))
    return SAMPLE_HEAD + '\n'.join(lines) + '\n'


def page_literal_blocks():
    """The literal blocks (after a line ending ``::``) of the package page, dedented."""
    with open(PAGE, encoding='utf-8') as f:
        lines = f.read().splitlines()
    blocks = []
    for number, line in enumerate(lines):
        if not line.endswith('::'):
            continue
        # The block is the lines indented at least as far as its first.
        block, indent = [], None
        for following in lines[number + 1:]:
            if following.strip():
                depth = len(following) - len(following.lstrip())
                indent = depth if indent is None else indent
                if depth < indent:
                    break
            block.append(following)
        blocks.append(textwrap.dedent('\n'.join(block)).strip() + '\n')
    return blocks


def _required():
    return set(filter(None, os.environ.get('ENUM_BACKPORT_TYPING_REQUIRED', '').split(',')))


def _have_module(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def _pyright():
    beside = os.path.join(os.path.dirname(sys.executable), 'pyright')
    return beside if os.path.exists(beside) else shutil.which('pyright')


def _reason(checker, present):
    if present:
        return None
    if checker in _required():
        return None  # run, and fail loudly on the missing checker
    return '%s is not installed (tox -e typing installs it)' % checker


def _run(command, cwd=HERE, env=None):
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)


def normalize(revealed):
    """mypy's and pyright's spelling of a type, as LOOKUPS spells it."""
    revealed = re.sub(r'\b(?:builtins|sample|cases|overlay)\.', '', revealed)
    match = re.fullmatch(r'Union\[(.*)\]', revealed)
    if match:
        revealed = ' | '.join(part.strip() for part in match.group(1).split(','))
    return revealed


def revealed_types(output, path):
    """{line: normalized type} of the reveal_type notes for `path` in `output`."""
    name = re.escape(os.path.basename(path))
    found = {}
    for line, revealed in re.findall(
            r'%s:(\d+)(?::\d+)?: note: Revealed type is "(.*)"' % name, output):
        found[int(line)] = normalize(revealed)
    for line, revealed in re.findall(
            r'%s:(\d+):\d+ - information: Type of ".*" is "(.*)"' % name, output):
        found[int(line)] = normalize(revealed)
    return [found[line] for line in sorted(found)]


class Checkers(unittest.TestCase):
    """Scratch directories, and the commands every test here runs."""

    def setUp(self):
        missing = [c for c, present in (('mypy', _have_module('mypy')),
                                        ('pyright', _pyright())) if not present]
        for checker in missing:
            if checker in _required():
                self.fail('%s is required here (ENUM_BACKPORT_TYPING_REQUIRED) but is not '
                          'installed' % checker)
        self.scratch = tempfile.mkdtemp(prefix='enum-backport-typing-')
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def mypy(self, path, *options, plugin=False, cache=None):
        config = self.write('mypy.ini', '[mypy]\n' + (
            'plugins = enum_backport.mypy\n' if plugin else ''))
        cache_options = (['--cache-dir', cache] if cache else ['--no-incremental'])
        return _run([sys.executable, '-m', 'mypy', '--config-file', config,
                     '--show-traceback'] + cache_options + list(options) + [path],
                    cwd=self.scratch)

    def pyright(self, path, *options):
        return _run([_pyright(), '--pythonpath', sys.executable] + list(options) + [path],
                    cwd=self.scratch)

    def assertReveals(self, result, path, expected):
        output = result.stdout + result.stderr
        self.assertEqual(revealed_types(output, path), expected, output)
        self.assertNotIn('rror', re.sub(r'\b0 errors', '', output), output)


@unittest.skipIf(_reason('mypy', _have_module('mypy')), _reason('mypy', _have_module('mypy')))
class MypyTests(Checkers):
    def mypy_strict(self, path):
        return _run([sys.executable, '-m', 'mypy', '--strict', '--no-incremental', path])

    def test_example_is_clean(self):
        result = self.mypy_strict(EXAMPLE)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_wrong_is_reported(self):
        result = self.mypy_strict(WRONG)
        errors = [line for line in result.stdout.splitlines() if ': error:' in line]
        self.assertEqual(len(errors), WRONG_LINES, result.stdout)


@unittest.skipIf(_reason('pyright', _pyright()), _reason('pyright', _pyright()))
class PyrightTests(Checkers):
    def test_example_is_clean(self):
        result = _run([_pyright(), '--pythonpath', sys.executable,
                       '--pythonversion', '3.8', EXAMPLE])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_wrong_is_reported(self):
        result = _run([_pyright(), '--pythonpath', sys.executable,
                       '--pythonversion', '3.8', WRONG])
        errors = [line for line in result.stdout.splitlines() if ' - error:' in line]
        self.assertEqual(len(errors), WRONG_LINES, result.stdout)

    def test_verifytypes_scores_100_percent(self):
        # What a user of the package is shown of its public interface
        # (enum_backport, its __main__ and the mypy plugin): every symbol's
        # type known.  --verifytypes finds the package through the `python`
        # on PATH (--pythonpath does not reach it), so this interpreter's
        # goes first.
        env = dict(os.environ)
        env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
        result = _run([_pyright(), '--verifytypes', 'enum_backport', '--outputjson'],
                      cwd=self.scratch, env=env)
        report = json.loads(result.stdout)
        completeness = report['typeCompleteness']
        problems = ['%s: %s' % (symbol['name'], diagnostic['message'])
                    for symbol in completeness['symbols']
                    for diagnostic in symbol.get('diagnostics', ())
                    if diagnostic.get('severity') == 'error']
        self.assertIn('enum_backport.mypy', [m['name'] for m in completeness['modules']],
                      result.stdout[:2000])
        self.assertEqual(completeness['completenessScore'], 1, '\n'.join(problems))
        self.assertEqual(report['summary']['errorCount'], 0, '\n'.join(problems))


EXPECTED = [revealed for _, _, revealed in LOOKUPS]


def mypy_targets():
    """The target versions to check, oldest first: those this mypy takes.

    mypy 2 targets 3.10 and later; 1.7.1 takes 3.8 and 3.9 too (as mypy 1
    does up to 1.16 and 1.20).
    """
    from mypy.defaults import PYTHON3_VERSION_MIN
    older = [version for version in ('3.8', '3.9')
             if tuple(map(int, version.split('.'))) >= PYTHON3_VERSION_MIN]
    return older + ['3.10', '3.11', '3.12', '3.13']


@unittest.skipIf(_reason('mypy', _have_module('mypy')), _reason('mypy', _have_module('mypy')))
class OneSetOfOverloadsMypy(Checkers):
    """The methods through the plugin and the patched typeshed, the functions."""

    def test_typed_functions(self):
        path = self.write('sample.py', sample('functions'))
        for version in mypy_targets()[::3]:
            with self.subTest(version=version):
                self.assertReveals(self.mypy(path, '--python-version', version), path, EXPECTED)

    def test_plugin(self):
        path = self.write('sample.py', sample('methods'))
        for version in mypy_targets():
            with self.subTest(version=version):
                self.assertReveals(self.mypy(path, '--python-version', version, plugin=True),
                                   path, EXPECTED)

    def test_without_the_plugin_the_methods_are_unknown(self):
        # The control: what mypy says of the methods with no help.
        path = self.write('sample.py', sample('methods'))
        result = self.mypy(path, '--python-version', '3.12')
        self.assertIn('"type[Color]" has no attribute "from_value"', result.stdout)

    def test_patched_typeshed(self):
        # typeshed's enum.pyi with the entry tools/cpython/typeshed.py
        # writes (gated at 3.16), as mypy sees it targeting 3.16 and 3.15.
        typeshed = patched_typeshed(mypy_typeshed(), os.path.join(self.scratch, 'typeshed'),
                                    gate=(3, 16))
        path = self.write('sample.py', sample('methods'))
        result = self.mypy(path, '--python-version', '3.16', '--custom-typeshed-dir', typeshed)
        self.assertReveals(result, path, EXPECTED)
        result = self.mypy(path, '--python-version', '3.15', '--custom-typeshed-dir', typeshed)
        self.assertIn('has no attribute "from_value"', result.stdout)
        # With the plugin too: typeshed's methods are used, not doubled.
        result = self.mypy(path, '--python-version', '3.16', '--custom-typeshed-dir', typeshed,
                           plugin=True)
        self.assertReveals(result, path, EXPECTED)


def mypy_typeshed():
    import mypy
    return os.path.join(os.path.dirname(mypy.__file__), 'typeshed')


def pyright_typeshed():
    from enum_backport import _typeshed
    found = _typeshed.pyright_typesheds()
    if not found:
        raise AssertionError('no typeshed of pyright found: %s' % found)
    return found[0]


def patched_typeshed(source, target, gate=None):
    from enum_backport import _typeshed
    _typeshed.write_copy(source, target, gate=gate)
    return target


@unittest.skipIf(_reason('pyright', _pyright()), _reason('pyright', _pyright()))
class OneSetOfOverloadsPyright(Checkers):
    """The functions; the methods through the copy for pyright and the 3.16 entry."""

    def test_typed_functions(self):
        path = self.write('sample.py', sample('functions'))
        self.assertReveals(self.pyright(path, '--pythonversion', '3.8'), path, EXPECTED)

    def test_typeshed_command(self):
        # The route for pyright users: the package's command, then
        # --typeshedpath.  Enum members keep their literal types.
        typeshed = os.path.join(self.scratch, 'typeshed')
        made = _run([sys.executable, '-m', 'enum_backport', 'typeshed', typeshed])
        self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
        path = self.write('sample.py', sample('methods') + textwrap.dedent('''\
            reveal_type(Color.GREEN)
            def contains(value: object) -> None:
                reveal_type(value in Color)
            '''))
        for version in ('3.8', '3.10', '3.13'):
            with self.subTest(version=version):
                result = self.pyright(path, '--pythonversion', version,
                                      '--typeshedpath', typeshed)
                self.assertReveals(result, path,
                                   EXPECTED + ['Literal[Color.GREEN]', 'bool'])
        # The same, configured in pyrightconfig.json.
        self.write('pyrightconfig.json', '{"typeshedPath": "typeshed", "pythonVersion": "3.10"}')
        result = _run([_pyright(), '--pythonpath', sys.executable, '-p', self.scratch, path],
                      cwd=self.scratch)
        self.assertReveals(result, path, EXPECTED + ['Literal[Color.GREEN]', 'bool'])

    def test_an_overlay_of_enum_pyi_alone_loses_member_types(self):
        # Why the route is a whole copy: the same enum.pyi given through
        # stubPath gives the methods but breaks pyright's enum handling.
        # A pyright that fixes this fails the test: the README's route could
        # then be simpler.
        from enum_backport import _typeshed
        os.mkdir(os.path.join(self.scratch, 'stubs'))
        with open(os.path.join(pyright_typeshed(), 'stdlib', 'enum.pyi')) as f:
            self.write(os.path.join('stubs', 'enum.pyi'),
                       _typeshed.add_methods(f.read(), gate=None, contains_any=True))
        self.write('pyrightconfig.json', '{"stubPath": "stubs", "pythonVersion": "3.13"}')
        path = self.write('overlay.py', 'import enum\nclass Color(enum.Enum):\n    RED = 1\n'
                                        '    GREEN = 2\nreveal_type(Color.GREEN)\n'
                                        'reveal_type(Color.from_value(1))\n')
        result = _run([_pyright(), '-p', self.scratch, path], cwd=self.scratch)
        self.assertEqual(revealed_types(result.stdout, path), ['Literal[2]', 'Color'],
                         result.stdout)

    def test_without_the_copy_the_methods_are_unknown(self):
        path = self.write('sample.py', sample('methods'))
        result = self.pyright(path, '--pythonversion', '3.13')
        self.assertIn('Cannot access attribute "from_value"', result.stdout)

    def test_patched_typeshed(self):
        typeshed = patched_typeshed(pyright_typeshed(), os.path.join(self.scratch, 'typeshed'),
                                    gate=(3, 16))
        path = self.write('sample.py', sample('methods'))
        result = self.pyright(path, '--pythonversion', '3.16', '--typeshedpath', typeshed)
        self.assertReveals(result, path, EXPECTED)
        result = self.pyright(path, '--pythonversion', '3.15', '--typeshedpath', typeshed)
        self.assertIn('Cannot access attribute "from_value"', result.stdout)


PLUGIN_CASES = '''\
import enum


class Color(enum.Enum):
    RED = 1


class Own(enum.Enum):
    A = 1

    @classmethod
    def from_value(cls, value: int) -> int:
        return value


class Member(enum.Enum):
    from_name = 1


def cases(value: object) -> None:
    reveal_type(value in Color)
    reveal_type(Own.from_value(1))
    reveal_type(Member.from_name)
    reveal_type(Own.from_name('A', default=None))
'''


@unittest.skipIf(_reason('mypy', _have_module('mypy')), _reason('mypy', _have_module('mypy')))
class PluginTests(Checkers):
    def test_contains_takes_any_object_on_every_target(self):
        path = self.write('cases.py', PLUGIN_CASES)
        for version in mypy_targets():
            with self.subTest(version=version):
                result = self.mypy(path, '--python-version', version, plugin=True)
                self.assertReveals(result, path, [
                    'bool', 'int', 'Literal[Member.from_name]?', 'Own | None'])

    def test_contains_without_the_plugin(self):
        # The control: typeshed's __contains__ before 3.12 takes members
        # only in mypy 2.4.1's typeshed (1.7.1's takes any object).
        path = self.write('cases.py', 'import enum\nclass C(enum.Enum):\n    A = 1\n'
                                      'def f(v: object) -> bool:\n    return v in C\n')
        with open(os.path.join(mypy_typeshed(), 'stdlib', 'enum.pyi')) as f:
            members_only = re.search(r'def __contains__\(self: type\[Any\], \w+: Enum\)',
                                     f.read())
        result = self.mypy(path, '--python-version', '3.10')
        if members_only:
            self.assertIn('Unsupported operand types for in', result.stdout)
        else:
            self.assertEqual(result.returncode, 0, result.stdout)
        result = self.mypy(path, '--python-version', '3.10', plugin=True)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_the_pages_configuration_loads_the_plugin(self):
        # Each configuration file the page shows, written as it shows it
        # and found by mypy itself, as a user's would be.  Without the
        # plugin the methods are unknown (test_without_the_plugin_...), so
        # the revealed types prove that it loaded.
        blocks = page_literal_blocks()
        for name, heading in (('mypy.ini', '[mypy]'), ('pyproject.toml', '[tool.mypy]')):
            with self.subTest(file=name):
                shown = [block for block in blocks if block.startswith(heading + '\n')]
                self.assertEqual(len(shown), 1, 'the page shows %d %s blocks for %s'
                                 % (len(shown), heading, name))
                project = os.path.join(self.scratch, name.replace('.', '-'))
                os.mkdir(project)
                with open(os.path.join(project, name), 'w') as f:
                    f.write(shown[0])
                path = os.path.join(project, 'sample.py')
                with open(path, 'w') as f:
                    f.write(sample('methods'))
                result = _run([sys.executable, '-m', 'mypy', '--no-incremental',
                               'sample.py'], cwd=project)
                self.assertReveals(result, path, EXPECTED)

    def test_the_page_says_which_mypy_checks_which_targets(self):
        from mypy.defaults import PYTHON3_VERSION_MIN
        from mypy.version import __version__
        with open(PAGE, encoding='utf-8') as f:
            text = ' '.join(f.read().split())
        major = int(__version__.split('.')[0])
        if major >= 2:
            self.assertIn('mypy %d checks code for Python %d.%d and later only'
                          % ((major,) + PYTHON3_VERSION_MIN), text)
        else:
            self.assertLessEqual(PYTHON3_VERSION_MIN, (3, 8))
            self.assertIn('Tested on those targets with mypy %s.' % __version__, text)

    def test_positional_only(self):
        # MethodSpec cannot say "positional-only"; the plugin edits the
        # signature (a private piece: see enum_backport/mypy.py).  The
        # default is keyword-only: a second positional argument is an error.
        path = self.write('cases.py', 'import enum\nclass C(enum.Enum):\n    A = 1\n'
                                      'C.from_value(value=1)\nC.from_name(name="A")\n'
                                      'C.from_name(1)\nC.from_value(1, None)\n'
                                      'C.from_name("A", None)\n'
                                      'C.from_value(1, default=None)\n')
        result = self.mypy(path, plugin=True)
        errors = re.findall(r'cases\.py:(\d+): error', result.stdout)
        self.assertEqual(sorted(set(map(int, errors))), [4, 5, 6, 7, 8], result.stdout)

    def test_incremental_cache(self):
        # enum comes from the cache in the second and third runs; a cache
        # written without the plugin is not read with it.
        cache = os.path.join(self.scratch, 'cache')
        path = self.write('sample.py', sample('methods'))
        result = self.mypy(path, cache=cache)
        self.assertIn('has no attribute "from_value"', result.stdout)
        for run in range(2):
            with self.subTest(run=run):
                self.write('sample.py', sample('methods') + '\nx = %d\n' % run)
                self.assertReveals(self.mypy(path, plugin=True, cache=cache), path, EXPECTED)
        # ... and one written with it is not read without it.
        result = self.mypy(path, cache=cache)
        self.assertIn('has no attribute "from_value"', result.stdout)


# A stub shaped as typeshed's enum.pyi is where the edit looks (written for
# this test, not typeshed's text).
SMALL_STUB = """\
import sys
from typing import Any, TypeVar, overload

_EnumMemberT = TypeVar("_EnumMemberT")

class EnumMeta(type):
    def __len__(self) -> int: ...
    if sys.version_info >= (3, 12):
        def __contains__(self: type[Any], value: object) -> bool: ...
    else:
        def __contains__(self: type[Any], obj: Enum) -> bool: ...

    _member_names_: list[str]  # undocumented

class Enum(metaclass=EnumMeta): ...
"""


class TypeshedEdit(unittest.TestCase):
    """The edit behind the pyright copy and typeshed's patch; no checker needed."""

    def setUp(self):
        from enum_backport import _typeshed
        self.edit = _typeshed
        self.scratch = tempfile.mkdtemp(prefix='enum-backport-typeshed-')
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)

    def test_gated(self):
        text = self.edit.add_methods(SMALL_STUB)
        head, _, tail = text.partition('    _member_names_: list[str]  # undocumented\n')
        self.assertIn('_EnumMemberT = TypeVar("_EnumMemberT")\n_T = TypeVar("_T")\n', head)
        self.assertTrue(tail.startswith('\n    if sys.version_info >= (3, 16):\n'
                                        '        @overload\n'
                                        '        def from_value(cls: type[_EnumMemberT], '
                                        'value: object, /) -> _EnumMemberT: ...\n'), tail)
        self.assertEqual(tail.count('@overload'), 4)
        self.assertTrue(tail.endswith('\n\nclass Enum(metaclass=EnumMeta): ...\n'), tail)
        self.assertIn('obj: Enum', text)  # `in` is left as it is

    def test_every_version(self):
        text = self.edit.add_methods(SMALL_STUB, gate=None, contains_any=True)
        self.assertNotIn('3, 16', text)
        self.assertIn('\n    @overload\n    def from_name(cls: type[_EnumMemberT], name: str, /, '
                      '*, default: _T) -> _EnumMemberT | _T: ...\n', text)
        self.assertNotIn('obj: Enum', text)
        self.assertEqual(text.count('def __contains__(self: type[Any], value: object)'), 2)

    def test_refuses_what_it_does_not_know(self):
        for text in (self.edit.add_methods(SMALL_STUB), SMALL_STUB.replace('EnumMeta', 'Meta'),
                     SMALL_STUB.replace('_EnumMemberT', '_M'), ''):
            with self.subTest(text=text[:40]):
                with self.assertRaises(self.edit.StubError):
                    self.edit.add_methods(text)

    def command(self, *args):
        return _run([sys.executable, '-m', 'enum_backport', 'typeshed'] + list(args),
                    cwd=self.scratch)

    def test_command(self):
        source = os.path.join(self.scratch, 'source')
        os.makedirs(os.path.join(source, 'stdlib'))
        with open(os.path.join(source, 'stdlib', 'enum.pyi'), 'w') as f:
            f.write(SMALL_STUB)
        with open(os.path.join(source, 'stdlib', 'VERSIONS'), 'w') as f:
            f.write('enum: 3.0-\n')
        made = self.command('--source', source, 'copy')
        self.assertEqual(made.returncode, 0, made.stderr)
        with open(os.path.join(self.scratch, 'copy', 'stdlib', 'enum.pyi')) as f:
            self.assertEqual(f.read(), self.edit.add_methods(SMALL_STUB, gate=None,
                                                             contains_any=True))
        self.assertTrue(os.path.isfile(os.path.join(self.scratch, 'copy', 'stdlib', 'VERSIONS')))
        # Made again (after an upgrade of pyright), the copy is replaced.
        with open(os.path.join(source, 'stdlib', 'VERSIONS'), 'w') as f:
            f.write('enum: 3.0-\nnew: 3.0-\n')
        with open(os.path.join(self.scratch, 'copy', 'stdlib', 'stale.pyi'), 'w') as f:
            f.write('')
        again = self.command('--source', source, 'copy')
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(os.path.join(self.scratch, 'copy', 'stdlib', 'VERSIONS')) as f:
            self.assertEqual(f.read(), 'enum: 3.0-\nnew: 3.0-\n')
        self.assertEqual(sorted(os.listdir(os.path.join(self.scratch, 'copy', 'stdlib'))),
                         ['VERSIONS', 'enum.pyi'])
        # A directory it did not make is never replaced.
        os.makedirs(os.path.join(self.scratch, 'mine'))
        with open(os.path.join(self.scratch, 'mine', 'notes.txt'), 'w') as f:
            f.write('mine')
        # Bad input: one line, exit 2, nothing written or changed.
        for args, says in ((['--source', source, 'mine'], 'nor a copy this command made'),
                           (['--source', self.scratch, 'other'], 'is not a typeshed tree'),
                           (['--source', os.path.join(self.scratch, 'copy'), 'other'],
                            'already has from_value')):
            with self.subTest(args=args):
                result = self.command(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(says, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.scratch, 'other')))
        self.assertEqual(os.listdir(os.path.join(self.scratch, 'mine')), ['notes.txt'])
        self.assertEqual(sorted(os.listdir(self.scratch)), ['copy', 'mine', 'source'])


if __name__ == '__main__':
    unittest.main()
