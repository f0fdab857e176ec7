"""python -m enum_backport [report | test [SUITE ...]]

``report`` (the default) says what importing enum_backport patched on this
interpreter and why.  ``test`` runs this interpreter's own stdlib suites
(test_enum unless others are named) under the backport and holds the
failures against the ledger; it exits 1 on any discrepancy.
"""

import argparse
import enum
import json
import sys
import warnings

import enum_backport
from enum_backport import _patch, _stdlib


def _probe(contains, make_classes):
    """Describe how the given __contains__ differs from the new one."""
    Color, Sets, Perm = make_classes()
    findings = []

    def outcome(cls, value):
        try:
            with warnings.catch_warnings():
                # 3.11 warns before raising TypeError.
                warnings.simplefilter('ignore', DeprecationWarning)
                return contains(cls, value)
        except TypeError:
            return 'TypeError'

    if outcome(Color, 1) == 'TypeError':
        findings.append('`1 in Color` raises TypeError instead of checking values')
    if outcome(Color, []) == 'TypeError':
        findings.append('`[] in Color` raises TypeError on an unhashable value')
    if outcome(Sets, frozenset({1})) is False:
        findings.append('`frozenset({1}) in Sets` misses the member whose value is {1}')
    before = dict(Perm._value2member_map_)
    found = outcome(Perm, 3)
    if found is False:
        findings.append('`3 in Perm` misses a flag value whose combination was not yet created')
    elif len(Perm._value2member_map_) != len(before):
        findings.append('`3 in Perm` creates and caches a pseudo-member to answer')

    class Counting(int):
        compared = 0

        def __eq__(self, other):
            type(self).compared += 1
            return int.__eq__(self, other)

        __hash__ = int.__hash__

    Big = enum.Enum('Big', [('M%d' % i, Counting(i)) for i in range(100)])
    Counting.compared = 0
    outcome(Big, -1)
    if Counting.compared >= 100:
        findings.append('a miss compares the value with every member value (O(n))')
    return findings


def _sample_classes():
    class Color(enum.Enum):
        RED = 1

    class Sets(enum.Enum):
        ONE = {1}

    class Perm(enum.Flag):
        R = 1
        W = 2

    return Color, Sets, Perm


def report(out=sys.stdout):
    version = '.'.join(map(str, sys.version_info[:3]))
    if not enum_backport.PATCHED:
        if _patch.is_native():
            print('Python %s: enum.%s already has from_value() and from_name(); '
                  'enum_backport patched nothing.' % (version, _patch.EnumType.__name__),
                  file=out)
        else:
            print('Python %s: enum_backport did not patch enum.%s.'
                  % (version, _patch.EnumType.__name__), file=out)
        return
    name = _patch.EnumType.__name__
    print('Python %s: enum_backport patched enum.%s in place:' % (version, name), file=out)
    print('  added from_value() and from_name()', file=out)
    findings = _probe(_patch.original('__contains__'), _sample_classes)
    if findings:
        print('  replaced __contains__, because the original:', file=out)
        for finding in findings:
            print('    - ' + finding, file=out)
    else:
        print('  replaced __contains__ (no difference found by the probes)', file=out)
    print('  wrapped __dir__, so that dir() and help() list the new methods', file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m enum_backport',
        description='Report what enum_backport patched, or run stdlib suites under it.')
    commands = parser.add_subparsers(dest='command')
    commands.add_parser('report', help='say what was patched and why (the default)')
    test = commands.add_parser(
        'test', help="run this interpreter's stdlib suites under the backport "
                     'and compare with the ledger')
    test.add_argument('suites', nargs='*', default=list(_stdlib.DEFAULT_SUITES),
                      metavar='SUITE', help='e.g. test_enum test_re (default: test_enum)')
    test.add_argument('--ledger', help='ledger file (default: the one shipped)')
    test.add_argument('-v', '--verbose', action='store_true')
    child = commands.add_parser('_run-one')  # internal: one suite, in a child
    child.add_argument('suite')
    child.add_argument('--result', required=True)
    child.add_argument('--ledger')
    child.add_argument('--verbose', action='store_true')
    args = parser.parse_args(argv)

    if args.command == '_run-one':
        excluded = _stdlib.exclusions(_stdlib.load_ledger(args.ledger), args.suite)
        result = _stdlib.run_in_this_process(args.suite, excluded, args.verbose)
        with open(args.result, 'w', encoding='utf-8') as f:
            json.dump(result, f)
        return 0
    if args.command == 'test':
        report()
        discrepancies = _stdlib.run(args.suites, args.ledger, args.verbose)
        print('%d discrepancies with the ledger' % discrepancies)
        return 1 if discrepancies else 0
    report()
    return 0


if __name__ == '__main__':
    sys.exit(main())
