"""enum_backport_nopatch: the typed lookups for libraries, patching nothing.

Its functions must give what the methods give once enum_backport has patched
enum (on an interpreter that carries the change, what its own methods give),
and importing or calling them must leave enum.EnumType as it was.  Both are
checked in a child process that starts with enum untouched.

Plain unittest, and nothing here imports enum_backport: on the CPython build
that carries the change these tests run from the repository's tree, where
the package is not installed, and test the functions against the native
methods.
"""

import enum
import gc
import inspect
import json
import os
import subprocess
import sys
import textwrap
import unittest
from enum import Enum, Flag, IntEnum, IntFlag

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import enum_backport_nopatch
except ImportError:
    # The repository's tree, where nothing is installed (the patched build).
    sys.path.append(os.path.join(os.path.dirname(HERE), 'backport'))
    import enum_backport_nopatch
from enum_backport_nopatch import contains, from_name, from_value

_method = vars(enum.EnumMeta).get('from_value')
NATIVE = _method is not None and not getattr(_method, '__enum_backport__', False)
HAS_BOUNDARY = hasattr(enum, 'FlagBoundary')


def needs_flag_pr(test):
    """The marker of tests/_support.py, which this module must not import
    (it imports enum_backport): on a CPython build without the flag PR,
    tools/cpython/test.py leaves the test out."""
    return test


def make_classes():
    """A fresh set of enum classes of every kind the lookups treat apart."""

    class Color(Enum):
        RED = 1
        GREEN = 2
        CRIMSON = 1

    class Sets(Enum):
        ONE = {1}
        LIST = [2]
        THREE = 3

    class Num(IntEnum):
        ONE = 1
        TWO = 2

    class Perm(Flag):
        R = 4
        W = 2
        X = 1

    class IPerm(IntFlag):
        R = 4
        W = 2
        X = 1

    class Empty(Enum):
        pass

    class EmptyFlag(Flag):
        pass

    class Shadowed(Enum):
        from_value = 1
        from_name = 2

    class Lenient(Enum):
        A = 1

        @classmethod
        def _missing_(cls, value):
            return cls.A if value == 'a' else None

    class Picky(Flag):
        A = 1
        B = 2

        @classmethod
        def _missing_(cls, value):
            if value == 'key':
                raise KeyError(value)
            if value == 'other':
                return 'not a member'
            return super()._missing_(value)

    class Folding(type(Enum)):
        def __getitem__(cls, name):
            return super().__getitem__(name.upper())

    class Folded(Enum, metaclass=Folding):
        RED = 1
        GREEN = 2

    classes = [Color, Sets, Num, Perm, IPerm, Empty, EmptyFlag, Shadowed, Lenient, Picky,
               Folded]
    if HAS_BOUNDARY:
        for boundary in enum.FlagBoundary:
            classes.append(Flag(boundary.name.title(), [('A', 1), ('D', 56), ('F', 64)],
                                boundary=boundary))
    return classes


class Unhashable:
    __hash__ = None

    def __eq__(self, other):
        return other == 1

    def __repr__(self):
        return '<unhashable equal to 1>'


class BadHash:
    def __hash__(self):
        raise RuntimeError('no hash')

    def __repr__(self):
        return '<bad hash>'


PROBES = [0, 1, 2, 3, 5, 7, 8, 64, 65, 120, -1, -2, -56, 1.0, True, 'RED', 'R', 'a',
          'key', 'other', 'from_value', 'mro', None, [], [2], {1}, frozenset({1}),
          Unhashable(), BadHash()]


def impostor(cls):
    """An object that isinstance() takes for a member of `cls`, through __class__."""
    return type('Impostor', (), {'__class__': cls,
                                 '__repr__': lambda self: '<impostor>'})()


def outcome(call):
    """What `call()` gives, as text that two runs can compare."""
    try:
        return 'returned %r' % (call(),)
    except Exception as exc:
        return 'raised %s: %s' % (type(exc).__name__, exc)


def answers(by_functions):
    """Every lookup of every probe in fresh classes, by function or by method."""
    default = object()
    results = []
    for cls in make_classes():
        probes = (PROBES + list(cls) + [member.name for member in cls]
                  + [member.name.lower() for member in cls] + [impostor(cls)])
        for probe in probes:
            if by_functions:
                value = outcome(lambda: from_value(cls, probe))
                value_default = outcome(lambda: from_value(cls, probe, default=default))
                name = outcome(lambda: from_name(cls, probe, default=default))
                found = outcome(lambda: contains(cls, probe))
            else:
                # The metaclass's methods: EnumType's, or those of a metaclass
                # that has its own (Folded's from_name, under the patch).
                meta = type(cls)
                value = outcome(lambda: meta.from_value(cls, probe))
                value_default = outcome(lambda: meta.from_value(cls, probe, default=default))
                name = outcome(lambda: meta.from_name(cls, probe, default=default))
                found = outcome(lambda: probe in cls)
            results.append([cls.__name__, repr(probe), value,
                            value_default.replace(repr(default), '<default>'),
                            name.replace(repr(default), '<default>'), found])
    return results


CHILD = textwrap.dedent('''
    import enum, json, sys
    EnumType = enum.EnumMeta
    before = dict(vars(EnumType))
    import test_behaviour_nopatch as t
    functions = t.answers(by_functions=True)
    changed = sorted(name for name in set(before) | set(vars(EnumType))
                     if before.get(name) is not vars(EnumType).get(name))
    loaded = sorted(name for name in sys.modules if name.startswith('enum_backport'))
    if not t.NATIVE:
        import enum_backport
    methods = t.answers(by_functions=False)
    print(json.dumps({'changed': changed, 'loaded': loaded,
                      'functions': functions, 'methods': methods}))
''')


def run_child():
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(
        enum_backport_nopatch.__file__)))
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(
        [HERE, package_root] + ([env['PYTHONPATH']] if env.get('PYTHONPATH') else []))
    result = subprocess.run([sys.executable, '-c', CHILD], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if result.returncode or result.stderr:
        raise AssertionError('the child failed:\n' + result.stderr)
    return json.loads(result.stdout)


class PatchFreeTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.child = run_child()

    def test_import_and_calls_leave_enumtype_alone(self):
        self.assertEqual(self.child['changed'], [])
        # Nothing of the patching package came with it.
        self.assertIn('enum_backport_nopatch._lookup', self.child['loaded'])
        self.assertEqual([name for name in self.child['loaded']
                          if name.split('.')[0] != 'enum_backport_nopatch'], [])

    def test_same_answers_as_the_patched_methods(self):
        functions, methods = self.child['functions'], self.child['methods']
        self.assertEqual(len(functions), len(methods))
        for by_function, by_method in zip(functions, methods):
            with self.subTest(cls=by_function[0], probe=by_function[1]):
                self.assertEqual(by_function, by_method)

    def test_the_comparison_covers_hits_misses_and_errors(self):
        # A guard on the test above: it compares every kind of outcome.
        seen = set()
        for _cls, _probe, value, value_default, name, found in self.child['functions']:
            seen.add(('hit' if value.startswith('returned') else value.split(':')[0]))
            seen.add(('default' if value_default == 'returned <default>' else 'other'))
            seen.add(('name hit' if name != 'returned <default>' else 'name miss'))
            seen.add(found)
        self.assertLessEqual({'hit', 'raised ValueError', 'raised KeyError',
                              'raised TypeError', 'raised RuntimeError', 'default', 'other',
                              'name hit', 'name miss', 'returned True', 'returned False'},
                             seen)


class FunctionsTest(unittest.TestCase):

    def setUp(self):
        self.Color, self.Sets = make_classes()[:2]
        self.Perm = make_classes()[3]

    def test_default_by_keyword(self):
        Color = self.Color
        self.assertIsNone(from_value(Color, 9, default=None))
        self.assertIs(from_value(Color, 1, default=None), Color.RED)
        self.assertEqual(from_name(Color, 'PURPLE', default='none'), 'none')
        self.assertIs(from_name(Color, 'GREEN', default=None), Color.GREEN)

    def test_misses_without_default_raise(self):
        with self.assertRaises(ValueError) as cm:
            from_value(self.Color, 9)
        self.assertEqual(str(cm.exception), '9 is not a valid %s' % self.Color.__qualname__)
        with self.assertRaises(ValueError) as cm:
            from_name(self.Color, 'PURPLE')
        self.assertEqual(str(cm.exception),
                         "'PURPLE' is not a valid %s member name" % self.Color.__qualname__)

    def test_contains(self):
        self.assertIs(contains(self.Color, 1), True)
        self.assertIs(contains(self.Color, 'RED'), False)
        self.assertIs(contains(self.Color, []), False)
        self.assertIs(contains(self.Sets, frozenset({1})), True)
        self.assertIs(contains(self.Perm, 3), True)
        self.assertIs(contains(self.Perm, 8), False)

    def test_unhashable_values_on_a_class_never_looked_up(self):
        # 3.8-3.10 keep no record of unhashable member values; the functions
        # must find them on a class made after the module was imported.
        class Late(Enum):
            SET = {1}
        self.assertIs(from_value(Late, frozenset({1})), Late.SET)
        self.assertIs(contains(Late, frozenset({1})), True)

    @needs_flag_pr
    def test_a_flag_without_members_misses_whatever_ran_before(self):
        # Asked before and after the constructor has run: 3.8 to 3.10's
        # caches a pseudo-member of EF for 0 (of EI for any int), which
        # must not turn a miss into a hit.
        class EF(Flag):
            pass

        class EI(IntFlag):
            pass

        for cls, value in ((EF, 0), (EI, 0), (EI, 5)):
            with self.subTest(cls=cls, value=value):
                before = (from_value(cls, value, default=None), contains(cls, value))
                try:
                    cls(value)
                except TypeError:   # 3.11 and later: "has no members"
                    pass
                after = (from_value(cls, value, default=None), contains(cls, value))
                self.assertEqual((before, after), ((None, False), (None, False)))

    def test_enum_class_and_value_are_positional_only(self):
        with self.assertRaises(TypeError):
            from_value(enum_class=self.Color, value=1)
        with self.assertRaises(TypeError):
            from_name(self.Color, name='RED')
        with self.assertRaises(TypeError):
            contains(self.Color, value=1)

    def test_default_is_keyword_only(self):
        # A third positional argument is refused as Python refuses one for a
        # keyword-only parameter, with the function's own name.
        for function, probe in ((from_value, 9), (from_value, 1),
                                (from_name, 'PURPLE'), (from_name, 'RED')):
            with self.subTest(function=function.__name__, probe=probe):
                with self.assertRaises(TypeError) as cm:
                    function(self.Color, probe, None)
                self.assertEqual(str(cm.exception), '%s() takes 2 positional arguments but '
                                 '3 were given' % function.__name__)

    def test_a_wrong_call_names_the_function(self):
        # Up to 3.9 the message of a call with missing arguments names the
        # function by its code, not by __name__.
        for function in (from_value, from_name, contains):
            with self.subTest(function=function.__name__):
                with self.assertRaises(TypeError) as cm:
                    function(self.Color)
                self.assertTrue(str(cm.exception).startswith(function.__name__ + '()'),
                                str(cm.exception))

    def test_not_an_enum_class(self):
        for function in (from_value, from_name, contains):
            for bad in (int, 1, self.Color.RED, None):
                with self.subTest(function=function.__name__, bad=bad):
                    with self.assertRaises(TypeError) as cm:
                        function(bad, 1)
                    self.assertEqual(
                        str(cm.exception),
                        '%s() argument 1 must be an enum class, not %r'
                        % (function.__name__, bad))

    def test_typed_signature_and_doc(self):
        # Where the lookups themselves are exported, they wear the typed
        # definitions' names, docs and signatures.
        for function in (from_value, from_name, contains):
            with self.subTest(function=function.__name__):
                self.assertEqual(function.__module__, 'enum_backport_nopatch')
                self.assertTrue(function.__doc__.startswith('Return '))
                parameters = list(inspect.signature(function).parameters.values())
                self.assertEqual(parameters[0].name, 'enum_class')
                self.assertIs(parameters[1].kind, inspect.Parameter.POSITIONAL_ONLY)
                if function is not contains:
                    self.assertEqual(parameters[2].name, 'default')
                    self.assertIs(parameters[2].kind, inspect.Parameter.KEYWORD_ONLY)

    def test_classes_looked_up_then_dropped_are_forgotten(self):
        seen = enum_backport_nopatch._lookup._SEEN
        before = len(seen)
        for _ in range(20):
            class Passing(Enum):
                A = {1}
            self.assertIs(contains(Passing, frozenset({1})), True)
            self.assertIs(from_value(Passing, 2, default=None), None)
            del Passing
            gc.collect()
        self.assertLessEqual(len(seen), before + 1)

    def test_exported(self):
        self.assertEqual(sorted(enum_backport_nopatch.__all__),
                         ['contains', 'from_name', 'from_value'])
        package = os.path.dirname(os.path.abspath(enum_backport_nopatch.__file__))
        self.assertTrue(os.path.isfile(os.path.join(package, 'py.typed')))


if __name__ == '__main__':
    unittest.main()
