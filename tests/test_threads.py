"""Threads: importing the backport at once, and lookups racing composites.

* Eight threads of a fresh interpreter import enum_backport at the same
  moment: each sees the patched methods, and EnumType is patched by exactly
  one call (on an interpreter that carries the change, by none).
* Eight threads ask a Flag for values (``in``, ``from_value`` with and
  without a default, ``from_name``) while some of them create composite
  pseudo-members through the constructor and through ``from_value``: no
  exception, and every answer is the one worked out beforehand on a copy of
  the class that no other thread touches.
* The stress test: eight threads released by one barrier look up values
  and names of an Enum, an IntEnum, a Flag and an IntFlag (``in``,
  ``from_value``, ``from_name``), racing to create the same new
  pseudo-members.  Every answer must be the one a single thread got on a
  copy of the class, and a value must give one object in every thread
  (``Perm(v) is Perm(v)`` across threads).  On a free-threaded build
  (``Py_GIL_DISABLED``) it first asserts that the GIL really is off, so
  that the threads do run at once.

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
import sysconfig
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
FREE_THREADED = bool(sysconfig.get_config_var('Py_GIL_DISABLED'))

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
            'patched': list(enum_backport._PATCHED),
            'patched_id': id(enum_backport._PATCHED),
            'has': [name for name in ('from_value', 'from_name')
                    if name in vars(enum.EnumMeta)],
            'from_value': Color.from_value(1) is Color.RED,
            'default': Color.from_value(2, default=None) is None,
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


# Run in a fresh interpreter: record each time a thread takes a module's
# import lock that it already holds, while enum_backport (and with it
# enum_backport_nopatch) is imported.  Prints one JSON line.
REENTRY = r'''
import _frozen_importlib as bootstrap, _thread, json
acquire = bootstrap._ModuleLock.acquire
again = []
def recording(lock):
    if lock.owner == _thread.get_ident():
        again.append(lock.name)
    return acquire(lock)
bootstrap._ModuleLock.acquire = recording
import enum_backport
bootstrap._ModuleLock.acquire = acquire
print(json.dumps({'new_check': hasattr(bootstrap, '_has_deadlocked'), 'again': again}))
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

    def environment(self):
        """The child's environment; skips where enum_backport is not importable."""
        env, found = child_environment()
        if not found:
            self.skipTest('enum_backport is not importable here (Python %s has '
                          'EnumType.from_value natively)' % sys.version.split()[0])
        return env

    def report(self, script, env):
        """Run SCRIPT in a fresh interpreter; the JSON line it printed last."""
        child = subprocess.run([sys.executable, '-c', script], env=env,
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(child.returncode, 0, child.stderr)
        return json.loads(child.stdout.strip().splitlines()[-1])

    def test_import_does_not_take_its_own_lock_again(self):
        # Up to 3.11 importlib's deadlock check follows the chain of locks
        # that threads wait for; a thread taking a lock it already holds (as
        # `from . import x` in a package's __init__ does) makes that chain a
        # loop, in which a thread waiting for the same import spins for ever
        # (bpo-38091).  3.12's check (gh-91351) keeps track of where it has
        # been, and 3.14 takes a package's lock again on purpose.
        env = self.environment()
        report = self.report(REENTRY, env)
        if report['new_check']:
            self.skipTest("importlib's deadlock check is 3.12's (gh-91351)")
        ours = [name for name in report['again']
                if name.split('.')[0] in ('enum_backport', 'enum_backport_nopatch')]
        self.assertEqual(ours, [])

    def test_eight_threads_import_at_once(self):
        env = self.environment()
        for run in range(self.RUNS):
            with self.subTest(run=run):
                report = self.report(IMPORT_RACE % {'threads': THREADS}, env)
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
                    # (__new__ too where the backport notes classes as they
                    # are made, 3.8-3.11.)
                    patched = set(seen[0]['patched'])
                    added = {'__contains__', 'from_name', 'from_value', '__init_subclass__'}
                    self.assertLessEqual(added, patched)
                    self.assertLessEqual(patched, added | {'__new__'})


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
                    got = answer(from_value(cls, value, default=None), cls)
                    if got != expected:
                        errors.append('from_value(%r, default=None) gave %r, not %r'
                                      % (value, got, expected))
                    try:
                        got = answer(from_value(cls, value), cls)
                    except ValueError:
                        got = ('miss',)
                    if got != expected:
                        errors.append('from_value(%r) gave %r, not %r' % (value, got, expected))
                for name in NAMES:
                    got = answer(from_name(cls, name, default=None), cls)
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
                    self.assertEqual(answer(from_value(cls, value, default=None), cls),
                                     expected_values[value], value)


# ----------------------------------------------------------------- stress

def make_kinds():
    """Fresh classes of the four kinds: each run and each reference gets its own."""
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
        BLUE = 3
        CRIMSON = 1          # an alias
        PAIR = (1, 2)

    class Level(enum.IntEnum):
        LOW = 10
        MID = 20
        HIGH = 30

    class Perm(enum.Flag):
        R = 1
        W = 2
        X = 4
        S = 16
        RW = 3

    class Bits(enum.IntFlag):
        A = 1
        B = 2
        C = 4
        D = 8
        E = 32

    return [Color, Level, Perm, Bits]


STRESS_VALUES = list(range(-8, 70)) + [(1, 2), 'RED', 1.0, None, 2 ** 70]
STRESS_NAMES = ['RED', 'CRIMSON', 'PAIR', 'LOW', 'HIGH', 'R', 'RW', 'A', 'E',
                'R|W', 'BLUE ', 'mro', '_value_']


def reference(cls):
    """What one thread alone gets from `cls`, a copy no other thread touches."""
    values = {}
    for value in STRESS_VALUES:
        values[value] = (value in cls, answer(from_value(cls, value, default=None), cls))
    names = {name: answer(from_name(cls, name, default=None), cls) for name in STRESS_NAMES}
    return values, names


class FreeThreadedStressTests(unittest.TestCase):
    """Eight threads at once on one class of each kind; see the module docstring."""

    ROUNDS = 20

    def setUp(self):
        if FREE_THREADED:
            # Otherwise the threads take turns and the stress proves little:
            # PYTHON_GIL=1, -X gil=1 or an extension module not declared
            # free-threading-safe would have turned it back on.
            self.assertFalse(sys._is_gil_enabled(),
                             'a free-threaded build, but the GIL is enabled')
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)   # with the GIL: switch as often as possible
        self.addCleanup(sys.setswitchinterval, interval)

    def stress(self, cls, expected_values, expected_names):
        """Run the threads; return {value: [the objects each thread got]}."""
        errors = []
        seen = [{} for _ in range(THREADS)]
        barrier = threading.Barrier(THREADS)

        def worker(index):
            mine = seen[index]
            order = list(STRESS_VALUES)
            random.Random(index).shuffle(order)
            barrier.wait()
            for round_ in range(self.ROUNDS):
                for value in order:
                    found_in, expected = expected_values[value]
                    # Half the threads ask `in` first, half create first.
                    if (index + round_) % 2 and (value in cls) is not found_in:
                        errors.append('%r in %s is not %r' % (value, cls.__name__, found_in))
                    result = from_value(cls, value, default=None)
                    if answer(result, cls) != expected:
                        errors.append('from_value(%s, %r, default=None) gave %r, not %r'
                                      % (cls.__name__, value, answer(result, cls), expected))
                    elif result is not None:
                        first = mine.setdefault(value, result)
                        if first is not result:
                            errors.append('from_value(%s, %r) gave two objects in one '
                                          'thread' % (cls.__name__, value))
                    if (value in cls) is not found_in:
                        errors.append('%r in %s is not %r' % (value, cls.__name__, found_in))
                for name in STRESS_NAMES:
                    got = answer(from_name(cls, name, default=None), cls)
                    if got != expected_names[name]:
                        errors.append('from_name(%s, %r, default=None) gave %r, not %r'
                                      % (cls.__name__, name, got, expected_names[name]))

        def guarded(index):
            try:
                worker(index)
            except RuntimeError as exc:
                if not _stdlib_decompose_race(exc):
                    errors.append('raised %r\n%s' % (exc, traceback.format_exc()))
            except BaseException as exc:   # anything at all is a failure
                errors.append('raised %r\n%s' % (exc, traceback.format_exc()))

        threads = [threading.Thread(target=guarded, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors[:10], [], '%d wrong answers' % len(errors))
        objects = {}
        for mine in seen:
            for value, result in mine.items():
                objects.setdefault(value, []).append(result)
        return objects

    def test_eight_threads_agree_with_one(self):
        for oracle, cls in zip(make_kinds(), make_kinds()):
            with self.subTest(cls=cls.__name__):
                expected_values, expected_names = reference(oracle)
                objects = self.stress(cls, expected_values, expected_names)
                # One object per value across the threads, and it is the
                # one the class gives now.
                split = sorted(value for value, got in objects.items()
                               if any(o is not got[0] for o in got))
                self.assertEqual(split, [], 'values that gave different objects '
                                            'in different threads')
                for value, got in objects.items():
                    self.assertIs(got[0], from_value(cls, value), value)
                    if issubclass(cls, enum.Flag):
                        self.assertIs(cls(value), got[0], value)
                if issubclass(cls, enum.Flag):
                    # The race did create pseudo-members, or it raced nothing.
                    made = set(cls._value2member_map_) - set(
                        m._value_ for m in cls._member_map_.values())
                    self.assertTrue(made, 'no pseudo-member was created')


if __name__ == '__main__':
    unittest.main()
