"""The start-up hook of every venv that tools/dependents makes (a .pth imports it).

With ENUM_DEPENDENTS_BACKPORT=1 it imports enum_backport; with
ENUM_DEPENDENTS_RECORD=DIR it writes DIR/<pid>-<random>.json at the process's
exit: whether enum_backport was imported, and from which file the enum
metaclass's from_value and __contains__ came.  At start-up it imports nothing
but os (and atexit), so that the run without the backport differs from a
plain run in nothing a test can see.
"""
import os


def _write_record(directory):
    import enum
    import json
    import sys
    meta = type(enum.Enum)
    backport = sys.modules.get('enum_backport')
    package = os.path.dirname(getattr(backport, '__file__', None) or '') if backport else ''
    # The functions it installs live in its sibling, enum_backport_nopatch.
    packages = {package, os.path.join(os.path.dirname(package), 'enum_backport_nopatch')}

    def origin(name):
        code = getattr(meta.__dict__.get(name), '__code__', None)
        return code.co_filename if code is not None else None

    def ours(filename):
        return bool(package and filename
                    and os.path.dirname(os.path.abspath(filename)) in packages)

    record = {
        'pid': os.getpid(), 'argv': sys.argv, 'executable': sys.executable,
        'requested': os.environ.get('ENUM_DEPENDENTS_BACKPORT') == '1',
        'enum_backport_loaded': backport is not None,
        'patched': list(getattr(backport, '_PATCHED', ()) or ()),
        'from_value_file': origin('from_value'),
        'from_value_from_backport': ours(origin('from_value')),
        'contains_from_backport': ours(origin('__contains__')),
    }
    name = os.path.join(directory, '%d-%s.json' % (os.getpid(), os.urandom(4).hex()))
    with open(name, 'w') as handle:
        json.dump(record, handle)


if os.environ.get('ENUM_DEPENDENTS_RECORD'):
    import atexit
    atexit.register(_write_record, os.environ['ENUM_DEPENDENTS_RECORD'])
if os.environ.get('ENUM_DEPENDENTS_BACKPORT') == '1':
    import enum_backport  # noqa: F401
