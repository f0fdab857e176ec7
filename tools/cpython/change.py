"""The change as the repository holds it.

Under Lib/, Doc/ and Misc/ a file ``X.diff`` is a unified diff against
CPython 3.13.5's file ``X``; every other file is a whole new file that goes
in at its own path.  The whatsnew diff is only a carrier: the block of lines
it adds is placed into whichever tree is patched (see whatsnew.py), and the
NEWS entry is renamed for a gh issue on request.
"""

import re
import shutil
import tempfile
from pathlib import Path

from .util import ToolError, git, outside_git, sha256_file

DIRS = ("Lib", "Doc", "Misc")
NEWS_DIR = "Misc/NEWS.d/next/"
WHATSNEW_RE = re.compile(r"^Doc/whatsnew/(\d+)\.(\d+)\.rst$")
NEWS_NAME_RE = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})\."
    r"(?:gh-issue-(?P<issue>\d+)\.)?(?P<nonce>[A-Za-z0-9_-]+)\.rst$")


class File:
    """One file of the change: the CPython ``path`` it affects and its ``source``."""

    def __init__(self, path, source):
        self.path = path
        self.source = Path(source)
        self.is_diff = self.source.name.endswith(".diff")

    @property
    def is_lib(self):
        return self.path.startswith("Lib/")

    @property
    def is_whatsnew(self):
        return self.is_diff and WHATSNEW_RE.match(self.path) is not None

    @property
    def is_news(self):
        return not self.is_diff and self.path.startswith(NEWS_DIR) and self.path.endswith(".rst")

    def __repr__(self):
        return "File(%r, is_diff=%r)" % (self.path, self.is_diff)


def collect(repo):
    """Every File under REPO's Lib/, Doc/ and Misc/, sorted by path."""
    repo = Path(repo)
    files = []
    for top in DIRS:
        for source in sorted((repo / top).rglob("*")) if (repo / top).is_dir() else ():
            rel = source.relative_to(repo)
            if source.is_file() and not any(p.startswith(".") or p == "__pycache__"
                                            for p in rel.parts):
                path = rel.as_posix()
                files.append(File(path[:-len(".diff")] if path.endswith(".diff") else path,
                                  source))
    if not files:
        raise ToolError("no diffs or new files under %s/{%s}" % (repo, ",".join(DIRS)))
    for item in files:
        if item.is_diff:
            check_header(item)
    return sorted(files, key=lambda f: f.path)


def check_header(item):
    """A diff must name its own path, as a/PATH and b/PATH, and only that."""
    names = _numstat(item).split("\n")
    paths = [line.split("\t")[-1] for line in names if line.strip()]
    if paths != [item.path]:
        raise ToolError("%s: its header names %s, expected a/%s and b/%s"
                        % (item.source.name, ", ".join(paths) or "no file",
                           item.path, item.path))


def _numstat(item):
    """`git apply --numstat` of ITEM, run where no repository changes its paths."""
    where = tempfile.gettempdir()
    return git("apply", "--numstat", item.source.resolve(), cwd=where,
               env=outside_git(where)).stdout


def digest(repo):
    """What a patched tree depends on: every change file's path and content hash."""
    return [[f.source.relative_to(repo).as_posix(), sha256_file(f.source)]
            for f in collect(repo)]


def snapshot(repo, dest):
    """Copy REPO's change files to DEST, so a run proves one version of them."""
    for item in collect(repo):
        target = Path(dest) / item.source.relative_to(repo)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(item.source), str(target))
    return Path(dest)


def whatsnew_block(item):
    """The block of lines the whatsnew diff adds, without blank lines around it.

    The diff must add one contiguous run of lines and remove none: it says
    what to add, not where (whatsnew.insert decides that).
    """
    stat = _numstat(item).split()
    lines = item.source.read_text(encoding="utf-8").splitlines(keepends=True)
    body = [line for line in lines if not line.startswith(("--- ", "+++ "))]
    tags = "".join("@" if l.startswith("@@") else "+" if l.startswith("+") else " "
                   for l in body)
    if stat[1] != "0" or not re.fullmatch(r"@ *\++ *", tags):
        raise ToolError("%s: must be one hunk adding one run of lines and removing none"
                        % item.source.name)
    block = [line[1:] for line in body if line.startswith("+")]
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    if not block:
        raise ToolError("%s: adds only blank lines" % item.source.name)
    return "".join(block)


def news_issue(path):
    """The gh issue number in a blurb file name, or None."""
    match = NEWS_NAME_RE.match(path.rsplit("/", 1)[-1])
    return int(match.group("issue")) if match and match.group("issue") else None


def news_path_for_issue(path, issue):
    """PATH renamed the way blurb names an entry for gh issue ISSUE."""
    folder, name = path.rsplit("/", 1)
    match = NEWS_NAME_RE.match(name)
    if match is None:
        raise ToolError("%s: not a blurb-style name (DATE.gh-issue-N.NONCE.rst)" % path)
    return "%s/%s.gh-issue-%d.%s.rst" % (folder, match.group("date"), int(issue),
                                         match.group("nonce"))


def issue_of(files):
    """The issue number in the change's NEWS entry name, or None."""
    numbers = [news_issue(f.path) for f in files if f.is_news]
    numbers = [n for n in numbers if n is not None]
    return numbers[0] if numbers else None
