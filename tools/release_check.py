#!/usr/bin/env python3
"""Build the sdist and wheel and check them as an uploader and a user would.

    python3 tools/release_check.py [--python python3.8 ...] OUTDIR

Builds both into a new directory in OUTDIR; twine check --strict,
check-wheel-contents, the sdist's README.rst and CHANGELOG.rst; for each
--python the tests from the unpacked sdist, and with the first the package
page's examples with the wheel (docs/testing.rst says each).  build, twine
and check-wheel-contents are this interpreter's (tox's `release`
environment pins them).  Exits 1 on the first failure, naming it.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What stays in the repository, whose tests skip in the sdist (tests/_layout.py).
REPOSITORY_ONLY = ['Misc/NEWS.d', 'benchmarks', 'docs', 'tools/cpython_change.py',
                   'tools/dependents', 'tools/release.py']


try:  # one error base with the other tools (tools/plumbing.py) ...
    from tools.plumbing import Error as _Base
except ImportError:  # ... unless run alone, as tox's release environment does
    _Base = Exception


class Failed(_Base):
    """A check failed: one line."""


def run(command, **kwds):
    print('$ ' + ' '.join(command), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, **kwds)
    if result.returncode:
        sys.stdout.write(result.stdout)
        raise Failed('%s exited %d' % (command[0], result.returncode))
    return result.stdout


def venv(python, where):
    path = shutil.which(python)
    if path is None:
        raise Failed('%s is not on PATH' % python)
    run([path, '-m', 'venv', where])
    return os.path.join(where, 'bin', 'python')


def build(outdir, python=sys.executable, tree=ROOT, env=None):
    run([python, '-m', 'build', '--outdir', outdir, str(tree)], env=env)
    sdists = glob.glob(os.path.join(outdir, '*.tar.gz'))
    wheels = glob.glob(os.path.join(outdir, '*.whl'))
    if len(sdists) != 1 or len(wheels) != 1:
        raise Failed('expected one sdist and one wheel in %s, found %s'
                     % (outdir, sorted(os.listdir(outdir))))
    return [sdists[0], wheels[0]]


def check(sdist, wheel, python=sys.executable, cwd=ROOT):
    colour = ['--no-color'] if os.environ.get('NO_COLOR') else []  # twine's own switch
    print(run([python, '-m', 'twine'] + colour + ['check', '--strict', sdist, wheel]), end='')
    # From the source tree, where check-wheel-contents finds pyproject.toml.
    print(run([python, '-m', 'check_wheel_contents', wheel], cwd=cwd), end='')
    check_readme(sdist)


def member(sdist, name):
    """The bytes of NAME in the sdist's top directory, or None."""
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        try:
            return archive.extractfile('%s/%s' % (top, name)).read()
        except KeyError:
            return None


def check_readme(sdist):
    """The sdist's README.rst is the package page, not the repository's README, and
    its CHANGELOG.rst (which the page names) the package's changelog."""
    for name, what in (('README.rst', 'the package page'), ('CHANGELOG.rst', 'the changelog')):
        text = member(sdist, name)
        if text is None:
            raise Failed('the sdist has no %s' % name)
        if text != member(sdist, 'backport/' + name):
            raise Failed("the sdist's %s is not %s (backport/%s)" % (name, what, name))
    print("the sdist's README.rst is the package page, its CHANGELOG.rst the changelog")


def test_sdist(sdist, python, scratch):
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        if hasattr(tarfile, 'data_filter'):
            archive.extractall(scratch, filter='data')
        else:
            archive.extractall(scratch)
    tree = os.path.join(scratch, top)
    interpreter = venv(python, os.path.join(scratch, 'venv'))
    run([interpreter, '-m', 'pip', 'install', '--quiet', '.[test]'], cwd=tree)
    out = run([interpreter, '-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rs', 'tests'],
              cwd=tree)
    print(out.strip().splitlines()[-1])
    # Whole modules skipped: none but those of what the sdist leaves out.
    absent = sorted(set(re.findall(r'(\S+) is in the repository, not in the sdist', out)))
    if absent != sorted(REPOSITORY_ONLY):
        raise Failed('test modules skipped for want of %s; expected exactly %s'
                     % (absent, sorted(REPOSITORY_ONLY)))


def test_wheel(wheel, sdist, python, scratch):
    interpreter = venv(python, os.path.join(scratch, 'venv'))
    run([interpreter, '-m', 'pip', 'install', '--quiet', wheel])
    path = os.path.join(scratch, 'README.rst')
    with open(path, 'wb') as f:
        f.write(member(sdist, 'backport/README.rst'))
    print(run([interpreter, '-m', 'doctest', '-v', '-o', 'ELLIPSIS', path], cwd=scratch)
          .strip().splitlines()[-2])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('outdir', help='where the sdist and wheel go, in a new directory of '
                        'their own (nothing there is deleted)')
    parser.add_argument('--python', action='append', default=[],
                        help='an interpreter to run the tests from the sdist with '
                             '(repeatable; default: none)')
    args = parser.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    try:
        sdist, wheel = build(tempfile.mkdtemp(prefix='build-', dir=args.outdir))
        check(sdist, wheel)
        for python in args.python:
            with tempfile.TemporaryDirectory() as scratch:
                print('tests from the sdist, on %s:' % python, flush=True)
                test_sdist(sdist, python, scratch)
        if args.python:
            with tempfile.TemporaryDirectory() as scratch:
                print("the package page's examples, with the wheel on %s:" % args.python[0])
                test_wheel(wheel, sdist, args.python[0], scratch)
    except Failed as exc:
        print('release check FAILED: %s' % exc)
        return 1
    print('release check passed: %s, %s' % (os.path.basename(sdist), os.path.basename(wheel)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
