"""Every apt-get the tools run waits its turn (tools/host_apt.py).

On a fresh machine the Debian root installs debootstrap in the background
(`debian_root._apt_install`) while the fetch stage runs its own apt-get
(`obtain.tarball(apt_source=True)`); apt lets one of them hold its lock and
the other exits 100 at once.  These tests put a stand-in ``apt-get`` first
on PATH that behaves that way -- it fails, naming the holder, whenever
another copy of it is running -- and run the two stages at the same moment.
"""

import os
import stat
import sys
import tempfile
import textwrap
import threading
import unittest
from pathlib import Path
from unittest import mock

import _layout

# The fetch stage is one of the two racing stages; it is not in the sdist.
_layout.require('tools/cpython_change.py')
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import debian_root, host_apt  # noqa: E402
from tools.cpython import obtain  # noqa: E402
from tools.cpython.base import SourceBase  # noqa: E402
from tools.cpython.util import ToolError  # noqa: E402

# A stand-in for apt-get.  It holds "apt's lock" (a file made with O_EXCL)
# for HOLD seconds; a second copy that finds it held says what apt-get says
# and exits 100.  BUSY_UNTIL_CALL makes the first calls find the lock held
# by a program that is not ours.  Every call is logged.
FAKE_APT_GET = textwrap.dedent('''\
    #!{python}
    import os, sys, time
    state = {state!r}
    lock = os.path.join(state, 'lock')
    with open(os.path.join(state, 'calls'), 'a') as log:
        log.write(' '.join(sys.argv[1:]) + '\\n')
    with open(os.path.join(state, 'calls')) as log:
        calls = len(log.readlines())
    if calls <= int(os.environ.get('BUSY_UNTIL_CALL', '0')):
        print('E: Could not get lock /var/lib/apt/lists/lock. '
              'It is held by process 4242 (unattended-upgr)')
        sys.exit(100)
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        holder = open(lock).read() or '?'
        print('E: Could not get lock /var/lib/apt/lists/lock. '
              'It is held by process %s (apt-get)' % holder)
        print('E: Unable to lock directory /var/lib/apt/lists/')
        sys.exit(100)
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    try:
        time.sleep(float(os.environ.get('HOLD', '1.5')))
        if sys.argv[1:2] == ['source']:
            with open('{tarball}', 'w') as out:
                out.write('a tarball')
    finally:
        os.unlink(lock)
    ''')


class FakeAptFixture(unittest.TestCase):

    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix='fake-apt-')
        self.addCleanup(scratch.cleanup)
        self.scratch = Path(scratch.name)
        self.state = self.scratch / 'state'
        self.state.mkdir()
        bin_dir = self.scratch / 'bin'
        bin_dir.mkdir()
        fake = bin_dir / 'apt-get'
        fake.write_text(FAKE_APT_GET.format(python=sys.executable, state=str(self.state),
                                            tarball=SourceBase.TARBALL_NAME))
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        environ = dict(os.environ, PATH='%s%s%s' % (bin_dir, os.pathsep, os.environ['PATH']),
                       HOLD='1.5', BUSY_UNTIL_CALL='0')
        for patcher in (mock.patch.dict(os.environ, environ),
                        # Our own lock, kept apart from any real run's.
                        mock.patch.object(host_apt, 'LOCK', self.scratch / 'apt.lock'),
                        mock.patch.object(host_apt, 'POLL', 0.05)):
            patcher.start()
            self.addCleanup(patcher.stop)

    def calls(self):
        return (self.state / 'calls').read_text().splitlines()


class StagesAtOnceTests(FakeAptFixture):

    def test_fetch_and_root_stages_started_together_both_succeed(self):
        cache = self.scratch / 'cache'
        errors = []
        barrier = threading.Barrier(2)

        def root_stage():
            barrier.wait()
            try:
                debian_root._apt_install('debootstrap')
            except Exception as error:  # noqa: BLE001 -- reported below
                errors.append(error)

        def fetch_stage():
            barrier.wait()
            try:
                obtain.tarball(cache, apt_source=True)
            except Exception as error:  # noqa: BLE001 -- reported below
                errors.append(error)

        tarball_sha = SourceBase.TARBALL_SHA256
        with mock.patch.object(obtain, 'ensure_deb_src', lambda: None), \
                mock.patch.object(obtain.os, 'geteuid', lambda: 0), \
                mock.patch.object(obtain, 'sha256_file', lambda path: tarball_sha):
            threads = [threading.Thread(target=root_stage), threading.Thread(target=fetch_stage)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(sorted(self.calls()), sorted([
            'update -qq', 'install -y -qq --no-install-recommends debootstrap',
            'update', 'source --download-only python3.13']))
        self.assertTrue((cache / 'src' / SourceBase.TARBALL_NAME).is_file())


class WaitForSomeoneElseTests(FakeAptFixture):

    def test_a_lock_held_by_another_program_is_waited_for(self):
        os.environ.update(BUSY_UNTIL_CALL='3', HOLD='0')
        with mock.patch('sys.stdout') as stdout:
            host_apt.apt_get(['update'], wait=30)
        self.assertEqual(self.calls(), ['update'] * 4)
        said = ''.join(c.args[0] for c in stdout.write.call_args_list)
        self.assertIn('held by process 4242 (unattended-upgr); waiting up to 30 s', said)

    def test_past_the_bound_the_error_names_the_holder(self):
        os.environ.update(BUSY_UNTIL_CALL='1000', HOLD='0')
        with mock.patch('sys.stdout'):
            with self.assertRaises(host_apt.AptError) as caught:
                host_apt.apt_get(['install', '-y', 'debootstrap'], wait=0.3)
        message = str(caught.exception)
        self.assertIn('apt-get install -y debootstrap', message)
        self.assertIn('still held by process 4242 (unattended-upgr) after 0 s', message)

    def test_a_failure_that_is_not_the_lock_is_not_retried(self):
        os.environ.update(HOLD='0')
        fake = Path(os.environ['PATH'].split(os.pathsep)[0]) / 'apt-get'
        fake.write_text('#!/bin/sh\necho "E: Unable to locate package nosuch"\nexit 100\n')
        log = self.scratch / 'apt.log'
        with self.assertRaises(host_apt.AptError) as caught:
            host_apt.apt_get(['install', 'nosuch'], log=log)
        self.assertIn('Unable to locate package nosuch', str(caught.exception))
        self.assertIn(str(log), str(caught.exception))
        self.assertIn('Unable to locate package nosuch', log.read_text())

    def test_the_stages_report_apts_error_in_their_own_terms(self):
        os.environ.update(BUSY_UNTIL_CALL='1000', HOLD='0')
        with mock.patch.object(host_apt, 'WAIT', 0), mock.patch('sys.stderr'):
            with self.assertRaises(debian_root.RootError) as root_error:
                debian_root._apt_install('debootstrap')
            with mock.patch.object(obtain, 'ensure_deb_src', lambda: None), \
                    mock.patch.object(obtain.os, 'geteuid', lambda: 0):
                with self.assertRaises(ToolError) as fetch_error:
                    obtain.tarball(self.scratch / 'cache', apt_source=True)
        self.assertIn('could not install debootstrap', str(root_error.exception))
        self.assertIn('held by process 4242', str(root_error.exception))
        self.assertIn('held by process 4242', str(fetch_error.exception))


if __name__ == '__main__':
    unittest.main()
