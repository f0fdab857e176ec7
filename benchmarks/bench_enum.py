"""One benchmark worker: times enum lookups in this interpreter, side by side.

`run.py` starts this script in a venv of each interpreter it measures; it is
not meant to be run by hand, although it can be::

    python bench_enum.py lookups --backport --output lookups.json
    python bench_enum.py untouched --output plain.json

pyperf's own runner times one benchmark at a time, each in processes of its
own, so two statements it compares are measured seconds apart.  The ratios
this project reports are of statements timed next to each other: the
statements compared with each other form a group, and each round times every
statement of the group once, in an order that rotates from round to round.
Value i of every statement in a group comes from round i, so the ratios are
taken pair by pair.  The values are written as pyperf runs (one run per
process), so ``python -m pyperf stats`` and ``compare_to`` read the files.

Groups, for enums of each size n (a plain Enum whose values are 0..n-1):

* value-hit: ``E.from_value(v)`` beside ``E(v)``;
* value-miss: ``E.from_value(m, default=None)`` beside ``try: E(m)`` with
  ``except ValueError``;
* name-hit: ``E.from_name(k)`` beside ``E[k]`` and ``getattr(E, k, None)``;
* name-miss: ``E.from_name(x, default=None)`` beside ``try: E[x]`` with
  ``except KeyError``;
* in every one of these four, a metaclass method with the same signature
  that only returns its default (``E._bench_floor``, installed here): the
  least any lookup written as such a method can cost, the floor of the
  misses (beside a hit it is shown, "empty", but a hit cannot be that
  cheap);
* in the hit groups, a metaclass method whose body is only the subscript of
  the value map (``E._bench_least_value``) or the member map
  (``E._bench_least_name``): the least any from_value or from_name that
  finds its member can cost, and so the floor of a hit;
* in both name groups, a from_name that tests whether a default was given
  only after a miss (``E._bench_try_first_name``: the subscript under
  ``try``): what the backport's from_name would cost without the test its
  hits pay, and what its misses would cost then;
* in-hit and in-miss: ``v in E`` for every size side by side, so the time at
  10,000 members is compared with the time at 10 measured next to it;
* flag: on a Flag of 20 single-bit members, ``c in F`` for a composite value
  not created as a pseudo-member, beside a miss (a bit outside the flag) and
  a single member's value;
* peer-in-hit and peer-in-miss, at 10 and 10,000 members: ``p in E`` beside
  ``p in A``, where ``A`` is an ``aenum.Enum`` (aenum 3.1.17, what a user
  would pick instead for a value-checking ``in``) with the same members, and
  beside ``p in Z``, ``Z`` an enum whose metaclass's ``__contains__`` only
  returns False (the floor of any ``in`` written in Python);
* nopatch-*, at 10 and 10,000 members: each function of
  enum_backport_nopatch beside the method it stands for
  (``from_value(E, v)`` beside ``E.from_value(v)``, ``contains(E, p)``
  beside ``p in E`` ...), hits and misses with a default, and beside a plain
  function of the same signature that only returns its default (its floor).

Wherever a default is passed, it is passed by keyword, as the lookups take
it (their default is keyword-only), and so are the floors' and the other
stand-in methods' defaults, so that a ratio compares calls of one shape.

The `untouched` group (``E(v)``, ``E.M`` and creating an enum class) is timed
side by side in one process that imports enum_backport, each statement with
EnumType's attributes as they were before the import and as the import left
them, put in place before each timing.  The `everyday` group (``in``, the
constructor, ``E[k]``, Flag ``in``, call (also making its pseudo-member
anew) and ``|``, iteration, class creation) is timed in processes of
the stock and the patched 3.13.5 builds, alternating, to hold the change to
stock's speed.

Statements an interpreter cannot run (``from_value`` without the backport or
the CPython change, ``in`` with a non-member before 3.12) are left out.  The
`lookups` group imports aenum (run.py installs it in each venv), so that a
missing peer fails the run rather than leaving its column empty.
"""

import argparse
import enum
import gc
import sys
import textwrap
import time

import pyperf

SIZES = (10, 100, 1000, 10000)
#: The sizes at which `in` is timed beside aenum's.
PEER_SIZES = (10, 10000)
#: Copies of the statement in the body of the timing loop, so that the
#: loop's own cost is spread over many executions of the statement.
UNROLL = 10


def _pick_timer():
    # The thread's CPU clock leaves out the time this process spends waiting
    # while other processes run, which on a shared machine swamps the
    # difference between two statements; pyperf's wall clock counts it.
    try:
        info = time.get_clock_info('thread_time')
    except (AttributeError, ValueError):
        return 'perf_counter', pyperf.perf_counter
    if info.resolution > 1e-6:
        return 'perf_counter', pyperf.perf_counter
    return 'thread_time', time.thread_time


TIMER_NAME, TIMER = _pick_timer()


class Statement:
    def __init__(self, name, code, namespace, unroll=UNROLL, before=None):
        self.name = name
        self.code = code
        self.unroll = unroll
        # Called before each timing, untimed: it sets the state the
        # statement is timed in.
        self.before = before
        self.loops = None
        self.values = []
        self.warmups = []
        self._timer = _compile(code, namespace, unroll)

    def time(self, loops):
        return self._timer(loops)


def _compile(code, namespace, unroll):
    # Everything the statement names is bound as a default argument, that is
    # a fast local, as timeit does with its setup.
    names = sorted(namespace)
    params = ''.join(', %s=%s' % (name, name) for name in names)
    body = textwrap.indent(textwrap.dedent(code).strip() + '\n', ' ' * 8)
    source = (
        'def timer(_loops, _clock=_clock%s):\n'
        '    _range = range(_loops)\n'
        '    _t0 = _clock()\n'
        '    for _ in _range:\n'
        '%s'
        '    return _clock() - _t0\n'
    ) % (params, body * unroll)
    scope = dict(namespace, _clock=TIMER)
    exec(compile(source, '<bench %r>' % code, 'exec'), scope)
    return scope['timer']


def make_enum(size):
    return enum.Enum('E%d' % size, [('M%d' % i, i) for i in range(size)])


def make_peer_enum(size):
    import aenum
    return aenum.Enum('A%d' % size, [('M%d' % i, i) for i in range(size)])


def has_value_checking_in():
    # Before 3.12, `in` raises TypeError for anything but a member.
    try:
        return (-1 in enum.Enum('Probe', 'A')) is False
    except TypeError:
        return False


def _floor(cls, value, /, *, default=None):
    # A method of the metaclass with the signature of from_value and
    # from_name that does nothing: what any such method costs to call.
    return default


#: from_name's "no default given", for _try_first_name.
_NOT_GIVEN = object()


if '__getattr__' in vars(type(enum.Enum)):
    # Up to 3.11 a plain attribute read of an enum class takes the slow way
    # round EnumType.__getattr__; the backport reads as these do, with
    # type.__getattribute__ bound to a global once.
    _read = type.__getattribute__

    def _least_value(cls, value, /, *, default=None):
        # The one step a value hit cannot do without, and no other: what a
        # from_value that finds its member costs at the least.
        return _read(cls, '_value2member_map_')[value]

    def _least_name(cls, name, /, *, default=None):
        # The same for a name hit and from_name.
        return _read(cls, '_member_map_')[name]

    def _try_first_name(cls, name, /, *, default=_NOT_GIVEN):
        # A from_name whose hit is the subscript alone: it learns whether a
        # default was given only after a miss, which has raised KeyError.
        try:
            return _read(cls, '_member_map_')[name]
        except (TypeError, KeyError):
            # Inline, as in from_name: a call here would be timed too.
            if default is _NOT_GIVEN:
                raise ValueError('%r is not a valid %s member name'
                                 % (name, cls.__qualname__)) from None
            return default
else:
    def _least_value(cls, value, /, *, default=None):
        return cls._value2member_map_[value]

    def _least_name(cls, name, /, *, default=None):
        return cls._member_map_[name]

    def _try_first_name(cls, name, /, *, default=_NOT_GIVEN):
        try:
            return cls._member_map_[name]
        except (TypeError, KeyError):
            if default is _NOT_GIVEN:
                raise ValueError('%r is not a valid %s member name'
                                 % (name, cls.__qualname__)) from None
            return default


def _floor_function(enum_class, value, /, *, default=None):
    # A function with the signature of enum_backport_nopatch's that does
    # nothing: what any such function costs to call.
    return default


class _FloorMeta(type(enum.Enum)):
    def __contains__(cls, value):
        # The least any `in` written in Python costs.
        return False


class _FloorEnum(enum.Enum, metaclass=_FloorMeta):
    pass


def make_floor_enum(size):
    return _FloorEnum('Z%d' % size, [('M%d' % i, i) for i in range(size)])


def lookup_groups(sizes):
    has_lookups = hasattr(type(enum.Enum), 'from_value')
    if has_lookups:
        type(enum.Enum)._bench_floor = _floor
        type(enum.Enum)._bench_least_value = _least_value
        type(enum.Enum)._bench_least_name = _least_name
        type(enum.Enum)._bench_try_first_name = _try_first_name
    has_in = has_value_checking_in()
    enums = {size: make_enum(size) for size in set(sizes) | set(PEER_SIZES)}
    groups = []
    for size in sizes:
        ns = {
            'E': enums[size],
            'v': size // 2,  # a hit in the middle, where a scan stops halfway
            'm': -1,
            'k': 'M%d' % (size // 2),
            'x': 'NOPE',
        }
        tag = ' [n=%d]' % size
        if has_lookups:
            groups.append(('value-hit' + tag, [
                Statement('from_value hit' + tag, 'E.from_value(v)', ns),
                Statement('E(v) hit' + tag, 'E(v)', ns),
                Statement('floor value hit' + tag, 'E._bench_floor(v)', ns),
                Statement('least value hit' + tag, 'E._bench_least_value(v)', ns),
            ]))
            groups.append(('value-miss' + tag, [
                Statement('from_value miss default' + tag,
                          'r = E.from_value(m, default=None)', ns),
                Statement('try E(v) miss' + tag, '''
                    try:
                        r = E(m)
                    except ValueError:
                        r = None
                ''', ns),
                Statement('floor value miss' + tag, 'r = E._bench_floor(m, default=None)', ns),
            ]))
            groups.append(('name-hit' + tag, [
                Statement('from_name hit' + tag, 'E.from_name(k)', ns),
                Statement('E[name] hit' + tag, 'E[k]', ns),
                Statement('getattr hit' + tag, 'getattr(E, k, None)', ns),
                Statement('floor name hit' + tag, 'E._bench_floor(k)', ns),
                Statement('least name hit' + tag, 'E._bench_least_name(k)', ns),
                Statement('try-first name hit' + tag, 'E._bench_try_first_name(k)', ns),
            ]))
            groups.append(('name-miss' + tag, [
                Statement('from_name miss default' + tag,
                          'r = E.from_name(x, default=None)', ns),
                Statement('try E[name] miss' + tag, '''
                    try:
                        r = E[x]
                    except KeyError:
                        r = None
                ''', ns),
                Statement('floor name miss' + tag, 'r = E._bench_floor(x, default=None)', ns),
                Statement('try-first name miss' + tag,
                          'r = E._bench_try_first_name(x, default=None)', ns),
            ]))
    if has_in:
        for kind, probe in (('hit', lambda size: size // 2), ('miss', lambda size: -1)):
            groups.append(('in-' + kind, [
                Statement('in %s [n=%d]' % (kind, size), 'p in E',
                          {'E': enums[size], 'p': probe(size)})
                for size in sizes
            ]))
        flag = enum.Flag('F', ['F%d' % i for i in range(20)])
        composite = 0
        for bit in (0, 3, 7, 12, 19):
            composite |= 1 << bit
        for size in PEER_SIZES:
            peer, floor = make_peer_enum(size), make_floor_enum(size)
            for kind, probe in (('hit', size // 2), ('miss', -1)):
                ns = {'E': enums[size], 'A': peer, 'Z': floor, 'p': probe}
                groups.append(('peer-in-%s [n=%d]' % (kind, size), [
                    Statement('peer in %s [n=%d]' % (kind, size), 'p in E', ns),
                    Statement('aenum in %s [n=%d]' % (kind, size), 'p in A', ns),
                    Statement('floor in %s [n=%d]' % (kind, size), 'p in Z', ns),
                ]))
        groups.append(('flag', [
            Statement('in flag composite [20 flags]', 'p in F',
                      {'F': flag, 'p': composite}),
            Statement('in flag miss [20 flags]', 'p in F',
                      {'F': flag, 'p': 1 << 20 | 1}),
            Statement('in flag single [20 flags]', 'p in F',
                      {'F': flag, 'p': 1 << 7}),
        ]))
    if has_lookups and has_in:
        groups += nopatch_groups(enums)
    return groups


def nopatch_groups(enums):
    """enum_backport_nopatch's functions beside the methods, and their floor."""
    from enum_backport_nopatch import contains, from_name, from_value
    groups = []
    for size in PEER_SIZES:
        tag = ' [n=%d]' % size
        ns = {'E': enums[size], 'v': size // 2, 'm': -1, 'k': 'M%d' % (size // 2),
              'x': 'NOPE', 'from_value': from_value, 'from_name': from_name,
              'contains': contains, 'floor': _floor_function}
        for key, function, method in (
                ('value hit', 'from_value(E, v)', 'E.from_value(v)'),
                ('value miss', 'r = from_value(E, m, default=None)',
                 'r = E.from_value(m, default=None)'),
                ('name hit', 'from_name(E, k)', 'E.from_name(k)'),
                ('name miss', 'r = from_name(E, x, default=None)',
                 'r = E.from_name(x, default=None)'),
                ('contains hit', 'contains(E, v)', 'v in E'),
                ('contains miss', 'contains(E, m)', 'm in E')):
            probe = function.split('(E, ')[1].split(',')[0].rstrip(')')
            groups.append(('nopatch-%s%s' % (key.replace(' ', '-'), tag), [
                Statement('nopatch %s%s' % (key, tag), function, ns),
                Statement('method %s%s' % (key, tag), method, ns),
                Statement('nopatch floor %s%s' % (key, tag),
                          'r = floor(E, %s, default=None)' % probe, ns),
            ]))
    return groups


# What "class creation" times: a 5-member enum class, made afresh.
CLASS_CREATION = '''
class C(Enum):
    A = 1
    B = 2
    C = 3
    D = 4
    E = 5
'''


def patch_states():
    """Import enum_backport; return functions that take EnumType out of and into its patch.

    Every attribute of the metaclass that the import changed is put back as
    it was, or as the import left it, so the two states differ by the patch
    alone, in one process.  Only for timing: up to 3.11 a class made without
    the patch is not noted, and the patched `in` may then answer wrongly
    for it; on 3.13 every switch uses up one of the type versions a class
    gets (about 1,000), after which reads of EnumType's attributes slow
    down, so a run switches a few hundred times at most.
    """
    metaclass = type(enum.Enum)
    before = dict(vars(metaclass))
    import enum_backport  # noqa: F401
    after = dict(vars(metaclass))
    changed = [name for name in set(before) | set(after)
               if before.get(name) is not after.get(name)]
    if not changed:
        raise SystemExit('bench_enum: importing enum_backport changed nothing')

    def setter(state):
        def put():
            for name in changed:
                if name in state:
                    setattr(metaclass, name, state[name])
                elif name in vars(metaclass):
                    delattr(metaclass, name)
        return put

    return setter(before), setter(after)


def untouched_groups(without, with_):
    """Operations the backport leaves alone, timed without and with its patch."""
    E = make_enum(10)
    ns = {'E': E, 'v': 5, 'Enum': enum.Enum}

    def collecting(put):
        # The classes a timing made are garbage once it ends (the collector
        # is off while it runs): collected before the next, so that neither
        # of the two times the other's garbage.
        def before():
            put()
            gc.collect()
        return before

    # A group of two for each operation, so that the rounds alternate which
    # of the two is timed first.
    groups = []
    for name, code, unroll, wrap in (
            ('untouched E(v)', 'E(v)', UNROLL, None),
            ('untouched E.M', 'E.M5', UNROLL, None),
            ('untouched class creation', CLASS_CREATION, 1, collecting)):
        groups.append(('untouched', [
            Statement(name + suffix, code, ns, unroll, before=wrap(put) if wrap else put)
            for suffix, put in (('', without), (' patched', with_))]))
    return groups


def everyday_groups():
    """Everyday statements, to time the patched build against the stock one."""
    E = make_enum(10)
    F = enum.Flag('F', ['F%d' % i for i in range(20)])
    composite = 0
    for bit in (0, 3, 7, 12, 19):
        composite |= 1 << bit
    ns = {'E': E, 'v': 5, 'm': -1, 'k': 'M5', 'Enum': enum.Enum, 'F': F,
          'c': composite, 'x': 1 << 20, 'a': F.F0, 'b': F.F3,
          'D': {'M%d' % i: i for i in range(10)}, 'C': type('C', (), {})}
    statements = [
        Statement('everyday in hit', 'v in E', ns),
        Statement('everyday in miss', 'm in E', ns),
        Statement('everyday Flag in', 'c in F', ns),
        Statement('everyday Flag in miss', 'x in F', ns),
        # Check, then construct, a value seen for the first time: the flag
        # PR decides it in `in` without creating what the call then creates
        # ("no point in doing the work twice", PR #132790).
        Statement('everyday Flag check new', '''
            F._value2member_map_.pop(c, None)
            if c in F:
                F(c)
        ''', ns),
    ] if has_value_checking_in() else []
    return [('everyday', statements + [
        Statement('everyday E(v) hit', 'E(v)', ns),
        Statement('everyday E(v) miss', '''
            try:
                E(m)
            except ValueError:
                pass
        ''', ns),
        Statement('everyday E[k]', 'E[k]', ns),
        Statement('everyday Flag call', 'F(c)', ns),
        # The pseudo-member made again each time: the path of `_missing_`
        # that F(c) takes only the first time (the pop costs both builds
        # the same).
        Statement('everyday Flag new', '''
            F._value2member_map_.pop(c, None)
            F(c)
        ''', ns),
        Statement('everyday Flag |', 'a | b', ns),
        Statement('everyday iteration', '''
            for _member in E:
                pass
        ''', ns),
        Statement('everyday class creation', CLASS_CREATION, ns, unroll=1),
        # Controls: no enum involved, so a ratio away from 1 here is the
        # builds' (or the machine's) difference, not the change's.
        Statement('everyday control dict', 'D[k]', ns),
        Statement('everyday control class', 'class C: pass', ns, unroll=1),
    ])]


def calibrate(statement, min_time):
    if statement.before is not None:
        statement.before()
    # One call first, untimed: what a statement does only once (the checked
    # functions note a class the first time they see it, which on 3.8 to
    # 3.10 hashes every member value) would otherwise be timed as its
    # steady cost, and a single call that passes min_time leaves one loop.
    statement.time(1)
    loops = 1
    while True:
        elapsed = statement.time(loops)
        if elapsed >= min_time or loops >= 2 ** 32:
            return loops
        # Aim a little over min_time so one more try usually suffices.
        loops = max(loops * 2, int(loops * min_time * 1.2 / max(elapsed, 1e-9)))


def measure(groups, nvalue, nwarmup, min_time):
    for _, statements in groups:
        for statement in statements:
            statement.loops = calibrate(statement, min_time)
    gc_was_enabled = gc.isenabled()
    for round_index in range(nwarmup + nvalue):
        for _, statements in groups:
            shift = round_index % len(statements)
            for statement in statements[shift:] + statements[:shift]:
                if statement.before is not None:
                    statement.before()
                gc.disable()
                try:
                    raw = statement.time(statement.loops)
                finally:
                    if gc_was_enabled:
                        gc.enable()
                value = raw / (statement.loops * statement.unroll)
                if round_index < nwarmup:
                    statement.warmups.append((statement.loops, value))
                else:
                    statement.values.append(value)
        gc.collect()


#: What pyperf collects about the system that goes into the results; left out
#: are the host name and the paths of the interpreter and its build.
KEPT_METADATA = (
    'perf_version', 'date', 'platform', 'load_avg_1min', 'runnable_threads',
    'cpu_model_name', 'cpu_count', 'cpu_freq', 'python_implementation',
    'python_version', 'python_compiler', 'python_cflags', 'mem_max_rss',
)


def to_suite(groups, variant):
    benchmarks = []
    for group, statements in groups:
        for statement in statements:
            metadata = {
                'name': statement.name,
                'timer': TIMER_NAME,
                'loops': statement.loops,
                'inner_loops': statement.unroll,
                'description': '%s | %s | %s' % (
                    group, variant, ' / '.join(
                        line.strip() for line in statement.code.strip().splitlines())),
            }
            collected = pyperf.Run([1.0], metadata={'name': 'x'}).get_metadata()
            metadata.update((key, collected[key]) for key in KEPT_METADATA
                            if key in collected)
            run = pyperf.Run(statement.values, warmups=statement.warmups,
                             metadata=metadata, collect_metadata=False)
            benchmarks.append(pyperf.Benchmark([run]))
    return pyperf.BenchmarkSuite(benchmarks)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('group', choices=('lookups', 'untouched', 'everyday'))
    parser.add_argument('--backport', action='store_true',
                        help='import enum_backport before building the enums')
    parser.add_argument('--output', required=True, help='pyperf JSON file to write')
    parser.add_argument('--values', type=int, default=10)
    parser.add_argument('--warmups', type=int, default=1)
    parser.add_argument('--min-time', type=float, default=0.004,
                        help='seconds each value lasts at least (default 0.004)')
    parser.add_argument('--sizes', default=','.join(map(str, SIZES)))
    args = parser.parse_args(argv)

    variant = 'backport' if args.backport else 'native'
    if args.group == 'untouched':
        # Always with the backport imported: without and with its patch,
        # side by side.
        groups = untouched_groups(*patch_states())
        variant = 'backport'
    else:
        if args.backport:
            import enum_backport  # noqa: F401
        if args.group == 'lookups':
            groups = lookup_groups([int(size) for size in args.sizes.split(',')])
        else:
            groups = everyday_groups()
    measure(groups, args.values, args.warmups, args.min_time)
    suite = to_suite(groups, variant)
    suite.dump(args.output, replace=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
