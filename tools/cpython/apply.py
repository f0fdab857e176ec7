"""Apply the change to a tree, or carry it onto a newer base, with git's machinery.

- Onto 3.13.5, the tree the diffs are made against, every diff must apply
  exactly: `git apply --check`, every hunk at its own line.
- Onto anything newer (Debian's 3.14 and 3.15 files, a contributor's main
  checkout) a diff that does not apply exactly is carried by a 3-way merge,
  `git merge-file`, whose base is the 3.13.5 file the diff was made against.
  A conflict fails and names the conflicting lines.  Nothing is fuzzed.

A tree gets all of the change or none of it: every result is computed in
a scratch directory first, and the tree is written only when all succeed.
The whatsnew entry goes where whatsnew.insert puts it, in the tree's newest
whatsnew file; for --issue the NEWS entry is renamed and the whatsnew entry's
:gh: references to the entry's placeholder number follow.
"""

import difflib
import shutil
import tempfile
from pathlib import Path

from . import change, whatsnew
from .util import ToolError, git, outside_git, say


def _in_tree_env(tree):
    """git's environment for TREE: its own repository if it is a checkout's top."""
    top = git("rev-parse", "--show-toplevel", cwd=tree, check=False)
    if top.returncode == 0 and Path(top.stdout.strip()).resolve() == Path(tree).resolve():
        return None
    return outside_git(tree)


def exact_problem(tree, item):
    """None if ITEM's diff applies to TREE exactly, else git's words for why not."""
    proc = git("apply", "--check", "-v", item.source.resolve(), cwd=tree,
               env=_in_tree_env(tree), check=False)
    moved = [line for line in proc.stdout.splitlines() if "(offset" in line]
    if proc.returncode != 0:
        return "\n    ".join(l for l in proc.stdout.splitlines() if l.startswith("error"))
    if moved:
        return "hunks apply only elsewhere: " + "; ".join(moved)
    return None


def patched(data, item):
    """DATA (a file's bytes) with ITEM's diff applied exactly."""
    with tempfile.TemporaryDirectory(prefix="cpython-apply-") as scratch:
        target = Path(scratch) / item.path
        target.parent.mkdir(parents=True)
        target.write_bytes(data)
        problem = exact_problem(scratch, item)
        if problem:
            raise ToolError("%s does not apply exactly to its base:\n    %s"
                            % (item.source.name, problem))
        git("apply", item.source.resolve(), cwd=scratch, env=outside_git(scratch))
        return target.read_bytes()


def merge(ours, base, theirs, labels):
    """git merge-file of three versions of a file: (merged bytes, conflicts).

    Each conflict is described by the lines it spans in OURS and the
    conflicting text (--diff3 style, so the 3.13.5 lines show too).
    """
    with tempfile.TemporaryDirectory(prefix="cpython-merge-") as scratch:
        paths = []
        for name, data in zip(("ours", "base", "theirs"), (ours, base, theirs)):
            paths.append(Path(scratch) / name)
            paths[-1].write_bytes(data)
        args = ["merge-file", "-p", "--diff3"]
        for label in labels:
            args += ["-L", label]
        proc = git(*(args + paths), check=False, binary=True)
    if proc.returncode < 0 or proc.returncode > 127:
        raise ToolError("git merge-file failed:\n" + proc.stderr.decode(errors="replace"))
    # The merged text with each conflict's OURS side in its place differs
    # from OURS only where THEIRS changed it cleanly; matching the two maps
    # a conflict's place in the merged text back to a line of OURS.
    view, found, block = [], [], None
    for text in proc.stdout.decode("utf-8", "replace").splitlines():
        if text.startswith("<<<<<<< "):
            block, start, in_ours = [text], len(view), True
        elif block is not None:
            block.append(text)
            if text.startswith(("||||||| ", "=======")):
                in_ours = False
            elif text.startswith(">>>>>>> "):
                found.append((start, len(view) - start, "\n".join(block)))
                block = None
            elif in_ours:
                view.append(text)
        else:
            view.append(text)
    ours_lines = ours.decode("utf-8", "replace").splitlines()
    opcodes = (difflib.SequenceMatcher(None, ours_lines, view, autojunk=False).get_opcodes()
               if found else [])
    conflicts = []
    for start, length, text in found:
        first = next((i1 + (start - j1 if tag == "equal" else 0)
                      for tag, i1, i2, j1, j2 in opcodes if j1 <= start < j2),
                     len(ours_lines))
        where = ("lines %d-%d" % (first + 1, first + length) if length
                 else "after line %d" % first)
        conflicts.append("%s of %s:\n%s" % (where, labels[0], text))
    return proc.stdout, conflicts


def carry(files, target, source, dest, out=None):
    """Merge the Lib diffs onto TARGET's files (a newer base); write them under DEST.

    SOURCE is the 3.13.5 base.  Returns {CPython path: merged file}.
    """
    lib = [f for f in files if f.is_lib]
    diffs = [f for f in lib if f.is_diff]
    bases = source.read([f.path for f in diffs])
    theirs = target.read([f.path for f in diffs])
    written, problems = {}, []
    for item in lib:
        result = Path(dest) / item.path
        result.parent.mkdir(parents=True, exist_ok=True)
        if not item.is_diff:
            shutil.copyfile(str(item.source), str(result))
        else:
            merged, conflicts = merge(
                theirs[item.path], bases[item.path], patched(bases[item.path], item),
                ["%s %s" % (target.version or target.name, item.path),
                 "%s %s" % (source.version, item.path), "the change"])
            if conflicts:
                problems += ["%s: conflict at %s" % (item.path, c) for c in conflicts]
                continue
            result.write_bytes(merged)
            say("%s: merged onto %s's file (3-way, base %s): no conflict"
                % (item.path, target.version or target.name, source.version), out)
        written[item.path] = result
    if problems:
        raise ToolError("the change does not merge onto %s:\n  %s"
                        % (target.version or target.name, "\n  ".join(problems)))
    return written


def _three_way_bases(tree, source, paths):
    """The 3.13.5 files PATHS: from the cached tarball, else tag v3.13.5 of TREE."""
    try:
        return source.read(paths)
    except ToolError:
        found = {}
        for path in paths:
            proc = git("show", "%s:%s" % (source.GIT_TAG, path), cwd=tree, check=False,
                       binary=True)
            if proc.returncode != 0:
                raise ToolError("a 3-way merge needs the %s version of %s: run `fetch` "
                                "first, or fetch tag %s into the checkout"
                                % (source.version, path, source.GIT_TAG))
            found[path] = proc.stdout
        return found


def apply_change(tree, files, source, issue=None, exact_only=False, out=None):
    """Apply FILES (the change) to TREE; return what was done, one line per file.

    EXACT_ONLY refuses the 3-way fallback (for 3.13.5 itself).  SOURCE is the
    3.13.5 base, read for 3-way merges.
    """
    tree = Path(tree).resolve()
    if not tree.is_dir():
        raise ToolError("%s is not a directory" % tree)
    newest = whatsnew.newest(tree)
    writes, report, problems, to_merge = {}, [], [], []
    if issue is not None and not any(f.is_news for f in files):
        problems.append("--issue given but the change has no %s entry" % change.NEWS_DIR)
    for item in files:
        if not item.is_diff:
            dest = change.news_path_for_issue(item.path, issue) if (
                item.is_news and issue is not None) else item.path
            if (tree / dest).exists():
                problems.append("%s: already exists" % dest)
            writes[dest] = item.source.read_bytes()
            report.append("new file " + dest)
            continue
        if item.is_whatsnew:
            if newest is None:
                problems.append("no Doc/whatsnew/X.Y.rst to put the whatsnew entry in")
                continue
            try:
                text = whatsnew.insert((tree / newest).read_text(encoding="utf-8"),
                                       change.whatsnew_block(item))
            except ToolError as error:
                problems.append("%s: %s" % (newest, error))
                continue
            writes[newest] = text.encode("utf-8")
            report.append("whatsnew entry -> %s (enum subsection of Improved modules)"
                          % newest)
            if newest != item.path:
                continue
            # In the diff's own file the diff and the placement must agree.
            problem = exact_problem(tree, item)
            if problem is not None and exact_only:
                problems.append("%s: does not apply exactly:\n    %s" % (item.path, problem))
            elif problem is None and patched(
                    (tree / newest).read_bytes(), item) != writes[newest]:
                problems.append("%s puts the entry elsewhere than the end of the enum "
                                "subsection, where the tool places it" % item.source.name)
            continue
        if not (tree / item.path).is_file():
            problems.append("%s: not in the tree" % item.path)
            continue
        problem = exact_problem(tree, item)
        if problem is None:
            writes[item.path] = patched((tree / item.path).read_bytes(), item)
            report.append("patched %s (exactly)" % item.path)
        elif exact_only:
            problems.append("%s: does not apply exactly:\n    %s" % (item.path, problem))
        else:
            say("%s: not exactly (%s); merging 3-way" % (item.path, problem), out)
            to_merge.append(item)
    bases = {}
    if to_merge and not problems:
        try:
            bases = _three_way_bases(tree, source, [f.path for f in to_merge])
        except ToolError as error:
            problems.append(str(error))
    if bases:
        for item in to_merge:
            merged, conflicts = merge((tree / item.path).read_bytes(), bases[item.path],
                                      patched(bases[item.path], item),
                                      ["the tree's " + item.path,
                                       "%s %s" % (source.version, item.path), "the change"])
            problems += ["%s: conflict at %s" % (item.path, c) for c in conflicts]
            writes[item.path] = merged
            report.append("patched %s (3-way merge, base %s)" % (item.path, source.version))
    if problems:
        raise ToolError("nothing was changed in %s:\n  %s" % (tree, "\n  ".join(problems)))
    placeholder = change.issue_of(files)
    if issue is not None and newest in writes and placeholder not in (None, issue):
        # The whatsnew entry names the same gh issue as the NEWS entry.
        writes[newest] = writes[newest].replace(
            (":gh:`%d`" % placeholder).encode(), (":gh:`%d`" % issue).encode())
    for path, data in writes.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        with open(str(tree / path), "wb") as handle:  # keeps an existing file's mode
            handle.write(data)
    for line in report:
        say(line, out)
    return report
