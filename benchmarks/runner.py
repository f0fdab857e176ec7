"""How the harness runs: interpreters, their venvs, and statements side by side.

Each interpreter gets a venv of its own (pyperf and aenum 3.1.17, under
``${ENUM_FROM_VALUE_CACHE:-$HOME/.cache/enum-from-value}/venvs/bench``).
bench_enum.py, started in that venv, times the statements compared with each
other side by side in one process; the ratios are medians of ratios of
values measured next to each other.  What two processes must be compared in
(with and without the backport; the patched build against the stock one)
is timed in processes that alternate, round by round.  The import cost is
read from ``-X importtime``.  Statement names and pairs are targets.py's.
"""

import glob
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys

from targets import PAIRS, SIZES, UNTOUCHED

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORKER = os.path.join(HERE, 'bench_enum.py')
CHANGE_TOOL = os.path.join(REPO, 'tools', 'cpython_change.py')
#: The directory holding the enum_backport package measured (run.py --backport).
BACKPORT_DIR = os.path.join(REPO, 'backport')
PYPERF = 'pyperf'
#: The peer `in` is measured against, pinned: its __contains__ is an
#: isinstance() check and one dict lookup.
AENUM = 'aenum==3.1.17'


class Settings:
    def __init__(self, quick):
        self.quick = quick
        # Full run: 3 lookup processes of 12 rounds each, 3 processes of 20
        # rounds for the untouched operations, 20 rounds of paired processes
        # of the two builds for the everyday ones, 15 imports of each kind.
        self.lookup_processes = 1 if quick else 3
        self.lookup_values = 4 if quick else 12
        self.untouched_values = 5 if quick else 20
        self.everyday_rounds = 2 if quick else 20
        self.everyday_values = 5 if quick else 8
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

def set_backport_dir(path):
    """Measure the enum_backport package in `path` instead of backport/."""
    global BACKPORT_DIR
    BACKPORT_DIR = path


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


def measure_group(pyperf, interp, group, values, settings, scratch, out_dir):
    """Time `group`, `values` rounds, in settings.lookup_processes workers; one file."""
    target = os.path.join(out_dir, '%s-%s.json' % (interp.slug, group))
    if os.path.exists(target):
        os.remove(target)
    variant = ['--backport'] if interp.role == 'backport' else []
    for index in range(settings.lookup_processes):
        part = os.path.join(scratch, '%s-%s-%d.json' % (interp.slug, group, index))
        run_worker(interp.venv_python,
                   [group, '--output', part, '--values', str(values),
                    '--min-time', str(settings.min_time)] + variant, seed=index)
        append_runs(pyperf, target, part)
    return target


def measure_alternating(pyperf, baseline, variant, variant_args, settings, scratch,
                        out_dir, name, group, baseline_args=()):
    """Alternate processes of `baseline` and `variant`, round by round."""
    targets = {}
    for which in ('baseline', 'variant'):
        targets[which] = os.path.join(out_dir, '%s-%s.json' % (name, which))
        if os.path.exists(targets[which]):
            os.remove(targets[which])
    for round_index in range(settings.everyday_rounds):
        order = [('baseline', baseline.venv_python, list(baseline_args)),
                 ('variant', variant.venv_python, variant_args)]
        if round_index % 2:
            order.reverse()
        for which, python, extra in order:
            part = os.path.join(scratch, '%s-%s-%d.json' % (name, which, round_index))
            run_worker(python, [group, '--output', part,
                                '--values', str(settings.everyday_values),
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


def analyse_lookups(pyperf, path):
    b = benches(pyperf, path)
    result = {'ratios': {}, 'medians': {}}
    for name, bench in b.items():
        result['medians'][name] = bench.median()
    # Every pair's median ratio by numerator, and by key the worst of its
    # pairs at each size.
    result['pairs'] = {}
    for key, pairs in PAIRS.items():
        per_size = {}
        for num, den in pairs:
            for n in SIZES:
                a, d = num.format(n=n), den.format(n=n)
                if a in b and d in b:
                    ratio = statistics.median(paired_ratios(b[a], b[d]))
                    result['pairs'][a] = ratio
                    per_size[n] = max(ratio, per_size.get(n, ratio))
        if per_size:
            result['ratios'][key] = per_size
    for kind in ('hit', 'miss'):
        big, small = 'in %s [n=%d]' % (kind, SIZES[-1]), 'in %s [n=%d]' % (kind, SIZES[0])
        if big in b and small in b:
            result['ratios']['in_' + kind] = statistics.median(paired_ratios(b[big], b[small]))
    return result


def analyse_untouched(pyperf, path):
    """Each untouched statement with the patch over without it, paired value by value.

    The median of the ratios, and their least and greatest (`key`_spread).
    """
    b = benches(pyperf, path)
    result = {}
    for key, name in UNTOUCHED.items():
        if name in b and name + ' patched' in b:
            ratios = paired_ratios(b[name + ' patched'], b[name])
            result[key] = statistics.median(ratios)
            result[key + '_spread'] = (min(ratios), max(ratios))
    return result


def analyse_alternating(pyperf, targets, names):
    """Per round: median of the variant's values over the baseline's; median of those."""
    base, var = benches(pyperf, targets['baseline']), benches(pyperf, targets['variant'])
    result = {'medians': {
        'baseline': {name: bench.median() for name, bench in base.items()},
        'variant': {name: bench.median() for name, bench in var.items()},
    }}
    for key, name in names.items():
        if name not in base or name not in var:
            continue
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


def load_average():
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
