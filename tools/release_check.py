#!/usr/bin/env python3
"""Build the sdist and wheel and check them as an uploader and a user would.

    python3 tools/release_check.py [--python python3.8 ...] OUTDIR

1. build both into a new directory in OUTDIR (``python -m build``, the pinned
   backend);
2. ``twine check --strict`` on both: what PyPI's upload would reject;
3. ``check-wheel-contents`` on the wheel, with no options, as a user runs
   it from the source tree: it reads pyproject.toml's
   [tool.check-wheel-contents], which says the top-level packages are
   exactly enum_backport and enum_backport_nopatch; and the sdist's
   README.rst is the package page (backport/README.rst), not the
   repository's README;
4. for each --python: unpack the sdist, make a fresh venv, ``pip install
   '.[test]'`` there, and run pytest in the unpacked tree: every test
   passes, and the only test modules skipped whole are those of what the
   sdist leaves out (the CPython change and its tools);
5. the wheel alone in a fresh venv (the first --python): the package
   page's examples pass as a doctest.

build, twine and check-wheel-contents are run from the interpreter running
this script (tox's `release` environment installs them, pinned).  Exits 1
on the first failure, naming it.
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


def build(outdir):
    run([sys.executable, '-m', 'build', '--outdir', outdir, ROOT])
    sdists = glob.glob(os.path.join(outdir, '*.tar.gz'))
    wheels = glob.glob(os.path.join(outdir, '*.whl'))
    if len(sdists) != 1 or len(wheels) != 1:
        raise Failed('expected one sdist and one wheel in %s, found %s'
                     % (outdir, sorted(os.listdir(outdir))))
    return sdists[0], wheels[0]


def check(sdist, wheel, python=sys.executable, cwd=ROOT):
    colour = ['--no-color'] if os.environ.get('NO_COLOR') else []  # twine's own switch
    print(run([python, '-m', 'twine'] + colour + ['check', '--strict', sdist, wheel]), end='')
    # From the source tree, where check-wheel-contents finds pyproject.toml.
    print(run([python, '-m', 'check_wheel_contents', wheel], cwd=cwd), end='')
    check_readme(sdist)


def check_readme(sdist):
    """The sdist's README.rst is the package page, not the repository's README, and
    its CHANGELOG.rst (which the page names) the package's changelog."""
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        names = set(archive.getnames())
        for name, what in (('README.rst', 'the package page'), ('CHANGELOG.rst', 'the changelog')):
            if '%s/%s' % (top, name) not in names:
                raise Failed('the sdist has no %s' % name)
            if (archive.extractfile('%s/%s' % (top, name)).read()
                    != archive.extractfile('%s/backport/%s' % (top, name)).read()):
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
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        page = archive.extractfile(top + '/backport/README.rst').read()
    path = os.path.join(scratch, 'README.rst')
    with open(path, 'wb') as f:
        f.write(page)
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
