#!/usr/bin/env python3
"""A Debian unstable root: CPython 3.14, 3.15 (and its debug build) and PyPy 3.11.

Debian unstable's interpreters need a newer libc than this machine's, so
they run in a root of their own, made with debootstrap, kept in the cache
(``$ENUM_FROM_VALUE_CACHE/roots/``) and made afresh after `MAX_AGE_DAYS`.
`command()` runs a program there in a mount namespace of its own: /proc,
/dev and the paths it is given (a patched enum.py over the root's own, say)
are bound for that program alone and vanish with it, so concurrent users
never see each other's mounts and a killed run leaves nothing mounted.

    python3 tools/debian_root.py ensure [--mirror URL]   # make the root unless cached
    python3 tools/debian_root.py versions      # exact versions it serves
    python3 tools/debian_root.py run -- python3.15 -VV
"""

if __name__ == '__main__' and not __package__:
    import bootstrap  # tools/bootstrap.py, beside this file: the package, in the tools' venv
    bootstrap.run('tools.debian_root')

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import host_apt, plumbing  # every apt-get of the tools goes through host_apt
from .plumbing import say

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
# The mirror: --mirror or this variable, else the one the host's apt
# sources name (HOST_SOURCES), else debootstrap's own default.  No mirror
# is named here: which one a machine may reach is its owner's choice.
MIRROR_ENV = 'ENUM_FROM_VALUE_MIRROR'
HOST_SOURCES = ('/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list')
# What a program in the root sees of its environment: the host's own
# (PIP_FIND_LINKS and the like name host paths) is left outside.
PASSED_ENV = ('CI', 'TERM', 'PYTHONHASHSEED', 'COLUMNS')
# Where the mounts this process sees are listed: a debootstrap killed with
# SIGKILL leaves its target's /proc (and more) mounted in the host's namespace.
MOUNTINFO = '/proc/self/mountinfo'
# At most this many lines of debootstrap's logs go into an error.
WHY_LINES = 20
# What making the root takes, said before it starts (279 s and 314 s were
# seen beside other work; a minute and a half on an idle machine).
MAKING_TAKES = 'about 5 minutes'


class RootError(plumbing.Error):
    """The root cannot be made or entered; the message says why."""

    code = 2


def root_dir(cache=None):
    """Where the root for PACKAGES lives (it need not exist yet)."""
    key = hashlib.sha256(json.dumps([SUITE, sorted(PACKAGES)]).encode()).hexdigest()[:12]
    if cache is None:
        try:
            cache = plumbing.cache_dir()
        except plumbing.Error as error:
            raise RootError(str(error))
    return Path(cache) / 'roots' / ('%s-%s' % (SUITE, key))


def host_mirror():
    """The Debian mirror this machine's apt sources name (None if they name none)."""
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
    return None


def mirror(explicit=None):
    """The mirror to make the root from: EXPLICIT (--mirror), $ENUM_FROM_VALUE_MIRROR,
    the host's; None leaves the choice to debootstrap."""
    return explicit or os.environ.get(MIRROR_ENV) or host_mirror()


def _locked(path):
    """The root's lock (plumbing.locked), yielding its descriptor, which debootstrap is given
    too: one that outlives a SIGKILL'd run holds it, and a rerun waits for it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        open(str(path), 'a').close()
    except OSError as error:
        raise RootError('cannot write %s for the root: %s; give a cache directory you can '
                        'write (ENUM_FROM_VALUE_CACHE)' % (path, error.strerror or error))
    return plumbing.locked(path, tell=say)


def _mounts_under(tree):
    """The mount points at or under TREE, deepest first."""
    tree = os.path.realpath(str(tree))
    try:
        with open(MOUNTINFO) as listing:
            lines = listing.read().splitlines()
    except OSError:
        return []
    points = []
    for line in lines:
        fields = line.split()
        if len(fields) > 4:
            # Blanks and the like are octal escapes there (\040).
            point = re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)), fields[4])
            if point == tree or point.startswith(tree + '/'):
                points.append(point)
    return sorted(points, key=len, reverse=True)


def _clear(tree):
    """Remove TREE, unmounting first whatever a killed debootstrap left mounted in it
    (nothing is deleted while anything is mounted there: a bound /dev is the host's)."""
    for _ in range(4):  # a point may hold mounts stacked on each other
        points = _mounts_under(tree)
        if not points:
            break
        say('unmounting %s, left mounted by an earlier run that was killed'
            % ', '.join(points))
        for point in points:
            subprocess.run(['umount', '--lazy', point], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    points = _mounts_under(tree)
    if points:
        raise RootError('%s is still mounted (left by an earlier run that was killed) and '
                        'umount --lazy did not detach it; unmount it and run again'
                        % ', '.join(points))
    try:
        shutil.rmtree(str(tree))
    except FileNotFoundError:
        pass
    except OSError as error:
        raise RootError('cannot remove %s (left by an earlier run): %s' % (tree, error))


def _shape(line):
    """LINE with its particulars (quoted paths, numbers) blanked: alike lines look the same."""
    return re.sub(r'\d+', '0', re.sub(r"'[^']*'|\"[^\"]*\"|\S*/\S*", '_', line))


def _collapsed(lines):
    """LINES with each run of alike lines told by its first and a count."""
    out, run = [], []
    for line in lines + [None]:
        if run and (line is None or _shape(line) != _shape(run[0])):
            out.append(run[0])
            if len(run) > 1:
                out.append('  (and %d more lines like it)' % (len(run) - 1))
            run = []
        if line is not None:
            run.append(line)
    return out


def _why(log, staging):
    """The lines of debootstrap's logs that say why it failed: its output but the progress
    lines, its own log's errors, each run of alike lines once, counted."""
    def read(path):
        try:
            return path.read_text(errors='replace').splitlines()
        except OSError:
            return []

    outer = read(log)
    told = [line for line in outer if line.strip() and not line.startswith('I: ')]
    inner_log = staging / 'debootstrap' / 'debootstrap.log'
    inner = read(inner_log)
    errors = re.compile(r'error|cannot|can\'t|fail|not permitted|denied|no space|^[EW]: '
                        r'|^dpkg: ', re.IGNORECASE)
    inner_told = [line for line in inner if errors.search(line)] or inner[-5:]
    parts = []
    if told:
        parts += ['%s:' % log] + _collapsed(told)[:WHY_LINES]
    if inner_told:
        parts += ['%s:' % inner_log] + _collapsed(inner_told)[-WHY_LINES:]
    if not parts:
        parts = ['the end of %s:' % log] + outer[-15:]
    return '\n'.join(parts)


def _fresh(root):
    stamp = root / '.enum-from-value-root'
    try:
        made = json.loads(stamp.read_text())['made']
    except (OSError, ValueError, KeyError):
        return False
    return time.time() - made < MAX_AGE_DAYS * 86400


def ensure(cache=None, refresh=False, mirror_url=None):
    """Return the root, made with debootstrap (from `mirror`) unless a fresh one is cached."""
    root = root_dir(cache)
    with _locked(root.parent / ('.%s.lock' % root.name)) as lock_fd:
        if _fresh(root) and not refresh:
            return root
        if os.geteuid() != 0:
            raise RootError('making the Debian root needs root (debootstrap, chroot)')
        url = mirror(mirror_url)
        say('the Debian root %s is %s: making it now with debootstrap from %s; this takes '
            '%s' % (root, 'to be made afresh' if refresh else 'not cached, or older than %d '
                    'days' % MAX_AGE_DAYS, url or "debootstrap's default mirror",
                    MAKING_TAKES))
        if shutil.which('debootstrap') is None:
            _apt_install('debootstrap')
        staging = root.with_name(root.name + '.new')
        _clear(staging)
        started = time.monotonic()
        log = root.parent / (root.name + '.debootstrap.log')
        with open(str(log), 'w') as out:
            code = plumbing.call(
                ['debootstrap', '--variant=minbase', '--include=' + ','.join(PACKAGES),
                 SUITE, str(staging)] + ([url] if url else []),
                stdout=out, stderr=subprocess.STDOUT, pass_fds=(lock_fd,))
        if code != 0:
            raise RootError('debootstrap failed (exit %d); what its logs say:\n%s'
                            % (code, _why(log, staging)))
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
            json.dumps({'made': time.time(), 'mirror': url, 'packages': PACKAGES}) + '\n')
        _clear(root)
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
    """The command line that runs `argv` inside `root`, with `binds` {host path: path inside}
    (or a path bound at the same place), `cwd` inside, `env` added to a small one."""
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
    """subprocess.run of `argv` inside `root` (see `command`), in a process group of its own."""
    return plumbing.run(command(root, argv, binds, cwd, env), **kwargs)


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
    making = argparse.ArgumentParser(add_help=False)
    making.add_argument('--mirror', metavar='URL',
                        help='the Debian mirror to make the root from (default: $%s, else '
                             "the one the host's apt sources name, else debootstrap's own)"
                             % MIRROR_ENV)
    make = sub.add_parser('ensure', parents=[making],
                          help='make the root unless a fresh one is cached')
    make.add_argument('--refresh', action='store_true', help='make it afresh')
    sub.add_parser('versions', parents=[making],
                   help='the interpreters the root serves, exactly')
    inside = argparse.ArgumentParser(add_help=False)  # what `run` and `_enter` take
    inside.add_argument('--bind', action='append', default=[], metavar='HOST[:INSIDE]')
    inside.add_argument('--env', action='append', default=[], metavar='NAME=VALUE')
    inside.add_argument('--cwd')
    sub.add_parser('run', parents=[making, inside], help='run a command inside the root')
    sub.add_parser('_enter', parents=[inside]).add_argument('root')
    for name in ('run', '_enter'):
        sub.choices[name].add_argument('argv', nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command == '_enter':
        args.argv = args.argv[1:] if args.argv[:1] == ['--'] else args.argv
        return _enter(args)
    return plumbing.main(work, 'debian_root', args, messages=sys.stderr)


def work(args):
    if args.command == 'ensure':
        print(ensure(refresh=args.refresh, mirror_url=args.mirror))
    elif args.command == 'versions':
        for name, version in versions(ensure(mirror_url=args.mirror)).items():
            print('%-15s %s' % (name, version or 'MISSING'))
    else:
        argv = args.argv[1:] if args.argv[:1] == ['--'] else args.argv
        binds = [tuple(b.split(':', 1)) if ':' in b else b for b in args.bind]
        env = dict(item.partition('=')[::2] for item in args.env)
        return run(ensure(mirror_url=args.mirror), argv, binds, args.cwd, env).returncode
    return 0


if __name__ == '__main__':
    sys.exit(main())
