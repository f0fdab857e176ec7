"""EnumCls.from_value(value, /, *, default=<not given>)."""

import enum
import sys
import unittest
from enum import Enum, Flag, IntEnum, IntFlag

import _support  # imports enum_backport unless enum has the change
from _support import Sentinel, needs_flag_pr, not_valid
from _support import Num, Count, Opt, Empty, EmptyFlag


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1  # an alias of RED


class Outer:
    class Color(Enum):
        RED = 1


class Sets(Enum):
    ONE = {1}
    LIST = [2]
    LETTERS = frozenset({'a'})
    THREE = 3


class Nested(Enum):
    PAIR = ([1], 2)


class Planet(Enum):
    """Tuple values: from 3.12 ``Planet(mass, radius)`` packs its arguments."""
    MERCURY = (3.303e+23, 2.4397e6)
    VENUS = (4.869e+24, 6.0518e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius


class Lenient(Enum):
    """The multi-value recipe: __init__ adds a further key to the value map."""
    ONE = 1
    BAG = {2}

    def __init__(self, value):
        if isinstance(value, int):
            type(self)._value2member_map_['one'] = self


class Behaviour(Enum):
    """Members come from subclasses; this one has methods only."""

    def describe(self):
        return self.name.lower()


class Greeting(Behaviour):
    HELLO = 'hello'


HOLLOW_CALLS = []


class Hollow(Enum):
    @classmethod
    def _missing_(cls, value):
        HOLLOW_CALLS.append(value)
        return None


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


RAISED = []


class Raising(Enum):
    A = 1

    @classmethod
    def _missing_(cls, value):
        exc = KeyError(value)
        RAISED.append(exc)
        raise exc


class Picky(Enum):
    A = 1

    @classmethod
    def _missing_(cls, value):
        exc = ValueError('Picky only takes 1, not %r' % (value,))
        RAISED.append(exc)
        raise exc


class Junk(Enum):
    A = 1

    @classmethod
    def _missing_(cls, value):
        return 'junk'


class Stranger(Enum):
    A = 1

    @classmethod
    def _missing_(cls, value):
        return Color.RED   # a member, but of another class


class FlagRaising(Flag):
    A = 1

    @classmethod
    def _missing_(cls, value):
        exc = KeyError(value)
        RAISED.append(exc)
        raise exc


class LookupTest(unittest.TestCase):

    def test_member(self):
        for member in Color:
            self.assertIs(Color.from_value(member), member)
        self.assertIs(Color.from_value(Color.CRIMSON), Color.RED)

    def test_an_object_that_only_claims_the_class_is_not_a_member(self):
        # isinstance() accepts each probe below, through __class__ (as it
        # accepts a unittest.mock.Mock(spec=Color)), through the metaclass's
        # __instancecheck__, or as a member of a subclass asked of its
        # memberless base; the constructor takes a probe for a member only
        # if its type is exactly the class, and so does from_value: these
        # are looked up as values, and missed.
        class Impostor:
            __class__ = Color

        class Claiming(type(Enum)):
            def __instancecheck__(cls, value):
                return isinstance(value, (int, str)) or super().__instancecheck__(value)

        class Claimed(Enum, metaclass=Claiming):
            ONLY = 1

        class Base(Enum):
            def describe(self):
                return self.name

        class Sub(Base):
            X = 1

        cases = [(Color, Impostor()), (Claimed, 5), (Claimed, 'ONLY'),
                 (Base, Sub.X), (Enum, Color.RED)]
        for cls, probe in cases:
            with self.subTest(cls=cls, probe=probe):
                self.assertIs(isinstance(probe, cls), True)
                self.assertIs(cls.from_value(probe, default=Sentinel), Sentinel)
                with self.assertRaises(ValueError) as caught:
                    cls.from_value(probe)
                self.assertEqual(str(caught.exception), not_valid(probe, cls))
                if cls._member_map_:
                    # (a memberless class's constructor raises TypeError
                    # from 3.11 on: "has no members defined")
                    with self.assertRaises(ValueError):
                        cls(probe)
        self.assertIs(Claimed.from_value(1), Claimed.ONLY)
        self.assertIs(Claimed.from_value(Claimed.ONLY), Claimed.ONLY)
        self.assertIs(Base.from_value(Sub.X, default=None), None)
        self.assertIs(Sub.from_value(Sub.X), Sub.X)

    def test_value(self):
        self.assertIs(Color.from_value(1), Color.RED)
        self.assertIs(Color.from_value(2), Color.GREEN)
        self.assertIs(Color.from_value(3), Color.BLUE)
        self.assertIs(Num.from_value(2), Num.TWO)

    def test_alias_value_gives_the_canonical_member(self):
        self.assertIs(Color.from_value(1), Color.CRIMSON)
        self.assertIs(Color.from_value(1), Color.RED)

    def test_equal_values_of_other_types(self):
        self.assertIs(Color.from_value(1.0), Color.RED)
        self.assertIs(Color.from_value(True), Color.RED)
        self.assertIs(Color.from_value(3.0), Color.BLUE)
        self.assertIs(Num.from_value(1.0), Num.ONE)
        self.assertIs(Num.from_value(True), Num.ONE)
        self.assertIsNone(Color.from_value(1.5, default=None))
        self.assertIsNone(Color.from_value(False, default=None))
        self.assertIsNone(Color.from_value('1', default=None))

    def test_intenum_member_as_a_value(self):
        self.assertIs(Color.from_value(Num.ONE), Color.RED)
        self.assertIs(Count.from_value(Num.ONE), Count.ONE)
        self.assertIsNone(Count.from_value(Num.TWO, default=None))
        self.assertIsNone(Num.from_value(Color.RED, default=None))   # Color.RED != 1
        self.assertIsNone(Color.from_value(Sets.THREE, default=None))

    def test_none_value(self):
        self.assertIs(Opt.from_value(None), Opt.NOTHING)
        self.assertIs(Opt.from_value(None, default=Opt.SOME), Opt.NOTHING)
        self.assertIs(Opt.from_value(2, default=Opt.SOME), Opt.SOME)

    @_support.backport_only
    def test_the_constructor_still_misses_an_equal_hashable_value(self):
        # The backport leaves the constructor alone: this interpreter's own
        # misses the member whose value is {1}; from_value finds it.
        with self.assertRaises(ValueError):
            Sets(frozenset({1}))
        self.assertIs(Sets.from_value(frozenset({1})), Sets.ONE)

    def test_unhashable_member_values(self):
        self.assertIs(Sets.from_value({1}), Sets.ONE)
        # The constructor misses this one without the change (SPEC.md step 3).
        self.assertIs(Sets.from_value(frozenset({1})), Sets.ONE)
        self.assertIs(Sets.from_value([2]), Sets.LIST)
        self.assertIs(Sets.from_value({'a'}), Sets.LETTERS)
        self.assertIs(Sets.from_value(frozenset({'a'})), Sets.LETTERS)
        self.assertIs(Sets.from_value(3), Sets.THREE)
        for probe in ([], 1, 2, {2}, [3], (2,), frozenset(), {'b'}, 'a'):
            with self.subTest(probe=probe):
                self.assertIsNone(Sets.from_value(probe, default=None))
                with self.assertRaises(ValueError) as cm:
                    Sets.from_value(probe)
                self.assertEqual(str(cm.exception), not_valid(probe, Sets))

    def test_unhashable_values_beside_extra_keys(self):
        self.assertIs(Lenient.from_value('one'), Lenient.ONE)
        self.assertIs(Lenient.from_value({2}), Lenient.BAG)
        self.assertIs(Lenient.from_value(frozenset({2})), Lenient.BAG)
        self.assertIs(frozenset({2}) in Lenient, True)
        self.assertIs(frozenset({3}) in Lenient, False)

    def test_unhashable_probes(self):
        sentinel = Sentinel('default')
        for probe in ([], {}, set(), [1], {1: 1}, bytearray(b'\x01'), ([1],)):
            with self.subTest(probe=probe):
                self.assertIs(Color.from_value(probe, default=sentinel), sentinel)
                with self.assertRaises(ValueError) as cm:
                    Color.from_value(probe)
                self.assertEqual(str(cm.exception), not_valid(probe, Color))
        self.assertIs(Nested.from_value(([1], 2)), Nested.PAIR)
        self.assertIsNone(Nested.from_value(([1], 3), default=None))


class MissTest(unittest.TestCase):

    def test_message(self):
        with self.assertRaises(ValueError) as cm:
            Color.from_value(9)
        self.assertEqual(str(cm.exception), '9 is not a valid Color')
        with self.assertRaises(ValueError) as cm:
            Color.from_value('RED')
        self.assertEqual(str(cm.exception), "'RED' is not a valid Color")

    def test_message_uses_qualname(self):
        with self.assertRaises(ValueError) as cm:
            Outer.Color.from_value(9)
        self.assertEqual(str(cm.exception), '9 is not a valid Outer.Color')
        with self.assertRaises(ValueError) as cm:
            Outer.Color.from_value([])
        self.assertEqual(str(cm.exception), '[] is not a valid Outer.Color')

    def test_message_matches_the_constructor(self):
        for probe in (9, 'x', None, 2.5):
            with self.subTest(probe=probe):
                with self.assertRaises(ValueError) as expected:
                    Color(probe)
                with self.assertRaises(ValueError) as cm:
                    Color.from_value(probe)
                self.assertEqual(str(cm.exception), str(expected.exception))

    def test_default(self):
        sentinel = Sentinel('default')
        self.assertIs(Color.from_value(9, default=sentinel), sentinel)
        self.assertIsNone(Color.from_value(9, default=None))
        self.assertIs(Color.from_value(9, default=Color.RED), Color.RED)
        self.assertEqual(Color.from_value(9, default=0), 0)
        self.assertIs(Color.from_value(1, default=sentinel), Color.RED)

    def test_names_are_not_values(self):
        self.assertIsNone(Color.from_value('RED', default=None))
        self.assertIsNone(Color.from_value('CRIMSON', default=None))

    def test_signature(self):
        with self.assertRaises(TypeError):
            Color.from_value()
        with self.assertRaises(TypeError):
            Color.from_value(value=1)   # positional-only
        with self.assertRaises(TypeError):
            Color.from_value(1, default=None, fallback=None)

    def test_default_is_keyword_only(self):
        # A second positional argument is refused as Python refuses one for
        # any keyword-only parameter, hit or miss, through the class or the
        # metaclass.
        sentinel = Sentinel('default')
        for args in ((9, None), (1, None), (9, sentinel), (1, None, None)):
            with self.subTest(args=args):
                message = (r'from_value\(\) takes 2 positional arguments but %d were given'
                           % (len(args) + 1))
                with self.assertRaisesRegex(TypeError, message):
                    Color.from_value(*args)
                with self.assertRaisesRegex(TypeError, message):
                    type(Color).from_value(Color, *args)


class MemberlessTest(unittest.TestCase):

    def classes(self):
        classes = [Enum, IntEnum, Flag, IntFlag, Empty, EmptyFlag, Behaviour, Hollow]
        classes += [getattr(enum, name) for name in ('StrEnum', 'ReprEnum') if hasattr(enum, name)]
        return classes

    def test_every_lookup_misses(self):
        sentinel = Sentinel('default')
        del HOLLOW_CALLS[:]
        for cls in self.classes():
            for probe in (0, 1, -1, 'x', '', None, [], {}, ('Name', 'A B')):
                with self.subTest(cls=cls, probe=probe):
                    self.assertIs(cls.from_value(probe, default=sentinel), sentinel)
                    self.assertIsNone(cls.from_value(probe, default=None))
                    with self.assertRaises(ValueError) as cm:
                        cls.from_value(probe)
                    self.assertEqual(str(cm.exception), not_valid(probe, cls))
        self.assertEqual(HOLLOW_CALLS, [])   # no members: _missing_ is not asked

    @needs_flag_pr
    def test_the_constructor_changes_no_answer(self):
        # 3.8 to 3.10's constructor makes and caches a pseudo-member of a
        # flag without members (EF(0), and any int for an IntFlag); from
        # 3.11 it raises TypeError.  The lookups miss before and after.
        for base in (Flag, IntFlag):
            class EF(base):
                pass

            for value in (0, 1, 5, -1):
                with self.subTest(base=base, value=value):
                    try:
                        made = EF(value)
                    except (TypeError, ValueError):
                        made = None
                    self.assertIsNone(EF.from_value(value, default=None))
                    with self.assertRaises(ValueError) as cm:
                        EF.from_value(value)
                    self.assertEqual(str(cm.exception), not_valid(value, EF))
                    self.assertIs(value in EF, False)
                    if made is not None:
                        self.assertTrue(EF._value2member_map_)   # it did cache

    def test_never_the_functional_api(self):
        self.assertIsNone(Enum.from_value('x', default=None))
        # With the constructor these would make a new enum class 'Color'.
        self.assertEqual(Enum.from_value('Color', default='RED GREEN'), 'RED GREEN')
        self.assertEqual(IntEnum.from_value('Num', default=[('ONE', 1)]), [('ONE', 1)])
        self.assertEqual(Flag.from_value('Perm', default='R W X'), 'R W X')
        with self.assertRaises(ValueError) as cm:
            Enum.from_value('Color')
        self.assertEqual(str(cm.exception), "'Color' is not a valid Enum")
        with self.assertRaises(ValueError) as cm:
            Flag.from_value(0)
        self.assertEqual(str(cm.exception), '0 is not a valid Flag')

    def test_subclass_with_members(self):
        self.assertIs(Greeting.from_value('hello'), Greeting.HELLO)
        self.assertIsNone(Behaviour.from_value('hello', default=None))


class MissingHookTest(unittest.TestCase):

    def setUp(self):
        del ANSWER_CALLS[:]
        del RAISED[:]

    def test_missing_maps_values(self):
        self.assertIs(Answer.from_value('Yes'), Answer.YES)
        self.assertIs(Answer.from_value('NO', default=None), Answer.NO)
        self.assertEqual(ANSWER_CALLS, ['Yes', 'NO'])

    def test_missing_not_asked_for_a_hit(self):
        self.assertIs(Answer.from_value('yes'), Answer.YES)
        self.assertIs(Answer.from_value(Answer.NO), Answer.NO)
        self.assertEqual(ANSWER_CALLS, [])

    def test_missing_returning_none_is_a_miss(self):
        sentinel = Sentinel('default')
        self.assertIs(Answer.from_value('maybe', default=sentinel), sentinel)
        with self.assertRaises(ValueError) as cm:
            Answer.from_value('maybe')
        self.assertEqual(str(cm.exception), "'maybe' is not a valid Answer")
        self.assertEqual(ANSWER_CALLS, ['maybe', 'maybe'])

    def test_missing_raising_keyerror_propagates(self):
        sentinel = Sentinel('default')
        with self.assertRaises(KeyError) as cm:
            Raising.from_value(2)
        self.assertIs(cm.exception, RAISED[-1])
        with self.assertRaises(KeyError) as cm:
            Raising.from_value(2, default=sentinel)
        self.assertIs(cm.exception, RAISED[-1])
        with self.assertRaises(KeyError):
            Raising.from_value(2, default=None)
        self.assertEqual(len(RAISED), 3)
        self.assertIs(2 in Raising, False)   # `in` does not ask a non-Flag's _missing_
        self.assertEqual(len(RAISED), 3)

    def test_unhashable_miss_does_not_chain_the_hash_error(self):
        # That [] cannot be hashed is how the lookup finds out to compare it
        # by equality; the exception a miss raises does not carry it along.
        with self.assertRaises(ValueError) as cm:
            Color.from_value([])
        self.assertIsNone(cm.exception.__context__)
        for enum_cls, exc_type in ((Raising, KeyError), (Picky, ValueError)):
            with self.subTest(enum_cls=enum_cls):
                with self.assertRaises(exc_type) as cm:
                    enum_cls.from_value([])
                self.assertIs(cm.exception, RAISED[-1])
                self.assertNotIsInstance(cm.exception.__context__, TypeError)

    def test_flag_missing_raising_keyerror_propagates(self):
        with self.assertRaises(KeyError) as cm:
            FlagRaising.from_value(2, default=None)
        self.assertIs(cm.exception, RAISED[-1])

    def test_missing_raising_valueerror(self):
        sentinel = Sentinel('default')
        with self.assertRaises(ValueError) as cm:
            Picky.from_value(2)
        self.assertIs(cm.exception, RAISED[-1])   # its own, as the constructor raises it
        self.assertEqual(str(cm.exception), 'Picky only takes 1, not 2')
        self.assertIs(Picky.from_value(2, default=sentinel), sentinel)
        self.assertIs(Picky.from_value(1, default=sentinel), Picky.A)

    def test_missing_returning_a_non_member_propagates(self):
        sentinel = Sentinel('default')
        for cls in (Junk, Stranger):
            with self.subTest(cls=cls):
                with self.assertRaises(TypeError) as expected:
                    cls(2)
                with self.assertRaises(TypeError) as cm:
                    cls.from_value(2)
                self.assertEqual(str(cm.exception), str(expected.exception))
                with self.assertRaises(TypeError) as cm:
                    cls.from_value(2, default=sentinel)
                self.assertEqual(str(cm.exception), str(expected.exception))
                self.assertIs(cls.from_value(1, default=sentinel), cls.A)
                self.assertIs(2 in cls, False)


class TupleValueTest(unittest.TestCase):
    """Why the default is keyword-only (SPEC.md): a value that is a tuple."""

    def test_the_constructor_packs_positional_arguments(self):
        # The trap a positional default would set: the constructor takes a
        # tuple value as separate arguments (from 3.12; before, a second
        # argument asks the functional API, which refuses a class with
        # members).
        mass, radius = Planet.MERCURY.value
        if sys.version_info >= (3, 12):
            self.assertIs(Planet(mass, radius), Planet.MERCURY)
            # ...which from_value gives for the value as one tuple.
            self.assertIs(Planet.from_value((mass, radius)), Planet(mass, radius))
        else:
            with self.assertRaises(TypeError):
                Planet(mass, radius)

    def test_two_arguments_are_a_type_error(self):
        # With a positional default this would be a miss that returns
        # `radius`, the hit or miss depending on nothing the caller meant.
        mass, radius = Planet.MERCURY.value
        for args in ((mass, radius), (Planet.VENUS.mass, radius), (1.0, 2.0)):
            with self.subTest(args=args):
                with self.assertRaises(TypeError):
                    Planet.from_value(*args)
                with self.assertRaises(TypeError):
                    type(Planet).from_value(Planet, *args)

    def test_the_value_as_one_tuple(self):
        mass, radius = Planet.MERCURY.value
        mass_radius = (mass, radius)
        self.assertIs(Planet.from_value((mass, radius)), Planet.MERCURY)
        self.assertIs(Planet.from_value(mass_radius, default=None), Planet.MERCURY)
        self.assertIs(Planet.from_value(Planet.VENUS.value, default=None), Planet.VENUS)
        self.assertIsNone(Planet.from_value((mass, 1.0), default=None))
        with self.assertRaises(ValueError) as cm:
            Planet.from_value((mass, 1.0))
        self.assertEqual(str(cm.exception), not_valid((mass, 1.0), Planet))


class ConstructorTest(unittest.TestCase):

    def test_same_object_as_the_constructor(self):
        for cls in (Color, Num, Sets, Opt, Answer):
            for member in cls:
                with self.subTest(member=member):
                    self.assertIs(cls.from_value(member._value_), cls(member._value_))


if __name__ == '__main__':
    unittest.main()
