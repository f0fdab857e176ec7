"""from_value(), from_name() and contains() for enum, patching nothing.

For libraries: ``import enum_backport`` patches ``enum.EnumType`` for the
whole process, which changes ``x in SomeEnum`` for every application that
uses the library.  These functions do the same lookups without installing
anything::

    from enum_backport_nopatch import contains, from_name, from_value

    from_value(Color, 1)                # Color.RED
    from_value(Color, 9, default=None)  # None
    from_name(Color, 'RED')             # Color.RED
    contains(Color, 1)                  # True: what `1 in Color` is once patched

They give the answers of the patched methods (``Color.from_value(...)``,
``1 in Color``) on every interpreter, and on one whose enum carries the
change they call its own methods.  They are the methods of the metaclass
applied to the class: a member or method a class defines under the same
name, or a metaclass's own ``__contains__``, does not get in their way.

The lookups live here, in `_lookup`, a module that patches nothing;
``enum_backport`` installs the same functions on the metaclass, and
`_checked` calls them after a check of their first argument.
"""

import enum
import importlib
from typing import TYPE_CHECKING, Any, Callable, Type, TypeVar, Union, overload

# Not `from . import _lookup`, which on 3.8 to 3.11 can hang threads that
# import this package at once (see enum_backport/__init__.py).
_lookup = importlib.import_module('enum_backport_nopatch._lookup')

__all__ = ['from_value', 'from_name', 'contains']

_EnumType = enum.EnumMeta  # spelled EnumType from 3.11 on; the same object


def _native(name: str) -> Any:
    """Return EnumType's own method `name` if the interpreter defines one."""
    method = vars(_EnumType).get(name)
    if method is None or getattr(method, '__enum_backport__', False):
        return None   # absent, or installed by enum_backport
    return method


_from_value: Callable[..., Any] = _lookup.from_value
_from_name: Callable[..., Any] = _lookup.from_name
_contains: Callable[[Any, object], bool] = _lookup.contains
_NATIVE = _native('from_value') is not None
if _NATIVE:
    # The interpreter carries the change: its own methods answer, after the
    # check that the first argument is an enum class.
    _from_value = _native('from_value')
    _from_name = _native('from_name')
    _contains = getattr(_EnumType, '__contains__')


def _not_an_enum_class(function: str, enum_class: object) -> None:
    raise TypeError('%s() argument 1 must be an enum class, not %r'
                    % (function, enum_class))


_NOT_GIVEN: Any = _lookup.NOT_GIVEN
_E = TypeVar('_E', bound=enum.Enum)
_T = TypeVar('_T')


@overload
def from_value(enum_class: Type[_E], value: object, /) -> _E: ...
@overload
def from_value(enum_class: Type[_E], value: object, /, *,
               default: _T) -> Union[_E, _T]: ...
def from_value(enum_class: Any, value: object, /, *, default: Any = _NOT_GIVEN) -> Any:  # noqa: E302
    """Return the member of `enum_class` whose value is `value`, else `default`.

    The answer of ``enum_class.from_value(value, default=...)`` once
    ``enum_backport`` has patched enum, typed for mypy and pyright: it
    returns ``Color`` for ``Color``, and ``Color | T`` when a default of
    type ``T`` is given.  Raise ValueError if no member matches and no
    default is given.  The default is keyword-only, as the method's is.
    """
    if type(enum_class) is not _EnumType and not isinstance(enum_class, _EnumType):
        _not_an_enum_class('from_value', enum_class)
    if default is _NOT_GIVEN:
        return _from_value(enum_class, value)
    return _from_value(enum_class, value, default=default)


@overload
def from_name(enum_class: Type[_E], name: str, /) -> _E: ...
@overload
def from_name(enum_class: Type[_E], name: str, /, *, default: _T) -> Union[_E, _T]: ...
def from_name(enum_class: Any, name: Any, /, *, default: Any = _NOT_GIVEN) -> Any:  # noqa: E302
    """Return the member of `enum_class` called `name`, else `default`.

    The answer of ``enum_class.from_name(name, default=...)``, typed like
    `from_value`.  Raise ValueError if there is no such member and no
    default is given.
    """
    if type(enum_class) is not _EnumType and not isinstance(enum_class, _EnumType):
        _not_an_enum_class('from_name', enum_class)
    if default is _NOT_GIVEN:
        return _from_name(enum_class, name)
    return _from_name(enum_class, name, default=default)


def contains(enum_class: Type[enum.Enum], value: object, /) -> bool:
    """Return True if `value` is a member of `enum_class` or the value of one.

    The answer of ``value in enum_class`` once ``enum_backport`` has
    patched enum: a Flag value that a valid combination of members has
    counts too, and names do not.
    """
    if type(enum_class) is not _EnumType and not isinstance(enum_class, _EnumType):
        _not_an_enum_class('contains', enum_class)
    return _contains(enum_class, value)


def _same_face(function: Callable[..., Any], typed: Callable[..., Any]) -> Any:
    # The typed definition above is what type checkers and help() read; where
    # the interpreter lacks the change, _checked's function of the same name
    # runs instead, which checks its first argument and calls the lookup the
    # patch installs, without the typed definition's tests of the default.
    for name in ('__name__', '__qualname__', '__doc__', '__module__', '__annotations__'):
        setattr(function, name, getattr(typed, name))
    function.__wrapped__ = typed
    return function


if not TYPE_CHECKING and not _NATIVE:
    _checked = importlib.import_module('enum_backport_nopatch._checked')
    from_value = _same_face(_checked.from_value, from_value)
    from_name = _same_face(_checked.from_name, from_name)
    contains = _same_face(_checked.contains, contains)
