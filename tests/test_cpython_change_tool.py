"""Tests of tools/cpython_change.py and its stages (tools/cpython/) that need no build.

They run the stages on small fake trees and bases made here: an exact apply
and its refusals (nothing changes, the file and git's reason are named), the
3-way merge onto a newer base and its conflicts (named by line), whatsnew
placement with and without an enum subsection, the NEWS rename, the git-am
patch and its `git am -3` check, and the repository's own change files.
"""

import difflib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import cpython_change  # noqa: E402
import debian_root  # noqa: E402
from cpython import apply, base, build, change, docs, obtain, patch, whatsnew  # noqa: E402
from cpython.util import ToolError, cache_dir, run_live, side_by_side  # noqa: E402

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

NEWS_NAME = "2025-01-02-03-04-05.gh-issue-4242.AbCdEf.rst"
NEWS_PATH = "Misc/NEWS.d/next/Library/" + NEWS_NAME


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
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git"] + list(args), cwd=str(tree), env=env, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True).stdout


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
    """A fake 3.13.5 tree, and a fake project holding diffs against it."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cpython-change-test-"))
        self.addCleanup(shutil.rmtree, str(self.tmp))
        self.tree, self.repo = self.tmp / "cpython", self.tmp / "project"
        self.py_old = numbered("code", 20)
        self.py_new = self.py_old.replace("code line 5\n", "code line 5\nadded code\n")
        self.rst_old = numbered("doc", 40)
        self.rst_new = (self.rst_old.replace("doc line 3\n", "doc line 3 changed\n")
                        .replace("doc line 30\n", "doc line 30\nadded doc\n"))
        self.stock = {"Lib/enum.py": self.py_old, "Doc/library/enum.rst": self.rst_old,
                      "Doc/whatsnew/3.13.rst": WHATSNEW}
        for path, text in self.stock.items():
            write(self.tree, path, text)
        write(self.repo, "Lib/enum.py.diff", make_diff("Lib/enum.py", self.py_old, self.py_new))
        write(self.repo, "Doc/library/enum.rst.diff",
              make_diff("Doc/library/enum.rst", self.rst_old, self.rst_new))
        write(self.repo, "Doc/whatsnew/3.13.rst.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
        write(self.repo, NEWS_PATH, "Add a thing.\n")
        self.source = FakeBase("3.13.5", self.stock)

    def read(self, path):
        return (self.tree / path).read_text()

    def apply(self, **kwargs):
        return apply.apply_change(self.tree, change.collect(self.repo), self.source,
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

    def test_clean_apply_changes_every_file(self):
        self.apply(exact_only=True)
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entry(WHATSNEW))
        self.assertEqual(self.read(NEWS_PATH), "Add a thing.\n")

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
        write(self.repo, "Lib/enum.py.diff", make_diff("Lib/other.py", self.py_old, self.py_new))
        with self.assertRaises(ToolError) as caught:
            change.collect(self.repo)
        self.assertIn("enum.py.diff: its header names Lib/other.py", str(caught.exception))

    def test_malformed_diff_is_an_error(self):
        write(self.repo, "Lib/enum.py.diff", "--- a/Lib/enum.py\n+++ b/Lib/enum.py\n@@ junk\n")
        with self.assertRaises(ToolError):
            change.collect(self.repo)

    def test_issue_renames_the_news_entry(self):
        self.apply(issue=98765)
        renamed = "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-98765.AbCdEf.rst"
        self.assertEqual(self.read(renamed), "Add a thing.\n")
        self.assertFalse((self.tree / NEWS_PATH).exists())

    def test_issue_renumbers_the_whatsnew_entry(self):
        # The entry names the NEWS entry's placeholder issue; --issue moves both.
        numbered_entry = ENTRY.replace("a second line.", "a line (:gh:`4242`).")
        write(self.repo, "Doc/whatsnew/3.13.rst.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW, numbered_entry)))
        self.apply(issue=98765)
        text = self.read("Doc/whatsnew/3.13.rst")
        self.assertIn("a line (:gh:`98765`).", text)
        self.assertNotIn("4242", text)

    def test_whatsnew_goes_to_the_newest_file(self):
        newest = without_enum_subsection(WHATSNEW)
        write(self.tree, "Doc/whatsnew/3.15.rst", newest)
        write(self.tree, "Doc/whatsnew/3.9.rst", WHATSNEW)  # 9 > 15 as text only
        self.apply()
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.9.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.15.rst"), whatsnew.insert(newest, ENTRY))
        self.assertIn("enum\n----\n\n" + ENTRY, self.read("Doc/whatsnew/3.15.rst"))

    def test_whatsnew_diff_must_agree_with_the_placement_in_its_own_file(self):
        # The diff puts the entry first in the subsection; the tool puts it last.
        first = WHATSNEW.replace("enum\n----\n\n", "enum\n----\n\n" + ENTRY + "\n")
        write(self.repo, "Doc/whatsnew/3.13.rst.diff",
              make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, first))
        self.assertIn("3.13.rst.diff puts the entry elsewhere", self.refused(exact_only=True))


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

    def test_conflict_is_named_by_its_lines_in_the_newer_file(self):
        newer = "new first line\n" + self.py_old.replace("code line 5\n", "code line 5 (3.15)\n")
        with self.assertRaises(ToolError) as caught:
            self.carry(newer)
        message = str(caught.exception)
        self.assertIn("does not merge onto 3.15.2", message)
        self.assertIn("Lib/enum.py: conflict at lines 6-6 of 3.15.2 Lib/enum.py", message)
        self.assertIn("code line 5 (3.15)", message)
        self.assertFalse((self.tmp / "out" / "Lib" / "enum.py").exists())

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

    def test_block_is_the_added_run_without_surrounding_blank_lines(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = write(tmp, "Doc/whatsnew/3.13.rst.diff",
                           make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
            self.assertEqual(change.whatsnew_block(change.File("Doc/whatsnew/3.13.rst",
                                                               source)), ENTRY)

    def test_block_rejects_removed_lines_and_two_runs(self):
        removing = with_entry(WHATSNEW.replace("* A dis change.\n", ""))
        two = with_entry(WHATSNEW).replace("* Faster things.\n", "* Faster things.\n* More.\n")
        for text in (removing, two):
            with tempfile.TemporaryDirectory() as tmp:
                source = write(tmp, "w.rst.diff", make_diff("w.rst", WHATSNEW, text))
                with self.assertRaises(ToolError):
                    change.whatsnew_block(change.File("w.rst", source))


class NewsNameTests(unittest.TestCase):

    def test_issue_number_replaced(self):
        self.assertEqual(change.news_path_for_issue(NEWS_PATH, 123456),
                         "Misc/NEWS.d/next/Library/"
                         "2025-01-02-03-04-05.gh-issue-123456.AbCdEf.rst")

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
        self.assertTrue([f for f in files if f.is_diff and f.is_lib])
        self.assertEqual(len([f for f in files if f.is_news]), 1)

    def test_whatsnew_diff_is_a_carrier_of_one_block(self):
        carriers = [f for f in change.collect(REPO) if f.is_whatsnew]
        self.assertEqual(len(carriers), 1, carriers)
        self.assertTrue(change.whatsnew_block(carriers[0]).startswith("* "))

    def test_every_diff_applies_exactly_to_the_cached_3135(self):
        source = base.SourceBase(cache_dir())
        if not source.tarball.is_file():
            self.skipTest("the 3.13.5 tarball is not in %s (run cpython_change.py fetch)"
                          % source.tarball.parent)
        files = [f for f in change.collect(REPO) if f.is_diff]
        stock = source.read([f.path for f in files])
        for item in files:
            with self.subTest(item.path):
                self.assertNotEqual(apply.patched(stock[item.path], item), stock[item.path])


class WhitespaceTests(unittest.TestCase):

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
    return source


class PatchTests(Fixture):
    """The git-am patch: Lib against the newest base, the rest against 3.13.5."""

    def test_patch_names_each_files_base_and_git_am_3_merges_it(self):
        source = fake_tarball(self.tmp / "cache", self.stock)
        newer_text = self.py_old.replace("code line 15\n", "code line 15 in 3.15\n")
        newer = FakeBase("3.15.2", {"Lib/enum.py": newer_text})
        files = change.collect(self.repo)
        merged = apply.carry(files, newer, source, self.tmp / "merged", out=io.StringIO())
        output = self.tmp / "gh-4242.patch"
        patch.write(files, source, newer, merged, output, 4242, "A B <a@example.invalid>")
        text = output.read_text()
        self.assertIn("Subject: [PATCH] gh-4242: Add EnumType.from_value()", text)
        self.assertIn("index %s.." % blob_id(newer_text), text)    # Lib: the 3.15.2 file
        self.assertIn("index %s.." % blob_id(self.rst_old), text)  # Doc: the 3.13.5 file
        self.assertIn("b/" + NEWS_PATH, text)
        self.assertIn("+" + ENTRY.splitlines()[0], text)  # into 3.13.rst, its newest

    def test_a_patch_git_am_3_cannot_merge_is_refused(self):
        source = fake_tarball(self.tmp / "cache", self.stock)
        # 3.15's file rewrote the line next to the change: the patch made
        # against it cannot be merged back onto 3.13.5 without a conflict.
        newer_text = self.py_old.replace("code line 6\n", "code line 6 rewritten\n")
        files = change.collect(self.repo)
        merged = self.tmp / "enum.py"
        merged.write_text(newer_text.replace("code line 5\n", "code line 5\nadded code\n"))
        with self.assertRaises(ToolError) as caught:
            patch.write(files, source, FakeBase("3.15.2", {"Lib/enum.py": newer_text}),
                        {"Lib/enum.py": merged}, self.tmp / "p.patch", 1, "A B <a@b.invalid>")
        self.assertIn("git am -3", str(caught.exception))

    def test_author_must_have_a_name_and_an_email(self):
        with self.assertRaises(ToolError):
            patch.author_of("nobody")

    def test_commit_message_is_cpython_style(self):
        subject, blank, body = patch.commit_message(123456).split("\n", 2)
        self.assertRegex(subject, r"^gh-123456: Add EnumType\.from_value\(\) ")
        self.assertLessEqual(len(subject), 72)
        self.assertEqual(blank, "")
        self.assertTrue(all(len(line) <= 72 for line in body.splitlines()))


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
