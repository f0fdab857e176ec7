#!/usr/bin/env python3
"""Release enum-backport to a package index, or rehearse that on this machine.

    python3 tools/release.py VERSION [--date YYYY-MM-DD]   # 1. prepare
    python3 tools/release.py VERSION --index URL           # 2. upload, install
    python3 tools/release.py --rehearse                    # both, on a throwaway index

1. Prepare: write VERSION into backport/enum_backport/__init__.py and date
   the changelog's newest entry, "VERSION (unreleased)", with today (UTC)
   or --date; then build once and check as step 2 does, into dist/.  The
   maintainer reads the diff, commits it and tags that commit vVERSION
   (docs/release.rst).
2. Upload: refuse, before building anything, while the changelog says
   "unreleased" (or names another version first), while the work tree is
   not the commit tagged vVERSION, and, while pyproject.toml names no
   Project-URLs, any index not on this machine.  Then build the sdist and
   wheel of that commit twice, with SOURCE_DATE_EPOCH at the changelog's
   date, and refuse unless both builds are byte-identical; check them
   (tools/release_check.py: twine check --strict, check-wheel-contents,
   the sdist's README, the page's examples with the wheel); upload them
   with twine, which takes the credentials as it always does
   (TWINE_USERNAME and TWINE_PASSWORD, a keyring, ~/.pypirc); then, on
   every interpreter tox.ini's [stdlib] envs names, install
   enum-backport==VERSION into a fresh venv from that index alone (no pip
   configuration, no cache) and run the page's examples and
   ``python -m enum_backport`` there.  An interpreter that cannot be
   reached fails the release, after the others have been tried.
3. Rehearse: steps 1 and 2 on a copy of this work tree (committed and
   tagged there, so the real changelog and version stay as they are),
   against a pypiserver started on 127.0.0.1 with a password file of a
   fresh random password, and stopped afterwards (also on SIGTERM).  Shown
   along the way: the refusals of an undated changelog and of a public
   index, a wrong password refused (403) with nothing uploaded, the upload,
   the files the index serves matching the build's hashes, a re-upload
   refused (400), and the installs from the index on every interpreter.

build, twine and check-wheel-contents are those tox.ini's [testenv:release]
pins, and pypiserver is pinned here; each goes into a venv under
``$ENUM_FROM_VALUE_CACHE/venvs`` (default ``~/.cache/enum-from-value``).
The Debian root's interpreters run through tools/debian_root.py, which
shares this machine's network, 127.0.0.1 included; the stock 3.13.5 builds
are those ENUM_BACKPORT_PY3135 and ENUM_BACKPORT_PY3135T name, as for tox.
Exits 0 when everything passed, 1 on a failure or a refusal (the last line
says which).
"""

if __name__ == '__main__' and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file: the package, in the tools' venv
    bootstrap.run('tools.release')

import argparse
import calendar
import concurrent.futures
import configparser
import datetime
import hashlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from . import debian_root, release_check
from .release_check import Failed

HERE = Path(__file__).resolve().parent

ROOT = HERE.parent
PROJECT = 'enum-backport'
INIT = 'backport/enum_backport/__init__.py'
CHANGELOG = 'backport/CHANGELOG.rst'
VERSION_PATTERN = r'\d+\.\d+\.\d+((a|b|rc)\d+|\.post\d+)?'
# An index on this machine: all a release may upload to while the metadata
# has no Project-URLs.
LOCAL_HOSTS = ('127.0.0.1', 'localhost', '::1')
SERVER_PINS = ['pypiserver==2.4.2', 'passlib==1.7.4']
# Never resolves (RFC 6761): the rehearsal's public index, to be refused.
PUBLIC_STAND_IN = 'https://upload.invalid/legacy/'
# Run inside each fresh venv, on the host or in the root, by INSTALL.
DESCRIBE = ("import platform, sys; print(platform.python_implementation(), "
            "platform.python_version(), *(['(PyPy %d.%d.%d)' % sys.pypy_version_info[:3]] "
            "if hasattr(sys, 'pypy_version_info') else []))")


class Refused(Exception):
    """The release would be wrong: nothing is uploaded."""


def say(message):
    print('release: ' + message, flush=True)


def cache_dir():
    return Path(os.environ.get('ENUM_FROM_VALUE_CACHE')
                or Path.home() / '.cache' / 'enum-from-value')


def read(path):
    with open(str(path), encoding='utf-8') as f:
        return f.read()


def write(path, text):
    with open(str(path), 'w', encoding='utf-8') as f:
        f.write(text)


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
        raise Refused('the newest entry of %s is for %s, not %s: head it "%s (unreleased)" '
                      'to release it' % (CHANGELOG, found, version, version))
    return date, index


def dated(changelog, version, date):
    """CHANGELOG with VERSION's entry dated DATE (as it was if already dated)."""
    when, index = entry_for(changelog, version)
    if when is not None:
        return changelog
    lines = changelog.splitlines(True)
    heading = '%s (%s)' % (version, date)
    lines[index:index + 2] = [heading + '\n', '-' * len(heading) + '\n']
    return ''.join(lines)


def release_date(changelog, version):
    """The date of VERSION's entry; refused while that says unreleased."""
    when, _ = entry_for(changelog, version)
    if when is None:
        raise Refused('%s says "%s (unreleased)": a release would ship that.  Date it with '
                      '`python3 tools/release.py %s`, commit and tag (docs/release.rst)'
                      % (CHANGELOG, version, version))
    return when


def source_version(init):
    match = re.search(r"^__version__ = '([^']*)'$", init, re.M)
    if match is None:
        raise Failed('%s has no line __version__ = \'...\'' % INIT)
    return match.group(1)


def with_version(init, version):
    source_version(init)
    return re.sub(r"^__version__ = '[^']*'$", "__version__ = '%s'" % version, init, flags=re.M)


def epoch(date):
    """SOURCE_DATE_EPOCH for a changelog date: its midnight, UTC."""
    return calendar.timegm(time.strptime(date, '%Y-%m-%d'))


# Where it may go ---------------------------------------------------------

def is_local(url):
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ('http', 'https') and parts.hostname in LOCAL_HOSTS


def declares_urls(pyproject):
    """Whether pyproject.toml's [project] has urls."""
    try:
        import tomllib
    except ImportError:  # before 3.11: the table or an inline urls = {...}
        return bool(re.search(r'^\[project\.urls\]|^urls\s*=', pyproject, re.M))
    return bool(tomllib.loads(pyproject).get('project', {}).get('urls'))


def wheel_urls(wheel):
    """The Project-URL lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith('.dist-info/METADATA'))
        metadata = archive.read(name).decode('utf-8')
    head = metadata.split('\n\n', 1)[0]
    return [line for line in head.splitlines() if line.startswith('Project-URL:')]


def check_index(index, has_urls):
    if not is_local(index) and not has_urls:
        raise Refused(
            '%s is not on this machine, and the metadata has no Project-URLs, so the '
            "index's page would link nowhere: a maintainer adds [project.urls] (Source, "
            'Changelog, Issues) to pyproject.toml once the project has a public home; until '
            'then only an index on 127.0.0.1 or localhost is accepted' % index)


def simple_url(index):
    """The simple index to install from, for the upload URL INDEX."""
    parts = urllib.parse.urlsplit(index)
    path = parts.path.rstrip('/')
    if path.endswith('/legacy'):  # PyPI's and TestPyPI's upload endpoint
        netloc = parts.netloc.replace('upload.pypi.org', 'pypi.org')
        path = path[:-len('legacy')] + 'simple/'
    else:  # pypiserver and most others serve both from one root
        netloc = parts.netloc
        path += '/simple/'
    return urllib.parse.urlunsplit((parts.scheme, netloc, path, '', ''))


# The tree ------------------------------------------------------------------

def git(tree, *args, check=True):
    done = subprocess.run(['git', '-C', str(tree)] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    if check and done.returncode:
        raise Failed('git %s: %s' % (' '.join(args), done.stdout.strip()))
    return done.stdout


def check_tree(tree, version):
    """The work tree is the commit tagged vVERSION, unchanged."""
    if git(tree, 'status', '--porcelain', '--untracked-files=no').strip():
        raise Refused('the work tree has uncommitted changes: commit the prepared release and '
                      'tag it v%s first' % version)
    tags = git(tree, 'tag', '--points-at', 'HEAD').split()
    if 'v' + version not in tags:
        raise Refused('HEAD is not tagged v%s: tag the commit that dates %s (docs/release.rst)'
                      % (version, version))


def refusals(tree, version, index):
    """Everything that refuses an upload before anything is built; the release's date."""
    date = release_date(read(tree / CHANGELOG), version)
    found = source_version(read(tree / INIT))
    if found != version:
        raise Refused('%s says %s, not %s' % (INIT, found, version))
    check_tree(tree, version)
    check_index(index, declares_urls(read(tree / 'pyproject.toml')))
    return date


def copy_tree(tree, dest):
    """Copy the files git knows of or would add (tracked, untracked not ignored)."""
    listed = git(tree, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
    for name in sorted(set(filter(None, listed.split('\0')))):
        source = Path(tree) / name
        if source.is_file():
            target = Path(dest) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(str(source), str(target))


def export(tree, dest):
    """The committed tree at HEAD, unpacked into DEST (what the tag names)."""
    Path(dest).mkdir(parents=True)
    archive = subprocess.Popen(['git', '-C', str(tree), 'archive', '--format=tar', 'HEAD'],
                               stdout=subprocess.PIPE)
    subprocess.run(['tar', '-x', '-C', str(dest)], stdin=archive.stdout, check=True)
    if archive.wait():
        raise Failed('git archive HEAD failed in %s' % tree)


# Tools ---------------------------------------------------------------------

def base_python():
    """An interpreter for the tools' venvs: pypiserver 2.4 needs 3.10 or later."""
    if sys.version_info >= (3, 10):
        return sys.executable
    probe = 'import sys; sys.exit(sys.version_info < (3, 10))'
    for name in ('python3.13', 'python3.12', 'python3.11', 'python3.10', 'python3'):
        if shutil.which(name) and subprocess.run([name, '-c', probe]).returncode == 0:
            return shutil.which(name)
    raise Failed('no Python 3.10 or later on PATH for the release tools (pypiserver 2.4)')


def venv_with(name, pins):
    """A venv in the cache with exactly PINS installed; its python."""
    venv = cache_dir() / 'venvs' / name
    python = venv / 'bin' / 'python'
    stamp = venv / 'enum-backport-pins.txt'
    wanted = '\n'.join(pins) + '\n'
    if not (python.exists() and stamp.exists() and read(stamp) == wanted):
        say('installing %s into %s' % (', '.join(pins), venv))
        release_check.run([base_python(), '-m', 'venv', '--clear', str(venv)])
        release_check.run([str(python), '-m', 'pip', 'install', '-q'] + pins)
        write(stamp, wanted)
    return str(python)


def release_pins():
    """tox.ini's [testenv:release] deps: build, twine, check-wheel-contents."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(ROOT / 'tox.ini'))
    return [line.strip() for line in config.get('testenv:release', 'deps').splitlines()
            if line.strip() and not line.strip().startswith('#')]


def build(python, tree, outdir, source_epoch):
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(source_epoch))
    release_check.run([python, '-m', 'build', '--outdir', str(outdir), str(tree)], env=env)
    built = sorted(p.name for p in Path(outdir).iterdir())
    sdists = [n for n in built if n.endswith('.tar.gz')]
    wheels = [n for n in built if n.endswith('.whl')]
    if len(sdists) != 1 or len(wheels) != 1 or len(built) != 2:
        raise Failed('expected one sdist and one wheel in %s, found %s' % (outdir, built))
    return [str(Path(outdir) / sdists[0]), str(Path(outdir) / wheels[0])]


def sha256(path):
    with open(str(path), 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def build_and_check(python, tree, outdir, date, scratch, twice=True):
    """Build (twice, and compare), check; the sdist and wheel (in OUTDIR)."""
    source_epoch = epoch(date)
    shutil.rmtree(str(outdir), ignore_errors=True)
    first = build(python, tree, outdir, source_epoch)
    if twice:
        second = build(python, tree, Path(scratch) / 'again', source_epoch)
        for one, other in zip(first, second):
            if sha256(one) != sha256(other):
                raise Failed('two builds of the same tree differ: %s' % os.path.basename(one))
    say('built %s(SOURCE_DATE_EPOCH=%d, %s):'
        % ('twice, byte-identical ' if twice else '', source_epoch, date))
    for path in first:
        print('  %s  %s' % (sha256(path), os.path.basename(path)), flush=True)
    sdist, wheel = first
    release_check.check(sdist, wheel, python=python, cwd=str(tree))
    with tempfile.TemporaryDirectory() as where:
        say("the page's examples, with the wheel on python3:")
        release_check.test_wheel(wheel, sdist, 'python3', where)
    return sdist, wheel


# Installs from the index ---------------------------------------------------

def interpreters():
    """(env, 'host' or 'root', path or None, why missing) for tox.ini's [stdlib] envs."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(ROOT / 'tox.ini'))
    found = []
    for item in config.get('stdlib', 'envs').split():
        env, _, spec = item.partition('=')
        if spec.startswith('root:'):
            path = debian_root.INTERPRETERS.get(spec[len('root:'):])
            found.append((env, 'root', path, None if path else 'unknown to tools/debian_root.py'))
        elif spec.startswith('$'):
            path = os.environ.get(spec[1:])
            why = None
            if not path:
                why = '%s is not set' % spec[1:]
            elif not os.access(path, os.X_OK):
                why = '%s names %s, which is not an executable' % (spec[1:], path)
            found.append((env, 'host', path or None, why))
        else:
            # A pyenv shim exists for every version; it runs only those
            # PYENV_VERSION names.
            probe = subprocess.run([spec, '-c', 'import sys; print(sys.executable)'],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True) if shutil.which(spec) else None
            if probe is None or probe.returncode:
                why = '%s is not on PATH' % spec if probe is None else '%s does not run: %s' % (
                    spec, (probe.stdout.strip().splitlines() or ['?'])[-1])
                found.append((env, 'host', None, why))
            else:
                found.append((env, 'host', probe.stdout.strip(), None))
    return found


INSTALL = r'''
set -u
python="$1" dir="$2" index="$3" version="$4" describe="$5"
"$python" -m venv "$dir/venv" > "$dir/venv.log" 2>&1 || { cat "$dir/venv.log"; exit 1; }
venv="$dir/venv/bin/python"
"$venv" -m pip install --disable-pip-version-check --no-cache-dir --index-url "$index" \
    "enum-backport==$version" > "$dir/pip.log" 2>&1 || { cat "$dir/pip.log"; exit 1; }
echo "index: $(sed -n 's/^Looking in indexes: //p' "$dir/pip.log")"
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


def install_one(entry, simple, version, page, get_root):
    """Install from SIMPLE with the interpreter ENTRY; (ok, lines)."""
    env_name, where, path, why = entry
    if why:
        return False, ['MISSING: ' + why]
    scratch = tempfile.mkdtemp(prefix='enum-backport-install-')
    try:
        write(Path(scratch) / 'README.rst', page)
        argv = ['sh', '-c', INSTALL, 'sh', path, scratch, simple, version, DESCRIBE]
        if where == 'root':
            root = get_root()
            if isinstance(root, Exception):
                return False, ['MISSING: no Debian root: %s' % root]
            done = debian_root.run(root, argv, binds=[scratch],
                                   env={'PIP_CONFIG_FILE': os.devnull},
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True)
        else:
            # From that index alone: no pip configuration, variable or file.
            env = {k: v for k, v in os.environ.items() if not k.startswith('PIP_')}
            env['PIP_CONFIG_FILE'] = os.devnull
            done = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, universal_newlines=True)
        lines = done.stdout.strip().splitlines()
        if done.returncode:
            return False, ['FAILED (exit %d):' % done.returncode] + lines[-30:]
        told = dict(line.split(': ', 1) for line in lines if ': ' in line)
        if told.get('version') != version:
            return False, ['FAILED: python -m enum_backport --version says %r, not %s'
                           % (told.get('version'), version)] + lines
        # pip names the index it looks in, unless that is PyPI's own.
        said_index = told.get('index') or 'https://pypi.org/simple/'
        if said_index != simple or not told.get('file', '').endswith('.whl'):
            return False, ['FAILED: pip did not say it fetched a wheel from %s' % simple] + lines
        if not told.get('page', '').isdigit():
            return False, ["FAILED: the page's examples did not report a count"] + lines
        return True, lines
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def install_everywhere(simple, version, page):
    """Install from SIMPLE on every interpreter; Failed unless all passed."""
    entries = interpreters()
    roots = []

    def get_root():
        if not roots:
            try:
                roots.append(debian_root.ensure())
            except debian_root.RootError as error:
                roots.append(error)
        return roots[0]

    say('installing %s==%s from %s alone into a fresh venv on each of %d interpreters'
        % (PROJECT, version, simple, len(entries)))
    if any(where == 'root' and not why for _, where, _, why in entries):
        get_root()  # once, before the threads
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda e: install_one(e, simple, version, page, get_root),
                                entries))
    bad = []
    for (env_name, _, _, _), (ok, lines) in zip(entries, results):
        told = dict(line.split(': ', 1) for line in lines if ': ' in line)
        if ok:
            print('  %-8s %-26s %s %s: %s examples of the page passed; %s' % (
                env_name, told['python'], PROJECT, told['version'], told['page'],
                told['report']), flush=True)
        else:
            bad.append(env_name)
            print('  %-8s %s' % (env_name, lines[0]), flush=True)
            for line in lines[1:]:
                print('           ' + line)
    if bad:
        raise Failed('installing from %s failed or could not run on %s'
                     % (simple, ', '.join(bad)))
    files = sorted({dict(line.split(': ', 1) for line in lines if ': ' in line)['file']
                    for _, lines in results})
    say('all %d installed %s from %s alone, as pip said'
        % (len(entries), ', '.join(files), simple))


# The two steps -------------------------------------------------------------

def prepare(version, date, outdir):
    init, changelog = ROOT / INIT, ROOT / CHANGELOG
    new_changelog = dated(read(changelog), version, date)
    new_init = with_version(read(init), version)
    write(changelog, new_changelog)
    write(init, new_init)
    date = release_date(read(changelog), version)
    say('%s says %s; %s heads its newest entry "%s (%s)"'
        % (INIT, version, CHANGELOG, version, date))
    python = venv_with('release', release_pins())
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / 'tree'
        copy_tree(ROOT, tree)
        # Once: the upload builds twice, and the same bytes as this.
        build_and_check(python, tree, Path(outdir).resolve(), date, scratch, twice=False)
    say('prepared %s in %s.  Read `git diff`, then commit and tag:' % (version, outdir))
    print('    git commit -am "enum-backport %s"\n    git tag -a v%s -m "enum-backport %s"\n'
          '    python3 tools/release.py %s --index URL' % (version, version, version, version))


def upload(version, index):
    date = refusals(ROOT, version, index)
    python = venv_with('release', release_pins())
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / 'tree'
        export(ROOT, tree)
        sdist, wheel = build_and_check(python, tree, Path(scratch) / 'dist', date, scratch)
        # What the index will show, from the built metadata itself.
        check_index(index, wheel_urls(wheel))
        say('uploading to %s' % index)
        out = release_check.run([python, '-m', 'twine', 'upload', '--non-interactive',
                                 '--disable-progress-bar', '--repository-url', index,
                                 sdist, wheel], env=dict(os.environ, NO_COLOR='1'))
        print(out.strip(), flush=True)
        install_everywhere(simple_url(index), version, sdist_page(sdist))
    say("released %s to %s.  Push the commit and its tag (git push --follow-tags origin), "
        "then check the index's page (docs/release.rst)" % (version, index))


def sdist_page(sdist):
    """The package page as the sdist carries it (its README.rst)."""
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        return archive.extractfile(top + '/README.rst').read().decode('utf-8')


# The rehearsal -------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def fetch(url):
    """(status, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode('utf-8', 'replace')
    except urllib.error.HTTPError as error:
        return error.code, ''


class Server:
    """pypiserver on 127.0.0.1, uploads behind a password; stopped by `stop`."""

    def __init__(self, scratch):
        self.python = venv_with('pypiserver', SERVER_PINS)
        self.user, self.password = 'rehearsal', secrets.token_urlsafe(18)
        self.htpasswd = Path(scratch) / 'htpasswd'
        subprocess.run([self.python, '-c',
                        'import sys; from passlib.apache import HtpasswdFile; '
                        'h = HtpasswdFile(sys.argv[1], new=True); '
                        'h.set_password(sys.argv[2], sys.stdin.read()); h.save()',
                        str(self.htpasswd), self.user], input=self.password,
                       universal_newlines=True, check=True)
        self.packages = Path(scratch) / 'packages'
        self.packages.mkdir()
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d/' % self.port
        self.log = Path(scratch) / 'pypiserver.log'
        self.process = None

    def start(self):
        with open(str(self.log), 'w') as log:
            self.process = subprocess.Popen(
                [str(Path(self.python).parent / 'pypi-server'), 'run', '-i', '127.0.0.1',
                 '-p', str(self.port), '-P', str(self.htpasswd), '-a', 'update',
                 '--disable-fallback', str(self.packages)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Failed('pypiserver exited %d: %s' % (self.process.returncode,
                                                           read(self.log)[-2000:]))
            try:
                if fetch(self.url + 'simple/')[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise Failed('pypiserver did not answer on %s within 60 s' % self.url)

    def stop(self):
        if self.process is None:
            return
        stop_group(self.process)
        try:
            socket.create_connection(('127.0.0.1', self.port), timeout=2).close()
        except OSError:
            say('pypiserver stopped (pid %d); nothing answers on port %d'
                % (self.process.pid, self.port))
        else:
            raise Failed('something still answers on port %d after pypiserver stopped'
                         % self.port)


def run_release(tree, args, credentials=None):
    """tools/release.py ARGS in the rehearsal's copy TREE; (exit code, output)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('TWINE_')}
    if credentials:
        env['TWINE_USERNAME'], env['TWINE_PASSWORD'] = credentials
    # In a process group of its own, so that a rehearsal cut short (SIGTERM,
    # Ctrl-C) takes the builds, pips and venvs that run started with it.
    child = subprocess.Popen([sys.executable, str(tree / 'tools' / 'release.py')] + args,
                             cwd=str(tree), env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True,
                             start_new_session=True)
    try:
        out = child.communicate()[0]
    except BaseException:
        stop_group(child)
        raise
    return child.returncode, out


def stop_group(process, grace=15):
    """SIGTERM to PROCESS's group, SIGKILL to what is left after GRACE seconds."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def expect_refused(tree, args, words, credentials=None):
    code, out = run_release(tree, args, credentials)
    last = (out.strip().splitlines() or [''])[-1]
    if code == 0 or not last.startswith('release REFUSED:') or words not in last:
        print(out)
        raise Failed('tools/release.py %s: expected a refusal naming %r, got exit %d'
                     % (' '.join(args), words, code))
    say('refused as it should be (exit %d): %s' % (code, last))


def twine_refused(python, server, files, password, status):
    env = {k: v for k, v in os.environ.items() if not k.startswith('TWINE_')}
    env.update(TWINE_USERNAME=server.user, TWINE_PASSWORD=password, NO_COLOR='1')
    done = subprocess.run([python, '-m', 'twine', 'upload', '--non-interactive',
                           '--disable-progress-bar', '--repository-url', server.url] + files,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    said = re.search(r'HTTPError: (\d+ [^\n]*?) from', done.stdout)
    if done.returncode == 0 or not said or not said.group(1).startswith(str(status)):
        print(done.stdout)
        raise Failed('twine upload: expected the index to answer %d, got exit %d'
                     % (status, done.returncode))
    return said.group(1).strip()


def index_files(server):
    """{file name: sha256} the index lists for the project."""
    status, body = fetch(server.url + 'simple/%s/' % PROJECT)
    if status == 404:
        return {}
    if status != 200:
        raise Failed('%ssimple/%s/ answered %d' % (server.url, PROJECT, status))
    return dict(re.findall(r'href="[^"]*/([^/"#]+)#sha256=([0-9a-f]{64})"', body))


def rehearse():
    tools = venv_with('release', release_pins())
    with tempfile.TemporaryDirectory(prefix='enum-backport-rehearsal-') as scratch:
        scratch = Path(scratch)
        tree = scratch / 'tree'
        copy_tree(ROOT, tree)
        identity = ['-c', 'user.name=release rehearsal', '-c', 'user.email=rehearsal@localhost']
        git(tree, 'init', '-q')
        git(tree, 'add', '-A')
        git(tree, *identity + ['commit', '-q', '-m', 'the work tree, as the rehearsal found it'])
        version, date, _ = newest_entry(read(tree / CHANGELOG))
        say('rehearsing the release of %s %s on a copy of the work tree (%s)'
            % (PROJECT, version, tree))
        server = Server(scratch)
        try:
            server.start()
            say('pypiserver (%s) on %s, uploads behind user %r and a random password'
                % (SERVER_PINS[0], server.url, server.user))
            if date is None:
                expect_refused(tree, [version, '--index', server.url], 'unreleased')
            else:
                say('the changelog already dates %s: no undated entry to refuse' % version)
            dist = scratch / 'dist'
            code, out = run_release(tree, [version, '--outdir', str(dist)])
            print(out.rstrip(), flush=True)
            if code:
                raise Failed('preparing %s failed' % version)
            git(tree, *identity + ['commit', '-q', '-am', 'enum-backport %s' % version])
            git(tree, *identity + ['tag', '-a', 'v' + version, '-m', 'enum-backport ' + version])
            say('committed and tagged v%s in the copy' % version)
            files = [str(p) for p in sorted(dist.iterdir())]
            if declares_urls(read(tree / 'pyproject.toml')):
                say('pyproject.toml declares Project-URLs: a public index is no longer refused')
            else:
                expect_refused(tree, [version, '--index', PUBLIC_STAND_IN], 'Project-URLs')
            said = twine_refused(tools, server, files, 'not-' + server.password, 403)
            if index_files(server):
                raise Failed('the index lists files after an upload it refused')
            say('a wrong password: the index answered %s, and lists nothing' % said)
            code, out = run_release(tree, [version, '--index', server.url],
                                    (server.user, server.password))
            print(out.rstrip(), flush=True)
            if code:
                raise Failed('the upload to %s failed' % server.url)
            served = index_files(server)
            built = {os.path.basename(p): sha256(p) for p in files}
            if served != built:
                raise Failed('the index serves %s, the build made %s' % (served, built))
            say("the index's simple page lists exactly the files prepared, with their sha256")
            said = twine_refused(tools, server, files, server.password, 400)
            say('the same files again: the index answered %s' % said)
        finally:
            server.stop()
    say('rehearsal passed: %s %s uploaded, refused when it should be, installed everywhere'
        % (PROJECT, version))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('version', nargs='?', help='the version to release (X.Y.Z)')
    parser.add_argument('--index', help="the index's upload URL (e.g. PyPI's "
                        'https://upload.pypi.org/legacy/); without it, prepare the release')
    parser.add_argument('--date', help="the changelog's date when preparing (default: today, UTC)")
    parser.add_argument('--outdir', default=str(ROOT / 'dist'),
                        help='where preparing leaves the checked files (default: dist/)')
    parser.add_argument('--rehearse', action='store_true',
                        help='the whole release against a throwaway pypiserver on 127.0.0.1')
    args = parser.parse_args(argv)
    if args.rehearse:
        if args.version or args.index or args.date:
            parser.error('--rehearse takes no version, --index or --date')
    elif not args.version:
        parser.error('give a VERSION (or --rehearse)')
    elif not re.fullmatch(VERSION_PATTERN, args.version):
        parser.error('%r is not a version this project releases (X.Y.Z, X.Y.ZrcN, ...)'
                     % args.version)
    elif args.index and args.date:
        parser.error('--date is for preparing; the upload takes the changelog\'s')
    if args.date and not re.fullmatch(r'\d{4}-\d{2}-\d{2}', args.date):
        parser.error('--date %r is not YYYY-MM-DD' % args.date)

    os.environ.setdefault('NO_COLOR', '1')  # twine's output, read in a log
    # A SIGTERM unwinds like an error, so that the server is stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        if args.rehearse:
            rehearse()
        elif args.index:
            upload(args.version, args.index)
        else:
            today = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')
            prepare(args.version, args.date or today, args.outdir)
    except Refused as error:
        print('release REFUSED: %s' % error, flush=True)
        return 1
    except Failed as error:
        print('release FAILED: %s' % error, flush=True)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
