"""Tests of tools/cpython_change.py and its stages (tools/cpython/) that need no build.

They run the stages on small fake trees and bases made here: an exact apply
and its refusals (nothing changes, the file and git's reason are named), the
3-way merge onto a newer base and its conflicts (named by line), whatsnew
placement with and without an enum subsection, the NEWS rename, the git-am
patch and its `git am -3` check, and the repository's own change files.
"""

import difflib
import hashlib
import io
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from unittest import mock
from pathlib import Path

import _layout

_layout.require('tools/cpython_change.py')

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import cpython_change, debian_root  # noqa: E402
from tools.cpython import apply, base, build, change, docs, obtain, patch, test, texts, util  # noqa: E402
from tools.cpython import typeshed, whatsnew  # noqa: E402
from test_typing import SMALL_STUB  # noqa: E402
from tools.cpython.util import ToolError, cache_dir, run_live, sha256_file, side_by_side  # noqa: E402

WHATSNEW = """\
****************
  What's New 3.X
****************

Summary
=======

Some words.


Improved Modules
================

dis
---

* A dis change.


enum
----

* An earlier enum change.


fractions
---------

* A fractions change.


Optimizations
=============

* Faster things.
"""

# The shape of main's 3.16.rst: subsections not quite in order, no enum.
MAIN_LAYOUT = """\
Improved modules
================

asyncio
-------

* One.


codecs
------

* Two.

csv
---

* Three.

curses
------

* Four.


ctypes
------

* Five.


concurrent.futures
------------------

* Six.


encodings
---------

* Seven.


gzip
----

* Eight.

io
--

* Nine.


Optimizations
=============
"""

ENTRY = """\
* Add :meth:`EnumType.from_value() <enum.EnumType.from_value>`
  and a second line.
"""

NOTE = """\
* ``value in EnumCls`` now finds a value by its hash
  (:gh:`4242`).
"""

# 3.13.rst's shape: a porting section with both API subsections, and a
# C API section further on with a "Porting" subsection of its own.
WITH_PORTING = WHATSNEW.replace("Optimizations\n=============\n", """\
Porting to Python 3.X
=====================

Some words.

Changes in the Python API
-------------------------

* A Python change,
  on two lines.


Changes in the C API
--------------------

* A C change.


Optimizations
=============
""") + """

C API changes
=============

Porting to Python 3.X
---------------------

* TODO
"""

# main's 3.16.rst: a porting section of only its introduction.
BARE_PORTING = WITH_PORTING[:WITH_PORTING.index("Changes in the Python API")].rstrip("\n") + (
    "\n\n\n" + WITH_PORTING[WITH_PORTING.index("Optimizations"):])


def with_note(text, note=NOTE):
    anchor = "  on two lines.\n"
    return text.replace(anchor, anchor + "\n" + note)


NEWS_NAME = "2025-01-02-03-04-05.gh-issue-4242.fix.rst"
NEWS_PATH = "Misc/NEWS.d/next/Library/" + NEWS_NAME
UNHASHABLE_NEWS_PATH = ("Misc/NEWS.d/next/Library/"
                        "2025-01-02-03-04-09.gh-issue-4545.unhashable.rst")
MISSING_NEWS_PATH = "Misc/NEWS.d/next/Library/2025-01-02-03-04-10.gh-issue-4646.missing.rst"
FEATURE_NEWS_PATH = "Misc/NEWS.d/next/Library/2025-01-02-03-04-06.gh-issue-4343.feature.rst"
FLAG_NEWS_PATH = "Misc/NEWS.d/next/Library/2025-01-02-03-04-08.gh-issue-4444.flag.rst"
# Each PR's NEWS entry: its path and text, in the order the PRs apply.
NEWS = {"fix": (NEWS_PATH, "Fix a thing.\n"),
        "unhashable": (UNHASHABLE_NEWS_PATH, "Find an unhashable thing.\n"),
        "missing": (MISSING_NEWS_PATH, "Miss a thing no more.\n"),
        "feature": (FEATURE_NEWS_PATH, "Add a thing.\n"),
        "flag": (FLAG_NEWS_PATH, "Flag a thing.\n")}
# The stand-in numbers the fixture's NEWS entries are named for.
STANDINS = {"fix": 4242, "unhashable": 4545, "missing": 4646, "feature": 4343, "flag": 4444}
# Real-looking numbers for every PR, in change.PRS' order.
ISSUES = {"fix": 140001, "unhashable": 140002, "missing": 140003, "feature": 140004,
          "flag": 140005}
# Every prefix of the PRs: what the series is made from (cpython_change.PREFIXES).
PREFIXES = tuple(change.PRS[:n] for n in range(1, len(change.PRS) + 1))

# The line each PR adds to the fake Lib/enum.py, after which of 3.13.5's
# lines, in the order the PRs apply.  The two bug fixes between the fix and
# the feature sit far from the others' lines (and from line 15, which the
# fake 3.15 rewrites), so that every 3-way merge of them is clean; each
# names its stand-in issue, as the repository's tests' comments do.
ADDS = (("fix", 5, "added code"),
        ("unhashable", 22, "unhashable code  # gh-4545"),
        ("missing", 30, "missing code  # gh-4646"),
        ("feature", 10, "feature code"),
        ("flag", 12, "flag code"))


def added(text, prs):
    """TEXT (a version of the fake enum.py) with the lines of PRS added."""
    for pr, after, line in ADDS:
        if pr in prs:
            # after the line, as 3.13.5 has it or as a newer base rewrote it
            text = re.sub(r"^(code line %d\b[^\n]*\n)" % after,
                          lambda match: match.group(1) + line + "\n", text, count=1, flags=re.M)
    return text


def real_numbers(text, issues=ISSUES, prs=change.PRS):
    """TEXT with the "gh-N" of each of PRS' stand-ins naming its real issue."""
    for pr in prs:
        text = text.replace("gh-%d" % STANDINS[pr], "gh-%d" % issues[pr])
    return text

# The flag PR's whatsnew entry, carried as the repository carries its own:
# a hunk with no context (it says what to add; whatsnew.place says where).
FLAG_ENTRY = """\
* ``value in FlagCls`` makes no pseudo-member
  (Contributed by {author_name} in :gh:`4444`.)
"""


def numbered(prefix, count):
    return "".join("%s line %d\n" % (prefix, n) for n in range(1, count + 1))


def make_diff(path, old, new):
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        "a/" + path, "b/" + path))


def without_enum_subsection(text):
    start = text.index("enum\n----\n")
    return text[:start] + text[text.index("fractions\n---"):]


def with_entry(text, entry=ENTRY):
    anchor = "* An earlier enum change.\n"
    return text.replace(anchor, anchor + "\n" + entry)


def with_entries(text, feature_entry=ENTRY):
    """TEXT with the feature's entry, then the flag PR's, in its enum subsection
    (the order the PRs apply in)."""
    return with_entry(text, feature_entry + "\n" + FLAG_ENTRY)


def write(root, path, text):
    target = Path(root) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in Path(root).rglob("*") if p.is_file() and ".git" not in p.parts}


def git(tree, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    # The tool's own wrapper: nobody's configuration, no automatic maintenance.
    return util.git(*args, cwd=str(tree), env=env).stdout


class FakeBase:
    """A base whose files are given: `read` as SourceBase and DebianBase do."""

    GIT_TAG = "v3.13.5"

    def __init__(self, version, files):
        self.version = self.name = version
        self.files = {p: t.encode() for p, t in files.items()}

    def read(self, paths):
        missing = [p for p in paths if p not in self.files]
        if missing:
            raise ToolError("not here: " + ", ".join(missing))
        return {p: self.files[p] for p in paths}


class Fixture(unittest.TestCase):
    """A fake 3.13.5 tree, and a fake project holding the five PRs' diffs against it.

    Each PR adds a line to Lib/enum.py on top of the PRs before it (ADDS):
    the fix after line 5, the unhashable PR after line 22, the missing PR
    after line 30 (each of those two naming its stand-in issue, gh-N), the
    feature after line 10, the flag PR after line 12.  The feature and the
    flag PR each carry a whatsnew entry (the flag PR's has no context, as
    the repository's carriers); the feature changes the docs too; each PR
    has a NEWS entry with a stand-in number of its own (STANDINS).
    """

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cpython-change-test-"))
        self.addCleanup(shutil.rmtree, str(self.tmp))
        self.tree, self.repo = self.tmp / "cpython", self.tmp / "project"
        self.py_old = numbered("code", 40)
        self.py_fix = added(self.py_old, change.FIX)
        self.py_unhashable = added(self.py_old, change.PRS[:2])
        self.py_missing = added(self.py_old, change.BACKPORTS)
        self.py_feature = added(self.py_old, change.FEATURE)
        self.py_new = added(self.py_old, change.ALL)
        self.rst_old = numbered("doc", 40)
        self.rst_new = (self.rst_old.replace("doc line 3\n", "doc line 3 changed\n")
                        .replace("doc line 30\n", "doc line 30\nadded doc\n"))
        self.stock = {"Lib/enum.py": self.py_old, "Doc/library/enum.rst": self.rst_old,
                      "Doc/whatsnew/3.13.rst": WHATSNEW}
        for path, text in self.stock.items():
            write(self.tree, path, text)
        versions = [self.py_old, self.py_fix, self.py_unhashable, self.py_missing,
                    self.py_feature, self.py_new]
        for n, pr in enumerate(change.PRS):
            write(self.repo, "Lib/enum.py.%s.diff" % pr,
                  make_diff("Lib/enum.py", versions[n], versions[n + 1]))
        write(self.repo, "Doc/library/enum.rst.feature.diff",
              make_diff("Doc/library/enum.rst", self.rst_old, self.rst_new))
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
        write(self.repo, "Doc/whatsnew/3.13.rst.flag.diff",
              make_diff("Doc/whatsnew/3.13.rst", "", FLAG_ENTRY))
        for path, text in NEWS.values():
            write(self.repo, path, text)
        self.source = FakeBase("3.13.5", self.stock)

    def read(self, path):
        return (self.tree / path).read_text()

    def apply(self, prs=change.ALL, **kwargs):
        return apply.apply_change(self.tree, change.collect(self.repo, prs), self.source,
                                  out=io.StringIO(), **kwargs)

    def refused(self, **kwargs):
        before = snapshot(self.tree)
        with self.assertRaises(ToolError) as caught:
            self.apply(**kwargs)
        self.assertEqual(snapshot(self.tree), before)
        self.assertIn("nothing was changed", str(caught.exception))
        return str(caught.exception)


class ExactApplyTests(Fixture):
    """Onto 3.13.5 every diff applies exactly, or nothing is changed."""

    def assert_news(self, prs):
        """The NEWS entries of PRS are in the tree as the repository has them, no others."""
        for pr, (path, text) in NEWS.items():
            with self.subTest(news=pr):
                if pr in prs:
                    self.assertEqual(self.read(path), text)
                else:
                    self.assertFalse((self.tree / path).exists())

    def test_clean_apply_changes_every_file(self):
        self.apply(exact_only=True)
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)
        self.assertIn("unhashable code  # gh-4545\n", self.py_new)  # no number given
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entries(WHATSNEW))
        self.assert_news(change.ALL)

    def test_fix_alone_changes_only_the_fixs_files(self):
        self.apply(prs=change.FIX, exact_only=True)
        self.assertEqual(self.read("Lib/enum.py"), self.py_fix)
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_old)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        self.assert_news(change.FIX)

    def test_the_backports_change_only_their_files(self):
        self.apply(prs=change.BACKPORTS, exact_only=True)
        self.assertEqual(self.read("Lib/enum.py"), self.py_missing)
        self.assertNotIn("feature code", self.py_missing)
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_old)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        self.assert_news(change.BACKPORTS)

    def test_up_to_the_feature_changes_all_but_the_flag_prs_files(self):
        self.apply(prs=change.FEATURE, exact_only=True)
        self.assertEqual(self.read("Lib/enum.py"), self.py_feature)
        self.assertNotIn("flag code", self.py_feature)
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entry(WHATSNEW))
        self.assert_news(change.FEATURE)

    def test_each_diff_goes_onto_the_file_with_the_prs_before_it(self):
        # Each PR's diff is made against 3.13.5 with the PRs before it: made
        # against a file without one of those, its hunk is a line off (or
        # its context differs), which is not exact.
        cases = [("unhashable", self.py_old), ("missing", self.py_fix),
                 ("feature", self.py_old), ("flag", self.py_missing), ("flag", self.py_old)]
        for pr, under in cases:
            with self.subTest(pr=pr, under=under.count("\n")):
                self.setUp()
                write(self.repo, "Lib/enum.py.%s.diff" % pr,
                      make_diff("Lib/enum.py", under, added(under, (pr,))))
                message = self.refused(exact_only=True)
                self.assertIn("Lib/enum.py: does not apply exactly", message)
                self.assertRegex(message, r"offset 1 line|patch does not apply")

    def test_changed_context_is_refused_and_named(self):
        write(self.tree, "Doc/library/enum.rst",
              self.rst_old.replace("doc line 31\n", "doc line 31 edited upstream\n"))
        message = self.refused(exact_only=True)
        self.assertIn("Doc/library/enum.rst: does not apply exactly", message)
        self.assertIn("patch failed: Doc/library/enum.rst:", message)
        self.assertNotIn("Lib/enum.py", message)

    def test_a_hunk_at_another_line_is_not_exact(self):
        write(self.tree, "Lib/enum.py", "moved\n" * 3 + self.py_old)
        message = self.refused(exact_only=True)
        self.assertIn("Lib/enum.py: does not apply exactly", message)
        self.assertIn("offset 3 lines", message)

    def test_second_apply_is_refused(self):
        self.apply(exact_only=True)
        message = self.refused()
        self.assertIn(NEWS_PATH + ": already exists", message)
        self.assertIn("already holds the whatsnew entry", message)

    def test_missing_target_file(self):
        (self.tree / "Lib/enum.py").unlink()
        self.assertIn("Lib/enum.py: not in the tree", self.refused())

    def test_diff_header_must_name_its_own_path(self):
        write(self.repo, "Lib/enum.py.fix.diff",
              make_diff("Lib/other.py", self.py_old, self.py_fix))
        with self.assertRaises(ToolError) as caught:
            change.collect(self.repo)
        self.assertIn("enum.py.fix.diff: its header names Lib/other.py", str(caught.exception))

    def test_malformed_diff_is_an_error(self):
        write(self.repo, "Lib/enum.py.fix.diff", "--- a/Lib/enum.py\n+++ b/Lib/enum.py\n@@ junk\n")
        with self.assertRaises(ToolError):
            change.collect(self.repo)

    def test_issue_renames_the_news_entry(self):
        self.apply(issues={"fix": 98765})
        nonce = change.blurb_nonce("Fix a thing.\n")
        self.assertRegex(nonce, r"^[A-Za-z0-9_-]{6}$")
        renamed = "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-98765.%s.rst" % nonce
        self.assertEqual(self.read(renamed), "Fix a thing.\n")
        self.assertFalse((self.tree / NEWS_PATH).exists())
        for pr in change.PRS[1:]:
            self.assertTrue((self.tree / NEWS[pr][0]).exists(), pr)  # no number given
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)  # nor for the gh-N there

    def test_issues_rename_the_stand_ins_a_lib_diff_names(self):
        # The unhashable and missing PRs' lines name their stand-ins as
        # gh-N (as the repository's tests' comments do): each follows its
        # PR's real number, and only that PR's.
        self.apply(issues=ISSUES)
        text = self.read("Lib/enum.py")
        self.assertEqual(text, real_numbers(self.py_new))
        self.assertIn("unhashable code  # gh-140002\n", text)
        self.assertIn("missing code  # gh-140003\n", text)
        self.assertNotIn("4545", text)
        self.assertNotIn("4646", text)
        for pr, (path, body) in NEWS.items():
            renamed = change.news_path_for_issue(path, ISSUES[pr], change.blurb_nonce(body))
            self.assertEqual(self.read(renamed), body)

    def test_a_stand_in_of_a_pr_without_its_number_is_left(self):
        self.apply(prs=change.BACKPORTS, issues={"missing": 140003})
        text = self.read("Lib/enum.py")
        self.assertIn("unhashable code  # gh-4545\n", text)
        self.assertIn("missing code  # gh-140003\n", text)
        self.assertEqual(text, real_numbers(self.py_missing, prs=("missing",)))

    def test_issue_for_a_pr_not_applied_is_refused(self):
        for n, prs in enumerate(PREFIXES[:-1]):
            for pr in change.PRS[n + 1:]:
                with self.subTest(pr=pr, prs=prs):
                    self.assertIn("an issue number for the %s PR" % pr,
                                  self.refused(prs=prs, issues={pr: 98765}))

    def test_issue_renumbers_the_whatsnew_entry(self):
        # Each entry names its PR's stand-in issue; the PR's number moves both.
        numbered_entry = ENTRY.replace("a second line.", "a line (:gh:`4343`).")
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW, numbered_entry)))
        self.apply(issues={"fix": 98764, "unhashable": 98767, "missing": 98768,
                           "feature": 98765, "flag": 98766})
        text = self.read("Doc/whatsnew/3.13.rst")
        self.assertIn("a line (:gh:`98765`).", text)
        self.assertIn("in :gh:`98766`.)", text)
        self.assertNotIn("4343", text)
        self.assertNotIn("4444", text)

    def test_whatsnew_goes_to_the_newest_file(self):
        newest = without_enum_subsection(WHATSNEW)
        write(self.tree, "Doc/whatsnew/3.15.rst", newest)
        write(self.tree, "Doc/whatsnew/3.9.rst", WHATSNEW)  # 9 > 15 as text only
        self.apply()
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.9.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.15.rst"),
                         whatsnew.insert(whatsnew.insert(newest, ENTRY), FLAG_ENTRY))
        self.assertIn("enum\n----\n\n" + ENTRY + "\n" + FLAG_ENTRY,
                      self.read("Doc/whatsnew/3.15.rst"))

    def test_author_fills_every_entrys_credit(self):
        credited = ENTRY.replace("a second line.", "a line by {author_name}.")
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", "", credited))
        self.apply(author_name="Ada Lovelace")
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entries(
            WHATSNEW, credited).replace("{author_name}", "Ada Lovelace"))

    def test_a_carrier_of_two_blocks_places_the_porting_note_too(self):
        write(self.tree, "Doc/whatsnew/3.13.rst", WITH_PORTING)
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WITH_PORTING,
                        with_note(with_entry(WITH_PORTING))))
        self.source = FakeBase("3.13.5", dict(self.stock,
                                              **{"Doc/whatsnew/3.13.rst": WITH_PORTING}))
        report = self.apply(exact_only=True, issues={"fix": 98764, "unhashable": 98767,
                                                     "missing": 98768, "flag": 98766,
                                                     "feature": 98765})
        self.assertIn("porting note", "\n".join(report))
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_note(
            with_entries(WITH_PORTING).replace("4444", "98766"), NOTE.replace("4242", "98764")))

    def test_a_carrier_without_context_is_placed_in_a_file_the_tree_lacks_the_name_of(self):
        # The repository's carriers are for main's newest file, which no
        # base here has, and have no context: what to add, not where.
        two_hunks = (make_diff("Doc/whatsnew/3.16.rst", "", ENTRY)
                     + make_diff("Doc/whatsnew/3.16.rst", "", NOTE).split("\n", 2)[2])
        (self.repo / "Doc/whatsnew/3.13.rst.feature.diff").unlink()
        write(self.repo, "Doc/whatsnew/3.16.rst.feature.diff", two_hunks)
        (self.repo / "Doc/whatsnew/3.13.rst.flag.diff").unlink()
        write(self.repo, "Doc/whatsnew/3.16.rst.flag.diff",
              make_diff("Doc/whatsnew/3.16.rst", "", FLAG_ENTRY))
        write(self.tree, "Doc/whatsnew/3.13.rst", WITH_PORTING)
        self.source = FakeBase("3.13.5", dict(self.stock,
                                              **{"Doc/whatsnew/3.13.rst": WITH_PORTING}))
        report = "\n".join(self.apply(exact_only=True))
        # both carriers name main's 3.16.rst, as the repository's do: one
        # file's entries, placed in the order the PRs apply
        self.assertIn("whatsnew entry (feature+flag) -> Doc/whatsnew/3.13.rst", report)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"),
                         with_note(with_entries(WITH_PORTING)))
        self.assertFalse((self.tree / "Doc/whatsnew/3.16.rst").exists())

    def test_porting_note_elsewhere_in_its_own_file_goes_where_the_tool_places_it(self):
        # A carrier says what to add; where it goes is whatsnew.place's
        # decision, even in the file the carrier's context comes from.
        write(self.tree, "Doc/whatsnew/3.13.rst", WITH_PORTING)
        first = WITH_PORTING.replace("-------\n\n* A Python change,",
                                     "-------\n\n" + NOTE + "\n* A Python change,")
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WITH_PORTING, with_entry(first)))
        self.apply(exact_only=True)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"),
                         with_note(with_entries(WITH_PORTING)))

    def test_no_porting_section_for_the_note_is_refused(self):
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WITH_PORTING,
                        with_note(with_entry(WITH_PORTING))))
        write(self.tree, "Doc/whatsnew/3.15.rst", WHATSNEW)  # newest, no porting section
        self.assertIn('3.15.rst: no "Porting to Python X.Y" section', self.refused())

    def test_whatsnew_entry_goes_where_the_tool_places_it_not_where_the_diff_says(self):
        # The diff puts the entry first in the subsection; the tool puts it last.
        first = WHATSNEW.replace("enum\n----\n\n", "enum\n----\n\n" + ENTRY + "\n")
        write(self.repo, "Doc/whatsnew/3.13.rst.feature.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, first))
        self.apply(exact_only=True)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entries(WHATSNEW))

    def test_a_carrier_that_removes_lines_is_refused(self):
        write(self.repo, "Doc/whatsnew/3.13.rst.flag.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW,
                        with_entry(WHATSNEW.replace("* A dis change.\n", ""), FLAG_ENTRY)))
        self.assertIn("3.13.rst.flag.diff: must be one or two hunks", self.refused())


class ApplyCommandTests(Fixture):
    """`apply --tree`: all five PRs, --up-to or --backports-only; NEWS entries renamed on request."""

    def main(self, *args):
        err, saved = io.StringIO(), sys.stderr
        out, saved_out = io.StringIO(), sys.stdout
        sys.stderr, sys.stdout = err, out
        try:
            code = cpython_change.main(["apply", "--tree", str(self.tree), "--repo",
                                        str(self.repo), "--cache", str(self.tmp / "cache")]
                                       + list(args))
        finally:
            sys.stderr, sys.stdout = saved, saved_out
        self.said = out.getvalue()
        return code, err.getvalue()

    def news_names(self):
        return sorted(p.name for p in (self.tree / "Misc/NEWS.d/next/Library").iterdir())

    def test_up_to_the_fix_with_its_issue(self):
        code, err = self.main("--up-to", "fix", "--fix-issue", "140001")
        self.assertEqual(code, 0, err)
        self.assertEqual(self.read("Lib/enum.py"), self.py_fix)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        news = self.news_names()
        self.assertEqual(len(news), 1, news)
        self.assertRegex(news[0], r"^2025-01-02-03-04-05\.gh-issue-140001\.[A-Za-z0-9_-]{6}\.rst$")

    def test_backports_only_with_their_issues(self):
        code, err = self.main("--backports-only", "--fix-issue", "140001",
                              "--unhashable-issue", "140002", "--missing-issue", "140003")
        self.assertEqual(code, 0, err)
        self.assertNotIn("no --author", self.said)  # no whatsnew entry to credit
        self.assertEqual(self.read("Lib/enum.py"), real_numbers(self.py_missing))
        self.assertIn("missing code  # gh-140003\n", self.read("Lib/enum.py"))
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_old)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        news = self.news_names()
        self.assertEqual(len(news), 3, news)
        self.assertRegex(news[0], r"^2025-01-02-03-04-05\.gh-issue-140001\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertRegex(news[1], r"^2025-01-02-03-04-09\.gh-issue-140002\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertRegex(news[2], r"^2025-01-02-03-04-10\.gh-issue-140003\.[A-Za-z0-9_-]{6}\.rst$")

    def test_all_five_prs_by_default(self):
        self.assertEqual(self.main("--author", "Ada Lovelace <ada@python.org>"), (0, ""))
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)
        for path, text in NEWS.values():
            self.assertEqual(self.read(path), text)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entries(WHATSNEW).replace(
            "{author_name}", "Ada Lovelace"))

    def test_all_five_with_their_issues(self):
        args = [a for pr in change.PRS for a in ("--%s-issue" % pr, str(ISSUES[pr]))]
        self.assertEqual(self.main(*args + ["--author", "Ada Lovelace <ada@python.org>"]),
                         (0, ""))
        self.assertEqual(self.read("Lib/enum.py"), real_numbers(self.py_new))
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entries(WHATSNEW).replace(
            "{author_name}", "Ada Lovelace").replace("4444", "140005"))
        self.assertEqual(self.news_names(), sorted(
            change.news_path_for_issue(path, ISSUES[pr], change.blurb_nonce(body))
            .rsplit("/", 1)[1] for pr, (path, body) in NEWS.items()))

    def test_up_to_the_feature_with_its_issues(self):
        code, err = self.main("--up-to", "feature", "--fix-issue", "140001",
                              "--unhashable-issue", "140002", "--missing-issue", "140003",
                              "--feature-issue", "140004")
        self.assertEqual(code, 0, err)
        self.assertIn("no --author", self.said)  # the whatsnew entries have a credit
        self.assertEqual(self.read("Lib/enum.py"), real_numbers(self.py_feature))
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entry(WHATSNEW, ENTRY))
        news = self.news_names()
        self.assertEqual(len(news), 4, news)
        self.assertRegex(news[0], r"^2025-01-02-03-04-05\.gh-issue-140001\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertRegex(news[1], r"^2025-01-02-03-04-06\.gh-issue-140004\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertRegex(news[2], r"^2025-01-02-03-04-09\.gh-issue-140002\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertRegex(news[3], r"^2025-01-02-03-04-10\.gh-issue-140003\.[A-Za-z0-9_-]{6}\.rst$")

    def test_the_flag_prs_entry_follows_its_issue(self):
        code, err = self.main("--flag-issue", "140005")
        self.assertEqual(code, 0, err)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"),
                         with_entries(WHATSNEW).replace("4444", "140005"))
        self.assertRegex(" ".join(self.news_names()),
                         r"2025-01-02-03-04-08\.gh-issue-140005\.[A-Za-z0-9_-]{6}\.rst")

    def test_a_stand_in_number_is_refused_and_nothing_changes(self):
        before = snapshot(self.tree)
        for pr in change.PRS:
            with self.subTest(pr):
                code, err = self.main("--%s-issue" % pr, str(STANDINS[pr]))
                self.assertEqual(code, 1)
                self.assertIn("--%s-issue %d is this repository's stand-in number"
                              % (pr, STANDINS[pr]), err)
                self.assertEqual(snapshot(self.tree), before)


class CollectTests(Fixture):
    """The five PRs' files, told apart by their names."""

    def test_each_file_knows_its_pr_and_a_paths_diffs_come_in_order(self):
        files = change.collect(self.repo)
        self.assertEqual([(f.path, f.pr) for f in files if f.path == "Lib/enum.py"],
                         [("Lib/enum.py", "fix"), ("Lib/enum.py", "unhashable"),
                          ("Lib/enum.py", "missing"), ("Lib/enum.py", "feature"),
                          ("Lib/enum.py", "flag")])
        self.assertEqual({f.pr for f in change.collect(self.repo, change.FIX)}, {"fix"})
        self.assertEqual({f.pr for f in change.collect(self.repo, change.BACKPORTS)},
                         {"fix", "unhashable", "missing"})
        self.assertEqual({f.pr for f in change.collect(self.repo, change.FEATURE)},
                         {"fix", "unhashable", "missing", "feature"})
        self.assertEqual(change.standin_issues(files), STANDINS)

    def test_the_pr_sets(self):
        self.assertEqual(change.PRS, ("fix", "unhashable", "missing", "feature", "flag"))
        self.assertEqual((change.FIX, change.BACKPORTS, change.FEATURE, change.ALL),
                         (PREFIXES[0], PREFIXES[2], PREFIXES[3], PREFIXES[4]))
        self.assertEqual([change.label(prs) for prs in (change.FIX, change.BACKPORTS)],
                         ["fix", "fix+unhashable+missing"])
        for pr in change.PRS:
            with self.subTest(pr):
                match = change.DIFF_NAME_RE.match("Lib/enum.py.%s.3.15.diff" % pr)
                self.assertEqual((match.group("path"), match.group("pr"), match.group("onto")),
                                 ("Lib/enum.py", pr, "3.15"))

    def test_a_diff_without_its_pr_is_refused(self):
        write(self.repo, "Lib/other.py.diff", make_diff("Lib/other.py", "a\n", "b\n"))
        with self.assertRaises(ToolError) as caught:
            change.collect(self.repo)
        self.assertIn("Lib/other.py.diff: a diff must say its PR: Lib/other.py.PR.diff, PR one "
                      "of fix, unhashable, missing, feature, flag", str(caught.exception))

    def test_a_new_file_that_is_not_a_pr_s_news_entry_is_refused(self):
        for path in ("Lib/new_module.py",
                     "Misc/NEWS.d/next/Library/2025-01-02-03-04-07.gh-issue-1.AbCdEf.rst"):
            with self.subTest(path):
                write(self.repo, path, "x\n")
                with self.assertRaises(ToolError) as caught:
                    change.collect(self.repo)
                self.assertIn(path + ": a new file must be a NEWS entry whose blurb nonce "
                              "names its PR", str(caught.exception))
                (self.repo / path).unlink()

    def test_an_unknown_pr_is_refused(self):
        with self.assertRaises(ToolError):
            change.collect(self.repo, ("bugfix",))

    def test_a_pr_set_that_skips_a_pr_before_it_is_refused(self):
        for prs in (("unhashable",), ("flag",), ("feature",), ("fix", "missing"),
                    ("fix", "feature"), ("fix", "unhashable", "feature"),
                    ("fix", "unhashable", "missing", "flag"), ("unhashable", "missing")):
            with self.subTest(prs=prs), self.assertRaises(ToolError) as caught:
                change.collect(self.repo, prs)
            self.assertIn("no such PR set", str(caught.exception))

    def test_name_issues_names_each_stand_in_for_its_own_pr_only(self):
        data = (b"gh-4545 (gh-45450, gh-45451) :gh:`4545` gh-4646 :gh:`4646`\n"
                b"# gh-4242; gh-4545.\n")
        self.assertEqual(
            change.name_issues(data, STANDINS, {"unhashable": 140002, "missing": 140003}),
            b"gh-140002 (gh-45450, gh-45451) :gh:`140002` gh-140003 :gh:`140003`\n"
            b"# gh-4242; gh-140002.\n")
        self.assertEqual(change.name_issues(data, STANDINS, {}), data)
        self.assertEqual(change.name_issues(data, STANDINS, {"unhashable": 4545}), data)


class ThreeWayTests(Fixture):
    """Onto a newer tree a diff that does not apply exactly is merged, base 3.13.5."""

    def test_moved_context_is_merged(self):
        moved = self.rst_old.replace("doc line 29\n", "doc line 29 edited upstream\n")
        write(self.tree, "Doc/library/enum.rst", moved)
        self.apply()
        self.assertEqual(self.read("Doc/library/enum.rst"),
                         self.rst_new.replace("doc line 29\n", "doc line 29 edited upstream\n"))
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)

    def test_conflict_changes_nothing_and_names_the_lines(self):
        write(self.tree, "Doc/library/enum.rst",
              self.rst_old.replace("doc line 30\n", "doc line 30 edited\n"))
        message = self.refused()
        self.assertIn("Doc/library/enum.rst: conflict at lines 30-30 of the tree's "
                      "Doc/library/enum.rst", message)
        self.assertIn("||||||| 3.13.5 Doc/library/enum.rst\ndoc line 30\n", message)

    def test_base_from_the_checkouts_tag_without_a_tarball(self):
        git(self.tree, "init", "-q")
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "3.13.5")
        git(self.tree, "tag", "v3.13.5")
        moved = self.py_old.replace("code line 4\n", "code line 4 on main\n")
        write(self.tree, "Lib/enum.py", moved)
        git(self.tree, "commit", "-q", "-am", "main moves on")
        self.source = FakeBase("3.13.5", {})  # no tarball: only the tag has the base
        self.apply()
        self.assertEqual(self.read("Lib/enum.py"),
                         self.py_new.replace("code line 4\n", "code line 4 on main\n"))

    def test_no_base_available_is_an_error(self):
        write(self.tree, "Lib/enum.py", self.py_old.replace("code line 4\n", "moved\n"))
        self.source = FakeBase("3.13.5", {})
        self.assertIn("a 3-way merge needs the 3.13.5 version of Lib/enum.py", self.refused())


class CarryTests(Fixture):
    """The Lib diffs carried onto a newer base's files."""

    def carry(self, newer_text):
        newer = FakeBase("3.15.2", {"Lib/enum.py": newer_text})
        return apply.carry(change.collect(self.repo), newer, self.source, self.tmp / "out",
                           out=io.StringIO())

    def test_merge_keeps_both_sides(self):
        newer = self.py_old.replace("code line 15\n", "code line 15 in 3.15\n")
        merged = self.carry(newer)
        self.assertEqual(list(merged), ["Lib/enum.py"])  # Lib only
        self.assertEqual(merged["Lib/enum.py"].read_text(),
                         self.py_new.replace("code line 15\n", "code line 15 in 3.15\n"))

    def test_each_pr_set_is_carried_alone(self):
        newer = FakeBase("3.15.2", {"Lib/enum.py": self.py_old.replace(
            "code line 15\n", "code line 15 in 3.15\n")})
        for prs, text in ((change.FIX, self.py_fix), (PREFIXES[1], self.py_unhashable),
                          (change.BACKPORTS, self.py_missing),
                          (change.FEATURE, self.py_feature)):
            with self.subTest(prs=prs):
                label = change.label(prs)
                merged = apply.carry(change.collect(self.repo, prs), newer, self.source,
                                     self.tmp / label, out=io.StringIO())
                self.assertEqual(merged["Lib/enum.py"].read_text(),
                                 text.replace("code line 15\n", "code line 15 in 3.15\n"))

    def test_conflict_is_named_by_its_lines_in_the_newer_file(self):
        newer = "new first line\n" + self.py_old.replace("code line 5\n", "code line 5 (3.15)\n")
        with self.assertRaises(ToolError) as caught:
            self.carry(newer)
        message = str(caught.exception)
        self.assertIn("does not merge onto 3.15.2", message)
        self.assertIn("Lib/enum.py: conflict at lines 6-6 of 3.15.2 Lib/enum.py", message)
        self.assertIn("code line 5 (3.15)", message)
        self.assertFalse((self.tmp / "out" / "Lib" / "enum.py").exists())

    def rule_rewritten_upstream(self, variant=True):
        """The flag PR (last) rewrites line 12, which 3.15 rewrote too (Flag._missing_'s rule)."""
        self.py_new = self.py_feature.replace("code line 12\n", "flag code 12\n")
        write(self.repo, "Lib/enum.py.flag.diff",
              make_diff("Lib/enum.py", self.py_feature, self.py_new))
        newer = self.py_old.replace("code line 12\n", "code line 12 (3.15)\n")
        # 3.15's file with the four PRs before the flag PR
        newer_feature = added(newer, change.FEATURE)
        if variant:
            write(self.repo, "Lib/enum.py.flag.3.15.diff",
                  make_diff("Lib/enum.py", newer_feature, newer_feature.replace(
                      "code line 12 (3.15)\n", "flag code 12 (3.15)\n")))
        return newer

    def test_a_pr_written_against_the_newer_base_is_used_where_its_diff_conflicts(self):
        newer = self.rule_rewritten_upstream()
        out = io.StringIO()
        merged = apply.carry(change.collect(self.repo), FakeBase("3.15.2", {
            "Lib/enum.py": newer}), self.source, self.tmp / "out", out=out)
        self.assertEqual(merged["Lib/enum.py"].read_text(), added(newer, change.FEATURE).replace(
            "code line 12 (3.15)\n", "flag code 12 (3.15)\n"))
        self.assertIn("enum.py.flag.3.15.diff as written against 3.15, the other PRs 3-way",
                      out.getvalue())
        # the fix alone, and a base the 3.13.5 diffs merge onto, never use it
        out = io.StringIO()
        apply.carry(change.collect(self.repo), FakeBase("3.14.10", {
            "Lib/enum.py": self.py_old.replace("code line 15\n", "code line 15 (3.14)\n")}),
            self.source, self.tmp / "out314", out=out)
        self.assertNotIn("3.15.diff", out.getvalue())

    def test_without_a_newer_diff_the_conflict_is_an_error(self):
        newer = self.rule_rewritten_upstream(variant=False)
        with self.assertRaises(ToolError) as caught:
            self.carry(newer)
        self.assertIn("code line 12 (3.15)", str(caught.exception))

    def test_a_newer_diff_that_does_not_apply_either_says_both(self):
        newer = self.rule_rewritten_upstream()
        with self.assertRaises(ToolError) as caught:
            # a line of the flag PR's 3.15 diff's context, clear of the feature's line
            self.carry(newer.replace("code line 14\n", "code line 14 (3.15.3)\n"))
        message = str(caught.exception)
        self.assertIn("conflict at", message)
        self.assertIn("enum.py.flag.3.15.diff, tried instead", message)
        self.assertFalse((self.tmp / "out" / "Lib" / "enum.py").exists())

    def test_a_checkout_of_main_gets_the_newer_diff_too(self):
        newer = self.rule_rewritten_upstream()
        write(self.tree, "Lib/enum.py", newer)
        report = self.apply()
        self.assertIn("flag code 12 (3.15)\n", self.read("Lib/enum.py"))
        self.assertTrue(any("as written against 3.15" in line for line in report), report)

    def test_a_newer_diff_needs_its_3135_diff(self):
        write(self.repo, "Lib/other.py.flag.3.15.diff", make_diff("Lib/other.py", "a\n", "b\n"))
        with self.assertRaises(ToolError) as caught:
            change.collect(self.repo)
        self.assertIn("other.py.flag.3.15.diff: written against 3.15, but "
                      "Lib/other.py.flag.diff, the same PR against 3.13.5, is missing",
                      str(caught.exception))

    def test_merge_reports_conflict_line_numbers_of_ours(self):
        ours = "a\nb\nX\nd\n"
        merged, conflicts = apply.merge(ours.encode(), b"a\nb\nc\nd\n", b"a\nb\nY\nd\n",
                                        ["ours", "base", "theirs"])
        self.assertIn(b"<<<<<<< ours", merged)
        self.assertEqual(len(conflicts), 1)
        self.assertTrue(conflicts[0].startswith("lines 3-3 of ours:"), conflicts[0])

    def test_conflict_lines_are_those_of_ours(self):
        cases = [
            # theirs adds two lines above the conflict, ours one below it
            (b"a\nb\nc\nD ours\ne\nf\nours added\n", b"a\nb\nc\nd\ne\nf\n",
             b"a\nadded 1\nadded 2\nb\nc\nD theirs\ne\nf\n", "lines 4-4 of ours:"),
            # ours deleted the lines theirs changed: named by the line before
            (b"a\nb\nd\n", b"a\nb\nc\nd\n", b"x\na\nb\nC\nd\n",
             "after line 2 of ours:"),
        ]
        for ours, base, theirs, where in cases:
            with self.subTest(where=where):
                merged, conflicts = apply.merge(ours, base, theirs, ["ours", "base", "theirs"])
                self.assertEqual(len(conflicts), 1)
                self.assertTrue(conflicts[0].startswith(where), conflicts[0])


class WhatsnewTests(unittest.TestCase):

    def test_newest_is_chosen_by_version_number(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("2.7.rst", "3.9.rst", "3.13.rst", "3.16.rst", "changelog.rst"):
                write(tmp, "Doc/whatsnew/" + name, "x\n")
            self.assertEqual(whatsnew.newest(tmp), "Doc/whatsnew/3.16.rst")

    def test_entry_goes_at_the_end_of_an_existing_enum_subsection(self):
        self.assertEqual(whatsnew.insert(WHATSNEW, ENTRY), with_entry(WHATSNEW))

    def test_missing_subsection_is_created_in_alphabetical_position(self):
        result = whatsnew.insert(without_enum_subsection(WHATSNEW), ENTRY)
        self.assertIn("* A dis change.\n\n\nenum\n----\n\n" + ENTRY
                      + "\n\nfractions\n---------\n", result)
        self.assertEqual(result.count("enum\n----\n"), 1)

    def test_on_mains_layout_it_goes_between_encodings_and_gzip(self):
        result = whatsnew.insert(MAIN_LAYOUT, ENTRY)
        self.assertIn("* Seven.\n\n\nenum\n----\n\n" + ENTRY + "\n\ngzip\n----\n", result)
        self.assertEqual(result.replace("enum\n----\n\n" + ENTRY + "\n\n", ""), MAIN_LAYOUT)

    def test_missing_subsection_created_last_when_it_sorts_last(self):
        text = WHATSNEW.replace("enum\n----\n\n* An earlier enum change.\n\n\n", "")
        text = text.replace("fractions\n---------\n\n* A fractions change.\n\n\n", "")
        self.assertIn("* A dis change.\n\n\nenum\n----\n\n" + ENTRY
                      + "\n\nOptimizations\n=============\n", whatsnew.insert(text, ENTRY))

    def test_an_enum_subsection_elsewhere_is_not_used(self):
        text = WHATSNEW.replace("Optimizations\n=============\n\n",
                                "Optimizations\n=============\n\nenum\n----\n\n* Quick.\n\n")
        result = whatsnew.insert(without_enum_subsection(text), ENTRY)
        self.assertLess(result.index(ENTRY), result.index("Optimizations"))

    def test_no_improved_modules_section_is_an_error(self):
        with self.assertRaises(ToolError):
            whatsnew.insert("Title\n=====\n\nText.\n", ENTRY)

    def test_porting_note_goes_at_the_end_of_changes_in_the_python_api(self):
        self.assertEqual(whatsnew.insert_porting(WITH_PORTING, NOTE), with_note(WITH_PORTING))

    def test_missing_python_api_subsection_is_made_after_the_introduction(self):
        result = whatsnew.insert_porting(BARE_PORTING, NOTE)
        self.assertIn("=====\n\nSome words.\n\nChanges in the Python API\n"
                      "-------------------------\n\n" + NOTE + "\n\nOptimizations\n", result)
        self.assertEqual(result.count("Changes in the Python API"), 1)
        self.assertTrue(result.endswith("* TODO\n"))  # not the C API's Porting subsection

    def test_missing_python_api_subsection_is_made_before_the_others(self):
        text = WITH_PORTING.replace(
            "Changes in the Python API\n-------------------------\n\n"
            "* A Python change,\n  on two lines.\n\n\n", "")
        result = whatsnew.insert_porting(text, NOTE)
        self.assertIn("Some words.\n\nChanges in the Python API\n-------------------------\n\n"
                      + NOTE + "\n\nChanges in the C API\n", result)

    def test_on_mains_layout_the_note_gets_its_own_subsection(self):
        main = BARE_PORTING.replace("Porting to Python 3.X\n=====",
                                    "Porting to Python 3.16\n======")
        result = whatsnew.place(main, [ENTRY, NOTE])
        self.assertLess(result.index(ENTRY), result.index("Porting to Python 3.16\n"))
        self.assertLess(result.index("Porting to Python 3.16\n"),
                        result.index("Changes in the Python API"))
        self.assertLess(result.index("Changes in the Python API"), result.index(NOTE))
        self.assertLess(result.index(NOTE), result.index("Optimizations"))

    def test_no_porting_section_is_an_error(self):
        with self.assertRaises(ToolError) as caught:
            whatsnew.insert_porting(WHATSNEW, NOTE)
        self.assertIn("Porting to Python X.Y", str(caught.exception))
        with self.assertRaises(ToolError):
            whatsnew.place(WHATSNEW, [ENTRY, NOTE])

    def test_second_porting_note_is_refused(self):
        with self.assertRaises(ToolError):
            whatsnew.insert_porting(with_note(WITH_PORTING), NOTE)

    def test_two_hunks_are_two_blocks_three_are_refused(self):
        two = with_note(with_entry(WITH_PORTING))
        three = two.replace("* TODO\n", "* TODO\n\n* More.\n")
        with tempfile.TemporaryDirectory() as tmp:
            source = write(tmp, "w.rst.diff", make_diff("w.rst", WITH_PORTING, two))
            self.assertEqual(change.whatsnew_blocks(change.File("w.rst", source)),
                             [ENTRY, NOTE])
            source = write(tmp, "w.rst.diff", make_diff("w.rst", WITH_PORTING, three))
            with self.assertRaises(ToolError):
                change.whatsnew_blocks(change.File("w.rst", source))

    def test_block_is_the_added_run_without_surrounding_blank_lines(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = write(tmp, "Doc/whatsnew/3.13.rst.diff",
                           make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
            self.assertEqual(change.whatsnew_blocks(change.File("Doc/whatsnew/3.13.rst",
                                                                source)), [ENTRY])

    def test_blocks_reject_removed_lines(self):
        removing = with_entry(WHATSNEW.replace("* A dis change.\n", ""))
        with tempfile.TemporaryDirectory() as tmp:
            source = write(tmp, "w.rst.diff", make_diff("w.rst", WHATSNEW, removing))
            with self.assertRaises(ToolError):
                change.whatsnew_blocks(change.File("w.rst", source))


class NewsNameTests(unittest.TestCase):

    def test_issue_number_replaced(self):
        self.assertEqual(change.news_path_for_issue(
            "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-4242.AbCdEf.rst", 123456),
            "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-123456.AbCdEf.rst")

    def test_nonce_replaced_with_blurbs(self):
        renamed = change.news_path_for_issue(NEWS_PATH, 123456, change.blurb_nonce("Text.\n"))
        self.assertRegex(renamed, r"^Misc/NEWS\.d/next/Library/2025-01-02-03-04-05\."
                                  r"gh-issue-123456\.[A-Za-z0-9_-]{6}\.rst$")
        self.assertNotIn(".fix.", renamed)
        self.assertNotEqual(change.blurb_nonce("Text.\n"), change.blurb_nonce("Other.\n"))

    def test_issue_number_added_to_a_name_without_one(self):
        self.assertEqual(
            change.news_path_for_issue("Misc/NEWS.d/next/Library/2025-01-02-03-04-05.Xy_z-9.rst",
                                       77777),
            "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-77777.Xy_z-9.rst")

    def test_name_not_made_by_blurb_is_an_error(self):
        with self.assertRaises(ToolError):
            change.news_path_for_issue("Misc/NEWS.d/next/Library/my-entry.rst", 1)

    def test_issue_read_from_name(self):
        self.assertEqual(change.news_issue(NEWS_PATH), 4242)
        self.assertIsNone(change.news_issue("Misc/NEWS.d/next/Library/2025-01-02-03-04-05.x.rst"))


class RepositoryChangeTests(unittest.TestCase):
    """The repository's own change files."""

    def test_every_diff_names_its_own_path(self):
        files = change.collect(REPO)  # raises if a header names another file
        for pr in change.PRS:
            with self.subTest(pr):
                self.assertTrue([f for f in files if f.is_diff and f.is_lib and f.pr == pr])
        self.assertEqual(sorted(f.pr for f in files if f.is_news), sorted(change.PRS))

    def test_stand_ins_a_lib_diff_names_are_its_own_prs_or_an_earlier_ones(self):
        # `patch` names the real issue wherever a Lib diff says gh-N of a
        # stand-in (the tests' comments): a diff may name its own PR's
        # stand-in, or an earlier PR's in its context, never a later PR's.
        files = change.collect(REPO)
        standins = change.standin_issues(files)
        named = 0
        for item in [f for f in files if f.is_lib and f.is_diff]:
            for number in re.findall(r"gh-(\d+)", item.source.read_text()):
                with self.subTest(diff=item.source.name, number=number):
                    owner = [pr for pr, n in standins.items() if n == int(number)]
                    if owner:
                        named += 1
                        self.assertLessEqual(change.PRS.index(owner[0]),
                                             change.PRS.index(item.pr))
        self.assertTrue(named)

    def test_the_flag_pr_against_315_differs_only_in_315s_negative_value_rule(self):
        # Lib/enum.py.flag.3.15.diff is the same change as the 3.13.5 one,
        # with the rule 3.15 rewrote (STRICT and CONFORM mask a negative
        # value) where 3.13.5's was; nothing else may drift apart.
        variants = change.variants(change.collect(REPO))
        self.assertEqual(sorted(variants), [("Lib/enum.py", "flag")])

        def changed(path):
            return [line[0] + " " + line[1:].strip() for line in path.read_text().splitlines()
                    if line[:1] in "+-" and not line.startswith(("+++", "---"))]

        old = changed(REPO / "Lib" / "enum.py.flag.diff")
        new = changed(variants[("Lib/enum.py", "flag")].source)
        # 3.15's lines around the unchanged `value = all_bits + 1 + value`
        rule = ["if cls._boundary_ in (EJECT, KEEP):", "else:", "value = singles_mask & value"]
        drift = [line for line in difflib.ndiff(old, new) if line[:2] in ("- ", "+ ")]
        self.assertEqual(drift, ["+ - " + line for line in rule] + ["+ + " + line for line in rule])

    def test_stand_in_issue_numbers_cannot_be_taken_for_real_ones(self):
        standins = change.standin_issues(change.collect(REPO))
        self.assertEqual(sorted(standins), sorted(change.PRS))
        self.assertEqual(len(set(standins.values())), len(change.PRS))
        for pr, number in standins.items():
            with self.subTest(pr), self.assertRaises(ToolError):
                patch.check_issue("--%s-issue" % pr, number)

    def test_whatsnew_diffs_carry_the_entries_and_the_porting_note(self):
        files = change.collect(REPO)
        standins = change.standin_issues(files)
        carriers = {f.pr: f for f in files if f.is_whatsnew}
        self.assertEqual(sorted(carriers), ["feature", "flag"])
        for item in carriers.values():
            with self.subTest(item.pr):
                # what to add, not where: hunks without context
                hunks = [line for line in item.source.read_text().splitlines()
                         if line.startswith("@@")]
                self.assertTrue(hunks)
                for hunk in hunks:
                    self.assertRegex(hunk, r"^@@ -0,0 \+1,\d+ @@")
        entry, note = change.whatsnew_blocks(carriers["flag"])
        self.assertTrue(entry.startswith("* ") and note.startswith("* "))
        self.assertIn("pseudo-member", entry)
        self.assertIn(":gh:`%d`" % standins["flag"], entry)
        self.assertIn(":gh:`%d`" % standins["flag"], note)
        (feature_entry,) = change.whatsnew_blocks(carriers["feature"])
        self.assertIn("from_value", feature_entry)
        self.assertIn(":gh:`%d`" % standins["feature"], feature_entry)

    def test_every_diff_applies_exactly_to_the_cached_3135(self):
        source = base.SourceBase(cache_dir())
        if not source.tarball.is_file():
            self.skipTest("the 3.13.5 tarball is not in %s (run cpython_change.py fetch)"
                          % source.tarball.parent)
        for prs in PREFIXES:
            # A whatsnew carrier is for main's newest file, not in 3.13.5.
            by_path = change.diffs_by_path([f for f in change.collect(REPO, prs)
                                            if not f.is_whatsnew])
            stock = source.read(list(by_path))
            for path, items in by_path.items():
                with self.subTest(path=path, prs=prs):
                    # The fix's diffs onto 3.13.5, the unhashable PR's onto that, and so on.
                    self.assertNotEqual(apply.patched(stock[path], items), stock[path])


class WhitespaceTests(unittest.TestCase):

    def test_a_path_several_prs_change_is_checked_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "Doc/whatsnew/3.15.rst", "x\n")
            files = [change.File("Lib/enum.py", "Lib/enum.py.%s.diff" % pr, pr)
                     for pr in change.PRS]
            files += [change.File("Lib/test/test_enum.py", "Lib/test/test_enum.py.%s.diff" % pr,
                                  pr) for pr in ("unhashable", "missing")]
            files += [
                     change.File("Doc/whatsnew/3.16.rst", "Doc/whatsnew/3.16.rst.flag.diff",
                                 "flag"),
                     change.File("Doc/whatsnew/3.13.rst", "Doc/whatsnew/3.13.rst.feature.diff",
                                 "feature")]
            self.assertEqual(docs.changed_paths(files, tmp),
                             ["Lib/enum.py", "Lib/test/test_enum.py", "Doc/whatsnew/3.15.rst"])

    def test_git_check_finds_planted_problems(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "stock/Lib/x.py", "a\nb\n")
            write(tmp, "new/Lib/x.py", "a\nc = 1 \n\td\nb\n")
            write(tmp, "new/Misc/n.rst", "Text.\nno end")
            problems = docs.whitespace_problems(Path(tmp) / "stock", Path(tmp) / "new",
                                                ["Lib/x.py", "Misc/n.rst"])
        self.assertEqual(problems, ["Lib/x.py:2: trailing whitespace.",
                                    "Lib/x.py:3: tab in indent.",
                                    "Misc/n.rst: no newline at the end"])

    def test_clean_files_have_no_problems(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "stock/Lib/x.py", "a\nb\n")
            write(tmp, "new/Lib/x.py", "a\n    c = 1\nb\n")
            self.assertEqual(docs.whitespace_problems(Path(tmp) / "stock", Path(tmp) / "new",
                                                      ["Lib/x.py"]), [])


class SphinxWarningTests(unittest.TestCase):

    def test_only_really_new_warnings_remain(self):
        stock = ("/s/Doc/library/a.rst:10: WARNING: py:class reference target not found: X\n"
                 "/s/Doc/library/b.rst: WARNING: document isn't included in any toctree\n")
        patched = ("/p/Doc/library/a.rst:14: WARNING: py:class reference target not found: X\n"
                   "/p/Doc/library/b.rst: WARNING: document isn't included in any toctree\n"
                   "/p/Doc/library/a.rst:40: WARNING: py:meth reference target not found: Y\n"
                   "/p/Doc/library/a.rst:12: WARNING: py:class reference target not found: X\n")
        new = (docs.normalised_warnings(patched, "/p/Doc")
               - docs.normalised_warnings(stock, "/s/Doc"))
        self.assertEqual(dict(new), {
            "library/a.rst: WARNING: py:meth reference target not found: Y": 1,
            "library/a.rst: WARNING: py:class reference target not found: X": 1,
        })


class BaseTests(unittest.TestCase):

    def test_the_roots_cpythons_are_the_newer_bases(self):
        bases = base.debian_bases("/nonexistent-root")
        self.assertEqual([b.name for b in bases], ["3.14", "3.15"])
        self.assertEqual([b.debug_python for b in bases], [None, "/usr/bin/python3.15-dbg"])

    def test_only_lib_files_are_in_a_debian_base(self):
        newer = base.DebianBase("/r", "3.15")
        self.assertEqual(newer.stdlib("Lib/test/test_enum.py"),
                         "/usr/lib/python3.15/test/test_enum.py")
        with self.assertRaises(ToolError):
            newer.stdlib("Doc/library/enum.rst")

    def test_overlay_is_bound_over_the_roots_file_with_a_private_pyc_prefix(self):
        newer = base.DebianBase("/r", "3.15")
        with newer.interpreter(overlay={"Lib/enum.py": "/m/enum.py"}) as interp:
            argv = interp.command(["-c", "pass"], cwd="/w")
            run_dir = next(h for h, inside in interp.binds.items() if inside == base.RUN_DIR)
            self.assertTrue(os.path.isdir(run_dir))
        self.assertFalse(os.path.exists(run_dir))
        self.assertIn("--bind", argv)
        self.assertIn("/m/enum.py:/usr/lib/python3.15/enum.py", argv)
        self.assertIn("PYTHONPYCACHEPREFIX=%s/pycache" % base.RUN_DIR, argv)
        self.assertEqual(argv[-3:], ["/usr/bin/python3.15", "-c", "pass"])
        self.assertEqual(argv[:len(debian_root.command("/r", []))][:2], ["unshare", "--mount"])


def blob_id(text):
    return subprocess.run(["git", "hash-object", "--stdin"], input=text.encode(),
                          stdout=subprocess.PIPE, check=True).stdout.decode().strip()


def fake_tarball(cache, files):
    """A tarball laid out like the release's (Python-3.13.5/...), at SourceBase's path."""
    source = base.SourceBase(cache)
    source.tarball.parent.mkdir(parents=True)
    with tarfile.open(str(source.tarball), "w:xz") as archive:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(source.TOPDIR + "/" + path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    source.TARBALL_SHA256 = sha256_file(source.tarball)  # this tarball is the release here
    return source


RESULTS_RST = """\
Some other table first.

Membership, median ns per ``in`` (hit: the middle member's value;
miss: -1):

=======================  ===========  ============
interpreter              in hit n=10  in miss n=10
=======================  ===========  ============
3.13.0 + backport        291          571
3.13.5 stock             470          112.9k
3.13.5 patched           292          592
=======================  ===========  ============

Patched 3.13.5 against stock 3.13.5 (the change costs at most 1.1x stock
on everyday statements):

=======================  ========  ==========  ===============  =========  =======
statement                stock ns  patched ns  patched / stock  rounds     ceiling
=======================  ========  ==========  ===============  =========  =======
``v in E``, a hit        343       293         0.87             0.39-1.45  1.10
``F.F0 | F.F3``          705       676         0.98             0.51-1.76  1.10
``if c in F: F(c)``, new 2687      4868        1.81             1.72-1.95  -
=======================  ========  ==========  ===============  =========  =======

Full run: 253 s wall time.
"""

TEXTS = {
    "fix.commit.txt": "gh-{fix_issue}: Fix the thing\n\nBody of the fix.\n",
    "unhashable.commit.txt": "gh-{unhashable_issue}: Find the unhashable thing\n\n"
                             "Body, after gh-{fix_issue}.\n",
    "missing.commit.txt": "gh-{missing_issue}: Miss the thing no more\n\n"
                          "Body, after gh-{unhashable_issue}.\n",
    "feature.commit.txt": "gh-{feature_issue}: Add the thing\n\n"
                          "Body, after gh-{missing_issue}.\n",
    "flag.commit.txt": "gh-{flag_issue}: Flag the thing\n\nBody, after gh-{feature_issue}.\n",
    "fix.issue.md": "Issue of the fix.\n",
    "unhashable.issue.md": "Issue of the unhashable PR.\n",
    "missing.issue.md": "Issue of the missing PR.\n",
    "feature.issue.md": "Issue of the feature.\n",
    "flag.issue.md": "Issue of the flag PR.\n",
    "fix.pr.md": "By {author_name} ({author_email}).\n\n{in_benchmark_table}\n\n"
                 "{stock_test_failures}\n{fix_whatsnew}\n",
    "unhashable.pr.md": "gh-{unhashable_issue} needs gh-{fix_issue}.\n\n{unhashable_whatsnew}\n",
    "missing.pr.md": "gh-{missing_issue} needs gh-{unhashable_issue}.\n\n{missing_whatsnew}\n",
    "feature.pr.md": "gh-{feature_issue} needs gh-{missing_issue}; {{literal braces}}.\n\n"
                     "{feature_whatsnew}\n",
    "flag.pr.md": "gh-{flag_issue} needs gh-{feature_issue}.\n\n{flag_whatsnew}\n",
    "feature.proposal.md": "Proposed by {author} for gh-{feature_issue}.\n\n"
                           "{everyday_table}\n",
    "stock-test-failures.json": '{"failures": []}\n',
}


def make_texts(root, **changes):
    texts_dir = Path(root) / "texts"
    for name, text in dict(TEXTS, **changes).items():
        write(texts_dir, name, text)
    return texts_dir


class SeriesTests(Fixture):
    """The series 0001 to 0005, one per PR, and the texts beside them."""

    def setUp(self):
        super().setUp()
        self.source = fake_tarball(self.tmp / "cache", self.stock)
        self.newer_text = self.py_old.replace("code line 15\n", "code line 15 in 3.15\n")
        self.newer = FakeBase("3.15.2", {"Lib/enum.py": self.newer_text})
        self.texts = make_texts(self.tmp)
        self.results = write(self.tmp, "results.rst", RESULTS_RST)
        self.out = self.tmp / "out"
        # typeshed's patch is made from mypy's wheel (tools/cpython/typeshed.py,
        # tested in test_typing); here a stand-in records what it was given.
        self.typeshed_calls = []

        def write_patch(output, issue, author, cache=None):
            self.typeshed_calls.append((issue, author))
            Path(output).write_text("typeshed patch for gh-%d\n" % issue)
            return Path(output)

        patcher = mock.patch.object(patch.typeshed, "write_patch", write_patch)
        patcher.start()
        self.addCleanup(patcher.stop)

    def merged(self, newer):
        """Each prefix of the PRs carried onto NEWER, as cpython_change.make_series does."""
        return {change.label(prs): apply.carry(change.collect(self.repo, prs), newer,
                                               self.source, self.tmp / "m" / change.label(prs),
                                               out=io.StringIO())
                for prs in PREFIXES}

    def hand_merged(self, old, new):
        """(a 3.15 whose enum.py has line OLD rewritten as NEW, the PRs' files on it).

        Made by hand: where the rewritten line is next to a PR's, the 3-way
        merge would refuse it.
        """
        self.newer = FakeBase("3.15.2", {"Lib/enum.py": self.py_old.replace(old, new)})
        return {change.label(prs): {"Lib/enum.py": write(
            self.tmp / "hand" / change.label(prs), "enum.py",
            added(self.py_old.replace(old, new), prs))} for prs in PREFIXES}

    def series(self, issues=None, author="Ada Lovelace <ada@lovelace.dev>", newer=(),
               proof_only=False, texts_dir=None, merged=None):
        issues = issues or ISSUES
        fields = patch.fields(issues, author, [], self.results, change.collect(self.repo),
                              proof_only=proof_only)
        return patch.write_series(self.repo, self.source, self.newer,
                                  merged or self.merged(self.newer), self.out, issues, author,
                                  fields, newer, texts_dir=texts_dir or self.texts,
                                  proof_only=proof_only)

    def said_by(self, function, *args, **kwargs):
        say, saved = io.StringIO(), sys.stdout
        sys.stdout = say
        try:
            function(*args, **kwargs)
        finally:
            sys.stdout = saved
        return say.getvalue()

    def test_the_whatsnew_entries_go_into_main_s_file_when_given(self):
        main = ("Doc/whatsnew/3.16.rst", WITH_PORTING.encode())
        author = "Ada Lovelace <ada@lovelace.dev>"
        fields = patch.fields(ISSUES, author, [], self.results, change.collect(self.repo),
                              main_whatsnew=main)
        patch.write_series(self.repo, self.source, self.newer, self.merged(self.newer),
                           self.out, ISSUES, author, fields, texts_dir=self.texts,
                           main_whatsnew=main)
        patches = sorted(p for p in self.out.iterdir() if p.suffix == ".patch")
        fix, unhashable, missing, feature, flag = [p.read_text() for p in patches]
        for text in (fix, unhashable, missing):
            self.assertNotIn("Doc/whatsnew", text)
        for text in (feature, flag):
            self.assertIn("+++ b/Doc/whatsnew/3.16.rst", text)
            self.assertNotIn("3.13.rst", text)
        self.assertIn("index %s.." % blob_id(WITH_PORTING), feature)  # main's own file
        self.assertIn("+* Add :meth:`EnumType.from_value()",
                      feature.split("+++ b/Doc/whatsnew/3.16.rst")[1])
        pr = (self.out / "feature-pr.md").read_text()
        self.assertIn("In the patch, in `Doc/whatsnew/3.16.rst`.", pr)
        self.assertNotIn("```rst", pr)

    def test_five_patches_and_the_texts_with_every_field_filled(self):
        written = self.series()
        names = sorted(p.name for p in self.out.iterdir() if p.name != patch.MANIFEST)
        patches = [n for n in names if n.endswith(".patch")]
        self.assertEqual(len(patches), 5, names)
        self.assertTrue(patches[0].startswith("0001-gh-140001-Fix-the-thing"), patches)
        self.assertTrue(patches[1].startswith("0002-gh-140002-Find-the-unhashable-thing"),
                        patches)
        self.assertTrue(patches[2].startswith("0003-gh-140003-Miss-the-thing-no-more"), patches)
        self.assertTrue(patches[3].startswith("0004-gh-140004-Add-the-thing"), patches)
        self.assertTrue(patches[4].startswith("0005-gh-140005-Flag-the-thing"), patches)
        self.assertEqual(sorted(n for n in names if not n.endswith(".patch")),
                         ["feature-issue.md", "feature-pr.md", "feature-proposal.md",
                          "fix-issue.md", "fix-pr.md", "flag-issue.md", "flag-pr.md",
                          "missing-issue.md", "missing-pr.md", "typeshed-enum.pyi.mbox",
                          "unhashable-issue.md", "unhashable-pr.md"])
        self.assertEqual(self.typeshed_calls, [(140004, "Ada Lovelace <ada@lovelace.dev>")])
        self.assertEqual(sorted(p.name for p in written), names)
        for name in names:
            text = (self.out / name).read_text()
            with self.subTest(name):
                self.assertNotRegex(text, r"\{[a-z_]+\}")
                # git's object names (a patch's "From <sha>" and "index"
                # lines) are hex that may hold these digits by chance: the
                # stand-ins are looked for everywhere else.
                written_by_us = re.sub(r"^(From [0-9a-f]{40} |index [0-9a-f]+\.\.[0-9a-f]+)",
                                       "", text, flags=re.M)
                for standin in STANDINS.values():
                    self.assertNotIn(str(standin),
                                     written_by_us.replace("gh-issue-%d" % standin, ""))
        fix, unhashable, missing, feature, flag = [(self.out / n).read_text() for n in patches]
        self.assertIn("From: Ada Lovelace <ada@lovelace.dev>", fix)
        self.assertIn("Subject: [PATCH 1/5] gh-140001: Fix the thing", fix)
        self.assertIn("Subject: [PATCH 2/5] gh-140002: Find the unhashable thing", unhashable)
        self.assertIn("Subject: [PATCH 3/5] gh-140003: Miss the thing no more", missing)
        self.assertIn("Subject: [PATCH 4/5] gh-140004: Add the thing", feature)
        self.assertIn("Subject: [PATCH 5/5] gh-140005: Flag the thing", flag)
        self.assertIn("Body, after gh-140001.", unhashable)
        self.assertIn("Body, after gh-140002.", missing)
        self.assertIn("Body, after gh-140003.", feature)
        self.assertIn("Body, after gh-140004.", flag)
        lines = {"fix": "+added code", "unhashable": "+unhashable code",
                 "missing": "+missing code", "feature": "+feature code", "flag": "+flag code"}
        dates = {pr: path.split("/")[-1][:19] for pr, (path, _) in NEWS.items()}
        for pr, text in zip(change.PRS, (fix, unhashable, missing, feature, flag)):
            with self.subTest(pr=pr):
                # Each PR: its Lib line and its NEWS entry, renamed; nothing of the others.
                for other, line in lines.items():
                    (self.assertIn if other == pr else self.assertNotIn)(line, text)
                self.assertRegex(text, r"b/Misc/NEWS\.d/next/Library/%s\.gh-issue-%d\."
                                       r"[A-Za-z0-9_-]{6}\.rst" % (dates[pr], ISSUES[pr]))
                self.assertEqual(text.count("+++ b/Misc/NEWS.d/"), 1)
                self.assertNotIn(".%s.rst" % pr, text)
                # The whatsnew entries are not in the patches: each PR's
                # description carries its own.
                self.assertNotIn("Doc/whatsnew", text)
                if pr != "feature":
                    self.assertNotIn("Doc/library/enum.rst", text)
        # The stand-in a Lib diff names is named for its PR's real issue.
        self.assertIn("+unhashable code  # gh-140002\n", unhashable)
        self.assertIn("+missing code  # gh-140003\n", missing)
        self.assertIn("index %s.." % blob_id(self.newer_text), fix)  # Lib: the 3.15.2 file
        self.assertIn("index %s.." % blob_id(self.rst_old), feature)  # Doc: the 3.13.5 file
        pr = (self.out / "fix-pr.md").read_text()
        self.assertIn("By Ada Lovelace (ada@lovelace.dev).", pr)
        self.assertIn("| 3.13.5 stock | 470 | 112.9k |", pr)
        self.assertIn("| 3.13.5 patched | 292 | 592 |", pr)
        self.assertNotIn("3.13.0", pr)
        self.assertNotIn("```rst", pr)  # the fix has no whatsnew entry
        for name in ("unhashable-pr.md", "missing-pr.md"):
            self.assertNotIn("```rst", (self.out / name).read_text())
        self.assertEqual((self.out / "missing-pr.md").read_text(),
                         "gh-140003 needs gh-140002.\n\n\n")
        flag_pr = (self.out / "flag-pr.md").read_text()
        self.assertIn("```rst\n" + FLAG_ENTRY.replace("{author_name}", "Ada Lovelace")
                      .replace("4444", "140005") + "```", flag_pr)
        self.assertNotIn("from_value", flag_pr)
        feature_pr = (self.out / "feature-pr.md").read_text()
        self.assertIn("{literal braces}", feature_pr)
        self.assertIn("```rst\n" + ENTRY + "```", feature_pr)
        self.assertNotIn("pseudo-member", feature_pr)
        proposal = (self.out / "feature-proposal.md").read_text()
        self.assertTrue(proposal.startswith(
            "Proposed by Ada Lovelace <ada@lovelace.dev> for gh-140004.\n\n"
            "| statement | stock ns |"), proposal)

    def test_the_backports_alone_go_onto_each_newer_bases_lib_files(self):
        # 3.14.9's file: line 1 rewritten (git am applies the backports
        # as they are) or line 3 (in 0001's context: git am -3 merges
        # them); both rewrite line 11, next to the feature's line, which
        # would stop 0004: only 0001 to 0003 go to the released branches.
        for line, how in ((1, "git am applies them"),
                          (3, "git am -3 merges them (plain git am does not apply them)")):
            with self.subTest(line=line):
                self.setUp()
                older = FakeBase("3.14.9", {"Lib/enum.py": self.py_old.replace(
                    "code line %d\n" % line, "code line %d in 3.14\n" % line).replace(
                    "code line 11\n", "code line 11 in 3.14\n")})
                said = self.said_by(self.series, newer=[older, self.newer])
                self.assertIn("0001 to 0003 alone onto 3.14.9's Lib files: " + how, said)
                self.assertIn("0001 to 0003 alone onto 3.15.2's Lib files: git am applies them",
                              said)
                self.assertEqual(len(list(self.out.glob("*.patch"))), 5)

    def test_backports_that_cannot_go_onto_a_newer_base_are_refused(self):
        # 3.14.9 rewrote the line after which one of the backports adds
        # its own: not even git am -3 merges it.
        for pr, after, _ in ADDS[:3]:
            with self.subTest(pr=pr):
                self.setUp()
                older = FakeBase("3.14.9", {"Lib/enum.py": self.py_old.replace(
                    "code line %d\n" % after, "code line %d rewritten in 3.14\n" % after)})
                with self.assertRaises(ToolError) as caught:
                    self.series(newer=[older])
                message = str(caught.exception)
                self.assertIn("0001 to 0003 (the backports) do not go onto 3.14.9's Lib files, "
                              "not even by git am -3", message)
                self.assertIn("%04d" % (change.PRS.index(pr) + 1), message)  # git am names it
                self.assertFalse(self.out.exists())

    def test_git_starts_no_automatic_maintenance(self):
        # git 2.47 and later detach it from `commit` and `am`; in the Debian
        # root (git 2.55) it wrote into a scratch repository as that was
        # being deleted, and test_backports_that_cannot_go_onto_a_newer_base_are_refused
        # failed now and then in rmtree ("Directory not empty").
        repo = self.tmp / "maintenance"
        repo.mkdir()
        env = dict(os.environ, GIT_TRACE="1", GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b",
                   GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b")
        util.git("init", "-q", cwd=repo, env=env)
        traced = util.git("commit", "-q", "--allow-empty", "-m", "x", cwd=repo, env=env).stdout
        self.assertIn("built-in: git commit", traced)   # the trace is there to read
        self.assertNotIn("maintenance run", traced)
        self.assertNotIn("gc --auto", traced)

    def test_unfilled_or_unknown_fields_are_refused_and_nothing_written(self):
        merged = self.merged(self.newer)
        for name, text, said in (
                ("fix.issue.md", "Hello {reviewer}.\n", "unknown field {reviewer}"),
                ("fix.issue.md", "Dict {}.\n", "not a str.format template"),
                ("missing.issue.md", "After {fix_number}.\n", "unknown field {fix_number}"),
                ("feature.proposal.md", "By {proposer}.\n", "unknown field {proposer}")):
            with self.subTest(name=name, text=text):
                texts_dir = make_texts(self.tmp / text.split()[0], **{name: text})
                with self.assertRaises(ToolError) as caught:
                    self.series(texts_dir=texts_dir, merged=merged)
                self.assertIn(name + ": " + said, str(caught.exception))
                self.assertFalse(self.out.exists())

    def test_every_text_of_every_pr_is_required(self):
        merged = self.merged(self.newer)
        for name in sorted(TEXTS):
            with self.subTest(name):
                texts_dir = make_texts(self.tmp / ("without-" + name))
                (texts_dir / name).unlink()
                with self.assertRaises(ToolError) as caught:
                    self.series(texts_dir=texts_dir, merged=merged)
                self.assertIn("%s is missing" % (texts_dir / name), str(caught.exception))
                self.assertFalse(self.out.exists())

    def test_a_field_left_by_doubled_braces_is_refused(self):
        texts_dir = make_texts(self.tmp / "doubled", **{"fix.pr.md": "See {{fix_issue}}.\n"})
        with self.assertRaises(ToolError) as caught:
            self.series(texts_dir=texts_dir)
        self.assertIn("fix.pr.md: unfilled field {fix_issue}", str(caught.exception))
        self.assertFalse(self.out.exists())

    def test_a_pr_description_over_400_words_is_refused(self):
        for pr in ("unhashable", "flag"):
            with self.subTest(pr):
                texts_dir = make_texts(self.tmp / ("long-" + pr),
                                       **{pr + ".pr.md": "word " * 401 + "\n"})
                with self.assertRaises(ToolError) as caught:
                    self.series(texts_dir=texts_dir)
                self.assertIn("the %s PR's description is 401 words filled" % pr,
                              str(caught.exception))
                self.assertFalse(self.out.exists())

    def test_a_proposal_over_600_words_is_refused(self):
        texts_dir = make_texts(self.tmp / "long", **{
            "feature.proposal.md": "word " * 598 + "{author}.\n"})  # three words, filled
        with self.assertRaises(ToolError) as caught:
            self.series(texts_dir=texts_dir)
        self.assertIn("feature.proposal.md is 601 words filled; the proposal is at most 600",
                      str(caught.exception))
        self.assertFalse(self.out.exists())
        # 600 words, filled, is the most it may be
        texts_dir = make_texts(self.tmp / "at-most", **{
            "feature.proposal.md": "word " * 598 + "{author_name}.\n"})  # two
        self.series(texts_dir=texts_dir)
        self.assertEqual(len((self.out / "feature-proposal.md").read_text().split()), 600)

    def test_other_patches_in_the_directory_are_refused(self):
        write(self.out, "mine.patch", "x\n")
        with self.assertRaises(ToolError) as caught:
            self.series()
        self.assertIn("already holds other patches (mine.patch)", str(caught.exception))

    def test_an_earlier_series_is_replaced(self):
        earlier = {pr: 140006 + n for n, pr in enumerate(change.PRS)}
        self.series(issues=earlier)
        self.series()
        self.assertEqual([p.name for p in self.out.iterdir()
                          if any(str(number) in p.name for number in earlier.values())], [])
        self.assertEqual(len(list(self.out.glob("*.patch"))), 5)

    def test_stand_in_numbers_are_refused_unless_proof_only(self):
        with self.assertRaises(ToolError):
            self.series(issues=STANDINS)
        self.assertFalse(self.out.exists())
        self.series(issues=STANDINS, author="proof <proof@invalid>", proof_only=True)
        self.assertEqual(len(list(self.out.glob("*.patch"))), 5)
        self.assertIn("+unhashable code  # gh-4545\n",
                      next(self.out.glob("0002-*.patch")).read_text())

    def test_a_series_git_am_3_cannot_merge_is_refused(self):
        # 3.15's file rewrote the line next to a backport's: the series
        # made against it cannot be merged back onto 3.13.5 without a
        # conflict, whichever of 0001 to 0003 it is.
        for pr, after, _ in ADDS[:3]:
            with self.subTest(pr=pr):
                self.setUp()
                merged = self.hand_merged("code line %d\n" % (after + 1),
                                          "code line %d rewritten\n" % (after + 1))
                with self.assertRaises(ToolError) as caught:
                    self.series(merged=merged)
                self.assertIn("git am -3 of 0001 to 0003 onto pristine 3.13.5 failed",
                              str(caught.exception))
                self.assertFalse(self.out.exists())

    def test_only_the_backports_are_checked_onto_pristine_3135(self):
        # 0004 and 0005 are for main only: 3.15's rewrite next to the
        # feature's line, which would stop `git am -3` of 0004 onto
        # 3.13.5, is no matter.
        merged = self.hand_merged("code line 11\n", "code line 11 rewritten\n")
        said = self.said_by(self.series, merged=merged)
        self.assertIn("git am onto its base reproduces the change", said)
        self.assertIn("+feature code\n code line 11 rewritten\n",
                      next(self.out.glob("0004-*.patch")).read_text())


class IssueAndAuthorTests(unittest.TestCase):
    """`patch` refuses to write without real numbers and author, saying why in one line."""

    def refused(self, function, *args):
        with self.assertRaises(ToolError) as caught:
            function(*args)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        return message

    ISSUES = ISSUES

    def test_numbers_are_required(self):
        for pr in change.PRS:
            with self.subTest(pr):
                for issues in (dict(self.ISSUES, **{pr: None}),
                               {k: v for k, v in self.ISSUES.items() if k != pr}):
                    self.assertIn("give every PR's CPython issue number: --fix-issue N "
                                  "--unhashable-issue N --missing-issue N --feature-issue N "
                                  "--flag-issue N", self.refused(patch.check_issues, issues))
        self.assertEqual(patch.check_issues(dict(self.ISSUES, other=1)), self.ISSUES)

    def test_numbers_no_tree_could_have_are_refused(self):
        for pr in change.PRS:
            for number in (0, 1, 32425, 1000000, 9999901):
                with self.subTest(pr=pr, number=number):
                    self.assertIn("--%s-issue %d cannot be a CPython issue" % (pr, number),
                                  self.refused(patch.check_issues,
                                               dict(self.ISSUES, **{pr: number})))
        edges = dict(self.ISSUES, unhashable=32426, flag=999999)
        self.assertEqual(patch.check_issues(edges), edges)

    def test_stand_ins_and_one_number_for_two_prs_are_refused(self):
        for pr in change.PRS:
            with self.subTest(pr):
                self.assertIn("stand-in", self.refused(patch.check_issues, self.ISSUES,
                                                       {self.ISSUES[pr]}))
        for one, other in itertools.combinations(change.PRS, 2):
            with self.subTest(one=one, other=other):
                issues = dict(self.ISSUES, **{other: self.ISSUES[one]})
                self.assertIn("--%s-issue and --%s-issue are both %d: each PR needs an "
                              "issue of its own" % (one, other, self.ISSUES[one]),
                              self.refused(patch.check_issues, issues))

    def test_author_must_be_a_name_and_a_real_address(self):
        for author, said in ((None, "give the author"), ("", "give the author"),
                             ("nobody", "must look like"), ("<a@b.org>", "must look like"),
                             ("A B <ab>", "must look like"),
                             ("A B <a@example.invalid>", "placeholder"),
                             ("A B <a@example.com>", "placeholder"),
                             ("A B <a@host.test>", "placeholder"),
                             ("A B <a@localhost>", "placeholder")):
            with self.subTest(author):
                self.assertIn(said, self.refused(patch.check_author, author))
        self.assertEqual(patch.check_author("Ada Lovelace <ada@python.org>"),
                         ("Ada Lovelace", "ada@python.org"))

    def test_the_command_refuses_before_doing_anything(self):
        author = ["--author", "A <a@python.org>"]

        def numbers(**changes):
            given = dict(self.ISSUES, **changes)
            return [a for pr in change.PRS if given[pr] is not None
                    for a in ("--%s-issue" % pr, str(given[pr]))]

        cases = [(numbers(**{pr: None}) + author, "give every PR's CPython issue number")
                 for pr in change.PRS]
        cases += [(numbers(), "give the author"),
                  (numbers(fix=5) + author, "--fix-issue 5 cannot be a CPython issue"),
                  (numbers(missing=5) + author, "--missing-issue 5 cannot be"),
                  (numbers(flag=9999905) + author,
                   "--flag-issue 9999905 is this repository's stand-in number"),
                  (numbers(unhashable=140001) + author,
                   "--fix-issue and --unhashable-issue are both 140001"),
                  (numbers() + author, "--output DIR")]
        for args, said in cases:
            with self.subTest(said=said, args=args), tempfile.TemporaryDirectory() as tmp:
                err, saved = io.StringIO(), sys.stderr
                sys.stderr = err
                try:
                    code = cpython_change.main(["patch", "--cache", tmp] + args)
                finally:
                    sys.stderr = saved
                self.assertEqual(code, 1)
                self.assertIn(said, err.getvalue())
                self.assertEqual(os.listdir(tmp), [])


class TextsTests(unittest.TestCase):

    def test_benchmark_table_is_the_membership_rows_of_3135(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = texts.in_benchmark_table(write(tmp, "r.rst", RESULTS_RST))
        self.assertEqual(table.splitlines()[:4], [
            "| interpreter | in hit n=10 | in miss n=10 |", "|---|---|---|",
            "| 3.13.5 stock | 470 | 112.9k |", "| 3.13.5 patched | 292 | 592 |"])

    def test_benchmark_table_leaves_out_the_flag_columns(self):
        # The fix's issue is not about flags: their columns measure later PRs.
        with_flags = RESULTS_RST.replace(
            "===========  ============\n", "===========  ============  ==============  =========\n"
        ).replace("in hit n=10  in miss n=10\n", "in hit n=10  in miss n=10  flag composite  "
                  "flag miss\n").replace("470          112.9k\n", "470          112.9k        "
                                          "  3705            3729\n").replace(
            "292          592\n", "292          592            1200            900\n")
        self.assertIn("flag composite", with_flags)
        with tempfile.TemporaryDirectory() as tmp:
            table = texts.in_benchmark_table(write(tmp, "r.rst", with_flags))
        self.assertEqual(table.splitlines()[:4], [
            "| interpreter | in hit n=10 | in miss n=10 |", "|---|---|---|",
            "| 3.13.5 stock | 470 | 112.9k |", "| 3.13.5 patched | 292 | 592 |"])

    def test_benchmark_table_missing_rows_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(ToolError) as caught:
                texts.in_benchmark_table(write(tmp, "r.rst", RESULTS_RST.replace(
                    "3.13.5 patched", "3.13.5 other  ")))
        self.assertIn("'3.13.5 patched'", str(caught.exception))

    def test_everyday_table_is_its_statements_as_markdown(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = texts.everyday_table(write(tmp, "r.rst", RESULTS_RST))
        self.assertEqual(table.splitlines()[:4], [
            "| statement | stock ns | patched ns | patched / stock |", "|---|---|---|---|",
            "| `v in E`, a hit | 343 | 293 | 0.87 |",
            "| `F.F0 \\| F.F3` | 705 | 676 | 0.98 |"])
        self.assertIn("alternating processes", table)

    def test_everyday_table_without_its_columns_or_title_is_an_error(self):
        for old, new, said in (("patched ns", "other ns  ", "'patched ns'"),
                               ("Patched 3.13.5 against", "Patched 3.13.4 against",
                                "no table after 'Patched 3.13.5 against stock 3.13.5'")):
            with self.subTest(said), tempfile.TemporaryDirectory() as tmp:
                with self.assertRaises(ToolError) as caught:
                    texts.everyday_table(write(tmp, "r.rst", RESULTS_RST.replace(old, new)))
                self.assertIn(said, str(caught.exception))
        rule = "=======================  ========  ==========  ===============  =========  =======\n"
        head, _, rest = RESULTS_RST.partition("``v in E``, a hit")
        empty = head + rest[rest.index(rule):]
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(ToolError) as caught:
                texts.everyday_table(write(tmp, "r.rst", empty))
        self.assertIn("the everyday table has no rows", str(caught.exception))

    def test_check_then_construct_is_its_row_s_ratio_and_rounds(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(texts.check_then_construct(write(tmp, "r.rst", RESULTS_RST)),
                             "1.81x (1.72-1.95 over the rounds)")
            without = RESULTS_RST.replace("``if c in F: F(c)``, new", "``c in F``, new         ")
            with self.assertRaises(ToolError) as caught:
                texts.check_then_construct(write(tmp, "s.rst", without))
        self.assertIn("no row ``if c in F: F(c)``", str(caught.exception))

    def test_the_fields_name_every_pr(self):
        for pr in change.PRS:
            with self.subTest(pr):
                self.assertIn("%s_issue" % pr, texts.FIELDS)
                self.assertIn("%s_whatsnew" % pr, texts.FIELDS)
        self.assertEqual(texts.PROPOSAL, ("feature", "proposal.md"))
        self.assertEqual(patch.OUTPUTS[texts.PROPOSAL], "feature-proposal.md")
        self.assertEqual(sorted(patch.OUTPUTS.values()), sorted(
            ["feature-proposal.md"] + ["%s-%s" % (pr, kind) for pr in change.PRS
                                       for kind in ("issue.md", "pr.md")]))

    def test_the_proposal_is_the_features_alone(self):
        # Without the feature (a PR set of backports) no proposal is read.
        with tempfile.TemporaryDirectory() as tmp:
            texts_dir = make_texts(tmp)
            (texts_dir / "feature.proposal.md").unlink()
            fields = dict.fromkeys(texts.FIELDS, "X")
            filled = texts.filled_texts(fields, texts_dir, prs=change.BACKPORTS)
            self.assertEqual(sorted(filled), sorted(
                (pr, kind) for pr in change.BACKPORTS for kind in texts.KINDS))
            with self.assertRaises(ToolError) as caught:
                texts.filled_texts(fields, texts_dir, prs=change.FEATURE)
            self.assertIn("feature.proposal.md is missing", str(caught.exception))

    def test_the_repositorys_texts_fill_with_every_field(self):
        fields = dict.fromkeys(texts.FIELDS, "X")
        filled = texts.filled_texts(fields)
        for (pr, kind), text in filled.items():
            with self.subTest(pr=pr, kind=kind):
                self.assertTrue(text.strip())
        self.assertEqual(sorted({pr for pr, kind in filled}), sorted(change.PRS))
        self.assertEqual(sorted(filled), sorted(
            [(pr, kind) for pr in change.PRS for kind in texts.KINDS] + [texts.PROPOSAL]))
        self.assertLessEqual(len(filled[texts.PROPOSAL].split()), texts.PROPOSAL_WORDS)
        for pr in change.PRS:
            with self.subTest(pr=pr):
                subject = texts.fill(texts.read(pr, "commit.txt"),
                                     dict(fields, **{"%s_issue" % pr: 7}))
                self.assertTrue(subject.startswith("gh-7: "), subject)
                self.assertLessEqual(len(subject.splitlines()[0]), 80)


ALL_FIVE = "fix+unhashable+missing+feature+flag"
LEDGER = [{"test": "TestPlain.test_contains_old", "bases": ["3.13.5", "3.14"],
           "enum": ["fix", ALL_FIVE], "reason": "asserts the old TypeError of `in`"},
          {"test": "*.test_flag_cache", "bases": ["3.15"], "enum": ["fix"],
           "reason": "counts the pseudo-members `in` used to make"},
          {"test": "TestStdLib.test_doc_old", "bases": ["3.14"], "enum": [ALL_FIVE],
           "reason": "compares the old docstring"},
          {"test": "TestFlag.test_missing_first", "bases": ["3.15"],
           "enum": ["fix+unhashable+missing", "fix+unhashable+missing+feature"],
           "reason": "asserts that `in` asks _missing_ first"}]


class LedgerTests(unittest.TestCase):
    """What a stock test_enum.py may fail against the changed enum.py."""

    def judge(self, base, enum, ran, failed):
        return texts.judge_stock_run(LEDGER, base, enum, ran, failed)

    def test_listed_failures_pass_the_run(self):
        ran = ["TestPlain.test_contains_old", "TestPlain.test_other"]
        self.assertEqual(self.judge("3.14", "fix", ran, ["TestPlain.test_contains_old"]), [])

    def test_an_unlisted_failure_fails_the_run(self):
        ran = ["TestPlain.test_contains_old", "TestPlain.test_other"]
        problems = self.judge("3.14", "fix", ran, ["TestPlain.test_contains_old",
                                                   "TestPlain.test_other"])
        self.assertEqual(problems, ["TestPlain.test_other failed and the ledger does not "
                                    "list it for 3.14 with fix"])

    def test_listed_for_another_base_or_enum_does_not_count(self):
        ran = ["TestFlag.test_flag_cache", "TestPlain.test_contains_old"]
        failed = ["TestFlag.test_flag_cache"]
        self.assertEqual(self.judge("3.15", "fix", ran, failed), [])
        self.assertEqual(self.judge("3.15", ALL_FIVE, ran, failed),
                         ["TestFlag.test_flag_cache failed and the ledger does not list it "
                          "for 3.15 with " + ALL_FIVE])
        self.assertEqual(len(self.judge("3.14", "fix", ran, failed)), 2)  # and one passed

    def test_a_pattern_covers_a_mixins_test_in_each_class(self):
        ran = ["TestFlag.test_flag_cache", "TestIntFlag.test_flag_cache", "TestFlag.test_x"]
        self.assertEqual(self.judge("3.15", "fix", ran, ran[:2]), [])
        self.assertEqual(len(self.judge("3.15", "fix", ran, ran)), 1)

    def test_a_listed_test_that_passes_fails_the_run(self):
        ran = ["TestPlain.test_contains_old"]
        problems = self.judge("3.13.5", ALL_FIVE, ran, [])
        self.assertEqual(len(problems), 1)
        self.assertIn("listed for 3.13.5 with %s but passed" % ALL_FIVE, problems[0])

    def test_an_entry_counts_for_each_pr_set_it_names_and_no_other(self):
        ran = ["TestFlag.test_missing_first", "TestFlag.test_x"]
        failed = ["TestFlag.test_missing_first"]
        for enum in ("fix+unhashable+missing", "fix+unhashable+missing+feature"):
            self.assertEqual(self.judge("3.15", enum, ran + ["TestFlag.test_flag_cache"],
                                        failed), [], enum)
        for enum in ("fix+unhashable", ALL_FIVE):
            self.assertEqual(self.judge("3.15", enum, ran, failed),
                             ["TestFlag.test_missing_first failed and the ledger does not "
                              "list it for 3.15 with " + enum], enum)

    def test_the_pr_sets_are_the_prefixes_of_the_prs(self):
        self.assertEqual(texts.ENUMS, ("fix", "fix+unhashable", "fix+unhashable+missing",
                                       "fix+unhashable+missing+feature", ALL_FIVE))
        self.assertEqual(texts.ENUMS, tuple(change.label(prs) for prs in PREFIXES))

    def test_a_listed_test_that_does_not_exist_fails_the_run(self):
        problems = self.judge("3.13.5", "fix", ["TestPlain.test_other"], [])
        self.assertIn("but no such test ran", " ".join(problems))

    def test_malformed_ledgers_are_refused(self):
        bad = [{"failures": {}}, {"failures": [{"test": "x"}]},
               {"failures": [dict(LEDGER[0], bases=["3.16"])]},
               {"failures": [dict(LEDGER[0], enum=["feature"])]},
               {"failures": [dict(LEDGER[0], enum=["fix+flag"])]},  # the three PRs' label
               {"failures": [dict(LEDGER[0], enum=["fix+unhashable+feature"])]},
               {"failures": [dict(LEDGER[0], reason="")]},
               {"failures": [dict(LEDGER[0], test="no_class")]},
               {"failures": [LEDGER[0], LEDGER[0]]}]
        for data in bad:
            with self.subTest(data), tempfile.TemporaryDirectory() as tmp:
                write(tmp, texts.LEDGER, json.dumps(data))
                with self.assertRaises(ToolError):
                    texts.load_ledger(tmp)
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(ToolError):
                texts.load_ledger(tmp)  # missing
            write(tmp, texts.LEDGER, json.dumps({"failures": LEDGER}))
            self.assertEqual(texts.load_ledger(tmp), LEDGER)

    def test_every_ledger_test_is_named_in_the_pr_that_makes_it_fail(self):
        markdown = texts.ledger_markdown(LEDGER)
        self.assertIn("- `TestPlain.test_contains_old` (3.14; with the fix PR alone "
                      "and with all five PRs): asserts the old TypeError", markdown)
        self.assertIn("- `TestStdLib.test_doc_old` (3.14; with all five PRs)", markdown)
        self.assertIn("- `TestFlag.test_missing_first` (3.15; with the PRs up to the missing "
                      "PR and with the PRs up to the feature PR)", markdown)
        fix_names = "test_contains_old and test_flag_cache"
        filled = {("fix", "pr.md"): fix_names, ("unhashable", "pr.md"): "",
                  ("missing", "pr.md"): "test_missing_first", ("feature", "pr.md"): "",
                  ("flag", "pr.md"): "test_doc_old"}
        texts.check_ledger_named(LEDGER, filled)
        with self.assertRaises(ToolError) as caught:
            texts.check_ledger_named(LEDGER, {**filled, ("fix", "pr.md"):
                                              "only test_contains_old here"})
        self.assertIn("*.test_flag_cache (fix.pr.md)", str(caught.exception))
        # the flag PR's failure is named in the flag PR's description, not the fix's
        with self.assertRaises(ToolError) as caught:
            texts.check_ledger_named(LEDGER, {
                **filled, ("fix", "pr.md"): fix_names + " test_doc_old", ("flag", "pr.md"): ""})
        self.assertIn("TestStdLib.test_doc_old (flag.pr.md)", str(caught.exception))
        self.assertNotIn("fix.pr.md", str(caught.exception))
        # the missing PR's, in the missing PR's (the last of the smallest set listed)
        with self.assertRaises(ToolError) as caught:
            texts.check_ledger_named(LEDGER, {
                **filled, ("missing", "pr.md"): "", ("feature", "pr.md"): "test_missing_first"})
        self.assertEqual(str(caught.exception).split(": ", 1)[1],
                         "TestFlag.test_missing_first (missing.pr.md)")

    def test_the_repositorys_ledger_is_well_formed(self):
        texts.load_ledger()


STOCK_TEST = """\
import unittest

def load_tests(loader, tests, ignore):
    return tests

class TestPlain(unittest.TestCase):
    def test_contains_old(self):
        self.fail('asserts the old behaviour')
    def test_other(self):
        with self.subTest(n=1):
            pass

class TestFlag(unittest.TestCase):
    def test_flag_cache(self):
        pass
"""


class StockTestRunTests(unittest.TestCase):
    """The stock test_enum.py run as the test stage runs it, on this interpreter."""

    def run_stock(self, base_name, ledger=LEDGER):
        interp = base.Interpreter("this python", sys.executable)
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp:
            test.stock_tests(interp, STOCK_TEST.encode(), base_name, change.FIX, ledger, tmp,
                             out=out)
        return out.getvalue()

    def test_listed_failure_passes_and_is_said(self):
        text = self.run_stock("3.14")
        self.assertIn("failed: TestPlain.test_contains_old (listed: asserts the old", text)
        self.assertIn("3 tests, 1 failed, each listed", text)

    def test_unlisted_failure_fails(self):
        with self.assertRaises(ToolError) as caught:
            self.run_stock("3.14", ledger=[])
        self.assertIn("TestPlain.test_contains_old failed and the ledger does not list it",
                      str(caught.exception))

    def test_listed_test_that_passes_fails(self):
        with self.assertRaises(ToolError) as caught:
            self.run_stock("3.15")
        message = str(caught.exception)
        self.assertIn("*.test_flag_cache is listed for 3.15 with fix but passed", message)
        self.assertIn("TestPlain.test_contains_old failed", message)


class SelectionTests(unittest.TestCase):
    """Which behaviour tests an interpreter without all five PRs runs: those needing no missing PR."""

    MODULE = """\
import unittest
import _support
from _support import backport_only, needs_backports

def helper(cls):
    return cls.from_value(1)

def plain(x):
    return x in Color

class Color:
    pass

class Mixin:
    def check(self):
        return helper(Color)

class ContainsTest(unittest.TestCase):
    def test_in(self):
        self.assertTrue(plain(1))
    def test_through_helper(self):
        helper(Color)
    def test_by_name(self):
        getattr(Color, 'from_name')
    @backport_only
    def test_backport(self):
        pass

class MixedTest(Mixin, unittest.TestCase):
    def test_plain(self):
        pass

class BackportsTest(unittest.TestCase):
    @needs_backports
    def test_unhashable_value(self):
        self.assertTrue(plain([1]))

@_support.needs_flag_pr
class FlagTest(unittest.TestCase):
    def test_no_pseudo_member(self):
        self.assertTrue(plain(1))
"""

    FEATURE = {
        "test_behaviour_x.ContainsTest.test_through_helper": "uses from_value",
        "test_behaviour_x.ContainsTest.test_by_name": "uses from_name",
        "test_behaviour_x.MixedTest.test_plain": "uses from_value",
    }
    BACKPORT_ONLY = {"test_behaviour_x.ContainsTest.test_backport": "uses backport_only"}
    BACKPORTS = {"test_behaviour_x.BackportsTest.test_unhashable_value": "uses needs_backports"}
    FLAG = {"test_behaviour_x.FlagTest.test_no_pseudo_member": "uses needs_flag_pr"}

    def select(self, prs):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "test_behaviour_x.py", self.MODULE)
            return test.selection(tmp, prs)

    def test_selection_follows_what_each_test_reaches(self):
        selected, left_out = self.select(change.FIX)
        self.assertEqual(selected, ["test_behaviour_x.ContainsTest.test_in"])
        self.assertEqual(left_out, dict(self.FEATURE, **self.BACKPORT_ONLY, **self.BACKPORTS,
                                        **self.FLAG))
        # the unhashable PR alone is not a set any run proves, but the mark
        # needs both bug fixes
        self.assertEqual(self.select(change.PRS[:2]), (selected, left_out))

    def test_the_backports_run_the_tests_marked_for_them(self):
        selected, left_out = self.select(change.BACKPORTS)
        self.assertEqual(selected, ["test_behaviour_x.ContainsTest.test_in",
                                    "test_behaviour_x.BackportsTest.test_unhashable_value"])
        self.assertEqual(left_out, dict(self.FEATURE, **self.BACKPORT_ONLY, **self.FLAG))

    def test_the_feature_runs_from_value_but_not_the_flag_prs_tests(self):
        selected, left_out = self.select(change.FEATURE)
        self.assertEqual(sorted(selected), sorted(
            ["test_behaviour_x.ContainsTest.test_in"] + list(self.FEATURE)
            + list(self.BACKPORTS)))
        self.assertEqual(left_out, dict(self.BACKPORT_ONLY, **self.FLAG))

    def test_with_all_five_only_the_backports_own_tests_are_left_out(self):
        selected, left_out = self.select(change.ALL)
        self.assertEqual(left_out, self.BACKPORT_ONLY)
        self.assertEqual(len(selected), 6)

    def test_the_repositorys_selection_has_tests_of_in(self):
        selected, left_out = test.selection(REPO / "tests", change.FIX)
        self.assertTrue(any(".ValuesTest." in t for t in selected), selected)
        self.assertFalse([t for t in selected if "from_value" in t or "from_name" in t])
        self.assertTrue(left_out)
        self.assertTrue([t for t, why in left_out.items() if "needs_flag_pr" in why], left_out)
        marked = [t for t, why in left_out.items() if why == "uses needs_backports"]
        self.assertTrue(marked, left_out)
        backports_selected, backports_left_out = test.selection(REPO / "tests",
                                                                change.BACKPORTS)
        self.assertFalse([why for why in backports_left_out.values()
                          if "needs_backports" in why])
        self.assertEqual(sorted(backports_selected), sorted(selected + marked))
        feature_selected, feature_left_out = test.selection(REPO / "tests", change.FEATURE)
        self.assertFalse([why for why in feature_left_out.values()
                          if "needs_backports" in why or "from_" in why])
        self.assertTrue([t for t, why in feature_left_out.items() if "needs_flag_pr" in why])
        self.assertEqual(sorted(feature_selected), sorted(
            backports_selected + [t for t, why in backports_left_out.items()
                                  if why in ("uses from_value", "uses from_name",
                                             "uses from_name, from_value")]))

    def test_no_feature_runner_runs_the_selection_without_the_backport(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "tests/test_behaviour_y.py",
                  "import unittest, enum_backport\n"
                  "class T(unittest.TestCase):\n"
                  "    def test_ok(self): pass\n"
                  "    def test_uses_backport(self): enum_backport.from_value\n")
            proc = subprocess.run(
                [sys.executable, "-c", test.NO_FEATURE_RUNNER, "test_behaviour_y.T.test_ok",
                 "test_behaviour_y.T.test_uses_backport"], cwd=tmp,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if "this enum has from_value" in proc.stdout:  # decided in a fresh process
            self.skipTest("this interpreter's enum has from_value natively")
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("a stand-in where enum has no from_value", proc.stdout)
        self.assertIn("Ran 2 tests", proc.stdout)


class FakeInterpreter:
    """An interpreter whose runs are recorded, not made: what `prove` asks of it."""

    def __init__(self, label, enum_py, feature, runs):
        self.label, self.enum_py, self.feature, self.runs = label, enum_py, feature, runs

    def capture(self, args, cwd=None):
        if test.PROBE_ENUM in args:
            digest = hashlib.sha256(Path(self.enum_py).read_bytes()).hexdigest()
            said = "%s\n%s\n%s\n" % (self.feature, self.enum_py, digest)
        else:
            said = "True\n"  # enum_backport is not importable
        return subprocess.CompletedProcess(args, 0, said, "")

    def live(self, args, cwd=None, out=None):
        self.runs.append((self.label, list(args)))
        return 0

    def venv(self, host_dir, packages, out=None):
        self.runs.append((self.label, ["venv"] + list(packages)))
        return FakeInterpreter(self.label + " (venv)", self.enum_py, self.feature, self.runs)


class ProveTests(unittest.TestCase):
    """What `prove` runs for each PR set, on an interpreter that records its runs."""

    def prove(self, prs):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "tests/test_behaviour_x.py", SelectionTests.MODULE)
            enum_py = write(tmp, "enum.py", "# patched\n")
            runs = []
            interp = FakeInterpreter("fake", enum_py, "feature" in prs, runs)
            out = io.StringIO()
            test.prove(interp, enum_py, tmp, Path(tmp) / "venv", out=out, prs=prs)
        # the behaviour tests' run (not the stdlib suites', -m test, nor the venv's making)
        behaviour = [args for label, args in runs if label == "fake" and args[:2] == ["-s", "-c"]]
        self.assertEqual(len([args for label, args in runs if args[:3] == ["-s", "-m", "test"]]),
                         1)
        return runs, behaviour, out.getvalue()

    def test_the_fix_leaves_out_the_backports_tests(self):
        runs, behaviour, said = self.prove(change.FIX)
        self.assertEqual(behaviour, [["-s", "-c", test.NO_FEATURE_RUNNER,
                                      "test_behaviour_x.ContainsTest.test_in"]])
        self.assertIn("left out: test_behaviour_x.BackportsTest.test_unhashable_value "
                      "(uses needs_backports)", said)
        self.assertIn("with fix: 1 tests that need no other PR; 6 left out", said)
        self.assertNotIn(("fake", ["venv", "hypothesis"]), runs)
        self.assertIn("the property, bad-input and thread tests are left out", said)

    def test_the_backports_run_them(self):
        runs, behaviour, said = self.prove(change.BACKPORTS)
        self.assertEqual(behaviour, [["-s", "-c", test.NO_FEATURE_RUNNER,
                                      "test_behaviour_x.ContainsTest.test_in",
                                      "test_behaviour_x.BackportsTest.test_unhashable_value"]])
        self.assertNotIn("needs_backports", said)
        self.assertIn("left out: test_behaviour_x.FlagTest.test_no_pseudo_member "
                      "(uses needs_flag_pr)", said)
        self.assertNotIn(("fake", ["venv", "hypothesis"]), runs)

    def test_the_feature_without_the_flag_pr_runs_a_selection_with_from_value(self):
        runs, behaviour, said = self.prove(change.FEATURE)
        self.assertEqual(len(behaviour), 1)
        self.assertEqual(behaviour[0][:3], ["-s", "-c", test.SELECTED_RUNNER])
        self.assertEqual(sorted(behaviour[0][3:]), sorted(
            ["test_behaviour_x.ContainsTest.test_in"] + list(SelectionTests.FEATURE)
            + list(SelectionTests.BACKPORTS)))
        self.assertIn("left out: test_behaviour_x.FlagTest.test_no_pseudo_member", said)
        # without the flag PR, the property, bad-input and thread tests (which
        # hold `in` to creating nothing) are left out, and no venv is made
        self.assertNotIn(("fake", ["venv", "hypothesis"]), runs)
        self.assertNotIn(("fake (venv)", ["-c", test.UNITTEST] + test.NATIVE_TESTS), runs)
        self.assertIn("left out without all five PRs", said)

    def test_all_five_run_every_behaviour_test(self):
        runs, behaviour, said = self.prove(change.ALL)
        self.assertEqual(behaviour, [["-s", "-c", test.UNITTEST, "discover", "-s", "tests",
                                      "-p", "test_behaviour*.py"]])
        self.assertNotIn("  left out: ", said)
        self.assertIn("behaviour tests on fake, natively\n", said)
        self.assertIn(("fake (venv)", ["-c", test.UNITTEST] + test.NATIVE_TESTS), runs)

    def test_an_interpreter_whose_enum_disagrees_with_the_pr_set_is_refused(self):
        # from_value present without the feature (or absent with it): not the file made
        for prs in (change.BACKPORTS, change.FEATURE):
            with self.subTest(prs=prs), tempfile.TemporaryDirectory() as tmp:
                enum_py = write(tmp, "enum.py", "# patched\n")
                interp = FakeInterpreter("fake", enum_py, "feature" not in prs, [])
                with self.assertRaises(ToolError) as caught:
                    test.prove(interp, enum_py, tmp, Path(tmp) / "venv", out=io.StringIO(),
                               prs=prs)
                self.assertIn("does not run the enum.py patched with " + change.label(prs),
                              str(caught.exception))


class PruneTests(unittest.TestCase):

    def test_only_the_newest_patched_builds_are_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            for age, key in enumerate(["new", "mid", "old"]):
                done = cache / "builds" / ("patched-" + key)
                done.mkdir(parents=True)
                (done / "build-ok").write_text("ok\n")
                os.utime(str(done / "build-ok"), (1000 - age, 1000 - age))
                (cache / "docs" / ("patched-" + key)).mkdir(parents=True)
                (cache / "venvs" / ("docs-patched-%s-abc" % key)).mkdir(parents=True)
                (cache / "venvs" / ("native-patched-%s" % key)).mkdir(parents=True)
            (cache / "builds" / "stock-x").mkdir()
            (cache / "builds" / "patched-unfinished").mkdir()
            build.prune(cache, keep=2)
            left = sorted(p.relative_to(cache).as_posix() for p in cache.glob("*/*"))
        self.assertEqual(left, [
            "builds/patched-mid", "builds/patched-new", "builds/patched-unfinished",
            "builds/stock-x", "docs/patched-mid", "docs/patched-new",
            "venvs/docs-patched-mid-abc", "venvs/docs-patched-new-abc",
            "venvs/native-patched-mid", "venvs/native-patched-new",
        ])

    def test_free_threaded_builds_are_counted_apart(self):
        # One new edit of the change makes a patched and a patched-t build;
        # neither pushes out the other kind's newest.
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            for age, name in enumerate(["patched-t-new", "patched-t-old",
                                        "patched-new", "patched-old"]):
                done = cache / "builds" / name
                done.mkdir(parents=True)
                (done / "build-ok").write_text("ok\n")
                os.utime(str(done / "build-ok"), (1000 - age, 1000 - age))
                (cache / "venvs" / ("native-" + name)).mkdir(parents=True)
            build.prune(cache, keep=1)
            left = sorted(p.relative_to(cache).as_posix() for p in cache.glob("*/*"))
        self.assertEqual(left, ["builds/patched-new", "builds/patched-t-new",
                                "venvs/native-patched-new", "venvs/native-patched-t-new"])


class AptSourceTests(unittest.TestCase):
    """`fetch --apt-source` adds a trixie deb-src entry only when none is there."""

    def setUp(self):
        self.apt = Path(tempfile.mkdtemp(prefix="apt-"))
        self.addCleanup(shutil.rmtree, str(self.apt))
        (self.apt / "sources.list.d").mkdir()

    def test_entry_added_with_the_machines_mirror(self):
        (self.apt / "sources.list.d" / "debian.sources").write_text(
            "Types: deb\n# a comment\nURIs: http://mirror.example/debian\n"
            "Suites: bookworm bookworm-updates\nComponents: main\n\n"
            "Types: deb\nURIs: http://mirror.example/debian-security\n"
            "Suites: bookworm-security\nComponents: main\n")
        text = obtain.ensure_deb_src(self.apt).read_text()
        self.assertIn("Types: deb-src\n", text)
        self.assertIn("URIs: http://mirror.example/debian\n", text)
        self.assertIn("Suites: trixie\n", text)
        self.assertIsNone(obtain.ensure_deb_src(self.apt))  # now present: nothing to do

    def test_one_line_sources_list_is_read(self):
        (self.apt / "sources.list").write_text(
            "deb [arch=amd64] http://other.example/debian bookworm main\n")
        self.assertIn("URIs: http://other.example/debian\n",
                      obtain.ensure_deb_src(self.apt).read_text())

    def test_existing_entry_is_left_alone(self):
        (self.apt / "sources.list").write_text(
            "deb http://a.example/debian bookworm main\n"
            "deb-src http://a.example/debian trixie main\n")
        self.assertIsNone(obtain.ensure_deb_src(self.apt))
        self.assertEqual(list((self.apt / "sources.list.d").iterdir()), [])

    def test_disabled_entry_does_not_count(self):
        (self.apt / "sources.list.d" / "x.sources").write_text(
            "Types: deb deb-src\nURIs: http://b.example/debian\nSuites: trixie\n"
            "Components: main\nEnabled: no\n\n"
            "Types: deb\nURIs: http://b.example/debian\nSuites: bookworm\n")
        self.assertIsNotNone(obtain.ensure_deb_src(self.apt))


class SideBySideTests(unittest.TestCase):

    def test_each_jobs_output_is_whole_and_failures_are_named(self):
        def slow(out):
            run_live(["sh", "-c", "echo slow one; sleep 0.3; echo slow two"], out=out)

        def failing(out):
            out.write("fast\n")
            raise ToolError("it broke")

        out = io.StringIO()
        with self.assertRaises(ToolError) as caught:
            side_by_side([("slow", slow), ("fast", failing)], out=out)
        self.assertEqual(str(caught.exception), "fast: it broke")
        text = out.getvalue()
        self.assertLess(text.index("fast: FAILED"), text.index("slow: done"))
        self.assertIn("--- slow ---\n$ sh -c echo slow one; sleep 0.3; echo slow two\n"
                      "slow one\nslow two\n", text.replace("cpython_change: ", ""))
        self.assertIn("--- fast ---\nfast\n", text.replace("cpython_change: ", ""))


class CommandLineTests(unittest.TestCase):

    def test_help_lists_every_command(self):
        text = cpython_change.make_parser().format_help()
        for command in ("fetch", "apply", "build", "carry", "test", "docs", "patch",
                        "versions", "all"):
            self.assertIn(command, text)

    def parse(self, *argv):
        """make_parser().parse_args(ARGV), or what argparse printed (help, a usage error)."""
        said, saved = io.StringIO(), (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = said
        try:
            return cpython_change.make_parser().parse_args(list(argv))
        except SystemExit:
            return said.getvalue()
        finally:
            sys.stdout, sys.stderr = saved

    def test_each_pr_has_its_issue_option(self):
        for command in ("apply", "patch"):
            with self.subTest(command):
                extra = ["--tree", "t"] if command == "apply" else []
                args = self.parse(command, *extra + [
                    a for pr in change.PRS for a in ("--%s-issue" % pr, str(ISSUES[pr]))])
                self.assertEqual({pr: getattr(args, "%s_issue" % pr) for pr in change.PRS},
                                 ISSUES)
        help_text = self.parse("patch", "--help")
        for pr in change.PRS:
            self.assertIn("--%s-issue N" % pr, help_text)

    def test_apply_goes_up_to_any_pr_or_the_backports(self):
        self.assertEqual(self.parse("apply", "--tree", "t").up_to, "flag")
        self.assertTrue(self.parse("apply", "--tree", "t", "--backports-only").backports_only)
        for pr in change.PRS:
            self.assertEqual(self.parse("apply", "--tree", "t", "--up-to", pr).up_to, pr)
        self.assertIn("invalid choice: 'both'", self.parse("apply", "--tree", "t",
                                                           "--up-to", "both"))
        self.assertIn("unrecognized arguments: --fix-only",
                      self.parse("apply", "--tree", "t", "--fix-only"))

    def test_build_names_each_pr_set(self):
        self.assertEqual(cpython_change.BUILDS, {
            "fix": change.FIX, "backports": change.BACKPORTS, "feature": change.FEATURE,
            "patched": change.ALL})
        self.assertIn("unrecognized arguments: --flag", self.parse("build", "--flag"))
        built = []

        def build_of(run, kind, freethreaded=False):
            built.append(kind)
            return "/built/" + kind

        for argv, kinds in ((["--backports", "--feature"], ["backports", "feature"]),
                            ([], ["stock", "fix", "backports", "feature", "patched"])):
            with self.subTest(argv=argv), tempfile.TemporaryDirectory() as tmp:
                del built[:]
                out, saved = io.StringIO(), sys.stdout
                sys.stdout = out
                try:
                    with mock.patch.object(cpython_change, "build_of", build_of), \
                            mock.patch.object(base.SourceBase, "describe", lambda s, p: p):
                        code = cpython_change.main(["build", "--cache", tmp] + argv)
                finally:
                    sys.stdout = saved
                self.assertEqual(code, 0)
                self.assertEqual(built, kinds)
                self.assertEqual(out.getvalue().split(), ["/built/" + k for k in kinds])

    def test_each_base_is_proven_with_four_pr_sets_and_the_series_made_from_five(self):
        self.assertEqual(cpython_change.ENUMS, (change.FIX, change.BACKPORTS, change.FEATURE,
                                                change.ALL))
        self.assertEqual(cpython_change.PREFIXES, PREFIXES)
        self.assertEqual(len(PREFIXES), 5)

    def test_apply_to_a_missing_tree_is_a_clear_error(self):
        err = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp:
            saved, sys.stderr = sys.stderr, err
            try:
                code = cpython_change.main(["apply", "--tree", str(Path(tmp) / "nope"),
                                            "--cache", tmp])
            finally:
                sys.stderr = saved
        self.assertEqual(code, 1)
        self.assertIn("nope is not a directory", err.getvalue())


if __name__ == "__main__":
    unittest.main()
# typeshed's side: the patch, on a cached copy holding test_typing's SMALL_STUB.

class TypeshedPatchTool(unittest.TestCase):
    """tools/cpython/typeshed.py's patch, on a cached copy holding SMALL_STUB."""

    def setUp(self):
        self.tool = typeshed
        self.scratch = tempfile.mkdtemp(prefix='enum-backport-typeshed-patch-')
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)
        stdlib = os.path.join(self.scratch, 'cache', 'typeshed', 'mypy-0.test', 'typeshed',
                              'stdlib')
        os.makedirs(stdlib)
        with open(os.path.join(stdlib, 'enum.pyi'), 'w') as f:
            f.write(SMALL_STUB)
        with open(os.path.join(stdlib, '..', '..', 'typeshed-ok'), 'w') as f:
            f.write('a stand-in copy\n')
        self.output = os.path.join(self.scratch, 'out', 'typeshed.patch')

    def write_patch(self, issue=150000, author='A Contributor <a@example.org>'):
        return self.tool.write_patch(self.output, issue, author,
                                     cache=os.path.join(self.scratch, 'cache'), mypy='0.test')

    def test_patch(self):
        self.write_patch()
        with open(self.output) as f:
            text = f.read()
        self.assertIn('From: A Contributor <a@example.org>', text)
        self.assertIn('Subject: [PATCH] enum: add EnumType.from_value() and '
                      'EnumType.from_name()', text)
        self.assertIn('See python/cpython#150000.', text)
        self.assertIn('diff --git a/stdlib/enum.pyi b/stdlib/enum.pyi', text)
        self.assertIn('+    if sys.version_info >= (3, 16):\n', text)
        # It applies to typeshed's file as it is, and gives the edit.
        tree = os.path.join(self.scratch, 'typeshed')
        os.makedirs(os.path.join(tree, 'stdlib'))
        with open(os.path.join(tree, 'stdlib', 'enum.pyi'), 'w') as f:
            f.write(SMALL_STUB)
        applied = subprocess.run(['git', 'apply', os.path.abspath(self.output)], cwd=tree,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
        self.assertEqual(applied.returncode, 0, applied.stderr)
        with open(os.path.join(tree, 'stdlib', 'enum.pyi')) as f:
            self.assertEqual(f.read(), self.tool.edit().add_methods(SMALL_STUB))

    def test_refuses_placeholders(self):
        for issue, author in ((None, 'A B <a@example.org>'), (0, 'A B <a@example.org>'),
                              (150000, 'nobody'), (150000, None)):
            with self.subTest(issue=issue, author=author):
                with self.assertRaises(self.tool.ToolError):
                    self.write_patch(issue, author)
                self.assertFalse(os.path.exists(self.output))


