"""Where from_value and from_name live, what wins over them, dir() and pickle."""

import copy
import enum
import pickle
import unittest
from enum import Enum, Flag, IntEnum, IntFlag

import _support  # noqa: F401  (imports enum_backport unless enum has the change)
from _support import EnumType
from _support import Num, Perm, IPerm, Empty


class Color(Enum):
    RED = 1
    GREEN = 2
    CRIMSON = 1


class Sets(Enum):
    ONE = {1}
    LIST = [2]


class CustomLookups(Enum):
    A = 1
    B = 2

    @classmethod
    def from_value(cls, value, default=None):
        return ('custom from_value', value, default)

    @classmethod
    def from_name(cls, name, default=None):
        return ('custom from_name', name, default)


class MethodLookups(Enum):
    A = 1

    def from_value(self):
        return 'method of %s' % self.name

    @staticmethod
    def from_name(name):
        return 'static %s' % name


class MemberLookups(Enum):
    from_value = 1
    from_name = 2
    other = 3


class PlacementTest(unittest.TestCase):

    def test_on_the_metaclass(self):
        self.assertIn('from_value', vars(EnumType))
        self.assertIn('from_name', vars(EnumType))
        for cls in (Color, Num, Perm, IPerm, Empty, Enum, Flag):
            with self.subTest(cls=cls):
                self.assertNotIn('from_value', vars(cls))
                self.assertNotIn('from_name', vars(cls))
                self.assertTrue(callable(cls.from_value))
                self.assertTrue(callable(cls.from_name))

    def test_enum_type_alias(self):
        if hasattr(enum, 'EnumType'):
            self.assertIs(enum.EnumType, enum.EnumMeta)
            self.assertIs(enum.EnumType.from_value, enum.EnumMeta.from_value)

    def test_called_through_the_metaclass(self):
        self.assertIs(EnumType.from_value(Color, 2), Color.GREEN)
        self.assertIs(EnumType.from_name(Color, 'GREEN'), Color.GREEN)
        self.assertIsNone(EnumType.from_value(Color, 5, None))

    def test_not_reached_from_members(self):
        for member in (Color.RED, Num.ONE, Perm.R, Perm.R | Perm.W, IPerm.X):
            with self.subTest(member=member):
                self.assertFalse(hasattr(member, 'from_value'))
                self.assertFalse(hasattr(member, 'from_name'))
                self.assertNotIn('from_value', dir(member))
                self.assertNotIn('from_name', dir(member))

    def test_user_classmethods_win(self):
        self.assertEqual(CustomLookups.from_value(1), ('custom from_value', 1, None))
        self.assertEqual(CustomLookups.from_name('A', 0), ('custom from_name', 'A', 0))
        # ...while the rest of the API still works on that class.
        self.assertIs(1 in CustomLookups, True)
        self.assertIs(EnumType.from_value(CustomLookups, 2), CustomLookups.B)
        self.assertIs(EnumType.from_name(CustomLookups, 'A'), CustomLookups.A)

    def test_user_methods_win(self):
        self.assertEqual(MethodLookups.A.from_value(), 'method of A')
        self.assertEqual(MethodLookups.from_value(MethodLookups.A), 'method of A')
        self.assertEqual(MethodLookups.from_name('x'), 'static x')
        self.assertEqual(MethodLookups.A.from_name('y'), 'static y')
        self.assertIs(EnumType.from_value(MethodLookups, 1), MethodLookups.A)

    def test_members_win(self):
        self.assertIs(MemberLookups.from_value, MemberLookups['from_value'])
        self.assertIs(MemberLookups.from_name, MemberLookups['from_name'])
        self.assertEqual(MemberLookups.from_value.value, 1)
        self.assertIs(EnumType.from_value(MemberLookups, 2), MemberLookups.from_name)
        self.assertIs(EnumType.from_name(MemberLookups, 'from_value'), MemberLookups.from_value)
        self.assertIs(EnumType.from_name(MemberLookups, 'other'), MemberLookups.other)
        self.assertIs(1 in MemberLookups, True)
        self.assertEqual(list(MemberLookups), [MemberLookups['from_value'],
                                               MemberLookups['from_name'],
                                               MemberLookups['other']])


class DirTest(unittest.TestCase):

    def test_dir_lists_both(self):
        classes = [Color, Num, Perm, IPerm, Sets, Empty, Enum, IntEnum, Flag, IntFlag,
                   CustomLookups]
        for cls in classes:
            with self.subTest(cls=cls):
                names = dir(cls)
                self.assertEqual(names.count('from_value'), 1)
                self.assertEqual(names.count('from_name'), 1)

    def test_dir_keeps_what_it_had(self):
        names = dir(Color)
        for expected in ('RED', 'GREEN', '__members__', '__class__', '__doc__', '__module__'):
            self.assertIn(expected, names)

    def test_members_named_like_the_methods(self):
        names = dir(MemberLookups)
        self.assertEqual(names.count('from_value'), 1)
        self.assertEqual(names.count('from_name'), 1)
        self.assertIn('other', names)


class PickleTest(unittest.TestCase):

    def objects(self):
        return [Color.RED, Color.CRIMSON, Color.GREEN, Num.TWO, Perm.R, Perm.R | Perm.X,
                Perm(0), IPerm.W | IPerm.X, Sets.ONE, Sets.LIST, Color, Perm, Empty,
                Color.from_value(2), Perm.from_value(6), IPerm.from_value(5),
                Sets.from_value(frozenset({1})), Color.from_name('CRIMSON')]

    def test_round_trip(self):
        for obj in self.objects():
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
                with self.subTest(obj=obj, protocol=protocol):
                    data = pickle.dumps(obj, protocol)
                    self.assertIs(pickle.loads(data), obj)
                    # Nothing that needs the backport to unpickle.
                    self.assertNotIn(b'enum_backport', data)
                    self.assertNotIn(b'from_value', data)

    def test_copy(self):
        for obj in self.objects():
            with self.subTest(obj=obj):
                self.assertIs(copy.copy(obj), obj)
                self.assertIs(copy.deepcopy(obj), obj)

    def test_lookups_after_round_trip(self):
        member = pickle.loads(pickle.dumps(Color.GREEN))
        self.assertIs(Color.from_value(member), Color.GREEN)
        self.assertIs(member in Color, True)


if __name__ == '__main__':
    unittest.main()
