#!/usr/bin/env python3
"""Run tox inside the Debian root, for the interpreters only the root has.

    python3 tools/root_tox.py [-e ENVS] [-- TOX ARGS...]

CPython 3.14 and 3.15 and PyPy 3.11 come from Debian unstable, which runs
in a root of its own (tools/debian_root.py).  This makes the root unless it
is cached, gives the root's python3.14 a venv with tox in it, and runs that
tox on this work tree for the environments tox.ini labels ``debian-root``
(or those ``-e`` names).  The work tree is bound into the root at its own
path, so every path tox.ini and the tests use means the same inside as
outside; tox works in ``.tox/debian-root``, apart from the host's tox,
whose environments other interpreters made.

The venv with tox and the root's pip cache live under
``$ENUM_FROM_VALUE_CACHE/debian-root-tox`` (default
``~/.cache/enum-from-value``), and are reused while they work.  The
variables tools/check.py hands tox (ENUM_BACKPORT_*) are handed on into the
root, and the directories they name are bound there too.  It ends with the
same table of interpreters as the host's tox run (tools/tox_interpreters.py)
for the environments it ran, and exits with tox's status.
"""

import argparse
import configparser
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import debian_root  # noqa: E402
import tox_interpreters  # noqa: E402

ROOT = HERE.parent
LABEL = 'debian-root'
# The root's interpreter that runs tox itself (any of the root's would do).
TOX_PYTHON = '/usr/bin/python3.14'
TOX_REQUIREMENT = 'tox>=4.11'
# What tox.ini's environments read from the environment, handed into the root.
PASSED = ('ENUM_BACKPORT_TOX_RUN', 'ENUM_BACKPORT_RECORDS', 'ENUM_BACKPORT_JUNIT')


def label_envs(label=LABEL):
    """The environments tox.ini's [tox] labels put under `label`."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(ROOT / 'tox.ini'))
    for line in config.get('tox', 'labels', fallback='').splitlines():
        name, sep, envs = line.partition('=')
        if sep and name.strip() == label:
            return [env.strip() for env in envs.split(',') if env.strip()]
    raise SystemExit('tox.ini has no label %r' % label)


def say(message):
    print('root_tox: ' + message, flush=True)


def ensure_tox(root, home):
    """Return the tox executable inside the root, installing it when needed."""
    venv = home / 'venv'
    tox = venv / 'bin' / 'tox'
    binds = [home]
    env = {'PIP_CACHE_DIR': str(home / 'pip')}
    if tox.exists():
        probe = debian_root.run(root, [str(tox), '--version'], binds=binds, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True)
        if probe.returncode == 0:
            return tox, probe.stdout.strip().splitlines()[-1]
        say('the cached tox does not run (%s); making it again'
            % (probe.stdout.strip().splitlines() or ['exit %d' % probe.returncode])[-1])
    say('installing tox into %s (inside the root, with %s)' % (venv, TOX_PYTHON))
    script = '"$1" -m venv --clear "$2" && "$2/bin/python" -m pip install -q "$3"'
    made = debian_root.run(root, ['sh', '-c', script, 'sh', TOX_PYTHON, str(venv),
                                  TOX_REQUIREMENT], binds=binds, env=env)
    if made.returncode != 0:
        raise SystemExit('root_tox: could not install tox in the root (exit %d)'
                         % made.returncode)
    probe = debian_root.run(root, [str(tox), '--version'], binds=binds, env=env,
                            stdout=subprocess.PIPE, universal_newlines=True)
    return tox, probe.stdout.strip().splitlines()[-1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('-e', '--envs', help='environments (default: the %s label)' % LABEL)
    parser.add_argument('tox_args', nargs='*', help='more arguments for tox (after --)')
    args = parser.parse_args(argv)
    envs = args.envs.split(',') if args.envs else label_envs()

    try:
        root = debian_root.ensure()
    except debian_root.RootError as error:
        print('root_tox: no Debian root: %s' % error, file=sys.stderr)
        return 2
    home = debian_root.cache_dir() / 'debian-root-tox'
    (home / 'pip').mkdir(parents=True, exist_ok=True)
    tox, version = ensure_tox(root, home)
    versions = debian_root.versions(root)
    say('the root serves %s' % ', '.join(
        '%s %s' % (name, found or 'MISSING') for name, found in versions.items()))

    env = {'PIP_CACHE_DIR': str(home / 'pip'),
           # Its own records and table, unless check.py shares one run with the host's.
           'ENUM_BACKPORT_TOX_RUN': os.environ.get('ENUM_BACKPORT_TOX_RUN',
                                                   'root-tox-%d' % os.getpid())}
    binds = [ROOT, home]
    for name in PASSED:
        value = os.environ.get(name)
        if value:
            env[name] = value
            if name != 'ENUM_BACKPORT_TOX_RUN':
                Path(value).mkdir(parents=True, exist_ok=True)
                if ROOT not in Path(value).resolve().parents:
                    binds.append(Path(value))
    env.setdefault('ENUM_BACKPORT_RECORDS', str(ROOT / '.tox' / '.interpreters'))
    command = [str(tox), '-e', ','.join(envs), '--workdir', str(ROOT / '.tox' / LABEL)]
    command += args.tox_args
    say('%s in the root: %s' % (version, ' '.join(command)))
    code = debian_root.run(root, command, binds=binds, cwd=str(ROOT), env=env).returncode

    wanted = [(name, python) for name, python in stdlib_envs() if name in envs]
    os.environ['ENUM_BACKPORT_TOX_RUN'] = env['ENUM_BACKPORT_TOX_RUN']
    tox_interpreters.summary(env['ENUM_BACKPORT_RECORDS'], wanted)
    return code


def stdlib_envs():
    """(env, python) for every ENV=PYTHON pair of tox.ini's [stdlib] envs."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(ROOT / 'tox.ini'))
    pairs = []
    for item in config.get('stdlib', 'envs').split():
        name, _, python = item.partition('=')
        pairs.append((name, python))
    return pairs


if __name__ == '__main__':
    sys.exit(main())
