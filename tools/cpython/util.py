"""Small helpers the stages share: subprocesses, keys, git, jobs side by side.

Messages, errors, signals, the cache and locks are tools/plumbing.py's,
imported here under the names the stages use (ToolError is plumbing.Error).
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..plumbing import (NO_SPACE, Error as ToolError, Thread, cache_dir,  # noqa: F401
                        disk_full, join, locked, no_space, say, space_for)
from .. import plumbing


def positive_int(text):
    """argparse's type for --jobs: make's -j0 is a usage error, found after minutes of work."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError("must be a positive integer, not %r" % text)
    return number


def writable_place(path, option):
    """PATH (given as OPTION) is, or can be made as, a directory this run can write into:
    checked before any work, not found at its last step."""
    path = Path(path)
    probe = path
    while not os.path.lexists(str(probe)) and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ToolError("%s %s cannot be a directory: %s is a file; give a directory's path"
                        % (option, path, probe))
    if not os.access(str(probe), os.W_OK | os.X_OK):
        raise ToolError("%s %s: cannot write into %s (%s); give a directory you can write"
                        % (option, path, probe, "read-only file system"
                           if _read_only(probe) else "permission denied"))


def _read_only(path):
    try:
        return bool(os.statvfs(str(path)).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def clean_env(**extra):
    """os.environ without PYTHON* variables, so nothing leaks into builds and tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(extra)
    return env


def run(cmd, cwd=None, env=None, check=True, input=None, where=None, needed=None):
    """Run CMD, capturing its output (text); ToolError on failure when CHECK, one line
    naming WHERE (default CWD) and the space NEEDED for a want of space."""
    cmd = [str(c) for c in cmd]
    proc = plumbing.run(cmd, cwd=cwd, env=env, input=input, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, universal_newlines=True,
                        stdin=None if input is not None else subprocess.DEVNULL)
    if check and proc.returncode != 0:
        if NO_SPACE in proc.stdout:
            raise ToolError("%s failed: %s" % (cmd[0], no_space(where or cwd or os.getcwd(),
                                                                needed)))
        raise ToolError("%s failed (exit %d):\n%s"
                        % (" ".join(cmd), proc.returncode, proc.stdout.strip()))
    return proc


def run_logged(cmd, log, cwd=None, env=None, needed=None):
    """Run CMD with its output in the file LOG; on failure show LOG's tail (see `run`)."""
    cmd = [str(c) for c in cmd]
    try:
        with open(str(log), "w") as out:
            code = plumbing.call(cmd, cwd=cwd, env=env, stdout=out,
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    except OSError as error:
        if disk_full(error):
            raise ToolError("%s: %s" % (cmd[0], no_space(Path(log).parent, needed)))
        raise
    if code != 0:
        lines = Path(log).read_text(errors="replace").splitlines()
        if any(NO_SPACE in line for line in lines):
            raise ToolError("%s failed: %s (log: %s)"
                            % (cmd[0], no_space(Path(log).parent, needed), log))
        raise ToolError("%s failed (exit %d); last lines of %s:\n%s"
                        % (" ".join(cmd), code, log, "\n".join(lines[-40:])))


def run_live(cmd, cwd=None, env=None, out=None, show=None):
    """Run CMD with its output going to OUT (default: ours), shown as SHOW: the exit code."""
    out = out or sys.stdout
    print("$ " + (show or " ".join(str(c) for c in cmd)), file=out, flush=True)
    return plumbing.call(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)


def sha256_file(path):
    with open(str(path), "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def short_key(data):
    """A 12-hex-digit key for a JSON-able description of some inputs."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]


def require_program(name, why):
    if shutil.which(name) is None:
        raise ToolError("%s is needed %s but is not on PATH" % (name, why))


def git(*args, cwd=None, env=None, check=True, input=None, binary=False):
    """Run git with nobody's configuration (hooks, signing, autocrlf) in the way.

    No automatic maintenance either: from git 2.47 `commit` and `am` start
    `git maintenance run --auto --detach`, which may still be writing into a
    scratch repository while that is deleted.  BINARY: stdout as bytes.
    """
    env = dict(env or os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    cmd = ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false",
           "-c", "maintenance.auto=false", "-c", "gc.auto=0"] + [str(a) for a in args]
    if not binary:
        return run(cmd, cwd=cwd, env=env, check=check, input=input)
    proc = plumbing.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise ToolError("%s failed (exit %d):\n%s" % (" ".join(cmd), proc.returncode,
                                                       proc.stderr.decode(errors="replace")))
    return proc


def outside_git(directory):
    """An environment in which git run in DIRECTORY finds no repository above it.

    `git apply` in a plain tree that lies inside some other checkout would
    otherwise take paths relative to that checkout and skip the rest.
    """
    return dict(os.environ, GIT_CEILING_DIRECTORIES=str(Path(directory).resolve().parent))


def side_by_side(jobs, out=None):
    """Run JOBS, [(name, function(out))], at once, each in a thread writing a file of its own.

    A line says when each ends; then each one's output is printed whole, in
    order.  ToolError names every job that failed.
    """
    out = out or sys.stdout
    results = {}

    def one(name, function, log):
        started = time.monotonic()
        try:
            function(log)
            results[name] = None
        except ToolError as error:
            results[name] = str(error)
        say("%s: %s after %.0f s" % (name, "FAILED" if results[name] else "done",
                                     time.monotonic() - started), out)

    # Appending: the job's own writes and its subprocesses' go to the end alike.
    logs = [tempfile.TemporaryFile("a+") for _ in jobs]
    running = False
    try:
        say("running side by side: " + ", ".join(name for name, _ in jobs), out)
        threads = [Thread(target=one, args=(name, function, log))
                   for (name, function), log in zip(jobs, logs)]
        # Set first: a signal may stop this thread right after a start, and
        # a started job must not find its log closed under it.
        running = True
        for thread in threads:
            thread.start()
        for thread in threads:
            join(thread)
        running = False
        for (name, _), log in zip(jobs, logs):
            log.seek(0)
            say("--- %s ---" % name, out)
            out.write(log.read())
            out.flush()
    finally:
        # Stopped by a signal while jobs run (see wind_down): each job keeps
        # its log until it ends, and the log goes with it.
        for log in logs if not running else ():
            log.close()
    failed = ["%s: %s" % (name, results.get(name) or "did not finish")
              for name, _ in jobs if results.get(name, "x") is not None]
    if failed:
        raise ToolError("\n  ".join(failed))
