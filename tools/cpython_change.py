#!/usr/bin/env python3
"""Apply and prove this project's change to CPython, on every base there is here.

docs/cpython-change.rst is its handbook: the five PRs and their diffs, the
bases and how each PR set is proven on each, `patch` and `apply`.  `all`
runs the stages (obtain, build, carry, test, docs, typeshed, patch), each a
module of tools/cpython/.  What it downloads or builds is cached under
$ENUM_FROM_VALUE_CACHE (default ~/.cache/enum-from-value).  It runs in the
tools' venv (tools/bootstrap.py; Python 3.11 or newer) and needs git, tar
and, to build, CPython's usual build dependencies; the Debian bases need root.
"""

if __name__ == "__main__" and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file: the package, in the tools' venv
    bootstrap.run("tools.cpython_change")

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

from . import plumbing
from .cpython import apply, build, change, docs, obtain, patch, test, texts, typeshed, whatsnew
from .cpython.base import RUN_DIR, Interpreter, SourceBase, check_names
from .cpython.util import (Thread, ToolError, cache_dir, join, positive_int, say, short_key,
                           side_by_side)

DEFAULT_REPO = Path(__file__).resolve().parent.parent
# What each base is proven with: each PR set a maintainer could merge up to
# (the fix alone; the backports; the feature without the optional flag PR;
# all five).
ENUMS = (change.FIX, change.BACKPORTS, change.FEATURE, change.ALL)
# The series is made from every prefix of the PRs.
PREFIXES = tuple(change.PRS[:n] for n in range(1, len(change.PRS) + 1))
# `all` checks the series with these, in a scratch directory it deletes.
PROOF_AUTHOR = "proof only, not for pasting <proof-only@invalid>"


class Run:
    """What one command works on: the change, the cache, the bases."""

    def __init__(self, args):
        self.args = args
        self.cache = cache_dir(args.cache)
        self.checkout = Path(args.repo).resolve()  # its tests/ run on every base
        self.change_dir = self.checkout  # where the change files are read
        self.source = SourceBase(self.cache)
        # Before anything slow (the Debian root takes minutes): a base no one has.
        check_names(self.source, getattr(args, "base", None), getattr(args, "lib_base", None))
        self._newer = None
        self.versions = {}
        self.html = None  # docs.Html, once started

    @property
    def files(self):
        return change.collect(self.change_dir)

    def files_of(self, prs):
        return change.collect(self.change_dir, prs)

    def newer(self):
        """The Debian bases, described (their exact versions) once."""
        if self._newer is None:
            self._newer = obtain.newer_bases(self.cache)
            for base in self._newer:
                self.versions[base.name] = base.describe()
        return self._newer

    def pick(self, names):
        """The newer bases named (all of them for None); check_names refused the unknown."""
        return [b for b in self.newer() if names is None or b.name in names]

    def carried(self, base, prs=change.ALL):
        """The Lib files of PRS merged onto BASE, kept in the cache."""
        files = self.files_of(prs)
        stock = base.read([f.path for f in files if f.is_lib and f.is_diff])
        key = short_key({"change": change.digest(self.change_dir, prs),
                         "base": {p: hashlib.sha256(d).hexdigest() for p, d in stock.items()}})
        return apply.carry(files, base, self.source, self.cache / "merged" / (
            "%s-%s-%s" % (base.version, change.label(prs), key)))

    def standins(self):
        return set(change.standin_issues(self.files).values())


def cmd_fetch(run):
    """Put the 3.13.5 tarball into the cache: from --tarball, or with apt (--apt-source)."""
    obtain.tarball(run.cache, run.args.tarball, run.args.apt_source)


def cmd_apply(run):
    """Apply the PRs (all five, or up to --up-to) to --tree: exactly, else 3-way."""
    up_to = change.BACKPORTS[-1] if run.args.backports_only else run.args.up_to
    prs = change.PRS[:change.PRS.index(up_to) + 1]
    issues = {}
    for pr in change.PRS:
        number = getattr(run.args, "%s_issue" % pr)
        if number is not None:
            patch.check_issue("--%s-issue" % pr, number, run.standins())
            if pr in prs:
                issues[pr] = number
    name = patch.check_author(run.args.author)[0] if run.args.author else None
    if name is None and "feature" in prs:
        say("no --author: the whatsnew entries' credit is left as {author_name}")
    apply.apply_change(run.args.tree, run.files_of(prs), run.source, issues=issues,
                       author_name=name)


BUILDS = {"fix": change.FIX, "backports": change.BACKPORTS, "feature": change.FEATURE,
          "patched": change.ALL}


def build_of(run, kind, freethreaded=False):
    """The 3.13.5 interpreter KIND: stock, or patched with the PR set BUILDS[KIND]."""
    if kind == "stock":
        return build.stock(run.source, run.args.jobs, freethreaded)
    return build.patched(run.source, run.change_dir, run.args.jobs, BUILDS[kind],
                         freethreaded)


def cmd_build(run):
    """Build stock 3.13.5 and 3.13.5 with each PR set (default: all); print the interpreter paths.

    --patched is all five PRs (what benchmarks/run.py measures).
    """
    kinds = [k for k in ["stock"] + list(BUILDS) if getattr(run.args, k)] or (
        ["stock"] + list(BUILDS))
    for kind in kinds:
        python = build_of(run, kind, run.args.freethreaded)
        run.versions[run.source.version] = run.source.describe(python)
        print(python, flush=True)


def cmd_carry(run):
    """Merge each PR set's Lib diffs onto each newer base's files; print where they are."""
    for base in run.pick(run.args.base):
        for prs in ENUMS:
            print(Path(next(iter(run.carried(base, prs).values()))).parents[1], flush=True)


def cmd_test(run):
    """Prove each PR set (ENUMS) on each base, side by side; refleaks on 3.15-dbg.

    (The suites wait more than they compute: test_socket alone waits a minute.)
    """
    names, jobs = run.args.base, []
    ledger = texts.load_ledger()
    if names is None or run.source.version in names:
        for prs in ENUMS:
            python = build.patched(run.source, run.change_dir, run.args.jobs, prs)
            run.versions[run.source.version] = run.source.describe(python)
            jobs.append(("%s %s" % (run.source.version, change.label(prs)),
                         lambda out, p=python, e=prs: prove_source(run, p, e, ledger, out)))
    if names is None or run.source.version + "t" in names:
        jobs.append((run.source.version + "t " + change.label(change.ALL),
                     lambda out: prove_freethreaded(run, out)))
    for base in run.pick(names):
        merged = {}
        for prs in ENUMS:
            merged[change.label(prs)] = run.carried(base, prs)
            jobs.append(("%s %s" % (base.version, change.label(prs)),
                         lambda out, b=base, m=merged[change.label(prs)], e=prs:
                         prove_debian(run, b, m, e, ledger, out)))
        if base.debug_python:
            jobs.append(("refleaks " + base.version,
                         lambda out, b=base, m=merged: test.refleaks(b, m, out)))
    side_by_side(jobs)


def prove_source(run, python, prs, ledger, out):
    say("=== %s with %s: %s ===" % (run.source.version, change.label(prs),
                                    run.versions[run.source.version]), out)
    root = python.parents[2]
    interp = run.source.interpreter(python)
    with tempfile.TemporaryDirectory(prefix="cpython-test-") as work:
        test.prove(interp, root / "src" / "Lib" / "enum.py",
                   run.checkout, run.cache / "venvs" / ("native-" + root.name),
                   run.args.jobs, work_dir=work, out=out, prs=prs)
        stock_test = run.source.read(["Lib/test/test_enum.py"])["Lib/test/test_enum.py"]
        test.stock_tests(interp, stock_test, run.source.name, prs, ledger, work, out=out)


def prove_freethreaded(run, out):
    """As prove_source, on the free-threaded build with all five PRs."""
    python = build.patched(run.source, run.change_dir, run.args.jobs, freethreaded=True)
    say("=== %st with %s: %s, free-threaded (--disable-gil; the GIL checked off) ==="
        % (run.source.version, change.label(change.ALL), run.source.describe(python)), out)
    root = python.parents[2]
    # For the venv: hypothesis's newest releases are an sdist that needs
    # Rust on a free-threaded CPython; the newest with a wheel will do.
    interp = Interpreter("patched %st (built from source, free-threaded)"
                         % run.source.version, python, env={"PIP_ONLY_BINARY": "hypothesis"})
    with tempfile.TemporaryDirectory(prefix="cpython-test-") as work:
        test.prove(interp, root / "src" / "Lib" / "enum.py", run.checkout,
                   run.cache / "venvs" / ("native-" + root.name),
                   run.args.jobs, work_dir=work, out=out)


def prove_debian(run, base, merged, prs, ledger, out):
    say("=== %s with %s: %s ===" % (base.version, change.label(prs), run.versions[base.name]),
        out)
    with base.interpreter(overlay=merged, binds={run.checkout: run.checkout}) as interp:
        test.prove(interp, merged["Lib/enum.py"], run.checkout,
                   run.cache / "venvs" / ("native-python%s" % base.version),
                   run.args.jobs, work_dir=RUN_DIR, out=out, prs=prs)
        host_run_dir = next(h for h, inside in interp.binds.items() if inside == RUN_DIR)
        stock_test = base.read(["Lib/test/test_enum.py"])["Lib/test/test_enum.py"]
        test.stock_tests(interp, stock_test, base.name, prs, ledger, host_run_dir, RUN_DIR,
                         out=out)


def cmd_docs(run):
    """Build both Doc trees, compare warnings, run the enum doctests and the linters."""
    if run.html is None:
        start_html(run)
    docs.check(run.files, run.html)


def start_html(run):
    """Start the html builds of docs, to run beside the test stage."""
    run.html = docs.Html(build_of(run, "stock"), build_of(run, "patched"),
                         run.cache, run.args.jobs)


def cmd_patch(run):
    """Write the series DIR/0001 to 0005 (one per PR) and each PR's texts; print DIR."""
    args = run.args
    issues = patch.check_issues({pr: getattr(args, "%s_issue" % pr) for pr in change.PRS},
                                run.standins())
    patch.check_author(args.author)
    if not args.output:
        raise ToolError("say where to write the series: --output DIR")
    output = Path(args.output).expanduser().resolve()
    patch.earlier_output(output)  # a directory it may not write into: said before the work
    make_series(run, issues, args.author, output, proof_only=False)
    print(output, flush=True)


def make_series(run, issues, author, output, proof_only):
    """The series into OUTPUT, Lib/ against --lib-base (default the newest base)."""
    main_whatsnew = None
    if getattr(run.args, "main_tree", None):
        tree = Path(run.args.main_tree).expanduser()
        found = whatsnew.newest(tree)
        if found is None:
            raise ToolError("--main-tree %s: not a CPython checkout (no whatsnew)" % tree)
        main_whatsnew = (found, (tree / found).read_bytes())
    fields = patch.fields(issues, author, texts.load_ledger(),
                          run.checkout / "benchmarks" / "results.rst", run.files,
                          proof_only=proof_only, main_whatsnew=main_whatsnew)
    with tempfile.TemporaryDirectory(prefix="cpython-patch-") as scratch:
        if run.args.lib_base == run.source.version:
            newer, lib_base, merged = [], run.source, {}
            for prs in PREFIXES:
                label = change.label(prs)
                merged[label] = {}
                for path, items in change.diffs_by_path(
                        [f for f in run.files_of(prs) if f.is_lib]).items():
                    target = Path(scratch) / label / path.replace("/", "_")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(apply.patched(run.source.read([path])[path], items))
                    merged[label][path] = target
            say("Lib/ against %s (no newer base asked for): the backports are not "
                "tried on 3.14 and 3.15" % run.source.version)
        else:
            newer = run.pick(None)
            lib_base = run.pick([run.args.lib_base] if run.args.lib_base else None)[-1]
            merged = {change.label(prs): run.carried(lib_base, prs) for prs in PREFIXES}
        return patch.write_series(run.change_dir, run.source, lib_base, merged, output,
                                  issues, author, fields, newer, proof_only=proof_only,
                                  main_whatsnew=main_whatsnew)


def cmd_patch_proof(run):
    """The series made and checked with stand-in numbers, in a directory then deleted."""
    issues = {pr: number for pr, number in change.standin_issues(run.files).items()}
    if set(issues) != set(change.PRS):
        raise ToolError("each PR needs a NEWS entry with a stand-in number (found: %s)"
                        % (", ".join(sorted(issues)) or "none"))
    with tempfile.TemporaryDirectory(prefix="cpython-series-proof-") as scratch:
        make_series(run, issues, PROOF_AUTHOR, Path(scratch) / "series", proof_only=True)
    say("series proof done; its stand-in-numbered output is deleted (write the real one "
        "with `patch %s --author 'Name <email>' --output DIR`)"
        % " ".join("--%s-issue N" % pr for pr in change.PRS))


def cmd_typeshed(run):
    """mypy's stubtest on enum against patched 3.13.5, typeshed's enum.pyi as is and as edited."""
    typeshed.check(build_of(run, "patched"), cache=run.cache)


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
             ("build stock", lambda r: build_of(r, "stock")),
             ("build fix", lambda r: build_of(r, "fix")),
             ("build backports", lambda r: build_of(r, "backports")),
             ("build feature", lambda r: build_of(r, "feature")),
             ("build all five", lambda r: build_of(r, "patched")),
             ("docs html, started", start_html), ("test", cmd_test), ("docs", cmd_docs),
             ("typeshed stubtest", cmd_typeshed), ("patch (proof)", cmd_patch_proof)]
    run.args.base = run.args.lib_base = None
    # The root is made (once; minutes of downloads) while 3.13.5 builds.
    root = Thread(target=lambda: _quietly(run.newer))
    root.start()
    results, failed = [], False
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as snapshot:
        # Every step proves one copy of the change files, so an edit made
        # while this runs cannot leave the steps proving different versions.
        run.change_dir = change.snapshot(run.change_dir, snapshot)
        for name, step in steps:
            if name == "test":
                join(root)
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
    join(root)
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
    common.add_argument("--jobs", "-j", type=positive_int, default=2,
                        help="parallel jobs for make, regrtest and Sphinx (default 2)")
    fetch = argparse.ArgumentParser(add_help=False)
    fetch.add_argument("--tarball", metavar="PATH", help="a local Python-3.13.5.tar.xz")
    fetch.add_argument("--apt-source", action="store_true",
                       help="Debian: add a deb-src entry for %s if missing, then `apt-get "
                            "source --download-only %s` (needs root)"
                            % (obtain.DEB_SUITE, obtain.DEB_SOURCE_PACKAGE))
    issue = argparse.ArgumentParser(add_help=False)
    for pr in change.PRS:
        issue.add_argument("--%s-issue" % pr, type=int, metavar="N",
                           help="the CPython gh issue of the %s PR; its NEWS entry is renamed "
                                "for it, and every gh-N of its stand-in number" % pr)
    bases = argparse.ArgumentParser(add_help=False)
    bases.add_argument("--base", action="append", metavar="NAME",
                       help="only this base (3.13.5, 3.13.5t, 3.14, 3.15); may be repeated")

    parser = argparse.ArgumentParser(
        prog="cpython_change.py", description=__doc__.split("\n\n")[0],
        epilog="Typical use: `cpython_change.py all --apt-source` (Debian) or "
               "`cpython_change.py all --tarball Python-3.13.5.tar.xz`; "
               "`cpython_change.py patch --fix-issue N1 ... --flag-issue N5 --author "
               "'Name <email>' --output DIR` for the patches; "
               "`cpython_change.py apply --tree ~/cpython` for a CPython checkout.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands = [
        ("fetch", cmd_fetch, [fetch]), ("apply", cmd_apply, [issue]),
        ("build", cmd_build, []), ("carry", cmd_carry, [bases]),
        ("test", cmd_test, [bases]), ("docs", cmd_docs, []),
        ("patch", cmd_patch, [issue]), ("typeshed", cmd_typeshed, []),
        ("versions", cmd_versions, []),
        ("all", cmd_all, [fetch]),
    ]
    for name, function, parents in commands:
        p = sub.add_parser(name, parents=[common] + parents, help=function.__doc__,
                           description=function.__doc__)
        p.set_defaults(func=function)
        if name == "apply":
            p.add_argument("--tree", required=True, help="the CPython source tree to change")
            p.add_argument("--up-to", choices=change.PRS, default=change.PRS[-1],
                           help="apply the PRs up to this one (default: all five)")
            p.add_argument("--backports-only", action="store_true",
                           help="apply the three bug fixes alone (for a 3.14 or 3.15 branch): "
                                "--up-to %s" % change.BACKPORTS[-1])
            p.add_argument("--author", metavar="'NAME <EMAIL>'",
                           help="the contributor credited in the whatsnew entry")
        elif name == "build":
            for kind, what in (("stock", "no PR (stock)"), ("fix", "the fix alone"),
                               ("backports", "the three bug fixes"),
                               ("feature", "the bug fixes and the feature"),
                               ("patched", "all five PRs")):
                p.add_argument("--" + kind, action="store_true", help="build the tree with " + what)
            p.add_argument("--freethreaded", action="store_true",
                           help="the free-threaded builds (--disable-gil, python3.13t)")
        elif name == "patch":
            p.add_argument("-o", "--output", metavar="DIR",
                           help="the directory to write the series and texts into (required)")
            p.add_argument("--author", metavar="'NAME <EMAIL>'",
                           help="the patches' author (required; no default)")
            p.add_argument("--lib-base", metavar="NAME",
                           help="the base whose Lib files the patch is made against "
                                "(default: the newest; 3.13.5 needs no Debian root)")
            p.add_argument("--main-tree", metavar="DIR",
                           help="a checkout of CPython's main branch: its newest "
                                "Doc/whatsnew/X.Y.rst gets the whatsnew entries in the "
                                "patches (default: each PR's description carries them)")
    return parser


def main(argv=None):
    def work(argv):
        args = make_parser().parse_args(argv)
        return args.func(Run(args))

    # A signal unwinds the run as plumbing.Stopped, so that the with blocks
    # remove its cpython-change-* directories; plumbing.main's handler
    # also gives its children SIGINT as a foreground start would (not
    # ignored, as `cmd &` leaves it), which test_signal's tests need.
    return plumbing.main(work, "cpython_change", argv)


if __name__ == "__main__":
    sys.exit(main())
