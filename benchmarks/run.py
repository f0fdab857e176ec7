#!/usr/bin/env python3
"""Benchmark enum_backport and the CPython change; write the tables and plot.

    python3 benchmarks/run.py           # the full run, a few minutes
    python3 benchmarks/run.py --quick   # a smoke run; writes under the cache

Interpreters measured, each in a venv of its own (runner.py):

* CPython 3.8, 3.9, 3.10, 3.11, 3.12 and 3.13.0 with ``import
  enum_backport``, found as pyenv versions or as ``python3.X`` on PATH
  (``--python`` names others);
* stock CPython 3.13.5 with ``import enum_backport``, and on its own;
* patched CPython 3.13.5 (the change, natively).

The two 3.13.5 builds come from ``tools/cpython_change.py build``, which
builds both with the same configure flags (and reuses finished builds);
``--stock`` and ``--patched`` name interpreters instead.

The harness is three modules besides this one: targets.py (what is timed
against what, and the limit of each target on each interpreter, re-set at a
measured floor plus 10% where the floor itself cannot meet it), runner.py
(how it is run side by side: venvs, workers, alternating processes, paired
ratios) and report.py (how it is printed).  bench_enum.py is the worker that
times the statements in each interpreter.

Outputs, for a full run: benchmarks/results.rst (the tables printed; the
handbook includes it), benchmarks/membership.png (time of ``in`` against
member count) and the pyperf files in benchmarks/results/.  A section that
benchmarks/threads.py wrote into results.rst is kept.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import report
import runner
from runner import Interpreter, say
from targets import EVERYDAY

HERE = os.path.dirname(os.path.abspath(__file__))
PLOTTER = os.path.join(HERE, 'plot_membership.py')
MATPLOTLIB = 'matplotlib'
#: The interpreters the backport is measured on by default (version prefixes;
#: 3.13.0 exactly, as 3.13.1 changed `in`).
BACKPORT_VERSIONS = ('3.8', '3.9', '3.10', '3.11', '3.12', '3.13.0')


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', action='store_true',
                        help='fewer processes and values; outputs go to the cache, '
                             'not benchmarks/')
    parser.add_argument('--python', action='append', metavar='PATH',
                        help='an interpreter to measure under the backport, instead of '
                             'the default 3.8 to 3.12 and 3.13.0 (repeatable)')
    parser.add_argument('--stock', metavar='PATH',
                        help='the stock 3.13.5 interpreter (default: from '
                             'tools/cpython_change.py build --stock)')
    parser.add_argument('--patched', metavar='PATH',
                        help='the patched 3.13.5 interpreter (default: from '
                             'tools/cpython_change.py build --patched)')
    parser.add_argument('--no-patched', action='store_true',
                        help='leave the patched build out')
    parser.add_argument('--output-dir', metavar='DIR',
                        help='where results.rst, membership.png and results/ go '
                             '(default: benchmarks/, or the cache with --quick)')
    parser.add_argument('--backport', metavar='DIR',
                        help='the directory holding the enum_backport package to '
                             'measure (default: backport/ of this checkout); outputs go '
                             'to the cache unless --output-dir is given')
    return parser.parse_args(argv)


def version_tuple(text):
    return tuple(int(part) for part in text.split('.')[:3] if part.isdigit())


def gather_interpreters(args):
    chosen, missing = [], []

    def add(label, path, role, version):
        interp = Interpreter(label, path, role)
        interp.version = version_tuple(version)
        chosen.append(interp)

    if args.python:
        for path in args.python:
            version = runner.python_version(path)
            if not version:
                missing.append('%s (does not run)' % path)
                continue
            add('%s + backport' % version, path, 'backport', version)
    else:
        for prefix in BACKPORT_VERSIONS:
            path, version = runner.find_backport_interpreter(prefix)
            if path is None:
                missing.append('CPython %s' % prefix)
                continue
            add('%s + backport' % version, path, 'backport', version)
    stock = args.stock or runner.find_build('stock')
    version = stock and runner.python_version(stock)
    if version:
        add('%s stock + backport' % version, stock, 'backport', version)
        add('%s stock' % version, stock, 'stock', version)
    else:
        missing.append('stock CPython 3.13.5')
    if not args.no_patched:
        patched = args.patched or runner.find_build('patched')
        version = patched and runner.python_version(patched)
        if version:
            add('%s patched' % version, patched, 'patched', version)
        else:
            missing.append('patched CPython 3.13.5')
    return chosen, missing


def measure(pyperf, interp, stock, settings, scratch, results_dir):
    """Everything timed on one interpreter, analysed: its `res`."""
    res = {'role': interp.role, 'version': interp.version}
    path = runner.measure_group(pyperf, interp, 'lookups', settings.lookup_values,
                                settings, scratch, results_dir)
    res['lookups'] = runner.analyse_lookups(pyperf, path)
    if interp.role == 'backport':
        path = runner.measure_group(pyperf, interp, 'untouched', settings.untouched_values,
                                    settings, scratch, results_dir)
        res['untouched'] = runner.analyse_untouched(pyperf, path)
    elif interp.role == 'patched' and stock:
        files = runner.measure_alternating(pyperf, stock, interp, [], settings, scratch,
                                           results_dir, '%s-everyday' % interp.slug,
                                           group='everyday')
        res['everyday'] = runner.analyse_alternating(
            pyperf, files, {key: name for key, name, _ in EVERYDAY})
    if interp.role != 'stock':
        path = runner.measure_import(pyperf, interp, settings, results_dir)
        res['import'] = runner.analyse_import(pyperf, path)
    return res


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()
    settings = runner.Settings(args.quick)
    if args.backport:
        backport = os.path.abspath(args.backport)
        if not os.path.isfile(os.path.join(backport, 'enum_backport', '__init__.py')):
            say('%s holds no enum_backport package' % backport)
            return 2
        runner.set_backport_dir(backport)
    if args.output_dir:
        out_dir = os.path.abspath(args.output_dir)
    elif args.quick or args.backport:
        out_dir = os.path.join(runner.cache_dir(),
                               'bench-quick' if args.quick else 'bench-backport')
    else:
        out_dir = HERE
    results_dir = os.path.join(out_dir, 'results')
    os.makedirs(results_dir, exist_ok=True)

    # The harness reads pyperf files with pyperf and draws the plot with
    # matplotlib, in a venv of the interpreter running this script.
    driver = Interpreter('driver %d.%d' % sys.version_info[:2], sys.executable, 'driver')
    driver_python = runner.ensure_venv(driver, [runner.PYPERF, MATPLOTLIB])
    driver_root = os.path.dirname(os.path.dirname(driver_python))
    if os.path.realpath(sys.prefix) != os.path.realpath(driver_root):
        os.execv(driver_python, [driver_python, os.path.abspath(__file__)]
                 + (sys.argv[1:] if argv is None else list(argv)))
    import pyperf

    interpreters, missing = gather_interpreters(args)
    for what in missing:
        say('*** NOT MEASURED: %s was not found ***' % what)
    if not interpreters:
        say('no interpreter to measure')
        return 1

    for interp in interpreters:
        interp.venv_python = runner.ensure_venv(interp, [runner.PYPERF, runner.AENUM])

    stock = next((i for i in interpreters if i.role == 'stock'), None)
    patched = next((i for i in interpreters if i.role == 'patched'), None)
    if stock and patched:
        same = (runner.build_config(stock.executable)
                == runner.build_config(patched.executable))
        say('stock and patched 3.13.5 configure flags: %s'
            % ('the same' if same else 'DIFFERENT'))
        if not same:
            say('*** the patched/stock comparison is not like for like ***')

    builds = [(i.label, runner.build_identity(i.executable)) for i in interpreters
              if i.role in ('stock', 'patched')]
    load_start = runner.load_average()
    say('load average (1 min) at the start: %s' % load_start)
    results = []
    with tempfile.TemporaryDirectory(prefix='enum-bench-') as scratch:
        for interp in interpreters:
            t0 = time.monotonic()
            say('== %s (%s)' % (interp.label, interp.executable))
            results.append((interp.label,
                            measure(pyperf, interp, stock, settings, scratch, results_dir)))
            say('   %.0f s' % (time.monotonic() - t0))

    wall = time.monotonic() - started
    load = (load_start, runner.load_average())
    text = report.render(results, missing, settings, wall, builds, load)
    details = report.render_details(results)
    print(text)
    print()
    print(details)
    results_rst = os.path.join(out_dir, 'results.rst')
    details += __import__('threads').kept_section(results_rst)
    with open(results_rst, 'w') as f:
        f.write(text + '\n\n' + details + '\n')
    summary = os.path.join(results_dir, 'summary.json')
    with open(summary, 'w') as f:
        json.dump(report.plot_data(results), f, indent=1, sort_keys=True)
        f.write('\n')
    png = os.path.join(out_dir, 'membership.png')
    subprocess.run([driver_python, PLOTTER, summary, png], check=True)
    say('wrote %s, %s and %s' % (results_rst, png, results_dir))
    return 0


if __name__ == '__main__':
    sys.exit(main())
