"""What `in` and from_value cost: O(1), nothing kept, nothing raised.

No timings: the tests count hashes and comparisons, measure memory that
outlives a stream of calls, and watch for exceptions raised on the way.
"""

import enum
import functools
import gc
import sys
import unittest

try:
    import tracemalloc
except ImportError:   # PyPy: memory is counted in live objects instead
    tracemalloc = None
from enum import Enum, Flag, IntEnum, IntFlag

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import HAS_BOUNDARY, Sentinel, backport_only, needs_flag_pr
from _support import Perm, IPerm, Empty

COUNTS = {'eq': 0, 'hash': 0}


class Key:
    """A hashable member value that counts its hashes and comparisons."""

    __slots__ = ('n',)

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        COUNTS['eq'] += 1
        if isinstance(other, Key):
            return self.n == other.n
        return NotImplemented

    def __hash__(self):
        COUNTS['hash'] += 1
        return hash(self.n)

    def __repr__(self):
        return 'Key(%d)' % self.n


class Bit(int):
    """An int flag value that counts its hashes and comparisons."""

    def __eq__(self, other):
        COUNTS['eq'] += 1
        return int.__eq__(self, other)

    def __hash__(self):
        COUNTS['hash'] += 1
        return int.__hash__(self)


def counted(func, *args):
    COUNTS['eq'] = COUNTS['hash'] = 0
    func(*args)
    return dict(COUNTS)


def contains(cls, value):
    return value in cls


def or_none(lookup):
    """`lookup` (a class's from_value) with default=None."""
    return functools.partial(lookup, default=None)


class Color(Enum):
    RED = 1
    GREEN = 2


class Sets(Enum):
    ONE = {1}
    THREE = 3


class ConstantCostTest(unittest.TestCase):
    """The same number of hashes and comparisons for 10 members as for 1,000."""

    sizes = (10, 1000)

    def key_enum(self, size):
        return Enum('Keys%d' % size, [('K%d' % i, Key(i)) for i in range(size)])

    def bit_flag(self, size, base=Flag):
        # At most 61 bits: 2**k and 2**(k+61) hash alike, and a dict compares
        # keys of equal hash whatever the lookup code does.
        size = min(size, 61)
        return base('Bits%d' % size, [('B%d' % i, Bit(1 << i)) for i in range(size)])

    def costs(self, operations):
        """{size: [counts of each operation]} for each size."""
        result = {}
        for size in self.sizes:
            result[size] = [counted(*op) for op in operations(size)]
        return result

    def assert_constant(self, costs, limit):
        small, large = (costs[size] for size in self.sizes)
        self.assertEqual(small, large)
        for count in large:
            self.assertLessEqual(count['eq'] + count['hash'], limit, costs)

    def test_enum_hits_and_misses(self):
        def operations(size):
            cls = self.key_enum(size)
            first, last, miss = Key(0), Key(size - 1), Key(-1)
            return [
                (contains, cls, first),
                (contains, cls, last),
                (contains, cls, miss),
                (cls.from_value, first),
                (cls.from_value, last),
                (or_none(cls.from_value), miss),
                (contains, cls, 'not a key'),
                (or_none(cls.from_value), 'not a key'),
            ]
        costs = self.costs(operations)
        self.assert_constant(costs, 4)
        # and the hits really were found by hashing
        for size in self.sizes:
            self.assertGreaterEqual(costs[size][0]['hash'], 1)

    def test_enum_member_probe(self):
        def operations(size):
            cls = self.key_enum(size)
            member = cls['K%d' % (size - 1)]
            return [(contains, cls, member), (cls.from_value, member)]
        self.assert_constant(self.costs(operations), 4)

    def test_flag_misses(self):
        def operations(size):
            cls = self.bit_flag(size)
            return [
                (contains, cls, 'x'),
                (or_none(cls.from_value), 'x'),
                (contains, cls, 2.5),
                (or_none(cls.from_value), 2.5),
            ]
        self.assert_constant(self.costs(operations), 4)

    def test_flag_member_values(self):
        def operations(size):
            cls = self.bit_flag(size)
            top = 1 << (len(cls) - 1)
            return [(contains, cls, 1), (cls.from_value, 1), (cls.from_value, top),
                    (contains, cls, top)]
        self.assert_constant(self.costs(operations), 4)


@needs_flag_pr
class NoPseudoMemberTest(unittest.TestCase):

    def test_in_creates_no_pseudo_member(self):
        for base in (Flag, IntFlag):
            with self.subTest(base=base):
                class P(base):
                    R = 4
                    W = 2
                    X = 1
                composite = P.R | P.X   # made before the snapshot
                values = dict(P._value2member_map_)
                names = dict(P._member_map_)
                for value in (0, 3, 6, 7, -1, -2, -8, composite):
                    self.assertIs(value in P, True)
                self.assertEqual(P._value2member_map_, values)
                self.assertEqual(P._member_map_, names)
                # from_value, like the constructor, gives (and may cache) the
                # very object the constructor gives.
                self.assertIs(P.from_value(3), P(3))
                self.assertIs(P(5), P.from_value(5))
                self.assertIs(P.from_value(6, default=None), P.W | P.R)
                self.assertIs(P.from_value(0), P(0))

    def test_stream_of_distinct_values_keeps_nothing(self):
        for base in (Flag, IntFlag):
            with self.subTest(base=base):
                big = base('Big', ['F%d' % i for i in range(20)])
                self.assertEqual(len(big), 20)
                values = dict(big._value2member_map_)
                self.assertIs(3 in big, True)   # warm up whatever is made once

                def stream():
                    found = 0
                    for value in range(1, 30001):
                        if value in big:
                            found += 1
                        if not value % 1000 and len(big._value2member_map_) != len(values):
                            break   # caching already: fail now, not after 30,000
                    return found

                found, grown, limit = self.measure(stream)
                self.assertEqual(found, 30000)
                self.assertEqual(big._value2member_map_, values)
                self.assertLess(grown, limit)

    @staticmethod
    def measure(work):
        """Return work()'s result, what it left allocated, and the limit for that.

        Bytes traced by tracemalloc; on PyPy, which has none, live objects
        (its gc.get_objects() lists them all).
        """
        gc.collect()
        if tracemalloc is None:
            before = len(gc.get_objects())
            result = work()
            gc.collect()
            return result, len(gc.get_objects()) - before, 500
        was_tracing = tracemalloc.is_tracing()
        if not was_tracing:
            tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            result = work()
            gc.collect()
            return result, tracemalloc.get_traced_memory()[0] - before, 256 * 1024
        finally:
            if not was_tracing:
                tracemalloc.stop()


class NothingRaisedTest(unittest.TestCase):
    """A miss with a default, on a class with the stock _missing_, raises nothing.

    A cost target of the backport's; the CPython change's from_value is
    the constructor under `except ValueError`, as small as it can be.
    """

    @staticmethod
    def raised_during(func, *args, **kwargs):
        """Call func(*args, **kwargs); return its result and the exceptions raised inside."""
        events = []

        def local(frame, event, arg):
            if event == 'exception':
                events.append((arg[0].__name__, frame.f_code.co_name))
            return local

        def trace(frame, event, arg):
            return local

        def profile(frame, event, arg):
            if event == 'c_exception':
                events.append(('c_exception', getattr(arg, '__name__', repr(arg))))

        old_trace, old_profile = sys.gettrace(), sys.getprofile()
        sys.settrace(trace)
        sys.setprofile(profile)
        try:
            result = func(*args, **kwargs)
        finally:
            sys.setprofile(old_profile)
            sys.settrace(old_trace)
        return result, events

    def test_the_probe_sees_exceptions(self):
        # What the test relies on, shown on this interpreter: an exception
        # raised and caught in Python code, and one raised by a C function.
        def caught_in_python():
            try:
                {}[0]
            except KeyError:
                return 'caught'

        def caught_from_c():
            try:
                int('x')
            except ValueError:
                return 'caught'

        for func in (caught_in_python, caught_from_c):
            with self.subTest(func=func.__name__):
                result, events = self.raised_during(func)
                self.assertEqual(result, 'caught')
                self.assertTrue(events)
        _, events = self.raised_during(dict().get, 0)
        self.assertEqual(events, [])

    def misses(self):
        misses = [
            (Color, 9), (Color, 'RED'), (Color, None), (Color, 1.5), (Color, Perm.R),
            (Sets, 2), (Sets, 'x'),
            (Perm, 8), (Perm, 16), (Perm, -9), (Perm, 'a'), (Perm, 2.5), (Perm, None),
            (IPerm, 'a'), (IPerm, 2.5),
            (Empty, 1), (Enum, 'x'), (IntEnum, 1), (Flag, 0), (IntFlag, 1),
        ]
        if HAS_BOUNDARY:
            class Strict(IntFlag, boundary=enum.STRICT):
                A = 1
                C = 4
            misses += [(Strict, 2), (Strict, 8), (Strict, -1)]
        return misses

    @backport_only
    def test_miss_with_default(self):
        sentinel = Sentinel('default')
        for cls, value in self.misses():
            with self.subTest(cls=cls, value=value):
                cls.from_value(value, default=sentinel)   # once, for anything made lazily
                result, events = self.raised_during(cls.from_value, value, default=sentinel)
                self.assertIs(result, sentinel)
                self.assertEqual(events, [])

    def test_hit(self):
        for cls, value in ((Color, 1), (Perm, 4), (Perm, Perm.R), (IPerm, 1)):
            with self.subTest(cls=cls, value=value):
                result, events = self.raised_during(cls.from_value, value)
                self.assertIs(result, cls(value))
                self.assertEqual(events, [])


if __name__ == '__main__':
    unittest.main()
