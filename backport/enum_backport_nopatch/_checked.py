"""The lookups as enum_backport_nopatch exports them: the first argument checked.

Each makes sure that its first argument is an enum class, the first time it
sees that class (see `_lookup._first_sight`), and then calls the lookup the
patch installs.  enum_backport_nopatch gives them the typed definitions'
docstrings, names and signatures.  They are named as the functions they
become, here rather than beside the lookups in _lookup: up to 3.9 a call
with the wrong arguments names a function by its code's name.
"""

from enum_backport_nopatch._lookup import (
    _READS_ARE_HOOKED,
    _SEEN,
    _SEEN_OWN_GETITEM,
    _SEEN_PLAIN,
    NEEDS_CLASS_NOTES,
    NOT_GIVEN,
    _contains_other,
    _EnumType,
    _first_sight,
    _note,
    _read,
    getitem_is_own,
)
from enum_backport_nopatch._lookup import contains as _contains
from enum_backport_nopatch._lookup import from_name as _from_name
from enum_backport_nopatch._lookup import from_name_by_subscript as _from_name_by_subscript
from enum_backport_nopatch._lookup import from_value as _from_value


# Where classes are noted, one dict lookup by id tells whether this one was;
# elsewhere a class whose metaclass is EnumType itself needs no check (id()
# costs more than type()).
def from_value(cls, value, /, *, default=NOT_GIVEN):
    if id(cls) not in _SEEN if NEEDS_CLASS_NOTES else type(cls) is not _EnumType:
        _first_sight('from_value', cls)
    return _from_value(cls, value, default=default)


# A class that passes the test here has EnumType's own __getitem__, so the
# member map answers for it; any other is checked, and asked through its
# metaclass's __getitem__ where that is the metaclass's own.
def from_name(cls, name, /, *, default=NOT_GIVEN):
    if id(cls) not in _SEEN_OWN_GETITEM if NEEDS_CLASS_NOTES else type(cls) is not _EnumType:
        return _from_name_elsewhere(cls, name, default)
    return _from_name(cls, name, default=default)


def _from_name_elsewhere(cls, name, default):
    if not NEEDS_CLASS_NOTES or id(cls) not in _SEEN:
        _first_sight('from_name', cls)
    if not getitem_is_own(type(cls)):
        return _from_name_by_subscript(cls, name, default=default)
    if NEEDS_CLASS_NOTES:
        _note(_SEEN_OWN_GETITEM, cls)
    return _from_name(cls, name, default=default)


if _READS_ARE_HOOKED:    # 3.8 to 3.11: see _lookup._hooked_contains
    def contains(cls, value, /):
        if (type(value) is int or type(value) is str) and id(cls) in _SEEN_PLAIN:
            return value in _read(cls, '_value2member_map_')
        if id(cls) not in _SEEN:
            _first_sight('contains', cls)
        return _contains_other(cls, value)
else:
    def contains(cls, value, /):
        if type(cls) is not _EnumType:
            _first_sight('contains', cls)
        return _contains(cls, value)
