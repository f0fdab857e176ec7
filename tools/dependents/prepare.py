"""Obtain what the suites need, kept under deps_dir() and reused (docs/testing.rst).

* ``sdists/``: each project's sdist (``pip download --no-binary``);
* ``wheels/<key>/``: enum_backport's wheel from this work tree, keyed by its files;
* ``venvs/<interpreter>/<project>-<version>-<key>/``: a venv per project and
  interpreter, keyed by the interpreter's exact build, the pins and the
  start-up hook (hook.py, as a ``.pth``); the pins installed ``--no-deps``,
  then ``pip check``;
* ``pip/``: pip's cache, shared by this machine's interpreters and the root's.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from .. import plumbing
from ..plumbing import say
from .plan import ROOT, deps_dir


class SetupError(plumbing.Error):
    """Something a suite needs could not be made; the message says why."""


# The start-up hook each venv gets, as _enum_dependents_hook.py imported by
# a .pth file (see hook.py).
HOOK = (Path(__file__).resolve().parent / 'hook.py').read_text()
HOOK_NAME = '_enum_dependents_hook'
VENV_FORMAT = 2

# What goes into the backport's wheel (pyproject.toml's build targets).
WHEEL_INPUTS = ('backport', 'pyproject.toml', 'tests/ledger.json', 'README.rst', 'LICENSE')


def pip_env():
    return {'PIP_CACHE_DIR': str(deps_dir() / 'pip'), 'PIP_DISABLE_PIP_VERSION_CHECK': '1',
            'PIP_NO_INPUT': '1'}


def locked(name):
    """An exclusive lock under deps_dir()/locks, for concurrent runs of the tool."""
    return plumbing.locked(deps_dir() / 'locks' / (name + '.lock'))


def _host_run(argv, what, cwd=None):
    env = dict(os.environ, **pip_env())
    done = plumbing.capture(argv, cwd=cwd, env=env)
    if done.returncode != 0:
        raise SetupError('%s failed (exit %d): %s' % (what, done.returncode,
                                                      tail(done.stdout)))
    return done.stdout


def tail(text, lines=6):
    """TEXT's last LINES lines, on one line (pip's index-location warnings left out)."""
    kept = [line.strip() for line in text.strip().splitlines()
            if not line.startswith('WARNING: Location')]
    return ' | '.join(kept[-lines:])


def sdist(name, version):
    """The path of `name`'s sdist at `version`, fetched from PyPI once."""
    folder = deps_dir() / 'sdists'
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / ('%s-%s.json' % (name.lower(), version))
    with locked('sdist-%s-%s' % (name.lower(), version)):
        if stamp.exists():
            found = folder / json.loads(stamp.read_text())['file']
            if found.exists():
                return found
        staging = Path(tempfile.mkdtemp(prefix='download-', dir=str(folder)))
        try:
            started = time.monotonic()
            # --no-binary for this project only: its build backend still
            # comes as a wheel (a backend built from source costs minutes).
            _host_run([sys.executable, '-m', 'pip', 'download', '-q', '--no-deps',
                       '--no-binary', name, '-d', str(staging), '%s==%s' % (name, version)],
                      'pip download of the %s %s sdist' % (name, version))
            files = [p for p in staging.iterdir() if p.name.endswith(('.tar.gz', '.zip'))]
            if len(files) != 1:
                raise SetupError('pip download of %s %s left %s, not one sdist'
                                 % (name, version, [p.name for p in staging.iterdir()]))
            target = folder / files[0].name
            files[0].replace(target)
            digest = hashlib.sha256(target.read_bytes()).hexdigest()
            stamp.write_text(json.dumps({'file': target.name, 'sha256': digest}) + '\n')
            say('fetched %s (%.0f s)' % (target.name, time.monotonic() - started))
            return target
        finally:
            shutil.rmtree(str(staging), ignore_errors=True)


def unpack(archive, destination):
    """Unpack an sdist into `destination` (emptied first); return its top folder."""
    shutil.rmtree(str(destination), ignore_errors=True)
    destination.mkdir(parents=True)
    with tarfile.open(str(archive)) as tar:
        if hasattr(tarfile, 'data_filter'):
            tar.extractall(str(destination), filter='data')
        else:
            tar.extractall(str(destination))
    tops = list(destination.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise SetupError('%s does not unpack into one folder' % archive.name)
    return tops[0]


def claimed_pythons(archive):
    """The 'X.Y' Python versions an sdist's PKG-INFO classifiers list."""
    prefix = 'Classifier: Programming Language :: Python :: '
    with tarfile.open(str(archive)) as tar:
        for member in tar.getmembers():
            if member.name.count('/') == 1 and member.name.endswith('/PKG-INFO'):
                text = tar.extractfile(member).read().decode('utf-8', 'replace')
                return [line[len(prefix):].strip() for line in text.splitlines()
                        if line.startswith(prefix) and line[len(prefix):].strip().count('.') == 1]
    return []


def _wheel_key():
    digest = hashlib.sha256()
    for name in WHEEL_INPUTS:
        path = ROOT / name
        files = sorted(p for p in path.rglob('*') if p.is_file()) if path.is_dir() else [path]
        for item in files:
            if '__pycache__' in item.parts or item.suffix == '.pyc':
                continue
            digest.update(str(item.relative_to(ROOT)).encode() + b'\0')
            digest.update(item.read_bytes() + b'\0')
    return digest.hexdigest()[:16]


def backport_wheel():
    """enum_backport's wheel, built from this work tree unless built already."""
    key = _wheel_key()
    folder = deps_dir() / 'wheels' / key
    with locked('wheel'):
        found = sorted(folder.glob('enum_backport-*.whl'))
        if found:
            return found[0]
        started = time.monotonic()
        with plumbing.complete(folder) as staging:
            _host_run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps',
                       '-w', str(staging), str(ROOT)], 'pip wheel of the work tree')
            built = sorted(staging.glob('enum_backport-*.whl'))
            if len(built) != 1:
                raise SetupError('pip wheel left %s' % [p.name for p in staging.iterdir()])
        for old in folder.parent.iterdir():  # wheels of earlier work trees
            if old.is_dir() and old != folder:
                shutil.rmtree(str(old), ignore_errors=True)
        say('built %s from the work tree (%.0f s)' % (built[0].name, time.monotonic() - started))
        return folder / built[0].name


class Venv:
    def __init__(self, path, manifest):
        self.path, self.manifest = path, manifest
        self.python = str(path / 'bin' / 'python')


def interp_run(interp, argv, what, env=None, cwd=None):
    done = interp.run(argv, cwd=cwd, env=dict(pip_env(), **(env or {})),
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if done.returncode != 0:
        raise SetupError('%s failed (exit %d): %s' % (what, done.returncode, tail(done.stdout)))
    return done.stdout


# Run in the venv: what got installed, {name: version}.
_INVENTORY = (
    'import json\n'
    'from importlib import metadata\n'
    "print(json.dumps({d.metadata['Name']: d.version for d in metadata.distributions()}))\n")


def venv(interp, project, release):
    """The venv of `project`'s `release` on `interp`, made unless cached.
    Call with the job's lock held."""
    pins = list(release['pins'])
    key = hashlib.sha256(json.dumps(
        [VENV_FORMAT, interp.python, interp.sys_version, pins]).encode()).hexdigest()[:12]
    base = deps_dir() / 'venvs' / interp.name
    path = base / ('%s-%s-%s' % (project['name'], release['version'], key))
    done = path / 'enum-dependents.json'
    if done.exists():
        return Venv(path, json.loads(done.read_text()))
    base.mkdir(parents=True, exist_ok=True)
    for old in base.glob('%s-*' % project['name']):
        shutil.rmtree(str(old), ignore_errors=True)
    started = time.monotonic()
    what = '%s %s' % (project['name'], release['version'])
    interp_run(interp, [interp.python, '-m', 'venv', str(path)],
               'making a venv with %s' % interp.python)
    python = str(path / 'bin' / 'python')
    requirements = path / 'pins.txt'
    requirements.write_text('\n'.join(pins) + '\n')
    # --no-compile: the suites compile what they import, once, into the venv.
    interp_run(interp, [python, '-m', 'pip', 'install', '-q', '--no-deps', '--no-compile',
                        '-r', str(requirements)], 'installing the pins of ' + what)
    interp_run(interp, [python, '-m', 'pip', 'check'], 'pip check of the pins of ' + what)
    purelib = interp_run(
        interp, [python, '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
        'finding site-packages').strip().splitlines()[-1]
    installed = json.loads(interp_run(
        interp, [python, '-c', _INVENTORY], 'listing the venv').strip().splitlines()[-1])
    manifest = dict(installed=installed, key=key, interpreter=interp.sys_version, pins=pins,
                    site_packages=purelib,
                    seconds=round(time.monotonic() - started, 1))
    done.write_text(json.dumps(manifest, indent=1) + '\n')
    say('[%s %s] made venv %s (%.0f s)' % (interp.name, project['name'], path.name,
                                           manifest['seconds']))
    return Venv(path, manifest)


def install_backport(interp, environment, wheel):
    """Put the start-up hook and `wheel` into the venv, unless they are
    there already."""
    site = Path(environment.manifest['site_packages'])
    hook = site / (HOOK_NAME + '.py')
    if not hook.exists() or hook.read_text() != HOOK:
        hook.write_text(HOOK)
    (site / (HOOK_NAME + '.pth')).write_text('import %s\n' % HOOK_NAME)
    state = environment.path / 'enum-backport-wheel.json'
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    try:
        if json.loads(state.read_text())['sha256'] == digest:
            return digest
    except (OSError, ValueError, KeyError):
        pass
    interp_run(interp, [environment.python, '-m', 'pip', 'install', '-q', '--no-deps',
                        '--force-reinstall', str(wheel)], 'installing %s' % wheel.name)
    state.write_text(json.dumps({'wheel': wheel.name, 'sha256': digest}) + '\n')
    return digest
