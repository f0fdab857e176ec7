"""python -m enum_backport [--version | report | typeshed DIR | test [--without-backport | --help-text-restored] [SUITE ...]]

``report`` (the default) says what importing enum_backport patched on this
interpreter and why.  ``test`` runs this interpreter's own stdlib suites
(test_enum unless others are named) under the backport and holds the
failures against the ledger; it exits 1 on any discrepancy.  With
``--without-backport`` it runs them on the unpatched interpreter instead,
where nothing but the ledger's exclusions may fail.  With
``--help-text-restored`` it runs them under the backport with the docstring
and signature of ``in`` as the interpreter has them, and names the listed
tests that still fail: those fail for more than help()'s text.
"""

from __future__ import annotations

import argparse
import enum
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple, Type
import warnings

import enum_backport
from enum_backport import _lookup, _patch, _stdlib


def _probe(contains: Callable[[type, object], bool],
           make_classes: Callable[[], Tuple[Type[enum.Enum], ...]]) -> List[str]:
    """Describe how the given __contains__ differs from the new one."""
    Color, Sets, Perm = make_classes()
    findings = []
    warned: List[object] = []

    def outcome(cls: type, value: object) -> object:
        with warnings.catch_warnings(record=True) as caught:
            # 3.10 and 3.11 warn before raising TypeError.
            warnings.simplefilter('always', DeprecationWarning)
            try:
                return contains(cls, value)
            except TypeError:
                return 'TypeError'
            finally:
                warned[:] = [w for w in caught if issubclass(w.category, DeprecationWarning)]

    if outcome(Color, 1) == 'TypeError':
        findings.append('`1 in Color` raises TypeError%s instead of checking values'
                        % (' (after a DeprecationWarning)' if warned else ''))
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

        def __eq__(self, other: object) -> bool:
            type(self).compared += 1
            return int.__eq__(self, other)

        __hash__ = int.__hash__

    Big = enum.Enum('Big', [('M%d' % i, Counting(i)) for i in range(100)])
    Counting.compared = 0
    outcome(Big, -1)
    if Counting.compared >= 100:
        findings.append('a miss compares the value with every member value (O(n))')
    return findings


def _sample_classes() -> Tuple[Type[enum.Enum], ...]:
    class Color(enum.Enum):
        RED = 1

    class Sets(enum.Enum):
        ONE = {1}

    class Perm(enum.Flag):
        R = 1
        W = 2

    return Color, Sets, Perm


def report(out: Optional[TextIO] = None) -> None:
    """Print what importing enum_backport patched on this interpreter, and why."""
    out = sys.stdout if out is None else out
    version = '.'.join(map(str, sys.version_info[:3]))
    if not enum_backport._PATCHED:
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
    print('  added __init_subclass__, which gives a metaclass that overrides\n'
          '    __getitem__ a from_name() of its own that asks it', file=out)
    findings = _probe(_patch.original('__contains__'), _sample_classes)
    if findings:
        print('  replaced __contains__, because the original:', file=out)
        for finding in findings:
            print('    - ' + finding, file=out)
    else:
        print('  replaced __contains__ (no difference found by the probes)', file=out)
    rules: Dict[Any, List[str]] = {}
    for boundary in getattr(enum, 'FlagBoundary', ()):
        rules.setdefault(_lookup.NEGATIVE_RULES.get(boundary), []).append(boundary.name)
    if rules:
        print('  Flag._missing_ of this interpreter turns a negative value into bits by',
              file=out)
        for rule, names in rules.items():
            print('    %s: %s' % (', '.join(names), {
                _lookup.COMPLEMENT: 'adding 2**n (its complement within the flag)',
                _lookup.SINGLE_BITS: 'keeping the bits of single-bit members',
            }.get(rule, 'a rule the backport does not know: lookups call it')), file=out)
    if '__new__' in enum_backport._PATCHED:
        print('  wrapped __new__, to note which classes are Flags, have member values\n'
              '    that cannot be hashed or a metaclass with its own __instancecheck__,\n'
              '    so that `in` asks one dict (reading what enum keeps on a class is\n'
              '    slow on this interpreter)', file=out)


def _error(command: str, message: str) -> int:
    print('python -m enum_backport %s: error: %s' % (command, message), file=sys.stderr)
    return 2


def _test_input_problem(args: argparse.Namespace) -> Optional[str]:
    """What is wrong with the arguments of `test`, in one line, or None."""
    if args.timeout <= 0:
        return ('--timeout is the seconds a suite may take, a positive number, not %g'
                % args.timeout)
    for suite in args.suites:
        problem = _stdlib.suite_problem(suite)
        if problem:
            return problem
    try:
        _stdlib.load_ledger(args.ledger)
    except _stdlib.LedgerError as error:
        return str(error)
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); return the exit status.

    0: done, and for ``test`` no discrepancy with the ledger; 1: a
    discrepancy; 2: bad input, said in one line on stderr.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ['_run-one']:
        # Internal: one suite, in the child interpreter that `test` starts.
        return _stdlib.child_main(argv[1:])
    if argv[:1] == ['typeshed']:
        # A typeshed copy for pyright, which has no plugins (see _typeshed).
        from enum_backport import _typeshed
        return _typeshed.main(argv[1:])
    parser = argparse.ArgumentParser(
        prog='python -m enum_backport',
        description='Report what enum_backport patched, or run stdlib suites under it.')
    parser.add_argument('--version', action='version', version=enum_backport.__version__)
    commands = parser.add_subparsers(dest='command')
    commands.add_parser('report', help='say what was patched and why (the default)')
    # Handled above, before parsing; listed here so that --help names it.
    commands.add_parser('typeshed', help="write a copy of pyright's typeshed with the "
                                         'two methods, for its typeshedPath')
    test = commands.add_parser(
        'test', help="run this interpreter's stdlib suites under the backport "
                     'and compare with the ledger')
    test.add_argument('suites', nargs='*', default=list(_stdlib.DEFAULT_SUITES),
                      metavar='SUITE', help='e.g. test_enum test_re (default: test_enum)')
    test.add_argument('--ledger', help='ledger file (default: the one shipped)')
    test.add_argument('--without-backport', action='store_true',
                      help='run the suites on the unpatched interpreter, to see which '
                           'tests fail there too (those need an exclusion)')
    test.add_argument('--help-text-restored', action='store_true',
                      help='run them under the backport with the docstring and signature '
                           'of `in` as the interpreter has them, to see which listed tests '
                           "fail for help()'s text alone")
    test.add_argument('--timeout', type=float, default=_stdlib.DEFAULT_TIMEOUT,
                      metavar='SECONDS',
                      help='seconds a suite may take, fractions allowed (default: %(default)g)')
    test.add_argument('-v', '--verbose', action='store_true')
    args = parser.parse_args(argv)

    if args.command == 'test':
        problem = _test_input_problem(args)
        if problem:
            return _error('test', problem)
        if args.without_backport:
            print('Python %s: running without enum_backport (enum unpatched)'
                  % _stdlib.version_key())
        else:
            report()
        discrepancies = _stdlib.run(args.suites, args.ledger, args.verbose,
                                    backport=not args.without_backport,
                                    help_text_restored=args.help_text_restored,
                                    timeout=args.timeout)
        if discrepancies or args.help_text_restored:
            said = ''
        elif args.without_backport:
            said = ' (no test failed)'
        else:
            said = (' (every test that failed is one it lists, and every test it lists '
                    'failed)')
        print('%d %s with the ledger%s'
              % (discrepancies, 'discrepancy' if discrepancies == 1 else 'discrepancies', said))
        return 1 if discrepancies else 0
    report()
    return 0


def _run() -> int:
    """main(), ending quietly when the reader of stdout has gone (`| head`), in one
    line when stdout cannot be written (a full disk)."""
    try:
        code = main()
        sys.stdout.flush()
    except OSError as error:
        # The interpreter's own flush at exit would fail again: point stdout
        # at /dev/null first (the recipe in the signal module's docs).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        if not isinstance(error, BrokenPipeError):  # a reader gone (`| head`) is no error
            print('enum_backport: cannot write the report: %s' % (error.strerror or error),
                  file=sys.stderr)
        return 1
    return code


if __name__ == '__main__':
    sys.exit(_run())
