"""The change as the repository holds it: five pull requests (PRS), each on the ones before.

docs/cpython-change.rst says what each PR does and how its files are laid
out ("Where the diffs live").  Every function here takes the files of the
PRs wanted, always a prefix of PRS: `collect(repo, FIX)` for the fix alone,
`collect(repo, BACKPORTS)` for the three bug fixes, `collect(repo, FEATURE)`
for those and the feature, `collect(repo)` for all five.
"""

import base64
import hashlib
import re
import shutil
import tempfile
from pathlib import Path

from .util import ToolError, git, outside_git, sha256_file

DIRS = ("Lib", "Doc", "Misc")
PRS = ("fix", "unhashable", "missing", "feature", "flag")    # in the order they apply
FIX, BACKPORTS, FEATURE, ALL = PRS[:1], PRS[:3], PRS[:4], PRS
# PATH.PR.diff is made against 3.13.5 (with the PRs before it applied);
# PATH.PR.X.Y.diff is the same PR written against X.Y's file, for a base
# where the 3.13.5 diff's 3-way merge conflicts (see apply.merge_change).
DIFF_NAME_RE = re.compile(
    r"^(?P<path>.+)\.(?P<pr>%s)(?:\.(?P<onto>3\.\d+))?\.diff$" % "|".join(PRS))
NEWS_DIR = "Misc/NEWS.d/next/"
WHATSNEW_RE = re.compile(r"^Doc/whatsnew/(\d+)\.(\d+)\.rst$")
NEWS_NAME_RE = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})\."
    r"(?:gh-issue-(?P<issue>\d+)\.)?(?P<nonce>[A-Za-z0-9_-]+)\.rst$")


def label(prs):
    """How a run names the PRs it proves: "fix", "fix+unhashable+missing", ..."""
    return "+".join(prs)


class File:
    """One file of the change: the CPython ``path`` it affects, its ``source``, its PR."""

    def __init__(self, path, source, pr="fix", onto=None):
        self.path = path
        self.source = Path(source)
        self.pr = pr
        self.onto = onto    # "3.15" for a diff written against 3.15's file
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
        return "File(%r, %s, is_diff=%r)" % (self.path, self.pr, self.is_diff)


def _classify(rel):
    """A File for the repository file REL (a posix path), or a reason it is none."""
    match = DIFF_NAME_RE.match(rel)
    if match:
        return File(match.group("path"), rel, match.group("pr"), match.group("onto"))
    if rel.endswith(".diff"):
        return ("%s: a diff must say its PR: %s.PR.diff, PR one of %s, made against "
                "3.13.5 with the PRs before it applied, or, written against a newer "
                "base X.Y's file, %s.PR.X.Y.diff" % (rel, rel[:-5], ", ".join(PRS), rel[:-5]))
    name = NEWS_NAME_RE.match(rel.rsplit("/", 1)[-1])
    if rel.startswith(NEWS_DIR) and name and name.group("nonce") in PRS:
        return File(rel, rel, name.group("nonce"))
    return ("%s: a new file must be a NEWS entry whose blurb nonce names its PR "
            "(%sSECTION/DATE.gh-issue-N.PR.rst, PR one of %s)"
            % (rel, NEWS_DIR, ", ".join(PRS)))


def collect(repo, prs=ALL):
    """The Files of the PRs PRS under REPO's Lib/, Doc/ and Misc/, by path, then in the
    order they apply; a file that fits no PR's naming is an error."""
    repo = Path(repo)
    unknown = set(prs) - set(PRS)
    if unknown or not prs or tuple(prs) != PRS[:len(prs)]:
        raise ToolError("no such PR set: %s (there are %s, each on the ones before)"
                        % (", ".join(prs) or "none", ", ".join(PRS)))
    files, problems = [], []
    for top in DIRS:
        for source in sorted((repo / top).rglob("*")) if (repo / top).is_dir() else ():
            rel = source.relative_to(repo)
            if source.is_file() and not any(p.startswith(".") or p == "__pycache__"
                                            for p in rel.parts):
                found = _classify(rel.as_posix())
                if isinstance(found, str):
                    problems.append(found)
                else:
                    found.source = source
                    files.append(found)
    if problems:
        raise ToolError("the change is not laid out as its PRs:\n  " + "\n  ".join(problems))
    if not files:
        raise ToolError("no diffs or new files under %s/{%s}" % (repo, ",".join(DIRS)))
    for item in files:
        if item.is_diff:
            check_header(item)
    primaries = {(f.path, f.pr) for f in files if f.is_diff and not f.onto}
    for item in files:
        if item.is_diff and item.onto and (item.path, item.pr) not in primaries:
            problems.append("%s: written against %s, but %s.%s.diff, the same PR against "
                            "3.13.5, is missing" % (item.source.name, item.onto,
                                                    item.path, item.pr))
        elif item.is_diff and item.onto and any(
                f is not item and f.onto and (f.path, f.pr) == (item.path, item.pr)
                for f in files):
            problems.append("%s: one newer base's diff per file and PR" % item.source.name)
    if problems:
        raise ToolError("the change is not laid out as its PRs:\n  " + "\n  ".join(problems))
    chosen = [f for f in files if f.pr in prs]
    if not chosen:
        raise ToolError("the %s PR has no files under %s" % (label(prs), repo))
    return sorted(chosen, key=lambda f: (f.path, PRS.index(f.pr)))


def diffs_by_path(files):
    """{CPython path: [its diffs, in the order they apply]} of FILES' 3.13.5 diffs."""
    found = {}
    for item in files:
        if item.is_diff and item.onto is None:
            found.setdefault(item.path, []).append(item)
    return found


def variants(files):
    """{(CPython path, PR): its diff written against a newer base} of FILES."""
    return {(item.path, item.pr): item for item in files if item.is_diff and item.onto}


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


def digest(repo, prs=ALL):
    """What a tree patched with PRS depends on: their files' paths and content hashes."""
    return [[f.source.relative_to(repo).as_posix(), sha256_file(f.source)]
            for f in collect(repo, prs)]


def snapshot(repo, dest):
    """Copy REPO's change files to DEST, so a run proves one version of them."""
    for item in collect(repo):
        target = Path(dest) / item.source.relative_to(repo)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(item.source), str(target))
    return Path(dest)


def whatsnew_blocks(item):
    """The blocks of lines the whatsnew diff adds, without blank lines around them.

    One or two hunks, each adding one run and removing none (the entry, then
    the porting note): it says what to add, not where (whatsnew.place).
    """
    stat = _numstat(item).split()
    lines = item.source.read_text(encoding="utf-8").splitlines(keepends=True)
    body = [line for line in lines if not line.startswith(("--- ", "+++ "))]
    tags = "".join("@" if l.startswith("@@") else "+" if l.startswith("+") else " "
                   for l in body)
    if stat[1] != "0" or not re.fullmatch(r"(?:@ *\++ *){1,2}", tags):
        raise ToolError("%s: must be one or two hunks, each adding one run of lines "
                        "and removing none" % item.source.name)
    blocks, current = [], None
    for line in body:
        if line.startswith("@@"):
            current = []
            blocks.append(current)
        elif line.startswith("+"):
            current.append(line[1:])
    found = []
    for block in blocks:
        while block and not block[0].strip():
            block.pop(0)
        while block and not block[-1].strip():
            block.pop()
        if not block:
            raise ToolError("%s: adds only blank lines" % item.source.name)
        found.append("".join(block))
    return found


def news_issue(path):
    """The gh issue number in a blurb file name, or None."""
    match = NEWS_NAME_RE.match(path.rsplit("/", 1)[-1])
    return int(match.group("issue")) if match and match.group("issue") else None


def news_path_for_issue(path, issue, nonce=None):
    """PATH renamed the way blurb names an entry for gh issue ISSUE (and NONCE)."""
    folder, name = path.rsplit("/", 1)
    match = NEWS_NAME_RE.match(name)
    if match is None:
        raise ToolError("%s: not a blurb-style name (DATE.gh-issue-N.NONCE.rst)" % path)
    return "%s/%s.gh-issue-%d.%s.rst" % (folder, match.group("date"), int(issue),
                                         nonce or match.group("nonce"))


def blurb_nonce(body):
    """The nonce blurb gives an entry: six URL-safe base64 characters of its md5."""
    digest = hashlib.md5(body.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest)[:6].decode("ascii")


def name_issues(data, standins, issues):
    """DATA (bytes) with "gh-N" and ":gh:`N`" of each stand-in N in STANDINS
    ({PR: N}) naming the real issue ISSUES[PR] instead."""
    for pr, standin in standins.items():
        if pr in issues and issues[pr] != standin:
            data = re.sub(rb"(gh-|:gh:`)%d(?![0-9])" % standin,
                          rb"\g<1>%d" % issues[pr], data)
    return data


def standin_issues(files):
    """{PR: the stand-in gh issue number in its NEWS entry's name}."""
    found = {}
    for item in files:
        if item.is_news and news_issue(item.path) is not None:
            number = found.setdefault(item.pr, news_issue(item.path))
            if number != news_issue(item.path):
                raise ToolError("the %s PR's NEWS entries name two issues: %d and %d"
                                % (item.pr, number, news_issue(item.path)))
    return found
