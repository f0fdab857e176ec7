"""tools/release.py: what it writes, what it refuses, and in which order it acts.

The release itself, against a real index, is rehearsed by
`python3 tools/release.py --rehearse` (a step of the test command): a
pypiserver on 127.0.0.1, an --outdir over a user's files, an upload killed
halfway and healed by a rerun, a version already on the index, an index
that does not answer.  These tests hold the same faults without building:
each fails on the release.py of dad28e9, which deleted --outdir's files,
uploaded before verifying, asked the index nothing before building, named
registries by URL and wrote an impossible date before refusing it.
"""

import base64
import functools
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import unittest
from pathlib import Path
from unittest import mock

import _layout

_layout.require('tools/release.py')
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import plumbing, release, release_check  # noqa: E402
from tools.release import Refused  # noqa: E402

INTERPRETERS = release.interpreters

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
SDIST, WHEEL = release.names('1.1.0')
# Registry hosts, spelt so that this file does not hold one.
HOSTS = r'pypi\.org|python' r'hosted|test\.pypi'


def scratch(test):
    path = Path(tempfile.mkdtemp())
    test.addCleanup(shutil.rmtree, str(path))
    return path


def tree_of(path, files=None):
    """A small git tree at PATH holding the changelog, __init__.py, pyproject.toml."""
    for name, text in (files or {release.CHANGELOG: CHANGELOG,
                                 release.INIT: INIT,
                                 'pyproject.toml': '[project]\nname = "enum-backport"\n'}).items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, 'init', '-q')
    git(path, 'add', '-A')
    git(path, 'commit', '-q', '-m', 'the tree')
    return path


def git(tree, *args):
    return subprocess.run(['git', '-C', str(tree), '-c', 'user.name=t',
                           '-c', 'user.email=t@localhost'] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=True).stdout


def listing_of(directory):
    """{relative path: bytes} of every file under DIRECTORY."""
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in sorted(Path(directory).rglob('*')) if p.is_file()}


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

    def test_a_dated_entry_is_kept_and_a_date_for_it_refused(self):
        text = release.dated(CHANGELOG, '1.1.0', '2026-12-07')
        self.assertEqual(release.dated(text, '1.1.0', '2027-01-01'), text)
        with self.assertRaisesRegex(Refused, r'already dates 1\.1\.0 2026-12-07: --date'):
            release.dated(text, '1.1.0', '2027-01-01', date_given=True)
        # The same date again (a prepare cut short, run again) is no change.
        self.assertEqual(release.dated(text, '1.1.0', '2026-12-07', date_given=True), text)

    def test_unreleased_and_other_versions_are_refused(self):
        with self.assertRaisesRegex(Refused, r'says "1\.1\.0 \(unreleased\)"'):
            release.release_date(CHANGELOG, '1.1.0')
        for version in ('1.0.0', '1.2.0'):
            with self.assertRaisesRegex(Refused, r'is for 1\.1\.0, not %s: open an entry'
                                        % re.escape(version)):
                release.dated(CHANGELOG, version, '2026-12-07')

    def test_impossible_dates(self):
        for text in ('2026-02-30', '2026-13-01', '7 Dec', '2026-12-7'):
            with self.assertRaisesRegex(plumbing.UsageError, 'is not a date'):
                release.checked_date(text)
        self.assertEqual(release.checked_date('2028-02-29'), '2028-02-29')

    def test_versions(self):
        for good in ('1.0.0', '10.2.30', '1.0.0rc1', '1.0.0.post2', '0.1.0'):
            self.assertTrue(re.fullmatch(release.VERSION_PATTERN, good), good)
        for bad in ('01.0.0', '1.00.0', '1.0', 'v1.0.0', '1.0.0rc01'):
            self.assertFalse(re.fullmatch(release.VERSION_PATTERN, bad), bad)

    def test_the_real_changelog_names_the_package_version(self):
        version, _, _ = release.newest_entry((REPO / release.CHANGELOG).read_text())
        self.assertEqual(version, release.source_version((REPO / release.INIT).read_text()))


class CommandLine(unittest.TestCase):
    """One line, and the exit status the docstring promises."""

    def run_release(self, *args):
        return subprocess.run([sys.executable, '-c', 'import sys; from tools import release; '
                               'sys.exit(release.main(sys.argv[1:]))'] + list(args),
                              cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)

    def test_usage_errors_exit_2_in_one_line(self):
        self.assertIn('2 on a command line it cannot use', ' '.join(release.__doc__.split()))
        for args in (['01.0.0'], ['1.0'], ['1.0.0', '--date', '2026-02-30'], [],
                     ['--rehearse', '1.0.0'], ['1.0.0', '-r', 'pypi', '--date', '2026-12-07'],
                     ['1.0.0', '--upload', 'dist']):
            done = self.run_release(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertNotIn('01.0.0 (unreleased)', done.stderr)


class Prepare(unittest.TestCase):
    """Every refusal comes before anything is written."""

    def setUp(self):
        self.tree = tree_of(scratch(self))
        self.outdir = scratch(self)
        self.before = listing_of(self.tree / 'backport')

    def assert_unchanged(self):
        self.assertEqual(listing_of(self.tree / 'backport'), self.before)
        self.assertEqual(git(self.tree, 'status', '--porcelain', '--untracked-files=no'), '')

    def test_an_untracked_file_is_refused(self):
        (self.tree / 'stray.py').write_text('x = 1\n')
        with self.assertRaisesRegex(Refused, r'untracked files \(stray\.py\)'):
            release.prepare('1.1.0', '2026-12-07', False, self.outdir, tree=self.tree)
        self.assert_unchanged()

    def test_a_rerun_after_an_interrupted_prepare_goes_on(self):
        # What an interrupted prepare left (its own two writes) is no reason to
        # refuse the rerun; any other change still is.
        changelog = self.tree / release.CHANGELOG
        changelog.write_text(release.dated(CHANGELOG, '1.1.0', '2026-12-06'))
        (self.tree / release.INIT).write_text(release.with_version(INIT, '1.1.0'))
        with mock.patch.object(release, 'tools_venv', side_effect=plumbing.Error('built')), \
                mock.patch('sys.stdout', io.StringIO()):
            with self.assertRaisesRegex(plumbing.Error, '^built$'):
                release.prepare('1.1.0', '2026-12-07', False, self.outdir, tree=self.tree)
            self.assertIn('1.1.0 (2026-12-06)', changelog.read_text())
            changelog.write_text(changelog.read_text() + 'more\n')
            with self.assertRaisesRegex(Refused, 'uncommitted changes'):
                release.prepare('1.1.0', '2026-12-07', False, self.outdir, tree=self.tree)

    def test_a_date_for_a_dated_entry_is_refused(self):
        changelog = self.tree / release.CHANGELOG
        changelog.write_text(release.dated(CHANGELOG, '1.1.0', '2026-12-07'))
        git(self.tree, 'commit', '-qam', 'dated')
        self.before = listing_of(self.tree / 'backport')
        with self.assertRaisesRegex(Refused, 'already dates'):
            release.prepare('1.1.0', '2027-01-01', True, self.outdir, tree=self.tree)
        self.assert_unchanged()

    def test_an_outdir_holding_a_file_of_that_name_is_refused(self):
        (self.outdir / 'chapter1.txt').write_text('mine\n')
        (self.outdir / SDIST).write_text('mine too\n')
        kept = listing_of(self.outdir)
        with self.assertRaisesRegex(Refused, 'did not make it'):
            release.prepare('1.1.0', '2026-12-07', False, self.outdir, tree=self.tree)
        self.assertEqual(listing_of(self.outdir), kept)
        self.assert_unchanged()

    def test_an_unwritable_checkout_is_one_line_and_writes_nothing(self):
        changelog = self.tree / release.CHANGELOG
        missing_dir = self.tree / 'gone' / 'CHANGELOG.rst'
        with self.assertRaisesRegex(Refused, r'cannot write .*gone.*nothing was changed'):
            release.write_both({changelog: 'new\n', missing_dir: 'new\n'})
        self.assert_unchanged()
        self.assertEqual(sorted(listing_of(changelog.parent)),
                         ['CHANGELOG.rst', 'enum_backport/__init__.py'])


class Outdir(unittest.TestCase):
    """Only the two files are added; nothing there is deleted or replaced."""

    def files(self, content=b'built'):
        where = scratch(self)
        for name in (SDIST, WHEEL):
            (where / name).write_bytes(content + name.encode())
        return [str(where / SDIST), str(where / WHEEL)]

    def test_a_users_files_stay(self):
        outdir = scratch(self)
        (outdir / '.git').mkdir()
        (outdir / '.git' / 'HEAD').write_text('ref\n')
        (outdir / 'chapter1.txt').write_text('mine\n')
        with mock.patch('sys.stdout', io.StringIO()):
            release.add_to(outdir, self.files())
        self.assertEqual(sorted(listing_of(outdir)), sorted(['.git/HEAD', 'chapter1.txt',
                                                              SDIST, WHEEL]))
        self.assertEqual((outdir / 'chapter1.txt').read_text(), 'mine\n')

    def test_the_same_bytes_again_are_taken_other_bytes_refused(self):
        outdir = scratch(self)
        with mock.patch('sys.stdout', io.StringIO()):
            release.add_to(outdir, self.files())
            release.add_to(outdir, self.files())
            ours = {n: release.sha256(outdir / n) for n in (SDIST, WHEEL)}
            release.refuse_overwrite(outdir, '1.1.0', ours)
            with self.assertRaisesRegex(Refused, 'did not make it'):
                release.refuse_overwrite(outdir, '1.1.0', None)
            (outdir / WHEEL).write_bytes(b'a wheel of my own')
            with self.assertRaisesRegex(Refused, 'appeared while this ran'):
                release.add_to(outdir, self.files())
        self.assertEqual((outdir / WHEEL).read_bytes(), b'a wheel of my own')


class Index(unittest.TestCase):
    """An index on 127.0.0.1, as pip and twine see one: its simple page."""

    def serve(self, page, auth=None):
        handler = functools.partial(Page, page, auth)
        server = http.server.HTTPServer(('127.0.0.1', 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return 'http://127.0.0.1:%d/simple/' % server.server_address[1]

    def test_the_files_of_a_version_with_their_sha256(self):
        simple = self.serve({'/simple/enum-backport/': '<a href="../../packages/%s#sha256=%s">'
                             '</a><a href="/p/enum_backport-1.0.0.tar.gz#sha256=%s"></a>'
                             % (SDIST, 'a' * 64, 'b' * 64)})
        self.assertEqual(release.listing(simple, '1.1.0'), {SDIST: 'a' * 64})
        self.assertEqual(release.listing(simple, '1.2.0'), {})

    def test_an_index_that_asks_for_a_password_to_be_read(self):
        simple = self.serve({'/simple/enum-backport/': '<a href="/p/%s#sha256=%s"></a>'
                             % (SDIST, 'a' * 64)}, auth='alice:s3cret')
        with self.assertRaisesRegex(Refused, r'^the index at .* answered 401 .*: give '
                                    r'credentials it takes'):
            release.listing(simple, '1.1.0')
        self.assertEqual(release.listing(simple, '1.1.0', ('alice', 's3cret')),
                         {SDIST: 'a' * 64})
        url = release.with_auth(simple, ('alice', 's3cret'))
        self.assertEqual(url, simple.replace('http://', 'http://alice:s3cret@'))

    def test_a_project_the_index_does_not_have(self):
        self.assertEqual(release.listing(self.serve({}), '1.1.0'), {})

    def test_an_index_that_does_not_answer_is_one_line_at_once(self):
        port = release.free_port()
        started = time.monotonic()
        with self.assertRaisesRegex(Refused, r'^the index at http://127\.0\.0\.1:%d/simple/ '
                                    r'does not answer \(.*\): start it' % port):
            release.listing('http://127.0.0.1:%d/simple/' % port, '1.1.0')
        self.assertLess(time.monotonic() - started, 5)

    def test_what_an_interrupted_upload_left_is_completed(self):
        ours = {SDIST: 'a' * 64, WHEEL: 'b' * 64}
        self.assertEqual(release.missing({}, ours, '1.1.0', 'I'), [SDIST, WHEEL])
        self.assertEqual(release.missing({SDIST: 'a' * 64}, ours, '1.1.0', 'I'), [WHEEL])
        self.assertEqual(release.missing(ours, ours, '1.1.0', 'I'), [])
        with self.assertRaisesRegex(Refused, 'with other bytes .*%s' % re.escape(WHEEL)):
            release.missing({WHEEL: 'c' * 64}, ours, '1.1.0', 'I')

    def test_a_url_only_for_this_machine(self):
        for url in ('https://upload.example.org/legacy/', 'http://127.0.0.1.example.com/',
                    'http://localhost.example/', 'file:///tmp/index'):
            with mock.patch.object(plumbing, 'capture') as capture:
                with self.assertRaisesRegex(Refused, 'a URL only for an index on this machine'):
                    release.target('python', url, credentials=True)
            capture.assert_not_called()
        for url in ('http://127.0.0.1:8080/', 'http://localhost:3141/root/dev/',
                    'http://[::1]:8080/'):
            self.assertTrue(release.is_local(url))

    def test_a_named_public_index_is_refused_without_project_urls(self):
        answer = json.dumps({'url': 'https://upload.example.org/legacy/', 'simple': None})
        done = subprocess.CompletedProcess([], 0, answer + '\n')
        with mock.patch.object(plumbing, 'capture', return_value=done) as capture:
            with self.assertRaisesRegex(Refused, r'-r pypi is not an index on this machine, '
                                        'and pyproject.toml has no Project-URLs'):
                release.target('python', 'pypi', credentials=True)
        self.assertEqual(capture.call_args[0][0][-2:], ['-r', 'pypi'])  # a name, never a URL
        # Refused on the URL alone: asking for credentials may ask the index (OIDC).
        self.assertEqual(capture.call_count, 1)
        self.assertEqual(capture.call_args[0][0][3], 'url')

    def test_a_repository_twine_does_not_know(self):
        answer = json.dumps({'error': "InvalidConfiguration: Missing 'nosuch' section from "
                                      "~/.pypirc."})
        done = subprocess.CompletedProcess([], 0, answer + '\n')
        with mock.patch.object(plumbing, 'capture', return_value=done):
            with self.assertRaisesRegex(Refused, r"^-r nosuch: twine says .*: name pypi, "
                                        r"testpypi or a section of ~/\.pypirc"):
                release.target('python', 'nosuch', credentials=True)

    def test_credentials_twine_cannot_find(self):
        answer = json.dumps({'url': 'http://127.0.0.1:1/', 'simple': None,
                             'error': 'NonInteractive: Credential not found for username.'})
        done = subprocess.CompletedProcess([], 0, answer + '\n')
        with mock.patch.object(plumbing, 'capture', return_value=done):
            with self.assertRaisesRegex(Refused, r'-r local: twine says NonInteractive: '
                                        r'Credential not found .*~/\.pypirc'):
                release.target('python', 'local', credentials=True)


class Page(http.server.BaseHTTPRequestHandler):

    def __init__(self, pages, auth, *args, **kwargs):
        self.pages, self.auth = pages, auth
        super().__init__(*args, **kwargs)

    def do_GET(self):
        if self.auth and self.headers.get('Authorization') != 'Basic ' + base64.b64encode(
                self.auth.encode()).decode():
            self.send_response(401)
            self.send_header('WWW-Authenticate', 'Basic realm="index"')
            self.end_headers()
            return
        body = self.pages.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header('Content-Type', 'text/html')
        self.end_headers()
        self.wfile.write((body or 'not found').encode())

    def log_message(self, *args):
        pass


class Upload(unittest.TestCase):

    def twine(self, stdout, returncode=1, **env):
        done = subprocess.CompletedProcess([], returncode, stdout)
        with mock.patch.dict(os.environ, env), \
                mock.patch.object(plumbing, 'capture', return_value=done) as capture, \
                mock.patch('sys.stdout', io.StringIO()):
            try:
                release.twine_upload('python', ['-r', 'local'], ['a.whl'])
            finally:
                self.command = capture.call_args[0][0]

    def test_no_colour_under_no_color(self):
        self.twine('', returncode=0, NO_COLOR='1')
        self.assertEqual(self.command[1:4], ['-m', 'twine', '--no-color'])
        self.assertIn('--non-interactive', self.command)

    def test_what_the_index_answered_in_one_line(self):
        with self.assertRaisesRegex(Refused, r'^the index refused the credentials \(403 '
                                    r'Forbidden\): check ~/\.pypirc'):
            self.twine('Uploading a.whl\nERROR    HTTPError: 403 Forbidden from '
                       'http://127.0.0.1:1/\n         Forbidden\n')
        with self.assertRaisesRegex(plumbing.Error, r'^twine upload failed: 400 Bad Request$'):
            self.twine('ERROR    HTTPError: 400 Bad Request from http://127.0.0.1:1/\n')


class Order(unittest.TestCase):
    """Verify, then publish; and the index is asked before anything is built."""

    def setUp(self):
        files = {release.CHANGELOG: release.dated(CHANGELOG, '1.1.0', '2026-12-07'),
                 release.INIT: release.with_version(INIT, '1.1.0'),
                 'pyproject.toml': '[project]\nname = "enum-backport"\n'}
        self.tree = tree_of(scratch(self), files)
        git(self.tree, 'tag', '-a', 'v1.1.0', '-m', '1.1.0')
        self.outdir = scratch(self)
        self.calls = []
        self.built = scratch(self)
        for name in (SDIST, WHEEL):
            (self.built / name).write_bytes(name.encode())
        self.hashes = {n: release.sha256(self.built / n) for n in (SDIST, WHEEL)}
        self.cache = scratch(self)
        index = {'url': 'http://127.0.0.1:1/', 'simple': 'http://127.0.0.1:1/simple/',
                 'args': ['--repository-url', 'http://127.0.0.1:1/']}
        self.present = {}
        for name, effect in (
                ('tools_venv', lambda *a, **k: 'python'),
                ('target', lambda *a, **k: index),
                ('listing', lambda *a: dict(self.present)),
                ('build_and_check', lambda *a, **k: self.note('build', [
                    str(self.built / SDIST), str(self.built / WHEEL)])),
                ('verify', lambda *a: self.note('verify')),
                ('twine_upload', lambda p, args, files, *a: self.note(
                    'upload ' + ' '.join(os.path.basename(f) for f in files))),
                ('install_everywhere', lambda *a: self.note('install')),
                ('sdist_page', lambda *a: 'the page'),
                ('interpreters', lambda *a: [])):
            patcher = mock.patch.object(release, name, side_effect=effect)
            patcher.start()
            self.addCleanup(patcher.stop)
        for patcher in (mock.patch.dict(os.environ, ENUM_FROM_VALUE_CACHE=str(self.cache)),
                        mock.patch('sys.stdout', io.StringIO())):
            patcher.start()
            self.addCleanup(patcher.stop)

    def note(self, what, result=None):
        self.calls.append(what)
        if what.startswith('upload'):
            self.present.update({n: self.hashes[n] for n in what.split()[1:]})
        return result

    def release(self):
        release.release('1.1.0', 'local', self.outdir, tree=self.tree)

    def test_verified_before_uploaded(self):
        self.release()
        self.assertEqual(self.calls, ['build', 'verify', 'upload %s %s' % (SDIST, WHEEL),
                                      'install'])
        self.assertEqual(sorted(os.listdir(str(self.outdir))), sorted([SDIST, WHEEL]))

    def test_a_failed_verification_uploads_nothing(self):
        release.verify.side_effect = plumbing.Error('installing failed on py38')
        with self.assertRaisesRegex(plumbing.Error, 'py38'):
            self.release()
        self.assertEqual(self.calls, ['build'])
        self.assertEqual(os.listdir(str(self.outdir)), [])

    def test_a_half_done_upload_is_completed_by_a_rerun(self):
        release.twine_upload.side_effect = lambda p, args, files, *a: (
            self.note('upload ' + os.path.basename(files[0])), 1 / 0)
        with self.assertRaises(ZeroDivisionError):  # stopped after the first file
            self.release()
        self.present.pop(WHEEL, None)
        release.twine_upload.side_effect = lambda p, args, files, *a: self.note(
            'upload ' + ' '.join(os.path.basename(f) for f in files))
        self.calls.clear()
        self.release()
        # The same bytes, verified before: the missing file only, then the checks.
        self.assertEqual(self.calls, ['build', 'upload ' + WHEEL, 'install'])
        self.calls.clear()
        self.release()
        self.assertEqual(self.calls, ['build', 'install'])

    def test_a_version_on_the_index_is_refused_before_building(self):
        self.present = {SDIST: 'f' * 64}
        with self.assertRaisesRegex(Refused, 'did not build from this commit'):
            self.release()
        self.assertEqual(self.calls, [])

    def test_a_users_file_in_outdir_is_refused_before_anything_leaves(self):
        (self.outdir / WHEEL).write_text('mine\n')
        with self.assertRaisesRegex(Refused, 'did not make it'):
            self.release()
        self.assertEqual(self.calls, ['build'])
        self.assertEqual((self.outdir / WHEEL).read_text(), 'mine\n')

    def test_the_prepare_steps_files_in_outdir_are_taken(self):
        for name in (SDIST, WHEEL):  # the same bytes the build makes
            shutil.copy2(str(self.built / name), str(self.outdir / name))
        (self.outdir / 'notes.txt').write_text('mine\n')
        self.release()
        self.assertEqual(self.calls, ['build', 'verify', 'upload %s %s' % (SDIST, WHEEL),
                                      'install'])
        self.assertEqual(sorted(listing_of(self.outdir)), sorted(['notes.txt', SDIST, WHEEL]))

    def test_an_interpreter_that_cannot_run_is_refused_before_building(self):
        release.interpreters.side_effect = INTERPRETERS
        missing = str(self.cache / 'python3.99')
        with self.assertRaisesRegex(Refused, r'^cannot install on %s \(no %s found\)'
                                    r'.*docs/release\.rst' % (missing, missing)):
            release.release('1.1.0', 'local', self.outdir, pythons=[sys.executable, missing],
                            tree=self.tree)
        self.assertEqual(self.calls, [])

    def test_an_untagged_tree_is_refused_before_asking_anything(self):
        git(self.tree, 'tag', '-d', 'v1.1.0')
        with self.assertRaisesRegex(Refused, 'not tagged v1.1.0'):
            self.release()
        release.target.assert_not_called()


class Sdist(unittest.TestCase):

    def sdist(self, **members):
        path = scratch(self) / 'enum_backport-1.0.0.tar.gz'
        with tarfile.open(str(path), 'w:gz') as archive:
            for name, data in members.items():
                info = tarfile.TarInfo('enum_backport-1.0.0/' + name.replace('__', '/'))
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return str(path)

    def test_the_page_and_the_changelog_it_names_are_at_the_top(self):
        page, changes = b'enum-backport\n', b'Changes\n'
        with mock.patch('sys.stdout', io.StringIO()):
            release_check.check_readme(self.sdist(**{
                'README.rst': page, 'backport__README.rst': page,
                'CHANGELOG.rst': changes, 'backport__CHANGELOG.rst': changes}))
        with self.assertRaisesRegex(release_check.Failed, 'the sdist has no CHANGELOG.rst'):
            release_check.check_readme(self.sdist(**{
                'README.rst': page, 'backport__README.rst': page,
                'backport__CHANGELOG.rst': changes}))
        with self.assertRaisesRegex(release_check.Failed, 'not the package page'):
            release_check.check_readme(self.sdist(**{
                'README.rst': b'the repository', 'backport__README.rst': page}))
        self.assertTrue(issubclass(release_check.Failed, plumbing.Error))

    def test_the_package_page_names_the_changelog_the_sdist_has(self):
        page = (REPO / 'backport' / 'README.rst').read_text()
        self.assertIn('``CHANGELOG.rst`` in the source distribution', page)
        self.assertIn("'CHANGELOG.rst'", (REPO / 'hatch_build.py').read_text())


class ReleaseCheck(unittest.TestCase):

    def test_the_outdir_keeps_what_it_held(self):
        outdir = scratch(self)
        (outdir / 'chapter1.txt').write_text('mine\n')
        with mock.patch.object(release_check, 'run', side_effect=release_check.Failed('x')), \
                mock.patch('sys.stdout', io.StringIO()):
            self.assertEqual(release_check.main([str(outdir)]), 1)
        self.assertEqual(listing_of(outdir), {'chapter1.txt': b'mine\n'})


class Repository(unittest.TestCase):

    def test_no_registry_host_anywhere(self):
        found = subprocess.run(['git', '-C', str(REPO), 'grep', '-n', '-I', '-iE', HOSTS],
                               stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(found.stdout, '')
        self.assertEqual(found.returncode, 1)  # 1: nothing found (not an error)

    def test_every_action_pinned_to_a_commit_with_its_tag_and_least_permissions(self):
        for path in sorted((REPO / '.github' / 'workflows').glob('*.yml')):
            text = path.read_text()
            uses = re.findall(r'uses: (\S+)(.*)', text)
            self.assertTrue(uses, path)
            for action, comment in uses:
                self.assertRegex(action, r'^[\w-]+/[\w-]+@[0-9a-f]{40}$', path)
                self.assertRegex(comment, r'^ # v\d+\.\d+\.\d+$', path)
            self.assertIn('\npermissions: {}\n', text, path)
            self.assertEqual(text.count('uses: actions/checkout@'),
                             text.count('persist-credentials: false'), path)
            self.assertIsNone(re.search(HOSTS + r'|password:|(?<![-\w])token:', text, re.I))
        publish = (REPO / '.github' / 'workflows' / 'publish.yml').read_text()
        self.assertEqual(publish.count('id-token: write'), 1)
        job = publish[publish.index('\n  publish:'):]
        self.assertIn('id-token: write', job)
        self.assertIn('name: publish', job)
        self.assertIn('--attestations', job)


class BrokenPipe(unittest.TestCase):

    def test_a_reader_that_goes_away(self):
        read_end, write_end = os.pipe()
        os.close(read_end)  # `| head` that has read all it wanted
        try:
            done = subprocess.run([sys.executable, '-m', 'enum_backport'], stdout=write_end,
                                  stderr=subprocess.PIPE, universal_newlines=True,
                                  cwd=str(REPO / 'backport'))
        finally:
            os.close(write_end)
        self.assertEqual(done.stderr, '')
        self.assertNotEqual(done.returncode, 0)


    def test_a_full_disk_is_one_line(self):
        with open('/dev/full', 'w') as full:  # every write: ENOSPC
            done = subprocess.run([sys.executable, '-m', 'enum_backport'], stdout=full,
                                  stderr=subprocess.PIPE, universal_newlines=True,
                                  cwd=str(REPO / 'backport'))
        self.assertNotIn('Traceback', done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertEqual(done.returncode, 1)


if __name__ == '__main__':
    unittest.main()
