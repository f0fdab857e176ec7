#!/usr/bin/env python3
"""Benchmark enum_backport and the CPython change; write the table and plot.

    python3 benchmarks/run.py           # the full run, a few minutes
    python3 benchmarks/run.py --quick   # a smoke run; writes under the cache

Interpreters measured (each in a venv of its own, with pyperf and aenum
3.1.17, under ``${ENUM_FROM_VALUE_CACHE:-$HOME/.cache/enum-from-value}/venvs/bench``):

* CPython 3.8, 3.11, 3.12 and 3.13.0 with ``import enum_backport``, found
  as pyenv versions or as ``python3.X`` on PATH (``--python`` names others);
* stock CPython 3.13.5 with ``import enum_backport``, and on its own;
* patched CPython 3.13.5 (the change, natively).

The two 3.13.5 builds come from ``tools/cpython_change.py build``, which
builds both with the same configure flags (and reuses finished builds);
``--stock`` and ``--patched`` name interpreters instead.

For each interpreter `bench_enum.py` times the statements compared with
each other side by side in one process, and the ratios are medians of
ratios of values measured next to each other (see bench_enum.py); ``in`` is
also timed beside aenum's, the peer a user would pick instead.  Enum
operations that the backport leaves alone are timed in processes with and
without the backport (on the patched build: the patched build against the
stock one), alternating, and compared round by round.  The import cost is
read from ``-X importtime``.

Outputs, for a full run: benchmarks/results.rst (the tables printed),
benchmarks/membership.png (time of ``in`` against member count) and the
pyperf files in benchmarks/results/; the part of README.rst between the
``benchmark-results`` markers is replaced by the tables.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
#: The directory holding the enum_backport package measured (--backport).
BACKPORT_DIR = os.path.join(REPO, 'backport')
WORKER = os.path.join(HERE, 'bench_enum.py')
PLOTTER = os.path.join(HERE, 'plot_membership.py')
README = os.path.join(REPO, 'README.rst')
CHANGE_TOOL = os.path.join(REPO, 'tools', 'cpython_change.py')

#: The interpreters the backport is measured on by default (version prefixes;
#: 3.13.0 exactly, as 3.13.1 changed `in`).
BACKPORT_VERSIONS = ('3.8', '3.11', '3.12', '3.13.0')
SIZES = (10, 100, 1000, 10000)
#: The sizes at which `in` is timed beside aenum's (bench_enum.PEER_SIZES).
PEER_SIZES = (10, 10000)
PYPERF = 'pyperf'
#: The peer `in` is measured against, pinned: its __contains__ is an
#: isinstance() check and one dict lookup.
AENUM = 'aenum==3.1.17'
MATPLOTLIB = 'matplotlib'

README_START = '.. benchmark-results-start'
README_END = '.. benchmark-results-end'

#: (key, column heading, what is measured, limit, kind): 'max' is met by a
#: value at most the limit, 'within' by a ratio within the limit of 1, 'ms'
#: by milliseconds at most the limit.
TARGETS = [
    ('value_hit', 'fv hit', '``E.from_value(v)`` / ``E(v)``, a hit', 0.8, 'max'),
    ('value_miss', 'fv miss', '``E.from_value(m, None)`` / ``try: E(m)`` '
     '``except ValueError``', 0.3, 'max'),
    ('in_hit', 'in hit', '``v in E``, a hit: 10,000 members / 10 members', 1.5, 'max'),
    ('in_miss', 'in miss', '``m in E``, a miss: 10,000 members / 10 members', 1.5, 'max'),
    ('peer_in_hit', 'aenum hit', '``v in E`` / ``v in A``, ``A`` an aenum 3.1.17 Enum with the '
     'same members, a hit: 10 and 10,000 members', 1.2, 'max'),
    ('peer_in_miss', 'aenum miss', '``m in E`` / ``m in A``, a miss: 10 and 10,000 members',
     1.2, 'max'),
    ('name_hit', 'fn hit', '``E.from_name(k)`` / ``E[k]``, a hit', 2.5, 'max'),
    ('name_miss', 'fn miss', '``E.from_name(x, None)`` / ``try: E[x]`` '
     '``except KeyError``', 0.6, 'max'),
    ('import', 'import', '``import enum_backport``: ms of its own modules, least of the '
     '``-X importtime`` runs', 2.0, 'ms'),
    ('same_call', 'E(v)', '``E(v)`` with / without the backport (patched / stock)',
     0.05, 'within'),
    ('same_attr', 'E.M', '``E.M`` with / without the backport (patched / stock)',
     0.05, 'within'),
    ('same_class', 'class', 'creating a 5-member enum class, with / without the '
     'backport (patched / stock)', 0.05, 'within'),
    ('flags', 'flags', 'patched 3.13.5 / stock 3.13.5 + backport, the worst of the four '
     '``flags`` statements below', 1.2, 'max'),
]

#: Statement pairs (numerator, denominator) whose ratio a target reads, by
#: target key; '{n}' is the member count.
PAIRS = {
    'value_hit': ('from_value hit [n={n}]', 'E(v) hit [n={n}]'),
    'value_miss': ('from_value miss default [n={n}]', 'try E(v) miss [n={n}]'),
    'name_hit': ('from_name hit [n={n}]', 'E[name] hit [n={n}]'),
    'name_getattr': ('from_name hit [n={n}]', 'getattr hit [n={n}]'),
    'name_miss': ('from_name miss default [n={n}]', 'try E[name] miss [n={n}]'),
    # `in` beside aenum's, at 10 and 10,000 members only.
    'peer_in_hit': ('peer in hit [n={n}]', 'aenum in hit [n={n}]'),
    'peer_in_miss': ('peer in miss [n={n}]', 'aenum in miss [n={n}]'),
    # A metaclass method that only returns its default, against the same.
    'floor_value_miss': ('floor value miss [n={n}]', 'try E(v) miss [n={n}]'),
    'floor_name_hit': ('floor name hit [n={n}]', 'E[name] hit [n={n}]'),
    'floor_name_miss': ('floor name miss [n={n}]', 'try E[name] miss [n={n}]'),
}
UNTOUCHED = {
    'same_call': 'untouched E(v)',
    'same_attr': 'untouched E.M',
    'same_class': 'untouched class creation',
}
#: The Flag paths that decide a value without creating a pseudo-member,
#: timed on the patched build against the backport on the stock build.
FLAGS = {
    'flags_composite': 'flags in composite',
    'flags_outside': 'flags in outside bit',
    'flags_uncovered': 'flags in strict uncovered',
    'flags_from_value': 'flags from_value strict miss',
}


class Settings:
    def __init__(self, quick):
        self.quick = quick
        # Full run: 3 lookup processes of 12 rounds each, 20 rounds of paired
        # processes for the untouched operations, 15 imports of each kind.
        self.lookup_processes = 1 if quick else 3
        self.lookup_values = 4 if quick else 12
        self.untouched_rounds = 2 if quick else 20
        self.untouched_values = 5 if quick else 8
        self.imports = 5 if quick else 15
        self.min_time = 0.002 if quick else 0.004


# --- interpreters and venvs -------------------------------------------------

class Interpreter:
    """One interpreter and the role it plays in the run."""

    def __init__(self, label, executable, role):
        self.label = label          # what the table calls it
        self.executable = executable
        self.role = role            # 'backport', 'stock' or 'patched'
        self.venv_python = None
        self.slug = re.sub(r'[^A-Za-z0-9.]+', '-', label).strip('-').lower()

    def __repr__(self):
        return '<%s %s>' % (self.label, self.executable)


def cache_dir():
    return os.path.expanduser(
        os.environ.get('ENUM_FROM_VALUE_CACHE') or '~/.cache/enum-from-value'
    )


def say(message):
    print(message, file=sys.stderr, flush=True)


def python_version(executable):
    try:
        out = subprocess.run(
            [executable, '-c', 'import platform; print(platform.python_version())'],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            universal_newlines=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_backport_interpreter(prefix):
    """A CPython whose version starts with `prefix`: pyenv's, else on PATH."""
    major_minor = '.'.join(prefix.split('.')[:2])
    candidates = []
    pyenv_root = os.environ.get('PYENV_ROOT') or os.path.expanduser('~/.pyenv')
    for path in sorted(glob.glob(os.path.join(pyenv_root, 'versions', prefix + '*',
                                              'bin', 'python' + major_minor))):
        candidates.append(path)
    found = shutil.which('python' + major_minor)
    if found:
        candidates.append(found)
    for path in candidates:
        version = python_version(path)
        if version and (version == prefix or version.startswith(prefix + '.')):
            return path, version
    return None, None


def find_build(kind):
    """The interpreter of the stock or patched 3.13.5 build, built if need be."""
    if not os.path.isfile(CHANGE_TOOL):
        return None
    say('asking tools/cpython_change.py for the %s build '
        '(it builds one if none is finished; that takes a while)' % kind)
    out = subprocess.run(
        [sys.executable, CHANGE_TOOL, 'build', '--' + kind],
        stdout=subprocess.PIPE, universal_newlines=True,
    )
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        say('cpython_change.py build --%s failed (exit %d)' % (kind, out.returncode))
        return None
    return lines[-1].strip()


def build_identity(executable):
    """Which 3.13.5 build `executable` is, told without this machine's paths.

    The build's directory name (tools/cpython_change.py keys a patched
    build by the diffs it was made from) and the sha256 of its enum.py,
    so a re-run after the change moves shows which enum it measured.
    """
    match = re.search(r'(?:^|/)((?:stock|patched)-[0-9a-f]+)/', os.path.realpath(executable))
    code = ('import enum, hashlib; '
            'print(hashlib.sha256(open(enum.__file__, "rb").read()).hexdigest()[:12])')
    out = subprocess.run([executable, '-I', '-c', code], stdout=subprocess.PIPE,
                         universal_newlines=True)
    return '%s, its enum.py of sha256 %s' % (
        'build %s' % match.group(1) if match else 'not a tools/cpython_change.py build',
        (out.stdout.strip() + '...') if out.stdout.strip() else 'unknown')


def build_config(executable):
    """The configure arguments of a build, its own --prefix removed."""
    code = ('import sysconfig; print(sysconfig.get_config_var("CONFIG_ARGS"));'
            'print(sysconfig.get_config_var("prefix"))')
    out = subprocess.run([executable, '-c', code], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True)
    args, prefix = out.stdout.strip().splitlines()
    return args.replace(prefix, '<prefix>')


def ensure_venv(interpreter, packages):
    """A venv of `interpreter` holding `packages`; returns its python.

    Keyed by the interpreter and the packages, so that a harness wanting
    other packages makes a venv of its own beside an older one (which a
    run of the older harness may be using) instead of replacing it.
    """
    real = os.path.realpath(interpreter.executable)
    key = hashlib.sha256(('%s\n%s' % (real, ' '.join(packages))).encode()).hexdigest()[:8]
    root = os.path.join(cache_dir(), 'venvs', 'bench', '%s-%s' % (interpreter.slug, key))
    python = os.path.join(root, 'bin', 'python')
    stamp = os.path.join(root, 'bench-ok')
    wanted = ' '.join(packages)
    if os.path.isfile(stamp) and os.path.isfile(python):
        with open(stamp) as f:
            if f.read().strip() == wanted:
                return python
    if os.path.exists(root):
        shutil.rmtree(root)     # an attempt of this key that did not finish
    say('making venv for %s: %s' % (interpreter.label, wanted))
    log = root + '.log'
    os.makedirs(os.path.dirname(root), exist_ok=True)
    with open(log, 'w') as f:
        for command in ([real, '-m', 'venv', root],
                        [python, '-m', 'pip', 'install', '--disable-pip-version-check',
                         '--quiet'] + list(packages)):
            if subprocess.run(command, stdout=f, stderr=subprocess.STDOUT).returncode:
                raise SystemExit('making the venv for %s failed; see %s'
                                 % (interpreter.label, log))
    with open(stamp, 'w') as f:
        f.write(wanted + '\n')
    return python


# --- running ----------------------------------------------------------------

def worker_env(seed):
    env = dict(os.environ)
    for name in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'PYTHONINSPECT',
                 'PYTHONDEVMODE', 'PYTHONMALLOC', 'PYTHONWARNINGS', 'PYTHONPROFILEIMPORTTIME',
                 'PYTHONDONTWRITEBYTECODE', 'PYTHONOPTIMIZE'):
        env.pop(name, None)
    # Both variants see the backport on sys.path; only one imports it.
    env['PYTHONPATH'] = BACKPORT_DIR
    env['PYTHONHASHSEED'] = str(seed)
    # Imports read bytecode, as an installed package's would, kept out of
    # the source tree.
    env['PYTHONPYCACHEPREFIX'] = os.path.join(cache_dir(), 'pycache-bench')
    return env


def run_worker(python, args, seed):
    subprocess.run([python, WORKER] + args, env=worker_env(seed), check=True)


def append_runs(pyperf, target, source):
    """Add the runs of pyperf file `source` to pyperf file `target`."""
    suite = pyperf.BenchmarkSuite.load(source)
    if os.path.exists(target):
        merged = pyperf.BenchmarkSuite.load(target)
        for bench in suite.get_benchmarks():
            merged.add_runs(bench)
        suite = merged
    suite.dump(target, replace=True)


def measure_lookups(pyperf, interp, settings, scratch, out_dir):
    target = os.path.join(out_dir, '%s-lookups.json' % interp.slug)
    if os.path.exists(target):
        os.remove(target)
    variant = ['--backport'] if interp.role == 'backport' else []
    for index in range(settings.lookup_processes):
        part = os.path.join(scratch, '%s-lookups-%d.json' % (interp.slug, index))
        run_worker(interp.venv_python,
                   ['lookups', '--output', part, '--values', str(settings.lookup_values),
                    '--min-time', str(settings.min_time)] + variant, seed=index)
        append_runs(pyperf, target, part)
    return target


def measure_untouched(pyperf, baseline, variant, variant_args, settings, scratch,
                      out_dir, name, group='untouched', baseline_args=()):
    """Alternate processes of `baseline` and `variant`, round by round."""
    targets = {}
    for which in ('baseline', 'variant'):
        targets[which] = os.path.join(out_dir, '%s-%s.json' % (name, which))
        if os.path.exists(targets[which]):
            os.remove(targets[which])
    for round_index in range(settings.untouched_rounds):
        order = [('baseline', baseline.venv_python, list(baseline_args)),
                 ('variant', variant.venv_python, variant_args)]
        if round_index % 2:
            order.reverse()
        for which, python, extra in order:
            part = os.path.join(scratch, '%s-%s-%d.json' % (name, which, round_index))
            run_worker(python, [group, '--output', part,
                                '--values', str(settings.untouched_values),
                                '--min-time', str(settings.min_time)] + extra,
                       seed=round_index)
            append_runs(pyperf, targets[which], part)
    return targets


IMPORTTIME_LINE = re.compile(r'^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$')
# What it adds to a program that imports enum (and threading).
IMPORT_WITH_DEPS_CODE = 'import enum, threading; import enum_backport'
# The packages and modules that the import above brings in besides the
# package's own, by top-level name: importing those brings in their
# submodules as it did there, while aliases that typing puts in sys.modules
# (typing.io on 3.12) are not imported as modules of their own.
NEW_MODULES_CODE = (
    'import sys, enum, threading\n'
    'before = set(sys.modules)\n'
    'import enum_backport\n'
    'print(" ".join(sorted(set(name.split(".")[0] for name in set(sys.modules) - before)\n'
    '                      - {"enum_backport"})))\n'
)


def own_import_code(deps, timed=False):
    """Code that imports `deps`, collects garbage, then imports the package.

    So only the package's own modules are charged to it, and no collection
    of the others' garbage that would fall due during its import; `timed`
    times the import by the CPU clock as well and prints the seconds.
    """
    first = 'import enum, gc, threading, time' + ''.join(', ' + name for name in deps)
    if not timed:
        return first + '; gc.collect(); import enum_backport'
    return (first + '\n'
            'gc.collect()\n'
            't0 = time.thread_time()\n'
            'import enum_backport\n'
            'print(time.thread_time() - t0)\n')


def own_import_time(stderr):
    """Self time of enum_backport's modules and cumulative time of the package, in s."""
    own, cumulative = 0, None
    for line in stderr.splitlines():
        match = IMPORTTIME_LINE.match(line)
        if not match:
            continue
        module = match.group(4)
        if module == 'enum_backport' or module.startswith('enum_backport.'):
            own += int(match.group(1))
            if module == 'enum_backport':
                cumulative = int(match.group(2))
    if cumulative is None:
        raise RuntimeError('no enum_backport in -X importtime output:\n' + stderr)
    return own * 1e-6, cumulative * 1e-6


def measure_import(pyperf, interp, settings, out_dir):
    """`import enum_backport` by -X importtime, and by the CPU clock."""
    python = interp.venv_python
    out = subprocess.run([python, '-c', NEW_MODULES_CODE], env=worker_env(0),
                         stdout=subprocess.PIPE, universal_newlines=True, check=True)
    deps = out.stdout.split()
    own_code, cpu_code = own_import_code(deps), own_import_code(deps, timed=True)
    values = {'own': [], 'cumulative': [], 'cpu': []}

    def importtime(code, seed):
        out = subprocess.run([python, '-X', 'importtime', '-c', code],
                             env=worker_env(seed), stderr=subprocess.PIPE,
                             universal_newlines=True, check=True)
        return own_import_time(out.stderr)

    for index in range(settings.imports):
        values['own'].append(importtime(own_code, index)[0])
        values['cumulative'].append(importtime(IMPORT_WITH_DEPS_CODE, index)[1])
        out = subprocess.run([python, '-c', cpu_code], env=worker_env(index),
                             stdout=subprocess.PIPE, universal_newlines=True, check=True)
        values['cpu'].append(float(out.stdout))
    benchmarks = []
    for key, name in (('own', 'import enum_backport own'),
                      ('cumulative', 'import enum_backport cumulative'),
                      ('cpu', 'import enum_backport own cpu')):
        benchmarks.append(pyperf.Benchmark([
            pyperf.Run([value], metadata={'name': name}, collect_metadata=False)
            for value in values[key]
        ]))
    target = os.path.join(out_dir, '%s-import.json' % interp.slug)
    pyperf.BenchmarkSuite(benchmarks).dump(target, replace=True)
    return target


# --- analysis ---------------------------------------------------------------

def benches(pyperf, path):
    return {b.get_name(): b for b in pyperf.BenchmarkSuite.load(path).get_benchmarks()}


def paired_ratios(numerator, denominator):
    """Ratios of values measured next to each other: run i value j with run i value j."""
    ratios = []
    for run_a, run_b in zip(numerator.get_runs(), denominator.get_runs()):
        ratios.extend(a / b for a, b in zip(run_a.values, run_b.values))
    return ratios


def verdict(key, value):
    for target_key, _, _, limit, kind in TARGETS:
        if target_key == key:
            break
    else:
        return None
    if value is None:
        return None
    if kind == 'within':
        return abs(value - 1) <= limit
    return value <= limit


def analyse_lookups(pyperf, path):
    b = benches(pyperf, path)
    result = {'ratios': {}, 'medians': {}}
    for name, bench in b.items():
        result['medians'][name] = bench.median()
    for key, (num, den) in PAIRS.items():
        per_size = {}
        for n in SIZES:
            a, d = num.format(n=n), den.format(n=n)
            if a in b and d in b:
                per_size[n] = statistics.median(paired_ratios(b[a], b[d]))
        if per_size:
            result['ratios'][key] = per_size
    for kind in ('hit', 'miss'):
        big, small = 'in %s [n=%d]' % (kind, SIZES[-1]), 'in %s [n=%d]' % (kind, SIZES[0])
        if big in b and small in b:
            result['ratios']['in_' + kind] = statistics.median(paired_ratios(b[big], b[small]))
    return result


def analyse_untouched(pyperf, targets, names=UNTOUCHED):
    """Per round: median of the variant's values over the baseline's; median of those."""
    base, var = benches(pyperf, targets['baseline']), benches(pyperf, targets['variant'])
    result = {}
    for key, name in names.items():
        rounds = [statistics.median(rv.values) / statistics.median(rb.values)
                  for rb, rv in zip(base[name].get_runs(), var[name].get_runs())]
        result[key] = statistics.median(rounds)
        result[key + '_spread'] = (min(rounds), max(rounds))
    return result


def analyse_import(pyperf, path):
    b = benches(pyperf, path)
    own = b['import enum_backport own']
    return {
        'own_ms': own.median() * 1e3,
        'own_min_ms': min(own.get_values()) * 1e3,
        'cpu_ms': b['import enum_backport own cpu'].median() * 1e3,
        'cumulative_ms': b['import enum_backport cumulative'].median() * 1e3,
    }


# --- tables -----------------------------------------------------------------

def rst_table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    rule = '  '.join('=' * w for w in widths)

    def line(cells):
        return '  '.join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return '\n'.join([rule, line(header), rule] + [line(r) for r in rows] + [rule])


def fmt_ratio(value):
    return 'n/a' if value is None else '%.2f' % value


def target_cell(key, value):
    if value is None:
        return 'n/a'
    text = fmt_ratio(value)
    ok = verdict(key, value)
    return text if ok else text + ' MISS'


def summary_rows(results):
    rows = []
    for label, res in results:
        cells, missed = [label], []
        for key, _, _, _, _ in TARGETS:
            value = target_value(res, key)
            cells.append(target_cell(key, value))
            if value is not None and not verdict(key, value):
                missed.append(key)
        measured = any(target_value(res, key) is not None for key, _, _, _, _ in TARGETS)
        if not measured:
            cells.append('not run')
        elif res.get('role') == 'stock':
            cells.append('reference')
        else:
            cells.append('PASS' if not missed else 'MISS')
        rows.append(cells)
    return rows


def target_value(res, key):
    if key in ('value_hit', 'value_miss', 'name_hit', 'name_miss', 'peer_in_hit',
               'peer_in_miss'):
        per_size = res.get('lookups', {}).get('ratios', {}).get(key)
        # The worst size decides.
        return max(per_size.values()) if per_size else None
    if key in ('in_hit', 'in_miss'):
        return res.get('lookups', {}).get('ratios', {}).get(key)
    if key == 'flags':
        flags = res.get('flags')
        return max(flags[k] for k in FLAGS) if flags else None
    if key == 'import':
        # The least of the runs: -X importtime reads the wall clock, so time
        # that other processes take from a run is charged to the import; the
        # median by the CPU clock (in the details) checks the figure.
        return res.get('import', {}).get('own_min_ms')
    return res.get('untouched', {}).get(key)


def summary_table(results):
    header = ['interpreter'] + [heading for _, heading, _, _, _ in TARGETS] + ['all']
    return rst_table(header, summary_rows(results))


def legend_table():
    rows = []
    for _, heading, what, limit, kind in TARGETS:
        if kind == 'within':
            goal = 'within %g%%' % (limit * 100)
        elif kind == 'ms':
            goal = 'at most %g ms' % limit
        else:
            goal = 'at most %gx' % limit
        rows.append([heading, what, goal])
    return rst_table(['column', 'measured', 'target'], rows)


def ns(seconds):
    if seconds is None:
        return 'n/a'
    value = seconds * 1e9
    return '%.0f' % value if value < 10000 else '%.1fk' % (value / 1000)


def membership_table(results):
    header = ['interpreter'] + ['in %s n=%s' % (kind, n) for kind in ('hit', 'miss')
                                for n in SIZES] + ['flag composite', 'flag miss']
    rows = []
    for label, res in results:
        medians = res.get('lookups', {}).get('medians', {})
        if not any(name.startswith('in ') for name in medians):
            continue
        row = [label]
        for kind in ('hit', 'miss'):
            for n in SIZES:
                row.append(ns(medians.get('in %s [n=%d]' % (kind, n))))
        row.append(ns(medians.get('in flag composite [20 flags]')))
        row.append(ns(medians.get('in flag miss [20 flags]')))
        rows.append(row)
    return rst_table(header, rows)


def peer_table(results):
    """`in` against aenum's, size by size: the paired ratio, then both medians."""
    header = ['interpreter'] + ['%s n=%d' % (kind, n) for kind in ('hit', 'miss')
                                for n in PEER_SIZES]
    rows = []
    for label, res in results:
        lookups = res.get('lookups', {})
        ratios, medians = lookups.get('ratios', {}), lookups.get('medians', {})
        if 'peer_in_hit' not in ratios:
            continue
        row = [label]
        for kind in ('hit', 'miss'):
            for n in PEER_SIZES:
                ratio = ratios.get('peer_in_' + kind, {}).get(n)
                row.append('%s (%s / %s)' % (
                    target_cell('peer_in_' + kind, ratio),
                    ns(medians.get('peer in %s [n=%d]' % (kind, n))),
                    ns(medians.get('aenum in %s [n=%d]' % (kind, n)))))
        rows.append(row)
    return rst_table(header, rows) if rows else ''


def lookup_table(results):
    """Medians (ns) of every lookup statement at 10 and at 10,000 members."""
    statements = ['from_value hit', 'E(v) hit', 'from_value miss default', 'try E(v) miss',
                  'from_name hit', 'E[name] hit', 'getattr hit', 'from_name miss default',
                  'try E[name] miss']
    header = ['interpreter', 'n'] + statements
    rows = []
    for label, res in results:
        medians = res.get('lookups', {}).get('medians', {})
        if not any(name.startswith('from_value') for name in medians):
            continue
        for n in (SIZES[0], SIZES[-1]):
            rows.append([label, str(n)] + [
                ns(medians.get('%s [n=%d]' % (s, n))) for s in statements])
    return rst_table(header, rows)


def ratio_table(results):
    """Every paired ratio, size by size."""
    columns = [
        ('value_hit', 'fv hit / E(v)'),
        ('value_miss', 'fv miss / try E(v)'),
        ('floor_value_miss', 'floor / try E(v)'),
        ('name_hit', 'fn hit / E[k]'),
        ('name_getattr', 'fn hit / getattr'),
        ('floor_name_hit', 'floor / E[k]'),
        ('name_miss', 'fn miss / try E[k]'),
        ('floor_name_miss', 'floor / try E[k]'),
    ]
    header = ['interpreter', 'n'] + [heading for _, heading in columns]
    rows = []
    for label, res in results:
        ratios = res.get('lookups', {}).get('ratios', {})
        if 'value_hit' not in ratios:
            continue
        for n in SIZES:
            rows.append([label, str(n)] + [fmt_ratio(ratios.get(k, {}).get(n))
                                            for k, _ in columns])
    return rst_table(header, rows)


def flags_table(results):
    """The flags statements, patched against the stock build with the backport."""
    header = ['statement', 'patched ns', 'stock + backport ns', 'ratio', 'rounds']
    rows = []
    for _, res in results:
        flags = res.get('flags')
        if not flags:
            continue
        for key, name in FLAGS.items():
            rows.append([name[len('flags '):],
                         ns(flags['medians']['variant'][name]),
                         ns(flags['medians']['baseline'][name]),
                         target_cell('flags', flags[key]),
                         '%.2f-%.2f' % flags[key + '_spread']])
    return rst_table(header, rows) if rows else ''


def extra_table(results):
    header = ['interpreter', 'import own ms', 'least', 'CPU ms', 'with new deps ms',
              'E(v) rounds', 'E.M rounds', 'class rounds']
    rows = []
    for label, res in results:
        imp, unt = res.get('import', {}), res.get('untouched', {})
        if not imp and not unt:
            continue

        def spread(key):
            if key + '_spread' not in unt:
                return 'n/a'
            return '%.2f-%.2f' % unt[key + '_spread']

        rows.append([label,
                     '%.2f' % imp['own_ms'] if imp else 'n/a',
                     '%.2f' % imp['own_min_ms'] if imp else 'n/a',
                     '%.2f' % imp['cpu_ms'] if imp else 'n/a',
                     '%.2f' % imp['cumulative_ms'] if imp else 'n/a',
                     spread('same_call'), spread('same_attr'), spread('same_class')])
    return rst_table(header, rows)


# --- main -------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', action='store_true',
                        help='fewer processes and values; outputs go to the cache, '
                             'not benchmarks/')
    parser.add_argument('--python', action='append', metavar='PATH',
                        help='an interpreter to measure under the backport, instead of '
                             'the default 3.8, 3.11, 3.12, 3.13.0 (repeatable)')
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
    parser.add_argument('--no-readme', action='store_true',
                        help='do not update README.rst')
    parser.add_argument('--backport', metavar='DIR',
                        help='the directory holding the enum_backport package to '
                             'measure (default: backport/ of this checkout); implies '
                             '--no-readme unless --output-dir is given too')
    return parser.parse_args(argv)


def gather_interpreters(args):
    chosen, missing = [], []
    if args.python:
        for path in args.python:
            version = python_version(path)
            if not version:
                missing.append('%s (does not run)' % path)
                continue
            chosen.append(Interpreter('%s + backport' % version, path, 'backport'))
    else:
        for prefix in BACKPORT_VERSIONS:
            path, version = find_backport_interpreter(prefix)
            if path is None:
                missing.append('CPython %s' % prefix)
                continue
            chosen.append(Interpreter('%s + backport' % version, path, 'backport'))
    stock = args.stock or find_build('stock')
    if stock and python_version(stock):
        version = python_version(stock)
        chosen.append(Interpreter('%s stock + backport' % version, stock, 'backport'))
        chosen.append(Interpreter('%s stock' % version, stock, 'stock'))
    else:
        missing.append('stock CPython 3.13.5')
        stock = None
    if not args.no_patched:
        patched = args.patched or find_build('patched')
        if patched and python_version(patched):
            chosen.append(Interpreter('%s patched' % python_version(patched),
                                      patched, 'patched'))
        else:
            missing.append('patched CPython 3.13.5')
    return chosen, missing


def main(argv=None):
    global BACKPORT_DIR
    args = parse_args(argv)
    started = time.monotonic()
    settings = Settings(args.quick)
    if args.backport:
        BACKPORT_DIR = os.path.abspath(args.backport)
        if not os.path.isfile(os.path.join(BACKPORT_DIR, 'enum_backport', '__init__.py')):
            say('%s holds no enum_backport package' % BACKPORT_DIR)
            return 2
    if args.output_dir:
        out_dir = os.path.abspath(args.output_dir)
    elif args.quick or args.backport:
        out_dir = os.path.join(cache_dir(), 'bench-quick' if args.quick else 'bench-backport')
    else:
        out_dir = HERE
    results_dir = os.path.join(out_dir, 'results')
    os.makedirs(results_dir, exist_ok=True)

    # The harness reads pyperf files with pyperf and draws the plot with
    # matplotlib, in a venv of the interpreter running this script.
    driver = Interpreter('driver %d.%d' % sys.version_info[:2], sys.executable, 'driver')
    driver_python = ensure_venv(driver, [PYPERF, MATPLOTLIB])
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
        interp.venv_python = ensure_venv(interp, [PYPERF, AENUM])

    stock = next((i for i in interpreters if i.role == 'stock'), None)
    patched = next((i for i in interpreters if i.role == 'patched'), None)
    if stock and patched:
        same = build_config(stock.executable) == build_config(patched.executable)
        say('stock and patched 3.13.5 configure flags: %s'
            % ('the same' if same else 'DIFFERENT'))
        if not same:
            say('*** the patched/stock comparison is not like for like ***')

    builds = [(i.label, build_identity(i.executable)) for i in interpreters
              if i.role in ('stock', 'patched')]
    load_start = load_average()
    results = []
    with tempfile.TemporaryDirectory(prefix='enum-bench-') as scratch:
        for interp in interpreters:
            t0 = time.monotonic()
            say('== %s (%s)' % (interp.label, interp.executable))
            res = {'role': interp.role}
            path = measure_lookups(pyperf, interp, settings, scratch, results_dir)
            res['lookups'] = analyse_lookups(pyperf, path)
            if interp.role == 'backport':
                targets = measure_untouched(pyperf, interp, interp, ['--backport'],
                                            settings, scratch, results_dir,
                                            '%s-untouched' % interp.slug)
                res['untouched'] = analyse_untouched(pyperf, targets)
            elif interp.role == 'patched' and stock:
                targets = measure_untouched(pyperf, stock, interp, [], settings, scratch,
                                            results_dir, '%s-untouched' % interp.slug)
                res['untouched'] = analyse_untouched(pyperf, targets)
                targets = measure_untouched(pyperf, stock, interp, [], settings, scratch,
                                            results_dir, '%s-flags' % interp.slug,
                                            group='flags', baseline_args=['--backport'])
                res['flags'] = analyse_untouched(pyperf, targets, FLAGS)
                res['flags']['medians'] = {
                    which: {name: bench.median() for name, bench in
                            benches(pyperf, targets[which]).items()}
                    for which in ('baseline', 'variant')}
            if interp.role != 'stock':
                path = measure_import(pyperf, interp, settings, results_dir)
                res['import'] = analyse_import(pyperf, path)
            results.append((interp.label, res))
            say('   %.0f s' % (time.monotonic() - t0))

    wall = time.monotonic() - started
    load = (load_start, load_average())
    text = render(results, missing, settings, wall, builds, load)
    details = render_details(results)
    print(text)
    print()
    print(details)
    details += __import__('threads').kept_section(os.path.join(out_dir, 'results.rst'))
    with open(os.path.join(out_dir, 'results.rst'), 'w') as f:
        f.write(text + '\n\n' + details + '\n')
    with open(os.path.join(results_dir, 'summary.json'), 'w') as f:
        json.dump(plot_data(results), f, indent=1, sort_keys=True)
        f.write('\n')
    png = os.path.join(out_dir, 'membership.png')
    subprocess.run([driver_python, PLOTTER, os.path.join(results_dir, 'summary.json'), png],
                   check=True)
    say('wrote %s, %s and %s' % (os.path.join(out_dir, 'results.rst'), png, results_dir))
    if not args.quick and not args.no_readme and out_dir == HERE:
        update_readme(text)
    return 0


def load_average():
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def render(results, missing, settings, wall, builds=(), load=(None, None)):
    parts = [
        'Targets: medians of ratios of statements timed side by side in one run',
        '(for the lookups, the worst of 10, 100, 1,000 and 10,000 members);',
        '"MISS" marks a target not met.',
        '',
        summary_table(results),
        '',
        legend_table(),
    ]
    peers = peer_table(results)
    if peers:
        parts += [
            '',
            '``in`` beside aenum 3.1.17 (``A``: an ``aenum.Enum`` with the same members,',
            'values 0 to n-1; hit: the middle value, miss: -1), timed side by side',
            'in the same process on the same interpreter: the median of the',
            'per-round ratios, then the median ns of each:',
            '',
            peers,
        ]
    misses = missed_targets(results)
    if misses:
        parts += ['', 'Targets not met in this run:', ''] + misses
    flags = flags_table(results)
    if flags:
        parts += [
            '',
            'Flag values decided without creating a pseudo-member (``F``: a Flag of',
            '20 members, ``c`` five of them, ``o`` a bit outside them; ``S``: a',
            'STRICT Flag with members 1, 2, 4|2 and 8, ``u`` = 5, which its',
            'multi-bit member does not cover), patched 3.13.5 against stock 3.13.5',
            'with the backport, in alternating processes; ratio: median over the',
            'rounds of the ratio of the two processes\' medians:',
            '',
            flags,
        ]
    parts += [
        '',
        'Membership, median ns per ``in`` (hit: the middle member\'s value;',
        'miss: -1; flag: a Flag of 20 members, a value of 5 of them, and one',
        'with a bit outside them):',
        '',
        membership_table(results),
    ]
    if missing:
        parts += ['', 'NOT MEASURED (not found): ' + ', '.join(missing) + '.']
    if builds:
        parts += ['', 'Builds measured (tools/cpython_change.py keys a patched build by the',
                  'diffs it was made from):', '']
        parts += ['- %s: %s' % (label, identity) for label, identity in builds]
    loads = ' and '.join('n/a' if value is None else '%.2f' % value for value in load)
    parts += ['', '%s run: %.0f s wall time; load average (1 min) %s at its start and end, '
              'on %s CPUs.' % ('Quick' if settings.quick else 'Full', wall, loads,
                               os.cpu_count())]
    return '\n'.join(parts)


def missed_targets(results):
    lines = []
    for label, res in results:
        if res.get('role') == 'stock':
            continue
        for key, heading, what, limit, kind in TARGETS:
            value = target_value(res, key)
            if value is None or verdict(key, value):
                continue
            if kind == 'within':
                goal = 'within %g%% of 1' % (limit * 100)
            elif kind == 'ms':
                goal = 'at most %g ms' % limit
            else:
                goal = 'at most %gx' % limit
            lines.append('- %s, %s: %.2f%s (target %s)' % (
                label, heading, value, ' ms' if kind == 'ms' else 'x', goal))
    return lines


def render_details(results):
    return '\n'.join([
        'Paired ratios, size by size ("floor": a metaclass method with the',
        'same signature that only returns its default, timed beside the same',
        'statement; the least any lookup written as such a method costs):',
        '',
        ratio_table(results),
        '',
        'Median ns per statement at 10 and 10,000 members:',
        '',
        lookup_table(results),
        '',
        'Import in ms: its own modules by -X importtime (median and least of',
        'the runs, what else it imports imported before) and by the CPU clock;',
        'with the modules it imports that enum does not (typing, weakref), by',
        '-X importtime; and the range of the per-round ratios of the untouched',
        'operations:',
        '',
        extra_table(results),
    ])


def plot_data(results):
    series = []
    for label, res in results:
        medians = res.get('lookups', {}).get('medians', {})
        for kind in ('hit', 'miss'):
            points = [(n, medians.get('in %s [n=%d]' % (kind, n))) for n in SIZES]
            points = [(n, t) for n, t in points if t is not None]
            if points:
                series.append({'label': label, 'kind': kind,
                               'sizes': [n for n, _ in points],
                               'seconds': [t for _, t in points]})
    return {'series': series}


def update_readme(text):
    if not os.path.isfile(README):
        say('README.rst not found; not updated')
        return
    with open(README) as f:
        readme = f.read()
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        say('README.rst has no %s / %s markers; not updated' % (README_START, README_END))
        return
    start = readme.index('\n', start) + 1
    block = '\n' + text + '\n\n'
    with open(README, 'w') as f:
        f.write(readme[:start] + block + readme[end:])
    say('updated the benchmark results in README.rst')


if __name__ == '__main__':
    sys.exit(main())
