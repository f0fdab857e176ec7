#!/usr/bin/env python3
"""Enum lookups per second from 1, 2, 4 and 8 threads, with and without the GIL.

    python3 benchmarks/threads.py              # the full run, a few minutes
    python3 benchmarks/threads.py --quick      # a smoke run; writes nothing
    python3 benchmarks/threads.py --alternatives   # dict.get against its rivals
    python3 benchmarks/threads.py --backport DIR   # another enum_backport; writes nothing

Interpreters, all CPython 3.13.5 from ``tools/cpython_change.py build``
(which reuses finished builds): the stock and patched builds with the GIL,
and the same two built free-threaded (``--disable-gil``, ``python3.13t``).
On each stock build the lookups are timed twice, as stock enum spells them
(``E(v)``, ``E[k]``, ``try``/``except`` for a miss) and as the backport
does (``import enum_backport``, ``E.from_value(v, default=None)`` ...); on each
patched build, natively.

One measurement: N threads, released together by a barrier, share a fixed
amount of work on the same classes (an Enum, an IntEnum, a Flag and an
IntFlag: hits and misses of ``in``, ``from_value`` and ``from_name``, and
flag combinations already made); lookups per second is that work over the
wall time from the first thread's start after the barrier to the last
thread's end.  Each interpreter and
spelling runs in a process of its own, N = 1, 2, 4, 8 in turn, ROUNDS
times; the figures are medians over the rounds.  The machine's load
average is printed with the table: on a shared machine it moves the 8/2
ratio more than anything measured here.

A full run writes its table into benchmarks/results.rst, between the
``thread-results`` markers (benchmarks/run.py keeps the section when it
rewrites results.rst; the handbook includes that file).

``--alternatives`` times the three ways to look a key up in a dict that
many threads share (``d.get(k)``; ``k in d`` then ``d[k]``; ``d[k]`` under
``try``), hits and misses, on the GIL and free-threaded stock builds: on
3.13t ``dict.get`` takes the dict's lock (CPython dropped it in 3.14:
GH-129336, for gh-112075), the other two do not.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BACKPORT_DIR = os.path.join(REPO, 'backport')
CHANGE_TOOL = os.path.join(REPO, 'tools', 'cpython_change.py')
RESULTS = os.path.join(HERE, 'results.rst')
START = '.. thread-results-start'
END = '.. thread-results-end'
THREADS = (1, 2, 4, 8)
TARGET = 0.9     # 8 threads at least this times the throughput of 2

# ---------------------------------------------------------------- worker

WORKER = r'''
import enum, sys, threading, time
mode, counts, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
counts = [int(n) for n in counts.split(',')]
if mode == 'backport':
    import enum_backport
if mode in ('backport', 'native'):
    assert hasattr(enum.EnumType, 'from_value')
else:
    assert not hasattr(enum.EnumType, 'from_value')

class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3

class Level(enum.IntEnum):
    LOW = 10
    MID = 20
    HIGH = 30

class Perm(enum.Flag):
    R = 1
    W = 2
    X = 4

class Bits(enum.IntFlag):
    A = 1
    B = 2
    C = 4

KINDS = [(Color, 2, 9, 'GREEN'), (Level, 20, 99, 'MID'), (Perm, 5, 8, 'X'), (Bits, 3, None, 'C')]
LOOKUPS = 0

if mode == 'stock':
    def one_pass():
        n = 0
        for E, hit, miss, name in KINDS:
            hit in E
            E(hit)
            E[name]
            try:
                E['NOPE']
            except KeyError:
                pass
            n += 4
            if miss is not None:
                miss in E
                try:
                    E(miss)
                except ValueError:
                    pass
                n += 2
        return n
else:
    def one_pass():
        n = 0
        for E, hit, miss, name in KINDS:
            hit in E
            E.from_value(hit)
            E.from_name(name)
            E.from_name('NOPE', default=None)
            n += 4
            if miss is not None:
                miss in E
                E.from_value(miss, default=None)
                n += 2
        return n

PER_PASS = one_pass()   # also makes Perm(5) and Bits(3) before the timing

def measure(count):
    barrier = threading.Barrier(count + 1)
    share = work // count
    starts, ends = [], []
    def worker():
        barrier.wait()
        starts.append(time.perf_counter())
        for _ in range(share):
            one_pass()
        ends.append(time.perf_counter())
    threads = [threading.Thread(target=worker) for _ in range(count)]
    for t in threads:
        t.start()
    barrier.wait()
    for t in threads:
        t.join()
    # From the first thread's start to the last one's end, as each saw it:
    # the main thread may be let run again only after the others.
    return share * count * PER_PASS / (max(ends) - min(starts))

gil = getattr(sys, '_is_gil_enabled', lambda: True)()
for _ in range(rounds):
    print(' '.join('%d:%.0f' % (n, measure(n)) for n in counts), flush=True)
print('gil', gil)
'''

ALTERNATIVES = r'''
import sys, threading, time
counts = [int(n) for n in sys.argv[1].split(',')]
work, rounds = int(sys.argv[2]), int(sys.argv[3])

class K:
    pass
d = {i: K() for i in range(20)}

def get(keys):
    g = d.get
    for k in keys:
        g(k)

def in_then_index(keys):
    for k in keys:
        if k in d:
            d[k]

def index_under_try(keys):
    for k in keys:
        try:
            d[k]
        except KeyError:
            pass

HITS = list(range(20)) * 5
MISSES = list(range(100, 120)) * 5

def measure(function, keys, count):
    barrier = threading.Barrier(count + 1)
    share = work // count
    starts, ends = [], []
    def worker():
        barrier.wait()
        starts.append(time.perf_counter())
        for _ in range(share):
            function(keys)
        ends.append(time.perf_counter())
    threads = [threading.Thread(target=worker) for _ in range(count)]
    for t in threads:
        t.start()
    barrier.wait()
    for t in threads:
        t.join()
    return share * count * len(keys) / (max(ends) - min(starts))

for _ in range(rounds):
    for function in (get, in_then_index, index_under_try):
        for label, keys in (('hit', HITS), ('miss', MISSES)):
            print(function.__name__, label,
                  ' '.join('%d:%.0f' % (n, measure(function, keys, n)) for n in counts),
                  flush=True)
'''


# ---------------------------------------------------------------- driver

def say(message):
    print(message, file=sys.stderr, flush=True)


def build(kind, freethreaded):
    """The interpreter of one 3.13.5 build, from tools/cpython_change.py (built if need be)."""
    command = [sys.executable, CHANGE_TOOL, 'build', '--' + kind]
    if freethreaded:
        command.append('--freethreaded')
    out = subprocess.run(command, stdout=subprocess.PIPE, universal_newlines=True)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise SystemExit('%s failed (exit %d)' % (' '.join(command), out.returncode))
    return lines[-1].strip()


def child_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith('PYTHON')}
    env['PYTHONPATH'] = BACKPORT_DIR
    return env


def parse_rates(lines):
    """{threads: [lookups/s per round]} from the worker's 'N:rate' lines."""
    rates = {}
    for line in lines:
        for item in re.findall(r'(\d+):(\d+)', line):
            rates.setdefault(int(item[0]), []).append(float(item[1]))
    return rates


def run_worker(python, mode, work, rounds):
    out = subprocess.run([python, '-c', WORKER, mode, ','.join(map(str, THREADS)),
                          str(work), str(rounds)], env=child_env(),
                         stdout=subprocess.PIPE, universal_newlines=True, check=True)
    lines = out.stdout.splitlines()
    gil = lines[-1].split()[-1] == 'True'
    return parse_rates(lines[:-1]), gil


def load():
    return ', '.join('%.1f' % x for x in os.getloadavg())


def rst_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    rule = '  '.join('=' * w for w in widths)

    def line(cells):
        return '  '.join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return '\n'.join([rule, line(header), rule] + [line(r) for r in rows] + [rule])


def fmt_rate(value):
    return '%.2fM' % (value / 1e6)


def throughput(args):
    configs = []
    for freethreaded in (False, True):
        t = 't' if freethreaded else ''
        stock = build('stock', freethreaded)
        patched = build('patched', freethreaded)
        configs += [('3.13.5%s stock' % t, stock, 'stock'),
                    ('3.13.5%s stock + backport' % t, stock, 'backport'),
                    ('3.13.5%s patched' % t, patched, 'native')]
    loads = [load()]
    results = []
    for label, python, mode in configs:
        say('== %s (%s), load average %s' % (label, python, load()))
        started = time.monotonic()
        # Stock's misses raise and catch: a quarter of the passes take as long.
        work = args.work // 4 if mode == 'stock' else args.work
        rates, gil = run_worker(python, mode, work, args.rounds)
        medians = {n: statistics.median(rates[n]) for n in THREADS}
        ratio = medians[8] / medians[2]
        say('   %s; 8/2 = %.2f; %.0f s' % (
            ', '.join('%d: %s' % (n, fmt_rate(medians[n])) for n in THREADS), ratio,
            time.monotonic() - started))
        results.append((label, gil, medians, ratio, rates))
        loads.append(load())
    return results, loads


def render(results, loads, args):
    stock_ok = {}
    for label, gil, medians, ratio, _ in results:
        if label.endswith(' stock'):
            stock_ok[label.split()[0]] = ratio >= TARGET
    rows = []
    for label, gil, medians, ratio, rates in results:
        build_name = label.split()[0]
        if label.endswith(' stock'):
            verdict = 'reference'
        elif not stock_ok[build_name]:
            verdict = 'n/a (stock below)'
        else:
            verdict = 'ok' if ratio >= TARGET else 'MISS'
        spread = '%.2f-%.2f' % (min(a / b for a, b in zip(rates[8], rates[2])),
                                max(a / b for a, b in zip(rates[8], rates[2])))
        rows.append([label, 'on' if gil else 'off']
                    + [fmt_rate(medians[n]) for n in THREADS]
                    + ['%.2f' % ratio, spread, verdict])
    header = ['interpreter', 'GIL'] + ['%d thread%s' % (n, 's' if n > 1 else '')
                                      for n in THREADS] + ['8/2', 'rounds', 'target']
    when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    text = [
        'Enum lookups per second (millions) from 1, 2, 4 and 8 threads sharing',
        'the same classes (``python3 benchmarks/threads.py``; see its docstring),',
        'CPython 3.13.5 built with the GIL and free-threaded (``t``), on %d cores;'
        % os.cpu_count(),
        'medians of %d rounds.  "8/2": 8 threads\' throughput over 2 threads\''
        % args.rounds,
        '(target: at least %.1fx wherever stock reaches it on the same build;' % TARGET,
        '"rounds": the least and greatest of the rounds\' own ratios).  Measured',
        '%s; load average (1, 5, 15 min) %s at the start, %s at the end:'
        % (when, loads[0], loads[-1]),
        'on a loaded machine threads get the cores less often, which moves',
        'every figure here.',
        '',
        rst_table(header, rows),
    ]
    return '\n'.join(text)


def replace_section(path, block, append=False):
    """Put BLOCK between the markers of PATH; append them if absent and APPEND."""
    with open(path) as f:
        text = f.read()
    start, end = text.find(START), text.find(END)
    section = START + '\n\n' + block + '\n\n' + END
    if start >= 0 and end > start:
        text = text[:start] + section + text[end + len(END):]
    elif append:
        text = text.rstrip('\n') + '\n\n' + section + '\n'
    else:
        say('%s has no %s / %s markers; not updated' % (path, START, END))
        return
    with open(path, 'w') as f:
        f.write(text)
    say('updated %s' % path)


def kept_section(path):
    """The thread section of results.rst at PATH, to carry over a rewrite ('' if none).

    benchmarks/run.py calls this before it writes results.rst anew.
    """
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return ''
    start, end = text.find(START), text.find(END)
    return '\n\n' + text[start:end + len(END)] if 0 <= start < end else ''


def alternatives(args):
    rows = []
    for freethreaded in (False, True):
        python = build('stock', freethreaded)
        name = '3.13.5' + ('t' if freethreaded else '')
        say('== %s: dict lookups, load average %s' % (name, load()))
        out = subprocess.run([python, '-c', ALTERNATIVES, '1,2,8', str(args.work * 4),
                              str(args.rounds)], env=child_env(), stdout=subprocess.PIPE,
                             universal_newlines=True, check=True)
        found = {}
        for line in out.stdout.splitlines():
            function, label, rest = line.split(' ', 2)
            for n, rates in parse_rates([rest]).items():
                found.setdefault((function, label), {}).setdefault(n, []).extend(rates)
        for (function, label), rates in found.items():
            medians = {n: statistics.median(r) for n, r in rates.items()}
            rows.append([name, function, label] + [fmt_rate(medians[n]) for n in (1, 2, 8)]
                        + ['%.2f' % (medians[8] / medians[2])])
    print('load average after: %s' % load())
    print(rst_table(['build', 'lookup', 'keys', '1 thread', '2 threads', '8 threads', '8/2'],
                    rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run; writes nothing')
    parser.add_argument('--alternatives', action='store_true',
                        help='time dict.get, `in` then [], [] under try; writes nothing')
    parser.add_argument('--backport', metavar='DIR',
                        help='the directory holding the enum_backport package to measure '
                             '(default: backport/); with it nothing is written')
    parser.add_argument('--rounds', type=int, help='rounds per thread count (default 7)')
    parser.add_argument('--work', type=int,
                        help='passes over the lookups per measurement '
                             '(default 160000; stock a quarter)')
    args = parser.parse_args(argv)
    global BACKPORT_DIR
    if args.backport:
        BACKPORT_DIR = os.path.abspath(args.backport)
    args.rounds = args.rounds or (2 if args.quick else 7)
    args.work = args.work or (800 if args.quick else 160000)
    say('load average (1, 5, 15 min): %s on %d cores' % (load(), os.cpu_count()))
    if args.alternatives:
        alternatives(args)
        return 0
    results, loads = throughput(args)
    text = render(results, loads, args)
    print(text)
    if not args.quick and not args.backport:
        replace_section(RESULTS, text, append=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
