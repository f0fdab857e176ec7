"""Flag and IntFlag: composites, zero, negative values and boundaries.

For a Flag whose ``_missing_`` is the stock one, ``from_value`` gives what
the constructor gives for an int (a member, a pseudo-member, or on 3.11+ an
EJECT flag's plain int), a miss where the constructor raises ValueError,
and a miss for anything that is not an int; ``in`` is True exactly when a
member would result, and creates nothing to find out.

The stock rules differ by version: 3.8-3.10 let IntFlag take any int and
Flag any value whose bits are all covered by members (a negative value
through ``~``); 3.11 added boundaries; 3.15 changed how STRICT and CONFORM
turn a negative value into bits.  The tables below hold each; for negative
values the interpreter's own constructor says which table applies, so a
release that changes the rules again fails here until a table holds them.
"""

import enum
import unittest
from decimal import Decimal
from enum import Flag, IntFlag
from fractions import Fraction

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import HAS_BOUNDARY, Sentinel, backport_only, needs_flag_pr, not_valid

MISS = 'miss'
EJECTED = 'ejected'   # an EJECT flag hands back the plain int


def abc(base=Flag, **boundary):
    class ABC(base, **boundary):
        A = 1
        B = 2
        C = 4
    return ABC


def gap(base=Flag, **boundary):
    class Gap(base, **boundary):   # no member for bit 2
        A = 1
        C = 4
    return Gap


def multi(base=Flag, **boundary):
    class Multi(base, **boundary):  # bits 2 and 4 only together
        A = 1
        BC = 6
        D = 8
    return Multi


def zero(base=Flag, **boundary):
    class Zero(base, **boundary):
        NONE = 0
        A = 1
        B = 2
    return Zero


def aliased(base=Flag, **boundary):
    class Aliased(base, **boundary):
        R = 1
        W = 2
        RW = 3
        X = 4
    return Aliased


# value -> value of the expected (pseudo-)member, MISS or EJECTED
ABC = {0: 0, 1: 1, 2: 2, 3: 3, 7: 7, -1: 7, -2: 6, -8: 0,
       8: MISS, 9: MISS, 15: MISS, -9: MISS}
if HAS_BOUNDARY:
    INT_ABC = {0: 0, 3: 3, 7: 7, 8: 8, 9: 9, 15: 15, -1: 7, -2: 6, -8: 0,
               -9: 7, -16: 16, -17: 15}
    GAP = {0: 0, 1: 1, 4: 4, 5: 5, -3: 5, -8: 0,
           2: MISS, 3: MISS, 7: MISS, 8: MISS, -1: MISS, -2: MISS, -6: MISS, -9: MISS}
else:
    INT_ABC = {0: 0, 3: 3, 7: 7, 8: 8, 9: 9, 15: 15, -1: -1, -2: -2, -8: -8,
               -9: -9, -16: -16}
    GAP = {0: 0, 1: 1, 4: 4, 5: 5, -1: 5, -2: 4, -6: 0,
           2: MISS, 3: MISS, 7: MISS, 8: MISS, -8: MISS, -9: MISS}

BOUNDARY_ABC = {
    'STRICT': {0: 0, 7: 7, -1: 7, -8: 0,
               8: MISS, 9: MISS, 15: MISS, -9: MISS, -16: MISS, -17: MISS},
    'CONFORM': {0: 0, 7: 7, 8: 0, 9: 1, 15: 7, -1: 7, -8: 0, -9: 7, -16: 0, -17: 7},
    'EJECT': {0: 0, 7: 7, -1: 7, -8: 0,
              8: EJECTED, 9: EJECTED, 15: EJECTED, -9: EJECTED, -16: EJECTED, -17: EJECTED},
    'KEEP': {0: 0, 7: 7, 8: 8, 9: 9, 15: 15, -1: 7, -8: 0, -9: 7, -16: 16, -17: 15},
}
BOUNDARY_GAP = {
    'STRICT': {5: 5, -3: 5, 2: MISS, 3: MISS, -1: MISS},
    'CONFORM': {5: 5, 2: 0, 3: 1, -1: 5, -3: 5},
    'EJECT': {5: 5, -3: 5, 2: EJECTED, 3: EJECTED, -1: EJECTED},
    'KEEP': {5: 5, 2: 2, 3: 3, -1: 7, -3: 5},
}

NON_INTS = [2.5, 3.0, 'a', 'A', '', None, b'\x01', (1,), 1j, [], {}, [1], {1}]


class TableMixin:

    def check_table(self, cls, table):
        sentinel = Sentinel('default')
        before = dict(cls._value2member_map_)
        for value, expected in table.items():
            with self.subTest(cls=cls, value=value, op='in'):
                self.assertIs(value in cls, isinstance(expected, int))
        # `in` made nothing: the map holds the same values and members.
        self.assertEqual(cls._value2member_map_, before)
        for key, member in before.items():
            self.assertIs(cls._value2member_map_[key], member)

        for value, expected in table.items():
            with self.subTest(cls=cls, value=value, op='from_value'):
                if expected is MISS:
                    self.assertIs(cls.from_value(value, default=sentinel), sentinel)
                    self.assertIsNone(cls.from_value(value, default=None))
                    # (the message: test_miss_message_for_an_invalid_int)
                    with self.assertRaises(ValueError):
                        cls.from_value(value)
                    with self.assertRaises(ValueError):
                        cls(value)   # the table agrees with the constructor
                elif expected is EJECTED:
                    result = cls.from_value(value)
                    self.assertIs(type(result), int)
                    self.assertEqual(result, value)
                    self.assertEqual(cls.from_value(value, default=sentinel), value)
                    self.assertEqual(cls(value), value)
                else:
                    result = cls.from_value(value)
                    self.assertIsInstance(result, cls)
                    self.assertEqual(result._value_, expected)
                    self.assertIs(cls.from_value(value, default=sentinel), result)
                    self.assertIs(cls(value), result)
                    self.assertIs(value in cls, True)


@needs_flag_pr
class FlagTableTest(TableMixin, unittest.TestCase):

    def test_flag(self):
        self.check_table(abc(), ABC)

    def test_intflag(self):
        self.check_table(abc(IntFlag), INT_ABC)

    def test_flag_with_a_gap(self):
        self.check_table(gap(), GAP)

    def test_single_bits_are_the_members(self):
        F = abc()
        self.assertIs(F.from_value(2), F.B)
        self.assertIs(F.from_value(F.B), F.B)
        G = gap()
        self.assertIs(G.from_value(4), G.C)
        if not HAS_BOUNDARY:
            self.assertIs(G.from_value(-2), G.C)   # ~1, through ~

    def test_negative_values_through_invert(self):
        F = abc()
        self.assertIs(F.from_value(-1), ~F(0))
        self.assertIs(F.from_value(-2), ~F.A)
        self.assertIs(F.from_value(-8), F(0))

    def test_zero(self):
        F = abc()
        self.assertIs(0 in F, True)
        self.assertIs(F.from_value(0), F(0))
        self.assertIs(F.from_value(0)._value_, 0)
        Z = zero()
        self.assertIs(0 in Z, True)
        self.assertIs(Z.from_value(0), Z.NONE)
        self.assertIs(Z.from_value(3), Z.A | Z.B)
        self.assertIs(4 in Z, False)
        I = abc(IntFlag)
        self.assertIs(I.from_value(0), I(0))

    def test_composite_member_identity(self):
        F = abc()
        self.assertIs(F.from_value(F.A | F.C), F.A | F.C)
        self.assertIs(F.from_value(5), F.A | F.C)
        I = abc(IntFlag)
        self.assertIs(I.from_value(I.A | I.C), I.A | I.C)

    def test_non_ints_miss(self):
        sentinel = Sentinel('default')
        for make, base in ((abc, Flag), (abc, IntFlag), (gap, Flag), (zero, Flag)):
            cls = make(base)   # fresh: 3.0 would hit a cached composite 3
            for value in NON_INTS:
                with self.subTest(cls=cls, base=base, value=value):
                    self.assertIs(value in cls, False)
                    self.assertIs(cls.from_value(value, default=sentinel), sentinel)
                    with self.assertRaises(ValueError) as cm:
                        cls.from_value(value)
                    self.assertEqual(str(cm.exception), not_valid(value, cls))

    def test_equal_ints_hit(self):
        F = abc()
        self.assertIs(F.from_value(1.0), F.A)
        self.assertIs(F.from_value(True), F.A)
        self.assertIs(F.from_value(4.0), F.C)
        self.assertIs(True in F, True)
        self.assertIs(F.from_value(abc(IntFlag).B), F.B)

    def test_miss_message_for_an_invalid_int(self):
        # Without a default, from_value raises what the constructor raises:
        # on 3.11+ the boundary's own message for an invalid int.  A non-int
        # gets the plain message on every version.
        class Perm(Flag):
            R = 4
            W = 2
            X = 1
        for cls, value in ((Perm, 8), (abc(), -9), (abc(), 15), (gap(), 2), (gap(), 3)):
            with self.subTest(cls=cls, value=value):
                with self.assertRaises(ValueError) as constructor:
                    cls(value)
                with self.assertRaises(ValueError) as cm:
                    cls.from_value(value)
                self.assertEqual(str(cm.exception), str(constructor.exception))
        with self.assertRaises(ValueError) as cm:
            Perm.from_value('R')
        self.assertEqual(str(cm.exception), not_valid('R', Perm))


@needs_flag_pr
class ConstructorAgreementTest(unittest.TestCase):
    """Every int from -40 to 40 (and a few large ones) against the constructor."""

    values = list(range(-40, 41)) + [2 ** 40, -2 ** 40, 2 ** 70 + 1]

    def shapes(self):
        shapes = []
        for make in (abc, gap, multi, zero, aliased):
            for base in (Flag, IntFlag):
                shapes.append((make, base, {}))
                if HAS_BOUNDARY:
                    for boundary in (enum.STRICT, enum.CONFORM, enum.EJECT, enum.KEEP):
                        shapes.append((make, base, {'boundary': boundary}))
        return shapes

    def test_agrees_with_the_constructor(self):
        for make, base, boundary in self.shapes():
            probed = make(base, **boundary)    # `in` and from_value
            oracle = make(base, **boundary)    # the stock constructor, alone
            before = dict(probed._value2member_map_)
            contained = {value: value in probed for value in self.values}
            self.assertEqual(probed._value2member_map_, before)
            for value in self.values:
                with self.subTest(cls=probed.__qualname__, base=base.__name__,
                                  boundary=boundary, value=value):
                    try:
                        expected = oracle(value)
                    except ValueError:
                        expected = None
                    result = probed.from_value(value, default=None)
                    if expected is None:
                        self.assertIsNone(result)
                    elif isinstance(expected, oracle):
                        self.assertIsInstance(result, probed)
                        self.assertEqual(result._value_, expected._value_)
                        self.assertEqual(result._name_, expected._name_)
                        self.assertIs(probed(value), result)
                    else:   # EJECT's plain int
                        self.assertIs(type(result), int)
                        self.assertEqual(result, expected)
                    self.assertIs(contained[value], isinstance(result, probed))


class HashEqualProbeTest(unittest.TestCase):
    """A probe that is not an int but equals one and hashes alike, in every history.

    The constructor looks a value up in the value map before it asks
    ``_missing_``, which refuses anything but an int: so ``F(3.0)`` raises
    until a pseudo-member for 3 has been made and cached (by ``F(3)``, by
    ``F.A | F.B``, by ``F.from_value(3)``), and from then on returns it.
    ``3.0 in F`` and ``F.from_value(3.0)`` must follow the constructor
    there too: ``x in F`` is True exactly when ``F(x)`` returns a member.
    """

    PROBES = (3.0, Fraction(3), Decimal(3))
    HISTORIES = (
        ('F(3)', lambda F: F(3)),
        ('F.A | F.B', lambda F: F.A | F.B),
        ('F.from_value(3)', lambda F: F.from_value(3)),
    )

    def assert_agrees(self, cls, history):
        """`in` and from_value give what cls(probe) gives, and make nothing."""
        for probe in self.PROBES:
            with self.subTest(cls=cls.__qualname__, history=history, probe=probe):
                before = dict(cls._value2member_map_)
                found = probe in cls
                result = cls.from_value(probe, default=None)
                self.assertEqual(cls._value2member_map_, before)
                try:
                    expected = cls(probe)
                except (ValueError, TypeError):   # TypeError: Flag up to 3.10
                    expected = None
                self.assertIs(result, expected)
                self.assertIs(found, expected is not None)

    def test_before_any_pseudo_member(self):
        for base in (Flag, IntFlag):
            F = abc(base)
            self.assert_agrees(F, 'none')
            for probe in self.PROBES:
                with self.subTest(base=base.__name__, probe=probe):
                    self.assertIs(probe in F, False)
                    self.assertIsNone(F.from_value(probe, default=None))

    def test_after_a_pseudo_member_is_cached(self):
        for base in (Flag, IntFlag):
            for history, make in self.HISTORIES:
                F = abc(base)
                pseudo = make(F)
                self.assertIs(F(3), pseudo)   # made once, then found
                self.assert_agrees(F, history)
                for probe in self.PROBES:
                    with self.subTest(base=base.__name__, history=history, probe=probe):
                        self.assertIs(probe in F, True)
                        self.assertIs(F.from_value(probe, default=None), pseudo)
                        self.assertIs(F.from_value(probe), pseudo)

    @needs_flag_pr
    def test_in_alone_caches_nothing_for_them_to_find(self):
        for base in (Flag, IntFlag):
            F = abc(base)
            self.assertIs(3 in F, True)
            self.assert_agrees(F, '3 in F')
            for probe in self.PROBES:
                with self.subTest(base=base.__name__, probe=probe):
                    self.assertIs(probe in F, False)


@unittest.skipUnless(HAS_BOUNDARY, 'Flag boundaries are new in 3.11')
@needs_flag_pr
class BoundaryTest(TableMixin, unittest.TestCase):

    def check_boundary(self, name):
        boundary = getattr(enum, name)
        for base in (Flag, IntFlag):
            with self.subTest(boundary=name, base=base):
                self.check_table(abc(base, boundary=boundary), BOUNDARY_ABC[name])
                self.check_table(gap(base, boundary=boundary), BOUNDARY_GAP[name])

    def test_strict(self):
        self.check_boundary('STRICT')

    def test_conform(self):
        self.check_boundary('CONFORM')

    def test_eject(self):
        self.check_boundary('EJECT')

    def test_keep(self):
        self.check_boundary('KEEP')

    def test_eject_int_is_not_in(self):
        E = abc(boundary=enum.EJECT)
        self.assertEqual(E.from_value(8), 8)
        self.assertIs(8 in E, False)
        self.assertIs(E.from_value(8, default=None), 8)
        self.assertIs(type(E.from_value(9, default=None)), int)

    def test_defaults(self):
        self.assertIs(Flag._boundary_, enum.STRICT)
        self.assertIs(IntFlag._boundary_, enum.KEEP)


def reproducer(base=IntFlag, **boundary):
    # The shape of issue 11's reproducer: bits 8, 16 and 32 only together
    # (D), bit 64 alone (F), and a zero member.
    class R(base, **boundary):
        A = 0
        D = 56
        F = 64
    return R


# The two rules a stock Flag._missing_ has followed for a negative value in
# range: add 2**n (3.11 to 3.14, every boundary; 3.15, EJECT and KEEP), or
# keep only the bits of single-bit members (3.15, STRICT and CONFORM).
COMPLEMENT = 'complement'
SINGLE_BITS = 'single bits'


def negative_rule(boundary):
    """The rule this interpreter's constructor follows under `boundary`."""
    class Probe(Flag, boundary=boundary):
        A = 1
        BC = 6
    try:
        value = Probe(-2)._value_
    except ValueError:
        value = None
    return {6: COMPLEMENT, 0: SINGLE_BITS}.get(value, 'unknown (Probe(-2) is %r)' % value)


# Negative values, by shape, boundary and rule; EJECT and KEEP have had one
# rule only.
NEGATIVE_REPRODUCER = {
    ('STRICT', COMPLEMENT): {
        -56: MISS, -1: MISS, -8: 120, -9: MISS, -64: 64, -65: MISS, -72: 56,
        -120: 8, -121: MISS, -128: 0, -129: MISS, -200: MISS},
    ('STRICT', SINGLE_BITS): {
        -56: 64, -1: MISS, -8: 64, -9: MISS, -64: 64, -65: MISS, -72: 0,
        -120: 0, -121: MISS, -128: 0, -129: MISS, -200: MISS},
    ('CONFORM', COMPLEMENT): {
        -56: 72, -1: 120, -8: 120, -9: 112, -64: 64, -65: 56, -72: 56,
        -120: 8, -121: 0, -128: 0, -129: 120, -200: 56},
    ('CONFORM', SINGLE_BITS): {
        -56: 64, -1: 120, -8: 64, -9: 112, -64: 64, -65: 56, -72: 0,
        -120: 0, -121: 0, -128: 0, -129: 120, -200: 56},
    ('EJECT', COMPLEMENT): {
        -56: 72, -1: EJECTED, -8: 120, -9: EJECTED, -64: 64, -65: EJECTED, -72: 56,
        -120: 8, -121: EJECTED, -128: 0, -129: EJECTED, -200: EJECTED},
    ('KEEP', COMPLEMENT): {
        -56: 72, -1: 127, -8: 120, -9: 119, -64: 64, -65: 63, -72: 56,
        -120: 8, -121: 7, -128: 0, -129: 127, -200: 56},
}
NEGATIVE_MULTI = {
    ('STRICT', COMPLEMENT): {
        -1: 15, -2: 14, -3: MISS, -7: 9, -8: 8, -9: 7, -10: 6, -16: 0, -17: MISS},
    ('STRICT', SINGLE_BITS): {
        -1: 9, -2: 8, -3: 9, -7: 9, -8: 8, -9: 1, -10: 0, -16: 0, -17: MISS},
    ('CONFORM', COMPLEMENT): {
        -1: 15, -2: 14, -3: 13, -7: 9, -8: 8, -9: 7, -10: 6, -16: 0, -17: 15},
    ('CONFORM', SINGLE_BITS): {
        -1: 9, -2: 8, -3: 9, -7: 9, -8: 8, -9: 1, -10: 0, -16: 0, -17: 15},
    ('EJECT', COMPLEMENT): {
        -1: 15, -2: 14, -3: 13, -7: 9, -8: 8, -9: 7, -10: 6, -16: 0, -17: EJECTED},
    ('KEEP', COMPLEMENT): {
        -1: 15, -2: 14, -3: 13, -7: 9, -8: 8, -9: 7, -10: 6, -16: 0, -17: 15},
}


@unittest.skipUnless(HAS_BOUNDARY, 'Flag boundaries are new in 3.11')
@needs_flag_pr
class NegativeValueTest(TableMixin, unittest.TestCase):
    """Negative values under each boundary, as this interpreter's rules have them."""

    def check_negative(self, name):
        boundary = getattr(enum, name)
        rule = negative_rule(boundary)
        for make, tables in ((reproducer, NEGATIVE_REPRODUCER), (multi, NEGATIVE_MULTI)):
            self.assertIn((name, rule), tables,
                          'the constructor follows a rule for negative values under '
                          '%s that no table holds: %s' % (name, rule))
            for base in (Flag, IntFlag):
                with self.subTest(shape=make.__name__, boundary=name, base=base, rule=rule):
                    self.check_table(make(base, boundary=boundary), tables[name, rule])

    def test_strict(self):
        self.check_negative('STRICT')

    def test_conform(self):
        self.check_negative('CONFORM')

    def test_eject(self):
        self.check_negative('EJECT')

    def test_keep(self):
        self.check_negative('KEEP')

    def test_reproducer(self):
        # Issue 11: E(-56) is E.F on 3.15.2 and a ValueError on 3.14;
        # `in` and from_value must say what the constructor says.
        try:
            expected = reproducer(boundary=enum.STRICT)(-56)
        except ValueError:
            expected = None
        E = reproducer(boundary=enum.STRICT)
        self.assertIs(-56 in E, expected is not None)
        self.assertNotIn(-56, E._value2member_map_)
        result = E.from_value(-56, default=None)
        if expected is None:
            self.assertIsNone(result)
            with self.assertRaises(ValueError):
                E.from_value(-56)
        else:
            self.assertIs(result, E.F)
            self.assertEqual(expected._value_, 64)
            self.assertIs(E(-56), E.F)


@unittest.skipUnless(HAS_BOUNDARY, 'Flag boundaries are new in 3.11')
@backport_only
class NegativeRuleProbeTest(unittest.TestCase):
    """The rule the backport probed at import is the constructor's."""

    def test_probed_rules_are_the_constructors(self):
        from enum_backport import _lookup
        for boundary in enum.FlagBoundary:
            with self.subTest(boundary=boundary):
                self.assertEqual(_lookup.NEGATIVE_RULES.get(boundary), negative_rule(boundary))

    def test_an_unknown_rule_asks_the_stock_missing(self):
        # Were the probe to meet a rule it does not know, lookups call the
        # stock _missing_ for negative values: still the constructor's
        # answer, at the cost of the pseudo-member it caches.
        from enum_backport import _lookup
        saved = dict(_lookup.NEGATIVE_RULES)
        self.addCleanup(_lookup.NEGATIVE_RULES.update, saved)
        _lookup.NEGATIVE_RULES.clear()
        for name in ('STRICT', 'CONFORM', 'EJECT', 'KEEP'):
            boundary = getattr(enum, name)
            table = NEGATIVE_MULTI[name, negative_rule(boundary)]
            for value, expected in table.items():
                with self.subTest(boundary=name, value=value):
                    cls = multi(IntFlag, boundary=boundary)
                    self.assertIs(value in cls, isinstance(expected, int))
                    result = cls.from_value(value, default=None)
                    if expected is MISS:
                        self.assertIsNone(result)
                    elif expected is EJECTED:
                        self.assertEqual(result, value)
                    else:
                        self.assertEqual(result._value_, expected)
        # The positive values never needed the rule.
        cls = multi(IntFlag, boundary=enum.STRICT)
        self.assertIs(9 in cls, True)
        self.assertNotIn(9, cls._value2member_map_)


@unittest.skipIf(HAS_BOUNDARY, 'the pre-3.11 Flag rules')
class StockRulesBefore311Test(unittest.TestCase):

    def test_intflag_accepts_any_int(self):
        I = abc(IntFlag)
        for value in (8, 16, 2 ** 40, -1, -9, -2 ** 40):
            with self.subTest(value=value):
                self.assertIs(value in I, True)
                self.assertEqual(I.from_value(value)._value_, value)

    def test_flag_accepts_covered_bits(self):
        G = gap()
        self.assertIs(5 in G, True)
        self.assertIs(2 in G, False)
        self.assertIs(6 in G, False)
        self.assertIs(-1 in G, True)       # ~0
        self.assertIs(-3 in G, False)      # ~2
        self.assertIs(G.from_value(-1), G.A | G.C)


if __name__ == '__main__':
    unittest.main()
