"""from_value(), from_name() and a value-checking `in` for enum, on 3.8+.

Importing this package patches ``enum.EnumType`` in place (see `_patch`),
so that on every enum class::

    Color.from_value(1)            # the member whose value is 1
    Color.from_value(9, None)      # None: no member has that value
    Color.from_name('RED')         # the member called RED
    1 in Color                     # True: a value of a member

On an interpreter whose enum already has these methods nothing is patched.

Type checkers cannot see methods added to a metaclass at run time; code
that they check can call the typed functions `from_value` and `from_name`
of this package instead, which do the same lookups.
"""

import enum
from typing import Type, TypeVar, Union, overload

from . import _lookup, _patch

__all__ = ['from_value', 'from_name', 'PATCHED']
__version__ = '1.0.0'

#: The EnumType attributes that importing this package patched
#: ('from_value', 'from_name', '__contains__', and '__new__' on 3.8 to
#: 3.10), or () where the interpreter carries the change.
#: importlib.reload() keeps the value the first import set, and patches
#: nothing again.
PATCHED = _patch.apply() or globals().get('PATCHED', ())

_E = TypeVar('_E', bound=enum.Enum)
_T = TypeVar('_T')

_native_from_value = getattr(_patch.EnumType, 'from_value')
_native_from_name = getattr(_patch.EnumType, 'from_name')


@overload
def from_value(enum_class: Type[_E], value: object, /) -> _E: ...
@overload
def from_value(enum_class: Type[_E], value: object, default: _T, /) -> Union[_E, _T]: ...
def from_value(enum_class, value, default=_lookup.NOT_GIVEN, /):  # noqa: E302
    """Return the member of `enum_class` whose value is `value`, else `default`.

    ``from_value(Color, v)`` is ``Color.from_value(v)``, typed for mypy and
    pyright: it returns ``Color``, and ``Color | T`` when a default of type
    ``T`` is given.  Raise ValueError if no member matches and no default
    is given.
    """
    if default is _lookup.NOT_GIVEN:
        return _native_from_value(enum_class, value)
    return _native_from_value(enum_class, value, default)


@overload
def from_name(enum_class: Type[_E], name: str, /) -> _E: ...
@overload
def from_name(enum_class: Type[_E], name: str, default: _T, /) -> Union[_E, _T]: ...
def from_name(enum_class, name, default=_lookup.NOT_GIVEN, /):  # noqa: E302
    """Return the member of `enum_class` called `name`, else `default`.

    ``from_name(Color, n)`` is ``Color.from_name(n)``, typed like
    `from_value`.  Raise ValueError if there is no such member and no
    default is given.
    """
    if default is _lookup.NOT_GIVEN:
        return _native_from_name(enum_class, name)
    return _native_from_name(enum_class, name, default)
