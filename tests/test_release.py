"""tools/release.py: what it writes, and what it refuses before uploading.

The release itself, against a real index, is rehearsed by
`python3 tools/release.py --rehearse` (a step of tools/check.py): a
pypiserver on 127.0.0.1, the upload, a wrong password and a re-upload
refused, and installs from it on every interpreter.  These tests hold the
parts that need no server: the changelog and version it writes, the
refusals (an undated changelog, a tree that is not the tagged commit, an
index not on this machine while the metadata has no Project-URLs), where it
installs from, which interpreters it must reach, and that the sdist's
README is the package page.
"""

import datetime
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile
from contextlib import redirect_stderr
from pathlib import Path
from unittest import mock

import _layout

_layout.require('tools/release.py')
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import release, release_check  # noqa: E402
from tools.release import Failed, Refused  # noqa: E402

CHANGELOG = """Changes
=======

1.1.0 (unreleased)
------------------

- Something new.

1.0.0 (2026-12-01)
------------------

The first release.
"""

INIT = "'''The package.'''\n\n__all__ = []\n__version__ = '1.0.0'\n"


class Changelog(unittest.TestCase):

    def test_dating_the_newest_entry(self):
        text = release.dated(CHANGELOG, '1.1.0', '2026-12-07')
        self.assertIn('\n1.1.0 (2026-12-07)\n------------------\n\n- Something new.', text)
        self.assertEqual(text.replace('2026-12-07', 'unreleased'), CHANGELOG)
        self.assertEqual(release.release_date(text, '1.1.0'), '2026-12-07')

    def test_the_underline_follows_the_heading(self):
        long = CHANGELOG.replace('1.1.0 (unreleased)\n------------------',
                                 '1.1.0rc10 (unreleased)\n---------------------')
        text = release.dated(long, '1.1.0rc10', '2026-12-07')
        self.assertIn('\n1.1.0rc10 (2026-12-07)\n----------------------\n', text)

    def test_a_dated_entry_is_kept(self):
        text = release.dated(CHANGELOG, '1.1.0', '2026-12-07')
        self.assertEqual(release.dated(text, '1.1.0', '2027-01-01'), text)

    def test_unreleased_is_refused(self):
        with self.assertRaisesRegex(Refused, r'says "1\.1\.0 \(unreleased\)"'):
            release.release_date(CHANGELOG, '1.1.0')

    def test_another_version_first_is_refused(self):
        for version in ('1.0.0', '1.2.0'):
            with self.subTest(version=version):
                with self.assertRaisesRegex(Refused, 'newest entry .* is for 1.1.0, not '
                                            + version.replace('.', r'\.')):
                    release.dated(CHANGELOG, version, '2026-12-07')
                with self.assertRaises(Refused):
                    release.release_date(CHANGELOG, version)

    def test_no_entry_at_all_is_refused(self):
        with self.assertRaisesRegex(Refused, 'has no entry headed'):
            release.newest_entry('Changes\n=======\n\nNothing yet.\n')

    def test_the_real_changelog_has_an_entry_it_can_date(self):
        text = (REPO / 'backport' / 'CHANGELOG.rst').read_text(encoding='utf-8')
        version, date, _ = release.newest_entry(text)
        init = (REPO / 'backport' / 'enum_backport' / '__init__.py').read_text(encoding='utf-8')
        self.assertEqual(version, release.source_version(init))


class Version(unittest.TestCase):

    def test_writing_the_version(self):
        self.assertEqual(release.with_version(INIT, '1.1.0'),
                         INIT.replace("'1.0.0'", "'1.1.0'"))

    def test_a_module_without_one_fails(self):
        with self.assertRaisesRegex(Failed, '__version__'):
            release.with_version('x = 1\n', '1.1.0')

    def test_the_build_date_is_the_changelog_date_at_midnight_utc(self):
        expected = datetime.datetime(2026, 12, 7, tzinfo=datetime.timezone.utc).timestamp()
        self.assertEqual(release.epoch('2026-12-07'), int(expected))

    def test_bad_versions_and_dates_are_usage_errors(self):
        for argv in (['1.0'], ['v1.0.0'], ['1.0.0', '--date', '7 Dec'], [],
                     ['--rehearse', '1.0.0'], ['1.0.0', '--index', 'http://127.0.0.1/',
                                              '--date', '2026-12-07']):
            with self.subTest(argv=argv):
                with redirect_stderr(io.StringIO()) as err:
                    with self.assertRaises(SystemExit) as stop:
                        release.main(argv)
                self.assertEqual(stop.exception.code, 2)
                self.assertIn('error:', err.getvalue())


class Index(unittest.TestCase):

    def test_a_public_index_is_refused_without_project_urls(self):
        for index in ('https://upload.pypi.org/legacy/', 'https://test.pypi.org/legacy/',
                      'http://127.0.0.1.example.com/', 'http://localhost.example/',
                      'file:///tmp/index'):
            with self.subTest(index=index):
                with self.assertRaisesRegex(Refused, 'no Project-URLs'):
                    release.check_index(index, False)

    def test_an_index_on_this_machine_is_taken(self):
        for index in ('http://127.0.0.1:8080/', 'http://localhost:3141/root/dev/',
                      'http://[::1]:8080/'):
            with self.subTest(index=index):
                release.check_index(index, False)

    def test_a_public_index_is_taken_once_the_metadata_has_urls(self):
        release.check_index('https://upload.pypi.org/legacy/',
                            ['Project-URL: Source, https://example.org/src'])

    def test_pyproject_urls(self):
        pyproject = (REPO / 'pyproject.toml').read_text(encoding='utf-8')
        # None yet: the project has no public home (the comment says where they go).
        self.assertFalse(release.declares_urls(pyproject))
        with_urls = pyproject.replace(
            '[project.optional-dependencies]',
            '[project.urls]\nSource = "https://example.org/src"\n\n'
            '[project.optional-dependencies]', 1)
        self.assertTrue(release.declares_urls(with_urls))

    def test_the_urls_of_a_built_wheel(self):
        scratch = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(scratch))
        head = 'Metadata-Version: 2.4\nName: enum-backport\nVersion: 1.0.0\n'
        for lines, expected in (([], []), (['Project-URL: Source, https://example.org/src'],
                                           ['Project-URL: Source, https://example.org/src'])):
            wheel = scratch / 'w.whl'
            with zipfile.ZipFile(str(wheel), 'w') as archive:
                archive.writestr('enum_backport-1.0.0.dist-info/METADATA',
                                 head + ''.join(line + '\n' for line in lines)
                                 + '\nProject-URL: in the description, not a header\n')
            self.assertEqual(release.wheel_urls(str(wheel)), expected)

    def test_where_it_installs_from(self):
        self.assertEqual(release.simple_url('https://upload.pypi.org/legacy/'),
                         'https://pypi.org/simple/')
        self.assertEqual(release.simple_url('https://test.pypi.org/legacy/'),
                         'https://test.pypi.org/simple/')
        self.assertEqual(release.simple_url('http://127.0.0.1:8080/'),
                         'http://127.0.0.1:8080/simple/')
        self.assertEqual(release.simple_url('http://127.0.0.1:8080'),
                         'http://127.0.0.1:8080/simple/')


class Tree(unittest.TestCase):
    """The refusals that come before any build, on a small git tree."""

    def setUp(self):
        if shutil.which('git') is None:
            self.fail('git is not on PATH: the release needs it')
        self.tree = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(self.tree))
        (self.tree / 'backport' / 'enum_backport').mkdir(parents=True)
        (self.tree / 'backport' / 'CHANGELOG.rst').write_text(CHANGELOG)
        (self.tree / 'backport' / 'enum_backport' / '__init__.py').write_text(INIT)
        (self.tree / 'pyproject.toml').write_text('[project]\nname = "enum-backport"\n')
        self.git('init', '-q')
        self.commit('the tree')

    def git(self, *args):
        return subprocess.run(['git', '-C', str(self.tree), '-c', 'user.name=t',
                               '-c', 'user.email=t@localhost'] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, check=True).stdout

    def commit(self, message):
        self.git('add', '-A')
        self.git('commit', '-q', '-m', message)

    def prepare(self):
        changelog = self.tree / 'backport' / 'CHANGELOG.rst'
        init = self.tree / 'backport' / 'enum_backport' / '__init__.py'
        changelog.write_text(release.dated(changelog.read_text(), '1.1.0', '2026-12-07'))
        init.write_text(release.with_version(init.read_text(), '1.1.0'))
        self.commit('enum-backport 1.1.0')

    def test_an_undated_changelog_is_refused(self):
        self.git('tag', 'v1.1.0')
        with self.assertRaisesRegex(Refused, 'unreleased'):
            release.refusals(self.tree, '1.1.0', 'http://127.0.0.1:8080/')

    def test_a_version_the_package_does_not_say_is_refused(self):
        changelog = self.tree / 'backport' / 'CHANGELOG.rst'
        changelog.write_text(release.dated(changelog.read_text(), '1.1.0', '2026-12-07'))
        self.commit('dated, version not set')
        self.git('tag', 'v1.1.0')
        with self.assertRaisesRegex(Refused, "says 1.0.0, not 1.1.0"):
            release.refusals(self.tree, '1.1.0', 'http://127.0.0.1:8080/')

    def test_an_untagged_commit_is_refused(self):
        self.prepare()
        with self.assertRaisesRegex(Refused, 'not tagged v1.1.0'):
            release.refusals(self.tree, '1.1.0', 'http://127.0.0.1:8080/')

    def test_uncommitted_changes_are_refused(self):
        self.prepare()
        self.git('tag', 'v1.1.0')
        (self.tree / 'pyproject.toml').write_text('[project]\nname = "changed"\n')
        with self.assertRaisesRegex(Refused, 'uncommitted changes'):
            release.refusals(self.tree, '1.1.0', 'http://127.0.0.1:8080/')

    def test_a_public_index_is_refused(self):
        self.prepare()
        self.git('tag', 'v1.1.0')
        with self.assertRaisesRegex(Refused, 'no Project-URLs'):
            release.refusals(self.tree, '1.1.0', 'https://upload.pypi.org/legacy/')

    def test_the_tagged_release_is_taken(self):
        self.prepare()
        self.git('tag', '-a', 'v1.1.0', '-m', 'enum-backport 1.1.0')
        self.assertEqual(release.refusals(self.tree, '1.1.0', 'http://127.0.0.1:8080/'),
                         '2026-12-07')

    def test_the_export_is_the_commit(self):
        self.prepare()
        (self.tree / 'untracked.txt').write_text('not committed\n')
        dest = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(dest))
        release.export(self.tree, dest / 'tree')
        self.assertEqual(sorted(str(p.relative_to(dest / 'tree'))
                                for p in (dest / 'tree').rglob('*') if p.is_file()),
                         ['backport/CHANGELOG.rst', 'backport/enum_backport/__init__.py',
                          'pyproject.toml'])
        self.assertIn('1.1.0 (2026-12-07)',
                      (dest / 'tree' / 'backport' / 'CHANGELOG.rst').read_text())


class Interpreters(unittest.TestCase):

    def test_every_interpreter_tox_knows_is_asked_for(self):
        with mock.patch.dict(os.environ):
            os.environ.pop('ENUM_BACKPORT_PY3135', None)
            os.environ['ENUM_BACKPORT_PY3135T'] = '/nonexistent/python3.13t'
            found = {env: (where, path, why) for env, where, path, why in release.interpreters()}
        self.assertEqual(sorted(found), sorted(
            ['py38', 'py39', 'py310', 'py311', 'py312', 'py313', 'py3135', 'py3135t',
             'py314', 'py315', 'pypy311']))
        self.assertEqual(found['py3135'], ('host', None, 'ENUM_BACKPORT_PY3135 is not set'))
        self.assertIn('not an executable', found['py3135t'][2])
        self.assertEqual(found['py315'], ('root', '/usr/bin/python3.15', None))
        self.assertEqual(found['pypy311'], ('root', '/usr/bin/pypy3', None))

    def test_a_missing_interpreter_fails_the_installs(self):
        entries = [('py38', 'host', None, 'python3.8 is not on PATH')]
        out = io.StringIO()
        with mock.patch.object(release, 'interpreters', return_value=entries), \
                mock.patch('sys.stdout', out):
            with self.assertRaisesRegex(Failed, 'could not run on py38'):
                release.install_everywhere('http://127.0.0.1:1/simple/', '1.0.0', '')
        self.assertIn('MISSING: python3.8 is not on PATH', out.getvalue())


class SdistReadme(unittest.TestCase):

    def sdist(self, readme, page):
        scratch = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(scratch))
        path = scratch / 'enum_backport-1.0.0.tar.gz'
        with tarfile.open(str(path), 'w:gz') as archive:
            for name, data in (('README.rst', readme), ('backport/README.rst', page)):
                info = tarfile.TarInfo('enum_backport-1.0.0/' + name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return str(path)

    def test_the_contributor_readme_is_refused(self):
        with self.assertRaisesRegex(Failed, 'not the package page'):
            release_check.check_readme(self.sdist(b'This repository ships that twice',
                                                  b'enum-backport\n'))

    def test_the_page_is_taken(self):
        with mock.patch('sys.stdout', io.StringIO()):
            release_check.check_readme(self.sdist(b'enum-backport\n', b'enum-backport\n'))


class Server(unittest.TestCase):

    def test_stopping_leaves_no_process(self):
        # A stand-in for pypiserver that starts a child of its own.
        server = release.Server.__new__(release.Server)
        server.port = release.free_port()
        server.process = subprocess.Popen(['sh', '-c', 'sleep 300 & sleep 300'],
                                          start_new_session=True)
        time.sleep(0.2)
        with mock.patch('sys.stdout', io.StringIO()):
            server.stop()
        self.assertIsNotNone(server.process.poll())
        self.assertEqual(live_in_group(server.process.pid), [])


def live_in_group(group):
    """The processes of a process group that are not zombies."""
    # A process killed after its parent died is reaped by PID 1, whenever
    # that gets round to it: until then it is a zombie, not running.
    live = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != 'Z':
                live.append(int(name))
    return live


if __name__ == '__main__':
    unittest.main()
