"""The plumbing every tool shares, written once.

Every entry point runs its work through `main`, the one wrapper that turns
an `Error` (the one error base; `code` is the exit status), Ctrl-C, SIGTERM
or SIGHUP into one line and an exit status, after stopping every process
group the run started (`popen`, `run`, `call`, `capture`) and every process
below it.  The rest: `say` (one line, prefixed with the tool's name),
`cache_dir`, `locked`, `complete`, `venv` (made whole or not at all), and
the full-disk helpers.
"""

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# How long what a run started gets to end after the signal before SIGKILL.
GRACE = 10
# What a program writing to a full file system says (strerror(ENOSPC)).
NO_SPACE = os.strerror(errno.ENOSPC)
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_STATE = {"name": "tools",  # until `main` names the tool
          "out": None, "depth": 0, "pending": None, "signalled": None}
# The process groups this run started, by their leader (a Popen).  A group
# whose leader was reaped is forgotten: its number may be reused meanwhile.
_GROUPS = {}
_PRINT = threading.Lock()


class Error(Exception):
    """A failure to report in one line (no traceback); `code` is the exit status."""

    code = 1


class UsageError(Error):
    """A command line or an input that cannot be used."""

    code = 2


class Stopped(BaseException):
    """A stopping signal (SIGINT, SIGTERM, SIGHUP): the run unwinds, removing what it made."""

    @property
    def signum(self):
        return self.args[0]


def say(message, out=None):
    """MESSAGE as one line, prefixed with the name of the tool running."""
    with _PRINT:
        print("%s: %s" % (_STATE["name"], message), file=out or _STATE["out"] or sys.stdout,
              flush=True)


def main(work, name, argv=None, messages=None):
    """Run work(argv) as the tool NAME; return its exit status (128 + N after signal N).

    MESSAGES is where `say` writes (default stdout; a tool whose stdout is
    its answer gives stderr).  A signal ignored at the start (nohup) stays so.
    """
    before = dict(_STATE)
    _STATE.update(name=name, out=messages)
    with contextlib.suppress(AttributeError, OSError):  # Linux: PR_SET_CHILD_SUBREAPER, so
        import ctypes  # what outlives its parent (regrtest's workers) stays below this one
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
    handled = []
    if threading.current_thread() is threading.main_thread():
        handled = [s for s in SIGNALS if s == signal.SIGINT
                   or signal.getsignal(s) == signal.SIG_DFL]
    previous = {s: signal.signal(s, on_signal) for s in handled}
    try:
        try:
            return work(argv) or 0
        except KeyboardInterrupt:  # a SIGINT before the handler was in place
            raise Stopped(signal.SIGINT)
    except Error as error:
        print("%s: error: %s" % (name, error), file=sys.stderr, flush=True)
        return error.code
    except Stopped as stopped:
        what = signal.Signals(stopped.signum).name + (
            " (Ctrl-C)" if stopped.signum == signal.SIGINT else "")
        if not wind_down(stopped.signum):
            print("%s: stopped by %s; jobs that did not end were left as they were"
                  % (name, what), file=sys.stderr, flush=True)
            os._exit(128 + stopped.signum)
        stop_started()
        print("%s: stopped by %s; its temporary directories are removed and what it "
              "started is stopped" % (name, what), file=sys.stderr, flush=True)
        return 128 + stopped.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _STATE.update(before)


def on_signal(signum, frame):
    """The handler `main` gives SIGINT, SIGTERM and SIGHUP.

    What the run started gets SIGTERM at once, whichever signal came (so that
    threads waiting for it unwind); then Stopped is raised, or, inside
    `held()`, noted for the next safe point.  A second signal ends the run.
    """
    signal.signal(signum, signal.SIG_DFL)
    _STATE["signalled"] = signum
    signal_groups(signal.SIGTERM)
    if _STATE["depth"]:
        _STATE["pending"] = signum
        return
    raise Stopped(signum)


def raise_pending():
    """Raise Stopped for a signal `held()` noted, if one came."""
    signum, _STATE["pending"] = _STATE["pending"], None
    if signum is not None:
        raise Stopped(signum)


@contextlib.contextmanager
def held():
    """Within: a stopping signal waits for `raise_pending()` or the block's end.

    threading is not safe against an exception from a signal handler (an
    interrupted Thread.join() may mark a running thread as ended, an
    interrupted Thread.start() fail with "release unlocked lock").
    """
    _STATE["depth"] += 1
    try:
        yield
    finally:
        _STATE["depth"] -= 1
        if not _STATE["depth"]:
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
    """Wait for THREAD (a Thread of this module) to end; a held signal is raised within 0.5 s."""
    with held():
        while not thread.ended.wait(0.5):
            raise_pending()
        thread.join()


def wind_down(signum, grace=30):
    """Whether the other threads ended within GRACE seconds after SIGNUM stopped this one.

    Their children are signalled again each second (one caught between fork
    and exec does not act on a signal).
    """
    deadline, next_round = time.monotonic() + grace, 0
    while True:
        now = time.monotonic()
        if now >= next_round:
            next_round = now + 1
            signal_groups(signal.SIGTERM)
        others = [t for t in threading.enumerate()
                  if t is not threading.current_thread() and not t.daemon and t.is_alive()]
        if not others:
            return True
        if now >= deadline:
            return False
        time.sleep(0.05)


def popen(cmd, **kwargs):
    """subprocess.Popen of CMD in a process group of its own, which `stop_started` stops:
    the compilers of a make whose parent a signal killed are still found, and a
    Ctrl-C reaches the tool first."""
    proc = subprocess.Popen([str(c) for c in cmd], start_new_session=True, **kwargs)
    _GROUPS[proc.pid] = proc
    return proc


def call(cmd, **kwargs):
    """subprocess.call, in a group of its own: the exit status."""
    with popen(cmd, **kwargs) as proc:
        try:
            return proc.wait()
        except BaseException:
            stop_group(proc)
            raise
        finally:
            _GROUPS.pop(proc.pid, None)


def run(cmd, input=None, **kwargs):
    """subprocess.run, in a group of its own: a CompletedProcess."""
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with popen(cmd, **kwargs) as proc:
        try:
            out, err = proc.communicate(input)
        except BaseException:
            stop_group(proc)
            raise
        finally:
            _GROUPS.pop(proc.pid, None)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def capture(cmd, **kwargs):
    """run(CMD) with stdout and stderr together as text, stdin empty."""
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
               universal_newlines=True, **kwargs)


def signal_groups(signum):
    """Send SIGNUM to every process group this run started."""
    for group, leader in list(_GROUPS.items()):
        try:
            if leader.returncode is not None:
                raise ProcessLookupError
            os.killpg(group, signum)
        except (ProcessLookupError, PermissionError):
            _GROUPS.pop(group, None)


def stop_group(proc, grace=GRACE):
    """End PROC's group: SIGTERM (unless a stopping signal reached it already),
    then SIGKILL to what outlives GRACE seconds."""
    _stop([proc.pid], grace)
    proc.wait()


def stop_started(grace=GRACE):
    """Stop every process group this run started, and every process below this one.

    SIGTERM (unless a stopping signal reached them already: a second one would
    cut a tool's own cleanup short), then SIGKILL to what outlives GRACE.
    """
    import psutil

    _stop([g for g, leader in _GROUPS.items() if leader.returncode is None], grace,
          psutil.Process().children(recursive=True))
    _GROUPS.clear()


def _stop(groups, grace, others=()):
    import psutil

    members = _members(groups)
    members += [p for p in others if p not in members]
    if not _STATE["signalled"]:
        for group in groups:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGTERM)
    _, alive = psutil.wait_procs(members, timeout=grace)
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.kill()
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)


def _members(groups):
    """The processes (psutil) of the process groups GROUPS."""
    import psutil

    found = []
    for p in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getpgid(p.pid) in groups and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
    return found


def cache_dir(explicit=None):
    """--cache, else $ENUM_FROM_VALUE_CACHE, else ~/.cache/enum-from-value: made, and
    tried with a file written and removed (one it cannot write into is an Error)."""
    chosen = explicit or os.environ.get("ENUM_FROM_VALUE_CACHE")
    named = ("--cache %s" % explicit if explicit else
             "ENUM_FROM_VALUE_CACHE=%s" % chosen if chosen else "the cache")
    try:
        path = (Path(chosen).expanduser().resolve() if chosen
                else Path.home() / ".cache" / "enum-from-value")
        if path.is_file():
            raise Error("%s cannot be the cache directory: it is a file" % named)
        path.mkdir(parents=True, exist_ok=True)
        try:
            handle, probe = tempfile.mkstemp(prefix=".write-test-", dir=str(path))
        except OSError as error:
            raise OSError(error.errno, "cannot write there (%s)" % (error.strerror or error),
                          str(path))
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise Error("%s cannot be the cache directory: %s: %s; give one you can write "
                    "(--cache DIR or ENUM_FROM_VALUE_CACHE=DIR)"
                    % (named, error.filename or chosen or "~/.cache/enum-from-value",
                       error.strerror or error))
    return path


def lock_holder(path):
    """Who holds an flock on the file PATH: 'process N (its command line)', from /proc/locks,
    else a process that holds it open (as debootstrap is given it), else 'another process'."""
    import psutil

    try:
        st = os.stat(str(path))
        with open("/proc/locks") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return "another process"
    wanted = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    pids = []
    for line in lines:
        # "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"; "N: -> ..." waits.
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK":
            if fields[5] == wanted:
                pids.insert(0, int(fields[4]))
            elif fields[5].rsplit(":", 1)[-1] == str(st.st_ino):
                pids.append(int(fields[4]))  # the same inode seen through an overlay
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            return "process %d (%s)" % (pid, _shortened(psutil.Process(pid).cmdline()))
    for p in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if p.pid != os.getpid() and any(os.path.samefile(f.path, str(path))
                                            for f in p.open_files() if os.path.exists(f.path)):
                return "process %d (%s), which holds it open" % (p.pid,
                                                                  _shortened(p.cmdline()))
    return "another process"


def _shortened(argv, most=300):
    """ARGV as one line, cut in the middle if longer than MOST: its end (--cache DIR) is kept."""
    command = " ".join(" ".join(argv).split())
    if len(command) <= most:
        return command
    return command[:most // 3] + " ... " + command[-(most - most // 3 - 5):]


@contextlib.contextmanager
def locked(path, tell=None):
    """Hold an exclusive lock on the file PATH for the with block; yields its descriptor.

    A held lock gets a line (through TELL, default `say`) naming the holder,
    and once taken one saying how long the wait was.
    """
    import filelock

    tell = tell or say
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fds = []  # the descriptor holding the lock, for a child to be given (pass_fds)
    lock = filelock.FileLock(str(path), on_acquired=fds.append)
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        started = time.monotonic()
        holder = lock_holder(path)
        if holder.startswith("process %d " % os.getpid()):
            tell("waiting for the lock %s, held by another step of this run (%s); this step "
                 "goes on when that one lets go" % (path, holder))
        else:
            tell("waiting for the lock %s, held by %s; this run goes on when that one lets go"
                 % (path, holder))
        lock.acquire()
        tell("took the lock %s after waiting %.0f s" % (path, time.monotonic() - started))
    try:
        yield fds[-1]
    finally:
        lock.release()



@contextlib.contextmanager
def complete(path):
    """Make the directory PATH whole or not at all: yields a directory beside it to fill.

    Renamed to PATH on success (an old PATH goes first), removed on any
    failure (a full disk, a signal): nothing half-made ever has PATH's name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".%s.partial-" % path.name, dir=str(path.parent)))
    try:
        yield staging
        if path.exists():
            shutil.rmtree(str(path))
        os.rename(str(staging), str(path))
    finally:
        shutil.rmtree(str(staging), ignore_errors=True)


def venv(path, python, packages, run=None, marker="venv-ok"):
    """A venv of PYTHON at PATH with PACKAGES, made unless made whole before (MARKER, last).

    RUN(argv) -> exit status runs a command (default `call`; a venv inside
    the Debian root passes its own).  Call it with the venv's lock held.
    """
    path, run = Path(path), run or call
    if (path / marker).is_file():
        return path
    shutil.rmtree(str(path), ignore_errors=True)
    try:
        path.mkdir(parents=True)
        if run([python, "-m", "venv", path]) != 0 or run(
                [path / "bin" / "python", "-m", "pip", "install", "-q",
                 "--disable-pip-version-check"] + list(packages)) != 0:
            raise Error("could not make the venv %s with %s" % (path, " ".join(map(str, packages))))
        (path / marker).write_text("ok\n")
    except BaseException:
        shutil.rmtree(str(path), ignore_errors=True)
        raise
    return path


def disk_full(error):
    """Whether the OSError ERROR says the file system is full."""
    return getattr(error, "errno", None) == errno.ENOSPC


def no_space(path, needed=None):
    """The one line that says the file system holding PATH is full."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = "%.0f MB free there" % (shutil.disk_usage(str(probe)).free / 1e6)
    except OSError:
        free = "free space unknown"
    return "no space left on the device holding %s (%s%s); free some space and run again" % (
        path, free, "; this needs about %s" % needed if needed else "")


@contextlib.contextmanager
def space_for(path, needed=None):
    """A full file system met in the with block is one line naming PATH (Error)."""
    try:
        yield
    except OSError as error:  # shutil.Error too: copytree's list of what it could not copy
        if disk_full(error) or NO_SPACE in str(error):
            raise Error(no_space(path, needed))
        raise
