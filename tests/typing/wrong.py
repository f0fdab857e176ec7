"""A negative control: each line is a type error the checkers must report."""

import enum

from typing_extensions import assert_type

from enum_backport import from_name, from_value


class Color(enum.Enum):
    RED = 1


assert_type(from_value(Color, 1, default=None), Color)
assert_type(from_name(Color, 'RED'), int)
from_name(Color, 1)
from_value(Color, 1, None)
from_name(Color, 'RED', None)
