"""What mypy and pyright must infer for the typed helpers (checked, not run)."""

import enum
from typing import Optional, Union

from typing_extensions import assert_type

from enum_backport import from_name, from_value


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Perm(enum.IntFlag):
    R = 4
    W = 2


def lookups(value: object, name: str) -> None:
    assert_type(from_value(Color, value), Color)
    assert_type(from_value(Color, value, default=None), Optional[Color])
    assert_type(from_value(Color, value, default='none'), Union[Color, str])
    assert_type(from_value(Perm, 6), Perm)
    assert_type(from_name(Color, name), Color)
    assert_type(from_name(Color, name, default=None), Optional[Color])
    assert_type(from_name(Color, name, default=Color.RED), Color)
