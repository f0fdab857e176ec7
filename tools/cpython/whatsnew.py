"""Where the whatsnew entry and the porting note go in a tree (docs/cpython-change.rst).

`place` puts a carrier's blocks in the tree's newest Doc/whatsnew/X.Y.rst:
the entry under "Improved modules", the note under "Porting to Python X.Y".
"""

import re
from pathlib import Path

from .util import ToolError

FILE_RE = re.compile(r"^(\d+)\.(\d+)\.rst$")
UNDERLINE_RE = re.compile(r"^([=\-~^\"'*#+])\1*$")


def newest(tree):
    """The tree's Doc/whatsnew/X.Y.rst with the highest version, or None."""
    folder = Path(tree) / "Doc" / "whatsnew"
    found = []
    for entry in folder.iterdir() if folder.is_dir() else ():
        match = FILE_RE.match(entry.name)
        if match and entry.is_file():
            found.append(((int(match.group(1)), int(match.group(2))), entry.name))
    return "Doc/whatsnew/" + max(found)[1] if found else None


def _headings(lines):
    """(index, title, underline character) of each RST title in LINES."""
    found = []
    for i in range(len(lines) - 1):
        title, under = lines[i].rstrip("\n"), lines[i + 1].rstrip("\n")
        if (title.strip() and not UNDERLINE_RE.match(title)
                and UNDERLINE_RE.match(under) and len(under) >= len(title.strip())):
            found.append((i, title.strip(), under[0]))
    return found


def _section(text, block, what, title, title_re):
    """(TEXT's lines, BLOCK's lines, start, end, subsections) of TEXT's first section whose
    title matches TITLE_RE; refuses a TEXT holding BLOCK, or one without that section."""
    if block in text:
        raise ToolError("already holds the %s" % what)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    heads = _headings(lines)
    sections = [h for h in heads if h[2] == "=" and re.match(title_re, h[1], re.I)]
    if not sections:
        raise ToolError('no "%s" section to put the %s in' % (title, what))
    start = sections[0][0]
    end = next((h[0] for h in heads if h[0] > start and h[2] == "="), len(lines))
    return (lines, block.splitlines(keepends=True), start, end,
            [h for h in heads if start < h[0] < end and h[2] == "-"])


def _after_text(lines, limit, floor):
    """Index just after the last non-blank line before LIMIT (not below FLOOR)."""
    while limit > floor and not lines[limit - 1].strip():
        limit -= 1
    return limit


def place(text, blocks):
    """TEXT with a carrier's BLOCKS placed: the enum entry, then the porting note."""
    if not 1 <= len(blocks) <= 2:
        raise ToolError("a whatsnew carrier adds one or two blocks, not %d" % len(blocks))
    text = insert(text, blocks[0])
    return insert_porting(text, blocks[1]) if len(blocks) == 2 else text


def insert_porting(text, block, subsection="Changes in the Python API"):
    """TEXT with BLOCK at the end of SUBSECTION of "Porting to Python X.Y"."""
    lines, entry, start, end, subsections = _section(
        text, block, "whatsnew porting note", "Porting to Python X.Y", "porting to python ")
    mine = [h for h in subsections if h[1].lower() == subsection.lower()]
    if mine:
        limit = next((h[0] for h in subsections if h[0] > mine[0][0]), end)
        at, new = _after_text(lines, limit, mine[0][0] + 2), ["\n"] + entry
    else:
        heading = [subsection + "\n", "-" * len(subsection) + "\n", "\n"]
        if subsections:
            at, new = subsections[0][0], heading + entry + ["\n", "\n"]
        else:
            at, new = _after_text(lines, end, start + 2), ["\n"] + heading + entry
    return "".join(lines[:at] + new + lines[at:])


def insert(text, block, module="enum"):
    """TEXT with BLOCK at the end of MODULE's subsection of "Improved modules"."""
    lines, entry, start, end, subsections = _section(
        text, block, "whatsnew entry", "Improved modules", "improved modules$")
    mine = [h for h in subsections if h[1] == module]
    heading = [module + "\n", "-" * len(module) + "\n", "\n"]
    if mine:
        limit = next((h[0] for h in subsections if h[0] > mine[0][0]), end)
        at, new = _after_text(lines, limit, mine[0][0] + 2), ["\n"] + entry
    else:
        later = [h for h in subsections if h[1].lower() > module]
        if later:
            at, new = later[0][0], heading + entry + ["\n", "\n"]
        else:
            at, new = _after_text(lines, end, start + 2), ["\n", "\n"] + heading + entry
    return "".join(lines[:at] + new + lines[at:])
