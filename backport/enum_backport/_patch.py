"""Install from_value(), from_name() and the new `in` on enum.EnumType.

This module is the only place that changes the standard library.  It adds
to, or replaces on, the metaclass itself (``enum.EnumType``, spelled
``enum.EnumMeta`` before 3.11):

* ``from_value`` and ``from_name``, new methods, beside ``__call__`` and
  ``__getitem__``.  Being on the metaclass they are reached from enum
  classes and not from members, and a class attribute of the same name (a
  member, a method, a classmethod) still wins.  dir() of an enum class is
  left as it is (its dunders and members), so they are not listed there:
  help(enum.EnumType) documents them.
* ``__contains__``, replaced: before 3.12 it raises TypeError for anything
  that is not a member; 3.12 raises on unhashable values; 3.13.0 to 3.13.2
  miss a hashable value equal to an unhashable member value; 3.13.3 and
  later scan a list of values on every miss; up to 3.12.9 and 3.13.2 it misses
  flag values whose pseudo-member has not been created, and from 3.12.10
  and 3.13.3 it creates the pseudo-member to answer.
* ``__init_subclass__``, new: EnumType defines none, and this one runs as
  each subclass of EnumType (a metaclass, not an enum class) is made.
  ``from_name`` answers as ``cls[name]`` does; the one on EnumType reads
  the member map, as EnumType's ``__getitem__`` does, and a metaclass that
  overrides ``__getitem__`` is given, as its own ``from_name``, the version
  that asks it.  Metaclasses that exist at import are given it then.  So
  ``cls.from_name(name)`` honours such a metaclass, and a class whose
  metaclass is EnumType pays nothing for it; ``EnumType.from_name(cls,
  name)``, called on EnumType itself, is EnumType's own lookup.
* ``__new__``, wrapped where reading an enum class's attributes is slow
  (3.8 to 3.11, whose EnumType defines ``__getattr__``), to note which
  classes are Flags, have member values that cannot be hashed (3.8 to
  3.11.6 keep no record of those) or have a metaclass with its own
  ``__instancecheck__``, so that ``in`` asks one dict whether the value
  map alone answers for an int or a str.

The functions installed are those of `_lookup` themselves, so a lookup
costs no extra call.  A metaclass that defines its own ``__contains__``
keeps it.  The replaced originals stay reachable through `original`.  An
interpreter whose EnumType already has ``from_value`` carries the change and
is left untouched.
"""

import enum
import threading

from enum_backport_nopatch import _lookup

EnumType = getattr(enum, 'EnumType', None) or enum.EnumMeta

_lock = threading.Lock()


# EnumType's own __new__, kept by apply() before it installs the wrapper.
# importlib.reload() runs this module again in the same namespace, where
# the wrapper installed before still reads it, and apply() does not run
# again: the reloaded module keeps it.
_original_new = globals().get('_original_new')


def _noting_new(metacls, *args, **kwds):
    enum_class = _original_new(metacls, *args, **kwds)
    _lookup.note_class(enum_class)
    return enum_class


def _enum_classes():
    """Every enum class alive now."""
    pending = [enum.Enum]
    while pending:
        cls = pending.pop()
        yield cls
        pending.extend(cls.__subclasses__())


def _method(function, name):
    # Named as EnumType's own, so that help() shows enum.EnumType; the
    # marker, not the module, tells what this package installed.
    function.__name__ = name
    function.__qualname__ = '%s.%s' % (EnumType.__name__, name)
    function.__module__ = EnumType.__module__
    function.__enum_backport__ = True
    return function


_ADDED = {
    'from_value': _method(_lookup.from_value, 'from_value'),
    'from_name': _method(_lookup.from_name, 'from_name'),
}
# The from_name a metaclass with a __getitem__ of its own is given.
_FROM_NAME_BY_SUBSCRIPT = _method(_lookup.from_name_by_subscript, 'from_name')


def _give_from_name(meta):
    """Give metaclass `meta` the from_name that asks its own __getitem__.

    Only where it overrides __getitem__ and would otherwise inherit
    EnumType's from_name: a from_name of its own, or of a metaclass between,
    is left alone.
    """
    if (not _lookup.getitem_is_own(meta)
            and getattr(meta, 'from_name', None) is _ADDED['from_name']):
        meta.from_name = _FROM_NAME_BY_SUBSCRIPT


def _init_subclass(meta, **kwds):
    # Runs as a subclass of EnumType is made (enum classes, its instances,
    # do not run it), then what would run without it.
    _give_from_name(meta)
    super(EnumType, meta).__init_subclass__(**kwds)


def _metaclasses():
    """Every subclass of EnumType alive now."""
    pending = type.__subclasses__(EnumType)
    while pending:
        meta = pending.pop()
        yield meta
        pending.extend(type.__subclasses__(meta))


_REPLACED = {
    '__contains__': _method(_lookup.contains, '__contains__'),
}
if _lookup.NEEDS_CLASS_NOTES:
    _REPLACED['__new__'] = _method(_noting_new, '__new__')


def is_native():
    """Return True if this interpreter's EnumType has from_value of its own."""
    method = EnumType.__dict__.get('from_value')
    return method is not None and not _is_ours(method)


def is_patched():
    """Return True if this package's methods are installed on EnumType."""
    return _is_ours(EnumType.__dict__.get('from_value'))


def _is_ours(method):
    # By marker rather than identity, so that a reloaded module still
    # recognises what an earlier copy of it installed.
    return getattr(method, '__enum_backport__', False)


def original(name):
    """Return EnumType's own `name` method as it was before patching."""
    current = getattr(EnumType, name)
    return getattr(current, '__enum_backport_original__', current)


def apply():
    """Patch EnumType unless it is already patched or carries the change.

    Return the names of the attributes patched by this call (empty when
    there was nothing to do).  Safe to call from several threads at once.
    """
    global _original_new
    with _lock:
        if is_native() or is_patched():
            return ()
        for name, function in _REPLACED.items():
            function.__enum_backport_original__ = getattr(EnumType, name)
        # __new__ first, then the classes that exist, then `in`: the new
        # `in` reads the notes, so every class another thread can ask it
        # about must be noted by then.
        new = _REPLACED.get('__new__')
        if new is not None:
            _original_new = new.__enum_backport_original__
            # Its signature is the original's; inspect follows this.
            new.__wrapped__ = _original_new
            setattr(EnumType, '__new__', staticmethod(new))
            for enum_class in _enum_classes():
                _lookup.note_class(enum_class)
        setattr(EnumType, '__contains__', _REPLACED['__contains__'])
        for name, function in _ADDED.items():
            setattr(EnumType, name, function)
        # The hook first, then the metaclasses that exist: one made by
        # another thread meanwhile is given its from_name by one or the
        # other.
        setattr(EnumType, '__init_subclass__',
                classmethod(_method(_init_subclass, '__init_subclass__')))
        for meta in _metaclasses():
            _give_from_name(meta)
        return tuple(_ADDED) + ('__init_subclass__',) + tuple(_REPLACED)
