"""Build and check the Doc tree of 3.13.5 with CPython's own toolchain.

html of the stock and the patched tree (nitpicky, side by side; the patched
one may add no warning), the changed pages' doctests on the patched
interpreter, sphinx-lint, `git diff --check` and blurb (docs/testing.rst,
"Step 1").  Each build gets a venv of its own interpreter with the tree's
Doc/requirements.txt and the sphinx-lint its pre-commit configuration pins:

    venvs/docs-<build>/      the Sphinx venv of a build
    docs/<build>/            html, doctrees, warnings, doctest output
"""

import collections
import re
import shutil
import time
from pathlib import Path

from . import util, whatsnew
from .. import plumbing
from .util import ToolError, clean_env, git, locked, run, run_live, run_logged, say, \
    sha256_file, short_key

DOCTEST_PAGES = ["library/enum.rst", "howto/enum.rst"]
WHITESPACE_RULES = "blank-at-eol,blank-at-eof,space-before-tab,tab-in-indent"
WARNING_RE = re.compile(r"^(?P<path>[^:\s][^:]*?)(?::(?P<line>\d+))?: "
                        r"(?P<level>WARNING|ERROR|CRITICAL|SEVERE): (?P<text>.*)$")


def sphinx_lint_pin(tree):
    """The sphinx-lint version the tree's pre-commit config uses, if any."""
    config = Path(tree) / ".pre-commit-config.yaml"
    match = re.search(r"sphinx-lint\s*\n\s*rev:\s*v?([\w.]+)",
                      config.read_text()) if config.is_file() else None
    return "sphinx-lint==" + match.group(1) if match else "sphinx-lint"


def venv(python, tree, cache):
    """A venv of PYTHON (a build's interpreter) for building TREE's docs."""
    doc, build = Path(tree) / "Doc", Path(python).parents[2].name
    pin = sphinx_lint_pin(tree)
    key = short_key({"pin": pin, "requirements": sha256_file(doc / "requirements.txt")})
    path = Path(cache) / "venvs" / ("docs-%s-%s" % (build, key))
    with locked(path.parent / (".%s.lock" % path.name)):
        if not (path / "venv-ok").is_file():
            say("creating the docs venv %s" % path)
        return plumbing.venv(path, python, ["-r", doc / "requirements.txt", pin],
                             lambda argv: run_live(argv, env=clean_env()))


def html(venv_dir, tree, out, jobs):
    """Build TREE's Doc as html into OUT unless done (one cut short keeps its log and
    warnings only); return the warnings file."""
    warnings, stamp = out / "html-warnings.txt", out / "html-ok"
    with locked(out.parent / (".%s.lock" % out.name)):
        if stamp.is_file():
            say("html up to date: %s" % (out / "html"))
            return warnings
        shutil.rmtree(str(out), ignore_errors=True)
        out.mkdir(parents=True)
        doc = Path(tree) / "Doc"
        # whatsnew/changelog.rst includes Doc/build/NEWS, which `make html`
        # makes from Misc/NEWS in a release tarball.
        (doc / "build").mkdir(exist_ok=True)
        shutil.copyfile(str(Path(tree) / "Misc" / "NEWS"), str(doc / "build" / "NEWS"))
        started = time.monotonic()
        try:
            run_logged([venv_dir / "bin" / "sphinx-build", "--builder", "html", "--doctree-dir",
                        out / "doctrees", "--jobs", jobs, "--nitpicky", "--no-color",
                        "--warning-file", warnings, doc, out / "html"], out / "html.log",
                       cwd=str(doc), env=clean_env())
        except BaseException:
            for part in ("html", "doctrees"):
                shutil.rmtree(str(out / part), ignore_errors=True)
            raise
        stamp.write_text("ok\n")
        say("html of %s built in %.0f s" % (tree, time.monotonic() - started))
    return warnings


def normalised_warnings(text, doc_dir):
    """Sphinx warnings as a Counter of 'relative/path: LEVEL: message', without line
    numbers: warnings of two trees compare equal when only their positions moved."""
    counts = collections.Counter()
    prefix = str(doc_dir).rstrip("/") + "/"
    for line in text.splitlines():
        line = line.replace(prefix, "")
        match = WARNING_RE.match(line)
        if match:
            path = re.sub(r":docstring of .*$", "", match.group("path"))
            counts["%s: %s: %s" % (path, match.group("level"), match.group("text"))] += 1
        elif re.search(r"\b(WARNING|ERROR)\b", line):
            counts[re.sub(r":\d+:", ":", line)] += 1
    return counts


def changed_paths(files, tree):
    """The paths in TREE that the change edits or adds."""
    newest = whatsnew.newest(tree)
    paths = []
    for f in files:  # a path both PRs change once
        path = newest if f.is_whatsnew else f.path
        if path not in paths:
            paths.append(path)
    return paths


def whitespace_problems(stock_tree, tree, paths):
    """`git diff --check` of each changed file against its stock version."""
    problems = []
    for path in paths:
        before = Path(stock_tree) / path
        proc = git("-c", "core.whitespace=" + WHITESPACE_RULES, "diff", "--no-index",
                   "--check", before if before.is_file() else "/dev/null", path,
                   cwd=str(tree), check=False)
        problems += [line for line in proc.stdout.splitlines()
                     if re.match(r"^\S.*:\d+: ", line)]
        if not (Path(tree) / path).read_bytes().endswith(b"\n"):
            problems.append("%s: no newline at the end" % path)
    return problems


def news_problems(venv_dir, tree, files):
    """Let blurb parse each NEWS entry the change adds, as `blurb merge` would."""
    script = ("import sys\n"
              "try:\n"
              "    from blurb._blurb_file import Blurbs  # blurb 2.1 and later\n"
              "except ImportError:\n"
              "    from blurb.blurb import Blurbs\n"
              "b = Blurbs()\n"
              "b.load_next(sys.argv[1])\n"
              "print(b[0][0])\n")
    problems = []
    for item in files:
        if item.is_news:
            proc = run([venv_dir / "bin" / "python", "-c", script, Path(tree) / item.path],
                       check=False, env=clean_env())
            if proc.returncode != 0:
                message = "\n".join(proc.stdout.strip().splitlines()[-2:])
                problems.append("%s: blurb rejects it:\n%s" % (item.path, message))
    return problems


class Html:
    """The stock and the patched html builds, side by side, in the background (beside
    the test stage); `wait` gives {kind: (venv, tree, out, warnings file)}."""

    def __init__(self, stock_python, patched_python, cache, jobs=2):
        self.results = {}
        self.threads = [util.Thread(target=self._build, args=(kind, python, cache, jobs))
                        for kind, python in (("stock", stock_python),
                                             ("patched", patched_python))]
        for thread in self.threads:
            thread.start()

    def _build(self, kind, python, cache, jobs):
        try:
            tree = Path(python).parents[2] / "src"
            venv_dir = venv(python, tree, cache)
            out = Path(cache) / "docs" / Path(python).parents[2].name
            self.results[kind] = (venv_dir, tree, out, html(venv_dir, tree, out, jobs))
        except ToolError as error:
            self.results[kind] = error

    def wait(self):
        for thread in self.threads:
            util.join(thread)
        for kind in ("stock", "patched"):
            if isinstance(self.results.get(kind), ToolError):
                raise self.results[kind]
            if kind not in self.results:
                raise ToolError("the %s html build did not finish (see above)" % kind)
        return self.results


# What test_enum's load_tests does with the two pages when it runs from a
# source tree: every example on them, literal blocks included, as one
# doctest file each (an installed interpreter's test_enum finds no Doc/).
PAGE_DOCTEST_CODE = """\
import doctest, sys
for path in sys.argv[1:]:
    result = doctest.testfile(path, module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    print(path, result.attempted, result.failed)
"""


def page_doctest_problems(python, doc):
    """Run the pages' examples as test_enum does; a page with none fails too."""
    pages = [doc / page for page in DOCTEST_PAGES]
    done = run([python, "-c", PAGE_DOCTEST_CODE] + pages, check=False, env=clean_env())
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        return ["the pages' examples could not be run:\n" + done.stdout]
    problems = []
    for line in done.stdout.splitlines()[-len(pages):]:
        path, attempted, failed = line.rsplit(" ", 2)
        page = Path(path).relative_to(doc)
        say("examples of %s as test_enum runs them: %s run, %s failed"
            % (page, attempted, failed))
        if int(failed) or not int(attempted):
            problems.append("examples of %s: %s run, %s failed" % (page, attempted, failed))
    return problems


def check(files, builds):
    """Everything in this module's docstring, after BUILDS (an Html) finish."""
    results = builds.wait()
    venvs = {kind: r[0] for kind, r in results.items()}
    trees = {kind: r[1] for kind, r in results.items()}
    warnings = {kind: (r[2], r[3]) for kind, r in results.items()}
    counts = {kind: normalised_warnings(warnings[kind][1].read_text(), trees[kind] / "Doc")
              for kind in results}
    new = counts["patched"] - counts["stock"]
    say("html warnings: stock %d, patched %d, new %d"
        % (sum(counts["stock"].values()), sum(counts["patched"].values()), sum(new.values())))
    problems = ["new Sphinx warning: " + w for w in sorted(new)]

    doc, out = trees["patched"] / "Doc", warnings["patched"][0]
    say("Sphinx doctests of %s with the patched enum" % ", ".join(DOCTEST_PAGES))
    code = run_live([venvs["patched"] / "bin" / "sphinx-build", "--builder", "doctest",
                     "--doctree-dir", out / "doctrees", "--nitpicky", "--no-color", doc,
                     out / "doctest"] + [doc / page for page in DOCTEST_PAGES],
                    env=clean_env())
    if code != 0:
        problems.append("Sphinx doctests failed in %s (see above)" % ", ".join(DOCTEST_PAGES))
    problems += page_doctest_problems(venvs["patched"] / "bin" / "python", doc)

    paths = changed_paths(files, trees["patched"])
    rst = [trees["patched"] / p for p in paths if p.endswith(".rst")]
    lint = run([venvs["patched"] / "bin" / "sphinx-lint", "--enable=default-role"] + rst,
               check=False, env=clean_env())
    if lint.returncode != 0:
        problems.append("sphinx-lint:\n" + lint.stdout.strip())
    else:
        say("sphinx-lint clean on %d files" % len(rst))
    spaces = whitespace_problems(trees["stock"], trees["patched"], paths)
    problems += ["whitespace: " + p for p in spaces]
    if not spaces:
        say("git diff --check (%s) clean on %d files" % (WHITESPACE_RULES, len(paths)))
    problems += news_problems(venvs["patched"], trees["patched"], files)
    if problems:
        raise ToolError("docs checks failed:\n  " + "\n  ".join(problems))
    say("docs: no new warnings, doctests pass, sphinx-lint, whitespace and blurb clean")
