"""typeshed's enum.pyi with from_value() and from_name() on EnumMeta.

Two users, one edit:

- ``python -m enum_backport typeshed OUTDIR`` copies a whole typeshed
  (pyright's own, by default) to OUTDIR with the methods on every version
  and an ``in`` that takes any object, as the backport gives them at run
  time; pyright is then pointed at it (``--typeshedpath OUTDIR``, or
  ``"typeshedPath"`` in pyrightconfig.json).  pyright has no plugins, and
  an enum.pyi given alone through ``stubPath`` breaks pyright's enum
  handling (``Color.GREEN`` becomes ``Literal[2]``); a whole copy keeps
  it (tests/test_typing.py shows both).
- tools/cpython/typeshed.py writes typeshed's side of the CPython change
  with the same edit, gated by ``sys.version_info >= (3, 16)``.

The overloads are those of the typed functions `enum_backport.from_value`
and `from_name` and of the mypy plugin (tests/test_typing.py compares what
the checkers infer through each).

This module imports nothing from the package, so the tool can load it from
the source tree without patching its own enum.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from typing import List, Optional, Sequence, Tuple

FEATURE_VERSION = (3, 16)

#: The methods, as typeshed would write them (indented for EnumMeta's body).
METHODS = '''\
@overload
def from_value(cls: type[_EnumMemberT], value: object, /) -> _EnumMemberT: ...
@overload
def from_value(cls: type[_EnumMemberT], value: object, /, *, default: _T) -> _EnumMemberT | _T: ...
@overload
def from_name(cls: type[_EnumMemberT], name: str, /) -> _EnumMemberT: ...
@overload
def from_name(cls: type[_EnumMemberT], name: str, /, *, default: _T) -> _EnumMemberT | _T: ...
'''

_TYPE_VAR = '_EnumMemberT = TypeVar("_EnumMemberT")\n'
_NEW_TYPE_VAR = '_T = TypeVar("_T")\n'
_CLASS = 'class EnumMeta(type):\n'
# Before 3.12, typeshed's EnumMeta.__contains__ takes members only.
_CONTAINS_MEMBERS = re.compile(
    r'^(?P<indent>\s+)def __contains__\(self: type\[Any\], \w+: Enum\) -> bool: \.\.\.$',
    re.MULTILINE)


class StubError(ValueError):
    """The stub is not shaped as this edit expects; nothing was written."""


def add_methods(text: str, gate: Optional[Tuple[int, ...]] = FEATURE_VERSION,
                contains_any: bool = False) -> str:
    """Return enum.pyi's `text` with the methods added to EnumMeta.

    `gate` is the version the methods appear from (a tuple), or None for
    every version.  With `contains_any`, ``in`` takes any object on every
    version too.  Raise StubError if the text is not an enum.pyi this edit
    knows, or already has the methods.
    """
    if re.search(r'def from_(value|name)\(', text):
        raise StubError('enum.pyi already has from_value or from_name')
    if text.count(_TYPE_VAR) != 1 or text.count(_CLASS) != 1:
        raise StubError('enum.pyi has no single %r and %r'
                        % (_TYPE_VAR.strip(), _CLASS.strip()))
    if re.search(r'^_T = ', text, re.MULTILINE) is None:
        text = text.replace(_TYPE_VAR, _TYPE_VAR + _NEW_TYPE_VAR)
    lines = text.splitlines(keepends=True)
    start = lines.index(_CLASS)
    end = start + 1
    # The class body: up to the next line that starts at column 0.
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in ' \t#'):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    if gate is None:
        block = [''] + ['    ' + line for line in METHODS.splitlines()]
    else:
        block = ['', '    if sys.version_info >= %r:' % (tuple(gate),)]
        block += ['        ' + line for line in METHODS.splitlines()]
    lines[end:end] = [line + '\n' for line in block]
    text = ''.join(lines)
    if contains_any:
        text = _CONTAINS_MEMBERS.sub(
            r'\g<indent>def __contains__(self: type[Any], value: object) -> bool: ...', text)
    return text


#: The file that marks a copy this module made, so that making the copy
#: again (after upgrading pyright) replaces it.
MARKER = 'ENUM_BACKPORT_COPY'


def write_copy(source: str, target: str, gate: Optional[Tuple[int, ...]] = None) -> None:
    """Copy the typeshed tree `source` to `target`, enum.pyi edited.

    The copy gives every version (by default; else those from `gate`) the
    methods and an ``in`` for any object.  `target` must not exist yet, be
    an empty directory, or be an earlier copy made here (it is replaced);
    on any error nothing is written and an earlier copy stays as it was.
    """
    stub = os.path.join(source, 'stdlib', 'enum.pyi')
    if not os.path.isfile(stub):
        raise StubError('%s is not a typeshed tree: it has no stdlib/enum.pyi' % source)
    with open(stub, encoding='utf-8') as f:
        text = add_methods(f.read(), gate=gate, contains_any=gate is None)
    earlier = os.path.isfile(os.path.join(target, MARKER))
    if not earlier and os.path.exists(target) and (
            not os.path.isdir(target) or os.listdir(target)):
        raise StubError('%s exists and is neither an empty directory nor a copy this '
                        'command made' % target)
    # Made beside the target, then moved into place.
    parent = os.path.dirname(os.path.abspath(target))
    os.makedirs(parent, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix='.enum-backport-typeshed-', dir=parent)
    try:
        made = os.path.join(scratch, 'copy')
        shutil.copytree(source, made)
        with open(os.path.join(made, 'stdlib', 'enum.pyi'), 'w', encoding='utf-8') as f:
            f.write(text)
        with open(os.path.join(made, MARKER), 'w', encoding='utf-8') as f:
            f.write('Made by `python -m enum_backport typeshed` from %s.\n'
                    'Running it again with this directory replaces it.\n' % source)
        kept = os.path.join(scratch, 'earlier')
        if earlier:
            os.rename(target, kept)
        elif os.path.isdir(target):
            os.rmdir(target)
        try:
            os.rename(made, target)
        except BaseException:
            if earlier:
                os.rename(kept, target)
            raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def pyright_typesheds() -> List[str]:
    """The typeshed trees of the pyright installations found, newest first.

    The pyright package on PyPI ships pyright inside its wheel (recent
    versions) or installs it from npm into its cache on first use (older
    ones); npm puts it under ./node_modules.
    """
    patterns = [os.path.join('node_modules', 'pyright', 'dist', 'typeshed-fallback')]
    spec = importlib.util.find_spec('pyright')
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            patterns.append(os.path.join(glob.escape(location), 'dist', 'dist',
                                         'typeshed-fallback'))
    cache = os.environ.get('PYRIGHT_PYTHON_CACHE_DIR') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache'),
        'pyright-python')
    patterns.append(os.path.join(glob.escape(cache), '*', 'node_modules', 'pyright', 'dist',
                                 'typeshed-fallback'))
    found = {path for pattern in patterns for path in glob.glob(pattern)}
    return sorted(found, key=os.path.getmtime, reverse=True)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog='python -m enum_backport typeshed',
        description='Copy a typeshed tree with from_value() and from_name() on EnumMeta '
                    'and an `in` that takes any object, for pyright '
                    '(pyright --typeshedpath OUTDIR, or "typeshedPath" in pyrightconfig.json).')
    parser.add_argument('outdir', help='where the copy goes (must not exist, be empty, or be an earlier '
                             'copy made by this command, which is replaced)')
    parser.add_argument('--source', help='the typeshed tree to copy (default: that of the '
                                         'pyright package installed beside this Python, or '
                                         'of the pyright under ./node_modules)')
    args = parser.parse_args(argv)
    source = args.source
    if source is None:
        found = pyright_typesheds()
        if not found:
            parser.error('no pyright typeshed found (run pyright once, or pass '
                         '--source node_modules/pyright/dist/typeshed-fallback)')
        source = found[0]
    try:
        write_copy(source, args.outdir)
    except (StubError, OSError) as error:
        print('python -m enum_backport typeshed: error: %s' % error, file=sys.stderr)
        return 2
    print('wrote %s (from %s); point pyright at it with --typeshedpath %s'
          % (args.outdir, source, args.outdir))
    return 0
