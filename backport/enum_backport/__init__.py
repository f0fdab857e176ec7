"""from_value(), from_name() and a value-checking `in` for enum, on 3.8+.

Importing this package patches ``enum.EnumType`` in place (see `_patch`),
so that on every enum class::

    Color.from_value(1)                # the member whose value is 1
    Color.from_value(9, default=None)  # None: no member has that value
    Color.from_name('RED')             # the member called RED
    1 in Color                         # True: a value of a member

On an interpreter whose enum already has these methods nothing is patched.

Type checkers cannot see methods added to a metaclass at run time; code
that they check can call the typed functions `from_value`, `from_name` and
`contains` of this package instead, which do the same lookups.  They are
those of `enum_backport_nopatch`, which a library imports instead of this
package to have them without patching anything.
"""

from importlib import import_module as _import_module

from enum_backport_nopatch import contains, from_name, from_value
from enum_backport_nopatch import _lookup  # noqa: F401  (enum_backport._lookup, as before)

# Not `from . import _patch`: on 3.8 to 3.11 that takes this package's
# import lock a second time while the package initializes, and a thread
# waiting for the same import can then spin for ever in importlib's
# deadlock check (bpo-38091; the check was rewritten in 3.12, gh-91351).
# import_module() locks only the submodule.
_patch = _import_module('enum_backport._patch')

__all__ = ['from_value', 'from_name', 'contains']
__version__ = '1.0.0'

# The EnumType attributes that importing this package patched
# ('from_value', 'from_name', '__contains__', and '__new__' on 3.8 to
# 3.11), or () where the interpreter carries the change.  Private: what
# was patched is for `python -m enum_backport` to report, not an API to
# keep.  importlib.reload() keeps the value the first import set, and
# patches nothing again.
_PATCHED = _patch.apply() or globals().get('_PATCHED', ())
