"""Run one project's suite in one venv, without or with the backport.

Each run gets a fresh copy of the sdist, a private TMPDIR and a folder for
the process records, under deps_dir()/runs/<interpreter>/<project>/<mode>;
the two runs of a pair differ only in ENUM_DEPENDENTS_BACKPORT.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from .. import plumbing
from . import results
from .plan import deps_dir
from . import prepare

TIMEOUT = 1200     # seconds for one run of one suite; a hang is a failure
# Names of the fixed environment both runs of a pair share.
FIXED_ENV = {'PYTHONHASHSEED': '0', 'LANG': 'C.UTF-8', 'LC_ALL': 'C.UTF-8',
             'PIP_DISABLE_PIP_VERSION_CHECK': '1'}
ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'


class Run:
    """What one run produced."""

    def __init__(self, mode):
        self.mode = mode                # 'without' or 'with'
        self.outcomes = {}
        self.effect_ok, self.effect = False, ''
        self.error = None               # why the run gave no usable result
        self.seconds = 0.0
        self.cpu = 0.0                  # CPU seconds of the suite's processes
        self.log = None
        self.exit_code = None


def command(project, environment, folder):
    """(argv, cwd) of the project's suite, and where its results will be."""
    suite = project['suite']
    if suite['runner'] == 'pytest':
        junit = folder / 'junit.xml'
        argv = [environment.python, '-m', 'pytest', '-p', 'no:cacheprovider', '-rfE',
                '--junitxml=' + str(junit), '--continue-on-collection-errors']
        argv += suite.get('options', [])
        argv += ['--ignore=' + item['path'] for item in project.get('excluded', [])]
        argv += suite['tests']
        return argv, suite.get('cwd', '.')
    if suite['runner'] == 'django':
        return ([environment.python, 'runtests.py', '-v', '2', '--parallel', '1']
                + suite.get('options', []) + suite['tests']), suite.get('cwd', '.')
    raise ValueError('unknown runner %r' % suite['runner'])


def run_suite(interp, project, environment, sdist, mode):
    """Run the suite once; never raises for the suite's own failures."""
    run = Run(mode)
    folder = deps_dir() / 'runs' / interp.name / project['name'] / mode
    try:
        tree = prepare.unpack(sdist, folder / 'src')
    except Exception as error:   # a broken archive is the run's failure, said plainly
        run.error = 'could not unpack %s: %s' % (sdist.name, error)
        return run
    records = folder / 'records'
    records.mkdir(parents=True, exist_ok=True)
    for old in records.iterdir():
        old.unlink()
    for old in ('junit.xml', 'stdout.txt', 'stderr.txt'):
        if (folder / old).exists():
            (folder / old).unlink()
    argv, cwd = command(project, environment, folder)
    # A private TMPDIR with a short path: tests bind AF_UNIX sockets under
    # it (pydantic's test_socket_exists), whose paths must stay under 108
    # bytes.  In the root it is made in the root's own /tmp.
    tmp_host = tempfile.mkdtemp(prefix='enum-dependents-', dir=str(
        Path(interp.root) / 'tmp' if interp.root is not None else Path('/tmp')))
    tmp_inside = '/tmp/' + os.path.basename(tmp_host) if interp.root is not None else tmp_host
    bin_dir = str(environment.path / 'bin')
    base_path = ROOT_PATH if interp.root is not None else os.environ.get('PATH', ROOT_PATH)
    env = dict(FIXED_ENV, PATH=bin_dir + os.pathsep + base_path,
               VIRTUAL_ENV=str(environment.path), TMPDIR=tmp_inside,
               ENUM_DEPENDENTS_RECORD=str(folder / 'records'),
               ENUM_DEPENDENTS_BACKPORT='1' if mode == 'with' else '0')
    full_argv, full_cwd, full_env = interp.command(argv, cwd=str(tree / cwd), env=env)
    started = time.monotonic()
    with open(str(folder / 'stdout.txt'), 'w') as out, open(str(folder / 'stderr.txt'), 'w') as err:
        child = plumbing.popen(full_argv, cwd=full_cwd, env=full_env, stdin=subprocess.DEVNULL,
                               stdout=out, stderr=err)
        try:
            run.exit_code, run.cpu = _wait(child, started + TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            run.error = 'timed out after %d s' % TIMEOUT
        finally:
            shutil.rmtree(tmp_host, ignore_errors=True)
    run.seconds = time.monotonic() - started
    run.log = folder / 'stdout.txt'
    if run.error:
        return run
    runner = project['suite']['runner']
    try:
        if runner == 'pytest':
            # 0: all passed, 1: some failed; anything else (interrupted,
            # internal error, usage error, no tests) is no result.
            if run.exit_code not in (0, 1) or not (folder / 'junit.xml').exists():
                raise results.ResultsError('pytest exited %d%s: %s' % (
                    run.exit_code, '' if (folder / 'junit.xml').exists() else ' without junit',
                    _tail(folder / 'stderr.txt') or _tail(folder / 'stdout.txt')))
            run.outcomes = results.junit_outcomes(folder / 'junit.xml')
        else:
            run.log = folder / 'stderr.txt'
            text = (folder / 'stderr.txt').read_text(errors='replace')
            if run.exit_code not in (0, 1):
                raise results.ResultsError('runtests.py exited %d: %s' % (
                    run.exit_code, _tail(folder / 'stderr.txt')))
            run.outcomes = results.django_outcomes(text)
        if not run.outcomes:
            raise results.ResultsError('the suite ran no test')
        run.effect_ok, run.effect = results.check_effect(
            results.read_records(folder / 'records'), runner, mode == 'with')
    except results.ResultsError as error:
        run.error = str(error)
    return run


def _wait(child, deadline):
    """(exit code, CPU seconds) of `child` and the descendants it waited
    for, or raise TimeoutExpired at `deadline`."""
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = (-os.WTERMSIG(status) if os.WIFSIGNALED(status)
                                else os.WEXITSTATUS(status))
            return child.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(child.args, TIMEOUT)
        time.sleep(0.2)


def _tail(path):
    try:
        return prepare.tail(path.read_text(errors='replace'), 5)
    except OSError:
        return ''
