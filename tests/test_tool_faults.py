"""The tools under faults: no user file destroyed, a run cut short heals, a bad input is one line.

Each test meets tools/cpython_change.py, tools/debian_root.py or their
helpers with one fault a user on a shared machine meets: an output
directory holding someone else's files, a Debian root whose debootstrap was
killed with its /proc still mounted, a cached tarball cut short, a cache
that cannot be a directory, a lock held by another run, a full disk, a
SIGTERM.  Where the real program is too slow or needs the machine's root
(debootstrap, umount, tar on a full disk), a stand-in first on PATH plays
it, as tests/test_host_apt.py does for apt-get.
"""

import io
import lzma
import os
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
sys.path.insert(0, str(TOOLS))

import cpython_change  # noqa: E402
import debian_root  # noqa: E402
from cpython import base, build, patch, util  # noqa: E402
from cpython.util import ToolError, locked, sha256_file  # noqa: E402

AUTHOR = 'Ada Lovelace <ada@lovelace.dev>'
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
    target = sys.argv[-2]
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
        self.assertIn('cannot make /proc/enum-from-value-cache/roots', err.getvalue())
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
    sys.path.insert(0, {tools!r})
    import cpython_change
    from cpython import build, change

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
    sys.path.insert(0, {tools!r})
    import cpython_change
    from cpython import util

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
            [sys.executable, '-c', script.format(tools=str(TOOLS), cache=str(self.cache))],
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
                signal.signal(signal.SIGTERM, util.stop)
                reached = []
                with self.assertRaises(util.Stopped) as caught:
                    with util.held():
                        util.stop(signal.SIGTERM, None)
                        reached.append('after the signal')
                        if point == 'raise_pending':
                            util.raise_pending()
                        reached.append('past the safe point')
                self.assertEqual(caught.exception.args, (signal.SIGTERM,))
                self.assertEqual(reached, ['after the signal'] + (
                    ['past the safe point'] if point == 'end of block' else []))
                # the handler gave way to the default: a second one ends the run
                self.assertEqual(signal.getsignal(signal.SIGTERM), signal.SIG_DFL)
        with self.assertRaises(util.Stopped):
            util.stop(signal.SIGTERM, None)  # outside held(): at once


if __name__ == '__main__':
    unittest.main()
