"""Build CPython 3.13.5 from source: stock, then patched with each PR set.

A patched build starts from a copy of the finished stock build tree: the
diffs applied exactly, ./configure run again with its own --prefix (same
flags), and make rebuilds what the Makefile invalidates, keeping the stock
core objects (the scripts whose #! names the prefix are deleted first).
A build's directory is named by a hash of its inputs, and only the newest
KEEP_PATCHED patched builds stay:

    builds/stock-<key>/      src/, prefix/, *.log, build-ok
    builds/patched-<key>/    the same, and change/ (the diffs it was made from)
    builds/stock-t-<key>/, builds/patched-t-<key>/   free-threaded (--disable-gil)
"""

import contextlib
import json
import shutil
import tempfile
import time
from pathlib import Path

from . import apply, change
from .util import (ToolError, clean_env, locked, run, run_logged, say, short_key,
                   space_for)

CONFIGURE_FLAGS = ["--with-ensurepip=install"]
INTERPRETER = "python3.13"
# The free-threaded build: the same, without the GIL.
FREETHREADED_FLAGS = CONFIGURE_FLAGS + ["--disable-gil"]
FREETHREADED_INTERPRETER = "python3.13t"
KEEP_PATCHED = 8  # two of each of the four PR sets, counted apart for the free-threaded ones
# What one build takes on disk (about 810 MB here, stock or patched), with room to spare.
BUILD_SPACE = "900 MB"


def configure_flags(freethreaded=False):
    return FREETHREADED_FLAGS if freethreaded else CONFIGURE_FLAGS


def interpreter_name(freethreaded=False):
    return FREETHREADED_INTERPRETER if freethreaded else INTERPRETER


def _prefix(kind, freethreaded):
    return kind + ("-t-" if freethreaded else "-")


def stock_dir(source, freethreaded=False):
    key = short_key({"kind": "stock", "tarball": source.TARBALL_SHA256,
                     "configure": configure_flags(freethreaded)})
    return source.cache / "builds" / (_prefix("stock", freethreaded) + key)


def patched_dir(source, repo, prs=change.ALL, freethreaded=False):
    key = short_key({"kind": "patched", "stock": stock_dir(source, freethreaded).name,
                     "change": change.digest(repo, prs), "prs": list(prs)})
    return source.cache / "builds" / (_prefix("patched", freethreaded) + key)


def _finished(root, freethreaded=False):
    python = _finished_python(root, freethreaded)
    return python if (root / "build-ok").is_file() and python.is_file() else None


def _finished_python(root, freethreaded):
    return root / "prefix" / "bin" / interpreter_name(freethreaded)


@contextlib.contextmanager
def logs_only_if_cut_short(root):
    """A build that fails (a full disk among the causes) or is stopped keeps its logs only:
    its tree and prefix (most of a gigabyte) go at once, not to leave a disk full."""
    try:
        yield
    except BaseException:
        for part in ("src", "prefix", "change"):
            shutil.rmtree(str(root / part), ignore_errors=True)
        raise


def check_gil_off(python):
    """PYTHON is a free-threaded build that runs with the GIL off."""
    code = ("import sys, sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'), "
            "sys._is_gil_enabled(), sys.abiflags)")
    found = run([python, "-s", "-c", code], env=clean_env()).stdout.split()
    if found != ["1", "False", "t"]:
        raise ToolError("%s is not free-threaded with the GIL off (Py_GIL_DISABLED, "
                        "sys._is_gil_enabled(), abiflags: %s)" % (python, " ".join(found)))


def _make(root, jobs, freethreaded=False):
    src, env = root / "src", clean_env()
    run_logged(["./configure", "--prefix=%s" % (root / "prefix")]
               + configure_flags(freethreaded),
               root / "configure.log", cwd=str(src), env=env, needed=BUILD_SPACE)
    run_logged(["make", "-j%d" % jobs], root / "make.log", cwd=str(src), env=env,
               needed=BUILD_SPACE)
    run_logged(["make", "altinstall"], root / "install.log", cwd=str(src), env=env,
               needed=BUILD_SPACE)


def stock(source, jobs=2, freethreaded=False):
    """The stock 3.13.5 interpreter, built unless a finished build exists."""
    root, t = stock_dir(source, freethreaded), freethreaded
    what = "stock" + (" free-threaded" if t else "")
    with locked(root.parent / (".%s.lock" % root.name)):
        python = _finished(root, t)
        if python:
            say("%s build up to date: %s" % (what, python))
            return python
        source.require_tarball()
        shutil.rmtree(str(root), ignore_errors=True)
        started = time.monotonic()
        say("building %s CPython %s in %s (logs there)" % (what, source.version, root))
        with logs_only_if_cut_short(root), space_for(root, BUILD_SPACE):
            source.extract(root / "src", BUILD_SPACE)
            _make(root, jobs, t)
            if t:
                check_gil_off(_finished_python(root, t))
        (root / "build-ok").write_text(json.dumps({"configure": configure_flags(t)}) + "\n")
        say("built %s in %.0f s: %s" % (what, time.monotonic() - started, _finished(root, t)))
        return _finished(root, t)


def patched(source, repo, jobs=2, prs=change.ALL, freethreaded=False):
    """3.13.5 patched with PRS (a prefix of change.PRS), made from the stock build (the
    free-threaded one if FREETHREADED) unless it exists."""
    t = freethreaded
    what = change.label(prs) + (", free-threaded" if t else "")
    stock_python = stock(source, jobs, t)
    with tempfile.TemporaryDirectory(prefix="cpython-change-") as scratch:
        # A copy of the change, so that an edit made meanwhile cannot slip
        # in under the wrong key.
        repo = change.snapshot(repo, Path(scratch) / "change")
        root = patched_dir(source, repo, prs, t)
        with locked(root.parent / (".%s.lock" % root.name)):
            python = _finished(root, t)
            if python:
                say("patched (%s) build up to date: %s" % (what, python))
                return python
            shutil.rmtree(str(root), ignore_errors=True)
            started = time.monotonic()
            stock_root = stock_python.parents[2]
            say("building CPython %s patched with %s in %s from a copy of %s (logs there)"
                % (source.version, what, root, stock_root.name))
            with logs_only_if_cut_short(root), space_for(root, BUILD_SPACE):
                root.mkdir(parents=True)
                shutil.copytree(str(repo), str(root / "change"))
                run(["cp", "-a", stock_root / "src", root / "src"], where=root,
                    needed=BUILD_SPACE)
                apply.apply_change(root / "src", change.collect(root / "change", prs), source,
                                   exact_only=True)
                shutil.rmtree(str(root / "src" / "build" / ("scripts-" + source.version[:4])),
                              ignore_errors=True)
                _make(root, jobs, t)
                check_patched(root, stock_root, prs, t)
            (root / "build-ok").write_text(json.dumps(
                {"configure": configure_flags(t), "from": stock_root.name,
                 "prs": change.label(prs)}) + "\n")
            say("built patched (%s) in %.0f s: %s"
                % (what, time.monotonic() - started, _finished(root, t)))
    prune(source.cache)
    return _finished(root, t)


def check_patched(root, stock_root, prs=change.ALL, freethreaded=False):
    """The patched build runs the patched files from its own prefix only, with from_value
    exactly when the feature is there (and the GIL off if free-threaded)."""
    python, prefix = _finished_python(root, freethreaded), root / "prefix"
    if freethreaded:
        check_gil_off(python)
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
    """Delete all but the KEEP newest patched builds (about 1 GB each, with their docs and
    venvs): every edit of the diffs makes new ones."""
    builds = [p for p in (Path(cache) / "builds").glob("patched-*")
              if (p / "build-ok").is_file()]
    builds.sort(key=lambda p: (p / "build-ok").stat().st_mtime, reverse=True)
    # The free-threaded builds (patched-t-*) are counted apart.
    stale = []
    for t in (False, True):
        stale += [p for p in builds if p.name.startswith("patched-t-") == t][keep:]
    for old in stale:
        doomed = [old, Path(cache) / "docs" / old.name]
        doomed += list((Path(cache) / "venvs").glob("*-%s*" % old.name))
        say("removing old patched build %s" % old.name)
        for path in doomed:
            shutil.rmtree(str(path), ignore_errors=True)
