"""apt-get on this machine, one at a time.

apt lets one apt-get at a time hold its locks, and a second one exits 100 at
once ("Could not get lock ...").  The tools start some at the same moment
(the root's debootstrap install beside the fetch's ``apt-get source``), so
each goes through `apt_get`, which takes a lock of ours first (`LOCK`), and
waits at most `WAIT` seconds, saying so, while a program not ours holds
apt's; past that the error names the holder.  (``DPkg::Lock::Timeout``
covers only dpkg's lock, not the lists lock of ``apt-get update``.)

    python3 tools/host_apt.py update -qq
    python3 tools/host_apt.py install -y -qq --no-install-recommends debootstrap
"""

if __name__ == '__main__' and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file: the package, in the tools' venv
    bootstrap.run('tools.host_apt')

import os
import re
import sys
import time
from pathlib import Path

from . import plumbing
from .plumbing import say

# /run/lock is cleared at boot, so a lock file never outlives the machine's
# processes; tempfile's directory where it is missing.
LOCK = Path('/run/lock' if os.path.isdir('/run/lock') else '/tmp') / 'enum-from-value-apt.lock'
WAIT = 600  # seconds to wait for apt's locks held by someone else
POLL = 2
# What apt-get says when another program holds its lock; apt names the
# holder when it can tell.
BUSY_RE = re.compile(r'Could not get lock (?P<lock>\S+?)\.?(?: It is held by process '
                     r'(?P<pid>\d+)(?: \((?P<name>[^)]*)\))?)?$', re.MULTILINE)


class AptError(plumbing.Error):
    """apt-get failed, or apt's lock stayed taken; the message says which."""


def apt_get(args, log=None, wait=None, lock=None, env=None, cwd=None):
    """Run ``apt-get ARGS``, one at a time (our LOCK), waiting up to WAIT s for apt's lock;
    its output goes to the file LOG, and its last lines into an AptError."""
    wait = WAIT if wait is None else wait
    cmd = ['apt-get'] + [str(a) for a in args]
    env = dict(env or os.environ, DEBIAN_FRONTEND='noninteractive')
    with plumbing.locked(lock or LOCK):  # ours: the tools' apt-gets, one at a time
        deadline = time.monotonic() + wait
        told = False
        while True:
            proc = plumbing.capture(cmd, env=env, cwd=cwd)
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
    return plumbing.main(lambda args: sys.stdout.write(apt_get(args)) and 0, 'apt', args,
                         messages=sys.stderr)


if __name__ == '__main__':
    sys.exit(main())
