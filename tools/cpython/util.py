"""Small helpers every stage uses: messages, subprocesses, the cache, locks."""

import argparse
import contextlib
import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import host_apt
import process_tree

# What a program writing to a full file system says (strerror(ENOSPC)).
NO_SPACE = os.strerror(errno.ENOSPC)


class ToolError(Exception):
    """A failure to report to the user as a message (no traceback)."""


def say(message, out=None):
    print("cpython_change: " + message, file=out or sys.stdout, flush=True)


def cache_dir(explicit=None):
    """--cache, else $ENUM_FROM_VALUE_CACHE, else ~/.cache/enum-from-value.

    Made if missing, and tried with a file written and removed: a cache
    this run cannot write into (a read-only file system, a directory of
    someone else's) is a ToolError in one line before any work, not a
    traceback from the first stage that writes.
    """
    chosen = explicit or os.environ.get("ENUM_FROM_VALUE_CACHE")
    named = ("--cache %s" % explicit if explicit else
             "ENUM_FROM_VALUE_CACHE=%s" % chosen if chosen else "the cache")
    try:
        path = (Path(chosen).expanduser().resolve() if chosen
                else Path.home() / ".cache" / "enum-from-value")
        if path.is_file():
            raise ToolError("%s cannot be the cache directory: it is a file" % named)
        path.mkdir(parents=True, exist_ok=True)
        _probe(path)
    except OSError as error:
        raise ToolError("%s cannot be the cache directory: %s: %s; give one you can write "
                        "(--cache DIR or ENUM_FROM_VALUE_CACHE=DIR)"
                        % (named, error.filename or chosen or "~/.cache/enum-from-value",
                           error.strerror or error))
    return path


def _probe(directory):
    """Make and remove a file in DIRECTORY; OSError (naming DIRECTORY) if it cannot be."""
    try:
        handle, name = tempfile.mkstemp(prefix=".write-test-", dir=str(directory))
    except OSError as error:
        raise OSError(error.errno, "cannot write there (%s)" % (error.strerror or error),
                      str(directory))
    os.close(handle)
    os.unlink(name)


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
    """PATH (given as OPTION) is, or can be made as, a directory this run can write into.

    Checked before any work: a parent that is a file (``--output
    /etc/hostname/x``) or a directory that cannot be written would
    otherwise end the run at its last step, in a traceback.
    """
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


def no_space(path, needed=None):
    """The one line that says the file system holding PATH is full."""
    path = Path(path)
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = "%.0f MB free there" % (shutil.disk_usage(str(probe)).free / 1e6)
    except OSError:
        free = "free space unknown"
    return "no space left on the device holding %s (%s%s); free some space and run again" % (
        path, free, "; this needs about %s" % needed if needed else "")


def disk_full(error):
    """Whether the OSError ERROR says the file system is full."""
    return getattr(error, "errno", None) == errno.ENOSPC


@contextlib.contextmanager
def space_for(path, needed=None):
    """A full file system met in the with block is one line naming PATH (ToolError)."""
    try:
        yield
    except OSError as error:
        if disk_full(error):
            raise ToolError(no_space(path, needed))
        raise


def clean_env(**extra):
    """os.environ without PYTHON* variables, so nothing leaks into builds and tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(extra)
    return env


def run(cmd, cwd=None, env=None, check=True, input=None, where=None, needed=None):
    """Run CMD, capturing its output (text); ToolError on failure when CHECK.

    A failure for want of space is one line naming WHERE (default CWD) and
    the space NEEDED, whatever else the command printed.
    """
    cmd = [str(c) for c in cmd]
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input, stdout=subprocess.PIPE,
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
    """Run CMD with its output in the file LOG; on failure show LOG's tail.

    A failure for want of space is one line (see `run`), naming LOG.  A
    signal that stops the run stops CMD's children too (make's compilers).
    """
    cmd = [str(c) for c in cmd]
    try:
        with open(str(log), "w") as out:
            code = process_tree.call(cmd, cwd=cwd, env=env, stdout=out,
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
    """Run CMD with its output going to OUT (default: ours); return the exit code.

    SHOW is what to print of the command (default: all of it).
    """
    out = out or sys.stdout
    print("$ " + (show or " ".join(str(c) for c in cmd)), file=out, flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=cwd, env=env, stdout=out,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def sha256_file(path):
    digest = hashlib.sha256()
    with open(str(path), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def short_key(data):
    """A 12-hex-digit key for a JSON-able description of some inputs."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive lock on PATH for the with block.

    Two runs that want the same build, venv or html tree wait for each other
    instead of deleting each other's half-made work.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path), "a") as handle:
        host_apt.flock_waiting(handle, path, say)
        yield


def children():
    """The pids of this process's children, from /proc."""
    return [pid for pid, parent in process_tree.parents().items() if parent == os.getpid()]


def wind_down(signum, grace=30):
    """After SIGNUM stopped the main thread: let the other threads end too.

    Each child process still running (one a job of `side_by_side` waits
    for, or one started in the background) gets SIGNUM, and so does every
    process below it (a make's compilers), so that the threads waiting for
    them unwind, their with blocks remove what they made, and nothing they
    started runs on.
    Returns whether every other thread ended within GRACE seconds.
    """
    deadline, next_round = time.monotonic() + grace, 0
    while True:
        now = time.monotonic()
        if now >= next_round:
            # Again each second: a child caught between fork and exec
            # does not act on a signal.
            next_round = now + 1
            for pid in children():
                process_tree.signal_tree(pid, signum)
        others = [t for t in threading.enumerate()
                  if t is not threading.current_thread() and not t.daemon and t.is_alive()]
        if not others:
            return True
        if now >= deadline:
            return False
        time.sleep(0.05)


def require_program(name, why):
    if shutil.which(name) is None:
        raise ToolError("%s is needed %s but is not on PATH" % (name, why))


def git(*args, cwd=None, env=None, check=True, input=None, binary=False):
    """Run git with nobody's configuration (hooks, signing, autocrlf) in the way.

    No automatic maintenance either: from git 2.47 `commit` and `am` start
    `git maintenance run --auto --detach`, which may still be writing into a
    scratch repository's .git/objects while that is deleted (rmtree then
    fails, "Directory not empty").

    BINARY returns the CompletedProcess with stdout as bytes, stderr apart.
    """
    env = dict(env or os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    cmd = ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false",
           "-c", "maintenance.auto=false", "-c", "gc.auto=0"] + [str(a) for a in args]
    if not binary:
        return run(cmd, cwd=cwd, env=env, check=check, input=input)
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
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


class Stopped(BaseException):
    """SIGTERM or SIGHUP: the run unwinds, its temporary directories removed on the way."""


# Inside `held()` a stopping signal is noted, not raised: threading's own
# code is not safe against an exception from a signal handler (on 3.9 an
# interrupted Thread.join() marks a running thread as ended, since
# bpo-45274's handling releases its lock, and an interrupted Thread.start()
# can fail with "release unlocked lock"), so where this module waits for or
# starts a thread, the signal is raised as Stopped at its next safe point.
_HOLD = {"depth": 0, "pending": None}


def stop(signum, frame):
    """The handler of SIGTERM and SIGHUP: raise Stopped (inside `held()`, soon after)."""
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the run at once
    if _HOLD["depth"]:
        _HOLD["pending"] = signum
        return
    raise Stopped(signum)


def raise_pending():
    """Raise Stopped for a signal `held()` noted, if one came."""
    signum, _HOLD["pending"] = _HOLD["pending"], None
    if signum is not None:
        raise Stopped(signum)


@contextlib.contextmanager
def held():
    """Within: a stopping signal waits for `raise_pending()` or the block's end."""
    _HOLD["depth"] += 1
    try:
        yield
    finally:
        _HOLD["depth"] -= 1
        if not _HOLD["depth"]:
            raise_pending()


class Thread(threading.Thread):
    """A thread that says when it ends (`ended`), for `join`; started with signals held."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ended = threading.Event()

    def start(self):
        with held():
            super().start()

    def run(self):
        try:
            super().run()
        finally:
            self.ended.set()


def join(thread):
    """Wait for THREAD (a Thread of this module) to end, waking twice a second.

    Waking: a signal held during the wait is raised at the next wake.  The
    wait is an Event's, with signals held, not Thread.join(timeout) (see
    `held`): a signal that interrupted join() made a SIGTERM'd run exit
    while a side-by-side job still ran, leaving its temporary directory,
    about once in 30 runs of test_tool_faults' SIGTERM test on 3.9.
    """
    with held():
        while not thread.ended.wait(0.5):
            raise_pending()
        thread.join()


def side_by_side(jobs, out=None):
    """Run JOBS, a list of (name, function(out)), at once, each in a thread.

    Each job writes to a file of its own; a line says when each one ends,
    and then every job's output is printed whole, in the order given.
    ToolError names every job that failed.
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
