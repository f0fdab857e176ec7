#!/usr/bin/env python3
"""A Debian unstable root: CPython 3.14, 3.15 (and its debug build) and PyPy 3.11.

Debian unstable's interpreters are linked against a newer libc than this
machine's, so they run in a root of their own, made once with debootstrap
and kept in the cache (``$ENUM_FROM_VALUE_CACHE/roots/``).  Everything that
needs those interpreters -- the backport's tox environments, the dependents'
suites, the CPython change carried to 3.14 and 3.15 -- enters the root
through `command()`, which runs a program there in a mount namespace of its
own: /proc, /dev and the directories it is given are bind-mounted for that
program alone, and vanish with it, so concurrent users never see each
other's mounts and nothing is left mounted when a run is killed.  A file can
be bound over another the same way (`command(..., binds={merged: stdlib
file})`), which is how a patched enum.py replaces the root's own for one
run without touching the shared root.

    python3 tools/debian_root.py ensure        # make the root unless cached
    python3 tools/debian_root.py versions      # exact versions it serves
    python3 tools/debian_root.py run -- python3.15 -VV

Unstable moves: the root is reused while it is younger than
`MAX_AGE_DAYS`, then made afresh, and whatever patch release it then serves
is what runs (`versions()` says which).
"""

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import host_apt  # beside this file: every apt-get of the tools, one at a time

SUITE = 'sid'
PACKAGES = (
    'python3.14', 'python3.15', 'python3.14-venv', 'python3.15-venv',
    'libpython3.14-testsuite', 'libpython3.15-testsuite', 'python3.15-dbg',
    'pypy3', 'pypy3-venv', 'pypy3-lib-testsuite',
    # tests/ run whole in the root too; the CPython-change tool's tests use
    # git and unpack a .tar.xz.
    'git', 'xz-utils',
    # click's echo_via_pager tests page through less, as a user's machine has.
    'less',
)
# The interpreters inside, by the name tox and the tools use for them.
INTERPRETERS = {
    'python3.14': '/usr/bin/python3.14',
    'python3.15': '/usr/bin/python3.15',
    'python3.15-dbg': '/usr/bin/python3.15-dbg',
    'pypy3.11': '/usr/bin/pypy3',
}
MAX_AGE_DAYS = 7
# Nothing runs apt inside the root: debootstrap installs PACKAGES and that is
# all.  This matters because unstable's Release file on the mirror can carry
# an expired Valid-Until (seen on 2026-12-03: dated 2026-10-30, valid until
# 2026-11-06), which apt-get inside would refuse while debootstrap, which does
# not read that field, accepts it.
DEFAULT_MIRROR = 'http://deb.debian.org/debian'
HOST_SOURCES = ('/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list')
# What a program in the root sees of its environment: the host's own
# (PIP_FIND_LINKS and the like name host paths) is left outside.
PASSED_ENV = ('CI', 'TERM', 'PYTHONHASHSEED', 'COLUMNS')


class RootError(Exception):
    """The root cannot be made or entered; the message says why."""


def cache_dir():
    return Path(os.environ.get('ENUM_FROM_VALUE_CACHE')
                or Path.home() / '.cache' / 'enum-from-value')


def say(message):
    print('debian_root: ' + message, flush=True)


def root_dir(cache=None):
    """Where the root for PACKAGES lives (it need not exist yet)."""
    key = hashlib.sha256(json.dumps([SUITE, sorted(PACKAGES)]).encode()).hexdigest()[:12]
    return Path(cache or cache_dir()) / 'roots' / ('%s-%s' % (SUITE, key))


def host_mirror():
    """The Debian mirror this machine's apt sources name."""
    for name in HOST_SOURCES:
        try:
            text = Path(name).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            if words[:1] == ['URIs:'] and len(words) > 1 and 'security' not in words[1]:
                return words[1]
            if words[:1] == ['deb'] and len(words) > 2:
                uri = next((w for w in words[1:] if '://' in w), None)
                if uri and 'security' not in uri:
                    return uri
    return DEFAULT_MIRROR


@contextlib.contextmanager
def _locked(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _fresh(root):
    stamp = root / '.enum-from-value-root'
    try:
        made = json.loads(stamp.read_text())['made']
    except (OSError, ValueError, KeyError):
        return False
    return time.time() - made < MAX_AGE_DAYS * 86400


def ensure(cache=None, refresh=False):
    """Return the root, making it with debootstrap unless a fresh one is cached."""
    root = root_dir(cache)
    with _locked(root.parent / ('.%s.lock' % root.name)):
        if _fresh(root) and not refresh:
            return root
        if os.geteuid() != 0:
            raise RootError('making the Debian root needs root (debootstrap, chroot)')
        if shutil.which('debootstrap') is None:
            _apt_install('debootstrap')
        staging = root.with_name(root.name + '.new')
        shutil.rmtree(str(staging), ignore_errors=True)
        mirror = host_mirror()
        say('making %s with debootstrap from %s (a minute and a half alone, '
            'longer beside a build)' % (root, mirror))
        started = time.monotonic()
        log = root.parent / (root.name + '.debootstrap.log')
        with open(str(log), 'w') as out:
            code = subprocess.call(
                ['debootstrap', '--variant=minbase', '--include=' + ','.join(PACKAGES),
                 SUITE, str(staging), mirror], stdout=out, stderr=subprocess.STDOUT)
        if code != 0:
            tail = log.read_text().splitlines()[-15:]
            raise RootError('debootstrap failed (exit %d); the end of %s:\n%s'
                            % (code, log, '\n'.join(tail)))
        # pip inside needs this machine's CA bundle and resolver.
        for name in ('etc/ssl/certs/ca-certificates.crt', 'etc/resolv.conf'):
            host = Path('/') / name
            if host.is_file():
                target = staging / name
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.is_symlink():
                    target.unlink()
                shutil.copyfile(str(host), str(target))
        (staging / '.enum-from-value-root').write_text(
            json.dumps({'made': time.time(), 'mirror': mirror, 'packages': PACKAGES}) + '\n')
        if root.exists():
            shutil.rmtree(str(root))
        staging.rename(root)
        say('made %s in %.0f s' % (root, time.monotonic() - started))
    return root


def _apt_install(package):
    say('installing %s with apt-get' % package)
    try:
        # One apt-get at a time: the fetch stage may be running its own.
        host_apt.apt_get(['update', '-qq'])
        host_apt.apt_get(['install', '-y', '-qq', '--no-install-recommends', package])
    except host_apt.AptError as error:
        raise RootError('could not install %s: %s' % (package, error))


def command(root, argv, binds=(), cwd=None, env=None):
    """The command line that runs `argv` inside `root`.

    `binds` maps host paths to paths inside the root (a directory or a file;
    a path given alone is bound at the same place); `cwd` is a path inside
    the root; `env` adds to the small environment the program gets.
    """
    pairs = []
    for item in (binds.items() if isinstance(binds, dict) else binds):
        source, target = (item, item) if isinstance(item, (str, Path)) else item
        pairs += ['--bind', '%s:%s' % (Path(source).resolve(), target)]
    extra = []
    for key, value in (env or {}).items():
        extra += ['--env', '%s=%s' % (key, value)]
    return (['unshare', '--mount', '--propagation', 'private', '--',
             sys.executable, str(Path(__file__).resolve()), '_enter']
            + pairs + extra + (['--cwd', str(cwd)] if cwd else [])
            + [str(root), '--'] + list(argv))


def run(root, argv, binds=(), cwd=None, env=None, **kwargs):
    """subprocess.run of `argv` inside `root` (see `command`)."""
    return subprocess.run(command(root, argv, binds, cwd, env), **kwargs)


def _enter(args):
    """In a fresh mount namespace: mount, chroot and exec (see `command`)."""
    root = Path(args.root)

    def mount(source, target, *flags):
        subprocess.run(['mount'] + list(flags) + [str(source), str(target)], check=True)

    mount('proc', root / 'proc', '-t', 'proc')
    mount('/dev', root / 'dev', '--rbind')
    for pair in args.bind:
        source, _, target = pair.partition(':')
        inside = root / target.lstrip('/')
        if Path(source).is_dir():
            inside.mkdir(parents=True, exist_ok=True)
        elif not inside.exists():
            inside.parent.mkdir(parents=True, exist_ok=True)
            inside.touch()
        mount(source, inside, '--bind')
    environ = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
               'HOME': '/root', 'LANG': 'C.UTF-8', 'TMPDIR': '/tmp'}
    environ.update({k: os.environ[k] for k in PASSED_ENV if k in os.environ})
    environ.update(item.partition('=')[::2] for item in args.env)
    os.chroot(str(root))
    os.chdir(args.cwd or '/')
    os.execvpe(args.argv[0], args.argv, environ)


def versions(root):
    """{name: the exact version line} for each interpreter in the root."""
    found = {}
    for name, path in INTERPRETERS.items():
        if name == 'python3.15-dbg':
            code = "import sys; print(sys.version.split()[0] + ' (debug build)')"
        elif name.startswith('pypy'):
            code = ("import sys, platform; print('%s (PyPy %s)' % (platform.python_version(), "
                    "'.'.join(map(str, sys.pypy_version_info[:3]))))")
        else:
            code = 'import platform; print(platform.python_version())'
        done = run(root, [path, '-c', code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   universal_newlines=True)
        found[name] = done.stdout.strip().splitlines()[-1] if done.returncode == 0 else None
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    make = sub.add_parser('ensure', help='make the root unless a fresh one is cached')
    make.add_argument('--refresh', action='store_true', help='make it afresh')
    sub.add_parser('versions', help='the interpreters the root serves, exactly')
    running = sub.add_parser('run', help='run a command inside the root')
    running.add_argument('--bind', action='append', default=[], metavar='HOST[:INSIDE]')
    running.add_argument('--cwd')
    running.add_argument('argv', nargs=argparse.REMAINDER)
    enter = sub.add_parser('_enter')
    enter.add_argument('root')
    enter.add_argument('--bind', action='append', default=[])
    enter.add_argument('--env', action='append', default=[])
    enter.add_argument('--cwd')
    enter.add_argument('argv', nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command == '_enter':
        args.argv = args.argv[1:] if args.argv[:1] == ['--'] else args.argv
        return _enter(args)
    try:
        if args.command == 'ensure':
            print(ensure(refresh=args.refresh))
        elif args.command == 'versions':
            for name, version in versions(ensure()).items():
                print('%-15s %s' % (name, version or 'MISSING'))
        else:
            argv = args.argv[1:] if args.argv[:1] == ['--'] else args.argv
            binds = [tuple(b.split(':', 1)) if ':' in b else b for b in args.bind]
            return run(ensure(), argv, binds, args.cwd).returncode
    except RootError as error:
        print('debian_root: ' + str(error), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
