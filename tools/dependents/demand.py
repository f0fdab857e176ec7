"""How often the dependents' own sources stand in for from_value, from_name and `in`.

    python3 tools/dependents demand [--projects a,b] [--json FILE]

For each release in projects.json, the sdist that prepare.sdist fetches (and
caches) for the suites; every ``.py`` file in it is parsed with ``ast``
(nothing is imported or run) and these idioms are counted, each where it
stands in for one of the proposed lookups:

try-value (from_value)
    ``X(v)`` (one positional argument, nothing else) in the body of a
    ``try`` with an ``except`` naming ValueError (alone or in a tuple).
try-name (from_name)
    ``X[n]`` or ``X.__members__[n]`` in the body of a ``try`` with an
    ``except`` naming KeyError or LookupError; ``getattr(X, n)`` in one
    naming AttributeError.
members (from_name, from_value, `in`)
    ``X.__members__.get(...)``, ``n in X.__members__`` (or ``not in``),
    any use of ``X._value2member_map_`` or ``X._member_map_``, and
    ``getattr(X, n, default)``.
iterate (from_value, from_name, `in`)
    ``for m in X:`` (or ``X.__members__.values()``) whose body has an
    ``if`` comparing ``m.value`` or ``m.name`` with ``==``, ``!=`` or
    ``is``; a comprehension over ``X`` filtered by such a comparison;
    ``v in [m.value for m in X]`` (list, set or generator; value or name).
in (`in`, today's)
    ``v in X`` and ``v not in X``.

In getattr, a string literal as the name (``getattr(X, 'RED', None)``) is
attribute access, not a lookup, and does not count.  A ``try`` counts only
what runs in its own body, not in functions or classes defined there;
``except Exception`` and a bare ``except`` do not count.

Whether ``X`` is an enum class is decided statically, in two grades.

**Certain**: the sdist itself defines ``X`` as an enum class, and the
module sees it.  A class is an enum if a base (or its metaclass) is one of
enum's (Enum, IntEnum, StrEnum, Flag, IntFlag, ReprEnum, EnumMeta,
EnumType) imported from ``enum`` (``enum.Enum``, ``from enum import Enum
as E``), one of Django's choices (Choices, TextChoices, IntegerChoices
from a ``models`` or ``enums`` module, or ``models.TextChoices``), a
metaclass named EnumMeta, EnumType, ChoicesMeta or ChoicesType, or a
class the sdist defines as an enum (by name); a name assigned
``Enum('X', ...)`` (the functional API) is one too.  A name ``X`` is an
enum class where its scope binds it to one: a function sees its own
enum classes and its enclosing scopes' unless it binds the name itself
(a parameter, an assignment, an import), and a module sees the enum
classes it defines and those it imports from the sdist.  ``m.X`` is one
when ``X`` is an enum class of the sdist and ``m`` a name imported from
the sdist's own packages (or by a relative import).

**Broader** adds what only looks like an enum class: an identifier whose
words (split at ``_`` and at capitals) end in ``enum``, or in ``enum``
then ``cls``/``class``/``klass``/``type`` (``self.enum``, ``enum_cls``,
``EnumClass``), unless the sdist defines a class of that name that is not
an enum; and, for the members and try-name idioms, any receiver of
``__members__``, ``_value2member_map_`` or ``_member_map_``, attributes
that only enum classes have.  The broader count includes the certain one.
"""

import ast
import contextlib
import json
import re
import sys
import tarfile

ENUM_BASES = frozenset(('Enum', 'IntEnum', 'StrEnum', 'Flag', 'IntFlag', 'ReprEnum'))
ENUM_METACLASSES = frozenset(('EnumMeta', 'EnumType', 'ChoicesMeta', 'ChoicesType'))
DJANGO_CHOICES = frozenset(('Choices', 'TextChoices', 'IntegerChoices'))
MEMBER_MAPS = ('_value2member_map_', '_member_map_')
IDIOMS = ('try-value', 'try-name', 'members', 'iterate', 'in')
TITLES = {
    'try-value': 'try: X(v) / except ValueError',
    'try-name': 'try: X[name] / except KeyError, getattr(X, name) / except AttributeError',
    'members': 'X.__members__.get, n in X.__members__, X._value2member_map_, getattr(X, n, d)',
    'iterate': 'for m in X: if m.value == v, v in [m.value for m in X]',
    'in': 'v in X',
}
EXAMPLES = 3


def terminal(node):
    """The last identifier of a Name or an Attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def words(identifier):
    spaced = re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', identifier)
    return [w.lower() for w in spaced.split('_') if w]


def named_like_enum(identifier):
    """Whether an identifier reads as an enum class: enum, self.enum,
    enum_cls, EnumClass, field_enum, but not Enum itself, enumerate or enum_values."""
    if identifier in ENUM_BASES | ENUM_METACLASSES | DJANGO_CHOICES:
        return False
    parts = words(identifier)
    if parts and parts[-1] == 'enum':
        return True
    return len(parts) >= 2 and parts[-2] == 'enum' and parts[-1] in ('cls', 'class', 'klass',
                                                                      'type')


# -- which names are enum classes ---------------------------------------------

def _scope_nodes(statements):
    """Every node of `statements` in their own scope: not the bodies of
    functions, lambdas or classes defined in them (those nodes themselves are)."""
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _body(node):
    return [node.body] if isinstance(node, ast.Lambda) else node.body


class Imports:
    """What one module imports of enum's bases and Django's choices:
    `modules`, the names bound to the module enum (or to django.db.models);
    `names`, the names bound to a base (from enum import Enum as E); `own`,
    the names bound by imports from the sdist's own `packages` (or relative)."""

    def __init__(self, tree, packages=frozenset()):
        self.modules, self.names, self.own = set(), set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == 'enum':
                        self.modules.add(alias.asname or 'enum')
                    if alias.name.split('.')[0] in packages:
                        self.own.add(alias.asname or alias.name.split('.')[0])
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ''
                for alias in node.names:
                    local = alias.asname or alias.name
                    if node.level or module.split('.')[0] in packages:
                        self.own.add(local)
                    if module == 'enum' and alias.name in ENUM_BASES | ENUM_METACLASSES:
                        self.names.add(local)
                    elif (alias.name in DJANGO_CHOICES
                          and module.split('.')[-1] in ('models', 'enums')):
                        self.names.add(local)
                    elif alias.name == 'models' and module.endswith('db'):
                        self.modules.add(local)

    def is_base(self, node):
        """Whether a base (or metaclass) expression names enum's or Django's."""
        if isinstance(node, ast.Name):
            return node.id in self.names or node.id in ENUM_METACLASSES
        return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in self.modules
                and node.attr in ENUM_BASES | ENUM_METACLASSES | DJANGO_CHOICES)


def class_facts(tree):
    """[(class name, True if a base is enum's or Django's, other base names)]
    and the names assigned Enum('X', ...), for one module."""
    imports = Imports(tree)
    classes, functional = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = list(node.bases) + [k.value for k in node.keywords if k.arg == 'metaclass']
            classes.append((node.name, any(imports.is_base(b) for b in bases),
                            {terminal(b) for b in bases} - {None}))
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
              and imports.is_base(node.value.func) and len(node.value.args) >= 2):
            functional.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return classes, functional


def enum_names(facts):
    """The names the sdist defines as enum classes, from every module's
    class_facts: direct enums, then their subclasses until nothing changes."""
    found, others = set(), []
    for classes, functional in facts:
        found |= functional
        for name, direct, bases in classes:
            if direct:
                found.add(name)
            else:
                others.append((name, bases))
    changed = True
    while changed:
        changed = False
        for name, bases in others:
            if name not in found and bases & found:
                found.add(name)
                changed = True
    return found


def _binds(nodes, arguments=None):
    """The names bound by `nodes` (one scope's), and by a function's `arguments`."""
    bound = set()
    if arguments is not None:
        for arg in (getattr(arguments, 'posonlyargs', []) + arguments.args
                    + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]):
            if arg is not None:
                bound.add(arg.arg)
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split('.')[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def is_enum_class(node, sdist_enums, imports):
    """Whether a ClassDef is an enum: a base or metaclass of enum's or
    Django's, or a base whose name the sdist defines as an enum class."""
    bases = list(node.bases) + [k.value for k in node.keywords if k.arg == 'metaclass']
    return any(imports.is_base(b) or terminal(b) in sdist_enums for b in bases)


def scope_enums(nodes, sdist_enums, imports):
    """The names one scope's own `nodes` bind to an enum class: the enum
    classes it defines, what it assigns Enum('X', ...), and what it imports
    of the sdist's enum classes (under its name or another)."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.ClassDef) and is_enum_class(node, sdist_enums, imports):
            found.add(node.name)
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
              and imports.is_base(node.value.func) and len(node.value.args) >= 2):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            found.update(a.asname or a.name for a in node.names if a.name in sdist_enums)
    return found


# -- the detectors ------------------------------------------------------------

def _handler_names(handler):
    kind = handler.type
    if kind is None:
        return set()
    items = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return {terminal(item) for item in items}


def _literal(node):
    """Whether `node` is a string literal: getattr(X, 'RED') is X.RED, not a lookup."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _member_attribute(node, loop_name):
    """Whether `node` is m.value or m.name for the loop variable m."""
    return (isinstance(node, ast.Attribute) and node.attr in ('value', 'name')
            and isinstance(node.value, ast.Name) and node.value.id == loop_name)


def _compares_member(test, loop_name):
    """Whether an expression holds m.value == ... or m.name == ... (or !=, is)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.Eq, ast.NotEq, ast.Is)) for op in node.ops):
            if any(_member_attribute(side, loop_name)
                   for side in [node.left] + node.comparators):
                return True
    return False


class Scanner:
    """The idioms of one parsed module.  `sdist_enums` are the names the
    sdist defines as enum classes; hits are (idiom, line, column, 'certain'
    or 'broader', kind)."""

    def __init__(self, tree, sdist_enums, other_classes=frozenset(), packages=frozenset()):
        self.tree, self.sdist_enums, self.other_classes = tree, sdist_enums, other_classes
        self.imports = Imports(tree, packages)
        self.hits = []
        self.enums = set()

    def grade(self, node, marked=False):
        """'certain' if `node` names an enum class, 'broader' if it only looks
        like one (or `marked`: its attribute says so) and is not the name of
        a class the sdist defines that is not an enum, else None.  A name is
        an enum class if its scope binds it to one; an attribute m.X if X is
        one of the sdist's enum classes and m a module imported from the sdist."""
        name = terminal(node)
        if name is None:
            return 'broader' if marked else None
        if isinstance(node, ast.Name) and name in self.enums:
            return 'certain'
        if (isinstance(node, ast.Attribute) and name in self.sdist_enums
                and isinstance(node.value, ast.Name) and node.value.id in self.imports.own):
            return 'certain'
        if marked or (named_like_enum(name) and name not in self.other_classes):
            return 'broader'
        return None

    def add(self, idiom, node, grade, kind):
        if grade:
            # The column too: two hits on a line are two, and a call in
            # nested try statements is one.
            self.hits.append((idiom, node.lineno, node.col_offset, grade, kind))

    def scan(self):
        self.visit_scope(self.tree.body, None, set())
        self.hits = sorted(set(self.hits))
        return self.hits

    def visit_scope(self, body, arguments, outer):
        """Detect in one scope's own nodes, with the enum names it sees, then
        in the scopes nested in it."""
        nodes = list(_scope_nodes(body))
        own = scope_enums(nodes, self.sdist_enums, self.imports)
        if arguments is None:     # the module
            seen = own
        else:
            seen = (outer - _binds(nodes, arguments)) | own
        self.enums = seen
        nested = []
        for node in nodes:
            self.detect(node)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                nested.append((_body(node), node.args))
            elif isinstance(node, ast.ClassDef):
                nested.append((node.body, None))
        for inner, args in nested:
            self.visit_scope(inner, args if args is not None else ast.arguments(
                posonlyargs=[], args=[], kwonlyargs=[], vararg=None, kwarg=None), seen)
        self.enums = seen

    def detect(self, node):
        if isinstance(node, ast.Try) or type(node).__name__ == 'TryStar':
            self.try_statement(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Compare):
            self.compare(node)
        elif isinstance(node, ast.Attribute) and node.attr in MEMBER_MAPS:
            self.add('members', node, self.grade(node.value, marked=True), node.attr)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.loop(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self.comprehension(node)

    def try_statement(self, node):
        caught = set()
        for handler in node.handlers:
            caught |= _handler_names(handler)
        values, keys = 'ValueError' in caught, bool(caught & {'KeyError', 'LookupError'})
        attributes = 'AttributeError' in caught
        if not (values or keys or attributes):
            return
        for inner in _scope_nodes(node.body):
            if (attributes and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                    and inner.func.id == 'getattr' and len(inner.args) == 2
                    and not inner.keywords and not _literal(inner.args[1])):
                self.add('try-name', inner, self.grade(inner.args[0]), 'getattr(X, n)')
                continue
            if (values and isinstance(inner, ast.Call) and len(inner.args) == 1
                    and not inner.keywords and not isinstance(inner.args[0], ast.Starred)):
                self.add('try-value', inner, self.grade(inner.func), 'X(v)')
            elif keys and isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Load):
                target = inner.value
                if isinstance(target, ast.Attribute) and target.attr == '__members__':
                    self.add('try-name', inner, self.grade(target.value, marked=True),
                             'X.__members__[n]')
                else:
                    self.add('try-name', inner, self.grade(target), 'X[n]')

    def call(self, node):
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == 'get'
                and isinstance(func.value, ast.Attribute) and func.value.attr == '__members__'):
            self.add('members', node, self.grade(func.value.value, marked=True),
                     '__members__.get')
        elif (isinstance(func, ast.Name) and func.id == 'getattr' and len(node.args) == 3
                and not node.keywords and not _literal(node.args[1])):
            self.add('members', node, self.grade(node.args[0]), 'getattr(X, n, d)')

    def compare(self, node):
        for op, right in zip(node.ops, node.comparators):
            if not isinstance(op, (ast.In, ast.NotIn)):
                continue
            if isinstance(right, ast.Attribute) and right.attr == '__members__':
                self.add('members', node, self.grade(right.value, marked=True),
                         'in X.__members__')
            elif isinstance(right, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
                gen = right.generators[0]
                if (len(right.generators) == 1 and isinstance(gen.target, ast.Name)
                        and _member_attribute(right.elt, gen.target.id)):
                    self.add('iterate', node, self.grade(self.iterated(gen.iter)),
                             'in [m.%s for m in X]' % right.elt.attr)
            else:
                self.add('in', node, self.grade(right), 'in X')

    @staticmethod
    def iterated(node):
        """X for `X` and for `X.__members__.values()`."""
        if (isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute)
                and node.func.attr == 'values' and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == '__members__'):
            return node.func.value.value
        return node

    def loop(self, node):
        if not isinstance(node.target, ast.Name):
            return
        grade = self.grade(self.iterated(node.iter))
        if not grade:
            return
        for inner in _scope_nodes(node.body):
            if isinstance(inner, ast.If) and _compares_member(inner.test, node.target.id):
                self.add('iterate', node, grade, 'for m in X: if m.value/name ==')
                return

    def comprehension(self, node):
        for gen in node.generators:
            if (isinstance(gen.target, ast.Name)
                    and any(_compares_member(test, gen.target.id) for test in gen.ifs)):
                self.add('iterate', node, self.grade(self.iterated(gen.iter)),
                         '(m for m in X if m.value/name ==)')
                return


# -- an sdist -----------------------------------------------------------------

def read_sources(archive):
    """[(path relative to the sdist's top folder, source bytes)] of its .py files, sorted."""
    found = []
    with tarfile.open(str(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith('.py') and '/' in member.name:
                found.append((member.name.split('/', 1)[1], tar.extractfile(member).read()))
    return sorted(found)


def own_packages(paths):
    """The top-level names the sdist's modules import each other by: the
    first folder (or module) of each path, under src/ or lib/ if there."""
    found = set()
    for path in paths:
        parts = path.split('/')
        if parts[0] in ('src', 'lib') and len(parts) > 1:
            parts = parts[1:]
        found.add(parts[0][:-3] if parts[0].endswith('.py') else parts[0])
    return found


def scan_sources(sources):
    """Scan [(path, source)] as one project: ({'files', 'unparsed', 'counts',
    'hits'}), counts {idiom: {'certain': n, 'broader': n}}."""
    trees, unparsed = [], []
    for path, source in sources:
        try:
            trees.append((path, source, ast.parse(source, filename=path)))
        except (SyntaxError, ValueError):
            unparsed.append(path)
    facts = [class_facts(tree) for _, _, tree in trees]
    sdist_enums = enum_names(facts)
    other_classes = {name for classes, _ in facts for name, _, _ in classes} - sdist_enums
    packages = own_packages(path for path, _, _ in trees)
    hits = []
    for path, source, tree in trees:
        lines = (source.decode('utf-8', 'replace') if isinstance(source, bytes)
                 else source).splitlines()
        scanner = Scanner(tree, sdist_enums, other_classes, packages)
        for idiom, line, _, grade, kind in scanner.scan():
            text = lines[line - 1].strip() if line <= len(lines) else ''
            hits.append({'idiom': idiom, 'path': path, 'line': line, 'grade': grade,
                         'kind': kind, 'text': text})
    counts = {idiom: {'certain': 0, 'broader': 0} for idiom in IDIOMS}
    for hit in hits:
        counts[hit['idiom']]['broader'] += 1
        if hit['grade'] == 'certain':
            counts[hit['idiom']]['certain'] += 1
    return {'files': len(sources), 'unparsed': unparsed, 'enum_classes': len(sdist_enums),
            'counts': counts, 'hits': hits}


def pick_examples(rows, limit=EXAMPLES):
    """{idiom: up to `limit` hits}: certain ones first, one project at a
    time in projects.json order (its newest release first), one line per
    (project, path, text) so that two releases do not give the same line twice."""
    chosen = {}
    for idiom in IDIOMS:
        picked, seen = [], set()
        for grade in ('certain', 'broader'):
            queues = []
            for row in rows:
                hits = [dict(h, project=row['project'], version=row['version'])
                        for h in row['hits'] if h['idiom'] == idiom and h['grade'] == grade]
                queues.append(hits)
            while len(picked) < limit and any(queues):
                for queue in queues:
                    while queue:
                        hit = queue.pop(0)
                        key = (hit['project'], hit['path'], hit['text'])
                        if key not in seen:
                            seen.add(key)
                            picked.append(hit)
                            break
                    if len(picked) >= limit:
                        break
        chosen[idiom] = picked
    return chosen


def render(rows, out=None):
    """The table and the examples, as printed."""
    out = out or sys.stdout
    head = ['project', 'version', 'files'] + list(IDIOMS)
    table = [head]
    for row in rows:
        files = str(row['files'])
        if row['unparsed']:
            files += ' (%d unparsed)' % len(row['unparsed'])
        table.append([row['project'], row['version'], files]
                     + ['%d (%d)' % (row['counts'][i]['certain'], row['counts'][i]['broader'])
                        for i in IDIOMS])
    totals = ['total', '', str(sum(r['files'] for r in rows))] + [
        '%d (%d)' % (sum(r['counts'][i]['certain'] for r in rows),
                     sum(r['counts'][i]['broader'] for r in rows)) for i in IDIOMS]
    table.append(totals)
    widths = [max(len(line[c]) for line in table) for c in range(len(head))]
    rule = '  '.join('-' * w for w in widths)

    def line(cells):
        return '  '.join(c.ljust(w) if n < 3 else c.rjust(w)
                         for n, (c, w) in enumerate(zip(cells, widths))).rstrip()

    print('Counts are certain (broader): certain when X is a class the sdist defines as an enum;',
          file=out)
    print('broader adds names that only look like one (see tools/dependents/demand.py).', file=out)
    print(file=out)
    print(line(head), file=out)
    print(rule, file=out)
    for cells in table[1:-1]:
        print(line(cells), file=out)
    print(rule, file=out)
    print(line(totals), file=out)
    examples = pick_examples(rows)
    for idiom in IDIOMS:
        print(file=out)
        print('%s: %s' % (idiom, TITLES[idiom]), file=out)
        if not examples[idiom]:
            print('  (none)', file=out)
        for hit in examples[idiom]:
            print('  %s %s %s:%d [%s] %s' % (hit['project'], hit['version'], hit['path'],
                                              hit['line'], hit['grade'], hit['text'][:100]),
                  file=out)


def as_json(rows):
    return {'about': ('Idioms that stand in for from_value, from_name and `in`, counted in the '
                      'pinned sdists by python3 tools/dependents demand; see its docstring.'),
            'idioms': TITLES, 'projects': rows, 'examples': pick_examples(rows)}


def demand(args, data, pick):
    """The subcommand: fetch (through prepare.sdist) and scan every pinned
    release; `pick` is the CLI's parser of --projects."""
    from . import prepare
    names = pick([p['name'] for p in data['projects']], args.projects, 'projects')
    rows = []
    for project in data['projects']:
        if project['name'] not in names:
            continue
        for release in project['releases']:
            # prepare.sdist says when it downloads; that goes to stderr, so
            # that stdout is the same on every run.
            with contextlib.redirect_stdout(sys.stderr):
                try:
                    archive = prepare.sdist(project['pypi'], release['version'])
                except prepare.SetupError as error:
                    raise SystemExit('demand: %s' % error)
            row = {'project': project['name'], 'version': release['version'],
                   'sdist': archive.name}
            row.update(scan_sources(read_sources(archive)))
            rows.append(row)
    render(rows)
    if args.json:
        with open(args.json, 'w') as handle:
            json.dump(as_json(rows), handle, indent=1, sort_keys=True)
            handle.write('\n')
    return 0

