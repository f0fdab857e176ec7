"""Build CPython 3.13.5 from source: stock, then patched with the fix alone
and with the fix and the feature.

The stock build is the release tarball with ./configure, make, make
altinstall.  The patched build starts from a copy of the finished stock
build tree: the PRs' diffs are applied to it exactly, ./configure is run again
with the patched build's own --prefix (same flags), and make rebuilds what
that invalidates -- everything whose rule depends on the Makefile, which is
every prefix-dependent object (getpath, sysmodule) and, through
Modules/config.c, every extension module; the core objects are the stock
build's own.  Two files' rules do not depend on the Makefile although their
#! line names the prefix (build/scripts-3.13/idle3.13, pydoc3.13), so they
are deleted first.  The result is checked: it has the change, its
sys.prefix and sysconfig are its own, and no text file it installed names
the stock build.  The two patched builds differ only in pure-Python files,
so each is as cheap as the other (about a minute here): what make redoes
is what the new prefix invalidates, the same for both whichever tree it
starts from; both start from the stock build and share its core objects.

    builds/stock-<key>/      src/, prefix/, *.log, build-ok
    builds/patched-<key>/    the same, and change/ (the diffs it was made
                             from); build-ok names its PRs (fix, or
                             fix+feature)

A key is a hash of everything that goes into the build, so a finished
build is reused exactly when its inputs are unchanged; only the newest
KEEP_PATCHED patched builds are kept.
"""

import json
import shutil
import tempfile
import time
from pathlib import Path

from . import apply, change
from .util import ToolError, clean_env, locked, run, run_logged, say, short_key

CONFIGURE_FLAGS = ["--with-ensurepip=install"]
INTERPRETER = "python3.13"
KEEP_PATCHED = 4  # two of each kind


def stock_dir(source):
    key = short_key({"kind": "stock", "tarball": source.TARBALL_SHA256,
                     "configure": CONFIGURE_FLAGS})
    return source.cache / "builds" / ("stock-" + key)


def patched_dir(source, repo, prs=change.BOTH):
    key = short_key({"kind": "patched", "stock": stock_dir(source).name,
                     "change": change.digest(repo, prs), "prs": list(prs)})
    return source.cache / "builds" / ("patched-" + key)


def _finished(root):
    python = root / "prefix" / "bin" / INTERPRETER
    return python if (root / "build-ok").is_file() and python.is_file() else None


def _make(root, jobs):
    src, env = root / "src", clean_env()
    run_logged(["./configure", "--prefix=%s" % (root / "prefix")] + CONFIGURE_FLAGS,
               root / "configure.log", cwd=str(src), env=env)
    run_logged(["make", "-j%d" % jobs], root / "make.log", cwd=str(src), env=env)
    run_logged(["make", "altinstall"], root / "install.log", cwd=str(src), env=env)


def stock(source, jobs=2):
    """The stock 3.13.5 interpreter, built unless a finished build exists."""
    root = stock_dir(source)
    with locked(root.parent / (".%s.lock" % root.name)):
        python = _finished(root)
        if python:
            say("stock build up to date: %s" % python)
            return python
        source.require_tarball()
        shutil.rmtree(str(root), ignore_errors=True)
        started = time.monotonic()
        say("building stock CPython %s in %s (logs there)" % (source.version, root))
        source.extract(root / "src")
        _make(root, jobs)
        (root / "build-ok").write_text(json.dumps({"configure": CONFIGURE_FLAGS}) + "\n")
        say("built stock in %.0f s: %s" % (time.monotonic() - started, _finished(root)))
        return _finished(root)


def patched(source, repo, jobs=2, prs=change.BOTH):
    """3.13.5 patched with PRS (the fix; or both), made from the stock build unless it exists."""
    what = change.label(prs)
    stock_python = stock(source, jobs)
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as scratch:
        # A copy of the change, so that an edit made meanwhile cannot slip
        # in under the wrong key.
        repo = change.snapshot(repo, Path(scratch) / "change")
        root = patched_dir(source, repo, prs)
        with locked(root.parent / (".%s.lock" % root.name)):
            python = _finished(root)
            if python:
                say("patched (%s) build up to date: %s" % (what, python))
                return python
            shutil.rmtree(str(root), ignore_errors=True)
            root.mkdir(parents=True)
            started = time.monotonic()
            stock_root = stock_python.parents[2]
            say("building CPython %s patched with %s in %s from a copy of %s (logs there)"
                % (source.version, what, root, stock_root.name))
            shutil.copytree(str(repo), str(root / "change"))
            run(["cp", "-a", stock_root / "src", root / "src"])
            apply.apply_change(root / "src", change.collect(root / "change", prs), source,
                               exact_only=True)
            shutil.rmtree(str(root / "src" / "build" / ("scripts-" + source.version[:4])),
                          ignore_errors=True)
            _make(root, jobs)
            check_patched(root, stock_root, prs)
            (root / "build-ok").write_text(json.dumps(
                {"configure": CONFIGURE_FLAGS, "from": stock_root.name, "prs": what}) + "\n")
            say("built patched (%s) in %.0f s: %s"
                % (what, time.monotonic() - started, _finished(root)))
    prune(source.cache)
    return _finished(root)


def check_patched(root, stock_root, prs=change.BOTH):
    """The patched build runs the patched files, from its own prefix only.

    from_value is there exactly when the feature is.
    """
    python, prefix = root / "prefix" / "bin" / INTERPRETER, root / "prefix"
    code = ("import enum, sys, sysconfig; print(hasattr(enum.EnumType, 'from_value'));"
            "print(enum.__file__); print(sys.prefix); print(sysconfig.get_config_var('prefix'))")
    has_api, enum_file, sys_prefix, config_prefix = run(
        [python, "-s", "-c", code], env=clean_env()).stdout.split()
    problems = []
    if has_api != str("feature" in prs):
        problems.append("enum.EnumType %s from_value, built with %s"
                        % ("has" if has_api == "True" else "has no", change.label(prs)))
    if Path(enum_file).read_bytes() != (root / "src" / "Lib" / "enum.py").read_bytes():
        problems.append("%s is not the patched Lib/enum.py" % enum_file)
    if {sys_prefix, config_prefix} != {str(prefix)}:
        problems.append("prefix is %s (sysconfig: %s), not %s"
                        % (sys_prefix, config_prefix, prefix))
    stale = str(stock_root).encode()
    for path in sorted(prefix.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if stale in data and b"\0" not in data:
                problems.append("%s names the stock build" % path)
    if problems:
        raise ToolError("the patched build in %s is wrong:\n  %s" % (root, "\n  ".join(problems)))


def prune(cache, keep=KEEP_PATCHED):
    """Delete all but the KEEP newest patched builds, with their docs and venvs.

    Every edit of the diffs makes a new patched build (about 1 GB with its
    html and venvs); old ones are never reused once the diffs have moved on.
    """
    finished = [p for p in (Path(cache) / "builds").glob("patched-*")
                if (p / "build-ok").is_file()]
    finished.sort(key=lambda p: (p / "build-ok").stat().st_mtime, reverse=True)
    for old in finished[keep:]:
        doomed = [old, Path(cache) / "docs" / old.name]
        doomed += list((Path(cache) / "venvs").glob("*-%s*" % old.name))
        say("removing old patched build %s" % old.name)
        for path in doomed:
            shutil.rmtree(str(path), ignore_errors=True)
