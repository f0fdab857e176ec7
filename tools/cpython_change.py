#!/usr/bin/env python3
"""Apply and prove this project's change to CPython.

The repository stores the change the way CPython lays out its tree: under
Lib/, Doc/ and Misc/, a file ``X.diff`` is a unified diff against CPython's
file ``X``, and every other file is a whole new file that goes in at its own
path.  This tool applies those files to a CPython tree, builds stock and
patched CPython 3.13.5 from the release tarball, runs the stdlib suites and
the project's behaviour tests on the patched build, builds and checks the
documentation, and writes a ``git am``-able patch.

Everything it downloads or builds lives in the cache directory,
``$ENUM_FROM_VALUE_CACHE`` (default ``~/.cache/enum-from-value``):

    src/python3.13_3.13.5.orig.tar.xz       the release tarball
    builds/<kind>-<key>/                    src/, prefix/, *.log, build-ok
                                            (kind: stock or patched)
    venvs/docs-<kind>-<key>-<key2>/         Sphinx venv made from that build
    docs/<kind>-<key>/                      html output, warnings, doctest
    patches/gh-<N>.patch                    output of the ``patch`` command

A key is a hash of everything that goes into the thing it names, so a build,
venv or html tree is reused exactly when its inputs are unchanged.  Only the
newest few patched builds are kept.

Run ``cpython_change.py --help`` for the commands; ``all`` runs them in order.
Needs Python 3.8 or newer, git, GNU patch, tar and (for building) a C
toolchain with CPython's usual build dependencies.
"""

import argparse
import collections
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

# --- What is built ---------------------------------------------------------

VERSION = "3.13.5"
TARBALL_NAME = "python3.13_3.13.5.orig.tar.xz"  # Debian's name for Python-3.13.5.tar.xz
TARBALL_SHA256 = "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"
TARBALL_TOPDIR = "Python-3.13.5"
BASE_TAG = "v3.13.5"  # the same tree in a CPython git clone
DEB_SOURCE_PACKAGE = "python3.13"
DEB_SUITE = "trixie"  # the Debian release whose python3.13 is 3.13.5
APT_DIR = Path("/etc/apt")
APT_SOURCES_NAME = "enum-from-value-trixie-src.sources"  # written in APT_DIR/sources.list.d
APT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

# Stock and patched builds use exactly these flags (plus their own --prefix).
CONFIGURE_FLAGS = ["--with-ensurepip=install"]
INTERPRETER = "python3.13"
KEEP_PATCHED_BUILDS = 3  # older patched builds are deleted (see prune_patched_builds)

# The repository directories that mirror CPython's tree.
CHANGE_DIRS = ("Lib", "Doc", "Misc")
WHATSNEW_DIR = "Doc/whatsnew"
NEWS_DIR = "Misc/NEWS.d/next/"

# Stdlib suites that lean on enum.
STDLIB_TESTS = [
    "test_enum", "test_re", "test_signal", "test_socket", "test_httplib",
    "test_inspect", "test_pydoc", "test_typing", "test_dataclasses",
]
# test_socket's VSOCK tests find /dev/vsock on this kind of VM but no vsock
# loopback transport: connect() fails with ENODEV and accept() times out.
# They fail the same way on the stock build, so they say nothing about enum.
STDLIB_TEST_IGNORE = ["*VSOCK*"]

# Documentation pages whose doctests must pass with the patched enum.
DOCTEST_PAGES = ["library/enum.rst", "howto/enum.rst"]

COMMIT_SUBJECT = "gh-{issue}: Add EnumType.from_value() and EnumType.from_name()"
COMMIT_BODY = """\
Enum classes get two lookups on the metaclass.  from_value() finds a
member by value exactly as the constructor does, and from_name() finds
a member by name, aliases included.  Both raise ValueError on a miss,
or return the default when one is given, so code that checks input no
longer needs try/except, and from_name() never returns a method or
descriptor the way getattr() can.

`value in EnumCls` no longer has side effects: unhashable probes are
compared by equality instead of raising, and a Flag value is checked
without creating and caching a pseudo-member.  The constructor shares
the value lookup with from_value(), so an equal hashable probe now
finds a member whose value is unhashable.
"""
FALLBACK_AUTHOR = "enum-from-value contributors <enum-from-value@example.invalid>"

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = HERE.parent


class ToolError(Exception):
    """A failure to report to the user as a message (no traceback)."""


# --- Small helpers ---------------------------------------------------------

def cache_dir(explicit=None):
    """The cache directory: --cache, else $ENUM_FROM_VALUE_CACHE, else ~/.cache/enum-from-value."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("ENUM_FROM_VALUE_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    return Path.home() / ".cache" / "enum-from-value"


def say(message):
    print("cpython_change: " + message, flush=True)


def clean_env(**extra):
    """os.environ without PYTHON* variables, so nothing leaks into builds and tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(extra)
    return env


def run(cmd, cwd=None, log=None, env=None, check=True, input=None):
    """Run CMD; with LOG, send its output there and show the tail on failure.

    Without LOG the output is captured and returned.  Raises ToolError on a
    non-zero exit when CHECK is true.
    """
    cmd = [str(c) for c in cmd]
    if log is not None:
        log = Path(log)
        with open(log, "w") as out:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            tail = log.read_text(errors="replace").splitlines()[-40:]
            raise ToolError("%s failed (exit %d); last lines of %s:\n%s"
                            % (" ".join(cmd), proc.returncode, log, "\n".join(tail)))
        return proc
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=None if input is not None else subprocess.DEVNULL,
                          universal_newlines=True)
    if check and proc.returncode != 0:
        raise ToolError("%s failed (exit %d):\n%s"
                        % (" ".join(cmd), proc.returncode, proc.stdout))
    return proc


def run_live(cmd, cwd=None, env=None):
    """Run CMD with its output going straight to ours; return the exit code."""
    print("$ " + " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=cwd, env=env,
                           stdin=subprocess.DEVNULL)


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def short_key(data):
    """A 12-hex-digit key for a JSON-able description of some inputs."""
    text = json.dumps(data, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive lock on PATH (created if needed) for the with block.

    Two runs that want the same build, venv or html tree wait for each other
    instead of deleting each other's half-made work.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def require_program(name, why):
    if shutil.which(name) is None:
        raise ToolError("%s is needed %s but is not on PATH" % (name, why))


# --- The change: what the repository holds ----------------------------------

class Change:
    """One file of the change.

    ``path`` is the CPython path it affects (``Lib/enum.py``), ``source``
    the repository file, ``is_diff`` whether it is a diff (else a new file).
    """

    def __init__(self, path, source, is_diff):
        self.path = path
        self.source = source
        self.is_diff = is_diff

    def __repr__(self):
        return "Change(%r, is_diff=%r)" % (self.path, self.is_diff)


def collect_changes(repo):
    """Every Change under REPO's Lib/, Doc/ and Misc/, sorted by path.

    Hidden files and __pycache__ directories are skipped.
    """
    repo = Path(repo)
    changes = []
    for top in CHANGE_DIRS:
        base = repo / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(str(base)):
            dirnames[:] = sorted(d for d in dirnames
                                 if d != "__pycache__" and not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                source = Path(dirpath) / name
                rel = source.relative_to(repo).as_posix()
                if rel.endswith(".diff"):
                    changes.append(Change(rel[:-len(".diff")], source, True))
                else:
                    changes.append(Change(rel, source, False))
    changes.sort(key=lambda c: c.path)
    if not changes:
        raise ToolError("no diffs or new files under %s/{%s}"
                        % (repo, ",".join(CHANGE_DIRS)))
    return changes


def change_digest(repo):
    """What the patched build depends on: every change file's path and content hash."""
    return [[c.source.relative_to(repo).as_posix(), sha256_file(c.source)]
            for c in collect_changes(repo)]


def copy_change(repo, dest):
    """Copy the change files of REPO (its Lib/, Doc/, Misc/ files) to DEST."""
    for change in collect_changes(repo):
        target = Path(dest) / change.source.relative_to(repo)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(change.source), str(target))


# --- Reading unified diffs ---------------------------------------------------

Hunk = collections.namedtuple("Hunk", "number header old_start new_start lines")
Diff = collections.namedtuple("Diff", "old_path new_path hunks")

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _header_path(line):
    """The path in a ``---``/``+++`` line, without a/ or b/ and any timestamp."""
    name = line[4:].rstrip("\n").split("\t")[0].strip()
    if name.startswith(("a/", "b/")):
        name = name[2:]
    return name


def parse_diff(text, name="diff"):
    """Parse a single-file unified diff; raise ToolError if it is malformed."""
    lines = text.splitlines(keepends=True)
    old_path = new_path = None
    hunks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if (line.startswith("--- ") and i + 1 < len(lines)
                and lines[i + 1].startswith("+++ ")):
            if old_path is not None:
                raise ToolError("%s: holds more than one file's diff" % name)
            old_path, new_path = _header_path(line), _header_path(lines[i + 1])
            i += 2
            continue
        match = HUNK_RE.match(line)
        if match is None:
            if hunks and line.strip():
                raise ToolError("%s: unexpected line %d: %r" % (name, i + 1, line))
            i += 1
            continue
        if new_path is None:
            raise ToolError("%s: hunk before the ---/+++ header" % name)
        old_left = int(match.group(2) if match.group(2) is not None else 1)
        new_left = int(match.group(4) if match.group(4) is not None else 1)
        header = line.rstrip("\n")
        body = []
        i += 1
        while old_left > 0 or new_left > 0:
            if i >= len(lines):
                raise ToolError("%s: hunk %r ends early" % (name, header))
            body_line = lines[i]
            tag = body_line[:1]
            if tag in (" ", "\n"):
                old_left -= 1
                new_left -= 1
            elif tag == "-":
                old_left -= 1
            elif tag == "+":
                new_left -= 1
            elif tag != "\\":  # "\ No newline at end of file"
                raise ToolError("%s: bad line %d in hunk %r: %r"
                                % (name, i + 1, header, body_line))
            body.append(body_line)
            i += 1
        if i < len(lines) and lines[i].startswith("\\"):
            body.append(lines[i])
            i += 1
        hunks.append(Hunk(len(hunks) + 1, header, int(match.group(1)),
                          int(match.group(3)), body))
    if not hunks:
        raise ToolError("%s: no hunks" % name)
    return Diff(old_path, new_path, hunks)


def read_diff(change):
    """Parse CHANGE's diff and check its header names CHANGE's own path."""
    name = change.source.name
    diff = parse_diff(change.source.read_text(encoding="utf-8"), name)
    for path in (diff.old_path, diff.new_path):
        if path != change.path:
            raise ToolError("%s: header names %r, expected a/%s and b/%s"
                            % (name, path, change.path, change.path))
    return diff


def added_lines(diff):
    """(line number in the new file, text) for every added line of DIFF."""
    result = []
    for hunk in diff.hunks:
        new_line = hunk.new_start
        for line in hunk.lines:
            tag = line[:1]
            if tag == "+":
                result.append((new_line, line[1:]))
                new_line += 1
            elif tag in (" ", "\n"):
                new_line += 1
    return result


def whitespace_problems(repo):
    """Trailing whitespace, tabs, CRs or a missing final newline in what the change adds.

    Looks at the added lines of every diff and every line of every new file.
    Returns a list of ``path:line: problem`` strings (empty when clean).
    """
    problems = []

    def check(where, number, text):
        content = text.rstrip("\n")
        if "\r" in content:
            problems.append("%s:%d: carriage return" % (where, number))
        if content != content.rstrip(" \t\r"):
            problems.append("%s:%d: trailing whitespace" % (where, number))
        if "\t" in content:
            problems.append("%s:%d: tab" % (where, number))

    for change in collect_changes(repo):
        rel = change.source.relative_to(repo).as_posix()
        if change.is_diff:
            diff = parse_diff(change.source.read_text(encoding="utf-8"), rel)
            for number, text in added_lines(diff):
                check(rel, number, text)
            for hunk in diff.hunks:
                for before, after in zip(hunk.lines, hunk.lines[1:]):
                    if before.startswith("+") and after.startswith("\\"):
                        problems.append("%s: %s leaves no newline at the end of the file"
                                        % (rel, hunk.header))
        else:
            text = change.source.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(keepends=True), 1):
                check(rel, number, line)
            if text and not text.endswith("\n"):
                problems.append("%s: no newline at the end" % rel)
    return problems


# --- Whatsnew ---------------------------------------------------------------

WHATSNEW_RE = re.compile(r"^(\d+)\.(\d+)\.rst$")
UNDERLINE_RE = re.compile(r"^([=\-~^\"'*#+])\1*$")


def is_whatsnew(path):
    return (path.startswith(WHATSNEW_DIR + "/")
            and WHATSNEW_RE.match(path[len(WHATSNEW_DIR) + 1:]) is not None)


def newest_whatsnew(tree):
    """The tree's Doc/whatsnew/X.Y.rst with the highest version, or None."""
    folder = Path(tree) / WHATSNEW_DIR
    versions = []
    if folder.is_dir():
        for entry in folder.iterdir():
            match = WHATSNEW_RE.match(entry.name)
            if match and entry.is_file():
                versions.append(((int(match.group(1)), int(match.group(2))), entry.name))
    if not versions:
        return None
    return WHATSNEW_DIR + "/" + max(versions)[1]


def whatsnew_block(diff, name="whatsnew diff"):
    """The bullet block the whatsnew diff adds (see notes on its format).

    The diff must be one hunk that only adds one contiguous run of lines.
    Blank lines around the run are dropped.
    """
    if len(diff.hunks) != 1:
        raise ToolError("%s: must have exactly one hunk, has %d" % (name, len(diff.hunks)))
    hunk = diff.hunks[0]
    if any(line.startswith("-") for line in hunk.lines):
        raise ToolError("%s: must only add lines" % name)
    tags = "".join("+" if line.startswith("+") else " " for line in hunk.lines)
    if not re.fullmatch(r" *\++ *", tags):
        raise ToolError("%s: the added lines must be one contiguous run" % name)
    block = [line[1:] for line in hunk.lines if line.startswith("+")]
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    if not block:
        raise ToolError("%s: adds only blank lines" % name)
    return "".join(line if line.endswith("\n") else line + "\n" for line in block)


def _headings(lines):
    """(index, title, underline character) for each RST title in LINES."""
    found = []
    for i in range(len(lines) - 1):
        title = lines[i].rstrip("\n")
        under = lines[i + 1].rstrip("\n")
        if (title.strip() and not UNDERLINE_RE.match(title)
                and UNDERLINE_RE.match(under) and len(under) >= len(title.strip())):
            found.append((i, title.strip(), under[0]))
    return found


def insert_whatsnew_block(text, block, module="enum"):
    """Put BLOCK at the end of MODULE's subsection of "Improved modules".

    The subsection (a ``-`` underlined title inside the ``=`` underlined
    "Improved modules" section, matched case-insensitively) is created in
    alphabetical position when missing.  Returns the new text.
    """
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    block_lines = block.splitlines(keepends=True)
    heads = _headings(lines)
    sections = [h for h in heads if h[2] == "=" and h[1].lower() == "improved modules"]
    if not sections:
        raise ToolError('no "Improved modules" section to put the whatsnew entry in')
    start = sections[0][0]
    end = next((h[0] for h in heads if h[0] > start and h[2] == "="), len(lines))
    subsections = [h for h in heads if start < h[0] < end and h[2] == "-"]

    def end_of_text(limit, floor):
        """Index just after the last non-blank line before LIMIT (not below FLOOR)."""
        j = limit
        while j > floor and not lines[j - 1].strip():
            j -= 1
        return j

    mine = [h for h in subsections if h[1] == module]
    if mine:
        index = mine[0][0]
        limit = next((h[0] for h in subsections if h[0] > index), end)
        at = end_of_text(limit, index + 2)
        new = ["\n"] + block_lines
    else:
        heading = [module + "\n", "-" * len(module) + "\n", "\n"]
        later = [h for h in subsections if h[1].lower() > module.lower()]
        if later:
            at = later[0][0]
            new = heading + block_lines + ["\n", "\n"]
        else:
            at = end_of_text(end, start + 2)
            new = ["\n", "\n"] + heading + block_lines
    return "".join(lines[:at] + new + lines[at:])


# --- NEWS entry ---------------------------------------------------------------

NEWS_NAME_RE = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})\."
    r"(?:gh-issue-(?P<issue>\d+)\.)?(?P<nonce>[A-Za-z0-9_-]+)\.rst$")


def is_news(path):
    return path.startswith(NEWS_DIR) and path.endswith(".rst")


def news_issue(path):
    """The gh issue number in a blurb file name, or None."""
    match = NEWS_NAME_RE.match(path.rsplit("/", 1)[-1])
    if match is None or match.group("issue") is None:
        return None
    return int(match.group("issue"))


def news_path_for_issue(path, issue):
    """PATH renamed the way blurb names an entry for gh issue ISSUE."""
    folder, name = path.rsplit("/", 1)
    match = NEWS_NAME_RE.match(name)
    if match is None:
        raise ToolError("%s: not a blurb-style name (DATE.gh-issue-N.NONCE.rst)" % path)
    return "%s/%s.gh-issue-%d.%s.rst" % (folder, match.group("date"), int(issue),
                                         match.group("nonce"))


# --- Applying the change to a tree -------------------------------------------

def git_toplevel(tree):
    """TREE's path if it is the top of a git work tree, else None."""
    if shutil.which("git") is None:
        return None
    proc = run(["git", "rev-parse", "--show-toplevel"], cwd=tree, check=False)
    if proc.returncode != 0:
        return None
    top = Path(proc.stdout.strip())
    return top if top.resolve() == Path(tree).resolve() else None


def _failed_hunks(output, diff):
    """Turn GNU patch's "Hunk #N FAILED" lines into hunk descriptions."""
    failed = []
    for number in re.findall(r"Hunk #(\d+) FAILED", output):
        hunk = diff.hunks[int(number) - 1]
        failed.append("hunk #%d (%s)" % (hunk.number, hunk.header))
    return failed


def stage_with_patch(tree, diffs, staging):
    """Patch each file into STAGING with GNU patch; TREE is not touched.

    DIFFS is a list of (Change, Diff).  Returns a list of problems naming the
    file and every hunk that does not apply.
    """
    require_program("patch", "to apply the diffs")
    problems = []
    for change, diff in diffs:
        out = Path(staging) / change.path
        out.parent.mkdir(parents=True, exist_ok=True)
        proc = run(["patch", "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
                    "--reject-file=-", "-o", out, "-i", change.source.resolve(),
                    change.path], cwd=tree, check=False)
        if proc.returncode == 0:
            continue
        hunks = _failed_hunks(proc.stdout, diff)
        if "Reversed (or previously applied)" in proc.stdout:
            problems.append("%s: the change looks already applied" % change.path)
        elif hunks:
            for hunk in hunks:
                problems.append("%s: %s does not apply" % (change.path, hunk))
        else:
            problems.append("%s: patch failed:\n%s" % (change.path, proc.stdout.strip()))
    return problems


def base_contents(tree, paths, cache):
    """The 3.13.5 content of PATHS: from the cached tarball, else tag v3.13.5 in TREE."""
    found = {}
    tarball = cache / "src" / TARBALL_NAME
    if tarball.is_file():
        wanted = {TARBALL_TOPDIR + "/" + p: p for p in paths}
        with tarfile.open(str(tarball)) as archive:
            for member in archive:
                if member.name in wanted:
                    found[wanted[member.name]] = archive.extractfile(member).read()
                    if len(found) == len(paths):
                        break
    for path in paths:
        if path not in found:
            proc = subprocess.run(["git", "cat-file", "blob", "%s:%s" % (BASE_TAG, path)],
                                  cwd=str(tree), stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
            if proc.returncode == 0:
                found[path] = proc.stdout
    missing = [p for p in paths if p not in found]
    if missing:
        raise ToolError("a 3-way merge needs the %s version of %s: run `fetch` first "
                        "or fetch tag %s into the checkout"
                        % (VERSION, ", ".join(missing), BASE_TAG))
    return found


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def three_way_diffs(tree, diffs, cache, workdir):
    """Write git-style copies of DIFFS that name their 3.13.5 base blobs.

    ``git apply --3way`` needs the blob a diff was made against; the blob is
    added to TREE's object store (an unreferenced object, harmless) so the
    merge works even in a shallow clone.  Returns the new diff files.
    """
    bases = base_contents(tree, [c.path for c, _ in diffs], cache)
    result = []
    for change, _ in diffs:
        base = bases[change.path]
        stored = subprocess.run(["git", "hash-object", "-w", "--no-filters", "--stdin"],
                                cwd=str(tree), input=base, stdout=subprocess.PIPE)
        if stored.returncode != 0 or stored.stdout.decode().strip() != git_blob_id(base):
            raise ToolError("could not store the %s base of %s in %s"
                            % (VERSION, change.path, tree))
        # The post-image id: apply the diff to the base in a scratch dir.
        scratch = Path(tempfile.mkdtemp(dir=str(workdir)))
        target = scratch / change.path
        target.parent.mkdir(parents=True)
        target.write_bytes(base)
        run(["git", "apply", change.source.resolve()], cwd=scratch,
            env=dict(os.environ, GIT_CEILING_DIRECTORIES=str(scratch.parent)))
        after = target.read_bytes()
        mode = "100755" if os.access(str(Path(tree) / change.path), os.X_OK) else "100644"
        text = change.source.read_text(encoding="utf-8")
        header = "diff --git a/{0} b/{0}\nindex {1}..{2} {3}\n".format(
            change.path, git_blob_id(base), git_blob_id(after), mode)
        out = Path(workdir) / (change.path.replace("/", "_") + ".3way.diff")
        out.write_text(header + text[text.index("--- "):], encoding="utf-8")
        result.append(out)
    return result


def apply_change(tree, repo=DEFAULT_REPO, issue=None, cache=None, use_git=None):
    """Apply every diff and copy every new file of REPO into TREE.

    A plain tree gets all of it or none of it: every diff is first patched
    into a scratch copy, and TREE is written only when all of them apply.
    In a git checkout (USE_GIT None means: if TREE is the top of one) a diff
    that does not apply cleanly is 3-way merged with ``git apply --3way``;
    conflicts are left in the files for the contributor, as ``git am -3``
    would.  The whatsnew entry goes into the tree's newest whatsnew file.
    ISSUE renames the NEWS entry for that gh issue.  Returns a list of
    conflicted paths (empty on a clean apply).
    """
    tree = Path(tree).resolve()
    repo = Path(repo).resolve()
    cache = cache_dir(cache)
    if not tree.is_dir():
        raise ToolError("%s is not a directory" % tree)
    if use_git is None:
        use_git = git_toplevel(tree) is not None
    changes = collect_changes(repo)
    newest = newest_whatsnew(tree)
    diffs, writes, problems, report = [], {}, [], []
    news_files = [c for c in changes if not c.is_diff and is_news(c.path)]
    if issue is not None and not news_files:
        problems.append("--issue given but the change has no %s entry" % NEWS_DIR)

    for change in changes:
        if change.is_diff:
            try:
                diff = read_diff(change)
            except ToolError as error:
                problems.append(str(error))
                continue
            if is_whatsnew(change.path) and newest is not None and change.path != newest:
                try:
                    block = whatsnew_block(diff, change.source.name)
                    text = (tree / newest).read_text(encoding="utf-8")
                    if block in text:
                        raise ToolError("already holds the whatsnew entry")
                    writes[newest] = insert_whatsnew_block(text, block).encode("utf-8")
                    report.append("whatsnew entry -> %s (enum subsection)" % newest)
                except ToolError as error:
                    problems.append("%s: %s" % (newest, error))
            elif not (tree / change.path).is_file():
                problems.append("%s: not in the tree" % change.path)
            else:
                diffs.append((change, diff))
        else:
            dest = change.path
            if issue is not None and is_news(dest):
                try:
                    dest = news_path_for_issue(dest, issue)
                except ToolError as error:
                    problems.append(str(error))
                    continue
            if (tree / dest).exists():
                problems.append("%s: already exists" % dest)
            writes[dest] = change.source.read_bytes()
            report.append("new file " + dest)

    with tempfile.TemporaryDirectory(prefix="cpython-change-") as scratch:
        scratch = Path(scratch)
        three_way = []
        if use_git and diffs:
            proc = run(["git", "apply", "--check"] + [c.source.resolve() for c, _ in diffs],
                       cwd=tree, check=False)
            if proc.returncode != 0 and not problems:
                say("the diffs do not apply cleanly here; falling back to a 3-way merge:\n"
                    + proc.stdout.strip())
                try:
                    three_way = three_way_diffs(tree, diffs, cache, scratch)
                except ToolError as error:
                    problems.append(str(error))
        elif diffs:
            problems.extend(stage_with_patch(tree, diffs, scratch / "staged"))
        if problems:
            raise ToolError("nothing was changed in %s:\n  %s"
                            % (tree, "\n  ".join(problems)))

        conflicts = []
        if use_git and three_way:
            proc = run(["git", "apply", "--3way"] + three_way, cwd=tree, check=False)
            print(proc.stdout.strip())
            listed = run(["git", "diff", "--name-only", "--diff-filter=U"], cwd=tree)
            conflicts = listed.stdout.split()
            if proc.returncode != 0 and not conflicts:
                raise ToolError("git apply --3way failed:\n" + proc.stdout)
        elif use_git and diffs:
            run(["git", "apply"] + [c.source.resolve() for c, _ in diffs], cwd=tree)
        else:
            for change, _ in diffs:
                staged = (scratch / "staged" / change.path).read_bytes()
                with open(str(tree / change.path), "wb") as f:  # keeps the file's mode
                    f.write(staged)
        report[:0] = ["patched " + change.path
                      + (" (with conflicts)" if change.path in conflicts else "")
                      for change, _ in diffs]
        for path, data in writes.items():
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(data)

    for line in report:
        say(line)
    if conflicts:
        say("3-way merge left conflicts to resolve in: " + ", ".join(conflicts))
    return conflicts


# --- fetch ------------------------------------------------------------------

def _apt_entries(apt_dir):
    """(types, uris, suites, signed_by) for each source in APT_DIR's lists."""
    entries = []
    folder = apt_dir / "sources.list.d"
    for path in sorted(folder.glob("*.sources")) if folder.is_dir() else []:
        for paragraph in re.split(r"\n\s*\n", path.read_text(errors="replace")):
            fields = {}
            for line in paragraph.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.split()
            if fields.get("enabled", ["yes"])[0].lower() == "no":
                continue
            if "types" in fields and "uris" in fields:
                entries.append((fields["types"], fields["uris"], fields.get("suites", []),
                                " ".join(fields.get("signed-by", []))))
    lists = [apt_dir / "sources.list"]
    if folder.is_dir():
        lists += sorted(folder.glob("*.list"))
    for path in lists:
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            line = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
            if len(line) >= 3 and line[0] in ("deb", "deb-src"):
                entries.append(([line[0]], [line[1]], [line[2]], ""))
    return entries


def ensure_deb_src(apt_dir=APT_DIR):
    """Make sure apt has a deb-src entry for trixie; add one if it does not.

    The new entry uses the mirror the machine's own (non-security) sources
    name.  Returns the file written, or None when an entry was there.
    """
    entries = _apt_entries(apt_dir)
    if any("deb-src" in types and DEB_SUITE in suites for types, _, suites, _ in entries):
        return None
    mirrors = [(uris[0], signed) for types, uris, suites, signed in entries
               if "deb" in types and uris
               and not any(s.endswith("-security") for s in suites)]
    if not mirrors:
        raise ToolError("no Debian mirror found in %s/sources.list(.d) to add a "
                        "deb-src entry for %s from" % (apt_dir, DEB_SUITE))
    uri, signed = mirrors[0]
    # The full archive keyring also holds the keys of the next release.
    if Path(APT_KEYRING).is_file() or not signed:
        signed = APT_KEYRING
    text = ("Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n"
            % (uri, DEB_SUITE, signed))
    target = apt_dir / "sources.list.d" / APT_SOURCES_NAME
    say("adding %s (deb-src %s from %s)" % (target, DEB_SUITE, uri))
    target.write_text(text)
    return target


def cmd_fetch(args):
    """Put the 3.13.5 tarball into the cache: from --tarball, or with apt (--apt-source)."""
    cache = cache_dir(args.cache)
    dest = cache / "src" / TARBALL_NAME
    if dest.is_file() and sha256_file(dest) == TARBALL_SHA256:
        say("tarball already cached: %s" % dest)
        return 0
    dest.parent.mkdir(parents=True, exist_ok=True)
    if args.tarball:
        source = Path(args.tarball).expanduser()
        if not source.is_file():
            raise ToolError("%s: no such file" % source)
        if sha256_file(source) != TARBALL_SHA256:
            raise ToolError("%s is not the CPython %s release tarball (sha256 differs)"
                            % (source, VERSION))
        shutil.copyfile(str(source), str(dest))
    elif args.apt_source:
        if os.geteuid() != 0:
            raise ToolError("--apt-source changes apt's configuration: run as root")
        require_program("apt-get", "for --apt-source")
        ensure_deb_src()
        run(["apt-get", "update"], log=cache / "src" / "apt-update.log")
        run(["apt-get", "source", "--download-only", DEB_SOURCE_PACKAGE],
            cwd=dest.parent, log=cache / "src" / "apt-source.log")
        if not dest.is_file():
            got = sorted(p.name for p in dest.parent.glob("*.orig.tar.*"))
            raise ToolError("apt-get source did not fetch %s (found: %s)"
                            % (TARBALL_NAME, ", ".join(got) or "nothing"))
        if sha256_file(dest) != TARBALL_SHA256:
            dest.unlink()
            raise ToolError("the downloaded %s has the wrong sha256" % TARBALL_NAME)
    else:
        raise ToolError("the %s tarball is not cached: pass --tarball PATH "
                        "(Python-%s.tar.xz) or, on Debian, --apt-source" % (VERSION, VERSION))
    say("tarball cached: %s" % dest)
    return 0


def cached_tarball(cache):
    tarball = cache / "src" / TARBALL_NAME
    if not tarball.is_file():
        raise ToolError("%s is missing: run `fetch` first" % tarball)
    return tarball


# --- build ------------------------------------------------------------------

def build_key(kind, repo):
    """The key of a build: tarball, flags and (patched) every change file."""
    inputs = {"kind": kind, "tarball": TARBALL_SHA256, "configure": CONFIGURE_FLAGS}
    if kind == "patched":
        inputs["change"] = change_digest(repo)
    return short_key(inputs)


def build_dir(kind, cache, repo):
    return cache / "builds" / ("%s-%s" % (kind, build_key(kind, repo)))


def extract_tarball(tarball, dest):
    """Unpack the tarball's top directory as DEST."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    run(["tar", "-xf", tarball, "-C", dest.parent])
    (dest.parent / TARBALL_TOPDIR).rename(dest)


def ensure_build(kind, cache, repo, jobs=2):
    """Build stock or patched 3.13.5 unless a finished build with its key exists.

    A patched build works from a copy of the change files, kept in its
    change/ directory, so edits made while it builds cannot slip in under
    the wrong key.  Returns the interpreter path.
    """
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as scratch:
        snapshot = Path(scratch) / "change"
        if kind == "patched":
            copy_change(repo, snapshot)
            repo = snapshot
        root = build_dir(kind, cache, repo)
        with locked(root.parent / (".%s.lock" % root.name)):
            return _build_locked(kind, root, cache, snapshot if kind == "patched" else None,
                                 jobs)


def _build_locked(kind, root, cache, change, jobs):
    python = root / "prefix" / "bin" / INTERPRETER
    stamp = root / "build-ok"
    if stamp.is_file() and python.is_file():
        say("%s build up to date: %s" % (kind, python))
        return python
    tarball = cached_tarball(cache)
    if root.exists():
        say("removing unfinished build %s" % root)
        shutil.rmtree(str(root))
    root.mkdir(parents=True)
    started = time.monotonic()
    say("building %s CPython %s in %s (logs there)" % (kind, VERSION, root))
    src = root / "src"
    extract_tarball(tarball, src)
    if change is not None:
        shutil.copytree(str(change), str(root / "change"))
        apply_change(src, root / "change", cache=cache, use_git=False)
    env = clean_env()
    run(["./configure", "--prefix=%s" % (root / "prefix")] + CONFIGURE_FLAGS,
        cwd=src, env=env, log=root / "configure.log")
    run(["make", "-j%d" % jobs], cwd=src, env=env, log=root / "make.log")
    run(["make", "altinstall"], cwd=src, env=env, log=root / "install.log")
    stamp.write_text(json.dumps({"kind": kind, "configure": CONFIGURE_FLAGS,
                                 "tarball": TARBALL_SHA256}) + "\n")
    say("built %s in %.0f s: %s" % (kind, time.monotonic() - started, python))
    if kind == "patched":
        prune_patched_builds(cache)
    return python


def prune_patched_builds(cache, keep=KEEP_PATCHED_BUILDS):
    """Delete all but the KEEP newest finished patched builds, with their docs and venvs.

    Every edit of the diffs makes a new patched build (about 1 GB with its
    html and venv); old ones are never reused once the diffs have moved on.
    """
    finished = [p for p in (cache / "builds").glob("patched-*") if (p / "build-ok").is_file()]
    finished.sort(key=lambda p: (p / "build-ok").stat().st_mtime, reverse=True)
    for old in finished[keep:]:
        key = old.name[len("patched-"):]
        doomed = [old, cache / "docs" / old.name]
        doomed += list((cache / "venvs").glob("docs-patched-%s-*" % key))
        say("removing old patched build %s" % old.name)
        for path in doomed:
            shutil.rmtree(str(path), ignore_errors=True)


def change_root(args):
    """Where the change files are read: `all`'s snapshot of them, else --repo."""
    return Path(getattr(args, "change", None) or args.repo).resolve()


def build_one(kind, args):
    print(ensure_build(kind, cache_dir(args.cache), change_root(args), args.jobs))
    return 0


def cmd_build(args):
    """Build stock and/or patched CPython (default: both); print the interpreter paths."""
    kinds = [k for k in ("stock", "patched") if getattr(args, k)] or ["stock", "patched"]
    for kind in kinds:
        build_one(kind, args)
    return 0


# --- test -------------------------------------------------------------------

def cmd_test(args):
    """Run the enum-related stdlib suites and the behaviour tests on the patched build."""
    cache, repo = cache_dir(args.cache), Path(args.repo).resolve()
    python = ensure_build("patched", cache, change_root(args), args.jobs)
    env = clean_env()
    has_api = run([python, "-s", "-c",
                   "import enum; print(hasattr(enum.EnumType, 'from_value'))"], env=env)
    if has_api.stdout.strip() != "True":
        raise ToolError("%s has no EnumType.from_value: the patch is not in this build"
                        % python)
    cmd = [python, "-s", "-m", "test", "-j%d" % args.jobs]
    for pattern in STDLIB_TEST_IGNORE:
        cmd += ["--ignore", pattern]
    say("stdlib suites (test_socket's VSOCK tests are left out: this VM has /dev/vsock "
        "but no vsock loopback, so they fail on the stock build too)")
    if run_live(cmd + STDLIB_TESTS, env=env) != 0:
        raise ToolError("stdlib suites failed on the patched build")

    # The behaviour tests must exercise the native API, so the backport must
    # not be importable from where they run.
    probe = run([python, "-s", "-c",
                 "import importlib.util, sys; sys.path[:0] = ['', 'tests'];"
                 "print(importlib.util.find_spec('enum_backport') is None)"],
                cwd=repo, env=env)
    if probe.stdout.strip() != "True":
        raise ToolError("enum_backport is importable from %s; the behaviour tests "
                        "would not test the native API" % repo)
    say("behaviour tests, natively (no enum_backport)")
    code = run_live([python, "-s", "-m", "unittest", "discover", "-s", "tests",
                     "-p", "test_behaviour*.py"], cwd=repo, env=env)
    if code != 0:
        raise ToolError("behaviour tests failed on the patched build (exit %d)" % code)

    # The differential, bad-input and thread tests need hypothesis, which the
    # build lacks: run them from a venv of the patched build.
    venv = cache / "venvs" / ("native-tests-" + hashlib.sha256(
        str(python).encode()).hexdigest()[:12])
    venv_python = venv / "bin" / "python"
    if not venv_python.exists():
        say("venv with hypothesis for the native property tests: %s" % venv)
        if run_live([python, "-m", "venv", str(venv)], env=env) != 0 or run_live(
                [str(venv_python), "-m", "pip", "install", "-q", "hypothesis"], env=env) != 0:
            shutil.rmtree(str(venv), ignore_errors=True)
            raise ToolError("could not make the venv for the native property tests")
    say("property, bad-input and thread tests, natively (no enum_backport)")
    code = run_live([str(venv_python), "-m", "unittest", "tests.test_properties",
                     "tests.test_bad_inputs", "tests.test_threads"], cwd=repo, env=env)
    if code != 0:
        raise ToolError("property tests failed on the patched build (exit %d)" % code)
    return 0


# --- docs -------------------------------------------------------------------

def sphinx_lint_pin(tree):
    """The sphinx-lint version the tree's pre-commit config uses, if any."""
    config = Path(tree) / ".pre-commit-config.yaml"
    if config.is_file():
        match = re.search(r"sphinx-lint\s*\n\s*rev:\s*v?([\w.]+)", config.read_text())
        if match:
            return "sphinx-lint==" + match.group(1)
    return "sphinx-lint"


def ensure_venv(kind, python, tree, cache, build_key_):
    """A venv made from PYTHON with TREE's Doc/requirements.txt and sphinx-lint."""
    doc = Path(tree) / "Doc"
    pin = sphinx_lint_pin(tree)
    key = short_key({"build": build_key_, "pin": pin,
                     "requirements": sha256_file(doc / "requirements.txt"),
                     "constraints": sha256_file(doc / "constraints.txt")
                     if (doc / "constraints.txt").is_file() else None})
    venv = cache / "venvs" / ("docs-%s-%s-%s" % (kind, build_key_, key))
    stamp = venv / "venv-ok"
    if stamp.is_file():
        return venv
    if venv.exists():
        shutil.rmtree(str(venv))
    venv.parent.mkdir(parents=True, exist_ok=True)
    say("creating %s docs venv %s" % (kind, venv))
    env = clean_env()
    run([python, "-m", "venv", venv], env=env)
    run([venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check",
         "-r", doc / "requirements.txt", pin], env=env, log=venv / "pip-install.log")
    stamp.write_text("ok\n")
    return venv


WARNING_LINE_RE = re.compile(r"^(?P<path>[^:\s][^:]*?)(?::(?P<line>\d+))?: "
                             r"(?P<level>WARNING|ERROR|CRITICAL|SEVERE): (?P<text>.*)$")


def normalised_warnings(text, doc_dir):
    """Sphinx warnings as a Counter of 'relative/path: LEVEL: message'.

    Paths are made relative to the Doc directory and line numbers dropped, so
    warnings of two trees compare equal when only their positions moved.
    """
    counts = collections.Counter()
    prefix = str(doc_dir).rstrip("/") + "/"
    for line in text.splitlines():
        line = line.replace(prefix, "")
        match = WARNING_LINE_RE.match(line)
        if match:
            path = re.sub(r":docstring of .*$", "", match.group("path"))
            counts["%s: %s: %s" % (path, match.group("level"), match.group("text"))] += 1
        elif re.search(r"\b(WARNING|ERROR)\b", line):
            counts[re.sub(r":\d+:", ":", line)] += 1
    return counts


def build_html(kind, venv, tree, cache, key, jobs):
    """Build TREE's Doc as html (nitpicky, like CPython's CI); return the warnings file."""
    out = cache / "docs" / ("%s-%s" % (kind, key))
    warnings = out / "html-warnings.txt"
    stamp = out / "html-ok"
    if stamp.is_file():
        say("%s html up to date: %s" % (kind, out / "html"))
        return out, warnings
    if out.exists():
        shutil.rmtree(str(out))
    out.mkdir(parents=True)
    doc = Path(tree) / "Doc"
    # whatsnew/changelog.rst includes Doc/build/NEWS, which `make html` makes
    # from Misc/NEWS in a release tarball.
    (doc / "build").mkdir(exist_ok=True)
    shutil.copyfile(str(Path(tree) / "Misc" / "NEWS"), str(doc / "build" / "NEWS"))
    started = time.monotonic()
    say("building %s docs (html) into %s" % (kind, out))
    run([venv / "bin" / "sphinx-build", "--builder", "html", "--doctree-dir", out / "doctrees",
         "--jobs", jobs, "--nitpicky", "--no-color", "--warning-file", warnings,
         doc, out / "html"], cwd=doc, env=clean_env(PATH=str(venv / "bin") + os.pathsep
                                                     + os.environ.get("PATH", "")),
        log=out / "html.log")
    stamp.write_text("ok\n")
    say("%s html built in %.0f s" % (kind, time.monotonic() - started))
    return out, warnings


def changed_rst_files(tree, repo, newest):
    """The .rst files of TREE that the change adds or edits."""
    paths = []
    for change in collect_changes(repo):
        path = change.path
        if change.is_diff and is_whatsnew(path) and newest:
            path = newest
        if path.endswith(".rst"):
            paths.append(Path(tree) / path)
    return paths


def check_news_entries(venv, tree, repo):
    """Let blurb parse each NEWS entry the change adds (as `blurb merge` would)."""
    problems = []
    script = ("import sys\n"
              "try:\n"
              "    from blurb._blurb_file import Blurbs  # blurb 2.1 and later\n"
              "except ImportError:\n"
              "    from blurb.blurb import Blurbs\n"
              "b = Blurbs()\n"
              "b.load_next(sys.argv[1])\n"
              "print(b[0][0])\n")
    for change in collect_changes(repo):
        if change.is_diff or not is_news(change.path):
            continue
        proc = run([venv / "bin" / "python", "-c", script, Path(tree) / change.path],
                   check=False, env=clean_env())
        if proc.returncode != 0:
            # The end of the traceback holds blurb's message.
            message = "\n".join(proc.stdout.strip().splitlines()[-2:])
            problems.append("%s: blurb rejects it:\n%s" % (change.path, message))
    return problems


def cmd_docs(args):
    """Build both Doc trees, compare warnings, run the enum doctests and the linters."""
    cache, repo = cache_dir(args.cache), change_root(args)
    problems = ["whitespace: " + p for p in whitespace_problems(repo)]
    built = {}
    for kind in ("stock", "patched"):
        python = ensure_build(kind, cache, repo, args.jobs)
        root = python.parents[2]  # builds/<kind>-<key>/prefix/bin/python3.13
        tree, key = root / "src", root.name[len(kind) + 1:]
        with locked(cache / "docs" / (".%s-%s.lock" % (kind, key))):
            venv = ensure_venv(kind, python, tree, cache, key)
            out, warnings = build_html(kind, venv, tree, cache, key, args.jobs)
        built[kind] = (tree, venv, out, normalised_warnings(warnings.read_text(), tree / "Doc"))

    new = built["patched"][3] - built["stock"][3]
    say("html warnings: stock %d, patched %d, new %d"
        % (sum(built["stock"][3].values()), sum(built["patched"][3].values()),
           sum(new.values())))
    for warning in sorted(new):
        problems.append("new Sphinx warning: " + warning)

    tree, venv, out, _ = built["patched"]
    doc = tree / "Doc"
    say("doctests of %s with the patched enum" % ", ".join(DOCTEST_PAGES))
    code = run_live([venv / "bin" / "sphinx-build", "--builder", "doctest",
                     "--doctree-dir", out / "doctrees", "--nitpicky", "--no-color",
                     doc, out / "doctest"]
                    + [doc / page for page in DOCTEST_PAGES], env=clean_env())
    if code != 0:
        problems.append("doctests failed in %s (see above)" % ", ".join(DOCTEST_PAGES))
    else:
        # A page without doctests would pass vacuously; say so.
        report = (out / "doctest" / "output.txt").read_text()
        for page in DOCTEST_PAGES:
            if "Document: %s\n" % page[:-len(".rst")] not in report:
                problems.append("no doctests ran in %s" % page)

    rst = changed_rst_files(tree, repo, newest_whatsnew(tree))
    lint = run([venv / "bin" / "sphinx-lint", "--enable=default-role"] + rst,
               check=False, env=clean_env())
    if lint.returncode != 0:
        problems.append("sphinx-lint:\n" + lint.stdout.strip())
    else:
        say("sphinx-lint clean on %d files" % len(rst))
    problems.extend(check_news_entries(venv, tree, repo))
    if problems:
        raise ToolError("docs checks failed:\n  " + "\n  ".join(problems))
    say("docs: no new warnings, doctests pass, sphinx-lint and whitespace clean")
    return 0


# --- patch ------------------------------------------------------------------

def git_author():
    """The user's git identity, else a placeholder."""
    name = run(["git", "config", "user.name"], check=False).stdout.strip()
    email = run(["git", "config", "user.email"], check=False).stdout.strip()
    if name and email:
        return "%s <%s>" % (name, email)
    return FALLBACK_AUTHOR


def commit_message(issue):
    return COMMIT_SUBJECT.format(issue=issue) + "\n\n" + COMMIT_BODY


def issue_from_news(repo):
    """The issue number in the change's NEWS entry name, or None."""
    numbers = [news_issue(c.path) for c in collect_changes(repo)
               if not c.is_diff and is_news(c.path)]
    numbers = [n for n in numbers if n is not None]
    return numbers[0] if numbers else None


def cmd_patch(args):
    """Write a git-am patch of the whole change against 3.13.5 and check it applies."""
    cache, repo = cache_dir(args.cache), change_root(args)
    issue = args.issue if args.issue is not None else issue_from_news(repo)
    if issue is None:
        raise ToolError("no issue number: pass --issue N")
    require_program("git", "to write the patch")
    output = Path(args.output) if args.output else cache / "patches" / ("gh-%d.patch" % issue)
    author = args.author or git_author()
    match = re.match(r"^(.*?)\s*<(.*)>$", author)
    if match is None:
        raise ToolError("--author must look like 'Name <email>'")
    identity = {"GIT_AUTHOR_NAME": match.group(1), "GIT_AUTHOR_EMAIL": match.group(2),
                "GIT_COMMITTER_NAME": match.group(1), "GIT_COMMITTER_EMAIL": match.group(2),
                # Keep the user's config (hooks, signing) out of the scratch repo.
                "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env = dict(os.environ, **identity)
    tarball = cached_tarball(cache)
    with tempfile.TemporaryDirectory(prefix="cpython-patch-") as scratch:
        tree = Path(scratch) / "cpython"
        extract_tarball(tarball, tree)
        git = ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false"]
        run(git + ["init", "-q"], cwd=tree, env=env)
        run(git + ["add", "-A", "-f"], cwd=tree, env=env)
        run(git + ["commit", "-q", "-m", "Python %s" % VERSION], cwd=tree, env=env)
        run(git + ["tag", "base"], cwd=tree, env=env)
        apply_change(tree, repo, issue=issue, cache=cache, use_git=False)
        run(git + ["add", "-A", "-f"], cwd=tree, env=env)
        message = Path(scratch) / "message"
        message.write_text(commit_message(issue))
        run(git + ["commit", "-q", "-F", message], cwd=tree, env=env)
        want = run(git + ["rev-parse", "HEAD^{tree}"], cwd=tree, env=env).stdout.strip()
        patch = run(git + ["format-patch", "-1", "--stdout", "--stat", "--full-index", "HEAD"],
                    cwd=tree, env=env).stdout
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(patch)
        # Prove it: git am onto the pristine tree gives the same tree.
        run(git + ["checkout", "-q", "--detach", "base"], cwd=tree, env=env)
        run(git + ["am", "-q", output.resolve()], cwd=tree, env=env)
        got = run(git + ["rev-parse", "HEAD^{tree}"], cwd=tree, env=env).stdout.strip()
        if got != want:
            raise ToolError("git am of %s did not reproduce the change" % output)
    say("wrote %s (gh-%d; checked with git am on pristine %s)" % (output, issue, VERSION))
    print(output)
    return 0


# --- apply / all --------------------------------------------------------------

def cmd_apply(args):
    """Apply the change to --tree."""
    conflicts = apply_change(args.tree, args.repo, issue=args.issue,
                             cache=cache_dir(args.cache))
    return 1 if conflicts else 0


def cmd_all(args):
    """fetch, build stock and patched, test, docs, patch; stop at the first failure."""
    steps = [
        ("fetch", cmd_fetch),
        ("build stock", lambda a: build_one("stock", a)),
        ("build patched", lambda a: build_one("patched", a)),
        ("test", cmd_test),
        ("docs", cmd_docs),
        ("patch", cmd_patch),
    ]
    args.output = None
    args.author = None
    results = []
    failed = None
    # Every step works on one copy of the change files, so an edit made while
    # this runs cannot leave the steps proving different versions.
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as snapshot:
        copy_change(Path(args.repo).resolve(), snapshot)
        args.change = snapshot
        for name, step in steps:
            started = time.monotonic()
            say("=== %s ===" % name)
            try:
                code = step(args)
            except ToolError as error:
                print("error: %s" % error, file=sys.stderr, flush=True)
                code = 1
            results.append((name, code, time.monotonic() - started))
            if code:
                failed = name
                break
    print("\nsummary:")
    for name, code, seconds in results:
        print("  %-14s %-6s %6.0f s" % (name, "ok" if code == 0 else "FAILED", seconds))
    for name, _ in steps[len(results):]:
        print("  %-14s %-6s" % (name, "not run"))
    return 1 if failed else 0


# --- Command line ---------------------------------------------------------------

def make_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--repo", default=str(DEFAULT_REPO),
                        help="the project checkout holding Lib/, Doc/, Misc/ "
                             "(default: the one this tool is in)")
    common.add_argument("--cache", default=None,
                        help="cache directory (default: $ENUM_FROM_VALUE_CACHE or "
                             "~/.cache/enum-from-value)")
    jobs = argparse.ArgumentParser(add_help=False)
    jobs.add_argument("--jobs", "-j", type=int, default=2,
                      help="parallel jobs for make, regrtest and Sphinx (default 2)")
    fetch = argparse.ArgumentParser(add_help=False)
    fetch.add_argument("--tarball", metavar="PATH",
                       help="a local copy of Python-%s.tar.xz" % VERSION)
    fetch.add_argument("--apt-source", action="store_true",
                       help="Debian: add a deb-src entry for %s if missing, then "
                            "`apt-get source --download-only %s` (needs root)"
                            % (DEB_SUITE, DEB_SOURCE_PACKAGE))
    issue = argparse.ArgumentParser(add_help=False)
    issue.add_argument("--issue", type=int, metavar="N",
                       help="CPython gh issue number; the NEWS entry is renamed to gh-issue-N")

    parser = argparse.ArgumentParser(
        prog="cpython_change.py",
        description="Apply this project's CPython diffs (Lib/, Doc/, Misc/) to a CPython "
                    "tree, build stock and patched CPython %s, test them, check the docs "
                    "and write a git-am patch." % VERSION,
        epilog="Typical use: `cpython_change.py all --apt-source` (Debian) or "
               "`cpython_change.py all --tarball Python-%s.tar.xz`; "
               "`cpython_change.py apply --tree ~/cpython` for a CPython checkout." % VERSION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("fetch", parents=[common, fetch], help=cmd_fetch.__doc__,
                       description=cmd_fetch.__doc__ + " Does nothing if it is cached.")
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("apply", parents=[common, issue], help=cmd_apply.__doc__,
                       description=apply_change.__doc__.split("\n\n")[0] + " A plain tree "
                       "gets every diff or none; a git checkout falls back to "
                       "`git apply --3way`. The whatsnew entry goes into the tree's newest "
                       "Doc/whatsnew/3.N.rst, enum subsection of Improved modules.")
    p.add_argument("--tree", required=True, help="the CPython source tree to change")
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("build", parents=[common, jobs], help=cmd_build.__doc__,
                       description="Build CPython %s from the cached tarball with "
                                   "./configure %s, make, make altinstall; reuse a "
                                   "finished build whose inputs match."
                                   % (VERSION, " ".join(CONFIGURE_FLAGS)))
    p.add_argument("--stock", action="store_true", help="build the stock tree")
    p.add_argument("--patched", action="store_true", help="build the patched tree")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("test", parents=[common, jobs], help=cmd_test.__doc__,
                       description=cmd_test.__doc__ + " Suites: " + " ".join(STDLIB_TESTS)
                       + "; then tests/test_behaviour*.py with the patched interpreter "
                       "and no enum_backport.")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("docs", parents=[common, jobs], help=cmd_docs.__doc__,
                       description=cmd_docs.__doc__ + " Needs PyPI for the Sphinx venvs.")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("patch", parents=[common, issue], help=cmd_patch.__doc__,
                       description=cmd_patch.__doc__ + " Without --issue, the number in "
                       "the NEWS entry's name is used.")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write it (default: CACHE/patches/gh-N.patch)")
    p.add_argument("--author", metavar="'NAME <EMAIL>'",
                   help="patch author (default: git config user.name/user.email)")
    p.set_defaults(func=cmd_patch)

    p = sub.add_parser("all", parents=[common, jobs, fetch, issue], help=cmd_all.__doc__,
                       description=cmd_all.__doc__)
    p.set_defaults(func=cmd_all)
    return parser


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except ToolError as error:
        print("error: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
