"""apt-get on this machine, one at a time.

apt lets one apt-get at a time hold its locks, and a second one that finds
them taken does not wait: it exits 100 at once ("Could not get lock
/var/lib/apt/lists/lock. It is held by process N (apt-get)").  The tools
start some of theirs at the same moment -- the Debian root installs
debootstrap in the background while the fetch stage runs ``apt-get update``
and ``apt-get source`` -- so every apt-get they run goes through `apt_get`:

* it takes a lock of ours first (`LOCK`, an flock that threads and processes
  alike wait for), so the tools' own apt-gets run one after another;
* it waits, for at most `WAIT` seconds and saying so, while a program that
  is not ours (unattended-upgrades, an apt-get in another shell) holds
  apt's locks; past that the error names the holder.

``DPkg::Lock::Timeout`` would cover only dpkg's lock: ``apt-get update``
(apt 2.6) still fails at once on the lists lock, hence the retry here.

    python3 tools/host_apt.py update -qq
    python3 tools/host_apt.py install -y -qq --no-install-recommends debootstrap
"""

import contextlib
import fcntl
import os
import re
import subprocess
import sys
import time
from pathlib import Path

# /run/lock is cleared at boot, so a lock file never outlives the machine's
# processes; tempfile's directory where it is missing.
LOCK = Path('/run/lock' if os.path.isdir('/run/lock') else '/tmp') / 'enum-from-value-apt.lock'
WAIT = 600  # seconds to wait for apt's locks held by someone else
POLL = 2
# What apt-get says when another program holds its lock; apt names the
# holder when it can tell.
BUSY_RE = re.compile(r'Could not get lock (?P<lock>\S+?)\.?(?: It is held by process '
                     r'(?P<pid>\d+)(?: \((?P<name>[^)]*)\))?)?$', re.MULTILINE)


class AptError(Exception):
    """apt-get failed, or apt's lock stayed taken; the message says which."""


def say(message):
    print('apt: ' + message, file=sys.stderr, flush=True)


def lock_holder(handle):
    """Who holds an flock on HANDLE's file: 'process N (its command line)'.

    Read from /proc/locks, matched by the file's device and inode; a holder
    that cannot be told (it let go meanwhile, or no /proc) is 'another process'.
    """
    st = os.fstat(handle.fileno())
    wanted = '%02x:%02x:%d' % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    pids = []
    try:
        with open('/proc/locks') as locks:
            for line in locks:
                fields = line.split()
                # "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"; "N: -> ..." waits.
                if len(fields) >= 6 and fields[1] == 'FLOCK':
                    if fields[5] == wanted:
                        pids.insert(0, fields[4])
                    elif fields[5].rsplit(':', 1)[-1] == str(st.st_ino):
                        pids.append(fields[4])  # the same inode seen through an overlay
    except OSError:
        pass
    for pid in pids:
        command = _command_line(pid)
        if command is not None:
            return 'process %s (%s)' % (pid, command)
    # The process that took it has ended; a child it gave the lock to
    # (debootstrap, see tools/debian_root.py) holds it still.
    for pid in _openers(st):
        command = _command_line(pid)
        if command is not None and pid != str(os.getpid()):
            return 'process %s (%s), which holds it open' % (pid, command)
    return 'another process'


def _command_line(pid):
    try:
        with open('/proc/%s/cmdline' % pid, 'rb') as cmdline:
            words = cmdline.read().decode(errors='replace').split('\0')
    except OSError:
        return None
    return _shortened(' '.join(' '.join(words).split()))


def _openers(st):
    """The pids (as text) of the processes with the file of stat ST open, from /proc."""
    try:
        pids = [entry for entry in os.listdir('/proc') if entry.isdigit()]
    except OSError:
        return []
    found = []
    for pid in pids:
        try:
            fds = os.listdir('/proc/%s/fd' % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                other = os.stat('/proc/%s/fd/%s' % (pid, fd))
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                found.append(pid)
                break
    return found


def _shortened(command, most=300):
    """COMMAND cut in the middle if longer than MOST: its end (--cache DIR) is kept."""
    if len(command) <= most:
        return command
    return command[:most // 3] + ' ... ' + command[-(most - most // 3 - 5):]


def flock_waiting(handle, path, tell):
    """Take an exclusive flock on HANDLE (the file PATH), saying through TELL whom it waits for.

    A lock that is free is taken in silence; a held one gets a line naming
    the holder and, once taken, one saying how long the wait was.
    """
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    started = time.monotonic()
    holder = lock_holder(handle)
    if holder.startswith('process %d ' % os.getpid()):
        # flock is per open file: another thread of this run holds it.
        tell('waiting for the lock %s, held by another step of this run (%s); this step '
             'goes on when that one lets go' % (path, holder))
    else:
        tell('waiting for the lock %s, held by %s; this run goes on when that one lets go'
             % (path, holder))
    fcntl.flock(handle, fcntl.LOCK_EX)
    tell('took the lock %s after waiting %.0f s' % (path, time.monotonic() - started))


@contextlib.contextmanager
def _ours(lock=None):
    """Hold our own apt lock: one apt-get of the tools at a time."""
    path = Path(lock or LOCK)
    with open(str(path), 'a') as handle:
        flock_waiting(handle, path, say)
        yield


def apt_get(args, log=None, wait=None, lock=None, env=None, cwd=None):
    """Run ``apt-get ARGS``, one at a time, waiting for apt's lock if needed.

    Its output goes to the file LOG (or is kept in memory); on failure the
    AptError carries the last lines.  WAIT bounds the wait for a lock that
    something else holds (default `WAIT`); LOCK is our own lock file.
    """
    wait = WAIT if wait is None else wait
    cmd = ['apt-get'] + [str(a) for a in args]
    env = dict(env or os.environ, DEBIAN_FRONTEND='noninteractive')
    with _ours(lock):
        deadline = time.monotonic() + wait
        told = False
        while True:
            proc = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  universal_newlines=True)
            if log is not None:
                Path(log).write_text(proc.stdout)
            if proc.returncode == 0:
                return proc.stdout
            busy = proc.returncode == 100 and BUSY_RE.search(proc.stdout)
            if not busy:
                tail = '\n'.join(proc.stdout.strip().splitlines()[-20:])
                raise AptError('%s failed (exit %d)%s:\n%s' % (
                    ' '.join(cmd), proc.returncode,
                    '; its output is in %s' % log if log is not None else '', tail))
            holder = ('process %s%s' % (busy.group('pid'),
                                        ' (%s)' % busy.group('name') if busy.group('name') else '')
                      if busy.group('pid') else 'a process apt does not name')
            if time.monotonic() >= deadline:
                raise AptError('%s: apt\'s lock %s is still held by %s after %d s; '
                               'wait for it to finish, or stop it, and run again'
                               % (' '.join(cmd), busy.group('lock'), holder, wait))
            if not told:
                say('apt\'s lock %s is held by %s; waiting up to %d s for it'
                    % (busy.group('lock'), holder, wait))
                told = True
            time.sleep(POLL)


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if args else 2
    try:
        sys.stdout.write(apt_get(args))
    except AptError as error:
        print('apt: ' + str(error), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
