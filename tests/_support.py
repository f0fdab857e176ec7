"""What every behaviour test module imports first.

On an interpreter whose enum carries the change (``EnumType.from_value`` is
defined by the enum module itself) nothing is imported.  Everywhere else
``enum_backport`` is imported, and if it cannot be, the ImportError fails
every test module loudly instead of letting the tests skip or pass against
the stock enum.
"""

import enum
from enum import Enum, Flag, IntEnum, IntFlag
import sys
import unittest

EnumType = enum.EnumMeta  # spelled EnumType from 3.11 on; the same object

# Decided before anything is imported: the method is native when the
# interpreter has one that enum_backport did not install (the backport
# marks what it installs, which a plugin may have imported earlier).
_method = vars(EnumType).get('from_value')
NATIVE = _method is not None and not getattr(_method, '__enum_backport__', False)

if NATIVE:
    enum_backport = None
else:
    import enum_backport  # noqa: F401  (patches enum.EnumType on import)

VERSION = '%d.%d.%d' % sys.version_info[:3]

# Flag boundaries (STRICT, CONFORM, EJECT, KEEP) exist from 3.11 on; before
# that the stock Flag rules are the older ones the tests assert separately.
HAS_BOUNDARY = sys.version_info >= (3, 11)

backport_only = unittest.skipIf(
    NATIVE,
    'Python %s has EnumType.from_value natively: a backport-only test' % VERSION,
)



def needs_backports(test):
    """Mark a test of what the CPython change's second and third PRs fix (a
    hashable value finds a member whose value is unhashable and equal to it;
    Flag `in` looks at the members before `_missing_`).

    It changes nothing here: the backport gives all five PRs.  On a CPython
    build without them, tools/cpython/test.py leaves out every test that
    names it (as it leaves out those that name from_value without the
    feature), and prints which.
    """
    return test


def needs_flag_pr(test):
    """Mark a test of what the CPython change's flag PR brings (Flag `in`
    creates no pseudo-member; a flag without members contains nothing).

    As needs_backports, for a CPython build without the flag PR.
    """
    return test


class Sentinel:
    """A default that no lookup could return by accident."""

    def __init__(self, label):
        self.label = label

    def __repr__(self):
        return '<%s>' % self.label


def not_valid(value, cls):
    """The message of from_value's ValueError for `value` in `cls`."""
    return '%r is not a valid %s' % (value, cls.__qualname__)


def not_valid_name(name, cls):
    """The message of from_name's ValueError for `name` in `cls`."""
    return '%r is not a valid %s member name' % (name, cls.__qualname__)


# Enum classes that several test modules share.

class Num(IntEnum):
    ONE = 1
    TWO = 2


class Count(IntEnum):
    ONE = 1
    THREE = 3


class Opt(Enum):
    NOTHING = None
    SOME = 1


class Perm(Flag):
    R = 4
    W = 2
    X = 1


class IPerm(IntFlag):
    R = 4
    W = 2
    X = 1


class Empty(Enum):
    pass


class EmptyFlag(Flag):
    pass
