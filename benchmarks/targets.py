"""What the harness times and what each figure must reach.

The statements themselves are bench_enum.py's; this module names the ones
each target compares (numerator and denominator, timed side by side), the
limit a target sets on each interpreter, and how a limit that cannot be met
is re-set: a "floor" statement, timed beside the same denominator, costs the
least any lookup of that shape can cost (a metaclass method, or a function,
that only returns its default; a metaclass ``__contains__`` that only
returns False; for fv hit and fn hit, a metaclass method whose body is
only the map's subscript, as a hit must at least find its member), and
where the floor plus 10% is above the limit, that is the limit.  runner.py
measures, report.py prints.

A figure over the limit it is judged by, but by at most NOISE_MARGIN (5%),
is met within the machine's noise: counted as met, and printed marked as
such, never as plainly met.  The limits themselves stay where they are.
"""

import collections

SIZES = (10, 100, 1000, 10000)
#: The sizes at which `in` is timed beside aenum's and the patch-free
#: functions beside the methods (bench_enum.PEER_SIZES).
PEER_SIZES = (10, 10000)
#: What a floor is raised by to become a limit.
FLOOR_MARGIN = 1.10
#: How far past its limit a figure may be and still be met, within the
#: machine's noise: 5%, as a ratio of figure to limit (for 1±x, of the
#: figure to 1+x, or of 1-x to the figure).
NOISE_MARGIN = 1.05
#: 3.8 to 3.10 have looser limits for the lookups (there EnumMeta.__getattr__
#: makes every attribute read of an enum class go the slow way; 3.11, which
#: still has the hook, is held to the newer ones).
NEW_LIMITS_FROM = (3, 11)

#: key, column heading, what is measured, limit on 3.8-3.10, limit on 3.11
#: and later, kind, floor key (None: no floor), roles the target applies to.
#: Kinds: 'max' is met by a ratio at most the limit, 'within' by a ratio
#: within the limit of 1, 'ms' by milliseconds at most the limit.
Target = collections.namedtuple(
    'Target', 'key heading what old new kind floor roles')

_BACKPORT = ('backport',)
_ANY = ('backport', 'patched')

TARGETS = [
    Target('value_hit', 'fv hit', '``E.from_value(v)`` / ``E(v)``, a hit',
           0.8, 0.6, 'max', 'least_value_hit', _BACKPORT),
    Target('value_miss', 'fv miss', '``E.from_value(m, default=None)`` / ``try: E(m)`` '
           '``except ValueError``', 0.35, 0.25, 'max', 'floor_value_miss', _BACKPORT),
    Target('name_hit', 'fn hit', '``E.from_name(k)`` / ``E[k]``, a hit',
           2.5, 2.2, 'max', 'least_name_hit', _BACKPORT),
    Target('name_miss', 'fn miss', '``E.from_name(x, default=None)`` / ``try: E[x]`` '
           '``except KeyError``', 0.7, 0.65, 'max', 'floor_name_miss', _BACKPORT),
    Target('in_hit', 'in hit', '``v in E``, a hit: 10,000 members / 10 members',
           1.5, 1.5, 'max', None, _BACKPORT),
    Target('in_miss', 'in miss', '``m in E``, a miss: 10,000 members / 10 members',
           1.5, 1.5, 'max', None, _BACKPORT),
    Target('peer_in_hit', 'aenum hit', '``v in E`` / ``v in A``, ``A`` an aenum 3.1.17 '
           'Enum with the same members, a hit: 10 and 10,000 members',
           1.0, 1.0, 'max', 'floor_peer_in_hit', _BACKPORT),
    Target('peer_in_miss', 'aenum miss', '``m in E`` / ``m in A``, a miss: 10 and '
           '10,000 members', 1.0, 1.0, 'max', 'floor_peer_in_miss', _BACKPORT),
    Target('nopatch_value', 'np fv', '``from_value(E, v[, default=None])`` / '
           '``E.from_value(v[, default=None])`` (enum_backport_nopatch): hit, and '
           'miss with a default, at 10 and 10,000 members', 1.3, 1.3, 'max',
           'floor_nopatch_value', _ANY),
    Target('nopatch_name', 'np fn', '``from_name(E, k[, default=None])`` / '
           '``E.from_name(k[, default=None])``: hit, and miss with a default',
           1.3, 1.3, 'max', 'floor_nopatch_name', _ANY),
    Target('nopatch_contains', 'np in', '``contains(E, v)`` / ``v in E``: hit and miss',
           1.3, 1.3, 'max', 'floor_nopatch_contains', _ANY),
    Target('import', 'import', '``import enum_backport``: ms of its own modules, '
           'least of the ``-X importtime`` runs', 2.0, 2.0, 'ms', None, _BACKPORT),
    Target('same_call', 'E(v)', '``E(v)`` with / without the backport',
           0.05, 0.05, 'within', None, _BACKPORT),
    Target('same_attr', 'E.M', '``E.M`` with / without the backport',
           0.05, 0.05, 'within', None, _BACKPORT),
    Target('same_class', 'class', 'creating a 5-member enum class, with / without '
           'the backport', 0.05, 0.05, 'within', None, _BACKPORT),
]
TARGETS_BY_KEY = {target.key: target for target in TARGETS}

#: Statement pairs (numerator, denominator) timed side by side whose ratio a
#: target or a floor reads, or that the size-by-size table only shows
#: (name_getattr, try_first_*), by key; '{n}' is the member count.  Where a
#: key has several pairs, the worst ratio at each size counts.
PAIRS = {
    'value_hit': [('from_value hit [n={n}]', 'E(v) hit [n={n}]')],
    'floor_value_hit': [('floor value hit [n={n}]', 'E(v) hit [n={n}]')],
    'least_value_hit': [('least value hit [n={n}]', 'E(v) hit [n={n}]')],
    'value_miss': [('from_value miss default [n={n}]', 'try E(v) miss [n={n}]')],
    'floor_value_miss': [('floor value miss [n={n}]', 'try E(v) miss [n={n}]')],
    'name_hit': [('from_name hit [n={n}]', 'E[name] hit [n={n}]')],
    'name_getattr': [('from_name hit [n={n}]', 'getattr hit [n={n}]')],
    'floor_name_hit': [('floor name hit [n={n}]', 'E[name] hit [n={n}]')],
    'least_name_hit': [('least name hit [n={n}]', 'E[name] hit [n={n}]')],
    'try_first_name_hit': [('try-first name hit [n={n}]', 'E[name] hit [n={n}]')],
    'name_miss': [('from_name miss default [n={n}]', 'try E[name] miss [n={n}]')],
    'floor_name_miss': [('floor name miss [n={n}]', 'try E[name] miss [n={n}]')],
    'try_first_name_miss': [('try-first name miss [n={n}]', 'try E[name] miss [n={n}]')],
    'peer_in_hit': [('peer in hit [n={n}]', 'aenum in hit [n={n}]')],
    'floor_peer_in_hit': [('floor in hit [n={n}]', 'aenum in hit [n={n}]')],
    'peer_in_miss': [('peer in miss [n={n}]', 'aenum in miss [n={n}]')],
    'floor_peer_in_miss': [('floor in miss [n={n}]', 'aenum in miss [n={n}]')],
}
for _key, _kinds in (('value', ('value hit', 'value miss')),
                     ('name', ('name hit', 'name miss')),
                     ('contains', ('contains hit', 'contains miss'))):
    PAIRS['nopatch_' + _key] = [('nopatch %s [n={n}]' % kind, 'method %s [n={n}]' % kind)
                                for kind in _kinds]
    PAIRS['floor_nopatch_' + _key] = [('nopatch floor %s [n={n}]' % kind,
                                       'method %s [n={n}]' % kind) for kind in _kinds]
#: The patch-free functions' pairs one by one, for the table that shows them.
NOPATCH_KINDS = ('value hit', 'value miss', 'name hit', 'name miss',
                 'contains hit', 'contains miss')

#: Enum operations the backport leaves alone, timed without and with its
#: patch side by side in one process (bench_enum.py's `untouched` group; the
#: statement timed with the patch is named with " patched" added).
UNTOUCHED = {
    'same_call': 'untouched E(v)',
    'same_attr': 'untouched E.M',
    'same_class': 'untouched class creation',
}

#: Everyday statements, patched 3.13.5 against stock 3.13.5 in alternating
#: processes (bench_enum.py's `everyday` group): (key, statement name, what
#: the table calls it).  The change's bar is stock's speed.
EVERYDAY = [
    ('in_hit', 'everyday in hit', '``v in E``, a hit'),
    ('in_miss', 'everyday in miss', '``m in E``, a miss'),
    ('call_hit', 'everyday E(v) hit', '``E(v)``, a hit'),
    ('call_miss', 'everyday E(v) miss', '``try: E(m)`` ``except ValueError``'),
    ('getitem', 'everyday E[k]', '``E[k]``'),
    ('flag_in', 'everyday Flag in', '``c in F``, ``c`` five of 20 flags'),
    ('flag_in_miss', 'everyday Flag in miss', '``x in F``, ``x`` a bit beyond them'),
    ('flag_call', 'everyday Flag call', '``F(c)``'),
    ('flag_new', 'everyday Flag new', '``F(c)``, its pseudo-member made anew (once per value)'),
    ('flag_check_new', 'everyday Flag check new',
     '``if c in F: F(c)``, ``c`` first seen (once per value)'),
    ('flag_or', 'everyday Flag |', '``F.F0 | F.F3``'),
    ('iteration', 'everyday iteration', '``for member in E: pass``'),
    ('class', 'everyday class creation', 'creating a 5-member enum class'),
    ('control_dict', 'everyday control dict', 'control, no enum: ``d[k]``'),
    ('control_class', 'everyday control class', 'control, no enum: ``class C: pass``'),
]
#: The statements that involve no enum: a ratio away from 1 there is the
#: builds' or the machine's, and is printed beside the others, not judged.
EVERYDAY_CONTROLS = ('control_dict', 'control_class')
#: Printed, not held to the ceiling: the controls, and what a program does
#: once per value (a flag's pseudo-member is made the first time its value
#: is asked for, and found after that, as ``F(c)`` finds it).
EVERYDAY_UNJUDGED = EVERYDAY_CONTROLS + ('flag_new', 'flag_check_new')
EVERYDAY_CEILING = 1.10

#: `met` counts a figure met within the machine's noise, which `noise` tells.
Assessment = collections.namedtuple('Assessment', 'value limit floor used met noise')


def limit_for(target, version):
    """The limit `target` sets on an interpreter of `version` (a tuple)."""
    return target.old if tuple(version[:2]) < NEW_LIMITS_FROM else target.new


def figure(res, key):
    """The figure a target reads from one interpreter's results, or None."""
    lookups = res.get('lookups', {})
    if key in ('in_hit', 'in_miss'):
        return lookups.get('ratios', {}).get(key)
    if key in PAIRS:
        per_size = lookups.get('ratios', {}).get(key)
        # The worst size decides.
        return max(per_size.values()) if per_size else None
    if key == 'import':
        # The least of the runs: -X importtime reads the wall clock, so time
        # that other processes take from a run is charged to the import; the
        # median by the CPU clock (in the details) checks the figure.
        return res.get('import', {}).get('own_min_ms')
    return res.get('untouched', {}).get(key)


def assess(res, target, version):
    """The Assessment of `target` on one interpreter, or None if not measured.

    `used` is the limit the verdict applies: the target's own, or the floor
    plus FLOOR_MARGIN where that is higher.  A figure past `used` by at most
    NOISE_MARGIN is `met` with `noise` set.
    """
    value = figure(res, target.key)
    if value is None:
        return None
    limit = limit_for(target, version)
    floor = figure(res, target.floor) if target.floor else None
    used = limit
    if floor is not None and floor * FLOOR_MARGIN > limit:
        used = floor * FLOOR_MARGIN
    if target.kind == 'within':
        met = abs(value - 1) <= used
        noisy = (value <= (1 + used) * NOISE_MARGIN
                 and value * NOISE_MARGIN >= 1 - used)
    else:
        met = value <= used
        noisy = value <= used * NOISE_MARGIN
    noise = not met and noisy
    return Assessment(value, limit, floor, used, met or noise, noise)


def applies(target, role):
    return role in target.roles
