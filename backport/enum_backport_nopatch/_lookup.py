"""The lookups themselves: from_value, from_name and `in`, as plain functions.

They take the enum class as their first argument, so that they serve as
methods of the patched metaclass (`_patch` installs them; nothing here
patches anything) and, called by functions that check that argument first
(`_checked`), as enum_backport_nopatch's functions.

Each interpreter keeps slightly different bookkeeping on an enum class, so the
code asks for attributes rather than versions:

* ``_value2member_map_`` (every version) maps hashable values, and the values
  of pseudo-members created so far, to members.
* ``_unhashable_values_map_`` (3.13) maps a member's name to the values of it
  that could not be hashed; ``_unhashable_values_`` (3.11.7 here, and later)
  lists them.  Older versions keep no record; see `_may_have_unhashable_values`.
  ``_hashable_values_`` (3.13.1 and later) lists the hashable ones.
* ``_boundary_`` (3.11 and later) tells which of Flag's two rule sets applies;
  see `_flag_outcome`.  How the stock ``Flag._missing_`` treats a negative
  value under each boundary changed in 3.15; the interpreter is asked which
  rule it follows, once, on a throwaway class (see `NEGATIVE_RULES`).

EnumType gives every class it makes the same bookkeeping, Enum included, so
asking Enum once at import answers for every class; asking each class with
getattr() would cost a caught AttributeError on every miss.
"""

import enum
import weakref

__all__ = ['NOT_GIVEN', 'from_value', 'from_name', 'contains']


class _NotGiven:
    """The default of `from_value` and `from_name` when none is passed."""

    __slots__ = ()

    def __repr__(self):
        return '<not given>'

    def __reduce__(self):
        return 'NOT_GIVEN'


NOT_GIVEN = _NotGiven()

_Flag = enum.Flag
_HAS_VALUE_ALIAS_MAP = hasattr(enum.Enum, '_unhashable_values_map_')
_HAS_UNHASHABLE_LIST = hasattr(enum.Enum, '_unhashable_values_')
_HAS_HASHABLE_LIST = hasattr(enum.Enum, '_hashable_values_')
_STOCK_ENUM_MISSING = enum.Enum.__dict__['_missing_'].__func__
_EJECT = getattr(enum, 'EJECT', None)
_STRICT = getattr(enum, 'STRICT', None)
_CONFORM = getattr(enum, 'CONFORM', None)
_KEEP = getattr(enum, 'KEEP', None)
# Flag's own _missing_, and IntFlag's where it has one (3.8-3.10).
_STOCK_FLAG_MISSING = frozenset(
    cls.__dict__['_missing_'].__func__
    for cls in (enum.Flag, enum.IntFlag)
    if '_missing_' in cls.__dict__
)
_INTFLAG_MISSING = (
    enum.IntFlag.__dict__['_missing_'].__func__
    if '_missing_' in enum.IntFlag.__dict__
    else None
)

# What the stock Flag._missing_ makes of an int (see _flag_outcome); _ASK
# where the backport does not know the interpreter's rule and must call it.
_PSEUDO_MEMBER = 'pseudo-member'
_EJECTED = 'ejected'
_ASK = 'ask _missing_'

# The two ways a stock Flag._missing_ has turned an in-range negative value
# into bits: up to 3.14 it adds 2**n (``-2`` is ``6`` in a 3-bit flag) under
# every boundary; 3.15 keeps only the bits of single-bit members under STRICT
# and CONFORM (``1 & -2`` is ``0`` when bit 1 is the only single bit).
COMPLEMENT = 'complement'
SINGLE_BITS = 'single bits'


def _probe_negative_rules():
    """Ask this interpreter's Flag._missing_ which rule each boundary follows.

    Return {boundary: COMPLEMENT or SINGLE_BITS}; a boundary whose answer is
    neither is left out, and lookups then call the stock _missing_ itself
    for its negative values (a right answer, but one that caches a
    pseudo-member, as the constructor does).
    """
    if _EJECT is None:
        return {}   # 3.8-3.10: no boundaries, one fixed rule

    class Probe(_Flag):
        # Bits 2 and 4 only together (BC), bit 1 alone (A): -2 is BC by
        # complement and 0 by single bits.
        A = 1
        BC = 6

    missing = _Flag.__dict__['_missing_'].__func__
    rules = {}
    for boundary in enum.FlagBoundary:
        Probe._boundary_ = boundary
        try:
            result = missing(Probe, -2)
        except ValueError:
            continue
        value = getattr(result, '_value_', None)
        if value == 6:
            rules[boundary] = COMPLEMENT
        elif value == 0:
            rules[boundary] = SINGLE_BITS
    return rules


#: How the stock Flag._missing_ of this interpreter turns a negative value
#: into bits, by boundary (3.11 and later): COMPLEMENT or SINGLE_BITS.
NEGATIVE_RULES = _probe_negative_rules()


def _probe_memberless_cache():
    """Whether the constructor caches what it makes of a flag without members.

    3.8 to 3.10's does (``EF(0)`` of an empty Flag, any int of an empty
    IntFlag, makes and keeps a pseudo-member); 3.11 and later raise
    TypeError for a class without members.  Where it does, a lookup that
    finds a value in an empty class's value map asks whether the class has
    members before it answers: such a class misses every lookup, whatever
    ran before.
    """
    class Probe(_Flag):
        pass

    try:
        Probe(0)
    except (TypeError, ValueError):
        return False
    return bool(Probe._value2member_map_)


_MEMBERLESS_CACHE = _probe_memberless_cache()


# Up to 3.11 EnumType defines __getattr__, so every attribute read on an enum
# class goes through a slot that calls type.__getattribute__ the slow way;
# there the lookups call it directly (`_read`).  The attributes read are ones
# EnumType sets on every class it makes, so the __getattr__ fallback never
# has a say.  From 3.12 a plain attribute read is the fast one.
_read = type.__getattribute__
_READS_ARE_HOOKED = '__getattr__' in vars(type(enum.Enum))
_EnumType = type(enum.Enum)
_TYPE_INSTANCECHECK = type.__instancecheck__


def _isinstance_is_plain(cls):
    """Whether isinstance(x, cls) is type's own check (no metaclass override).

    Only then is an exact int or str known not to be an instance of an enum
    class without asking: no member is one, and their ``__class__`` cannot
    claim otherwise.  A metaclass's ``__instancecheck__`` may accept them.
    """
    meta = type(cls)
    return meta is _EnumType or meta.__instancecheck__ is _TYPE_INSTANCECHECK


# The enum classes the checked lookups have noted (where NEEDS_CLASS_NOTES:
# 3.8 to 3.11), by id, each dropped when its class dies (so an id here is
# always that of a live class seen before), those of them that are
# plain (see _CLASSES_NOT_PLAIN), and those whose metaclass keeps
# EnumType's own __getitem__ (see getitem_is_own).  Elsewhere a class whose
# metaclass is EnumType itself needs no check at all, and others are checked
# with isinstance() each time.
_SEEN = {}
_SEEN_PLAIN = {}
_SEEN_OWN_GETITEM = {}


def _first_sight(function, cls):
    """Check that `cls` is an enum class; where needed, note it and remember it.

    Where classes are noted (3.8 to 3.11: see `note_class`), the patch's way
    of noting them (wrapping EnumType.__new__) is not open to a module that
    patches nothing: each class is noted the first time it is
    looked up instead, in the record the patch keeps, where a process has
    both.  A class first looked up while its members are being made is
    noted as it is then; the patch notes it again once it is made.
    """
    if not isinstance(cls, _EnumType):
        raise TypeError('%s() argument 1 must be an enum class, not %r' % (function, cls))
    if not NEEDS_CLASS_NOTES:
        return
    note_class(cls)
    if id(cls) not in _CLASSES_NOT_PLAIN:
        _note(_SEEN_PLAIN, cls)
    _note(_SEEN, cls)


def _search(cls, value, hashable, reraise):
    """The rest of from_value's lookup, after the value map missed.

    Return the member, the plain int an EJECT flag hands back, or None for
    a miss.  A ValueError from `_missing_` is a miss too, re-raised when
    `reraise` is true.
    """
    if type(value) is cls:
        # A member (as the constructor asks: an object that only claims the
        # class, through ``__class__`` or the metaclass's
        # ``__instancecheck__``, is not one).
        return value
    if not hashable or _may_have_unhashable_values(cls):
        member = _equal_member(cls, value, hashable)
        if member is not None:
            return member
    try:
        missing = cls._missing_.__func__
    except AttributeError:
        missing = None  # a staticmethod or other callable: not the stock one
    if missing is _STOCK_ENUM_MISSING:
        # It returns None: a miss, without the call.
        return None
    if not cls._member_map_:
        # An empty class is a class of misses, never the functional API.
        return None
    if missing in _STOCK_FLAG_MISSING and _flag_outcome(cls, value) is None:
        # The stock Flag._missing_ would raise.  With a default there is no
        # need to; without one, let it raise its own message for an int, as
        # the constructor does (before 3.11 it raises TypeError for others).
        if not reraise or not isinstance(value, int):
            return None
    try:
        result = cls._missing_(value)
    except ValueError:
        if reraise:
            raise
        return None
    if result is None or isinstance(result, cls):
        return result
    if (
        _EJECT is not None
        and issubclass(cls, _Flag)
        and cls._boundary_ is _EJECT
        and isinstance(result, int)
    ):
        return result
    raise TypeError(
        'error in %s._missing_: returned %r instead of None or a valid member'
        % (cls.__name__, result)
    )



_CONTAINS_DOC = """Return True if `value` is a member of `cls`, or the value of one.

    For a Flag, a value that a valid combination of members has counts
    too, without creating the combination; a Flag that overrides
    ``_missing_`` is asked, and what it returns counts if it is a member.
    Names are not checked: use ``name in cls.__members__`` for that.
    """

# `in` is mostly asked whether a value is valid, and mostly answered no. For
# an exact int or str, the values most asked about, isinstance(value, cls) is
# false when the metaclass keeps type's own ``__instancecheck__`` (no member
# is exactly an int or a str, and their ``__class__`` cannot claim
# otherwise), so it is not asked: on an enum class it looks
# ``__instancecheck__`` up on the metaclass and calls it, which costs more
# than the rest of a hit.  A metaclass that overrides ``__instancecheck__``
# is asked, as stock enum and the patched build ask it.  The type is compared
# by identity, not looked up in a set: hashing it would call its metaclass's
# ``__hash__``, which may raise.  An int or a str always hashes.  After the
# value map, a plain class (no unhashable member values, not a Flag) has
# nothing more to ask, and what the class keeps tells so without a call: the
# record of unhashable values is read in place (enum fills it as it makes
# members, and _add_value_alias_ adds to it on 3.13; _add_member_ does not,
# and then the constructor does not find that value from a hashable one
# either) from 3.12; where reads are hooked (see `_read`), the notes of
# `note_class` tell it, and the value map is read with type.__getattribute__
# directly (see `_hooked_contains`).  Other values take the order of the
# stock method: isinstance(), then the value map.
# What issubclass(cls, Flag) calls, as EnumType does not override it,
# without looking ``__subclasscheck__`` up on the metaclass first.
_is_flag = _Flag.__subclasscheck__


# 3.8 to 3.11: an exact int or str is in a plain class (see
# _CLASSES_NOT_PLAIN) exactly when it is in the value map, and one dict tells
# which classes are plain: patched, every class is noted as it is made, and
# those that are not are listed; checked, those seen and found plain are (see
# _first_sight).  So the checked function (in _checked), unlike the others,
# does not call the method: it asks its own dict.
def _hooked_contains(cls, value):
    if (type(value) is int or type(value) is str) and id(cls) not in _CLASSES_NOT_PLAIN:
        return value in _read(cls, '_value2member_map_')
    return _contains_other(cls, value)


def _contains_other(cls, value):
    """`contains` for the values its path for exact ints and strs leaves."""
    if isinstance(value, cls):
        return True
    try:
        if value in cls._value2member_map_:
            # An empty class's map may hold what the constructor cached
            # (see _MEMBERLESS_CACHE).
            return not _MEMBERLESS_CACHE or bool(cls._member_map_)
    except TypeError:
        return _contains_rest(cls, value, False)
    return _contains_rest(cls, value, True)


# from_value, from_name and contains are written without a check of their
# first argument: the patch installs them as methods, called on enum classes
# only.  The functions enum_backport_nopatch exports may be given anything,
# so those of _checked make sure of it first and then call them.  They are
# not made from the same code with a flag to test: a
# function that tests a variable of the function that made it is a closure,
# and that costs every call of the method (up to 3.9 it takes the slow way;
# from 3.11 it copies its cells in first).
#
# Only this version's hit asks whether the class has members, where the
# constructor caches what it makes of a class without (see
# _MEMBERLESS_CACHE): 3.8 to 3.10 give no pseudo-member a name, so a named
# member settles it with one read.  Testing the flag itself on every hit
# would cost 3.8 to 3.10 more than that read (about 0.03x of ``E(v)`` on
# 3.9), and 3.12 and later, where the answer is always no, as much.  3.11,
# which needs this version for its hooked reads, pays the read of _name_
# (every member has a name there, so _member_map_ is never read): about
# what the test of the flag cost it.
if _READS_ARE_HOOKED or _MEMBERLESS_CACHE:    # 3.8 to 3.11
    def from_value(cls, value, /, *, default=NOT_GIVEN):
        try:
            member = _read(cls, '_value2member_map_').get(value)
        except TypeError:
            unhashable = True
        else:
            if member is not None and (member._name_ is not None
                                       or _read(cls, '_member_map_')):
                return member
            unhashable = False
            try:
                missing = _read(cls, '_missing_').__func__
            except AttributeError:
                missing = None
            if (
                missing is not _STOCK_ENUM_MISSING
                or type(value) is cls
                or (
                    _read(cls, '_unhashable_values_') if _HAS_UNHASHABLE_LIST
                    else id(cls) in _CLASSES_WITH_UNHASHABLE_VALUES
                )
            ):
                member = _search(cls, value, True, default is NOT_GIVEN)
        if unhashable:
            member = _search(cls, value, False, default is NOT_GIVEN)
        if member is not None:
            return member
        if default is NOT_GIVEN:
            raise ValueError('%r is not a valid %s' % (value, cls.__qualname__))
        return default
else:
    def from_value(cls, value, /, *, default=NOT_GIVEN):
        try:
            member = cls._value2member_map_.get(value)
        except TypeError:
            # Unhashable: searched by equality after this handler, so that
            # what the search raises does not carry this TypeError as its
            # context.
            unhashable = True
        else:
            if member is not None:
                return member
            unhashable = False
            # The common miss (a hashable value, no unhashable member
            # values, Enum's own _missing_) is settled here, without
            # _search's calls.
            try:
                missing = cls._missing_.__func__
            except AttributeError:
                missing = None
            if (
                missing is not _STOCK_ENUM_MISSING
                or type(value) is cls
                or (
                    cls._unhashable_values_ if _HAS_UNHASHABLE_LIST
                    else id(cls) in _CLASSES_WITH_UNHASHABLE_VALUES
                )
            ):
                member = _search(cls, value, True, default is NOT_GIVEN)
        if unhashable:
            member = _search(cls, value, False, default is NOT_GIVEN)
        if member is not None:
            return member
        if default is NOT_GIVEN:
            raise ValueError('%r is not a valid %s' % (value, cls.__qualname__))
        return default

from_value.__doc__ = """Return the member whose value is `value`, or `default` if none is.

    Raise ValueError if no member matches and no default is given.
    """

# Without a default a miss raises anyway, so there a hit is the subscript
# alone, and a miss pays for a caught KeyError besides the ValueError.  As
# in the CPython change's from_name, a KeyError from the lookup is a miss,
# and a TypeError is one only for a name that cannot be hashed (one from a
# hashable name's __eq__ propagates).
def _unhashable(name):
    try:
        hash(name)
    except TypeError:
        return True
    return False


if _READS_ARE_HOOKED:    # 3.8 to 3.11
    def from_name(cls, name, /, *, default=NOT_GIVEN):
        member_map = _read(cls, '_member_map_')
        if default is NOT_GIVEN:
            try:
                return member_map[name]
            except KeyError:
                pass
            except TypeError:
                if not _unhashable(name):
                    raise
            raise ValueError('%r is not a valid %s member name' % (name, cls.__qualname__))
        # Here `in` and a subscript cost less than calling get(), which is
        # looked up as a method first (an exact str caches its hash, so it
        # hashes once).  A name that `in` finds and the subscript does not
        # (it is not equal to itself the second time) is a miss too; the
        # subscript alone, above, answers with the member it finds first.
        try:
            if name in member_map:
                return member_map[name]
        except KeyError:
            pass
        except TypeError:
            if not _unhashable(name):
                raise
        return default
else:
    def from_name(cls, name, /, *, default=NOT_GIVEN):
        if default is NOT_GIVEN:
            try:
                return cls._member_map_[name]
            except KeyError:
                pass
            except TypeError:
                if not _unhashable(name):
                    raise
            raise ValueError('%r is not a valid %s member name' % (name, cls.__qualname__))
        try:
            return cls._member_map_.get(name, default)
        except KeyError:
            return default
        except TypeError:
            if not _unhashable(name):
                raise
            return default

from_name.__doc__ = """Return the member called `name`, or `default` if there is none.

    Raise ValueError if no member has that name and no default is given.
    """


# from_name answers as `cls[name]` does.  The versions above read the member
# map, as EnumType.__getitem__ does; a metaclass that overrides __getitem__
# (one that folds case, or warns of deprecated names) decides what
# `cls[name]` is, so for a class of such a metaclass from_name asks it:
# `_patch` gives the metaclass this version as its own from_name, and the
# checked functions call it for such a class.  What `cls[name]` raises is a
# miss as above, and anything else propagates.
def from_name_by_subscript(cls, name, /, *, default=NOT_GIVEN):
    try:
        return cls[name]
    except KeyError:
        pass
    except TypeError:
        if not _unhashable(name):
            raise
    if default is NOT_GIVEN:
        raise ValueError('%r is not a valid %s member name' % (name, cls.__qualname__))
    return default


from_name_by_subscript.__doc__ = from_name.__doc__
_ENUM_GETITEM = _EnumType.__getitem__


def getitem_is_own(meta):
    """Whether metaclass `meta` keeps EnumType's own __getitem__."""
    return getattr(meta, '__getitem__', None) is _ENUM_GETITEM

if _READS_ARE_HOOKED:    # 3.8 to 3.11
    contains = _hooked_contains
else:
    def contains(cls, value):
        if (type(value) is int or type(value) is str) and (
                type(cls) is _EnumType or _isinstance_is_plain(cls)):
            if value in cls._value2member_map_:
                return not _MEMBERLESS_CACHE or bool(cls._member_map_)
            if not cls._unhashable_values_:
                return _flag_answer(cls, value) if _is_flag(cls) else False
            return _contains_rest(cls, value, True)
        return _contains_other(cls, value)

contains.__doc__ = _CONTAINS_DOC


def _contains_rest(cls, value, hashable):
    """`contains` once the value map and isinstance() have missed."""
    if (not hashable or _may_have_unhashable_values(cls)) and (
            _equal_member(cls, value, hashable) is not None):
        return True
    return _flag_answer(cls, value) if _is_flag(cls) else False


def _flag_answer(cls, value):
    """Whether Flag `cls` takes a value that is no member's own."""
    if not cls._member_map_:
        return False
    if getattr(cls._missing_, '__func__', None) in _STOCK_FLAG_MISSING:
        outcome = _flag_outcome(cls, value)
        if outcome is not _ASK:
            return outcome is _PSEUDO_MEMBER
    return _missing_gives_member(cls, value)


def _missing_gives_member(cls, value):
    # As the constructor consults _missing_, except that a result that is
    # not a member (the constructor's TypeError) is a miss, and so is a
    # ValueError; any other exception propagates.
    try:
        result = cls._missing_(value)
    except ValueError:
        return False
    return isinstance(result, cls)


def _equal_member(cls, value, hashable):
    """Return the first member whose value equals `value`, or None.

    An unhashable `value` is compared with every member's value.  A hashable
    one is compared only with the values hashing could not settle; callers
    skip the call when `_may_have_unhashable_values` says there are none.
    """
    if _HAS_VALUE_ALIAS_MAP:
        # 3.13 records every value by hashability, the extra values that
        # _add_value_alias_() gives a member included.
        for name, values in cls._unhashable_values_map_.items():
            if value in values:
                return cls._member_map_[name]
        if hashable:
            return None
        if _HAS_HASHABLE_LIST:  # 3.13.1 and later
            for known in cls._hashable_values_:
                if value == known:
                    return cls._value2member_map_[known]
            return None
    for member in cls._member_map_.values():
        if member._value_ == value:
            return member
    return None


def _may_have_unhashable_values(cls):
    if _HAS_UNHASHABLE_LIST:
        return bool(cls._unhashable_values_)
    return id(cls) in _CLASSES_WITH_UNHASHABLE_VALUES


# Where enum keeps no record of unhashable member values (3.8 to 3.10),
# nothing cheaper than comparing every member value could tell afterwards:
# a Flag's value map mixes in pseudo-members, and code may add keys of its
# own.  So there _patch wraps EnumType.__new__ to note, once per class as it
# is made, whether it has such a value, keyed by id and dropped when the
# class dies; classes that exist at import are noted then.  The same notes
# say which classes are not plain (such a value, a Flag, or a metaclass with
# an ``__instancecheck__`` of its own, which `in` must ask first), so that
# `contains` asks one dict rather than a hooked read (see `_read`) and a
# subclass check: 3.11.7 and later 3.11 keep a record, but read it the slow
# way, and it is noted too (its list is complete once EnumType.__new__
# returns: 3.11's _simple_enum, which adds members later, takes no
# unhashable value).
_CLASSES_WITH_UNHASHABLE_VALUES = {}
_CLASSES_NOT_PLAIN = {}
NEEDS_CLASS_NOTES = _READS_ARE_HOOKED


def note_class(cls):
    """Note `cls` unless it is plain: see _CLASSES_NOT_PLAIN."""
    if _HAS_UNHASHABLE_LIST:
        unhashable = bool(cls._unhashable_values_)
    else:
        unhashable = False
        try:
            for member in cls._member_map_.values():
                hash(member._value_)
        except Exception:
            unhashable = True
    if unhashable:
        _note(_CLASSES_WITH_UNHASHABLE_VALUES, cls)
    if unhashable or _is_flag(cls) or not _isinstance_is_plain(cls):
        _note(_CLASSES_NOT_PLAIN, cls)
        # Seen while it was being made, and plain then: not any more.
        _SEEN_PLAIN.pop(id(cls), None)


def _note(notes, cls):
    key = id(cls)

    def forget(ref):
        # Only this class's own note: on PyPy a dead class's callback may run
        # after its id was given to a new class, noted since.
        if notes.get(key) is ref:
            notes.pop(key, None)

    notes[key] = weakref.ref(cls, forget)


def _flag_outcome(cls, value):
    """Tell what the stock Flag._missing_ would make of `value`, creating nothing.

    Return _PSEUDO_MEMBER when it would return a (pseudo-)member, _EJECTED
    when it would hand back the plain int, None when it would fail, and
    _ASK when only calling it can tell (a rule `NEGATIVE_RULES` lacks).
    """
    if not isinstance(value, int):
        return None
    if _EJECT is not None:
        return _flag_outcome_by_boundary(cls, value)
    return _flag_outcome_by_decomposition(cls, value)


def _flag_outcome_by_boundary(cls, value):
    # The rules of Flag._missing_ on 3.11 and later, which read the class's
    # boundary.
    flag_mask = cls._flag_mask_
    all_bits = cls._all_bits_
    boundary = cls._boundary_
    if not ~all_bits <= value <= all_bits or value & (all_bits ^ flag_mask):
        if boundary is _STRICT:
            return None
        elif boundary is _CONFORM:
            value &= flag_mask
        elif boundary is _EJECT:
            return _EJECTED
        elif boundary is _KEEP:
            if value < 0:
                value += max(all_bits + 1, 2 ** value.bit_length())
        else:
            return None
    if value < 0:
        rule = NEGATIVE_RULES.get(boundary)
        if rule is COMPLEMENT:
            value += all_bits + 1
        elif rule is SINGLE_BITS:
            value &= cls._singles_mask_
        else:
            return _ASK
    if value & ~flag_mask and boundary is not _KEEP:
        return None
    if boundary is _STRICT and value & ~cls._singles_mask_:
        # Bits outside the single-bit members must be covered exactly by
        # multi-bit members that fit inside the value.
        covered = value & cls._singles_mask_
        for member in cls._member_map_.values():
            member_value = member._value_
            if member_value and member_value & value == member_value:
                covered |= member_value
        if covered and covered != value:
            return None
    return _PSEUDO_MEMBER


def _flag_outcome_by_decomposition(cls, value):
    # The rules on 3.8-3.10: IntFlag takes any int; Flag takes a value whose
    # bits are all covered by members that fit inside it (for a negative
    # value, inside its complement).
    if cls._missing_.__func__ is _INTFLAG_MISSING:
        return _PSEUDO_MEMBER
    if value < 0:
        value = ~value
    covered = 0
    for member in cls._member_map_.values():
        member_value = member._value_
        if member_value and member_value & value == member_value:
            covered |= member_value
    return None if value & ~covered else _PSEUDO_MEMBER
