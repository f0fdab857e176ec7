"""A mypy plugin: the enum methods that ``import enum_backport`` adds.

In mypy's configuration::

    [mypy]
    plugins = enum_backport.mypy

and mypy then types, on every target version::

    Color.from_value(x)                  # Color
    Color.from_value(x, default=None)    # Color | None
    Color.from_value(x, default='n/a')   # Color | str
    Color.from_name(n, default=None)     # Color | None
    x in Color                           # any object, a bool

One job, done once: when mypy analyses typeshed's ``enum.EnumMeta`` it
gives that class the two methods, with the overloads of the typed
functions `enum_backport.from_value`/`from_name` and of the typeshed patch
this project writes (see `_add_lookup`), and, where typeshed's
``__contains__`` takes only members (targets before 3.12), one that takes
any object.  Being added to the metaclass, they behave as the interpreter's
do: a member, method or classmethod of the same name that an enum defines
wins.  Where typeshed already has the methods (a typeshed with this
project's patch, which gives them to 3.16) the plugin adds nothing.

mypy asks its plugins for a hook by name and calls the first it gets: a
plugin listed before this one that also hooks classes based on ``type``
(or class attributes called from_value or from_name) keeps this one's from
running, and the other way round.  None of mypy's own does.

The methods become part of ``enum``'s entry in mypy's incremental cache;
mypy keys that cache by the plugins configured, so a cache written without
this plugin is never read with it, and the other way round.

Public plugin API used: `Plugin.get_base_class_hook`, called after the
body of each class with an explicit base is analysed (``EnumMeta(type)``:
so the hook for ``builtins.type``, which returns at once for any other
class), and `mypy.plugins.common.add_overloaded_method_to_class`.
Private pieces, each because the public API has no such thing:

- `TypeVarType` and `TypeVarId`, to make the two type variables the
  overloads are generic in (their constructors have changed before: a
  `default` in mypy 1.4, a `namespace` in 1.5);
- `CallableType.copy_modified(arg_names=...)`, because `MethodSpec` has no
  way to say that a parameter is positional-only (mypy spells that as a
  name of None);
- taking the added nodes out of the class body, where
  add_*method_to_class puts them, and setting the overload's type, which
  the analyser would have set from the body (see `_out_of_body`);
- replacing the node of ``EnumMeta.__contains__`` in the class's symbol
  table, for targets before 3.12;
- mypy's rule that an attribute of the metaclass wins over a plain class
  attribute (an enum member) of the same name unless a class attribute
  hook exists for it (`get_class_attribute_hook` is public; that it
  changes the rule is not).

tests/test_typing.py (`PluginTests`) checks what each of these gives with
the oldest and the newest mypy tox installs, so that a mypy that changes
them fails a test rather than giving silently wrong types.
"""

from __future__ import annotations

from typing import Callable, Optional

from mypy.nodes import (ARG_NAMED, ARG_POS, ArgKind, Argument, Decorator, FuncDef,
                        OverloadedFuncDef, TypeInfo, Var)
from mypy.plugin import (AttributeContext, ClassDefContext, Plugin,
                         SemanticAnalyzerPluginInterface)
from mypy.types import (AnyType, CallableType, Overloaded, Type, TypeOfAny, TypeType,
                        TypeVarId, TypeVarType, UnionType)

try:
    from mypy.plugins.common import (MethodSpec, add_method_to_class,
                                     add_overloaded_method_to_class)
except ImportError:  # mypy before 1.7
    raise ImportError('enum_backport.mypy needs mypy 1.7 or later (this is mypy %s)'
                      % __import__('mypy.version').version.__version__) from None

ENUM_META = 'enum.EnumMeta'


def _type_var(api: SemanticAnalyzerPluginInterface, name: str, raw_id: int,
              method: str) -> TypeVarType:
    fullname = 'enum_backport.mypy.' + name
    upper = api.named_type('builtins.object')
    default = AnyType(TypeOfAny.from_omitted_generics)
    var_id = TypeVarId(raw_id, namespace='%s.%s' % (ENUM_META, method))
    return TypeVarType(name, fullname, var_id, [], upper, default)


def _function(item: FuncDef | Decorator) -> FuncDef:
    return item.func if isinstance(item, Decorator) else item


def _signature(func: FuncDef) -> CallableType:
    assert isinstance(func.type, CallableType), func.type
    return func.type


def _positional_only(node: OverloadedFuncDef, count: int) -> None:
    """Make the first `count` parameters of each item positional-only."""
    for item in node.items:
        func = _function(item)
        names = list(_signature(func).arg_names)
        names[:count] = [None] * count
        func.type = _signature(func).copy_modified(arg_names=names)
        if isinstance(item, Decorator):
            item.var.type = func.type
        for argument in func.arguments[:count]:
            argument.pos_only = True
    # The semantic analyser sets this when it analyses an overload in a
    # class body; ours stays out of the body (see _out_of_body).
    node.type = Overloaded([_signature(_function(item)) for item in node.items])


def _add_lookup(ctx: ClassDefContext, method: str, arg_name: str, arg_type: Type) -> None:
    """Give EnumMeta `method` as the typed functions and typeshed's patch type it::

        @overload
        def from_value(cls: type[_E], value: object, /) -> _E: ...
        @overload
        def from_value(cls: type[_E], value: object, /, *, default: _T) -> _E | _T: ...

    (from_name likewise, with ``name: str``).
    """
    api = ctx.api
    member = _type_var(api, '_E', -1, method)
    default = _type_var(api, '_T', -2, method)
    self_type = TypeType(member)

    def argument(name: str, typ: Type, kind: ArgKind) -> Argument:
        return Argument(Var(name, typ), typ, None, kind)

    node = add_overloaded_method_to_class(api, ctx.cls, method, [
        MethodSpec(args=[argument(arg_name, arg_type, ARG_POS)],
                   return_type=member, self_type=self_type, tvar_defs=[member]),
        MethodSpec(args=[argument(arg_name, arg_type, ARG_POS),
                         argument('default', default, ARG_NAMED)],
                   return_type=UnionType([member, default]), self_type=self_type,
                   tvar_defs=[member, default]),
    ])
    _positional_only(node, 2)
    _out_of_body(ctx, node)


def _out_of_body(ctx: ClassDefContext, node: OverloadedFuncDef | FuncDef | Decorator) -> None:
    # add_*method_to_class also appends the new node to the class body,
    # where the semantic analyser, making another pass over typeshed's
    # enum module, would analyse it as source and fail on its type
    # variables.  The symbol table is where mypy looks methods up.
    body = ctx.cls.defs.body
    if node in body:
        body.remove(node)


def _contains_takes_members(info: TypeInfo) -> bool:
    """Whether typeshed's __contains__ for this target takes members only."""
    symbol = info.names.get('__contains__')
    signature = getattr(getattr(symbol, 'node', None), 'type', None)
    arg_types = getattr(signature, 'arg_types', None)
    if not arg_types or len(arg_types) != 2:
        return False
    accepted = arg_types[1]
    return getattr(getattr(accepted, 'type', None), 'fullname', None) != 'builtins.object'


def _add_contains(ctx: ClassDefContext) -> None:
    api = ctx.api
    any_class = TypeType(AnyType(TypeOfAny.special_form))
    value = api.named_type('builtins.object')
    # add_method_to_class keeps typeshed's definition under another name;
    # the one mypy looks up as __contains__ is the new one.
    add_method_to_class(api, ctx.cls, '__contains__',
                        [Argument(Var('value', value), value, None, ARG_POS)],
                        api.named_type('builtins.bool'), self_type=any_class)
    node = ctx.cls.info.names['__contains__'].node
    assert isinstance(node, FuncDef), node
    node.type = _signature(node).copy_modified(arg_names=[None, None])
    for argument in node.arguments:
        argument.pos_only = True
    _out_of_body(ctx, node)


def _enum_meta(ctx: ClassDefContext) -> None:
    info = ctx.cls.info
    if info.fullname != ENUM_META:
        return
    object_type = ctx.api.named_type('builtins.object')
    str_type = ctx.api.named_type('builtins.str')
    for method, arg_name, arg_type in (('from_value', 'value', object_type),
                                       ('from_name', 'name', str_type)):
        # Absent, or (the hook may run more than once) added already.
        if method not in info.names:
            _add_lookup(ctx, method, arg_name, arg_type)
    if _contains_takes_members(info):
        _add_contains(ctx)


def _class_attribute(ctx: AttributeContext) -> Type:
    return ctx.default_attr_type


class _TypedEnumPlugin(Plugin):
    def get_base_class_hook(self, fullname: str) -> Optional[Callable[[ClassDefContext], None]]:
        if fullname == 'builtins.type':
            return _enum_meta
        return None

    def get_class_attribute_hook(
            self, fullname: str) -> Optional[Callable[[AttributeContext], Type]]:
        # A member called from_value or from_name wins over the metaclass's
        # method, as at run time.  mypy prefers an attribute of the
        # metaclass to a plain class attribute (a Var) of the same name,
        # unless a class attribute hook exists for that name: this one,
        # which leaves the type as it is.
        if fullname.endswith(('.from_value', '.from_name')):
            return _class_attribute
        return None


def plugin(version: str) -> type:
    """mypy's entry point: the plugin class (a subclass of mypy.plugin.Plugin).

    Typed as a plain class, so that the types of this package's public
    interface do not lean on mypy's own.
    """
    return _TypedEnumPlugin

