"""EnumCls.from_name(name, /, *, default=<not given>)."""

import unittest
import warnings
from enum import Enum, Flag, IntEnum, IntFlag

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import Sentinel, not_valid_name
from _support import Empty


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1  # an alias of RED

    def describe(self):
        return self.name.lower()

    @property
    def shade(self):
        return 'bright'

    @classmethod
    def favourite(cls):
        return cls.RED


class Outer:
    class Color(Enum):
        RED = 1


class Perm(Flag):
    R = 4
    W = 2
    X = 1
    RWX = 7


class Reserved(Enum):
    """Members named like the attributes from_name must not find."""
    name = 1
    value = 2
    from_value = 3
    from_name = 4     # shadows the method: reach it through the metaclass


# Attributes reachable on an enum class that are not members.
NOT_MEMBERS = (
    'mro', '__class__', '_missing_', 'name', 'value', 'from_value', 'from_name',
    '__members__', '__init__', '__new__', '__doc__', '__module__', '_member_map_',
    '_value2member_map_', '_member_names_', '__contains__', '__len__', 'describe',
    'shade', 'favourite', '_generate_next_value_', '',
)


class FromNameTest(unittest.TestCase):

    def test_members(self):
        for name, member in Color.__members__.items():
            with self.subTest(name=name):
                self.assertIs(Color.from_name(name), member)
        self.assertIs(Color.from_name('RED'), Color.RED)

    def test_alias(self):
        self.assertIs(Color.from_name('CRIMSON'), Color.RED)
        self.assertIs(Color.from_name('CRIMSON', default=None), Color.RED)

    def test_flag_members(self):
        self.assertIs(Perm.from_name('R'), Perm.R)
        self.assertIs(Perm.from_name('RWX'), Perm.RWX)
        self.assertIsNone(Perm.from_name('R|W', default=None))

    def test_is_the_same_as_members_mapping(self):
        for cls in (Color, Perm, Reserved):
            for name in list(cls.__members__) + list(NOT_MEMBERS):
                with self.subTest(cls=cls, name=name):
                    expected = cls.__members__.get(name)
                    self.assertIs(meta_from_name(cls, name, default=None), expected)

    def test_values_are_not_names(self):
        self.assertIsNone(Color.from_name(1, default=None))
        self.assertIsNone(Color.from_name('1', default=None))

    def test_case_matters(self):
        self.assertIsNone(Color.from_name('red', default=None))
        self.assertIsNone(Color.from_name(' RED', default=None))

    def test_miss_message(self):
        with self.assertRaises(ValueError) as cm:
            Color.from_name('PURPLE')
        self.assertEqual(str(cm.exception), "'PURPLE' is not a valid Color member name")
        with self.assertRaises(ValueError) as cm:
            Outer.Color.from_name('PURPLE')
        self.assertEqual(str(cm.exception), "'PURPLE' is not a valid Outer.Color member name")

    def test_default(self):
        sentinel = Sentinel('default')
        self.assertIs(Color.from_name('PURPLE', default=sentinel), sentinel)
        self.assertIs(Color.from_name('PURPLE', default=sentinel), sentinel)
        self.assertIsNone(Color.from_name('PURPLE', default=None))
        self.assertIs(Color.from_name('PURPLE', default=Color.BLUE), Color.BLUE)
        self.assertIs(Color.from_name('RED', default=sentinel), Color.RED)

    def test_not_members(self):
        sentinel = Sentinel('default')
        for name in NOT_MEMBERS:
            with self.subTest(name=name):
                self.assertIs(Color.from_name(name, default=sentinel), sentinel)
                with self.assertRaises(ValueError) as cm:
                    Color.from_name(name)
                self.assertEqual(str(cm.exception), not_valid_name(name, Color))

    def test_members_with_reserved_looking_names(self):
        self.assertIs(meta_from_name(Reserved, 'name'), Reserved['name'])
        self.assertIs(meta_from_name(Reserved, 'value'), Reserved['value'])
        self.assertIs(meta_from_name(Reserved, 'from_value'), Reserved['from_value'])
        self.assertIs(meta_from_name(Reserved, 'from_name', default=None), Reserved['from_name'])
        self.assertEqual(Reserved['value'].value, 2)
        self.assertIsNone(meta_from_name(Reserved, '__members__', default=None))
        self.assertIsNone(meta_from_name(Reserved, 'mro', default=None))
        with self.assertRaises(ValueError) as cm:
            meta_from_name(Reserved, '_missing_')
        self.assertEqual(str(cm.exception), "'_missing_' is not a valid Reserved member name")

    def test_non_str_names(self):
        sentinel = Sentinel('default')
        for name in (1, 1.0, None, b'RED', ('RED',), Color.RED, [], ['RED'], {}, {'RED'}):
            with self.subTest(name=name):
                self.assertIs(Color.from_name(name, default=sentinel), sentinel)
                with self.assertRaises(ValueError) as cm:
                    Color.from_name(name)
                self.assertEqual(str(cm.exception), not_valid_name(name, Color))

    def test_a_name_equal_to_a_member_s_name_only_once(self):
        # Its second comparison says it is not: whatever a lookup makes of
        # it, from_name answers with the member or the default, never with
        # the KeyError of a second lookup.
        class Fickle(str):
            asked = 0
            __hash__ = str.__hash__

            def __eq__(self, other):
                self.asked += 1
                return self.asked == 1 and str.__eq__(self, other)

        sentinel = Sentinel('default')
        self.assertIn(Color.from_name(Fickle('GREEN'), default=sentinel), (Color.GREEN, sentinel))

    def test_a_name_whose_comparison_raises(self):
        # Color[name] raises the KeyError of such a name as it raises a
        # miss's, so from_name takes it for a miss, with a default or
        # without, and so is a TypeError from its __hash__ (the name cannot
        # be hashed); any other exception comes out, as it does of
        # Color[name], a TypeError from the __eq__ of a name that can.
        class Raising(str):
            def __new__(cls, error, when):
                return str.__new__(cls, 'GREEN')

            def __init__(self, error, when):
                self.error = error
                self.when = when

            def __hash__(self):
                if self.when == 'hash':
                    raise self.error
                return str.__hash__(self)

            def __eq__(self, other):
                raise self.error

        sentinel = Sentinel('default')
        for when in ('hash', 'eq'):
            with self.subTest(when=when):
                self.assertIs(Color.from_name(Raising(KeyError('GREEN'), when), default=sentinel),
                              sentinel)
                with self.assertRaises(ValueError):
                    Color.from_name(Raising(KeyError('GREEN'), when))
                for default in ({}, {'default': sentinel}):
                    with self.assertRaises(RuntimeError):
                        Color.from_name(Raising(RuntimeError(when), when), **default)
        self.assertIs(Color.from_name(Raising(TypeError('hash'), 'hash'), default=sentinel),
                      sentinel)
        with self.assertRaises(ValueError):
            Color.from_name(Raising(TypeError('hash'), 'hash'))
        for default in ({}, {'default': sentinel}):
            with self.assertRaisesRegex(TypeError, '^eq$'):
                Color.from_name(Raising(TypeError('eq'), 'eq'), **default)

    def test_memberless(self):
        sentinel = Sentinel('default')
        classes = [Enum, IntEnum, Flag, IntFlag, Empty]
        for cls in classes:
            for name in ('x', 'RED', 'mro', 1, []):
                with self.subTest(cls=cls, name=name):
                    self.assertIs(cls.from_name(name, default=sentinel), sentinel)
                    with self.assertRaises(ValueError) as cm:
                        cls.from_name(name)
                    self.assertEqual(str(cm.exception), not_valid_name(name, cls))

    def test_signature(self):
        with self.assertRaises(TypeError):
            Color.from_name()
        with self.assertRaises(TypeError):
            Color.from_name(name='RED')   # positional-only
        with self.assertRaises(TypeError):
            Color.from_name('RED', default=None, fallback=None)

    def test_default_is_keyword_only(self):
        # As from_value's: a second positional argument is refused, hit or
        # miss, through the class or the metaclass.
        sentinel = Sentinel('default')
        for args in (('PURPLE', None), ('RED', None), ('PURPLE', sentinel),
                     ('RED', None, None)):
            with self.subTest(args=args):
                message = (r'from_name\(\) takes 2 positional arguments but %d were given'
                           % (len(args) + 1))
                with self.assertRaisesRegex(TypeError, message):
                    Color.from_name(*args)
                with self.assertRaisesRegex(TypeError, message):
                    type(Color).from_name(Color, *args)


class Folding(type(Enum)):
    """A metaclass whose `cls[name]` ignores the case of `name`."""

    def __getitem__(cls, name):
        return super().__getitem__(name.upper())


class Folded(Enum, metaclass=Folding):
    RED = 1
    GREEN = 2
    CRIMSON = 1


# What Deprecating's __getitem__ raises for these names.
RAISES = {'KEY': KeyError('KEY'), 'TYPE': TypeError('TYPE'), 'OTHER': RuntimeError('OTHER')}


class Deprecating(type(Enum)):
    """A metaclass whose `cls[name]` warns of a deprecated member (and
    raises what RAISES has for a name there)."""

    def __getitem__(cls, name):
        if name in RAISES:
            raise RAISES[name]
        member = super().__getitem__(name)
        if name == 'OLD':
            warnings.warn('OLD is deprecated', DeprecationWarning, stacklevel=2)
        return member


class Versions(Enum, metaclass=Deprecating):
    NEW = 2
    OLD = 1


class GetitemOverrideTest(unittest.TestCase):
    """from_name answers as cls[name] does under a metaclass's __getitem__."""

    def test_folding(self):
        sentinel = Sentinel('default')
        self.assertIs(Folded['red'], Folded.RED)
        for name, member in (('red', Folded.RED), ('Green', Folded.GREEN),
                             ('crimson', Folded.RED), ('RED', Folded.RED)):
            with self.subTest(name=name):
                self.assertIs(Folded.from_name(name), member)
                self.assertIs(Folded.from_name(name, default=sentinel), member)
                self.assertIs(meta_from_name(Folded, name), member)
        self.assertIs(Folded.from_name('blue', default=sentinel), sentinel)
        with self.assertRaises(ValueError) as cm:
            Folded.from_name('blue')
        self.assertEqual(str(cm.exception), "'blue' is not a valid Folded member name")

    def test_what_the_override_raises(self):
        # Anything but a KeyError, or a TypeError for a name that cannot be
        # hashed, comes out, as from Folded[1] itself.
        sentinel = Sentinel('default')
        with self.assertRaises(AttributeError):
            Folded[1]
        for default in ({}, {'default': sentinel}):
            with self.subTest(default=default):
                with self.assertRaises(AttributeError):
                    Folded.from_name(1, **default)

    def test_errors_of_the_override(self):
        # Its KeyError is a miss, and its TypeError for a name that cannot
        # be hashed ([] in RAISES raises it); its TypeError for a name that
        # can, and any other error, come out.
        sentinel = Sentinel('default')
        for name in ('KEY', []):
            with self.subTest(name=name):
                self.assertIs(Versions.from_name(name, default=sentinel), sentinel)
                with self.assertRaises(ValueError):
                    Versions.from_name(name)
        for name, error in (('TYPE', TypeError), ('OTHER', RuntimeError)):
            for default in ({}, {'default': sentinel}):
                with self.subTest(name=name, default=default):
                    with self.assertRaises(error):
                        Versions.from_name(name, **default)

    def test_a_hit_goes_through_the_override(self):
        # A name the member map has is asked of the metaclass too: from_name
        # warns where Versions['OLD'] warns.
        for default in ({}, {'default': None}):
            with self.subTest(default=default):
                with self.assertWarns(DeprecationWarning):
                    self.assertIs(Versions.from_name('OLD', **default), Versions.OLD)
                with warnings.catch_warnings():
                    warnings.simplefilter('error')
                    self.assertIs(Versions.from_name('NEW', **default), Versions.NEW)

    def test_a_metaclass_made_from_one_that_overrides(self):
        class Again(Folding):
            pass

        class Shades(Enum, metaclass=Again):
            DARK = 1

        class Keeping(type(Enum)):
            """A metaclass between EnumType and an override, keeping EnumType's."""

        class Later(Keeping):
            def __getitem__(cls, name):
                return super().__getitem__(name.upper())

        class Tones(Enum, metaclass=Later):
            LIGHT = 1

        self.assertIs(Shades.from_name('dark'), Shades.DARK)
        self.assertIs(Tones.from_name('light'), Tones.LIGHT)
        self.assertIs(Tones.from_name('dim', default=None), None)

    def test_a_metaclass_s_own_from_name_wins(self):
        class Own(Folding):
            def from_name(cls, name, **default):
                return 'its own'

        class Mine(Enum, metaclass=Own):
            RED = 1

        self.assertEqual(Mine.from_name('red'), 'its own')


def meta_from_name(cls, name, **default):
    """from_name reached through the metaclass, past a member that shadows it."""
    return type(cls).from_name(cls, name, **default)


if __name__ == '__main__':
    unittest.main()
