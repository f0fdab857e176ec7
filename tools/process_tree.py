"""Stopping what a run started: a child process and everything below it.

A signal that stops a tool must stop its work too.  `subprocess.call`
answers an exception in its wait by SIGKILL to the child alone: `make`
dies and its compilers run on, reparented to PID 1; debootstrap (a shell
script) dies and its dpkg and tar go on unpacking into the directory the
next run is about to use.  `call` here answers it by stopping the whole
tree below the child; `signal_tree` is the same signal for a caller that
waits for the child itself (a job in a thread of its own).

The children are not moved into process groups of their own: a Ctrl-C at
the terminal reaches them as it always did.
"""

import os
import signal
import subprocess
import time

# How long a tree gets to end after SIGTERM before what is left gets SIGKILL.
GRACE = 10


def parents():
    """{pid: parent pid} of every process, from /proc."""
    found = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as stat:
                    # "pid (name) state ppid ...": the name may hold blanks and ")".
                    fields = stat.read().rsplit(')', 1)[-1].split()
            except OSError:
                continue
            if len(fields) > 1 and fields[0] != 'Z':
                found[int(entry)] = int(fields[1])
    return found


def descendants(pid):
    """The pids below PID (children, theirs, ...), parents before children."""
    parents_of = parents()
    below, level = [], [pid]
    while level:
        level = [p for p, parent in parents_of.items() if parent in level and p not in below]
        below += level
    return below


def _kill(pid, signum):
    try:
        os.kill(pid, signum)
        return True
    except OSError:
        return False


def signal_tree(pid, signum):
    """Send SIGNUM to PID and to every process below it; return their pids.

    The tree is frozen first (SIGSTOP, round after round until no new
    process turns up), so that none forked meanwhile, and none whose
    parent dies first, escapes the signal by being reparented.
    """
    frozen = []
    for _ in range(50):
        new = [p for p in [pid] + descendants(pid) if p not in frozen]
        if not new:
            break
        frozen += [p for p in new if _kill(p, signal.SIGSTOP)]
    for p in frozen:
        _kill(p, signum)
    for p in frozen:
        _kill(p, signal.SIGCONT)
    return frozen


def _alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[-1].split()[:1] != ['Z']
    except OSError:
        return False


def stop(proc, grace=GRACE):
    """End the Popen PROC and everything below it: SIGTERM, then SIGKILL after GRACE s."""
    pids = signal_tree(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (proc.poll() is None or any(map(_alive, pids))):
        time.sleep(0.05)
    for pid in [p for p in pids if p != proc.pid and _alive(p)] + [proc.pid]:
        if proc.poll() is None or pid != proc.pid:
            _kill(pid, signal.SIGKILL)
    proc.wait()


def call(cmd, **kwargs):
    """subprocess.call(CMD, **KWARGS), but an exception while it waits (a signal's,
    raised by a handler) stops everything the command started before it goes on."""
    with subprocess.Popen(cmd, **kwargs) as proc:
        try:
            return proc.wait()
        except BaseException:
            stop(proc)
            raise
