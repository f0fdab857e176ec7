#!/usr/bin/env python3
"""Run the whole test suite: the CPython change and the backport.

    python3 tools/check.py [--apt-source] [--tarball PATH] [-e ENVS]

1. The CPython change (tools/cpython_change.py all), as five PRs, each
   PR set proven (the fix; the three backports; those and the feature;
   all five): fetch the
   3.13.5 source, build stock 3.13.5 and one per PR set (cached), merge
   each PR set's Lib diffs onto Debian's 3.14 and 3.15, run the stdlib
   suites, this project's tests and each interpreter's stock test_enum.py
   on all thirteen patched interpreters (3.13.5t with all five PRs only) and a
   refleak check on 3.15's debug build, build and check the changed docs,
   and make and check the patch series (stand-in numbers, thrown away).
2. The backport: tox, with one environment per interpreter from 3.8 up
   and PyPy 3.11, plus the typing checks: first Debian unstable's 3.14,
   3.15 and PyPy 3.11 inside the Debian root (tools/root_tox.py), then this
   machine's 3.8 to 3.13 and the stock 3.13.5 builds (with the GIL and
   free-threaded), ending with a table of all of them.
3. The handbook (tox -e docs): docs/ built by Sphinx with warnings as
   errors and every internal link resolved, and its examples run by the
   doctest builder.
4. The release, rehearsed (tools/release.py --rehearse): on a copy of the
   work tree, the version and changelog date set, built twice
   byte-identical and checked, uploaded to a pypiserver it starts on
   127.0.0.1 and stops, a wrong password, a public index and a re-upload
   refused, then installed from that index on every interpreter tox runs.
5. The dependents' suites (tools/dependents): Django, SQLAlchemy, pydantic,
   marshmallow and click, each run twice on 3.8, 3.13 and Debian's 3.15,
   without and with the backport imported first, compared test by test.

Everything it installs for itself (tox) goes into the cache,
``$ENUM_FROM_VALUE_CACHE`` (default ``~/.cache/enum-from-value``).  It ends
with one line per step, the interpreters tox ran, and a count of the tests
that ran in pytest across all environments; it exits non-zero if any step
failed.
"""

import argparse
import glob
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tools'))
import root_tox  # noqa: E402  (the tox run inside the Debian root)
TOOL = ROOT / 'tools' / 'cpython_change.py'


def cache_dir():
    return Path(os.environ.get('ENUM_FROM_VALUE_CACHE')
                or Path.home() / '.cache' / 'enum-from-value')


def say(message):
    print('==> ' + message, flush=True)


def tox_command():
    """A tox to run, installed into the cache on first use."""
    venv = cache_dir() / 'venvs' / 'tox'
    tox = venv / 'bin' / 'tox'
    if not tox.exists():
        say('installing tox into ' + str(venv))
        subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
        subprocess.run([str(venv / 'bin' / 'python'), '-m', 'pip', 'install', '-q',
                        'tox>=4.11'], check=True)
    return [str(tox)]


def pyenv_versions():
    """Every pyenv CPython from 3.8 up, joined for PYENV_VERSION, so that
    all their pythonX.Y shims answer at once ('' without pyenv)."""
    try:
        listed = subprocess.run(['pyenv', 'versions', '--bare'], stdout=subprocess.PIPE,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return ''
    wanted = []
    for version in listed:
        parts = version.split('.')
        if len(parts) == 3 and all(p.isdigit() for p in parts) and (
                (int(parts[0]), int(parts[1])) >= (3, 8)):
            wanted.append(version)
    return ':'.join(wanted)


def run_step(name, command, results, env=None):
    say('%s: %s' % (name, ' '.join(command)))
    started = time.monotonic()
    code = subprocess.run(command, cwd=str(ROOT), env=env).returncode
    results.append((name, code, time.monotonic() - started))
    return code


def junit_totals(directory):
    """(passed, failed, skipped) over the pytest junit files in `directory`."""
    passed = failed = skipped = 0
    for path in sorted(glob.glob(os.path.join(directory, '*.xml'))):
        root = ElementTree.parse(path).getroot()
        suites = [root] if root.tag == 'testsuite' else root.findall('testsuite')
        for suite in suites:
            tests = int(suite.get('tests', 0))
            bad = int(suite.get('failures', 0)) + int(suite.get('errors', 0))
            skip = int(suite.get('skipped', 0))
            passed += tests - bad - skip
            failed += bad
            skipped += skip
    return passed, failed, skipped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--apt-source', action='store_true',
                        help="fetch the CPython source with apt-get source (Debian)")
    parser.add_argument('--tarball', help='a Python-3.13.5 tarball to use instead')
    parser.add_argument('-e', '--envs', help='only these tox environments (comma-separated)')
    parser.add_argument('--skip-cpython', action='store_true',
                        help='skip step 1 (the CPython change); tox still needs the stock build')
    parser.add_argument('--skip-dependents', action='store_true',
                        help="skip step 5 (the dependents' suites); -e skips it too")
    args = parser.parse_args(argv)

    results = []
    fetch = [sys.executable, str(TOOL), 'fetch']
    if args.apt_source:
        fetch.append('--apt-source')
    if args.tarball:
        fetch += ['--tarball', args.tarball]
    if run_step('fetch CPython 3.13.5', fetch, results) != 0:
        return report(results, None)

    # `all` builds stock 3.13.5 first, while it makes the Debian root in the
    # background; tox then reuses both.
    if not args.skip_cpython:
        run_step('CPython change (3.13.5, 3.14, 3.15; docs, patch)',
                 [sys.executable, str(TOOL), 'all'], results)

    stock = build_stock(results)
    # The free-threaded one too (step 1 built it for its patched t build).
    stock_t = build_stock(results, freethreaded=True)
    if not stock or not stock_t:
        return report(results, None)

    junit = cache_dir() / 'junit'
    for old in glob.glob(str(junit / '*.xml')):
        os.remove(old)
    # One run for the records of both tox runs, so that the host's
    # `interpreters` environment names the root's interpreters too.
    env = dict(os.environ, ENUM_BACKPORT_PY3135=stock, ENUM_BACKPORT_PY3135T=stock_t,
               ENUM_BACKPORT_JUNIT=str(junit),
               ENUM_BACKPORT_TOX_RUN='check-%d-%d' % (os.getpid(), time.time()),
               ENUM_BACKPORT_RECORDS=str(ROOT / '.tox' / '.interpreters'))
    versions = pyenv_versions()
    if versions:
        # A PYENV_VERSION naming one version (as a shell may set) would hide
        # the others from tox.
        env['PYENV_VERSION'] = versions

    # Debian unstable's CPython 3.14, 3.15 and PyPy 3.11 first, in the root.
    root_envs = root_tox.label_envs()
    host_envs = None
    docs = True
    if args.envs:
        wanted = args.envs.split(',')
        root_envs = [e for e in wanted if e in root_envs]
        docs = 'docs' in wanted
        host_envs = [e for e in wanted if e not in root_envs and e != 'docs']
    if root_envs:
        run_step('tox in the Debian root (%s)' % ', '.join(root_envs),
                 [sys.executable, str(ROOT / 'tools' / 'root_tox.py'), '-e', ','.join(root_envs),
                  '--', '-p', '2', '--parallel-no-spinner'], results, env=env)
    notes = []
    if docs:
        # Step 3, on its own line of the summary: the handbook's build.
        run_step('handbook (tox -e docs)', tox_command() + ['-e', 'docs'], results, env=env)
    else:
        notes.append('handbook (tox -e docs): NOT RUN (-e given without docs)')
    if not args.envs or 'release' in args.envs.split(','):
        # Step 4: the release against a throwaway index, installed from it
        # on every interpreter tox runs (the stock builds named in env).
        run_step('release rehearsal (tools/release.py --rehearse)',
                 [sys.executable, str(ROOT / 'tools' / 'release.py'), '--rehearse'],
                 results, env=env)
    else:
        notes.append('release rehearsal (tools/release.py --rehearse): NOT RUN '
                     '(-e given without release)')
    if host_envs == []:
        return report(results, junit, notes=notes)

    tox = tox_command() + ['-p', '2', '--parallel-no-spinner']
    tox += ['-e', ','.join(host_envs)] if host_envs else ['-m', 'host']
    say('PYENV_VERSION=' + env['PYENV_VERSION'])
    say('tox on this machine (backport on its interpreters, typing): ' + ' '.join(tox))
    # The `interpreters` environment's table, repeated in the summary.
    interpreters = run_echoed('tox on this machine (interpreters, typing)', tox, results,
                              env=env, first='Interpreters of this tox run:',
                              last=' environments: ')

    if args.skip_dependents or args.envs:
        dependents = ["dependents' suites: NOT RUN (%s given)"
                      % ('--skip-dependents' if args.skip_dependents else '-e')]
    else:
        dependents = run_dependents(results)
    return report(results, junit, interpreters, dependents, notes)


def build_stock(results, freethreaded=False):
    """The stock 3.13.5 interpreter (free-threaded: 3.13.5t), built unless cached; '' on failure."""
    name = 'build stock 3.13.5' + ('t (free-threaded)' if freethreaded else '')
    say(name + ' (reused when cached)')
    started = time.monotonic()
    built = subprocess.run([sys.executable, str(TOOL), 'build', '--stock']
                           + (['--freethreaded'] if freethreaded else []),
                           cwd=str(ROOT), stdout=subprocess.PIPE, text=True)
    python = built.stdout.strip().splitlines()[-1] if built.stdout.strip() else ''
    ok = built.returncode == 0 and os.path.exists(python)
    results.append((name, 0 if ok else built.returncode or 1, time.monotonic() - started))
    return python if ok else ''


def run_dependents(results):
    """Step 5: tools/dependents; returns its closing lines for the summary."""
    command = [sys.executable, str(ROOT / 'tools' / 'dependents')]
    say("dependents' suites without and with the backport: " + ' '.join(command))
    closing = run_echoed("dependents' suites (tools/dependents)", command, results,
                         first='dependents: Summary')
    return closing[1:] or ['tools/dependents printed no summary: see its output above']


def run_echoed(name, command, results, env=None, first=None, last=None):
    """Run COMMAND as step NAME, echoing its output as it comes.

    Returns the last block of its lines that starts with FIRST and ends
    with the first line after it holding LAST (or at the end of the output).
    """
    started = time.monotonic()
    child = subprocess.Popen(command, cwd=str(ROOT), env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    block, keep = [], False
    for line in child.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith(first):
            block, keep = [], True
        if keep:
            block.append(line.rstrip())
            if last is not None and last in line:
                keep = False
    results.append((name, child.wait(), time.monotonic() - started))
    return block


def report(results, junit, interpreters=(), dependents=(), notes=()):
    print()
    print('Summary')
    for name, code, seconds in results:
        print('  %-48s %s  (%.0f s)' % (name, 'ok' if code == 0 else 'FAILED', seconds))
    if interpreters:
        print('\n'.join(interpreters))
    elif junit is not None:
        print('tox printed no interpreter table: see its output above')
    if dependents:
        print('\n'.join(dependents))
    if notes:
        print('\n'.join(notes))
    failed_steps = sum(1 for _, code, _ in results if code != 0)
    if junit is not None:
        passed, failed, skipped = junit_totals(str(junit))
        print('pytest, all environments: %d passed, %d failed, %d skipped' % (passed, failed, skipped))
    print('steps: %d passed, %d failed' % (len(results) - failed_steps, failed_steps))
    return 1 if failed_steps else 0


if __name__ == '__main__':
    sys.exit(main())
