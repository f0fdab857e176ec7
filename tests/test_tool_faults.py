"""The tools under faults: no user file destroyed, a run cut short heals, a bad input is one line.

Each test meets tools/cpython_change.py, tools/debian_root.py or their
helpers with one fault a user on a shared machine meets: an output
directory holding someone else's files, a Debian root whose debootstrap was
killed with its /proc still mounted, a cached tarball cut short, a cache
that cannot be a directory or cannot be written, a lock held by another
run, a full disk, a SIGTERM (and what the stopped run started), two
fetches at once, an argument that names nothing.  Where the real program is too slow or needs the machine's root
(debootstrap, umount, tar on a full disk), a stand-in first on PATH plays
it, as tests/test_host_apt.py does for apt-get.
"""

import builtins
import contextlib
import errno
import fcntl
import io
import lzma
import os
import pathlib
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import threading
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import _layout

_layout.require('tools/cpython_change.py')
REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / 'tools'
sys.path.insert(0, str(REPO))

from tools import cpython_change, debian_root, plumbing  # noqa: E402
from tools.cpython import base, build, obtain, patch  # noqa: E402
from tools.cpython.util import ToolError, locked, sha256_file  # noqa: E402

AUTHOR = 'Ada Lovelace <ada@lovelace.dev>'
# typeshed's patch as made for real (the series fixture puts a stand-in there)
WRITE_PATCH = patch.typeshed.write_patch
ISSUES = ['--fix-issue', '140001', '--unhashable-issue', '140002', '--missing-issue', '140003',
          '--feature-issue', '140004', '--flag-issue', '140005']


def executable(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def release_like_tarball(path, files):
    """A .tar.xz laid out like the release's (Python-3.13.5/...): {path: text or bytes}."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(str(path), 'w:xz') as archive:
        for name, data in files.items():
            data = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(base.SourceBase.TOPDIR + '/' + name)
            info.size = len(data)
            info.mode = 0o755
            archive.addfile(info, io.BytesIO(data))
    return path


class Scratch(unittest.TestCase):

    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix='tool-faults-')
        self.addCleanup(scratch.cleanup)
        self.tmp = Path(scratch.name)
        self.cache = self.tmp / 'cache'
        # Nothing a test does may reach the machine's own cache.
        patcher = mock.patch.dict(os.environ, ENUM_FROM_VALUE_CACHE=str(self.tmp / 'env-cache'))
        patcher.start()
        self.addCleanup(patcher.stop)

    def main(self, argv):
        """cpython_change.main(ARGV): (exit code, stderr); an exception escapes."""
        err, out = io.StringIO(), io.StringIO()
        with redirect_stderr(err), redirect_stdout(out):
            code = cpython_change.main(argv)
        return code, err.getvalue()

    def one_line_error(self, argv, code=1):
        found, said = self.main(argv)
        self.assertEqual(found, code, said)
        self.assertEqual(len(said.strip().splitlines()), 1, said)
        self.assertNotIn('Traceback', said)
        return said.strip()

    def fake_path(self):
        """A directory put first on PATH for the test's stand-ins."""
        bin_dir = self.tmp / 'bin'
        bin_dir.mkdir(exist_ok=True)
        patcher = mock.patch.dict(os.environ, PATH='%s%s%s' % (bin_dir, os.pathsep,
                                                               os.environ['PATH']))
        patcher.start()
        self.addCleanup(patcher.stop)
        return bin_dir


# 1. patch --output never deletes or overwrites what it did not write.

class PatchOutputTests(Scratch):

    def users_directory(self):
        mine = self.tmp / 'mine'
        files = {'0001-my-unrelated-work.patch': 'my work\n', '0002-more-work.patch': 'more\n',
                 'fix-pr.md': 'my own notes\n'}
        for name, text in files.items():
            (mine / name).parent.mkdir(parents=True, exist_ok=True)
            (mine / name).write_text(text)
        return mine, files

    def test_a_directory_it_did_not_write_is_refused_and_left_as_it_was(self):
        mine, files = self.users_directory()
        said = self.one_line_error(['patch', '--cache', str(self.cache), '--lib-base', '3.13.5',
                                    '--author', AUTHOR, '--output', str(mine)] + ISSUES)
        for name in files:
            self.assertIn(name, said)
        self.assertIn('did not write', said)
        self.assertEqual({p.name: p.read_text() for p in mine.iterdir()}, files)

    def test_an_earlier_runs_files_are_replaced_and_nothing_else(self):
        out = self.tmp / 'series'
        first = [('0001-a.patch', b'1'), ('0002-b.patch', b'2'), ('0003-c.patch', b'3'),
                 ('fix-pr.md', b'text')]
        self.assertEqual(patch.replace_output(out, first), [out / n for n, _ in first])
        (out / 'notes.txt').write_text('mine, added after\n')
        second = [('0001-a2.patch', b'1b'), ('0002-b2.patch', b'2b'), ('fix-pr.md', b'text 2')]
        patch.replace_output(out, second)
        self.assertEqual(sorted(p.name for p in out.iterdir() if p.name != patch.MANIFEST),
                         ['0001-a2.patch', '0002-b2.patch', 'fix-pr.md', 'notes.txt'])
        self.assertEqual((out / 'fix-pr.md').read_bytes(), b'text 2')
        self.assertEqual((out / 'notes.txt').read_text(), 'mine, added after\n')

    def test_a_file_of_its_own_changed_since_is_not_overwritten(self):
        out = self.tmp / 'series'
        patch.replace_output(out, [('0001-a.patch', b'1'), ('fix-pr.md', b'text')])
        (out / 'fix-pr.md').write_text('text, edited by hand\n')
        with self.assertRaises(ToolError) as caught:
            patch.replace_output(out, [('0001-a.patch', b'1b'), ('fix-pr.md', b'new')])
        self.assertIn('fix-pr.md was changed since', str(caught.exception))
        self.assertEqual((out / 'fix-pr.md').read_text(), 'text, edited by hand\n')
        self.assertEqual((out / '0001-a.patch').read_bytes(), b'1')

    def test_a_file_it_did_not_write_is_not_overwritten_by_a_new_name(self):
        out = self.tmp / 'series'
        patch.replace_output(out, [('0001-a.patch', b'1')])
        (out / 'feature-pr.md').write_text('mine\n')
        with self.assertRaises(ToolError) as caught:
            patch.replace_output(out, [('0001-a.patch', b'1'), ('feature-pr.md', b'new')])
        self.assertIn('feature-pr.md, which `patch` did not write', str(caught.exception))
        self.assertEqual((out / 'feature-pr.md').read_text(), 'mine\n')


    def test_a_list_naming_files_elsewhere_is_refused(self):
        victim = self.tmp / 'victim.txt'
        victim.write_text('not in the series directory\n')
        out = self.tmp / 'series'
        out.mkdir()
        (out / patch.MANIFEST).write_text('{"files": {"../victim.txt": ["x"]}}')
        with self.assertRaises(ToolError) as caught:
            patch.replace_output(out, [('0001-a.patch', b'1')])
        self.assertIn('is not a list of what `patch` wrote', str(caught.exception))
        self.assertEqual(victim.read_text(), 'not in the series directory\n')

# 2. A Debian root whose debootstrap was killed with SIGKILL heals on the next run.

# A stand-in for debootstrap: like the real one after a SIGKILL'd run, it
# fails while anything is mounted under its target (its own log in the
# target then holds thousands of `rm: cannot remove` lines, its output 15
# harmless `I: Extracting` lines); else it makes a small root.
FAKE_DEBOOTSTRAP = textwrap.dedent('''\
    #!{python}
    import os, sys
    # debootstrap [OPTION...] SUITE TARGET [MIRROR]
    target = [a for a in sys.argv[1:] if not a.startswith('-')][1]
    mounts = open({mountinfo!r}).read().split()
    for n in range(15):
        print('I: Extracting package-%d...' % n)
    if any(m == target or m.startswith(target + '/') for m in mounts) \\
            or os.environ.get('FAIL_ANYWAY'):
        os.makedirs(os.path.join(target, 'debootstrap'), exist_ok=True)
        with open(os.path.join(target, 'debootstrap', 'debootstrap.log'), 'w') as log:
            log.write('dpkg: unpacking base-files\\n')
            for n in range(28899):
                log.write("rm: cannot remove '%s/proc/%d/task': Operation not permitted\\n"
                          % (target, n))
        sys.exit(1)
    os.makedirs(os.path.join(target, 'usr', 'bin'))
    print('I: Base system installed successfully.')
    ''')
# A stand-in for umount: takes the point off the mount list (or, with
# STUCK set, fails as for a mount that will not go).
FAKE_UMOUNT = textwrap.dedent('''\
    #!{python}
    import os, sys
    point = sys.argv[-1]
    with open({calls!r}, 'a') as calls:
        calls.write(' '.join(sys.argv[1:]) + '\\n')
    if os.environ.get('STUCK'):
        sys.exit(32)
    lines = open({mountinfo!r}).read().splitlines(True)
    with open({mountinfo!r}, 'w') as out:
        out.writelines(l for l in lines if l.split()[4] != point)
    ''')


class KilledDebootstrapTests(Scratch):

    def setUp(self):
        super().setUp()
        bin_dir = self.fake_path()
        self.mountinfo = self.tmp / 'mountinfo'
        self.mountinfo.write_text('')
        self.calls = self.tmp / 'umount-calls'
        fill = dict(python=sys.executable, mountinfo=str(self.mountinfo), calls=str(self.calls))
        executable(bin_dir / 'debootstrap', FAKE_DEBOOTSTRAP.format(**fill))
        executable(bin_dir / 'umount', FAKE_UMOUNT.format(**fill))
        for patcher in (mock.patch.object(debian_root.os, 'geteuid', lambda: 0),
                        mock.patch.object(debian_root, 'HOST_SOURCES', ()),
                        # (create: so that the code before the fix fails the test
                        # by what it does, not for want of the name)
                        mock.patch.object(debian_root, 'MOUNTINFO', str(self.mountinfo),
                                          create=True),
                        mock.patch.object(debian_root, 'say', lambda message: None)):
            patcher.start()
            self.addCleanup(patcher.stop)
        self.root = debian_root.root_dir(self.cache)
        self.staging = self.root.with_name(self.root.name + '.new')

    def killed_run_left_mounts(self):
        """What `kill -9` of a run in debootstrap leaves: its tree, /proc and /dev mounted."""
        (self.staging / 'proc' / '1').mkdir(parents=True)
        (self.staging / 'dev' / 'pts').mkdir(parents=True)
        (self.staging / 'var' / 'half-made').mkdir(parents=True)
        points = [self.staging / 'proc', self.staging / 'dev', self.staging / 'dev' / 'pts']
        self.mountinfo.write_text(''.join(
            '%d 1 0:%d / %s rw - x x rw\n' % (20 + n, n, p) for n, p in enumerate(points)))
        return points

    def test_the_next_run_unmounts_what_was_left_and_makes_the_root(self):
        points = self.killed_run_left_mounts()
        root = debian_root.ensure(self.cache)
        self.assertEqual(root, self.root)
        self.assertTrue((root / 'usr' / 'bin').is_dir())
        self.assertTrue((root / '.enum-from-value-root').is_file())
        self.assertFalse(self.staging.exists())
        # The deepest first: dev/pts before dev.
        unmounted = [line.split()[-1] for line in self.calls.read_text().splitlines()]
        self.assertEqual(sorted(unmounted), sorted(str(p) for p in points))
        self.assertLess(unmounted.index(str(points[2])), unmounted.index(str(points[1])))

    def test_a_mount_that_will_not_go_stops_the_run_before_anything_is_deleted(self):
        points = self.killed_run_left_mounts()
        with mock.patch.dict(os.environ, STUCK='1'):
            with self.assertRaises(debian_root.RootError) as caught:
                debian_root.ensure(self.cache)
        self.assertIn(str(points[0]), str(caught.exception))
        self.assertIn('unmount it and run again', str(caught.exception))
        self.assertTrue((self.staging / 'var' / 'half-made').is_dir())

    def test_a_failed_debootstrap_shows_the_lines_that_say_why(self):
        with mock.patch.dict(os.environ, FAIL_ANYWAY='1'):
            with self.assertRaises(debian_root.RootError) as caught:
                debian_root.ensure(self.cache)
        message = str(caught.exception)
        self.assertIn("rm: cannot remove '%s/proc/0/task': Operation not permitted"
                      % self.staging, message)
        self.assertIn('(and 28898 more lines like it)', message)
        self.assertIn(str(self.staging / 'debootstrap' / 'debootstrap.log'), message)
        self.assertNotIn('I: Extracting', message)
        self.assertLess(len(message.splitlines()), 25, message)


# 3. A damaged cached tarball is named, wherever it is used, with what to do.

class DamagedTarballTests(Scratch):

    def setUp(self):
        super().setUp()
        self.source = base.SourceBase(self.cache)
        good = release_like_tarball(self.tmp / 'good.tar.xz', {
            'Lib/enum.py': os.urandom(200000), 'README.rst': 'This is Python.\n'})
        data = good.read_bytes()
        self.source.tarball.parent.mkdir(parents=True)
        self.source.tarball.write_bytes(data[:len(data) // 2])  # a download cut short
        self.good = good

    def assert_named(self, said):
        self.assertIn(str(self.source.tarball), said)
        self.assertIn('damaged', said)
        self.assertIn('fetch --tarball PATH', said)
        for noise in ('xz', 'Unexpected end', 'EOFError', 'tar:'):
            self.assertNotIn(noise, said.replace(str(self.source.tarball), ''))

    def test_fetch_names_the_damaged_file(self):
        self.assert_named(self.one_line_error(['fetch', '--cache', str(self.cache)]))

    def test_build_checks_the_sha256_before_unpacking(self):
        self.assert_named(self.one_line_error(['build', '--stock', '--cache', str(self.cache)]))
        self.assertFalse(build.stock_dir(self.source).exists())

    def test_patch_names_it_instead_of_a_traceback(self):
        self.assert_named(self.one_line_error(
            ['patch', '--cache', str(self.cache), '--lib-base', '3.13.5', '--author', AUTHOR,
             '--output', str(self.tmp / 'series')] + ISSUES))
        self.assertFalse((self.tmp / 'series').exists())

    def test_a_damaged_read_is_a_tool_error_even_past_the_check(self):
        with mock.patch.object(self.source, 'TARBALL_SHA256', sha256_file(self.source.tarball)):
            with self.assertRaises(ToolError) as caught:
                self.source.read(['Lib/enum.py'])
        self.assertIn('damaged', str(caught.exception))

    def test_fetch_with_a_source_replaces_the_damaged_file(self):
        with mock.patch.object(base.SourceBase, 'TARBALL_SHA256', sha256_file(self.good)):
            code, said = self.main(['fetch', '--cache', str(self.cache),
                                    '--tarball', str(self.good)])
        self.assertEqual(code, 0, said)
        self.assertEqual(self.source.tarball.read_bytes(), self.good.read_bytes())
        self.assertEqual([p.name for p in self.source.tarball.parent.iterdir()],
                         [self.source.TARBALL_NAME])


# 4. A cache that cannot be a directory is a one-line error; --cache is honoured.

class CacheLocationTests(Scratch):

    def test_a_cache_naming_a_file(self):
        a_file = self.tmp / 'a-file'
        a_file.write_text('x\n')
        said = self.one_line_error(['fetch', '--cache', str(a_file)])
        self.assertIn('--cache %s cannot be the cache directory: it is a file' % a_file, said)

    def test_a_cache_that_cannot_be_made(self):
        with mock.patch.dict(os.environ, ENUM_FROM_VALUE_CACHE='/proc/enum-from-value-cache'):
            said = self.one_line_error(['fetch'])
            self.assertIn('ENUM_FROM_VALUE_CACHE=/proc/enum-from-value-cache cannot be', said)
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                self.assertEqual(debian_root.main(['ensure']), 2)
        # the same one line: the cache is plumbing's, whichever tool asks
        self.assertIn('ENUM_FROM_VALUE_CACHE=/proc/enum-from-value-cache cannot be',
                      err.getvalue())
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1, err.getvalue())
        self.assertNotIn('Traceback', err.getvalue())

    def test_patch_keeps_its_typeshed_copy_under_its_cache(self):
        import test_cpython_change_tool as tool_tests

        # The tool tests' own series fixture, run with --cache's directory.
        fixture = tool_tests.SeriesTests('test_five_patches_and_the_texts_with_every_field_filled')
        fixture.setUp()
        self.addCleanup(fixture.doCleanups)
        asked = []

        def write_patch(output, issue, author, cache=None):
            asked.append(cache)
            Path(output).write_text('typeshed patch\n')
            return Path(output)

        with mock.patch.object(patch.typeshed, 'write_patch', write_patch):
            fixture.series()
        self.assertEqual(asked, [fixture.source.cache])


# 5. A wait for a lock says whose; a full disk is one line; SIGTERM cleans up.

HOLDER = textwrap.dedent('''\
    import fcntl, sys, time
    handle = open(sys.argv[2], 'a')
    fcntl.flock(handle, fcntl.LOCK_EX)
    print('held', flush=True)
    time.sleep(60)
    ''')


class LockWaitTests(Scratch):

    def wait_behind_a_holder(self, path, take, said):
        """Run TAKE (which takes the lock PATH) while another process holds it.

        The holder lets go once SAID() shows that TAKE waits; returns its pid.
        """
        # Named so that its command line, as the message shows it (cut at
        # 100 characters), names it even after a long interpreter path.
        script = self.tmp / 'lock-holder-mark.py'
        script.write_text(HOLDER)
        # (by a relative path: the tmp directory's name is not in the way)
        holder = subprocess.Popen([sys.executable, script.name, 'mark', str(path)],
                                  cwd=str(self.tmp),
                                  stdout=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        self.assertEqual(holder.stdout.readline(), 'held\n')
        taker = threading.Thread(target=take)
        taker.start()
        deadline = time.monotonic() + 10
        while 'waiting' not in said() and taker.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        holder.kill()
        taker.join(60)
        self.assertFalse(taker.is_alive())
        return holder.pid

    def test_a_run_waiting_for_anothers_lock_says_whose_and_that_it_waits(self):
        path = self.tmp / 'locks' / '.stock-x.lock'
        path.parent.mkdir()
        out = io.StringIO()

        def take():
            with locked(path):
                pass

        with redirect_stdout(out):
            pid = self.wait_behind_a_holder(path, take, out.getvalue)
        said = out.getvalue()
        self.assertIn('waiting for the lock %s, held by process %d (' % (path, pid), said)
        self.assertIn('lock-holder-mark.py', said)
        self.assertIn('took the lock %s after waiting' % path, said)

    def test_a_lock_held_by_another_step_of_the_same_run_says_so(self):
        # `all` fetches (apt) while it makes the Debian root (apt) in a thread
        path = self.tmp / 'apt.lock'
        out = io.StringIO()
        holding, release = threading.Event(), threading.Event()

        def hold():
            with locked(path):
                holding.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        self.addCleanup(holder.join)
        self.addCleanup(release.set)
        holding.wait(10)
        threading.Timer(0.3, release.set).start()
        with redirect_stdout(out):
            with locked(path):
                pass
        said = out.getvalue()
        self.assertIn('held by another step of this run (process %d ' % os.getpid(), said)
        self.assertIn('this step goes on when that one lets go', said)

    def test_the_debian_roots_lock_says_so_too(self):
        said = []
        path = self.tmp / '.sid-x.lock'

        def take():
            with debian_root._locked(path):
                pass

        with mock.patch.object(debian_root, 'say', said.append):
            pid = self.wait_behind_a_holder(path, take, lambda: ' '.join(said))
        self.assertIn('held by process %d' % pid, said[0])


class DiskFullTests(Scratch):

    def setUp(self):
        super().setUp()
        self.source = base.SourceBase(self.cache)

    def tarball(self, files):
        release_like_tarball(self.source.tarball, files)
        patcher = mock.patch.object(self.source, 'TARBALL_SHA256',
                                    sha256_file(self.source.tarball))
        patcher.start()
        self.addCleanup(patcher.stop)

    def assert_one_line(self, error):
        message = str(error)
        self.assertEqual(len(message.splitlines()), 1, message[:2000])
        self.assertIn('no space left on the device holding %s' % build.stock_dir(self.source),
                      message)
        self.assertIn('MB free there; this needs about %s' % build.BUILD_SPACE, message)

    def test_a_build_that_fills_the_disk_ends_in_one_line(self):
        gcc = ''.join('echo "gcc -c -O3 -IInclude Objects/obj%d.c -o Objects/obj%d.o"\n'
                      % (n, n) for n in range(39))
        self.tarball({'configure': '#!/bin/sh\n' + gcc
                      + 'echo "Objects/object39.o: No space left on device"\nexit 1\n'})
        with redirect_stdout(io.StringIO()), self.assertRaises(ToolError) as caught:
            build.stock(self.source)
        self.assert_one_line(caught.exception)
        self.assertIn('configure.log', str(caught.exception))

    def test_an_unpacking_that_fills_the_disk_ends_in_one_line(self):
        self.tarball({'README.rst': 'x\n'})
        executable(self.fake_path() / 'tar', '#!/bin/sh\n' + 'for n in $(seq 3028); do echo '
                   '"tar: Python-3.13.5/Lib/file$n: Cannot write: No space left on device"; '
                   'done\nexit 2\n')
        with redirect_stdout(io.StringIO()), self.assertRaises(ToolError) as caught:
            build.stock(self.source)
        self.assert_one_line(caught.exception)


# A run of `build --patched` whose slow part is a stand-in: it stops
# (sleeps) once its cpython-change-* directory holds the change's copy.
STOPPED_RUN = textwrap.dedent('''\
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from tools import cpython_change
    from tools.cpython import build, change

    copy = change.snapshot

    def slow_snapshot(repo, dest):
        copy(repo, dest)
        print(dest, flush=True)
        for _ in range(600):  # short sleeps: a signal just before one is not kept waiting
            time.sleep(0.1)

    change.snapshot = slow_snapshot
    build.stock = lambda *args, **kwargs: Path('unused')
    sys.exit(cpython_change.main(['build', '--patched', '--cache', {cache!r}]))
    ''')


# A run whose slow part is a job of side_by_side, in a thread of its own,
# waiting for a child process inside its cpython-change-* directory.
STOPPED_JOBS = textwrap.dedent('''\
    import sys, tempfile
    sys.path.insert(0, {repo!r})
    from tools import cpython_change
    from tools.cpython import util

    def job(out):
        with tempfile.TemporaryDirectory(prefix='cpython-change-') as scratch:
            print(scratch, flush=True)
            util.run_live(['sleep', '60'], out=out)

    cpython_change.cmd_build = lambda run: util.side_by_side([('job', job)])
    sys.exit(cpython_change.main(['build', '--cache', {cache!r}]))
    ''')


class SignalTests(Scratch):

    def stopped(self, script):
        """Run SCRIPT until it prints a path in its scratch directory, then SIGTERM it.

        Returns that path, once the run has ended as a stopped run should.
        """
        tmpdir = self.tmp / 'tmp'
        tmpdir.mkdir()
        run = subprocess.Popen(
            [sys.executable, '-c', script.format(repo=str(REPO), cache=str(self.cache))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
            env=dict(os.environ, TMPDIR=str(tmpdir)))
        self.addCleanup(run.wait)
        self.addCleanup(run.kill)
        line = run.stdout.readline()
        while line and not line.startswith(str(tmpdir)):
            line = run.stdout.readline()
        made = Path(line.strip())
        self.assertTrue(line and made.exists(), line)
        started = time.monotonic()
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(run.returncode, 128 + signal.SIGTERM, err)
        self.assertIn('stopped by SIGTERM; its temporary directories are removed', err)
        self.assertNotIn('Traceback', err)
        self.assertEqual(list(tmpdir.iterdir()), [])
        return made.relative_to(tmpdir)

    def test_sigterm_removes_the_runs_temporary_directories(self):
        made = self.stopped(STOPPED_RUN)
        self.assertTrue(made.parts[0].startswith('cpython-change-'), made)

    def test_sigterm_during_side_by_side_jobs_ends_them_and_cleans_up(self):
        made = self.stopped(STOPPED_JOBS)
        self.assertTrue(made.parts[0].startswith('cpython-change-'), made)

    def test_a_signal_held_is_raised_at_the_next_safe_point_and_not_before(self):
        # What join() and Thread.start() rely on: inside held() the handler
        # notes the signal; it is raised by raise_pending() or the block's end.
        previous = signal.getsignal(signal.SIGTERM)
        self.addCleanup(signal.signal, signal.SIGTERM, previous)
        for point in ('raise_pending', 'end of block'):
            with self.subTest(point):
                signal.signal(signal.SIGTERM, plumbing.on_signal)
                reached = []
                with self.assertRaises(plumbing.Stopped) as caught:
                    with plumbing.held():
                        plumbing.on_signal(signal.SIGTERM, None)
                        reached.append('after the signal')
                        if point == 'raise_pending':
                            plumbing.raise_pending()
                        reached.append('past the safe point')
                self.assertEqual(caught.exception.args, (signal.SIGTERM,))
                self.assertEqual(reached, ['after the signal'] + (
                    ['past the safe point'] if point == 'end of block' else []))
                # the handler gave way to the default: a second one ends the run
                self.assertEqual(signal.getsignal(signal.SIGTERM), signal.SIG_DFL)
        with self.assertRaises(plumbing.Stopped):
            plumbing.on_signal(signal.SIGTERM, None)  # outside held(): at once


# 6. A signal stops what a run started; a rerun never works where a live run does.

# A debootstrap that unpacks slowly: it records its pid and its child's
# (the tar that unpacks) in PIDS, then waits for the child.  With QUICK
# present it makes a small root at once instead.
SLOW_DEBOOTSTRAP = textwrap.dedent('''\
    #!{python}
    import os, subprocess, sys
    target = [a for a in sys.argv[1:] if not a.startswith('-')][1]
    if os.path.exists({quick!r}):
        os.makedirs(os.path.join(target, 'usr', 'bin'))
        sys.exit(0)
    os.makedirs(os.path.join(target, 'debootstrap'))
    child = subprocess.Popen(['sleep', '300'])
    with open({pids!r}, 'a') as pids:
        pids.write('%d %d\\n' % (os.getpid(), child.pid))
    sys.exit(child.wait())
    ''')
# tools/debian_root.py ensure, as root would run it, with the stand-in.
ROOT_RUN = textwrap.dedent('''\
    import sys
    sys.path.insert(0, {repo!r})
    from tools import debian_root
    debian_root.os.geteuid = lambda: 0
    debian_root.HOST_SOURCES = ()
    sys.exit(debian_root.main(['ensure']))
    ''')
# `build --stock` of a tarball whose make compiles slowly: make records its
# pid and its compiler's in PIDS, then waits for it.
SLOW_MAKE = textwrap.dedent('''\
    #!/bin/sh
    sleep 300 &
    echo $$ $! >> {pids}
    wait
    ''')
BUILD_RUN = textwrap.dedent('''\
    import sys
    sys.path.insert(0, {repo!r})
    from tools import cpython_change
    from tools.cpython import base
    base.SourceBase.TARBALL_SHA256 = {sha!r}
    sys.exit(cpython_change.main(['build', '--stock', '--cache', {cache!r}]))
    ''')


def alive(pid):
    """Whether PID runs (a zombie left for a reaper does not)."""
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[-1].split()[0] != 'Z'
    except OSError:
        return False


class StandIns(Scratch):
    """Stand-ins first on PATH that write their pids, and how to watch them end."""

    def setUp(self):
        super().setUp()
        self.bin_dir = self.fake_path()
        self.pids = self.tmp / 'pids'
        self.quick = self.tmp / 'quick'
        self.addCleanup(self.kill_recorded)

    def kill_recorded(self):
        """Kill what the stand-ins started that is still running (by the pids they wrote)."""
        for pid in self.recorded():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

    def recorded(self):
        text = self.pids.read_text() if self.pids.exists() else ''
        return [int(p) for p in text.split()]

    def started(self, script, **fill):
        """Run SCRIPT until the stand-in has written its pids; return the Popen."""
        tool = subprocess.Popen([sys.executable, '-c', script.format(repo=str(REPO), **fill)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True,
                                env=dict(os.environ, ENUM_FROM_VALUE_CACHE=str(self.cache)))
        self.addCleanup(tool.wait)
        self.addCleanup(tool.kill)
        deadline = time.monotonic() + 60
        while not self.recorded() and tool.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(self.recorded()), 2, tool.poll() is not None and tool.communicate())
        return tool

    def assert_all_ended(self, within=20):
        deadline = time.monotonic() + within
        while any(map(alive, self.recorded())) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual([p for p in self.recorded() if alive(p)], [],
                         'still running after the tool was stopped')

    def slow_debootstrap(self):
        executable(self.bin_dir / 'debootstrap', SLOW_DEBOOTSTRAP.format(
            python=sys.executable, quick=str(self.quick), pids=str(self.pids)))


class StoppedWorkTests(StandIns):

    def test_sigterm_to_the_root_tool_stops_debootstrap_and_what_it_started(self):
        self.slow_debootstrap()
        tool = self.started(ROOT_RUN)
        tool.send_signal(signal.SIGTERM)
        _, err = tool.communicate(timeout=60)
        self.assert_all_ended()
        self.assertEqual(tool.returncode, 128 + signal.SIGTERM, err)
        self.assertIn('stopped by SIGTERM', err)
        self.assertNotIn('Traceback', err)

    def test_sigterm_during_make_stops_its_compilers_too(self):
        executable(self.bin_dir / 'make', SLOW_MAKE.format(pids=self.pids))
        tarball = release_like_tarball(base.SourceBase(self.cache).tarball,
                                       {'configure': '#!/bin/sh\nexit 0\n'})
        tool = self.started(BUILD_RUN, sha=sha256_file(tarball), cache=str(self.cache))
        tool.send_signal(signal.SIGTERM)
        _, err = tool.communicate(timeout=60)
        self.assert_all_ended()
        self.assertEqual(tool.returncode, 128 + signal.SIGTERM, err)

    def test_a_rerun_waits_for_a_debootstrap_that_outlived_its_killed_run(self):
        self.slow_debootstrap()
        tool = self.started(ROOT_RUN)
        tool.kill()  # SIGKILL: nothing of the tool's own can stop debootstrap
        tool.communicate(timeout=60)
        orphan = self.recorded()
        self.assertTrue(alive(orphan[0]))
        said, result = [], []
        patchers = [mock.patch.object(debian_root.os, 'geteuid', lambda: 0),
                    mock.patch.object(debian_root, 'HOST_SOURCES', ()),
                    mock.patch.object(debian_root, 'say', said.append)]
        for patcher in patchers:
            patcher.start()
            self.addCleanup(patcher.stop)
        rerun = threading.Thread(target=lambda: result.append(debian_root.ensure(self.cache)))
        rerun.start()
        self.addCleanup(rerun.join, 60)
        self.addCleanup(self.kill_recorded)
        deadline = time.monotonic() + 10
        while not said and rerun.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        # It waits for the live run's lock: no second debootstrap, nothing
        # of the live one's unmounted or deleted.
        self.assertIn('waiting for the lock', ' '.join(said))
        self.assertIn('held by process %d (' % orphan[0], ' '.join(said))
        self.assertEqual(self.recorded(), orphan)
        self.assertTrue(debian_root.root_dir(self.cache).with_name(
            debian_root.root_dir(self.cache).name + '.new').is_dir())
        self.quick.write_text('')
        self.kill_recorded()
        rerun.join(60)
        self.assertEqual(result, [debian_root.root_dir(self.cache)])
        self.assertEqual(self.recorded(), orphan)


# 7. Two fetches at once take turns; each writes a file of its own.

class ConcurrentFetchTests(Scratch):

    def test_two_fetches_at_once_both_end_with_the_whole_tarball(self):
        good = release_like_tarball(self.tmp / 'good.tar.xz',
                                    {'Lib/enum.py': os.urandom(100000)})
        copy = obtain.shutil.copyfile

        def slow_copy(*args, **kwargs):
            copy(*args, **kwargs)
            time.sleep(0.5)  # a big file on a slow disk: the other fetch starts meanwhile

        failures, together = [], threading.Barrier(2, timeout=10)

        def fetch():
            together.wait()
            try:
                obtain.tarball(self.cache, good)
            except BaseException as error:  # what the thread would have ended with
                failures.append(repr(error))

        with mock.patch.object(base.SourceBase, 'TARBALL_SHA256', sha256_file(good)), \
                mock.patch.object(obtain.shutil, 'copyfile', slow_copy), \
                redirect_stdout(io.StringIO()):
            threads = [threading.Thread(target=fetch) for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
        self.assertEqual(failures, [])
        dest = base.SourceBase(self.cache).tarball
        self.assertEqual(dest.read_bytes(), good.read_bytes())
        self.assertEqual([p.name for p in dest.parent.iterdir()], [dest.name])


# 8. An unwritable cache, an output under a file, a bad argument: one line, before any work.

@contextlib.contextmanager
def refusing(top, number, stat_too=False):
    """TOP behaves as on a read-only file system (EROFS) or as another's directory (EACCES).

    Under it nothing can be made or opened for writing; with STAT_TOO
    nothing can even be looked at (a directory under /root, seen by nobody).
    """
    top = os.path.abspath(str(top))
    real_mkdir, real_os_open, real_open, real_stat = os.mkdir, os.open, io.open, os.stat

    def under(path):
        try:
            path = os.path.abspath(os.fsdecode(path))
        except TypeError:
            return False  # a file descriptor
        return path == top or path.startswith(top + os.sep)

    def refuse(path):
        raise OSError(number, os.strerror(number), str(path))

    def mkdir(path, *args, **kwargs):
        if under(path):
            if not stat_too and os.path.isdir(path):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
            refuse(path)
        return real_mkdir(path, *args, **kwargs)

    def os_open(path, flags, *args, **kwargs):
        if under(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            refuse(path)
        return real_os_open(path, flags, *args, **kwargs)

    def open_(path, mode='r', *args, **kwargs):
        if under(path) and set(mode) & set('wax+'):
            refuse(path)
        return real_open(path, mode, *args, **kwargs)

    def stat(path, *args, **kwargs):
        if stat_too and under(path) and os.path.abspath(os.fsdecode(path)) != top:
            refuse(path)
        return real_stat(path, *args, **kwargs)

    fakes = {os.mkdir: mkdir, os.open: os_open, io.open: open_, os.stat: stat}
    with contextlib.ExitStack() as stack:
        for module in (os, io, builtins):
            for name in ('mkdir', 'open', 'stat'):
                if getattr(module, name, None) in fakes:
                    stack.enter_context(mock.patch.object(module, name,
                                                          fakes[getattr(module, name)]))
        # pathlib before 3.11 calls them through an accessor of its own
        accessor = getattr(pathlib, '_NormalAccessor', None)
        for name in ('mkdir', 'open', 'stat'):
            if getattr(accessor, name, None) in fakes:
                stack.enter_context(mock.patch.object(
                    accessor, name, staticmethod(fakes[getattr(accessor, name)])))
        yield


class UnwritableCacheTests(Scratch):

    def assert_told(self, argv, directory):
        said = self.one_line_error(argv)
        self.assertIn(str(directory), said)
        self.assertIn('give one you can write', said)
        return said

    def test_a_cache_on_a_read_only_file_system(self):
        tarball = release_like_tarball(base.SourceBase(self.cache).tarball, {'README': 'x\n'})
        with mock.patch.object(base.SourceBase, 'TARBALL_SHA256', sha256_file(tarball)), \
                refusing(self.cache, errno.EROFS):
            for argv in (['fetch'], ['build', '--stock']):
                with self.subTest(argv[0]):
                    said = self.assert_told(argv + ['--cache', str(self.cache)], self.cache)
                    self.assertIn('Read-only file system', said)

    def test_a_cache_directory_of_someone_elses(self):
        self.cache.mkdir()
        with refusing(self.cache, errno.EACCES):
            for argv in (['fetch'], ['build', '--stock']):
                with self.subTest(argv[0]):
                    said = self.assert_told(argv + ['--cache', str(self.cache)], self.cache)
                    self.assertIn('Permission denied', said)

    def test_a_cache_under_a_directory_it_may_not_look_into(self):
        closed = self.tmp / 'root-only'
        closed.mkdir()
        cache = closed / 'cache'
        with refusing(closed, errno.EACCES, stat_too=True):
            for argv in (['fetch'], ['build', '--stock'],
                         ['patch', '--lib-base', '3.13.5', '--author', AUTHOR,
                          '--output', str(self.tmp / 'series')] + ISSUES):
                with self.subTest(argv[0]):
                    self.assert_told(argv + ['--cache', str(cache)], cache)


class EarlyChecksTests(Scratch):

    def test_an_output_under_a_file_is_refused_before_any_work(self):
        a_file = self.tmp / 'a-file'
        a_file.write_text('x\n')
        for output, blocker in ((a_file / 'series', a_file), (Path('/proc/version/x'),
                                                             Path('/proc/version'))):
            with self.subTest(str(output)), \
                    mock.patch.object(cpython_change, 'make_series') as work:
                said = self.one_line_error(['patch', '--cache', str(self.cache),
                                            '--lib-base', '3.13.5', '--author', AUTHOR,
                                            '--output', str(output)] + ISSUES)
                self.assertIn('%s is a file' % blocker, said)
                work.assert_not_called()

    def test_an_unknown_base_is_refused_before_the_debian_root_is_made(self):
        for argv in (['patch', '--lib-base', '9.9', '--author', AUTHOR,
                      '--output', str(self.tmp / 'series')] + ISSUES,
                     ['test', '--base', '9.9'], ['carry', '--base', '9.9']):
            with self.subTest(argv[0]), \
                    mock.patch.object(debian_root, 'ensure',
                                      side_effect=AssertionError('made the root')) as ensure:
                said = self.one_line_error(argv + ['--cache', str(self.cache)])
                self.assertIn('no such base', said)
                self.assertIn('9.9', said)
                ensure.assert_not_called()

    def test_versions_says_that_it_makes_the_root_and_how_long_that_takes(self):
        # On stderr, before debootstrap starts: `versions > file` is not silent.
        executable(self.fake_path() / 'debootstrap', '#!/bin/sh\necho "E: no network"\nexit 1\n')
        err, out = io.StringIO(), io.StringIO()
        with mock.patch.object(debian_root.os, 'geteuid', lambda: 0), \
                mock.patch.object(debian_root, 'HOST_SOURCES', ()), \
                redirect_stderr(err), redirect_stdout(out):
            self.assertEqual(debian_root.main(['versions']), 2)
        said = err.getvalue()
        self.assertIn('making it now with debootstrap', said)
        self.assertIn('this takes %s' % debian_root.MAKING_TAKES, said)
        self.assertLess(said.index('making it now'), said.index('debootstrap failed'))
        self.assertEqual(out.getvalue(), '')

    def test_jobs_must_be_a_positive_integer(self):
        for jobs in ('0', '-3', 'two'):
            with self.subTest(jobs), mock.patch.object(cpython_change.build, 'stock') as work:
                err = io.StringIO()
                with redirect_stderr(err), redirect_stdout(io.StringIO()), \
                        self.assertRaises(SystemExit) as caught:
                    cpython_change.main(['build', '--stock', '--jobs', jobs,
                                         '--cache', str(self.cache)])
                self.assertEqual(caught.exception.code, 2)
                self.assertIn('must be a positive integer', err.getvalue())
                work.assert_not_called()


# 9. No mirror host in the repository: the host's, the user's, or debootstrap's choice.

RECORDING_DEBOOTSTRAP = textwrap.dedent('''\
    #!{python}
    import json, os, sys
    with open({calls!r}, 'a') as calls:
        calls.write(json.dumps(sys.argv[1:]) + '\\n')
    target = [a for a in sys.argv[1:] if not a.startswith('-')][1]
    os.makedirs(os.path.join(target, 'usr', 'bin'))
    ''')


class MirrorTests(Scratch):

    def setUp(self):
        super().setUp()
        self.calls = self.tmp / 'calls'
        executable(self.fake_path() / 'debootstrap', RECORDING_DEBOOTSTRAP.format(
            python=sys.executable, calls=str(self.calls)))
        environ = {k: v for k, v in os.environ.items() if k != 'ENUM_FROM_VALUE_MIRROR'}
        for patcher in (mock.patch.object(debian_root.os, 'geteuid', lambda: 0),
                        mock.patch.object(debian_root, 'say', lambda message: None),
                        mock.patch.dict(os.environ, environ, clear=True)):
            patcher.start()
            self.addCleanup(patcher.stop)

    def positional(self):
        import json
        argv = json.loads(self.calls.read_text().splitlines()[-1])
        return [a for a in argv if not a.startswith('-')]

    def test_no_host_mirror_leaves_the_choice_to_debootstrap(self):
        with mock.patch.object(debian_root, 'HOST_SOURCES', ()):
            debian_root.ensure(self.cache)
        self.assertEqual(self.positional(), ['sid', str(debian_root.root_dir(self.cache))
                                             + '.new'])

    def test_the_hosts_mirror_else_the_users(self):
        sources = self.tmp / 'debian.sources'
        sources.write_text('Types: deb\nURIs: http://mirror.example/debian\nSuites: x\n')
        with mock.patch.object(debian_root, 'HOST_SOURCES', (str(sources),)):
            debian_root.ensure(self.cache)
            self.assertEqual(self.positional()[-1], 'http://mirror.example/debian')
            with mock.patch.dict(os.environ, ENUM_FROM_VALUE_MIRROR='http://users.example/d'):
                debian_root.ensure(self.cache, refresh=True)
            self.assertEqual(self.positional()[-1], 'http://users.example/d')
            with redirect_stdout(io.StringIO()):
                debian_root.main(['ensure', '--refresh', '--mirror', 'http://flag.example/d'])
            self.assertEqual(self.positional()[-1], 'http://flag.example/d')

    def test_the_deb_src_entry_without_a_host_mirror_asks_for_one(self):
        apt = self.tmp / 'apt'
        (apt / 'sources.list.d').mkdir(parents=True)
        with self.assertRaises(ToolError) as caught:
            obtain.ensure_deb_src(apt)
        self.assertIn('ENUM_FROM_VALUE_MIRROR=URL', str(caught.exception))
        with mock.patch.dict(os.environ, ENUM_FROM_VALUE_MIRROR='http://users.example/d'), \
                redirect_stdout(io.StringIO()):
            self.assertIn('URIs: http://users.example/d\n',
                          obtain.ensure_deb_src(apt).read_text())

    def test_no_mirror_host_is_written_into_the_repository(self):
        host = 'deb.' + 'debian' + '.org'  # (not written whole here either)
        found = subprocess.run(['git', 'grep', '-l', '-F', host, '--', '.'], cwd=str(REPO),
                               stdout=subprocess.PIPE, universal_newlines=True)
        if found.returncode > 1:
            self.skipTest('not a git checkout')
        self.assertEqual(found.stdout.split(), [])


# 10. Messages name what a user looks for.

class MessageTests(Scratch):

    def test_the_lock_holders_command_line_keeps_its_cache(self):
        path = self.tmp / '.stock-x.lock'
        cache = '/somewhere/the-other-runs-cache'
        script = self.tmp / 'lock-holder-mark.py'
        script.write_text(HOLDER)
        holder = subprocess.Popen([sys.executable, str(script), str(path), str(path),
                                   '--jobs', '2', '--padding', 'x' * 120, '--cache', cache],
                                  stdout=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        self.assertEqual(holder.stdout.readline(), 'held\n')
        with open(str(path), 'a') as handle:
            said = plumbing.lock_holder(path)
        self.assertIn('process %d (' % holder.pid, said)
        self.assertIn('--cache %s)' % cache, said)

    def test_patch_names_the_typeshed_patch_where_it_ends_up(self):
        import test_cpython_change_tool as tool_tests
        from test_typing import SMALL_STUB

        fixture = tool_tests.SeriesTests('test_five_patches_and_the_texts_with_every_field_filled')
        fixture.setUp()
        self.addCleanup(fixture.doCleanups)
        stubs = self.tmp / 'typeshed'
        (stubs / 'stdlib').mkdir(parents=True)
        (stubs / 'stdlib' / 'enum.pyi').write_text(SMALL_STUB)
        out = io.StringIO()
        with mock.patch.object(patch.typeshed, 'write_patch', WRITE_PATCH), \
                mock.patch.object(patch.typeshed, 'obtain', lambda cache, mypy: stubs), \
                redirect_stdout(out):
            fixture.series()
        lines = [line for line in out.getvalue().splitlines() if "typeshed's" in line]
        self.assertEqual(len(lines), 1, out.getvalue())
        self.assertIn(': wrote %s: typeshed' % (fixture.out / patch.TYPESHED_PATCH), lines[0])
        self.assertTrue((fixture.out / patch.TYPESHED_PATCH).is_file())


# 11. The faults issue 51 found in dad28e9, each as a user met it.

# tools/check.py's slow step, played by a stand-in for tools/cpython_change.py
# in a copy of the checkout: `all` takes a lock of the cache (as a build
# does) and runs make, whose compiler runs on; the pids go to PIDS.
STANDIN_CPYTHON_CHANGE = textwrap.dedent("""\
    import fcntl, os, subprocess, sys
    if sys.argv[1:2] != ['all']:
        sys.exit(0)  # fetch, build --stock: nothing to do
    lock = open(os.environ['FAULT_LOCK'], 'a')
    fcntl.flock(lock, fcntl.LOCK_EX)
    with open(os.environ['FAULT_PIDS'], 'a') as pids:
        pids.write('%d\\n' % os.getpid())
    sys.exit(subprocess.call(['make', '-j2']))
    """)


class CheckStoppedTests(StandIns):
    """Fault 1: tools/check.py killed with SIGTERM left `all`, make and gcc running."""

    def test_sigterm_stops_every_step_and_the_rerun_finds_the_lock_free(self):
        copy = self.tmp / 'checkout'
        shutil.copytree(str(TOOLS), str(copy / 'tools'),
                        ignore=shutil.ignore_patterns('__pycache__'))
        for name in ('noxfile.py', 'tox.ini'):
            if (REPO / name).exists():
                shutil.copyfile(str(REPO / name), str(copy / name))
        (copy / 'tools' / 'cpython_change.py').write_text(STANDIN_CPYTHON_CHANGE)
        executable(self.bin_dir / 'make', SLOW_MAKE.format(pids=self.pids))
        lock = self.tmp / 'build.lock'
        tool = subprocess.Popen([sys.executable, str(copy / 'tools' / 'check.py')],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True,
                                env=dict(os.environ, ENUM_FROM_VALUE_CACHE=str(self.cache),
                                         FAULT_LOCK=str(lock), FAULT_PIDS=str(self.pids)))
        self.addCleanup(tool.wait)
        self.addCleanup(tool.kill)
        deadline = time.monotonic() + 120
        while len(self.recorded()) < 3 and tool.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(len(self.recorded()), 3, tool.poll() is not None and tool.communicate())
        tool.send_signal(signal.SIGTERM)
        _, err = tool.communicate(timeout=90)
        self.assert_all_ended()
        self.assertEqual(tool.returncode, 128 + signal.SIGTERM, err)
        self.assertIn('stopped by SIGTERM', err)
        self.assertNotIn('Traceback', err)
        with open(str(lock), 'a') as handle:  # a rerun would take it at once
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


COPY_RUN = textwrap.dedent("""\
    import sys, time
    sys.path.insert(0, {repo!r})
    from tools import cpython_change
    from tools.cpython import base, obtain
    base.SourceBase.TARBALL_SHA256 = {sha!r}
    copy = obtain.shutil.copyfile

    def slow_copy(source, dest, **kwargs):
        copy(source, dest, **kwargs)
        print('copying', flush=True)
        time.sleep(60)

    obtain.shutil.copyfile = slow_copy
    sys.exit(cpython_change.main(['fetch', '--tarball', {tarball!r}, '--cache', {cache!r}]))
    """)


class CtrlCTests(StandIns):
    """Fault 2: Ctrl-C printed a KeyboardInterrupt traceback where SIGTERM printed one line."""

    def assert_cancelled(self, tool):
        tool.send_signal(signal.SIGINT)
        _, err = tool.communicate(timeout=60)
        self.assertEqual(tool.returncode, 128 + signal.SIGINT, err)
        self.assertNotIn('Traceback', err)
        self.assertIn('stopped by SIGINT (Ctrl-C)', err.strip().splitlines()[-1])

    def test_ctrl_c_while_debootstrap_runs(self):
        self.slow_debootstrap()
        tool = self.started(ROOT_RUN.replace("['ensure']", "['ensure', '--refresh']"))
        self.assert_cancelled(tool)
        self.assert_all_ended()

    def test_ctrl_c_while_fetch_copies_the_tarball(self):
        tarball = release_like_tarball(self.tmp / 'Python-3.13.5.tar.xz', {'README': 'x\n'})
        tool = subprocess.Popen(
            [sys.executable, '-c', COPY_RUN.format(repo=str(REPO), sha=sha256_file(tarball),
                                                   tarball=str(tarball), cache=str(self.cache))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(tool.wait)
        self.addCleanup(tool.kill)
        self.assertEqual(tool.stdout.readline(), 'copying\n')
        self.assert_cancelled(tool)
        # the copy cut short is gone; nothing has the tarball's name
        self.assertEqual(list((self.cache / 'src').iterdir()), [])


def fake_mypy_wheel(dest, stubs=200):
    """What `pip download mypy==X --dest DEST` leaves: a wheel with mypy/typeshed/ in it."""
    from test_typing import SMALL_STUB

    import zipfile
    with zipfile.ZipFile(str(Path(dest) / 'mypy-9.9-py3-none-any.whl'), 'w') as wheel:
        wheel.writestr('mypy/__init__.py', '')
        wheel.writestr('mypy/typeshed/stdlib/enum.pyi', SMALL_STUB)
        for n in range(stubs):
            wheel.writestr('mypy/typeshed/stdlib/module%03d.pyi' % n, 'x: int\n' * 50)


@contextlib.contextmanager
def disk_full_under(top):
    """TOP on a file system of its own, and full: a file opened for writing there
    is made (empty, as a full disk leaves it) and then refused with ENOSPC, and
    a rename into it from elsewhere is refused with EXDEV (so shutil.move copies)."""
    real_open, real_rename = builtins.open, os.rename

    def under(path):
        return os.path.abspath(os.fsdecode(path)).startswith(str(top) + os.sep)

    def open_(path, mode='r', *args, **kwargs):
        if isinstance(path, (str, Path)) and set(mode) & set('wx') and under(path):
            real_open(path, mode, *args, **kwargs).close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, mode, *args, **kwargs)

    def rename(source, dest, *args, **kwargs):
        if under(dest) and not under(source):
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(source), str(dest))
        return real_rename(source, dest, *args, **kwargs)

    with mock.patch.object(builtins, 'open', open_), mock.patch.object(os, 'rename', rename):
        yield


class PoisonedCacheTests(Scratch):
    """Fault 3: a disk that filled during `patch` left typeshed's copy half-made, for good;
    a build that ran out of space left its partial tree filling the disk."""

    def test_a_full_disk_while_the_typeshed_copy_is_made_costs_that_run_only(self):
        from test_typing import SMALL_STUB

        typeshed = patch.typeshed

        def pip_download(cmd, **kwargs):
            os.makedirs(str(cmd[cmd.index('--dest') + 1]), exist_ok=True)
            fake_mypy_wheel(cmd[cmd.index('--dest') + 1])

        with mock.patch.object(typeshed, 'run', pip_download), \
                redirect_stdout(io.StringIO()):
            with disk_full_under(self.cache / 'typeshed'):
                with self.assertRaises(ToolError) as caught:
                    typeshed.obtain(self.cache, '9.9')
            self.assertEqual(len(str(caught.exception).splitlines()), 1, caught.exception)
            self.assertIn('no space left on the device', str(caught.exception))
            self.assertFalse((self.cache / 'typeshed' / 'mypy-9.9' / 'typeshed').exists())
            tree = typeshed.obtain(self.cache, '9.9')  # space freed: the next run heals
        self.assertEqual((tree / 'stdlib' / 'enum.pyi').read_text(), SMALL_STUB)
        self.assertEqual(len(list((tree / 'stdlib').glob('module*.pyi'))), 200)

    def test_a_build_that_runs_out_of_space_leaves_its_logs_only(self):
        source = base.SourceBase(self.cache)
        tarball = release_like_tarball(source.tarball, {
            'configure': '#!/bin/sh\necho "Objects/object.o: No space left on device"\nexit 1\n',
            'Lib/big.py': os.urandom(100000)})
        with mock.patch.object(source, 'TARBALL_SHA256', sha256_file(tarball)), \
                redirect_stdout(io.StringIO()):
            root = build.stock_dir(source)
            with self.assertRaises(ToolError):
                build.stock(source)
        self.assertEqual(sorted(p.name for p in root.iterdir()), ['configure.log'])


class ForeignPatchTests(Scratch):
    """Fault 4: `git am -3 DIR/000[1-5]-*.patch` took a user's 0001-foo.patch beside the series."""

    def test_a_patch_of_the_users_that_the_glob_would_take_is_refused(self):
        out = self.tmp / 'series'
        ours = [('0001-fix.patch', b'1'), ('0002-more.patch', b'2'), ('fix-pr.md', b'text')]
        patch.replace_output(out, ours)
        (out / '0001-foo.patch').write_text('my own work\n')
        with self.assertRaises(ToolError) as caught:
            patch.replace_output(out, ours)
        self.assertIn('0001-foo.patch', str(caught.exception))
        self.assertIn('git am -3', str(caught.exception))
        self.assertEqual((out / '0001-foo.patch').read_text(), 'my own work\n')
        self.assertEqual((out / '0001-fix.patch').read_bytes(), b'1')


class OrphanTests(unittest.TestCase):
    """A regrtest worker runs in a session of its own; when the regrtest that
    started it died first, SIGTERM to the tool left the worker running."""

    SCRIPT = textwrap.dedent("""\
        import subprocess, sys, time
        sys.path.insert(0, sys.argv[1])
        from tools import plumbing
        GRANDCHILD = ("import subprocess, sys; print(subprocess.Popen([sys.executable, '-c', "
                      "'import time; time.sleep(300)'], start_new_session=True).pid)")
        def work(argv):
            with open(sys.argv[2], 'w') as out:
                plumbing.run([sys.executable, '-c', GRANDCHILD], stdout=out)
            time.sleep(300)
        sys.exit(plumbing.main(work, 'orphans'))
        """)

    def test_what_outlived_its_parent_is_stopped_too(self):
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = pathlib.Path(tmp) / 'pid'
            tool = subprocess.Popen([sys.executable, '-c', self.SCRIPT, str(REPO), str(pid_file)],
                                    stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 30
            while not (pid_file.exists() and pid_file.read_text().strip()):
                self.assertLess(time.monotonic(), deadline, 'the grandchild never started')
                time.sleep(0.1)
            orphan = int(pid_file.read_text())
            tool.send_signal(signal.SIGTERM)
            _, err = tool.communicate(timeout=60)
            self.assertEqual(tool.returncode, 128 + signal.SIGTERM, err)
            deadline = time.monotonic() + 15
            while os.path.exists('/proc/%d' % orphan) and 'Z' not in _state(orphan):
                self.assertLess(time.monotonic(), deadline, 'the orphan still runs')
                time.sleep(0.1)


def _state(pid):
    """The state letter /proc gives PID ('' once it is gone)."""
    try:
        return pathlib.Path('/proc/%d/stat' % pid).read_text().rsplit(')', 1)[1].split()[0]
    except (OSError, IndexError):
        return ''


class OldPythonTests(unittest.TestCase):
    """A tool run by a python3 older than 3.11 (a PYENV_VERSION that lists
    3.8.18 first) gave a wall of pip errors for what it could not install."""

    def test_one_line_before_anything_is_installed(self):
        from unittest import mock
        from tools import bootstrap
        with mock.patch.object(bootstrap.sys, 'version_info', (3, 8, 18, 'final', 0)), \
                mock.patch.object(bootstrap, 'tools_python') as make_venv:
            with self.assertRaises(SystemExit) as caught:
                bootstrap.run('tools.check')
        make_venv.assert_not_called()
        message = str(caught.exception)
        self.assertEqual(message.count('\n'), 0)
        self.assertIn('tools need Python 3.11 or newer, not 3.8.18', message)


if __name__ == '__main__':
    unittest.main()
