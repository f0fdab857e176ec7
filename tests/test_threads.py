"""Threads: importing the backport at once, and lookups racing composites.

* Eight threads of a fresh interpreter import enum_backport at the same
  moment: each sees the patched methods, and EnumType is patched by exactly
  one call (on an interpreter that carries the change, by none).
* Eight threads ask a Flag for values (``in``, ``from_value`` with and
  without a default, ``from_name``) while some of them create composite
  pseudo-members through the constructor and through ``from_value``: no
  exception, and every answer is the one worked out beforehand on a copy of
  the class that no other thread touches.

Plain unittest: an interpreter carrying the CPython change runs it natively
(the import test then needs enum_backport on the path, and says so when it
is not).
"""

import enum
import json
import os
import random
import subprocess
import sys
import threading
import traceback
import unittest

if not hasattr(enum.EnumMeta, 'from_value'):
    # An interpreter without the change: test the backport.  If it cannot
    # be imported the ImportError fails this module loudly.
    import enum_backport  # noqa: F401

EnumType = enum.EnumMeta
from_value = EnumType.from_value
from_name = EnumType.from_name

THREADS = 8
HAS_BOUNDARY = hasattr(enum, 'FlagBoundary')

# Run in a fresh interpreter: eight threads released by one barrier import
# enum_backport.  Prints one JSON line.  (No profiler: on 3.8 one makes
# importlib's own module-lock deadlock detection hang now and then.)
IMPORT_RACE = r'''
import enum, json, sys, threading
N = %(threads)d
sys.setswitchinterval(1e-6)
native = hasattr(enum.EnumMeta, 'from_value')
barrier = threading.Barrier(N)
seen, errors = [], []

def worker():
    try:
        barrier.wait()
        import enum_backport
        class Color(enum.Enum):
            RED = 1
        seen.append({
            'module': id(enum_backport),
            'patched': list(enum_backport.PATCHED),
            'patched_id': id(enum_backport.PATCHED),
            'has': [name for name in ('from_value', 'from_name')
                    if name in vars(enum.EnumMeta)],
            'from_value': Color.from_value(1) is Color.RED,
            'default': Color.from_value(2, None) is None,
            'from_name': Color.from_name('RED') is Color.RED,
            'in': (1 in Color, 2 in Color, [] in Color),
            'dir': 'from_value' in dir(Color) or 'from_name' in dir(Color),
        })
    except BaseException as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=worker) for _ in range(N)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
# A second application would have recorded the backport's own functions
# as the originals it replaced.
twice = [name for name, function in vars(enum.EnumMeta).items()
         if getattr(function, '__enum_backport_original__', None) is function]
print(json.dumps({'native': native, 'twice': twice, 'seen': seen, 'errors': errors}))
'''


def child_environment():
    """This process's environment, with enum_backport's directory on PYTHONPATH."""
    env = dict(os.environ)
    paths = [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p]
    try:
        import enum_backport as backport
    except ImportError:
        return env, False
    where = os.path.dirname(os.path.dirname(os.path.abspath(backport.__file__)))
    if where not in paths:
        paths.insert(0, where)
    env['PYTHONPATH'] = os.pathsep.join(paths)
    return env, True


class ConcurrentImportTests(unittest.TestCase):

    RUNS = 5   # fresh interpreters; a race has several chances to show

    def test_eight_threads_import_at_once(self):
        env, found = child_environment()
        if not found:
            self.skipTest('enum_backport is not importable here (Python %s has '
                          'EnumType.from_value natively)' % sys.version.split()[0])
        for run in range(self.RUNS):
            with self.subTest(run=run):
                child = subprocess.run(
                    [sys.executable, '-c', IMPORT_RACE % {'threads': THREADS}],
                    env=env, capture_output=True, text=True, timeout=120)
                self.assertEqual(child.returncode, 0, child.stderr)
                report = json.loads(child.stdout.strip().splitlines()[-1])
                self.assertEqual(report['errors'], [])
                seen = report['seen']
                self.assertEqual(len(seen), THREADS)
                self.assertEqual(len({s['module'] for s in seen}), 1)
                self.assertEqual(len({s['patched_id'] for s in seen}), 1)
                for s in seen:
                    self.assertEqual(s['has'], ['from_value', 'from_name'])
                    self.assertTrue(s['from_value'] and s['default'] and s['from_name'])
                    self.assertEqual(s['in'], [True, False, False])
                    self.assertFalse(s['dir'])  # dir() lists members and dunders only
                self.assertEqual(report['twice'], [])
                if report['native']:
                    self.assertEqual(seen[0]['patched'], [])
                else:
                    # (__new__ too where enum keeps no record of unhashable
                    # member values, 3.8-3.10.)
                    patched = set(seen[0]['patched'])
                    self.assertLessEqual(
                        {'__contains__', 'from_name', 'from_value'}, patched)
                    self.assertLessEqual(
                        patched, {'__contains__', 'from_name', 'from_value', '__new__'})


# ---------------------------------------------------------------- lookups

def make_flags():
    """Fresh Flag classes: each test and each oracle gets its own."""
    class Perm(enum.Flag):
        R = 1
        W = 2
        X = 4
        S = 16     # no member for bit 8
        T = 32
        RW = 3
        NONE = 0

    class Bits(enum.IntFlag):
        A = 1
        B = 2
        C = 4
        D = 8

    classes = [Perm, Bits]
    if HAS_BOUNDARY:
        classes += [
            enum.Flag('Conform', [('A', 1), ('C', 4)], boundary=enum.CONFORM),
            enum.IntFlag('Strict', [('A', 1), ('B', 2), ('C', 4)], boundary=enum.STRICT),
        ]
    return classes


PROBES = list(range(-40, 80)) + [2 ** 40, -2 ** 40, 2 ** 64 + 5, 'R', 'A', 1.5, None, b'\x01']
NAMES = ['R', 'W', 'RW', 'A', 'B', 'D', 'NONE', 'R|W', 'A|B', 'Z', 'mro', 'from_value']


def answer(result, cls):
    """A comparable account of a lookup's result."""
    if isinstance(result, cls):
        return ('member', result._value_, result._name_)
    if result is None:
        return ('miss',)
    return ('other', result)


def expectations(cls):
    """The right answers, worked out on `cls`, a copy no other thread sees."""
    values = {}
    for value in PROBES:
        try:
            result = cls(value) if isinstance(value, int) else None
        except ValueError:
            result = None
        values[value] = answer(result, cls)
    names = {name: ('member', cls.__members__[name]._value_, cls.__members__[name]._name_)
             if name in cls.__members__ else ('miss',) for name in NAMES}
    return values, names


def _stdlib_decompose_race(exc):
    """True for 3.8's own race in enum._decompose, which is not ours.

    There, creating a composite copies the value map with
    list(_value2member_map_.items()); a collection during the copy can let
    another thread add a composite, and the copy raises RuntimeError.  The
    constructor hits it as often as from_value does (both reach it through
    the stock _missing_); 3.9 rewrote _decompose and it is gone.
    """
    if sys.version_info >= (3, 9) or 'changed size during iteration' not in str(exc):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].name == '_decompose' and (
        os.path.basename(frames[-1].filename) == 'enum.py')


class ConcurrentLookupTests(unittest.TestCase):

    ROUNDS = 30

    def setUp(self):
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)   # switch threads as often as possible
        self.addCleanup(sys.setswitchinterval, interval)

    def race(self, cls, expected_values, expected_names):
        errors = []
        barrier = threading.Barrier(THREADS)

        def reader(seed):
            order = list(PROBES)
            random.Random(seed).shuffle(order)
            barrier.wait()
            for _ in range(self.ROUNDS):
                for value in order:
                    expected = expected_values[value]
                    found = value in cls
                    if found is not (expected[0] == 'member'):
                        errors.append('%r in %s gave %r' % (value, cls.__name__, found))
                    got = answer(from_value(cls, value, None), cls)
                    if got != expected:
                        errors.append('from_value(%r, None) gave %r, not %r'
                                      % (value, got, expected))
                    try:
                        got = answer(from_value(cls, value), cls)
                    except ValueError:
                        got = ('miss',)
                    if got != expected:
                        errors.append('from_value(%r) gave %r, not %r' % (value, got, expected))
                for name in NAMES:
                    got = answer(from_name(cls, name, None), cls)
                    if got != expected_names[name]:
                        errors.append('from_name(%r) gave %r' % (name, got))

        def writer(seed):
            # Makes the composites, by the constructor and by from_value.
            order = [v for v in PROBES if isinstance(v, int)]
            random.Random(seed).shuffle(order)
            barrier.wait()
            for round_ in range(self.ROUNDS):
                for value in order:
                    expected = expected_values[value]
                    try:
                        if round_ % 2:
                            got = answer(cls(value), cls)
                        else:
                            got = answer(from_value(cls, value), cls)
                    except ValueError:
                        got = ('miss',)
                    if got != expected:
                        errors.append('creating %r gave %r, not %r' % (value, got, expected))

        def guarded(target, seed):
            try:
                target(seed)
            except RuntimeError as exc:
                if not _stdlib_decompose_race(exc):
                    errors.append('%s raised %r\n%s' % (target.__name__, exc,
                                                        traceback.format_exc()))
            except BaseException as exc:   # anything at all is a failure
                errors.append('%s raised %r\n%s' % (target.__name__, exc,
                                                    traceback.format_exc()))

        threads = [threading.Thread(target=guarded, args=(reader if i % 3 else writer, i))
                   for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors[:10], [], '%d wrong answers' % len(errors))

    def test_lookups_while_composites_are_made(self):
        for oracle, cls in zip(make_flags(), make_flags()):
            with self.subTest(cls=cls.__name__):
                expected_values, expected_names = expectations(oracle)
                # The copy under test has made no composite yet.
                self.assertLessEqual(set(cls._value2member_map_.values()),
                                     set(cls._member_map_.values()))
                self.race(cls, expected_values, expected_names)
                # Afterwards every answer still holds, on one thread.
                for value in PROBES:
                    self.assertEqual(answer(from_value(cls, value, None), cls),
                                     expected_values[value], value)


if __name__ == '__main__':
    unittest.main()
