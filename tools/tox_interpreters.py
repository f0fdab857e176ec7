"""Say at the end of a tox run which interpreters it ran on and which it missed.

tox's line for an environment whose interpreter is missing does not say
which Python it wanted.  So each environment records itself when its
commands start and when they pass (tox.ini, ``record``), and the last one,
``interpreters``, prints a line per environment (passed, FAILED, MISSING an
interpreter, or NOT RUN) and exits 1 unless every one passed (``summary``,
whose ENV=PYTHON, ``python3.8`` or ``root:python3.15``, says why one that
left no record did not run).  Only this tox run's records count (same
parent process, or ENUM_BACKPORT_TOX_RUN, as noxfile.py sets).
"""

import argparse
import configparser
import json
import os
import platform
import shutil
import subprocess
import sys


# What tools/debian_root.py leaves at the top of the root it makes.
ROOT_STAMP = '/.enum-from-value-root'


def _record_path(directory, env):
    return os.path.join(directory, env + '.json')


def _run_id():
    return os.environ.get('ENUM_BACKPORT_TOX_RUN') or os.getppid()


def record(directory, env, stage, expect_version=None):
    version = '%d.%d.%d' % sys.version_info[:3]
    if expect_version and version != expect_version:
        print('%s: this is Python %s (%s), not the %s this environment is for'
              % (env, version, sys.base_prefix, expect_version), file=sys.stderr)
        return 1
    os.makedirs(directory, exist_ok=True)
    where = sys.base_prefix
    if os.path.exists(ROOT_STAMP):
        where += ' in the Debian root'
    if hasattr(sys, 'pypy_version_info'):
        where += '; PyPy %d.%d.%d' % sys.pypy_version_info[:3]
    entry = {
        'run': _run_id(),
        'stage': stage,
        'implementation': platform.python_implementation(),
        'version': version,
        'base_prefix': where,
    }
    with open(_record_path(directory, env), 'w', encoding='utf-8') as f:
        json.dump(entry, f)
    return 0


def _read(directory, env, run):
    try:
        with open(_record_path(directory, env), encoding='utf-8') as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    return entry if entry.get('run') == run else None


def _search_path():
    # Leave out the bin directory of the virtual environment this runs in,
    # which holds a python3.X of its own.
    own = os.path.dirname(sys.executable) if sys.prefix != sys.base_prefix else None
    return os.pathsep.join(entry for entry in os.environ.get('PATH', '').split(os.pathsep)
                           if entry and os.path.abspath(entry) != own)


def why_not_run(python):
    """Return ('MISSING' or 'NOT RUN', why) for an environment that left no record."""
    if python.startswith('root:'):
        return _why_not_run_in_root(python[len('root:'):])
    if python.startswith('$'):
        variable = python[1:]
        python = os.environ.get(variable, '')
        if not python:
            return 'MISSING', '%s is not set' % variable
    found = shutil.which(python, path=_search_path())
    if found is None:
        return 'MISSING', 'no %s found' % python
    try:
        probe = subprocess.run(
            [found, '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 'MISSING', '%s does not run: %s' % (found, exc)
    if probe.returncode:
        lines = (probe.stderr or probe.stdout).strip().splitlines() or ['exit %d' % probe.returncode]
        hint = ''
        if os.sep + 'shims' + os.sep in found:
            hint = ' (a pyenv shim: PYENV_VERSION lists the versions it may run)'
        return 'MISSING', '%s does not run: %s%s' % (found, lines[0], hint)
    return 'NOT RUN', '%s is Python %s, but this tox run did not run its environment' % (
        found, probe.stdout.strip())


def _why_not_run_in_root(python):
    # Without entering the root: only whether it, and the program, exist.
    # (`summary` runs as a module of the package tools, `record` as a file.)
    from . import debian_root

    root = debian_root.root_dir()
    program = debian_root.INTERPRETERS.get(python, '/usr/bin/' + python)
    if not root.is_dir():
        return 'MISSING', 'no Debian root at %s (tools/debian_root.py ensure makes it)' % root
    if not (root / program.lstrip('/')).exists():
        return 'MISSING', 'the Debian root at %s has no %s' % (root, program)
    return 'NOT RUN', ('the Debian root has %s, but this run did not run its environment '
                       '(the tox-root step of tools/check.py runs it)' % program)


def summary(directory, wanted, out=None, run=None):
    """The table of WANTED, [(env, python)]: the records of RUN (default this tox run's)."""
    out, run = out or sys.stdout, run or _run_id()
    rows, counts = [], {'passed': 0, 'FAILED': 0, 'MISSING': 0, 'NOT RUN': 0}
    for env, python in wanted:
        entry = _read(directory, env, run)
        if entry is None:
            state, detail = why_not_run(python)
        else:
            state = 'passed' if entry['stage'] == 'passed' else 'FAILED'
            detail = '%s %s (%s)' % (entry['implementation'], entry['version'],
                                     entry['base_prefix'])
        counts[state] += 1
        rows.append((env, state, detail))
    width = max(len(env) for env, _, _ in rows)
    print('Interpreters of this tox run:', file=out)
    for env, state, detail in rows:
        print('  %-*s  %-7s  %s' % (width, env, state, detail), file=out)
    print('%d environments: %d passed, %d failed, %d missing an interpreter, %d not run'
          % (len(rows), counts['passed'], counts['FAILED'], counts['MISSING'],
             counts['NOT RUN']), file=out)
    return 0 if counts['passed'] == len(rows) else 1


def _tox_ini(path):
    config = configparser.ConfigParser(interpolation=None)
    config.read(str(path))
    return config


def label_envs(tox_ini, label):
    """The environments tox.ini's [tox] labels put under LABEL."""
    for line in _tox_ini(tox_ini).get('tox', 'labels', fallback='').splitlines():
        name, sep, envs = line.partition('=')
        if sep and name.strip() == label:
            return [env.strip() for env in envs.split(',') if env.strip()]
    raise SystemExit('%s has no label %r' % (tox_ini, label))


def stdlib_envs(tox_ini):
    """(env, python) for every ENV=PYTHON pair of tox.ini's [stdlib] envs."""
    return [tuple(item.split('=', 1)) for item in _tox_ini(tox_ini).get('stdlib', 'envs').split()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    commands = parser.add_subparsers(dest='command', required=True)
    rec = commands.add_parser('record', help="record this environment's interpreter")
    rec.add_argument('directory')
    rec.add_argument('env')
    rec.add_argument('--stage', choices=('started', 'passed'), default='started')
    rec.add_argument('--expect-version', metavar='X.Y.Z')
    summ = commands.add_parser('summary', help='print which environments ran and passed')
    summ.add_argument('directory')
    summ.add_argument('wanted', nargs='+', metavar='ENV=PYTHON')
    args = parser.parse_args(argv)
    if args.command == 'record':
        return record(args.directory, args.env, args.stage, args.expect_version)
    wanted = []
    for item in args.wanted:
        env, sep, python = item.partition('=')
        if not sep:
            parser.error('expected ENV=PYTHON, got %r' % item)
        wanted.append((env, python))
    return summary(args.directory, wanted)


if __name__ == '__main__':
    sys.exit(main())
