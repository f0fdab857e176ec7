"""Apply the change to a tree, or carry it onto a newer base, with git's machinery.

Onto 3.13.5 every diff applies exactly; onto anything newer a diff that
does not is merged 3-way (`git merge-file`, base: the 3.13.5 file), or, where
that conflicts, the PR's diff against that base (PATH.PR.X.Y.diff) is used;
a conflict fails, nothing is fuzzed (docs/cpython-change.rst, "How each PR
is proven").  Every result is computed in a scratch directory first: a tree
gets all of the change or none of it.  The whatsnew blocks go where
whatsnew.place puts them; given the issue numbers, the NEWS entries and
every "gh-N" of a stand-in are renamed.
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


def patched(data, items, anywhere=False):
    """DATA (a file's bytes) with the diffs ITEMS (one File or a list) applied exactly, in order.

    ANYWHERE lets a hunk apply at another line than its own (its context
    must still match in full).
    """
    items = [items] if isinstance(items, change.File) else list(items)
    with tempfile.TemporaryDirectory(prefix="cpython-apply-") as scratch:
        target = Path(scratch) / items[0].path
        target.parent.mkdir(parents=True)
        target.write_bytes(data)
        for item in items:
            problem = exact_problem(scratch, item)
            if problem and not (anywhere and problem.startswith("hunks apply only elsewhere")):
                raise ToolError("%s does not apply exactly to its base:\n    %s"
                                % (item.source.name, problem))
            git("apply", item.source.resolve(), cwd=scratch, env=outside_git(scratch))
        return target.read_bytes()


def _exactly(data, items):
    """(DATA with ITEMS applied exactly, None), or (None, git's reason why not)."""
    try:
        return patched(data, items), None
    except ToolError as error:
        return None, str(error).split(":\n    ", 1)[-1]


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


def merge_change(theirs, base, items, newer_diffs, labels):
    """THEIRS (a newer base's file) with the diffs ITEMS merged in: (bytes, conflicts, how).

    One 3-way merge on BASE, the 3.13.5 file; where it conflicts and
    NEWER_DIFFS (change.variants) holds a PR's diff against a newer base, the
    PRs one at a time: that diff where its context matches, the others 3-way.
    """
    merged, conflicts = merge(theirs, base, patched(base, items), labels)
    chosen = [newer_diffs.get((item.path, item.pr)) for item in items]
    if not conflicts or not any(chosen):
        return merged, conflicts, "3-way"
    current = theirs
    for n, (item, newer) in enumerate(zip(items, chosen)):
        if newer is not None:
            try:
                current = patched(current, newer, anywhere=True)
            except ToolError as error:
                return merged, conflicts + ["%s, tried instead: %s" % (
                    newer.source.name, str(error).split(":\n    ", 1)[-1])], None
            continue
        before = patched(base, items[:n]) if n else base
        current, more = merge(current, before, patched(base, items[:n + 1]), labels)
        if more:
            return merged, conflicts, None
    return current, [], "%s as written against %s%s" % (
        ", ".join(n.source.name for n in chosen if n), next(n.onto for n in chosen if n),
        ", the other PRs 3-way" if len(items) > sum(1 for n in chosen if n) else "")


def carry(files, target, source, dest, out=None):
    """Merge the Lib diffs onto TARGET's files (a newer base) under DEST: {path: file}."""
    lib = [f for f in files if f.is_lib]
    diffs = change.diffs_by_path(lib)
    newer_diffs = change.variants(lib)
    bases = source.read(list(diffs))
    theirs = target.read(list(diffs))
    written, problems = {}, []
    for item in lib:
        if item.is_diff:
            continue
        result = Path(dest) / item.path
        result.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(item.source), str(result))
        written[item.path] = result
    for path, items in diffs.items():
        result = Path(dest) / path
        result.parent.mkdir(parents=True, exist_ok=True)
        what = change.label([i.pr for i in items])
        merged, conflicts, how = merge_change(
            theirs[path], bases[path], items, newer_diffs,
            ["%s %s" % (target.version or target.name, path),
             "%s %s" % (source.version, path), "the change (%s)" % what])
        if conflicts:
            problems += ["%s: conflict at %s" % (path, c) for c in conflicts]
            continue
        result.write_bytes(merged)
        say("%s (%s): merged onto %s's file (%s, base %s): no conflict"
            % (path, what, target.version or target.name, how, source.version), out)
        written[path] = result
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


def apply_change(tree, files, source, issues=None, exact_only=False, out=None,
                 author_name=None):
    """Apply FILES (a prefix of the PRs) to TREE; return one line per file done.

    EXACT_ONLY refuses the 3-way fallback (SOURCE, the 3.13.5 base, gives its
    base).  ISSUES ({PR: gh issue number}) renames each NEWS entry;
    AUTHOR_NAME fills the whatsnew entry's ``{author_name}`` if given.
    """
    tree = Path(tree).resolve()
    if not tree.is_dir():
        raise ToolError("%s is not a directory" % tree)
    issues = dict(issues or {})
    newest = whatsnew.newest(tree)
    writes, report, problems, to_merge = {}, [], [], {}
    news_prs = {f.pr for f in files if f.is_news}
    for pr in sorted(set(issues) - news_prs):
        problems.append("an issue number for the %s PR, which has no %s entry here"
                        % (pr, change.NEWS_DIR))
    for item in files:
        if item.is_diff:
            continue
        dest = item.path
        if item.is_news and item.pr in issues:
            body = item.source.read_text(encoding="utf-8")
            dest = change.news_path_for_issue(item.path, issues[item.pr],
                                              change.blurb_nonce(body))
        if (tree / dest).exists():
            problems.append("%s: already exists" % dest)
        writes[dest] = item.source.read_bytes()
        report.append("new file %s (%s)" % (dest, item.pr))
    for path, items in change.diffs_by_path(files).items():
        what = change.label([i.pr for i in items])
        if items[0].is_whatsnew:
            if newest is None:
                problems.append("no Doc/whatsnew/X.Y.rst to put the whatsnew entry in")
                continue
            text = writes[newest].decode("utf-8") if newest in writes else (
                tree / newest).read_text(encoding="utf-8")
            notes = ""
            try:
                for item in items:
                    blocks = change.whatsnew_blocks(item)
                    text = whatsnew.place(text, blocks)
                    if len(blocks) == 2:
                        notes = "; porting note at the end of its Changes in the Python API"
            except ToolError as error:
                problems.append("%s: %s" % (newest, error))
                continue
            writes[newest] = text.encode("utf-8")
            report.append("whatsnew entry (%s) -> %s (enum subsection of Improved modules%s)"
                          % (what, newest, notes))
            continue
        if not (tree / path).is_file():
            problems.append("%s: not in the tree" % path)
            continue
        done, problem = _exactly((tree / path).read_bytes(), items)
        if problem is None:
            writes[path] = done
            report.append("patched %s (%s, exactly)" % (path, what))
        elif exact_only:
            problems.append("%s: does not apply exactly:\n    %s" % (path, problem))
        else:
            say("%s: not exactly (%s); merging 3-way" % (path, problem), out)
            to_merge[path] = items
    bases = {}
    if to_merge and not problems:
        try:
            bases = _three_way_bases(tree, source, list(to_merge))
        except ToolError as error:
            problems.append(str(error))
    if bases:
        newer_diffs = change.variants(files)
        for path, items in to_merge.items():
            what = change.label([i.pr for i in items])
            merged, conflicts, how = merge_change(
                (tree / path).read_bytes(), bases[path], items, newer_diffs,
                ["the tree's " + path, "%s %s" % (source.version, path),
                 "the change (%s)" % what])
            problems += ["%s: conflict at %s" % (path, c) for c in conflicts]
            writes[path] = merged
            report.append("patched %s (%s, %s, base %s)" % (path, what, how, source.version))
    if problems:
        raise ToolError("nothing was changed in %s:\n  %s" % (tree, "\n  ".join(problems)))
    # The whatsnew entry and the tests' comments name the same gh issue as
    # their PR's NEWS entry.
    standins = change.standin_issues(files)
    for path in writes:
        writes[path] = change.name_issues(writes[path], standins, issues)
    if newest in writes and author_name is not None:
        writes[newest] = writes[newest].replace(b"{author_name}", author_name.encode())
    for path, data in writes.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        with open(str(tree / path), "wb") as handle:  # keeps an existing file's mode
            handle.write(data)
    for line in report:
        say(line, out)
    return report
