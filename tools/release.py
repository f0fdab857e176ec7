#!/usr/bin/env python3
"""Release enum-backport: verify, then publish.  Or rehearse it all here.

    python3 tools/release.py VERSION [--date YYYY-MM-DD] [--outdir DIR]   # prepare
    python3 tools/release.py VERSION -r REPOSITORY [--outdir DIR]         # release
    python3 tools/release.py --rehearse

and CI's stages: -r REPOSITORY --stop-after checked, --verify DIR, -r
REPOSITORY --upload DIR.  docs/release.rst says what each does and refuses.
Nothing is deleted or overwritten that this command did not make; every
refusal and failure is one line.  Exits 0 when everything passed, 1 on a
refusal or a failure, 2 on a command line it cannot use, 128+N when
stopped by signal N.
"""

if __name__ == "__main__" and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file

    bootstrap.run("tools.release")

import argparse
import base64
import calendar
import configparser
import datetime
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil

from tools import debian_root, plumbing, release_check, tox_interpreters
from tools.plumbing import Error, UsageError, say

ROOT = Path(__file__).resolve().parent.parent
PROJECT = 'enum-backport'
INIT = 'backport/enum_backport/__init__.py'
CHANGELOG = 'backport/CHANGELOG.rst'
NUMBER = r'(0|[1-9]\d*)'
VERSION_PATTERN = r'{0}\.{0}\.{0}((a|b|rc){0}|\.post{0})?'.format(NUMBER)
LOCAL_HOSTS = ('127.0.0.1', 'localhost', '::1')
SERVER_PINS = ['pypiserver==2.4.2', 'passlib==1.7.4']
ATTEST_PINS = ['pypi-attestations==0.0.30']
# Run in the release tools' venv: the repository as twine resolves it (its
# URL, and the simple index pip knows for twine's own two), and whether
# twine finds credentials for it, by twine's own rules.
ASK_TWINE = r'''
import argparse, json, sys
from twine import settings, utils
from pip._internal.models.index import PyPI, TestPyPI
parser = argparse.ArgumentParser()
settings.Settings.register_argparse_arguments(parser)
answer = {}
try:
    found = settings.Settings.from_argparse(parser.parse_args(sys.argv[2:]))
    answer['url'] = found.repository_config['repository']
    answer['simple'] = {utils.DEFAULT_REPOSITORY: PyPI.simple_url,
                        utils.TEST_REPOSITORY: TestPyPI.simple_url}.get(answer['url'])
    if sys.argv[1] == 'credentials':
        answer['auth'] = [found.auth.username, found.auth.password]
except Exception as error:  # twine's, and a network's when it asks the index (OIDC)
    answer['error'] = '%s: %s' % (type(error).__name__, str(error).strip().splitlines()[0])
print(json.dumps(answer))
'''
DESCRIBE = ("import platform, sys; print(platform.python_implementation(), "
            "platform.python_version(), *(['(PyPy %d.%d.%d)' % sys.pypy_version_info[:3]] "
            "if hasattr(sys, 'pypy_version_info') else []))")


class Refused(Error):
    """The release would be wrong, or cannot be made as asked: nothing is uploaded."""


def read(path):
    with open(str(path), encoding='utf-8') as f:
        return f.read()


def sha256(path):
    with open(str(path), 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def names(version):
    """The sdist's and the wheel's file names for VERSION."""
    return ['enum_backport-%s.tar.gz' % version, 'enum_backport-%s-py3-none-any.whl' % version]


# The version and the changelog ------------------------------------------

def newest_entry(changelog):
    """(version, date or None while unreleased, line index) of the newest entry."""
    lines = changelog.splitlines()
    for index, (heading, underline) in enumerate(zip(lines, lines[1:])):
        match = re.match(r'(\S+) \((unreleased|\d{4}-\d{2}-\d{2})\)$', heading)
        if match and underline and set(underline) == {'-'}:
            date = match.group(2)
            return match.group(1), None if date == 'unreleased' else date, index
    raise Refused('%s has no entry headed "VERSION (unreleased)" or "VERSION (YYYY-MM-DD)"'
                  % CHANGELOG)


def entry_for(changelog, version):
    found, date, index = newest_entry(changelog)
    if found != version:
        raise Refused('the newest entry of %s is for %s, not %s: open an entry "%s '
                      '(unreleased)" above it to release %s' % (CHANGELOG, found, version,
                                                               version, version))
    return date, index


def dated(changelog, version, date, date_given=False):
    """CHANGELOG with VERSION's entry dated DATE; as it was if dated (refused if DATE_GIVEN)."""
    when, index = entry_for(changelog, version)
    if when is not None:
        if date_given and when != date:  # the same date again: a rerun
            raise Refused('%s already dates %s %s: --date changes only an undated entry; '
                          'edit the heading by hand to change it' % (CHANGELOG, version, when))
        return changelog
    lines = changelog.splitlines(True)
    heading = '%s (%s)' % (version, date)
    lines[index:index + 2] = [heading + '\n', '-' * len(heading) + '\n']
    return ''.join(lines)


def release_date(changelog, version):
    """The date of VERSION's entry; refused while that says unreleased."""
    when, _ = entry_for(changelog, version)
    if when is None:
        raise Refused('%s says "%s (unreleased)": a release would ship that; date it with '
                      '`python3 tools/release.py %s`, commit and tag (docs/release.rst)'
                      % (CHANGELOG, version, version))
    return when


def source_version(init):
    match = re.search(r"^__version__ = '([^']*)'$", init, re.M)
    if match is None:
        raise Error("%s has no line __version__ = '...'" % INIT)
    return match.group(1)


def with_version(init, version):
    source_version(init)
    return re.sub(r"^__version__ = '[^']*'$", "__version__ = '%s'" % version, init, flags=re.M)


def checked_date(text):
    """TEXT if it is a real YYYY-MM-DD date (2026-02-30 is not)."""
    try:
        if re.fullmatch(r'\d{4}-\d{2}-\d{2}', text) and datetime.date.fromisoformat(text):
            return text
    except ValueError:
        pass
    raise UsageError('--date %s is not a date (YYYY-MM-DD)' % text)


def epoch(date):
    """SOURCE_DATE_EPOCH for a changelog date: its midnight, UTC."""
    return calendar.timegm(time.strptime(date, '%Y-%m-%d'))


def write_both(changes):
    """Write {path: text} all or none: each beside its place, then renamed, signals held."""
    made = {}
    try:
        for path, text in changes.items():
            handle, temporary = tempfile.mkstemp(prefix='.%s.' % path.name, dir=str(path.parent))
            made[path] = temporary
            with os.fdopen(handle, 'w', encoding='utf-8') as f:
                f.write(text)
            os.chmod(temporary, os.stat(str(path)).st_mode & 0o7777)
        with plumbing.held():
            for path, temporary in made.items():
                os.replace(temporary, str(path))
    except OSError as error:
        raise Refused('cannot write %s: %s; nothing was changed' % (
            error.filename or path, error.strerror or error))
    finally:
        for temporary in made.values():
            if os.path.exists(temporary):
                os.unlink(temporary)


# The tree and the output ---------------------------------------------------

def git(tree, *args):
    done = plumbing.capture(['git', '-C', str(tree)] + list(args))
    if done.returncode:
        raise Error('git %s: %s' % (' '.join(args), done.stdout.strip()))
    return done.stdout


def uncommitted(tree, untracked=True):
    """Paths with uncommitted changes (and untracked, not ignored, files)."""
    listed = git(tree, 'status', '--porcelain', '-z',
                 '--untracked-files=%s' % ('normal' if untracked else 'no'))
    return [entry[3:] for entry in listed.split('\0') if entry[3:]]


def check_tagged(tree, version):
    """The work tree is the commit tagged vVERSION, unchanged."""
    if uncommitted(tree, untracked=False):
        raise Refused('the work tree has uncommitted changes: commit the prepared release and '
                      'tag it v%s first' % version)
    if 'v' + version not in git(tree, 'tag', '--points-at', 'HEAD').split():
        raise Refused('HEAD is not tagged v%s: tag the commit that dates %s (docs/release.rst)'
                      % (version, version))


def copy_tree(tree, dest, untracked=False):
    """The files git tracks in TREE (with UNTRACKED, those it would add too) into DEST."""
    listed = git(tree, 'ls-files', '-z', '--cached', *(['--others', '--exclude-standard']
                                                       if untracked else []))
    for name in filter(None, listed.split('\0')):
        if (Path(tree) / name).is_file():
            (Path(dest) / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(str(Path(tree) / name), str(Path(dest) / name))


def refuse_overwrite(outdir, version, ours=None):
    """Refuse while OUTDIR holds a file by the name of one of ours with other bytes."""
    for name in names(version):
        path = Path(outdir) / name
        if path.exists() and (ours is None or sha256(path) != ours.get(name)):
            raise Refused('%s is there already and this command did not make it: move it away '
                          'or give another --outdir (nothing was changed)' % path)


def add_to(outdir, files):
    """Add FILES to OUTDIR, never replacing a file there (a link, which fails if one is)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    added = []
    for path in files:
        dest = outdir / Path(path).name
        if dest.exists() and sha256(dest) == sha256(path):
            continue
        added.append(dest.name)
        temporary = outdir / ('.%s.%s' % (dest.name, secrets.token_hex(4)))
        shutil.copy2(str(path), str(temporary))
        try:
            os.link(str(temporary), str(dest))
        except FileExistsError:
            raise Refused('%s appeared while this ran: left as it is' % dest)
        finally:
            os.unlink(str(temporary))
    say('%s: %s' % (outdir, ', '.join(Path(p).name + ('' if Path(p).name in added else
                                                      ' (there already, the same bytes)')
                                      for p in files)))


# Tools, building, checking ---------------------------------------------------

def tools_venv(name, pins):
    """The python of the cache's venv NAME with exactly PINS."""
    key = hashlib.sha256('\n'.join(pins).encode()).hexdigest()[:10]
    path = plumbing.cache_dir() / 'venvs' / ('%s-%s' % (name, key))
    with plumbing.locked(str(path) + '.lock'):
        plumbing.venv(path, sys.executable, pins)
    return str(path / 'bin' / 'python')


def release_pins():
    """tox.ini's [testenv:release] deps: build, twine, check-wheel-contents."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(ROOT / 'tox.ini'))
    return [line.strip() for line in config.get('testenv:release', 'deps').splitlines()
            if line.strip() and not line.strip().startswith('#')]


def build_and_check(python, tree, date, scratch, twice=True):
    """Build (twice, compared), check; the sdist's and the wheel's paths."""
    source_epoch = epoch(date)

    def build():
        return release_check.build(tempfile.mkdtemp(prefix='build-', dir=str(scratch)), python,
                                   tree, env=dict(os.environ, SOURCE_DATE_EPOCH=str(source_epoch)))

    files = build()
    if twice:
        for one, other in zip(files, build()):
            if sha256(one) != sha256(other):
                raise Error('two builds of the same tree differ: %s' % os.path.basename(one))
    say('built %s(SOURCE_DATE_EPOCH=%d, %s):'
        % ('twice, byte-identical ' if twice else '', source_epoch, date))
    for path in files:
        print('  %s  %s' % (sha256(path), os.path.basename(path)), flush=True)
    release_check.check(*files, python=python, cwd=str(tree))
    where = tempfile.mkdtemp(prefix='page-', dir=str(scratch))
    say("the page's examples, with the wheel on python3:")
    release_check.test_wheel(files[1], files[0], 'python3', where)
    return files


def files_in(directory, version):
    """The sdist and wheel of VERSION in DIRECTORY (a CI artifact), exactly those."""
    found = sorted(os.listdir(str(directory)))
    if found != sorted(names(version)):
        raise Refused('%s holds %s, not exactly %s' % (directory, found, names(version)))
    return [str(Path(directory) / name) for name in names(version)]


# The index -------------------------------------------------------------------

def is_local(url):
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ('http', 'https') and parts.hostname in LOCAL_HOSTS


def declares_urls(pyproject):
    """Whether pyproject.toml's [project] has urls."""
    return bool(re.search(r'^\[project\.urls\]|^urls\s*=', pyproject, re.M))


def target(python, repository, credentials):
    """{'url', 'simple', 'args'} for -r REPOSITORY, refused as the docstring says."""
    args = ['--repository-url', repository] if '://' in repository else ['-r', repository]
    if '://' in repository and not is_local(repository):
        raise Refused('-r %s: a URL only for an index on this machine (127.0.0.1, localhost); '
                      'name any other as twine does (-r pypi, -r testpypi, a ~/.pypirc '
                      'section)' % repository)
    # The URL first: a public index is refused before twine looks for credentials
    # (which, for one that takes Trusted Publishing, asks the index).
    for question in ['url'] + (['credentials'] if credentials else []):
        done = plumbing.capture([python, '-c', ASK_TWINE, question, '--non-interactive'] + args)
        try:
            answer = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise Error('twine could not be asked about -r %s: %s'
                        % (repository, (done.stdout.strip().splitlines() or [''])[-1]))
        if 'error' in answer:
            raise Refused('-r %s: twine says %s: %s' % (repository, answer['error'], (
                'name pypi, testpypi or a section of ~/.pypirc' if question == 'url' else
                'set TWINE_USERNAME and TWINE_PASSWORD, or the section\'s username and '
                'password in ~/.pypirc, or a keyring (in CI: Trusted Publishing)')))
        if not is_local(answer['url']) and not declares_urls(read(ROOT / 'pyproject.toml')):
            raise Refused('-r %s is not an index on this machine, and pyproject.toml has no '
                          "Project-URLs, so the index's page would link nowhere: add "
                          '[project.urls] once the project has a public home; until then only '
                          'an index on 127.0.0.1 or localhost is taken' % repository)
    if answer['simple'] is None:
        answer['simple'] = answer['url'].rstrip('/') + '/simple/'
    answer['args'] = args
    return answer


def with_auth(url, auth):
    """URL with AUTH (user, password) in it, for pip."""
    if not auth:
        return url
    parts = urllib.parse.urlsplit(url)
    user, password = (urllib.parse.quote(part, safe='') for part in auth)
    return parts._replace(netloc='%s:%s@%s' % (user, password, parts.netloc)).geturl()


def listing(simple, version, auth=None):
    """{file name: sha256} of VERSION on the index, read with AUTH; Refused if it won't answer."""
    url = simple.rstrip('/') + '/%s/' % PROJECT
    ask = urllib.request.Request(url, headers={
        'Accept': 'application/vnd.pypi.simple.v1+json, text/html;q=0.1'})
    if auth:
        ask.add_header('Authorization', 'Basic ' + base64.b64encode(
            ('%s:%s' % tuple(auth)).encode()).decode())
    try:
        with urllib.request.urlopen(ask, timeout=15) as answer:
            body = answer.read().decode('utf-8', 'replace')
            kind = answer.headers.get_content_type()
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return {}
        if error.code in (401, 403):
            raise Refused('the index at %s answered %d (it is read with a password): give '
                          'credentials it takes where twine finds them (TWINE_USERNAME and '
                          'TWINE_PASSWORD, ~/.pypirc), then run again' % (simple, error.code))
        raise Refused('the index answered %s for %s: check -r' % (error.code, url))
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, 'reason', error)
        raise Refused('the index at %s does not answer (%s): start it, or check -r and the '
                      'network, then run again' % (simple, reason))
    if kind.endswith('json'):
        found = {f['filename']: f.get('hashes', {}).get('sha256')
                 for f in json.loads(body).get('files', [])}
    else:
        found = dict(re.findall(r'href="[^"]*/([^/"#]+)#sha256=([0-9a-f]{64})"', body))
    return {name: digest for name, digest in found.items() if name in names(version)}


def missing(present, ours, version, simple):
    """Which of OURS the index lacks; Refused if it has any file of VERSION with other bytes."""
    other = sorted(name for name, digest in present.items() if ours.get(name) != digest)
    if other:
        raise Refused('%s already has %s %s with other bytes (%s): an index takes a version '
                      'once; release the next version' % (simple, PROJECT, version,
                                                          ', '.join(other)))
    return [name for name in names(version) if name not in present]


def twine_upload(python, args, files, attestations=False, env=None):
    """twine upload FILES; a refusal by the index is one line."""
    command = [python, '-m', 'twine'] + (['--no-color'] if os.environ.get('NO_COLOR') else [])
    command += ['upload', '--non-interactive', '--disable-progress-bar'] + args
    done = plumbing.capture(command + (['--attestations'] if attestations else []) + files,
                            env=env)
    said = re.findall(r'HTTPError: (\d{3}[^\n]*?)(?: from |\n|$)', done.stdout)
    if done.returncode:
        if said and said[-1].startswith('403'):
            raise Refused('the index refused the credentials (%s): check ~/.pypirc or '
                          'TWINE_USERNAME/TWINE_PASSWORD, then run again' % said[-1])
        raise Error('twine upload failed: %s' % (said[-1] if said else (
            done.stdout.strip().splitlines() or ['(no output)'])[-1]))
    say('uploaded: %s' % ', '.join(os.path.basename(f) for f in files))


# The record ------------------------------------------------------------------

def record_path(version, commit):
    """Where a release keeps what it verified (the rehearsal's in its scratch directory)."""
    where = os.environ.get('ENUM_BACKPORT_RELEASES') or plumbing.cache_dir() / 'releases'
    return Path(where) / ('%s-%s-%s.json' % (PROJECT, version, commit))


def load_record(version, commit):
    """What this machine built and verified of VERSION from COMMIT, or None."""
    try:
        return json.loads(read(record_path(version, commit)))
    except (OSError, ValueError):
        return None


def save_record(version, commit, hashes):
    path = record_path(version, commit)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = str(path) + '.%d' % os.getpid()
    with open(temporary, 'w') as f:
        json.dump({'commit': commit, 'files': hashes, 'verified': True}, f)
    os.replace(temporary, str(path))


# Installing: from a throwaway index, from the real one -----------------------

def interpreters(pythons=None):
    """(env, 'host' or 'root', path) of PYTHONS, else of tox.ini's [stdlib]; Refused unless
    every one runs."""
    found, bad = [], []
    for env, spec in ([(p, p) for p in pythons] if pythons
                      else tox_interpreters.stdlib_envs(ROOT / 'tox.ini')):
        state, why = tox_interpreters.why_not_run(spec)
        if state == 'MISSING':
            bad.append('%s (%s)' % (env, why))
        elif spec.startswith('root:'):
            name = spec[len('root:'):]
            found.append((env, 'root', debian_root.INTERPRETERS.get(name, '/usr/bin/' + name)))
        else:
            name = os.environ[spec[1:]] if spec.startswith('$') else spec
            found.append((env, 'host', shutil.which(name)))
    shim = r' \((a pyenv shim: [^)]*)\)'  # said once, not for each
    listed = ', '.join(bad)
    if bad:
        raise Refused('cannot install on %s: make each run as docs/release.rst shows%s, or '
                      'name others with --python' % (re.sub(shim, '', listed), ''.join(
                          '; ' + hint for hint in re.findall(shim, listed)[:1])))
    return found


INSTALL = r'''
set -u
python="$1" dir="$2" version="$3" describe="$4"  # the index: PIP_INDEX_URL
"$python" -m venv "$dir/venv" > "$dir/venv.log" 2>&1 || { cat "$dir/venv.log"; exit 1; }
venv="$dir/venv/bin/python"
"$venv" -m pip install --disable-pip-version-check --no-cache-dir \
    "enum-backport==$version" > "$dir/pip.log" 2>&1 || { cat "$dir/pip.log"; exit 1; }
echo "file: $(sed -n 's/^ *Downloading //p' "$dir/pip.log" | sed 's/ (.*//; s,.*/,,')"
echo "python: $("$venv" -c "$describe")"
cd "$dir"
echo "version: $("$venv" -m enum_backport --version)"
"$venv" -m doctest -v -o ELLIPSIS README.rst > doctest.log 2>&1 ||
    { tail -40 doctest.log; exit 1; }
echo "page: $(sed -n 's/^\([0-9]*\) passed.*/\1/p' doctest.log | tail -1)"
"$venv" -m enum_backport > report.log 2>&1 || { cat report.log; exit 1; }
echo "report: $(head -1 report.log | sed 's/^[^:]*: enum_backport //; s/:$//')"
'''


def install_one(entry, simple, version, page, root, auth=None):
    """Install from SIMPLE (read with AUTH) with the interpreter ENTRY; (ok, its table row)."""
    env_name, where, path = entry
    scratch = tempfile.mkdtemp(prefix='enum-backport-install-')
    try:
        Path(scratch, 'README.rst').write_text(page, encoding='utf-8')
        argv = ['sh', '-c', INSTALL, 'sh', path, scratch, version, DESCRIBE]
        pip = {'PIP_CONFIG_FILE': os.devnull, 'PIP_INDEX_URL': with_auth(simple, auth)}
        if where == 'root':
            done = debian_root.run(root, argv, binds=[scratch], env=pip, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True)
        else:  # from that index alone: no pip configuration, variable or file
            env = {k: v for k, v in os.environ.items() if not k.startswith('PIP_')}
            done = plumbing.capture(argv, env=dict(env, **pip))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    lines = done.stdout.strip().splitlines()
    told = dict(line.split(': ', 1) for line in lines if ': ' in line)
    if done.returncode or told.get('version') != version or not told.get('file', '').endswith(
            '.whl'):
        return False, '\n           '.join(['FAILED (exit %d), or not %s %s as a wheel from %s:'
                                            % (done.returncode, PROJECT, version, simple)]
                                           + lines[-30:])
    return True, '%-26s %s %s: %s examples of the page passed; %s' % (
        told['python'], PROJECT, told['version'], told['page'], told['report'])


def install_everywhere(simple, version, page, entries, auth=None):
    """Install from SIMPLE (read with AUTH) on every interpreter of ENTRIES; Error unless
    all passed."""
    try:
        root = debian_root.ensure() if any(w == 'root' for _, w, _ in entries) else None
    except debian_root.RootError as error:
        raise Error('no Debian root for %s: %s' % (', '.join(e for e, w, _ in entries
                                                             if w == 'root'), error))
    say('installing %s==%s from %s alone into a fresh venv on each of %d interpreters'
        % (PROJECT, version, simple, len(entries)))
    results = [None] * len(entries)

    def work(index):
        results[index] = install_one(entries[index], simple, version, page, root, auth)

    for start in range(0, len(entries), 2):  # two at a time (two cores)
        threads = [plumbing.Thread(target=work, args=(i,))
                   for i in range(start, min(start + 2, len(entries)))]
        for thread in threads:
            thread.start()
        for thread in threads:
            plumbing.join(thread)
    for (env_name, _, _), (_, row) in zip(entries, results):
        print('  %-8s %s' % (env_name, row), flush=True)
    bad = [env_name for (env_name, _, _), (ok, _) in zip(entries, results) if not ok]
    if bad:
        raise Error('installing from %s failed on %s' % (simple, ', '.join(bad)))


def sdist_page(sdist):
    """The package page as the sdist carries it (its README.rst)."""
    return release_check.member(sdist, 'README.rst').decode('utf-8')


class Server:
    """pypiserver on 127.0.0.1 in a directory of its own, uploads behind a fresh password."""

    def __init__(self, scratch):
        self.python = tools_venv('pypiserver', SERVER_PINS)
        self.user, self.password = 'rehearsal', secrets.token_urlsafe(18)
        self.htpasswd = Path(scratch) / 'htpasswd'
        plumbing.run([self.python, '-c', 'import sys; from passlib.apache import HtpasswdFile; '
                      'h = HtpasswdFile(sys.argv[1], new=True); '
                      'h.set_password(sys.argv[2], sys.stdin.read()); h.save()',
                      str(self.htpasswd), self.user], input=self.password.encode())
        self.packages = Path(scratch) / 'packages'
        self.packages.mkdir()
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d/' % self.port
        self.log = Path(scratch) / 'pypiserver.log'
        self.process = None

    def __enter__(self):
        with open(str(self.log), 'w') as log:
            self.process = plumbing.popen(
                [str(Path(self.python).parent / 'pypi-server'), 'run', '-i', '127.0.0.1',
                 '-p', str(self.port), '-P', str(self.htpasswd), '-a', 'update',
                 '--disable-fallback', str(self.packages)], stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                listing(self.url + 'simple/', '0')
                return self
            except Refused:
                time.sleep(0.3)
        raise Error('pypiserver did not answer on %s: %s' % (self.url, read(self.log)[-500:]))

    def __exit__(self, *exc):
        if self.process is not None:
            plumbing.stop_group(self.process)

    def upload(self, tools, files):
        twine_upload(tools, ['--repository-url', self.url], files, env=dict(
            os.environ, TWINE_USERNAME=self.user, TWINE_PASSWORD=self.password))


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def verify(tools, files, version, entries, scratch):
    """Install FILES from a throwaway pypiserver on every interpreter; Error unless all passed."""
    with Server(scratch) as server:
        say('a throwaway pypiserver on %s (files in %s)' % (server.url, server.packages))
        server.upload(tools, files)
        if listing(server.url + 'simple/', version) != {Path(f).name: sha256(f) for f in files}:
            raise Error('the throwaway index does not list exactly the files built')
        install_everywhere(server.url + 'simple/', version, sdist_page(files[0]), entries)
    say('verified: the files installed from an index on every interpreter')


# The commands ----------------------------------------------------------------

def rerun(tree, path, version):
    """Whether PATH's change is only what an interrupted prepare of VERSION wrote."""
    if path not in (CHANGELOG, INIT):
        return False
    now, then = read(Path(tree) / path), git(tree, 'show', 'HEAD:' + path)
    try:
        if path == INIT:
            return now == with_version(then, version)
        return now == dated(then, version, newest_entry(now)[1] or 'unreleased')
    except Error:
        return False


def prepare(version, date, date_given, outdir, tree=ROOT):
    """Step 1; every refusal before anything is written."""
    init, changelog = Path(tree) / INIT, Path(tree) / CHANGELOG
    dirty = [path for path in uncommitted(tree) if not rerun(tree, path, version)]
    if dirty:
        raise Refused('the work tree has uncommitted changes or untracked files (%s%s), which '
                      'a build would take in: commit, remove or ignore them first'
                      % (', '.join(dirty[:3]), ', ...' if len(dirty) > 3 else ''))
    new_changelog = dated(read(changelog), version, date, date_given)
    new_init = with_version(read(init), version)
    refuse_overwrite(outdir, version)
    write_both({changelog: new_changelog, init: new_init})
    date = release_date(new_changelog, version)
    say('%s says %s; %s heads its newest entry "%s (%s)"'
        % (INIT, version, CHANGELOG, version, date))
    tools = tools_venv('release', release_pins())
    with tempfile.TemporaryDirectory(prefix='enum-backport-prepare-') as scratch:
        copy = Path(scratch) / 'tree'
        copy_tree(tree, copy)
        add_to(outdir, build_and_check(tools, copy, date, scratch, twice=False))
    say('prepared %s.  Read `git diff`, then commit and tag:' % version)
    print('    git commit -am "enum-backport %s"\n    git tag -a v%s -m "enum-backport %s"'
          % (version, version, version))


def release(version, repository, outdir, pythons=None, stop_after=None, tree=ROOT):
    """Step 2, or its first stage (STOP_AFTER 'checked')."""
    date, said = release_date(read(Path(tree) / CHANGELOG), version), source_version(
        read(Path(tree) / INIT))
    if said != version:
        raise Refused('%s says %s, not %s' % (INIT, said, version))
    check_tagged(tree, version)
    tools = tools_venv('release', release_pins())
    index = target(tools, repository, credentials=stop_after is None)
    present = listing(index['simple'], version, index.get('auth'))
    commit = git(tree, 'rev-parse', 'HEAD').strip()
    record = load_record(version, commit)
    entries = None if record or stop_after else interpreters(pythons)
    if present and stop_after is None:
        if record is None:
            raise Refused('%s already has %s %s (%s), which this command did not build from '
                          'this commit: an index takes a version once; release the next version'
                          % (index['simple'], PROJECT, version, ', '.join(sorted(present))))
        missing(present, record['files'], version, index['simple'])
    if record:
        refuse_overwrite(outdir, version, record['files'])
    with tempfile.TemporaryDirectory(prefix='enum-backport-release-') as scratch:
        copy = Path(scratch) / 'tree'
        copy_tree(tree, copy)
        files = build_and_check(tools, copy, date, scratch)
        hashes = {Path(f).name: sha256(f) for f in files}
        refuse_overwrite(outdir, version, hashes)  # the prepare step's files are these bytes
        missing(present, hashes, version, index['simple'])
        if stop_after == 'checked':
            add_to(outdir, files)
            return
        if record and record['files'] != hashes:
            raise Error('this build differs from the one recorded in %s'
                        % record_path(version, commit))
        if record:
            say('verified before, on every interpreter: the same bytes (%s)'
                % record_path(version, commit))
        else:
            verify(tools, files, version, entries, scratch)
            save_record(version, commit, hashes)
        add_to(outdir, files)
        upload(tools, index, files, version)
    say('released %s %s to %s.  Push the tag: git push origin v%s'
        % (PROJECT, version, repository, version))


def upload(tools, index, files, version, attestations=False):
    """Upload what the index lacks of FILES, then check what it serves and install it back."""
    hashes = {Path(f).name: sha256(f) for f in files}
    present = listing(index['simple'], version, index.get('auth'))
    wanted = missing(present, hashes, version, index['simple'])
    for name in sorted(present):
        say('on the index already, with the same sha256: %s (not uploaded again)' % name)
    if wanted:
        sending = [f for f in files if Path(f).name in wanted]
        if attestations:
            signed = tempfile.mkdtemp(prefix='signed-', dir=str(Path(files[0]).parent))
            sending = [shutil.copy2(f, signed) for f in sending]
            plumbing.run([tools_venv('attest', ATTEST_PINS), '-m', 'pypi_attestations', 'sign']
                         + sending)
        say('uploading to %s: %s' % (index['url'], ', '.join(wanted)))
        twine_upload(tools, index['args'], sending, attestations)
    if listing(index['simple'], version, index.get('auth')) != hashes:
        raise Error('%s does not list exactly the files verified' % index['simple'])
    say("the index lists exactly the files verified, with their sha256")
    if is_local(index['url']):
        install_everywhere(index['simple'], version, sdist_page(files[0]),
                           interpreters(['python3']), index.get('auth'))


def ci_verify(version, directory, pythons):
    tools = tools_venv('release', release_pins())
    with tempfile.TemporaryDirectory(prefix='enum-backport-verify-') as scratch:
        verify(tools, files_in(directory, version), version, interpreters(pythons), scratch)


def ci_upload(version, repository, directory, attestations):
    check_tagged(ROOT, version)
    tools = tools_venv('release', release_pins())
    index = target(tools, repository, credentials=True)
    with tempfile.TemporaryDirectory(prefix='enum-backport-upload-') as scratch:
        files = [shutil.copy2(f, scratch) for f in files_in(directory, version)]
        upload(tools, index, files, version, attestations)


# The rehearsal -----------------------------------------------------------------

class StallSecondUpload:
    """A relay to the index on 127.0.0.1 that passes the first upload and holds the second."""

    def __init__(self, port):
        self.listener = socket.create_server(('127.0.0.1', 0))
        self.url = 'http://127.0.0.1:%d/' % self.listener.getsockname()[1]
        self.port, self.posts, self.stalled = port, 0, threading.Event()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client = self.listener.accept()[0]
            upstream = socket.create_connection(('127.0.0.1', self.port))
            threading.Thread(target=self.copy, args=(upstream, client), daemon=True).start()
            threading.Thread(target=self.copy, args=(client, upstream, True), daemon=True).start()

    def copy(self, source, sink, uploads=False):
        try:
            while True:
                data = source.recv(65536)
                if uploads and b'POST / HTTP/1.1' in data:
                    self.posts += 1
                    if self.posts == 2:  # never sent on: twine waits, mid-upload, and the
                        self.stalled.set()  # index (one connection at a time) is let go
                        return sink.shutdown(socket.SHUT_RDWR)
                if not data:
                    return None if self.stalled.is_set() else sink.shutdown(socket.SHUT_RDWR)
                sink.sendall(data)
        except OSError:
            pass


def run_release(tree, args, env=None, show=False, stop=None):
    """tools/release.py ARGS in the copy TREE: (exit status, output, the processes below it
    when it was sent SIGTERM, once the event STOP was set)."""
    log, below = tree.parent / 'release.log', []
    with open(str(log), 'w') as out:
        child = plumbing.popen([sys.executable, str(tree / 'tools' / 'release.py')] + args,
                               cwd=str(tree), env=dict(os.environ, ENUM_BACKPORT_RELEASES=str(
                                   tree.parent / 'releases'), **(env or {})),
                               stdout=out, stderr=subprocess.STDOUT)
    while stop is not None and not stop.wait(1):
        if child.poll() is not None:
            raise Error('the release ended (exit %d) before its second upload: %s'
                        % (child.returncode, read(log)[-2000:]))
    if stop is not None:
        below = psutil.Process(child.pid).children(recursive=True)
        child.send_signal(signal.SIGTERM)
    child.wait()
    out = read(log)
    if show:
        print(''.join('    | ' + line for line in out.splitlines(True)), end='', flush=True)
    return child.returncode, out, below


def expect_refused(tree, args, words, env=None):
    started = time.monotonic()
    code, out, _ = run_release(tree, args, env)
    last = (out.strip().splitlines() or [''])[-1]
    if code != 1 or words not in last or 'Traceback' in out:
        raise Error('release.py %s: exit %d, not a one-line refusal naming %r: %s'
                    % (' '.join(args), code, words, out[-2000:]))
    say('  refused in one line (exit 1, %.1f s): %s' % (time.monotonic() - started, last))
    return out


def snapshot(directory):
    return {p.name: sha256(p) for p in sorted(Path(directory).iterdir()) if p.is_file()}


def rehearse():
    with tempfile.TemporaryDirectory(prefix='enum-backport-rehearsal-') as scratch:
        scratch, tree = Path(scratch), Path(scratch) / 'tree'
        copy_tree(ROOT, tree, untracked=True)
        who = ['-c', 'user.name=rehearsal', '-c', 'user.email=rehearsal@localhost']
        for args in (['init', '-q'], ['add', '-A'], who + ['commit', '-qm', 'the work tree']):
            git(tree, *args)
        version, date, _ = newest_entry(read(tree / CHANGELOG))
        checks = []

        def check(text):
            checks.append(text)
            say('%d. %s' % (len(checks), text))

        say('rehearsing %s %s on a copy of the work tree, %s' % (PROJECT, version, tree))
        with Server(scratch) as server:
            ours = dict(TWINE_USERNAME=server.user, TWINE_PASSWORD=server.password)
            local, simple = ['-r', server.url], server.url + 'simple/'  # into dist/, as documented
            say('pypiserver on %s, its files in %s' % (server.url, server.packages))
            if date is None:
                check('the release refused while the changelog says unreleased')
                expect_refused(tree, [version] + local, 'unreleased', ours)
            user = scratch / 'chapters'
            user.mkdir()
            (user / 'chapter1.txt').write_text('a file of my own\n')
            (user / names(version)[0]).write_text('not a release: a file of my own\n')
            before = snapshot(user)
            check('--outdir over files of a user (%s) refused' % ', '.join(before))
            expect_refused(tree, [version, '--outdir', str(user)], 'did not make it')
            if snapshot(user) != before or uncommitted(tree):
                raise Error('the refused run changed %s or the tree' % user)
            say('  nothing deleted or changed, there or in the tree')
            check('prepared into dist/, beside a dist/notes.txt of the user')
            (tree / 'dist').mkdir()
            (tree / 'dist' / 'notes.txt').write_text('notes of my own\n')
            code, _, _ = run_release(tree, [version], show=True)
            if code or sorted(snapshot(tree / 'dist')) != sorted(['notes.txt'] + names(version)):
                raise Error('preparing %s failed, or dist/ holds other files' % version)
            say('  dist/ holds notes.txt, untouched, and the two files added')
            git(tree, *who + ['commit', '-qam', 'enum-backport %s' % version])
            git(tree, *who + ['tag', '-a', 'v' + version, '-m', 'enum-backport ' + version])
            check('a public index refused while pyproject.toml has no Project-URLs')
            expect_refused(tree, [version, '-r', 'pypi'], 'Project-URLs')
            check('an index that does not answer')
            expect_refused(tree, [version, '-r', 'http://127.0.0.1:%d/' % free_port()],
                           'does not answer', ours)
            check('the release, killed by SIGTERM in the middle of its upload')
            relay = StallSecondUpload(server.port)
            code, _, below = run_release(tree, [version, '-r', relay.url], ours, show=True,
                                         stop=relay.stalled)
            time.sleep(1)
            alive = [p.pid for p in below if p.is_running() and p.status() != 'zombie']
            there = listing(simple, version)
            if code != 128 + signal.SIGTERM or alive or len(there) != 1:
                raise Error('killed mid-upload: exit %s, still running %s, the index lists %s'
                            % (code, alive, sorted(there)))
            say('  exit %d, nothing of it left running; the index lists %s alone'
                % (code, ', '.join(there)))
            check('the rerun with a wrong password: refused by the index')
            expect_refused(tree, [version] + local, 'refused the credentials',
                           dict(ours, TWINE_PASSWORD='wrong'))
            check('the rerun: what is there skipped, the rest uploaded, then the checks')
            code, said, _ = run_release(tree, [version] + local, ours, show=True)
            dist = snapshot(tree / 'dist')
            if code or 'uploaded: ' not in said or dist.pop('notes.txt', None) is None or (
                    listing(simple, version) != dist):
                raise Error('the rerun did not complete the release (exit %d)' % code)
            check('once more: nothing uploaded, the checks again')
            code, said, _ = run_release(tree, [version] + local, ours)
            if code or 'uploaded: ' in said or said.count('on the index already') != 2:
                raise Error('the rerun of a complete release did more than check (exit %d)' % code)
            say('  %s' % said.strip().splitlines()[-1])
            check('%s on the index, the tag moved to another commit: refused before building'
                  % version)
            with open(str(tree / 'backport' / 'README.rst'), 'a') as page:
                page.write('\n')
            git(tree, *who + ['commit', '-qam', 'a change after the release'])
            git(tree, *who + ['tag', '-f', '-a', 'v' + version, '-m', 'moved'])
            if 'built' in expect_refused(tree, [version] + local, 'did not build', ours):
                raise Error('the refusal came after a build')
        with socket.socket() as probe:
            if probe.connect_ex(('127.0.0.1', server.port)) == 0:
                raise Error('something still answers on port %d' % server.port)
        say('pypiserver stopped: nothing answers on port %d' % server.port)
    say('rehearsal passed: all %d checks' % len(checks))


def work(argv):
    args = parse(argv)
    if args.rehearse:
        return rehearse()
    if args.verify:
        return ci_verify(args.version, args.verify, args.python)
    if args.upload:
        return ci_upload(args.version, args.repository, args.upload, args.attestations)
    if args.repository:
        return release(args.version, args.repository, args.outdir, args.python, args.stop_after)
    today = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')
    return prepare(args.version, args.date or today, bool(args.date), args.outdir)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('version', nargs='?', help='the version to release (X.Y.Z)')
    parser.add_argument('-r', '--repository', help='the index, as twine names it (pypi, '
                        'testpypi, a ~/.pypirc section), or the URL of one on this machine')
    parser.add_argument('--date', help="the changelog's date when preparing (default: today, UTC)")
    parser.add_argument('--outdir', default=str(ROOT / 'dist'),
                        help='where the sdist and wheel are added (default: dist/)')
    parser.add_argument('--python', action='append', help='install on this interpreter '
                        "(repeatable; default: tox.ini's [stdlib] envs)")
    parser.add_argument('--stop-after', choices=['checked'],
                        help='CI: stop once built twice and checked')
    parser.add_argument('--verify', metavar='DIR', help="CI: install DIR's files from a "
                        'throwaway index on every --python')
    parser.add_argument('--upload', metavar='DIR', help="CI: upload DIR's files (what the "
                        'index lacks), then check what it lists')
    parser.add_argument('--attestations', action='store_true',
                        help='with --upload: sign with pypi-attestations and upload those too')
    parser.add_argument('--rehearse', action='store_true',
                        help='the whole release against a throwaway pypiserver on 127.0.0.1')
    args = parser.parse_args(argv)
    if args.rehearse != (args.version is None):
        raise UsageError('give a VERSION, or --rehearse alone')
    if args.version and not re.fullmatch(VERSION_PATTERN, args.version):
        raise UsageError('%r is not a version this project releases (X.Y.Z, X.Y.ZrcN, '
                         'X.Y.Z.postN; no leading zeros)' % args.version)
    if (args.upload or args.stop_after) and not args.repository:
        raise UsageError('--upload and --stop-after go with -r REPOSITORY')
    if args.date is not None:
        if args.repository or args.verify:
            raise UsageError("--date is for preparing; a release takes the changelog's")
        checked_date(args.date)
    return args


def main(argv=None):
    return plumbing.main(work, 'release', argv)


if __name__ == '__main__':
    sys.exit(main())
