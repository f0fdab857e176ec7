"""Tests of tools/cpython_change.py that need no CPython build.

They run the tool's apply logic on small fake trees made here: a conflict
leaves the tree untouched and names the failing hunk, the whatsnew entry is
moved to the newest whatsnew file, the NEWS entry is renamed for an issue,
and a git checkout falls back to a 3-way merge.  They also check the
repository's own diffs: well formed, aimed at their own path, and adding no
trailing whitespace or tabs.
"""

import difflib
import importlib.util
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOL_PATH = REPO / "tools" / "cpython_change.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("cpython_change", str(TOOL_PATH))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = load_tool()

HAVE_PATCH = shutil.which("patch") is not None
HAVE_GIT = shutil.which("git") is not None

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

ENTRY = """\
* Add :meth:`EnumType.from_value() <enum.EnumType.from_value>`
  and a second line.
"""

NEWS_NAME = "2025-01-02-03-04-05.gh-issue-4242.AbCdEf.rst"
NEWS_PATH = "Misc/NEWS.d/next/Library/" + NEWS_NAME


def numbered(prefix, count):
    return "".join("%s line %d\n" % (prefix, n) for n in range(1, count + 1))


def make_diff(path, old, new):
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 "a/" + path, "b/" + path)
    return "".join(lines)


def without_enum_subsection(text):
    start = text.index("enum\n----\n")
    return text[:start] + text[text.index("fractions\n---"):]


def with_entry(text):
    anchor = "* An earlier enum change.\n"
    return text.replace(anchor, anchor + "\n" + ENTRY)


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


class FakeCheckout(unittest.TestCase):
    """A fake CPython tree and a fake project repo holding diffs against it."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cpython-change-test-"))
        self.addCleanup(shutil.rmtree, str(self.tmp))
        self.tree = self.tmp / "cpython"
        self.repo = self.tmp / "project"
        self.cache = self.tmp / "cache"  # empty: no tarball
        self.py_old = numbered("code", 20)
        self.py_new = self.py_old.replace("code line 5\n", "code line 5\nadded code\n")
        self.rst_old = numbered("doc", 40)
        self.rst_new = (self.rst_old.replace("doc line 3\n", "doc line 3 changed\n")
                        .replace("doc line 30\n", "doc line 30\nadded doc\n"))
        self.write(self.tree, "Lib/enum.py", self.py_old)
        self.write(self.tree, "Doc/library/enum.rst", self.rst_old)
        self.write(self.tree, "Doc/whatsnew/3.13.rst", WHATSNEW)
        self.write(self.repo, "Lib/enum.py.diff",
                   make_diff("Lib/enum.py", self.py_old, self.py_new))
        self.write(self.repo, "Doc/library/enum.rst.diff",
                   make_diff("Doc/library/enum.rst", self.rst_old, self.rst_new))
        self.write(self.repo, "Doc/whatsnew/3.13.rst.diff",
                   make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
        self.write(self.repo, NEWS_PATH, "Add a thing.\n")

    @staticmethod
    def write(root, path, text):
        target = Path(root) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, path):
        return (self.tree / path).read_text()

    def apply(self, **kwargs):
        kwargs.setdefault("use_git", False)
        return tool.apply_change(self.tree, self.repo, cache=self.cache, **kwargs)


@unittest.skipUnless(HAVE_PATCH, "GNU patch is not installed")
class PlainTreeApplyTests(FakeCheckout):

    def test_clean_apply_changes_every_file(self):
        self.assertEqual(self.apply(), [])
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), with_entry(WHATSNEW))
        self.assertEqual(self.read(NEWS_PATH), "Add a thing.\n")

    def test_conflicting_hunk_changes_nothing_and_is_named(self):
        # The tree moved on under the second hunk of enum.rst's diff.
        self.write(self.tree, "Doc/library/enum.rst",
                   self.rst_old.replace("doc line 31\n", "doc line 31 edited upstream\n"))
        before = snapshot(self.tree)
        with self.assertRaises(tool.ToolError) as caught:
            self.apply()
        message = str(caught.exception)
        second = tool.parse_diff((self.repo / "Doc/library/enum.rst.diff").read_text()).hunks[1]
        self.assertIn("nothing was changed", message)
        self.assertIn("Doc/library/enum.rst: hunk #2 (%s) does not apply" % second.header,
                      message)
        self.assertNotIn("hunk #1", message)
        self.assertNotIn("Lib/enum.py", message)
        self.assertEqual(snapshot(self.tree), before)

    def test_second_apply_is_refused_and_changes_nothing(self):
        self.apply()
        before = snapshot(self.tree)
        with self.assertRaises(tool.ToolError) as caught:
            self.apply()
        self.assertIn("Lib/enum.py: the change looks already applied", str(caught.exception))
        self.assertIn(NEWS_PATH + ": already exists", str(caught.exception))
        self.assertEqual(snapshot(self.tree), before)

    def test_missing_target_file_changes_nothing(self):
        (self.tree / "Lib/enum.py").unlink()
        before = snapshot(self.tree)
        with self.assertRaises(tool.ToolError) as caught:
            self.apply()
        self.assertIn("Lib/enum.py: not in the tree", str(caught.exception))
        self.assertEqual(snapshot(self.tree), before)

    def test_diff_header_must_name_its_own_path(self):
        self.write(self.repo, "Lib/enum.py.diff",
                   make_diff("Lib/other.py", self.py_old, self.py_new))
        before = snapshot(self.tree)
        with self.assertRaises(tool.ToolError) as caught:
            self.apply()
        self.assertIn("header names 'Lib/other.py'", str(caught.exception))
        self.assertEqual(snapshot(self.tree), before)

    def test_issue_renames_the_news_entry(self):
        self.apply(issue=98765)
        renamed = "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-98765.AbCdEf.rst"
        self.assertEqual(self.read(renamed), "Add a thing.\n")
        self.assertFalse((self.tree / NEWS_PATH).exists())

    def test_whatsnew_goes_to_the_newest_file(self):
        newest = without_enum_subsection(WHATSNEW)
        self.write(self.tree, "Doc/whatsnew/3.15.rst", newest)
        self.write(self.tree, "Doc/whatsnew/3.9.rst", WHATSNEW)  # 9 > 15 as text only
        self.apply()
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.9.rst"), WHATSNEW)
        self.assertEqual(self.read("Doc/whatsnew/3.15.rst"),
                         tool.insert_whatsnew_block(newest, ENTRY))
        self.assertIn("enum\n----\n\n" + ENTRY, self.read("Doc/whatsnew/3.15.rst"))

    def test_whatsnew_entry_is_not_added_twice(self):
        self.write(self.tree, "Doc/whatsnew/3.15.rst", with_entry(WHATSNEW))
        (self.tree / "Lib/enum.py").unlink()  # keep the other files from applying
        with self.assertRaises(tool.ToolError) as caught:
            self.apply()
        self.assertIn("Doc/whatsnew/3.15.rst: already holds the whatsnew entry",
                      str(caught.exception))


@unittest.skipUnless(HAVE_GIT, "git is not installed")
class GitCheckoutApplyTests(FakeCheckout):
    """A contributor's checkout: the base is tagged v3.13.5, main has moved on."""

    def setUp(self):
        super().setUp()
        git(self.tree, "init", "-q")
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "base")
        git(self.tree, "tag", tool.BASE_TAG)

    def commit_main(self, rst_text):
        self.write(self.tree, "Doc/library/enum.rst", rst_text)
        self.write(self.tree, "Doc/whatsnew/3.15.rst", without_enum_subsection(WHATSNEW))
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "main moves on")

    def test_clean_apply(self):
        self.assertEqual(self.apply(use_git=None), [])
        self.assertEqual(self.read("Doc/library/enum.rst"), self.rst_new)

    def test_falls_back_to_three_way_merge(self):
        # A line inside hunk #2's context changed: a plain apply fails, a merge does not.
        moved = self.rst_old.replace("doc line 29\n", "doc line 29 edited upstream\n")
        self.commit_main(moved)
        self.assertEqual(self.apply(use_git=None), [])
        self.assertEqual(self.read("Doc/library/enum.rst"),
                         self.rst_new.replace("doc line 29\n", "doc line 29 edited upstream\n"))
        self.assertEqual(self.read("Lib/enum.py"), self.py_new)
        self.assertIn(ENTRY, self.read("Doc/whatsnew/3.15.rst"))
        self.assertEqual(self.read("Doc/whatsnew/3.13.rst"), WHATSNEW)

    def test_conflict_is_left_for_the_contributor(self):
        self.commit_main(self.rst_old.replace("doc line 30\n", "doc line 30 edited\n"))
        self.assertEqual(self.apply(use_git=None), ["Doc/library/enum.rst"])
        self.assertIn("<<<<<<<", self.read("Doc/library/enum.rst"))
        self.assertIn("Doc/library/enum.rst", git(self.tree, "diff", "--name-only",
                                                  "--diff-filter=U"))


class WhatsnewTests(unittest.TestCase):

    def test_newest_is_chosen_by_version_number(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "Doc" / "whatsnew"
            folder.mkdir(parents=True)
            for name in ("2.7.rst", "3.9.rst", "3.13.rst", "3.15.rst", "changelog.rst"):
                (folder / name).write_text("x\n")
            self.assertEqual(tool.newest_whatsnew(tmp), "Doc/whatsnew/3.15.rst")

    def test_entry_goes_at_the_end_of_an_existing_enum_subsection(self):
        result = tool.insert_whatsnew_block(WHATSNEW, ENTRY)
        self.assertEqual(result, with_entry(WHATSNEW))

    def test_missing_subsection_is_created_in_alphabetical_position(self):
        result = tool.insert_whatsnew_block(without_enum_subsection(WHATSNEW), ENTRY)
        self.assertIn("* A dis change.\n\n\nenum\n----\n\n" + ENTRY
                      + "\n\nfractions\n---------\n", result)
        self.assertEqual(result.count("enum\n----\n"), 1)

    def test_missing_subsection_created_last_when_it_sorts_last(self):
        text = WHATSNEW.replace("enum\n----\n\n* An earlier enum change.\n\n\n", "")
        text = text.replace("fractions\n---------\n\n* A fractions change.\n\n\n", "")
        result = tool.insert_whatsnew_block(text, ENTRY)
        self.assertIn("* A dis change.\n\n\nenum\n----\n\n" + ENTRY
                      + "\n\nOptimizations\n=============\n", result)

    def test_section_title_matches_whatever_its_case(self):
        text = WHATSNEW.replace("Improved Modules\n", "Improved modules\n")
        self.assertIn("* An earlier enum change.\n\n" + ENTRY,
                      tool.insert_whatsnew_block(text, ENTRY))

    def test_an_enum_subsection_elsewhere_is_not_used(self):
        text = WHATSNEW.replace("Optimizations\n=============\n\n",
                                "Optimizations\n=============\n\nenum\n----\n\n* Quick.\n\n")
        result = tool.insert_whatsnew_block(without_enum_subsection(text), ENTRY)
        self.assertLess(result.index(ENTRY), result.index("Optimizations"))

    def test_no_improved_modules_section_is_an_error(self):
        with self.assertRaises(tool.ToolError):
            tool.insert_whatsnew_block("Title\n=====\n\nText.\n", ENTRY)

    def test_block_is_the_added_run_without_surrounding_blank_lines(self):
        diff = tool.parse_diff(make_diff("Doc/whatsnew/3.13.rst", WHATSNEW, with_entry(WHATSNEW)))
        self.assertEqual(tool.whatsnew_block(diff), ENTRY)

    def test_block_rejects_removed_lines_and_extra_hunks(self):
        removing = WHATSNEW.replace("* A dis change.\n", "")
        diff = tool.parse_diff(make_diff("w.rst", WHATSNEW, with_entry(removing)))
        with self.assertRaises(tool.ToolError):
            tool.whatsnew_block(diff)
        two = with_entry(WHATSNEW).replace("* Faster things.\n", "* Faster things.\n* More.\n")
        diff = tool.parse_diff(make_diff("w.rst", WHATSNEW, two))
        with self.assertRaises(tool.ToolError):
            tool.whatsnew_block(diff)

    def test_repository_whatsnew_diff_follows_the_format(self):
        changes = [c for c in tool.collect_changes(REPO)
                   if c.is_diff and tool.is_whatsnew(c.path)]
        self.assertEqual(len(changes), 1, changes)
        block = tool.whatsnew_block(tool.read_diff(changes[0]))
        self.assertTrue(block.startswith("* "), block)


class NewsNameTests(unittest.TestCase):

    def test_issue_number_replaced(self):
        self.assertEqual(tool.news_path_for_issue(NEWS_PATH, 123456),
                         "Misc/NEWS.d/next/Library/"
                         "2025-01-02-03-04-05.gh-issue-123456.AbCdEf.rst")

    def test_issue_number_added_to_a_name_without_one(self):
        self.assertEqual(
            tool.news_path_for_issue("Misc/NEWS.d/next/Library/2025-01-02-03-04-05.Xy_z-9.rst",
                                     77777),
            "Misc/NEWS.d/next/Library/2025-01-02-03-04-05.gh-issue-77777.Xy_z-9.rst")

    def test_name_not_made_by_blurb_is_an_error(self):
        with self.assertRaises(tool.ToolError):
            tool.news_path_for_issue("Misc/NEWS.d/next/Library/my-entry.rst", 1)

    def test_issue_read_from_name(self):
        self.assertEqual(tool.news_issue(NEWS_PATH), 4242)
        self.assertIsNone(tool.news_issue("Misc/NEWS.d/next/Library/2025-01-02-03-04-05.x.rst"))


class DiffParsingTests(unittest.TestCase):

    def test_removed_line_that_looks_like_a_header(self):
        old = "title\n-- a dashed line\nend\n"
        diff = tool.parse_diff(make_diff("x.rst", old, "title\nend\n"))
        self.assertEqual(len(diff.hunks), 1)
        self.assertIn("--- a dashed line\n", diff.hunks[0].lines)

    def test_added_lines_carry_new_file_line_numbers(self):
        old = numbered("l", 10)
        new = old.replace("l line 7\n", "l line 7\nnew\n")
        diff = tool.parse_diff(make_diff("x", old, new))
        self.assertEqual(tool.added_lines(diff), [(8, "new\n")])

    def test_two_files_in_one_diff_is_an_error(self):
        text = make_diff("a", "1\n", "2\n") + make_diff("b", "1\n", "2\n")
        with self.assertRaises(tool.ToolError):
            tool.parse_diff(text)


class RepositoryChangeTests(unittest.TestCase):
    """The repository's own diffs and new files."""

    def test_every_diff_is_well_formed_and_names_its_path(self):
        diffs = [c for c in tool.collect_changes(REPO) if c.is_diff]
        self.assertTrue(diffs)
        for change in diffs:
            with self.subTest(change.path):
                self.assertTrue(tool.read_diff(change).hunks)

    def test_no_trailing_whitespace_or_tabs_added(self):
        self.assertEqual(tool.whitespace_problems(REPO), [])

    def test_whitespace_check_finds_planted_problems(self):
        with tempfile.TemporaryDirectory() as tmp:
            FakeCheckout.write(tmp, "Lib/x.py.diff",
                               make_diff("Lib/x.py", "a\nb\n", "a\nc = 1 \n\td\nb\n"))
            FakeCheckout.write(tmp, "Misc/NEWS.d/next/Library/n.rst", "Text.\t\nno end")
            problems = tool.whitespace_problems(Path(tmp))
        self.assertEqual(problems, [
            "Lib/x.py.diff:2: trailing whitespace",
            "Lib/x.py.diff:3: tab",
            "Misc/NEWS.d/next/Library/n.rst:1: trailing whitespace",
            "Misc/NEWS.d/next/Library/n.rst:1: tab",
            "Misc/NEWS.d/next/Library/n.rst: no newline at the end",
        ])


class SphinxWarningTests(unittest.TestCase):
    """Warnings of the stock and patched Doc trees compare without paths and lines."""

    def test_only_really_new_warnings_remain(self):
        stock = ("/s/Doc/library/a.rst:10: WARNING: py:class reference target not found: X\n"
                 "/s/Doc/library/b.rst: WARNING: document isn't included in any toctree\n")
        patched = ("/p/Doc/library/a.rst:14: WARNING: py:class reference target not found: X\n"
                   "/p/Doc/library/b.rst: WARNING: document isn't included in any toctree\n"
                   "/p/Doc/library/a.rst:40: WARNING: py:meth reference target not found: Y\n"
                   "/p/Doc/library/a.rst:12: WARNING: py:class reference target not found: X\n")
        new = (tool.normalised_warnings(patched, "/p/Doc")
               - tool.normalised_warnings(stock, "/s/Doc"))
        self.assertEqual(dict(new), {
            "library/a.rst: WARNING: py:meth reference target not found: Y": 1,
            "library/a.rst: WARNING: py:class reference target not found: X": 1,
        })


class PruneTests(unittest.TestCase):

    def test_only_the_newest_patched_builds_are_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            for age, key in enumerate(["new", "mid", "old"]):
                build = cache / "builds" / ("patched-" + key)
                build.mkdir(parents=True)
                (build / "build-ok").write_text("ok\n")
                os.utime(str(build / "build-ok"), (1000 - age, 1000 - age))
                (cache / "docs" / ("patched-" + key)).mkdir(parents=True)
                (cache / "venvs" / ("docs-patched-%s-abc" % key)).mkdir(parents=True)
            (cache / "builds" / "stock-x").mkdir()
            (cache / "builds" / "patched-unfinished").mkdir()
            tool.prune_patched_builds(cache, keep=2)
            left = sorted(p.relative_to(cache).as_posix() for p in cache.glob("*/*"))
        self.assertEqual(left, [
            "builds/patched-mid", "builds/patched-new", "builds/patched-unfinished",
            "builds/stock-x", "docs/patched-mid", "docs/patched-new",
            "venvs/docs-patched-mid-abc", "venvs/docs-patched-new-abc",
        ])


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
        written = tool.ensure_deb_src(self.apt)
        text = written.read_text()
        self.assertIn("Types: deb-src\n", text)
        self.assertIn("URIs: http://mirror.example/debian\n", text)
        self.assertIn("Suites: trixie\n", text)
        self.assertIsNone(tool.ensure_deb_src(self.apt))  # now present: nothing to do

    def test_one_line_sources_list_is_read(self):
        (self.apt / "sources.list").write_text(
            "deb [arch=amd64] http://other.example/debian bookworm main\n")
        text = tool.ensure_deb_src(self.apt).read_text()
        self.assertIn("URIs: http://other.example/debian\n", text)

    def test_existing_entry_is_left_alone(self):
        (self.apt / "sources.list").write_text(
            "deb http://a.example/debian bookworm main\n"
            "deb-src http://a.example/debian trixie main\n")
        self.assertIsNone(tool.ensure_deb_src(self.apt))
        self.assertEqual(list((self.apt / "sources.list.d").iterdir()), [])

    def test_disabled_entry_does_not_count(self):
        (self.apt / "sources.list.d" / "x.sources").write_text(
            "Types: deb deb-src\nURIs: http://b.example/debian\nSuites: trixie\n"
            "Components: main\nEnabled: no\n\n"
            "Types: deb\nURIs: http://b.example/debian\nSuites: bookworm\n")
        self.assertIsNotNone(tool.ensure_deb_src(self.apt))


class CommandLineTests(unittest.TestCase):

    def test_help_lists_every_command(self):
        text = tool.make_parser().format_help()
        for command in ("fetch", "apply", "build", "test", "docs", "patch", "all"):
            self.assertIn(command, text)

    def test_commit_message_is_cpython_style(self):
        message = tool.commit_message(123456)
        subject, blank, body = message.split("\n", 2)
        self.assertRegex(subject, r"^gh-123456: Add EnumType\.from_value\(\) ")
        self.assertLessEqual(len(subject), 72)
        self.assertEqual(blank, "")
        self.assertTrue(all(len(line) <= 72 for line in body.splitlines()))


if __name__ == "__main__":
    unittest.main()
