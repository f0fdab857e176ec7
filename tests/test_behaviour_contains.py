"""`value in EnumCls`: members and values of members, never names."""

import enum
import unittest
from enum import Enum, Flag, IntEnum, IntFlag

import _support
from _support import EnumType, needs_backports, needs_flag_pr
from _support import Num, Count, Opt, Perm, IPerm, Empty, EmptyFlag


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1  # an alias of RED


class Sets(Enum):
    """Members whose values cannot be hashed, beside ones that can."""
    ONE = {1}
    LIST = [2]
    LETTERS = frozenset({'a'})
    THREE = 3


class Nested(Enum):
    """A tuple holding a list: its type is hashable, the value is not."""
    PAIR = ([1], 2)


class Half(Enum):
    HALF = 0.5


class Switch(Flag):
    OFF = 0
    ON = 1
    LOUD = 2


ANSWER_CALLS = []


class Answer(Enum):
    YES = 'yes'
    NO = 'no'

    @classmethod
    def _missing_(cls, value):
        ANSWER_CALLS.append(value)
        if isinstance(value, str):
            return cls.__members__.get(value.upper())
        return None


OPTION_CALLS = []


class Option(Flag):
    """A Flag that also accepts its members' names, any case."""
    A = 1
    B = 2

    @classmethod
    def _missing_(cls, value):
        OPTION_CALLS.append(value)
        if isinstance(value, str):
            return cls.__members__.get(value.upper())
        return super()._missing_(value)


class Verdict(Flag):
    """A Flag whose _missing_ answers each probe in its own way."""
    A = 1
    B = 2

    @classmethod
    def _missing_(cls, value):
        if value == 'member':
            return cls.B
        if value == 'int':
            return 1                      # equal to A's value, but not a member
        if value == 'text':
            return 'A'
        if value == 'value error':
            raise ValueError('no verdict for %r' % value)
        if value == 'key error':
            raise KeyError(value)
        return None


class AlwaysMeta(EnumType):
    def __contains__(cls, value):
        return True


class Anything(Enum, metaclass=AlwaysMeta):
    ONLY = 1


CONTAINS_LOG = []


class LoggingMeta(EnumType):
    def __contains__(cls, value):
        CONTAINS_LOG.append(value)
        return super().__contains__(value)


class Logged(Enum, metaclass=LoggingMeta):
    ONLY = 1


class ClaimingMeta(EnumType):
    def __instancecheck__(cls, value):
        return True


class Claimed(Enum, metaclass=ClaimingMeta):
    ONLY = 1


class PlainMeta(EnumType):
    pass


class Inherits(Enum, metaclass=PlainMeta):
    ONLY = 1


class MembersTest(unittest.TestCase):

    def test_members_are_in_their_class(self):
        for member in Color:
            self.assertIs(member in Color, True)
        self.assertIs(Color.CRIMSON in Color, True)
        for member in Perm:
            self.assertIs(member in Perm, True)

    def test_flag_pseudo_members_are_in_their_class(self):
        self.assertIs((Perm.R | Perm.W) in Perm, True)
        self.assertIs(Perm(0) in Perm, True)
        self.assertIs((IPerm.R | IPerm.X) in IPerm, True)

    def test_members_of_another_enum_are_not(self):
        self.assertIs(Sets.THREE in Color, False)
        self.assertIs(Perm.X in Color, False)   # Perm.X's value is 1, but Perm.X != 1
        self.assertIs(Color.RED in Num, False)  # Color.RED is not equal to 1 either
        self.assertIs(Color.RED in Perm, False)


class ValuesTest(unittest.TestCase):

    def test_values(self):
        self.assertIs(1 in Color, True)
        self.assertIs(2 in Color, True)
        self.assertIs(3 in Color, True)
        self.assertIs(0 in Color, False)
        self.assertIs(4 in Color, False)
        self.assertIs(None in Color, False)

    def test_names_are_not_checked(self):
        self.assertIs('RED' in Color, False)
        self.assertIs('CRIMSON' in Color, False)
        self.assertIs('ONE' in Num, False)
        self.assertIs('R' in Perm, False)

    def test_equal_values_of_other_types(self):
        self.assertIs(1.0 in Color, True)
        self.assertIs(True in Color, True)
        self.assertIs(2.0 in Color, True)
        self.assertIs(1.5 in Color, False)
        self.assertIs('1' in Color, False)
        self.assertIs(False in Color, False)
        self.assertIs(0.5 in Half, True)
        self.assertIs(1 in Half, False)

    def test_intenum_members_equal_other_values(self):
        # An IntEnum member equals its int value, so it is found by value
        # in another enum; a plain Enum member equals nothing but itself.
        self.assertIs(Num.ONE in Color, True)
        self.assertIs(Num.TWO in Color, True)
        self.assertIs(Num.ONE in Count, True)
        self.assertIs(Num.TWO in Count, False)
        self.assertIs(Count.THREE in Num, False)
        self.assertIs(IPerm.X in Num, True)

    def test_none_as_a_value(self):
        self.assertIs(None in Opt, True)
        self.assertIs(1 in Opt, True)
        self.assertIs(0 in Opt, False)

    def test_unhashable_probes_never_raise(self):
        for probe in ([], {}, set(), [1], {1: 1}, {1}, bytearray(b'\x01'), ([1],)):
            with self.subTest(probe=probe):
                self.assertIs(probe in Color, False)
                self.assertIs(probe in Num, False)
                self.assertIs(probe in Perm, False)
                self.assertIs(probe in IPerm, False)

    def test_unhashable_member_values(self):
        self.assertIs({1} in Sets, True)
        self.assertIs(frozenset({1}) in Sets, True)   # hashable probe, unhashable value
        self.assertIs([2] in Sets, True)
        self.assertIs({'a'} in Sets, True)            # unhashable probe, hashable value
        self.assertIs(frozenset({'a'}) in Sets, True)
        self.assertIs(3 in Sets, True)
        self.assertIs(3.0 in Sets, True)
        for probe in ([], 1, 2, {2}, [3], (2,), frozenset(), {'b'}, 'a', {1: None}):
            with self.subTest(probe=probe):
                self.assertIs(probe in Sets, False)

    def test_value_with_hashable_type_that_cannot_be_hashed(self):
        self.assertIs(([1], 2) in Nested, True)
        self.assertIs(([1], 3) in Nested, False)
        self.assertIs(([2], 2) in Nested, False)


class FlagValuesTest(unittest.TestCase):
    # The boundary rules per version are in test_behaviour_flag.

    def test_composite_values(self):
        for value in (0, 1, 3, 5, 6, 7):
            with self.subTest(value=value):
                self.assertIs(value in Perm, True)
                self.assertIs(value in IPerm, True)
        self.assertIs(8 in Perm, False)
        self.assertIs(8 in IPerm, True)  # IntFlag keeps unknown bits on every version

    def test_zero_member(self):
        self.assertIs(0 in Switch, True)
        self.assertIs(Switch.OFF in Switch, True)
        self.assertIs(3 in Switch, True)
        self.assertIs(4 in Switch, False)

    def test_non_int_values_miss(self):
        for probe in (2.5, 'a', 'R', None, b'\x01', (1,)):
            with self.subTest(probe=probe):
                self.assertIs(probe in Perm, False)
                self.assertIs(probe in IPerm, False)

    def test_int_equal_probes(self):
        self.assertIs(True in Perm, True)
        self.assertIs(4.0 in Perm, True)
        self.assertIs(IPerm.R in Perm, True)  # equal to 4


class MemberlessTest(unittest.TestCase):

    @needs_flag_pr
    def test_nothing_is_in_a_memberless_class(self):
        classes = [Enum, IntEnum, Flag, IntFlag, Empty, EmptyFlag]
        classes += [getattr(enum, name) for name in ('StrEnum', 'ReprEnum') if hasattr(enum, name)]
        for cls in classes:
            for probe in (0, 1, -1, 'x', '', None, [], {}):
                with self.subTest(cls=cls, probe=probe):
                    self.assertIs(probe in cls, False)


class ClassKindTest(unittest.TestCase):
    """What a class is decides what a miss asks; each kind keeps its answers."""

    def test_members_of_a_subclass_are_in_its_memberless_base(self):
        class Base(Enum):
            pass

        class Sub(Base):
            X = 1

        self.assertIs(Sub.X in Base, True)
        self.assertIs(1 in Base, False)
        self.assertIs(Sub.X in Sub, True)

    def test_flags_made_after_the_import(self):
        late = Flag('Late', 'A B C')
        late_int = IntFlag('LateInt', 'A B')

        class Mixed(int, Flag):
            A = 1
            B = 2

        for cls in (late, late_int, Mixed):
            with self.subTest(cls=cls):
                self.assertIs(3 in cls, True)
                self.assertIs(cls(1) | cls(2) in cls, True)
        self.assertIs(8 in late, False)
        self.assertIs('A' in late, False)

    def test_a_miss_then_values_of_every_type(self):
        # A miss of each kind first, so that a class is not judged by what
        # was asked of it before.
        for probe in (-1, 'x', 2.5, None, (), frozenset(), b'', True, 1j):
            with self.subTest(probe=probe):
                self.assertIs(probe in Color, probe is True)
        self.assertIs(frozenset({1}) in Sets, True)
        self.assertIs(5 in Perm, True)
        self.assertIs('a' in Option, True)

    @unittest.skipUnless(hasattr(Enum, '_add_value_alias_'),
                         '_add_value_alias_ is new in 3.13')
    def test_unhashable_value_added_after_a_miss(self):
        class Later(Enum):
            A = 1
            B = 2

        self.assertIs(frozenset({5}) in Later, False)
        Later.A._add_value_alias_({5})
        self.assertIs(frozenset({5}) in Later, True)
        self.assertIs({5} in Later, True)
        self.assertIs(frozenset({6}) in Later, False)


class MissingTest(unittest.TestCase):

    def setUp(self):
        del ANSWER_CALLS[:]
        del OPTION_CALLS[:]

    def test_enum_missing_is_not_consulted(self):
        self.assertIs(Answer.from_value('Yes'), Answer.YES)  # _missing_ maps it...
        self.assertEqual(ANSWER_CALLS, ['Yes'])
        del ANSWER_CALLS[:]
        self.assertIs('Yes' in Answer, False)               # ...but `in` does not ask
        self.assertIs('maybe' in Answer, False)
        self.assertIs(7 in Answer, False)
        self.assertIs([] in Answer, False)
        self.assertIs('yes' in Answer, True)
        self.assertEqual(ANSWER_CALLS, [])

    @needs_backports
    def test_flag_missing_is_consulted(self):
        self.assertIs('b' in Option, True)
        self.assertIs('B' in Option, True)
        self.assertIs('c' in Option, False)
        self.assertEqual(OPTION_CALLS, ['b', 'B', 'c'])
        del OPTION_CALLS[:]
        self.assertIs(3 in Option, True)    # a composite, through super()._missing_
        self.assertIs(4 in Option, False)   # super()._missing_ raises ValueError
        self.assertEqual(OPTION_CALLS, [3, 4])
        del OPTION_CALLS[:]
        self.assertIs(1 in Option, True)    # a value: _missing_ is not needed
        self.assertIs(Option.A in Option, True)
        self.assertEqual(OPTION_CALLS, [])

    def test_flag_missing_returning_a_member(self):
        self.assertIs('member' in Verdict, True)
        self.assertIs(Verdict.from_value('member'), Verdict.B)

    def test_flag_missing_returning_a_non_member_is_a_miss(self):
        # The constructor raises TypeError for such a result, and so does
        # from_value; `in` answers False, as stock CPython's `in` does.
        for probe in ('int', 'text'):
            with self.subTest(probe=probe):
                self.assertIs(probe in Verdict, False)
                with self.assertRaises(TypeError):
                    Verdict(probe)
                with self.assertRaises(TypeError):
                    Verdict.from_value(probe, default=None)
        self.assertIs('nothing' in Verdict, False)      # None: a miss

    def test_flag_missing_raising_value_error_is_a_miss(self):
        self.assertIs('value error' in Verdict, False)
        self.assertIsNone(Verdict.from_value('value error', default=None))
        with self.assertRaises(ValueError) as cm:
            Verdict.from_value('value error')
        self.assertEqual(str(cm.exception), "no verdict for 'value error'")

    def test_flag_missing_raising_anything_else_propagates(self):
        with self.assertRaises(KeyError):
            'key error' in Verdict
        with self.assertRaises(KeyError):
            Verdict.from_value('key error', default=None)

    def test_flag_missing_calling_super_caches_pseudo_members(self):
        # What an override does, it does for `in` too: Flag._missing_
        # reached through super() creates the composite and caches it, as
        # it does for the constructor.
        class Cached(Flag):
            A = 1
            B = 2

            @classmethod
            def _missing_(cls, value):
                return super()._missing_(value)

        self.assertNotIn(3, Cached._value2member_map_)
        self.assertIs(3 in Cached, True)
        self.assertIs(Cached._value2member_map_[3], Cached.A | Cached.B)
        self.assertIs(4 in Cached, False)
        self.assertNotIn(4, Cached._value2member_map_)

    @unittest.skipUnless(_support.HAS_BOUNDARY, 'Flag boundaries are new in 3.11')
    def test_eject_flag_missing_returning_an_int(self):
        # EJECT lets the constructor, and from_value, hand back a plain int;
        # that is still not a member, so `in` is False.
        class Ejecting(Flag, boundary=enum.EJECT):
            A = 1
            B = 2

            @classmethod
            def _missing_(cls, value):
                if value == 'eject':
                    return 9
                return super()._missing_(value)

        self.assertEqual(Ejecting('eject'), 9)
        self.assertEqual(Ejecting.from_value('eject'), 9)
        self.assertIs('eject' in Ejecting, False)
        self.assertEqual(Ejecting.from_value(8), 8)
        self.assertIs(8 in Ejecting, False)
        self.assertIs(3 in Ejecting, True)


class MetaclassTest(unittest.TestCase):

    def test_subclass_override_is_kept(self):
        self.assertIs('anything' in Anything, True)
        self.assertIs([] in Anything, True)
        self.assertIs(Anything.from_value(1), Anything.ONLY)
        self.assertIsNone(Anything.from_value(2, default=None))

    def test_override_calling_super(self):
        del CONTAINS_LOG[:]
        self.assertIs([] in Logged, False)
        self.assertIs(1 in Logged, True)
        self.assertIs('ONLY' in Logged, False)
        self.assertEqual(CONTAINS_LOG, [[], 1, 'ONLY'])

    def test_metaclass_instancecheck_is_asked_about_every_value(self):
        # as stock enum asks isinstance() first, and the patched build does:
        # a metaclass's __instancecheck__ that accepts a value makes it `in`,
        # exact ints and strs included
        self.assertIs(isinstance(99, Claimed), True)
        for value in (99, 'ONLY', 'x', 1, object(), 2.0, []):
            with self.subTest(value=value):
                self.assertIs(value in Claimed, True)

    def test_metaclass_instancecheck_that_declines(self):
        # an override that refuses ints: the value map still answers
        class Refusing(EnumType):
            def __instancecheck__(cls, value):
                return not isinstance(value, int) and super().__instancecheck__(value)

        class Refused(Enum, metaclass=Refusing):
            ONLY = 1

        self.assertIs(1 in Refused, True)
        self.assertIs(2 in Refused, False)
        self.assertIs('ONLY' in Refused, False)
        self.assertIs(Refused.ONLY in Refused, True)

    def test_metaclass_without_instancecheck_keeps_type_s_check(self):
        self.assertIs(1 in Inherits, True)
        self.assertIs(2 in Inherits, False)
        self.assertIs('ONLY' in Inherits, False)
        self.assertIs(Inherits.ONLY in Inherits, True)

    def test_type_of_the_value_is_not_hashed(self):
        # its metaclass may forbid that
        class Meta(type):
            def __eq__(cls, other):
                return cls is other

        class Thing(metaclass=Meta):
            pass

        for enum_class in (Color, Switch, Sets, Empty):
            with self.subTest(enum_class=enum_class):
                self.assertIs(Thing() in enum_class, False)
                self.assertIsNone(enum_class.from_value(Thing(), default=None))

    def test_subclass_without_override_inherits(self):
        self.assertIs(1 in Inherits, True)
        self.assertIs([] in Inherits, False)
        self.assertIs(Inherits.from_value(1), Inherits.ONLY)


class SpecEquivalenceTest(unittest.TestCase):
    """`value in E` is `E.from_value(value, default=None) is not None` (SPEC.md)."""

    def classes(self):
        # Not Enum, Flag and friends themselves: every enum member is an
        # instance of those, which MemberlessTest leaves aside too.
        classes = [Color, Num, Count, Sets, Nested, Opt, Half, Perm, IPerm,
                   Switch, Empty, EmptyFlag]
        if hasattr(enum, 'StrEnum'):
            class Letters(enum.StrEnum):
                A = 'b'
                B = 'c'
            classes.append(Letters)
        return classes

    probes = [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 16, -1, -2, -8, -9, 2 ** 70,
        0.5, 1.0, 2.5, 4.0, True, False, None, 'a', 'b', 'A', 'RED', '', b'\x01',
        (1,), ([1], 2), [], [2], {}, set(), {1}, frozenset({1}), {'a'}, frozenset({'a'}),
        Color.RED, Num.ONE, Perm.R, IPerm.X, Sets.ONE, object(),
    ]

    @needs_flag_pr
    def test_in_agrees_with_from_value(self):
        for cls in self.classes():
            for probe in self.probes:
                with self.subTest(cls=cls, probe=probe):
                    found = probe in cls
                    self.assertIs(found, cls.from_value(probe, default=None) is not None)
                    # A second time, after from_value may have created a
                    # pseudo-member: the answer must not change.
                    self.assertIs(probe in cls, found)


@unittest.skipUnless(hasattr(enum, 'StrEnum'), 'StrEnum is new in 3.11')
class StrEnumTest(unittest.TestCase):

    def test_names_and_values_crossed(self):
        class S(enum.StrEnum):
            a = 'b'   # the name of one member is the value of the other
            b = 'c'

        self.assertIs('b' in S, True)     # the value of S.a
        self.assertIs('c' in S, True)
        self.assertIs('a' in S, False)    # only a name
        self.assertIs(S.from_value('b'), S.a)
        self.assertIs(S.from_name('b'), S.b)
        self.assertIsNone(S.from_value('a', default=None))
        self.assertIsNone(S.from_name('c', default=None))
        with self.assertRaises(ValueError) as cm:
            S.from_value('a')
        self.assertEqual(str(cm.exception), _support.not_valid('a', S))
        self.assertIs('a' in S.__members__, True)


if __name__ == '__main__':
    unittest.main()
