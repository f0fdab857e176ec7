"""Where from_value and from_name live, what wins over them, dir(), help() and pickle."""

import copy
import enum
import json
import pickle
import pydoc
import subprocess
import sys
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
        self.assertIsNone(EnumType.from_value(Color, 5, default=None))

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


# Enum classes whose dir() is compared with what the interpreter gives
# without the backport: defined by this source, run here and in a child.
DIR_CLASSES = '''
import enum
from enum import Enum, Flag, IntEnum, IntFlag


class Color(Enum):
    RED = 1
    GREEN = 2
    CRIMSON = 1


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


class MemberLookups(Enum):
    from_value = 1
    from_name = 2
    other = 3


class CustomLookups(Enum):
    A = 1

    @classmethod
    def from_value(cls, value, default=None):
        return value


class Empty(Enum):
    pass


Functional = Enum('Functional', 'ONE TWO')

CLASSES = {cls.__name__: cls for cls in (
    Enum, IntEnum, Flag, IntFlag, Color, Num, Perm, IPerm, MemberLookups, CustomLookups,
    Empty, Functional)}
'''

DIR_CHILD = DIR_CLASSES + '''
import json, sys
print(json.dumps({
    'imported': sorted(m for m in sys.modules if m.split('.')[0] == 'enum_backport'),
    'stock': 'from_value' not in vars(enum.EnumMeta),
    'dir': {name: dir(cls) for name, cls in CLASSES.items()},
}))
'''


def dir_classes():
    namespace = {'__name__': 'dir_classes'}
    exec(DIR_CLASSES, namespace)
    return namespace['CLASSES']


def members_via_dir(cls):
    """The idiom that code in the wild uses to collect an enum's members."""
    return [n for n in dir(cls) if not n.startswith('_')]


class DirTest(unittest.TestCase):
    """dir(EnumCls) keeps stock's shape: dunders and members only."""

    @_support.backport_only
    def test_dir_is_what_the_interpreter_gives_without_the_backport(self):
        # The child runs without site (-S), so nothing can import
        # enum_backport there first; it says so all the same.
        child = subprocess.run(
            [sys.executable, '-I', '-S', '-c', DIR_CHILD], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(child.returncode, 0, child.stderr)
        stock = json.loads(child.stdout)
        self.assertEqual(stock['imported'], [])
        self.assertTrue(stock['stock'])
        classes = dir_classes()
        self.assertEqual(sorted(stock['dir']), sorted(classes))
        for name, cls in classes.items():
            with self.subTest(cls=name):
                self.assertEqual(dir(cls), stock['dir'][name])

    def test_members_via_dir_yields_only_members(self):
        classes = dir_classes()
        for name, cls in classes.items():
            members = {n for n, member in cls.__members__.items() if member.name == n}
            found = members_via_dir(cls)
            with self.subTest(cls=name):
                self.assertEqual(len(found), len(set(found)))
                if issubclass(cls, int):
                    # A mixed-in type's public names are listed too, as on
                    # stock (3.11 on); nothing else is.
                    self.assertEqual(set(found) - set(dir(int)), members)
                else:
                    self.assertEqual(set(found), members)

    def test_members_named_like_the_methods(self):
        found = members_via_dir(dir_classes()['MemberLookups'])
        self.assertEqual(sorted(found), ['from_name', 'from_value', 'other'])
        self.assertIs(MemberLookups.from_value, MemberLookups['from_value'])

    def test_dir_keeps_what_it_had(self):
        names = dir(Color)
        for expected in ('RED', 'GREEN', '__members__', '__class__', '__doc__', '__module__'):
            self.assertIn(expected, names)
        self.assertNotIn('from_value', names)
        self.assertNotIn('from_name', names)


class HelpTest(unittest.TestCase):

    def test_help_finds_the_methods_on_the_metaclass(self):
        text = pydoc.render_doc(EnumType, renderer=pydoc.plaintext)
        for method in (EnumType.from_value, EnumType.from_name):
            self.assertIn(method.__name__ + '(', text)

    def test_help_of_an_enum_class_does_not_list_them(self):
        text = pydoc.render_doc(Color, renderer=pydoc.plaintext)
        self.assertIn('RED', text)
        self.assertNotIn('from_value', text)
        self.assertNotIn('from_name', text)


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
