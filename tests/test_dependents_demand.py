"""Tests of `python3 tools/dependents demand`, on small synthetic sources.

tools/dependents/demand.py counts, in the dependents' sdists, the idioms
that stand in for from_value, from_name and `in`.  Each detector is checked
here on snippets that must count (as certain, or only in the broader
count) and on near misses that must not: a try/except around a call that
is not an enum's, a class of an enum's name that is not one, a name a
function rebinds, a getattr with a literal name.  The command's own path,
from prepare.sdist's archive to the printed table and the JSON file, runs
on a synthetic sdist with prepare replaced, so nothing is fetched.
"""

import argparse
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import textwrap
import types
import unittest
from unittest import mock
from pathlib import Path

import _layout

_layout.require('tools/dependents')

TOOL = Path(__file__).resolve().parent.parent / 'tools' / 'dependents'

demand = _layout.dependents_module('demand')

ENUMS = '''\
import enum
from enum import Enum as E, IntFlag

class Color(E):
    RED = 1

class Perm(IntFlag):
    R = 4

Animal = enum.Enum('Animal', 'CAT DOG')

class Point:
    pass
'''


def scan(*modules):
    """Hits [(idiom, path, line, grade)] of modules given as (path, source) or source."""
    sources = [m if isinstance(m, tuple) else ('m%d.py' % n, m) for n, m in enumerate(modules)]
    found = demand.scan_sources([(p, textwrap.dedent(s).encode()) for p, s in sources])
    return [(h['idiom'], h['path'], h['line'], h['grade']) for h in found['hits']]


def counted(source, prelude=ENUMS):
    """{(idiom, grade)} of what `source`, after the prelude, counts in its own lines."""
    first = prelude.count('\n') + 1
    return {(idiom, grade) for idiom, _, line, grade in scan(prelude + textwrap.dedent(source))
            if line >= first}


class TryValue(unittest.TestCase):

    def test_a_call_of_an_enum_under_except_value_error(self):
        self.assertEqual(counted('''\
            def f(v):
                try:
                    return Color(v)
                except ValueError:
                    return None
            '''), {('try-value', 'certain')})

    def test_a_tuple_of_exceptions_that_names_value_error(self):
        self.assertEqual(counted('''\
            try:
                Perm(v)
            except (TypeError, ValueError):
                pass
            '''), {('try-value', 'certain')})

    def test_a_call_that_is_not_an_enum_does_not_count(self):
        self.assertEqual(counted('''\
            try:
                Point(v)
                int(v)
            except ValueError:
                pass
            '''), set())

    def test_other_handlers_and_other_calls_do_not_count(self):
        self.assertEqual(counted('''\
            try:
                Color(v)
            except Exception:
                pass
            try:
                Color(v)
            except:
                pass
            try:
                Color('Shade', 'DARK LIGHT')   # the functional API, not a lookup
            except ValueError:
                pass
            try:
                pass
            except ValueError:
                Color(v)                       # in the handler, not the body
            '''), set())

    def test_a_call_in_nested_try_statements_counts_once(self):
        self.assertEqual(len(scan(ENUMS + '''\
try:
    try:
        Color(v)
    except (ValueError, KeyError):
        raise
except ValueError:
    pass
''')), 1)

    def test_a_function_defined_in_the_body_does_not_count(self):
        self.assertEqual(counted('''\
            try:
                def later(v):
                    return Color(v)
            except ValueError:
                pass
            '''), set())

    def test_a_name_that_only_looks_like_an_enum_is_broader(self):
        self.assertEqual(counted('''\
            def f(self, enum_cls, v):
                try:
                    self.enum(v)
                    enum_cls(v)
                    enumerate(v)
                    enum_values(v)
                except ValueError:
                    pass
            '''), {('try-value', 'broader')})
        self.assertEqual(len(scan(ENUMS + '''\
try:
    self.enum(v)
    enum_cls(v)
except ValueError:
    pass
''')), 2)

    def test_a_class_named_like_an_enum_that_is_not_one_does_not_count(self):
        self.assertEqual(counted('''\
            class StatusEnum:
                pass
            try:
                StatusEnum(v)
            except ValueError:
                pass
            '''), set())


class TryName(unittest.TestCase):

    def test_subscripts_under_key_error(self):
        self.assertEqual(scan(ENUMS + '''\
try:
    Color[n]
    Color.__members__[n]
except KeyError:
    pass
try:
    Perm[n]
except LookupError:
    pass
''')[-3:], [('try-name', 'm0.py', 15, 'certain'), ('try-name', 'm0.py', 16, 'certain'),
            ('try-name', 'm0.py', 20, 'certain')])

    def test_getattr_under_attribute_error(self):
        self.assertEqual(counted('''\
            try:
                getattr(Color, n)
            except AttributeError:
                pass
            '''), {('try-name', 'certain')})

    def test_near_misses(self):
        self.assertEqual(counted('''\
            try:
                Color[n]
            except ValueError:
                pass
            try:
                getattr(Color, 'RED')
                mapping[n]
            except (AttributeError, KeyError):
                pass
            '''), set())

    def test_members_of_any_receiver_is_broader(self):
        self.assertEqual(counted('''\
            try:
                cls.__members__[n]
            except KeyError:
                pass
            '''), {('try-name', 'broader')})


class Members(unittest.TestCase):

    def test_each_form(self):
        hits = scan(ENUMS + '''\
Color.__members__.get(n)
if n in Color.__members__: pass
if n not in Animal.__members__: pass
Color._value2member_map_.get(v)
Perm._member_map_
getattr(Color, n, None)
''')
        self.assertEqual([(i, line, g) for i, _, line, g in hits],
                         [('members', line, 'certain') for line in range(14, 20)])

    def test_near_misses(self):
        self.assertEqual(counted('''\
            getattr(Color, 'RED', None)
            getattr(Point, n, None)
            Point.__dict__.get(n)
            n in Point.__dict__
            '''), set())

    def test_an_unknown_receiver_of_members_is_broader(self):
        self.assertEqual(counted('''\
            def f(cls, n):
                return cls.__members__.get(n), cls._value2member_map_
            '''), {('members', 'broader')})


class Iterate(unittest.TestCase):

    def test_a_loop_that_compares_value_or_name(self):
        self.assertEqual(counted('''\
            for m in Color:
                if m.value == v:
                    break
            for m in Perm.__members__.values():
                if n == m.name:
                    break
            '''), {('iterate', 'certain')})

    def test_comprehensions(self):
        hits = scan(ENUMS + '''\
v in [m.value for m in Color]
n not in {m.name for m in Animal}
next((m for m in Color if m.value == v), None)
''')
        self.assertEqual([(i, line, g) for i, _, line, g in hits],
                         [('iterate', 14, 'certain'), ('iterate', 15, 'certain'),
                          ('iterate', 16, 'certain')])

    def test_near_misses(self):
        self.assertEqual(counted('''\
            for m in Color:
                print(m.value)
            for p in points:
                if p.value == v:
                    break
            for m in Color:
                if other.value == v:
                    break
            v in [m.label for m in Color]
            v in [p.value for p in Point.all()]
            '''), set())


class In(unittest.TestCase):

    def test_in_and_not_in(self):
        self.assertEqual(counted('''\
            if v in Color or v not in Perm:
                pass
            '''), {('in', 'certain')})
        self.assertEqual(len([h for h in scan(ENUMS + 'v in Color or v not in Perm\n')
                              if h[0] == 'in']), 2)

    def test_near_misses(self):
        self.assertEqual(counted('''\
            v in Point
            v in (Color.RED, Color.BLUE)
            v in colors
            '''), set())

    def test_a_parameter_of_the_enum_s_name_hides_it(self):
        self.assertEqual(counted('''\
            def f(Color, v):
                return v in Color
            def g(v):
                Color = {1, 2}
                return v in Color
            def h(v):
                return v in Color
            '''), {('in', 'certain')})
        self.assertEqual([line for _, _, line, _ in scan(ENUMS + '''\
def f(Color, v):
    return v in Color
def h(v):
    return v in Color
''')], [17])


class WhatIsAnEnum(unittest.TestCase):

    def test_subclasses_and_imports_across_modules(self):
        base = ('pkg/base.py', '''\
            import enum
            class Base(enum.Enum):
                pass
            class Shade(Base):
                DARK = 1
            ''')
        user = ('pkg/user.py', '''\
            from pkg.base import Shade as S
            from pkg import base
            try:
                S(v)
                base.Shade(v)
            except ValueError:
                pass
            ''')
        self.assertEqual(scan(base, user), [('try-value', 'pkg/user.py', 4, 'certain'),
                                            ('try-value', 'pkg/user.py', 5, 'certain')])

    def test_an_enum_base_not_from_enum_is_not_an_enum(self):
        # SQLAlchemy's Enum is a column type: a subclass of it is not an enum.
        self.assertEqual(scan('''\
            from sqlalchemy import Enum
            class MyType(Enum):
                pass
            try:
                MyType(v)
            except ValueError:
                pass
            '''), [])

    def test_a_class_of_an_enum_s_name_in_another_scope_is_not_one(self):
        # pydantic's tests define a class Foo in one test and an enum Foo in another.
        self.assertEqual(scan(ENUMS.replace('Color', 'Foo') + '''\
def test_other():
    class Foo:
        pass
    try:
        Foo('not an int')
    except ValueError:
        pass
'''), [])

    def test_a_stdlib_attribute_of_an_enum_s_name_is_not_one(self):
        # Django's tests define an enum IPv4Address; ipaddress.IPv4Address is not it.
        self.assertEqual(scan(
            ('tests/enums.py', '''\
                import ipaddress
                from django.db import models
                class IPv4Address(ipaddress.IPv4Address, models.Choices):
                    LOCALHOST = '127.0.0.1'
                '''),
            ('django/validators.py', '''\
                import ipaddress
                try:
                    ipaddress.IPv4Address(value)
                except ValueError:
                    pass
                ''')), [])

    def test_django_choices(self):
        self.assertEqual(scan('''\
            from django.db import models
            from django.db.models import IntegerChoices
            class Suit(models.TextChoices):
                HEART = 'H'
            class Rank(IntegerChoices):
                ACE = 1
            v in Suit
            v in Rank
            '''), [('in', 'm0.py', 7, 'certain'), ('in', 'm0.py', 8, 'certain')])

    def test_named_like_enum(self):
        for name in ('enum', 'enum_cls', 'enum_class', 'EnumType_', 'MyEnum', 'enumClass',
                     'field_enum', 'enum_type'):
            self.assertTrue(demand.named_like_enum(name), name)
        for name in ('Enum', 'IntEnum', 'TextChoices', 'EnumMeta', 'enumerate', 'enum_values',
                     'enum_name', 'Point', 'enums'):
            self.assertFalse(demand.named_like_enum(name), name)


class Command(unittest.TestCase):
    """The subcommand end to end, on a synthetic sdist, prepare.sdist replaced."""

    def setUp(self):
        self.folder = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, str(self.folder))

    def sdist(self, name, files):
        archive = self.folder / ('%s.tar.gz' % name)
        with tarfile.open(str(archive), 'w:gz') as tar:
            for path, text in sorted(files.items()):
                data = textwrap.dedent(text).encode()
                info = tarfile.TarInfo('%s/%s' % (name, path))
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return archive

    def run_command(self, archives, projects=None):
        fake = types.ModuleType('prepare')
        fake.SetupError = type('SetupError', (Exception,), {})
        asked = []

        def sdist(name, version):
            asked.append((name, version))
            return archives[(name, version)]
        fake.sdist = sdist
        package = sys.modules['tools.dependents']
        saved = sys.modules.get('tools.dependents.prepare')
        sys.modules['tools.dependents.prepare'] = fake
        self.addCleanup(lambda: sys.modules.__setitem__('tools.dependents.prepare', saved)
                        if saved else sys.modules.pop('tools.dependents.prepare', None))
        patcher = mock.patch.object(package, 'prepare', fake, create=True)
        patcher.start()
        self.addCleanup(patcher.stop)
        data = {'projects': [
            {'name': 'alpha', 'pypi': 'Alpha',
             'releases': [{'version': '2.0'}, {'version': '1.0'}]},
            {'name': 'beta', 'pypi': 'Beta', 'releases': [{'version': '0.1'}]}]}
        out = io.StringIO()
        json_path = self.folder / 'demand.json'
        args = argparse.Namespace(projects=projects, json=str(json_path))
        stdout = sys.stdout
        sys.stdout = out
        try:
            code = demand.demand(args, data, lambda names, wanted, what: wanted.split(',')
                                 if wanted else names)
        finally:
            sys.stdout = stdout
        return code, out.getvalue(), json.loads(json_path.read_text()), asked

    def test_table_examples_and_json(self):
        alpha = {'alpha/__init__.py': '', 'alpha/kinds.py': ENUMS, 'alpha/use.py': '''\
            from alpha.kinds import Color
            def parse(v):
                try:
                    return Color(v)
                except ValueError:
                    return None
            ''', 'setup.py': 'broken(:\n', 'README': 'not python'}
        archives = {('Alpha', '2.0'): self.sdist('alpha-2.0', alpha),
                    ('Alpha', '1.0'): self.sdist('alpha-1.0', {'alpha/x.py': 'v in enum_cls\n'}),
                    ('Beta', '0.1'): self.sdist('beta-0.1', {'b.py': ENUMS + 'v in Color\n'})}
        code, out, data, asked = self.run_command(archives)
        self.assertEqual(code, 0)
        self.assertEqual(asked, [('Alpha', '2.0'), ('Alpha', '1.0'), ('Beta', '0.1')])
        lines = out.splitlines()
        self.assertIn('alpha    2.0      4 (1 unparsed)      1 (1)     0 (0)    0 (0)'
                      '    0 (0)  0 (0)', lines)
        self.assertIn('alpha    1.0      1                   0 (0)     0 (0)    0 (0)'
                      '    0 (0)  0 (1)', lines)
        self.assertIn('total             6                   1 (1)     0 (0)    0 (0)'
                      '    0 (0)  1 (2)', lines)
        self.assertIn('  alpha 2.0 alpha/use.py:4 [certain] return Color(v)', lines)
        # Certain examples first, one project at a time.
        start = lines.index('in: v in X')
        self.assertEqual(lines[start + 1:start + 3], [
            '  beta 0.1 b.py:14 [certain] v in Color',
            '  alpha 1.0 alpha/x.py:1 [broader] v in enum_cls'])
        rows = {(r['project'], r['version']): r for r in data['projects']}
        self.assertEqual(rows[('alpha', '2.0')]['unparsed'], ['setup.py'])
        self.assertEqual(rows[('alpha', '2.0')]['counts']['try-value'],
                         {'certain': 1, 'broader': 1})
        self.assertEqual(data['examples']['try-value'][0]['path'], 'alpha/use.py')
        # The same sdists give the same output.
        self.assertEqual(self.run_command(archives)[1], out)

    def test_projects_selects(self):
        archives = {('Beta', '0.1'): self.sdist('beta-0.1', {'b.py': 'pass\n'})}
        code, out, data, asked = self.run_command(archives, projects='beta')
        self.assertEqual(asked, [('Beta', '0.1')])
        self.assertEqual([r['project'] for r in data['projects']], ['beta'])


class Wiring(unittest.TestCase):

    def test_the_cli_offers_the_subcommand(self):
        main = (TOOL / '__main__.py').read_text()
        self.assertIn("'demand': demand", main)
        self.assertIn("choices=('run', 'docs', 'freeze', 'demand')", main)


if __name__ == '__main__':
    unittest.main()
