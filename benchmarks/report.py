"""How the harness prints: the tables of results.rst, from runner.py's results.

Each result is (label, res) where res holds the role of the interpreter
('backport', 'stock' or 'patched'), its version, and what runner.py's
analyses returned.  Targets, limits and floors are targets.py's.
"""

import os

from targets import (EVERYDAY, EVERYDAY_CEILING, EVERYDAY_CONTROLS, EVERYDAY_UNJUDGED,
                     FLOOR_MARGIN, NOISE_MARGIN, NOPATCH_KINDS, PEER_SIZES, SIZES, TARGETS,
                     applies, assess, limit_for)


def rst_table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    rule = '  '.join('=' * w for w in widths)

    def line(cells):
        return '  '.join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return '\n'.join([rule, line(header), rule] + [line(r) for r in rows] + [rule])


def fmt_ratio(value):
    return 'n/a' if value is None else '%.2f' % value


def ns(seconds):
    if seconds is None:
        return 'n/a'
    value = seconds * 1e9
    return '%.0f' % value if value < 10000 else '%.1fk' % (value / 1000)


def fmt_limit(target, value):
    if target.kind == 'within':
        return '1\u00b1%.2f' % value
    return '%.2f' % value


def two_figures(value, limit):
    """`value` and `limit` to two decimals, or to as many more (up to four)
    as it takes to tell them apart."""
    places = 2
    while places < 4 and value != limit and '%.*f' % (places, value) == '%.*f' % (places, limit):
        places += 1
    return '%.*f' % (places, value), '%.*f' % (places, limit)


def figure_and_limit(target, assessment):
    """The figure and the limit it is judged by, as a verdict prints them."""
    if target.kind == 'within':
        return '%.2f' % assessment.value, fmt_limit(target, assessment.used)
    return two_figures(assessment.value, assessment.used)


# --- the targets --------------------------------------------------------------

#: What marks a figure met within the machine's noise, and what it means.
NOISE_MARK = '~'
NOISE_LEGEND = ('"%s" marks a figure over its limit by at most %d%%: met within the '
                "machine's noise, and counted as met"
                % (NOISE_MARK, round((NOISE_MARGIN - 1) * 100)))


def target_cell(target, assessment):
    """'figure / limit', 'f' after a limit re-set at the floor, '~' after a
    figure met within the machine's noise, MISS if not met."""
    if assessment is None:
        return 'n/a'
    figure, limit = figure_and_limit(target, assessment)
    cell = '%s / %s%s%s' % (figure, limit,
                            'f' if assessment.used != assessment.limit else '',
                            NOISE_MARK if assessment.noise else '')
    return cell if assessment.met else cell + ' MISS'


def targets_table(results):
    header = ['interpreter'] + [t.heading for t in TARGETS] + ['all']
    rows = []
    for label, res in results:
        if res['role'] == 'stock':
            continue
        row, missed, noisy, measured = [label], 0, 0, 0
        for target in TARGETS:
            if not applies(target, res['role']):
                row.append('-')
                continue
            assessment = assess(res, target, res['version'])
            row.append(target_cell(target, assessment))
            if assessment is not None:
                measured += 1
                missed += not assessment.met
                noisy += assessment.noise
        row.append('not run' if not measured else 'MISS' if missed
                   else 'PASS' + (NOISE_MARK if noisy else ''))
        rows.append(row)
    return rst_table(header, rows)


def legend_table():
    rows = []
    for target in TARGETS:
        if target.kind == 'within':
            limits = ['within %g%%' % (target.old * 100)] * 2
        elif target.kind == 'ms':
            limits = ['%g ms' % target.old] * 2
        else:
            limits = ['%gx' % target.old, '%gx' % target.new]
        rows.append([target.heading, target.what] + limits
                    + [target.floor.replace('_', ' ') if target.floor else '-'])
    return rst_table(['column', 'measured', '3.8-3.10', '3.11+', 'floor'], rows)


def floors_table(results):
    """Each floor measured, and the limit it makes (floor + 10%) where that is higher."""
    with_floor = [t for t in TARGETS if t.floor]
    header = ['interpreter'] + [t.heading for t in with_floor]
    rows = []
    for label, res in results:
        if res['role'] == 'stock':
            continue
        row = [label]
        for target in with_floor:
            assessment = assess(res, target, res['version'])
            if not applies(target, res['role']) or assessment is None:
                row.append('-')
            elif assessment.floor is None:
                row.append('n/a')
            else:
                raised = assessment.floor * FLOOR_MARGIN
                shown, limit = two_figures(raised, assessment.limit)
                row.append('%.2f (%s%s)' % (assessment.floor, shown,
                                            ' > %s' % limit
                                            if raised > assessment.limit else ''))
        rows.append(row)
    return rst_table(header, rows)


def missed_targets(results, noise=False):
    """A line for each target not met, or with `noise`, for each met within
    the machine's noise."""
    lines = []
    for label, res in results:
        for target in TARGETS:
            if not applies(target, res['role']):
                continue
            assessment = assess(res, target, res['version'])
            if assessment is None or (not assessment.noise if noise else assessment.met):
                continue
            unit = ' ms' if target.kind == 'ms' else 'x'
            why = ''
            if assessment.floor is not None:
                why = ('; its floor %.2fx, +10%%: %.2fx' % (
                    assessment.floor, assessment.floor * FLOOR_MARGIN))
            figure, limit = figure_and_limit(target, assessment)
            lines.append('- %s, %s: %s%s (limit %s%s%s)' % (
                label, target.heading, figure, unit,
                limit, unit if target.kind != 'within' else '', why))
    return lines


# --- side by side tables ------------------------------------------------------

def peer_table(results):
    """`in` against aenum's, size by size: the paired ratio, then the medians."""
    header = ['interpreter'] + ['%s n=%d' % (kind, n) for kind in ('hit', 'miss')
                                for n in PEER_SIZES]
    rows = []
    for label, res in results:
        lookups = res.get('lookups', {})
        pairs, medians = lookups.get('pairs', {}), lookups.get('medians', {})
        if not any(name.startswith('peer in') for name in pairs):
            continue
        row = [label]
        for kind in ('hit', 'miss'):
            for n in PEER_SIZES:
                ratio = pairs.get('peer in %s [n=%d]' % (kind, n))
                row.append('%s (%s / %s; floor %s)' % (
                    fmt_ratio(ratio),
                    ns(medians.get('peer in %s [n=%d]' % (kind, n))),
                    ns(medians.get('aenum in %s [n=%d]' % (kind, n))),
                    ns(medians.get('floor in %s [n=%d]' % (kind, n)))))
        rows.append(row)
    return rst_table(header, rows) if rows else ''


def nopatch_table(results):
    """Each patch-free function over its method, then both medians, at 10 members."""
    header = ['interpreter', 'n'] + list(NOPATCH_KINDS)
    rows = []
    for label, res in results:
        lookups = res.get('lookups', {})
        pairs, medians = lookups.get('pairs', {}), lookups.get('medians', {})
        if not any(name.startswith('nopatch') for name in pairs):
            continue
        for n in PEER_SIZES:
            rows.append([label, str(n)] + [
                '%s (%s / %s)' % (fmt_ratio(pairs.get('nopatch %s [n=%d]' % (kind, n))),
                                  ns(medians.get('nopatch %s [n=%d]' % (kind, n))),
                                  ns(medians.get('method %s [n=%d]' % (kind, n))))
                for kind in NOPATCH_KINDS])
    return rst_table(header, rows) if rows else ''


def everyday_table(results):
    """Patched 3.13.5 against stock 3.13.5, statement by statement."""
    header = ['statement', 'stock ns', 'patched ns', 'patched / stock', 'rounds', 'ceiling']
    rows = []
    for _, res in results:
        everyday = res.get('everyday')
        if not everyday:
            continue
        for key, name, what in EVERYDAY:
            if key not in everyday:
                continue
            ratio = everyday[key]
            judged = key not in EVERYDAY_UNJUDGED
            rows.append([what, ns(everyday['medians']['baseline'].get(name)),
                         ns(everyday['medians']['variant'].get(name)),
                         '%.2f%s' % (ratio, ' MISS' if judged and ratio > EVERYDAY_CEILING
                                     else ''),
                         '%.2f-%.2f' % everyday[key + '_spread'],
                         '%.2f' % EVERYDAY_CEILING if judged else '-'])
    return rst_table(header, rows) if rows else ''


def everyday_misses(results):
    """The everyday statements over the ceiling, each with the controls' ratios."""
    lines = []
    for _, res in results:
        everyday = res.get('everyday')
        if not everyday:
            continue
        controls = ', '.join('%s %.2fx' % (what, everyday[key])
                             for key, _, what in EVERYDAY
                             if key in EVERYDAY_CONTROLS and key in everyday)
        for key, _, what in EVERYDAY:
            if key in everyday and key not in EVERYDAY_UNJUDGED and (
                    everyday[key] > EVERYDAY_CEILING):
                figure, ceiling = two_figures(everyday[key], EVERYDAY_CEILING)
                lines.append('- %s: %sx (ceiling %sx; the controls in the same run: %s)'
                             % (what, figure, ceiling, controls))
    return lines


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
    """Every paired ratio of the lookups, size by size, with the floors."""
    columns = [
        ('value_hit', 'fv hit / E(v)'),
        ('floor_value_hit', 'empty / E(v)'),
        ('least_value_hit', 'least / E(v)'),
        ('value_miss', 'fv miss / try E(v)'),
        ('floor_value_miss', 'floor / try E(v)'),
        ('name_hit', 'fn hit / E[k]'),
        ('name_getattr', 'fn hit / getattr'),
        ('floor_name_hit', 'empty / E[k]'),
        ('least_name_hit', 'least / E[k]'),
        ('try_first_name_hit', 'try-first / E[k]'),
        ('name_miss', 'fn miss / try E[k]'),
        ('floor_name_miss', 'floor / try E[k]'),
        ('try_first_name_miss', 'try-first / try E[k]'),
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


def extra_table(results):
    header = ['interpreter', 'import own ms', 'least', 'CPU ms', 'with new deps ms',
              'E(v) pairs', 'E.M pairs', 'class pairs']
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


# --- the page -----------------------------------------------------------------

def render(results, missing, settings, wall, builds=(), load=(None, None)):
    parts = [
        'Targets (issue 28): medians of ratios of statements timed side by side',
        'in one run (for the lookups, the worst of 10, 100, 1,000 and 10,000',
        'members).  Each cell is "figure / limit"; "f" marks a limit re-set at',
        'the floor plus 10% (the floor cannot meet the limit itself); "MISS"',
        'marks a target not met; "-" a target that does not apply (the patched',
        'build\'s bar is stock 3.13.5: see the table after these).',
        NOISE_LEGEND + '.',
        '',
        targets_table(results),
        '',
        legend_table(),
        '',
        'Floors ("floor": the same statement made by a metaclass method, or a',
        'function, that only returns its default, or a metaclass ``__contains__``',
        'that only returns False; for fv hit and fn hit, by a metaclass method',
        'whose body is only the subscript of the value map or the member map,',
        'as a hit must find its member: "least" in the size-by-size table;',
        'timed beside the same denominator): the floor, then the floor plus',
        '10%, and the limit it replaces where it is higher:',
        '',
        floors_table(results),
    ]
    misses = missed_targets(results)
    parts += ['', 'Targets not met in this run:', ''] + (misses or ['- none'])
    parts += ['', 'Targets met within the machine\'s noise in this run (%s):' % NOISE_MARK,
              ''] + (missed_targets(results, noise=True) or ['- none'])
    everyday = everyday_table(results)
    if everyday:
        parts += [
            '',
            'Patched 3.13.5 against stock 3.13.5 (issue 27: the change costs at most',
            '%.1fx stock on everyday statements), in alternating processes of the' % (
                EVERYDAY_CEILING),
            'two builds; ratio: median over the rounds of the ratio of the two',
            'processes\' medians (``E``: an Enum of 10 members, ``F``: a Flag of 20;',
            'the controls involve no enum, and show what the two builds differ by',
            'apart from the change; they, and what a program does once per value,',
            'are not held to the ceiling):',
            '',
            everyday,
            '',
            'Everyday statements over the ceiling in this run:',
            '',
        ] + (everyday_misses(results) or ['- none'])
    peers = peer_table(results)
    if peers:
        parts += [
            '',
            '``in`` beside aenum 3.1.17 (``A``: an ``aenum.Enum`` with the same members,',
            'values 0 to n-1; hit: the middle value, miss: -1), timed side by side',
            'in the same process on the same interpreter: the median of the',
            'per-round ratios, then the median ns of each and of the floor:',
            '',
            peers,
        ]
    nopatch = nopatch_table(results)
    if nopatch:
        parts += [
            '',
            'enum_backport_nopatch\'s functions over the patched methods (on the',
            'patched build, its own methods), side by side: the median of the',
            'per-round ratios, then the median ns of each:',
            '',
            nopatch,
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


def render_details(results):
    return '\n'.join([
        'Paired ratios, size by size ("floor", and "empty" beside a hit: a',
        'metaclass method with the same signature that only returns its',
        'default, timed beside the same statement; the least any lookup written',
        'as such a method costs, and the floor of the misses; "least": one',
        'whose body is only the value map\'s or the member map\'s subscript, the',
        'least a from_value or from_name that finds its member costs, and the',
        'floor of fv hit and fn hit; "try-first": a from_name that subscripts',
        'the member map under ``try`` and tests for a default only after a',
        'miss, so that a hit pays no test and a miss with a default raises and',
        'catches a ``KeyError``, as the idiom does):',
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
        '-X importtime; and the least and greatest of the paired ratios of the',
        'untouched operations (with the patch over without it, timed side by',
        'side in one process):',
        '',
        extra_table(results),
    ])
