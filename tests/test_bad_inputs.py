"""Bad inputs through every lookup, on every flavour of enum.

A corpus of awkward probes (NaN, huge ints, unhashable containers, objects
whose ``__eq__``, ``__hash__`` or ``__repr__`` misbehave, other enums'
members, enum classes, long and NUL-bearing strings, sunder and dunder
names) goes through ``from_value`` and ``from_name``, each with and without
a default, and through ``in``, on classes of every flavour and, from 3.11,
every Flag boundary.  What SPEC.md allows, and so what these tests allow:

* ``from_value``/``from_name`` without a default: a result, or ValueError.
  With a default: a result or the default, never an exception.
* ``in``: True or False.  An unhashable probe is answered, never TypeError.
* A probe's own failure (``ProbeError`` below) may propagate only from an
  operation the lookup cannot do without:

  - hashing: every value lookup starts with the value map, and from_name
    with the member map, so a ``__hash__`` that raises may escape anywhere;
  - equality: SPEC.md compares by ``==`` only an unhashable probe (with each
    member's value) or any probe with a member's unhashable value, so a
    raising ``__eq__`` may escape only there (or, for a hashable probe,
    where its hash collides with a key, which the probes here avoid);
  - repr: only the ValueError of a miss without a default needs it.

  Anything else escaping is a failure: a lookup that compares what it need
  not compare, or that formats a message it will not raise.
* A miss, and ``in`` whatever its answer, leave the class as it was: value
  map, member map and member names hold the same objects afterwards.  Only
  a Flag's hit may add (a pseudo-member), as its constructor does.
* Memory stays flat over many repetitions of the whole corpus after a
  warm-up, and over a stream of distinct values through ``in``: under 64
  KiB of growth traced by tracemalloc, or, on PyPy, which has no
  tracemalloc, under 500 more live objects (PyPy's gc.get_objects() lists
  every object, so a cached pseudo-member or a kept traceback shows).

Plain unittest: an interpreter carrying the CPython change runs it natively.
"""

import enum
import gc
import sys
import unittest

try:
    import tracemalloc
except ImportError:   # PyPy: memory is counted in live objects instead
    tracemalloc = None
import warnings

if not hasattr(enum.EnumMeta, 'from_value'):
    # An interpreter without the change: test the backport.  If it cannot
    # be imported the ImportError fails this module loudly.
    import enum_backport  # noqa: F401

EnumType = enum.EnumMeta
# The interpreter's own from_value (the CPython change), not the backport's.
NATIVE = not getattr(EnumType.from_value, '__enum_backport__', False)
from_value = EnumType.from_value
from_name = EnumType.from_name

HAS_BOUNDARY = hasattr(enum, 'FlagBoundary')
GROWTH_LIMIT = 64 * 1024     # bytes, where tracemalloc traces them
OBJECT_GROWTH_LIMIT = 500    # live objects, where it does not (PyPy)


def live_objects():
    gc.collect()
    return len(gc.get_objects())


class ProbeError(Exception):
    """What a misbehaving probe raises from its own dunder methods."""


# A hash no member value, member name or value-map key here has, so that a
# dict lookup never needs the probe's __eq__.
ODD_HASH = 0x5EED5EED


class EqRaises:
    def __eq__(self, other):
        raise ProbeError('__eq__')

    def __hash__(self):
        return ODD_HASH

    def __repr__(self):
        return '<EqRaises>'


class EqRaisesUnhashable:
    __hash__ = None

    def __eq__(self, other):
        raise ProbeError('__eq__')

    def __repr__(self):
        return '<EqRaisesUnhashable>'


class HashRaises:
    def __hash__(self):
        raise ProbeError('__hash__')

    def __repr__(self):
        return '<HashRaises>'


class HashTypeError:
    """Unhashable the way a list is: hash() raises TypeError."""

    def __hash__(self):
        raise TypeError('unhashable: HashTypeError')

    def __repr__(self):
        return '<HashTypeError>'


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __hash__(self):
        return ODD_HASH

    def __repr__(self):
        return '<AlwaysEqual>'


class AlwaysEqualUnhashable:
    __hash__ = None

    def __eq__(self, other):
        return True

    def __repr__(self):
        return '<AlwaysEqualUnhashable>'


class ReprRaises:
    def __repr__(self):
        raise ProbeError('__repr__')


# ---------------------------------------------------------------- classes

class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1


class Mixed(enum.Enum):
    INT = 1
    TEXT = 'text'
    NONE = None
    PAIR = (1, 2)
    NAN = float('nan')
    LIST = [1, 2]
    SET = {1}
    DICT = {'a': 1}
    BYTES = bytearray(b'ab')


class Number(enum.IntEnum):
    ONE = 1
    MINUS = -1
    BIG = 2 ** 64
    UNO = 1


class Text(str, enum.Enum):
    A = 'a'
    NAME = 'name'


class Perm(enum.Flag):
    R = 4
    W = 2
    X = 1
    RWX = 7
    NONE = 0


class Bits(enum.IntFlag):
    A = 1
    B = 2
    D = 8


class Lenient(enum.Enum):
    """A non-Flag with its own _missing_ (never consulted by `in`)."""

    RED = 'red'
    BLUE = 'blue'

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            return cls._value2member_map_.get(value.lower())
        return None


class FlagWithMissing(enum.Flag):
    """A Flag with its own _missing_, which `in` consults."""

    A = 1
    B = 2

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str) and value.isdigit():
            return cls._value2member_map_.get(int(value))
        return None


Empty = enum.Enum('Empty', [])
EmptyFlag = enum.Flag('EmptyFlag', [])


class EmptyWithMissing(enum.Enum):
    """No members: every lookup misses, and _missing_ is never consulted."""

    @classmethod
    def _missing_(cls, value):
        raise KeyError('_missing_ of a class without members was consulted')


CLASSES = [Color, Mixed, Number, Text, Perm, Bits, Lenient, FlagWithMissing,
           Empty, EmptyFlag, EmptyWithMissing]
if hasattr(enum, 'StrEnum'):
    class Word(enum.StrEnum):
        RED = 'red'
        MRO = 'mro'

    CLASSES.append(Word)
if HAS_BOUNDARY:
    for _base in (enum.Flag, enum.IntFlag):
        for _boundary in (enum.STRICT, enum.CONFORM, enum.EJECT, enum.KEEP):
            CLASSES.append(_base(
                'Gap%s%s' % (_base.__name__, _boundary.name.title()),
                [('A', 1), ('C', 4), ('AC', 5)],
                boundary=_boundary, module=__name__))


def has_unhashable_values(cls):
    for member in cls._member_map_.values():
        try:
            hash(member._value_)
        except TypeError:
            return True
    return False


class OtherColor(enum.Enum):
    RED = 1


class OtherPerm(enum.Flag):
    R = 1
    W = 2


def corpus():
    """The bad inputs, made anew (tests must not share mutable probes)."""
    return [
        None, float('nan'), float('inf'), float('-inf'), -0.0, 1e308,
        2 ** 200, -2 ** 200, -1, -2 ** 63, 2 ** 64 + 1, True, False, 1j,
        b'red', b'', b'\x00', bytearray(b'red'), bytearray(),
        [], [1, 2], [[]], {}, {'a': 1}, {1: 2}, set(), {1}, {1, 2},
        frozenset(), frozenset({1}), ([],), ([1], 2), (1, [2]), (1, 2),
        EqRaises(), EqRaisesUnhashable(), HashRaises(), HashTypeError(),
        AlwaysEqual(), AlwaysEqualUnhashable(), ReprRaises(), object(),
        OtherColor.RED, OtherPerm.R, OtherPerm.R | OtherPerm.W,
        Color, Perm, enum.Enum, enum.Flag, type, Ellipsis, len,
        '', '\x00', 'RED\x00', 'red\x00', 'x' * 100000, 'R' * 5000,
        'mro', 'from_value', 'from_name', 'name', 'value', '__class__',
        '__members__', '__init__', '__dict__', '_missing_', '_value_',
        '_name_', '_member_map_', '_generate_next_value_', '_ignore_',
        'RED|BLUE', 'R|W', 'red', 'Red',
    ]


DEFAULT = object()


def snapshot(cls):
    return (
        list(cls._value2member_map_.items()),
        list(cls._member_map_.items()),
        list(cls._member_names_),
    )


def same(before, after):
    return all(
        len(old) == len(new) and all(
            (a is b) if not isinstance(a, tuple) else (a[0] is b[0] and a[1] is b[1])
            for a, b in zip(old, new))
        for old, new in zip(before, after))


def kind_of(probe):
    """Which of the probe's own operations may fail: a set of names."""
    return {
        EqRaises: {'eq'}, EqRaisesUnhashable: {'eq'}, HashRaises: {'hash'},
        ReprRaises: {'repr'},
    }.get(type(probe), set())


def unhashable(probe):
    try:
        hash(probe)
    except TypeError:
        return True
    except ProbeError:
        return False
    return False


class BadInputTests(unittest.TestCase):

    def setUp(self):
        catcher = warnings.catch_warnings()
        catcher.__enter__()
        self.addCleanup(catcher.__exit__, None, None, None)
        warnings.simplefilter('error')   # a lookup that warns is a failure too

    def allowed_probe_errors(self, cls, probe, op, with_default):
        """The ProbeError sources SPEC.md lets `op` trigger (see the docstring)."""
        fails = kind_of(probe)
        allowed = set()
        if 'hash' in fails:
            allowed.add('hash')
        if 'eq' in fails and op != 'from_name':
            if (unhashable(probe) and cls._member_map_) or has_unhashable_values(cls):
                allowed.add('eq')
        if 'repr' in fails and op != 'in' and not with_default:
            allowed.add('repr')
        if 'repr' in fails and op == 'from_value' and with_default and NATIVE:
            # The CPython change's from_value is the constructor under
            # `except ValueError`, and the constructor builds its message
            # (repr) for every miss; the backport's builds none with a default.
            allowed.add('repr')
        return allowed

    def attempt(self, cls, probe, op, with_default):
        """Run one lookup; return ('result', r), ('ValueError', e) or ('probe', e)."""
        if op == 'in':
            call = lambda: probe in cls                                # noqa: E731
        elif op == 'from_value':
            call = ((lambda: from_value(cls, probe, default=DEFAULT)) if with_default
                    else (lambda: from_value(cls, probe)))
        else:
            call = ((lambda: from_name(cls, probe, default=DEFAULT)) if with_default
                    else (lambda: from_name(cls, probe)))
        try:
            return 'result', call()
        except ProbeError as exc:
            return 'probe', exc
        except ValueError as exc:
            return 'ValueError', exc

    def check(self, cls, probe, op, with_default):
        what = '%s(%s, %s, default=%s)' % (
            op, cls.__name__, type(probe).__name__, with_default)
        before = snapshot(cls)
        outcome, detail = self.attempt(cls, probe, op, with_default)
        after = snapshot(cls)
        if outcome == 'probe':
            allowed = self.allowed_probe_errors(cls, probe, op, with_default)
            self.assertIn(detail.args[0].strip('_'), allowed,
                          '%s: the probe\'s %s was called' % (what, detail.args[0]))
            self.assertTrue(same(before, after), what + ' changed the class')
            return
        if outcome == 'ValueError':
            self.assertNotEqual(op, 'in', what)
            self.assertFalse(with_default, '%s raised %r' % (what, detail))
            self.assertTrue(same(before, after), what + ' (a miss) changed the class')
            return
        result = detail
        if op == 'in':
            self.assertIsInstance(result, bool, what)
            self.assertTrue(same(before, after), what + ' changed the class')
        elif result is DEFAULT:
            self.assertTrue(with_default, what)
            self.assertTrue(same(before, after), what + ' (a miss) changed the class')
        elif op == 'from_name':
            self.assertIs(result, cls.__members__[probe], what)
            self.assertTrue(same(before, after), what + ' changed the class')
        else:
            ejected = (HAS_BOUNDARY and issubclass(cls, enum.Flag)
                       and cls._boundary_ is enum.EJECT and type(result) is int)
            self.assertTrue(isinstance(result, cls) or ejected,
                            '%s returned %r' % (what, result))
            if not issubclass(cls, enum.Flag):
                self.assertTrue(same(before, after), what + ' changed the class')

    def test_corpus(self):
        probes = corpus()
        for cls in CLASSES:
            for index, probe in enumerate(probes):
                for op in ('in', 'from_value', 'from_name'):
                    for with_default in ((False,) if op == 'in' else (True, False)):
                        with self.subTest(cls=cls.__name__, probe=index,
                                          type=type(probe).__name__,
                                          op=op, default=with_default):
                            self.check(cls, probe, op, with_default)

    def test_unhashable_probes_are_answered(self):
        # SPEC.md: `[] in Color` is False, never TypeError; equality decides.
        for cls in CLASSES:
            for probe in ([], {}, set(), bytearray(), ([],), HashTypeError()):
                with self.subTest(cls=cls.__name__, probe=probe):
                    self.assertFalse(probe in cls)
        self.assertTrue({1} in Mixed)
        self.assertTrue([1, 2] in Mixed)
        self.assertTrue(frozenset({1}) in Mixed)
        self.assertTrue(AlwaysEqualUnhashable() in Color)
        self.assertFalse(AlwaysEqualUnhashable() in Empty)
        self.assertIs(from_value(Mixed, frozenset({1})), Mixed.SET)
        self.assertIs(from_value(Mixed, bytes(b'ab')), Mixed.BYTES)

    # -- memory -----------------------------------------------------------

    def run_corpus(self, probes, repetitions):
        for _ in range(repetitions):
            for cls in CLASSES:
                for probe in probes:
                    for call in (
                        lambda: probe in cls,
                        lambda: from_value(cls, probe, default=DEFAULT),
                        lambda: from_value(cls, probe),
                        lambda: from_name(cls, probe, default=DEFAULT),
                        lambda: from_name(cls, probe),
                    ):
                        try:
                            call()
                        except (ValueError, ProbeError):
                            pass

    def measure(self, warm_up, work):
        """What work() left allocated that warm_up() did not: (amount, limit, unit)."""
        if tracemalloc is None:
            warm_up()
            base = live_objects()
            work()
            return live_objects() - base, OBJECT_GROWTH_LIMIT, 'live objects'
        gc.collect()
        already = tracemalloc.is_tracing()
        if not already:
            tracemalloc.start()
            self.addCleanup(tracemalloc.stop)
        warm_up()
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base, GROWTH_LIMIT, 'bytes'

    def test_memory_is_flat_over_the_corpus(self):
        probes = corpus()
        growth, limit, unit = self.measure(lambda: self.run_corpus(probes, 3),
                                           lambda: self.run_corpus(probes, 30))
        self.assertLess(growth, limit, '%d %s more after 30 passes of the corpus' % (growth, unit))

    def test_memory_is_flat_over_distinct_values(self):
        # SPEC.md: a stream of distinct flag values through `in` must not
        # grow memory (no pseudo-member is made or cached to answer), and
        # neither may a stream of misses through from_value.
        flags = [cls for cls in CLASSES if issubclass(cls, enum.Flag)]
        others = [cls for cls in CLASSES if not issubclass(cls, enum.Flag)]

        def stream(start, stop):
            for i in range(start, stop):
                for cls in flags:
                    i in cls
                    (2 ** 70 + i) in cls
                    -i in cls
                for cls in others:
                    (2 ** 70 + i) in cls
                    from_value(cls, 2 ** 70 + i, default=None)
                    from_value(cls, 'miss %d' % i, default=None)
                    from_name(cls, 'miss %d' % i, default=None)

        growth, limit, unit = self.measure(lambda: stream(0, 500), lambda: stream(500, 5500))
        self.assertLess(growth, limit, '%d %s more after 5000 distinct values' % (growth, unit))


if __name__ == '__main__':
    unittest.main()
