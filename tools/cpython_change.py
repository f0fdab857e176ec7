#!/usr/bin/env python3
"""Apply and prove this project's change to CPython, on every base there is here.

The repository holds the change as CPython lays out its tree: under Lib/,
Doc/ and Misc/ a file ``X.diff`` is a unified diff against CPython 3.13.5's
``X``, and any other file is a new file.  A *base* is a tree of CPython
files plus the interpreter that runs them (tools/cpython/base.py):

    3.13.5   the release tarball, built from source (stock and patched)
    3.13.5t  the same, built free-threaded (--disable-gil); test stage only
    3.14     Debian unstable's binary, Lib files from its packages
    3.15     the same, and its debug build for the refleak runs

`all` runs the stages in order, each a module of tools/cpython/:

    obtain   the 3.13.5 tarball; the Debian root (made in the background)
    build    stock 3.13.5, then patched 3.13.5 from a copy of the stock tree
    carry    the Lib diffs merged 3-way (base 3.13.5) onto 3.14's and 3.15's
    test     stdlib suites and this project's tests on each patched base,
             then `-R 3:3 test_enum` on 3.15's debug build, merged and stock
    docs     html (stock and patched), doctests, sphinx-lint, whitespace, blurb
    patch    the git-am patch: Lib/ against the newest base, the rest 3.13.5

Everything downloaded or built is cached under $ENUM_FROM_VALUE_CACHE
(default ~/.cache/enum-from-value) and reused when its inputs are unchanged.
Needs Python 3.8 or newer, git, tar, and for building a C toolchain with
CPython's usual build dependencies; the Debian bases need root.
"""

import argparse
import hashlib
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from cpython import apply, build, change, docs, obtain, patch, test
from cpython.base import RUN_DIR, Interpreter, SourceBase
from cpython.util import ToolError, cache_dir, say, short_key, side_by_side

DEFAULT_REPO = Path(__file__).resolve().parent.parent


class Run:
    """What one command works on: the change, the cache, the bases."""

    def __init__(self, args):
        self.args = args
        self.cache = cache_dir(args.cache)
        self.checkout = Path(args.repo).resolve()  # its tests/ run on every base
        self.change_dir = self.checkout  # where the change files are read
        self.source = SourceBase(self.cache)
        self._newer = None
        self.versions = {}
        self.html = None  # docs.Html, once started

    @property
    def files(self):
        return change.collect(self.change_dir)

    def newer(self):
        """The Debian bases, described (their exact versions) once."""
        if self._newer is None:
            self._newer = obtain.newer_bases(self.cache)
            for base in self._newer:
                self.versions[base.name] = base.describe()
        return self._newer

    def pick(self, names):
        """The newer bases named (all of them for None)."""
        chosen = [b for b in self.newer() if names is None or b.name in names]
        unknown = set(names or ()) - {b.name for b in self.newer()} - {
            self.source.version, self.source.version + "t"}
        if unknown:
            raise ToolError("no such base: %s (there are %s)" % (", ".join(sorted(unknown)),
                            ", ".join([self.source.version, self.source.version + "t"]
                                      + [b.name for b in self.newer()])))
        return chosen

    def carried(self, base):
        """The Lib files of the change merged onto BASE, kept in the cache."""
        files = self.files
        stock = base.read([f.path for f in files if f.is_lib and f.is_diff])
        key = short_key({"change": change.digest(self.change_dir),
                         "base": {p: hashlib.sha256(d).hexdigest() for p, d in stock.items()}})
        return apply.carry(files, base, self.source,
                           self.cache / "merged" / ("%s-%s" % (base.version, key)))


def cmd_fetch(run):
    """Put the 3.13.5 tarball into the cache: from --tarball, or with apt (--apt-source)."""
    obtain.tarball(run.cache, run.args.tarball, run.args.apt_source)


def cmd_apply(run):
    """Apply the change to --tree: exactly where it applies, else by a 3-way merge."""
    apply.apply_change(run.args.tree, run.files, run.source, issue=run.args.issue)


def cmd_build(run):
    """Build stock and/or patched 3.13.5 (default: both); print the interpreter paths."""
    kinds = [k for k in ("stock", "patched") if getattr(run.args, k)] or ["stock", "patched"]
    t = run.args.freethreaded
    for kind in kinds:
        python = (build.stock(run.source, run.args.jobs, t) if kind == "stock"
                  else build.patched(run.source, run.change_dir, run.args.jobs, t))
        run.versions[run.source.version] = run.source.describe(python)
        print(python, flush=True)


def cmd_carry(run):
    """Merge the Lib diffs onto each newer base's files; print where they are."""
    for base in run.pick(run.args.base):
        print(Path(next(iter(run.carried(base).values()))).parents[1], flush=True)


def cmd_test(run):
    """Prove the change on each base, and check 3.15's debug build for refleaks.

    The bases are tested side by side (their suites wait more than they
    compute: test_socket alone waits a minute), each with regrtest -jN.
    The free-threaded 3.13.5t is built in its job, beside the others' suites.
    """
    names, jobs = run.args.base, []
    if names is None or run.source.version in names:
        python = build.patched(run.source, run.change_dir, run.args.jobs)
        run.versions[run.source.version] = run.source.describe(python)
        jobs.append((run.source.version, lambda out: prove_source(run, python, out)))
    if names is None or run.source.version + "t" in names:
        jobs.append((run.source.version + "t", lambda out: prove_freethreaded(run, out)))
    for base in run.pick(names):
        merged = run.carried(base)
        jobs.append((base.version, lambda out, b=base, m=merged: prove_debian(run, b, m, out)))
        if base.debug_python:
            jobs.append(("refleaks " + base.version,
                         lambda out, b=base, m=merged: test.refleaks(b, m, out)))
    side_by_side(jobs)


def prove_source(run, python, out):
    say("=== %s: %s ===" % (run.source.version, run.versions[run.source.version]), out)
    root = python.parents[2]
    with tempfile.TemporaryDirectory(prefix="cpython-test-") as work:
        test.prove(run.source.interpreter(python), root / "src" / "Lib" / "enum.py",
                   run.checkout, run.cache / "venvs" / ("native-" + root.name),
                   run.args.jobs, work_dir=work, out=out)


def prove_freethreaded(run, out):
    """As prove_source, on the patched free-threaded build (built here if need be)."""
    python = build.patched(run.source, run.change_dir, run.args.jobs, freethreaded=True)
    say("=== %st: %s, free-threaded (--disable-gil; the GIL checked off) ==="
        % (run.source.version, run.source.describe(python)), out)
    root = python.parents[2]
    # For the venv: hypothesis's newest releases are an sdist that needs
    # Rust on a free-threaded CPython; the newest with a wheel will do.
    interp = Interpreter("patched %st (built from source, free-threaded)"
                         % run.source.version, python, env={"PIP_ONLY_BINARY": "hypothesis"})
    with tempfile.TemporaryDirectory(prefix="cpython-test-") as work:
        test.prove(interp, root / "src" / "Lib" / "enum.py", run.checkout,
                   run.cache / "venvs" / ("native-" + root.name),
                   run.args.jobs, work_dir=work, out=out)


def prove_debian(run, base, merged, out):
    say("=== %s: %s ===" % (base.version, run.versions[base.name]), out)
    with base.interpreter(overlay=merged, binds={run.checkout: run.checkout}) as interp:
        test.prove(interp, merged["Lib/enum.py"], run.checkout,
                   run.cache / "venvs" / ("native-python%s" % base.version),
                   run.args.jobs, work_dir=RUN_DIR, out=out)


def cmd_docs(run):
    """Build both Doc trees, compare warnings, run the enum doctests and the linters."""
    if run.html is None:
        start_html(run)
    docs.check(run.files, run.html)


def start_html(run):
    """Start the html builds of docs, to run beside the test stage."""
    run.html = docs.Html(build.stock(run.source, run.args.jobs),
                         build.patched(run.source, run.change_dir, run.args.jobs),
                         run.cache, run.args.jobs)


def cmd_patch(run):
    """Write the git-am patch: Lib/ against the newest base, the rest against 3.13.5."""
    files = run.files
    issue = run.args.issue if run.args.issue is not None else change.issue_of(files)
    if issue is None:
        raise ToolError("no issue number: pass --issue N")
    output = Path(run.args.output or run.cache / "patches" / ("gh-%d.patch" % issue))
    if run.args.lib_base == run.source.version:
        with tempfile.TemporaryDirectory(prefix="cpython-patch-") as scratch:
            merged = {}
            for item in files:
                if item.is_lib and item.is_diff:
                    merged[item.path] = Path(scratch) / item.path.replace("/", "_")
                    merged[item.path].write_bytes(apply.patched(
                        run.source.read([item.path])[item.path], item))
            patch.write(files, run.source, run.source, merged, output, issue, run.args.author)
    else:
        lib_base = run.pick([run.args.lib_base] if run.args.lib_base else None)[-1]
        patch.write(files, run.source, lib_base, run.carried(lib_base), output, issue,
                    run.args.author)
    print(output, flush=True)


def cmd_versions(run):
    """Print the exact version of every base."""
    run.newer()
    python = build.stock_dir(run.source) / "prefix" / "bin" / build.INTERPRETER
    if python.is_file():
        run.versions[run.source.version] = run.source.describe(python)
    print_versions(run)


def print_versions(run):
    print("bases:")
    for name in sorted(run.versions, key=lambda n: tuple(int(p) for p in n.split("."))):
        print("  %-7s %s" % (name, run.versions[name]))


def cmd_all(run):
    """obtain, build, test (carry included), docs, patch; stop at the first failure."""
    steps = [("fetch", cmd_fetch),
             ("build stock", lambda r: build.stock(r.source, r.args.jobs)),
             ("build patched", lambda r: build.patched(r.source, r.change_dir, r.args.jobs)),
             ("docs html, started", start_html), ("test", cmd_test), ("docs", cmd_docs),
             ("patch", cmd_patch)]
    run.args.output = run.args.author = run.args.base = run.args.lib_base = None
    # The root is made (once; minutes of downloads) while 3.13.5 builds.
    root = threading.Thread(target=lambda: _quietly(run.newer))
    root.start()
    results, failed = [], False
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as snapshot:
        # Every step proves one copy of the change files, so an edit made
        # while this runs cannot leave the steps proving different versions.
        run.change_dir = change.snapshot(run.change_dir, snapshot)
        for name, step in steps:
            if name == "test":
                root.join()
            started = time.monotonic()
            say("=== %s ===" % name)
            try:
                step(run)
                code = 0
            except ToolError as error:
                print("error: %s" % error, file=sys.stderr, flush=True)
                code = 1
            results.append((name, code, time.monotonic() - started))
            if code:
                failed = True
                break
    root.join()
    if run.html is not None:
        try:
            run.html.wait()  # nothing is left running behind the summary
        except ToolError:
            pass  # reported by the docs step, or moot after an earlier failure
    print("\nsummary:")
    for name, code, seconds in results:
        print("  %-20s %-6s %6.0f s" % (name, "ok" if code == 0 else "FAILED", seconds))
    for name, _ in steps[len(results):]:
        print("  %-20s %-6s" % (name, "not run"))
    print_versions(run)
    return 1 if failed else 0


def _quietly(function):
    try:
        function()
    except ToolError:
        pass  # raised again, with its message, by the step that needs it


def make_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--repo", default=str(DEFAULT_REPO),
                        help="the project checkout holding Lib/, Doc/, Misc/ "
                             "(default: the one this tool is in)")
    common.add_argument("--cache", help="cache directory (default: $ENUM_FROM_VALUE_CACHE "
                                        "or ~/.cache/enum-from-value)")
    common.add_argument("--jobs", "-j", type=int, default=2,
                        help="parallel jobs for make, regrtest and Sphinx (default 2)")
    fetch = argparse.ArgumentParser(add_help=False)
    fetch.add_argument("--tarball", metavar="PATH", help="a local Python-3.13.5.tar.xz")
    fetch.add_argument("--apt-source", action="store_true",
                       help="Debian: add a deb-src entry for %s if missing, then `apt-get "
                            "source --download-only %s` (needs root)"
                            % (obtain.DEB_SUITE, obtain.DEB_SOURCE_PACKAGE))
    issue = argparse.ArgumentParser(add_help=False)
    issue.add_argument("--issue", type=int, metavar="N",
                       help="CPython gh issue number; the NEWS entry is renamed gh-issue-N")
    bases = argparse.ArgumentParser(add_help=False)
    bases.add_argument("--base", action="append", metavar="NAME",
                       help="only this base (3.13.5, 3.13.5t, 3.14, 3.15); may be repeated")

    parser = argparse.ArgumentParser(
        prog="cpython_change.py", description=__doc__.split("\n\n")[0],
        epilog="Typical use: `cpython_change.py all --apt-source` (Debian) or "
               "`cpython_change.py all --tarball Python-3.13.5.tar.xz`; "
               "`cpython_change.py apply --tree ~/cpython` for a CPython checkout.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands = [
        ("fetch", cmd_fetch, [fetch]), ("apply", cmd_apply, [issue]),
        ("build", cmd_build, []), ("carry", cmd_carry, [bases]),
        ("test", cmd_test, [bases]), ("docs", cmd_docs, []),
        ("patch", cmd_patch, [issue]), ("versions", cmd_versions, []),
        ("all", cmd_all, [fetch, issue]),
    ]
    for name, function, parents in commands:
        p = sub.add_parser(name, parents=[common] + parents, help=function.__doc__,
                           description=function.__doc__)
        p.set_defaults(func=function)
        if name == "apply":
            p.add_argument("--tree", required=True, help="the CPython source tree to change")
        elif name == "build":
            p.add_argument("--stock", action="store_true", help="build the stock tree")
            p.add_argument("--patched", action="store_true", help="build the patched tree")
            p.add_argument("--freethreaded", action="store_true",
                           help="the free-threaded builds (--disable-gil, python3.13t)")
        elif name == "patch":
            p.add_argument("-o", "--output", metavar="FILE",
                           help="where to write it (default: CACHE/patches/gh-N.patch)")
            p.add_argument("--author", metavar="'NAME <EMAIL>'",
                           help="patch author (default: git config user.name/user.email)")
            p.add_argument("--lib-base", metavar="NAME",
                           help="the base whose Lib files the patch is made against "
                                "(default: the newest; 3.13.5 needs no Debian root)")
    return parser


def main(argv=None):
    args = make_parser().parse_args(argv)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # Started in the background (`cmd &`, nohup): the children would
        # inherit SIGINT ignored, and test_signal's KeyboardInterrupt tests
        # fail for that alone; give them what a foreground start has.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return args.func(Run(args)) or 0
    except ToolError as error:
        print("error: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
