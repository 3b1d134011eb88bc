"""The user-defined functions of one TableEnvironment, by name (``create_temporary_function``,
``create_temporary_system_function``), and the resolution of ``call('name', ...)`` against them.

``call('name', ...)`` makes an :class:`UnresolvedCall`; a Table method replaces it with the call of
the function its own environment registered under the name (``resolve_calls``), and SQL looks names
up in the query's environment (``FunctionCatalog.lookup``)."""
from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Any, Dict, Iterator, List, Optional, Tuple

from kindling.table.expressions import _COMPUTED, NAMED_AGGREGATES, Expression, call, node

#: the catalog of the environment whose SQL query is being translated (sql.py reads it)
_QUERY_CATALOG: contextvars.ContextVar[Optional["FunctionCatalog"]] = contextvars.ContextVar("_QUERY_CATALOG",
                                                                                             default=None)


class FunctionCatalog:
    """The functions one TableEnvironment registered, by lower-cased name."""

    def __init__(self) -> None:
        self._functions: Dict[str, Any] = {}
        #: the names registered as temporary (catalog) functions that Flink's built-in function of the name shadows
        self._shadowed: set = set()

    def register(self, name: str, function: Any, system: bool = False) -> None:
        """Makes ``function`` (a wrapper made by udf/udtf/udaf, or an AggregateFunction or
        TableAggregateFunction object, wrapped with its own result type as PyFlink wraps it) callable by
        name (``call``, SQL); ``system``: as a temporary system function, which Flink calls in place of a
        built-in function of the name (a temporary function of it is never called by that name)."""
        from kindling.table.planner.functions import FLINK_BUILT_IN_NAMES
        from kindling.table.udf import (TableAggregateFunction, _aggregate_wrapper, _Function,
                                        _ImperativeAggregateFunction)

        if isinstance(function, _ImperativeAggregateFunction):
            function = _aggregate_wrapper(function, None, "general", type(function).__name__,
                                          isinstance(function, TableAggregateFunction))
        if not isinstance(function, _Function):
            raise TypeError(f"Register a function made with udf, udtf or udaf, got {function!r}")
        self._functions[name.lower()] = function
        if name.lower() in FLINK_BUILT_IN_NAMES and not system:
            self._shadowed.add(name.lower())
        else:
            self._shadowed.discard(name.lower())

    def unregister(self, name: str) -> bool:
        self._shadowed.discard(name.lower())
        return self._functions.pop(name.lower(), None) is not None

    def names(self) -> List[str]:
        return sorted(self._functions)

    def lookup(self, name: str) -> Any:
        """The function registered as ``name``; fails naming the fix when there is none."""
        if name.lower() in self._shadowed:
            raise ValueError(f"{name}: Flink calls its built-in function {name}, not the temporary function of that "
                             "name (PyFlink 2.3 fails on arguments the built-in does not take), and Kindling does not "
                             "give that built-in by this name; register the function under another name, or with "
                             "create_temporary_system_function (which Flink calls in place of the built-in)")
        try:
            return self._functions[name.lower()]
        except KeyError:
            from kindling.table.planner.functions import refusal

            if refusal(name):
                raise ValueError(refusal(name)) from None
            raise ValueError(f"No function named '{name}': register it with create_temporary_function or "
                             f"create_temporary_system_function; registered: {self.names()} (each TableEnvironment "
                             "has its own functions: register it in the environment whose tables call it)") from None


@contextlib.contextmanager
def query_functions(catalog: FunctionCatalog) -> Iterator[None]:
    """While translating a SQL query: names resolve through ``catalog``."""
    token = _QUERY_CATALOG.set(catalog)
    try:
        yield
    finally:
        _QUERY_CATALOG.reset(token)


class UnresolvedCall(Expression):
    """``call('name', ...)`` of a registered function: resolved when a Table method takes it, against
    that Table's environment."""

    @property
    def _function_name(self) -> str:
        return self._payload[0]

    def alias(self, name: str, *extra_names: str) -> Expression:
        if not extra_names:
            return super().alias(name)
        aliased = unresolved_call(self._function_name, self._operands)
        aliased._payload = (self._function_name, (name, *extra_names))
        return aliased

    def over(self, alias: Any) -> Expression:
        """As ``Expression.over``, of the aggregate function the name resolves to (checked then)."""
        window = getattr(alias, "_name", alias)
        return node("over", (self,), (window,), f"{self._text} OVER {window}")

    def _data_type(self, types):
        raise ValueError(f"{self._text}: call('{self._function_name}', ...) of a registered function is resolved "
                         "by the Table method that takes it (against its TableEnvironment's functions)")


def unresolved_call(name: str, arguments: Tuple[Expression, ...]) -> UnresolvedCall:
    return node("unresolved_call", tuple(arguments), (name, ()),
                f"{name}({', '.join(a._text for a in arguments)})", cls=UnresolvedCall)


def sql_call(name: str, arguments: List[Expression]) -> Expression:
    """A function call of SQL: through the query's environment when one is translating, else unresolved
    (a computed column's expression, resolved by the Table method that takes it)."""
    catalog = _QUERY_CATALOG.get()
    if catalog is None or (name.lower() in NAMED_AGGREGATES and len(arguments) == 1):
        return call(name, *arguments)
    return catalog.lookup(name)(*arguments)


def resolve_calls(value: Any, catalog: FunctionCatalog, memo: Optional[dict] = None) -> Any:
    """``value`` with each UnresolvedCall in it (an expression, or a list or tuple of them) replaced by
    the call of ``catalog``'s function; ``value`` itself when it has none."""
    memo = {} if memo is None else memo
    if isinstance(value, (list, tuple)):
        items = [resolve_calls(v, catalog, memo) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if not isinstance(value, Expression):
        return value
    if id(value) in memo:
        return memo[id(value)][1]
    operands = tuple(resolve_calls(o, catalog, memo) for o in value._operands)
    if isinstance(value, UnresolvedCall):
        resolved = catalog.lookup(value._function_name)(*operands)
        names = value._payload[1]
        resolved = resolved.alias(*names) if names else resolved
    elif all(a is b for a, b in zip(operands, value._operands)) and \
            (value._column is value or resolve_calls(value._column, catalog, memo) is value._column):
        resolved = value
    else:
        resolved = object.__new__(type(value))
        vars(resolved).update({k: v for k, v in vars(value).items() if k not in _COMPUTED})
        resolved._operands = operands
        resolved._column = resolved if value._column is value else resolve_calls(value._column, catalog, memo)
        if resolved._kind == "over":
            resolved._operands[0].over(resolved._payload[0])  # fails as over() of a non-aggregate does
    memo[id(value)] = (value, resolved)  # the value kept so that its id is not reused while resolving
    return resolved


def resolving(cls: type) -> type:
    """``cls`` (Table or one of its grouped or windowed forms) with each public method taking its
    arguments with their ``call('name', ...)`` resolved against the table's environment."""
    for attribute, method in list(vars(cls).items()):
        if attribute.startswith("_") or not callable(method) or isinstance(method, (staticmethod, classmethod)):
            continue
        setattr(cls, attribute, _resolving_method(method))
    return cls


def _resolving_method(method):
    @functools.wraps(method)
    def resolved(self, *args, **kwargs):
        table = self if hasattr(self, "_t_env") else self._table
        catalog = table._t_env._functions
        memo: dict = {}
        args = tuple(resolve_calls(a, catalog, memo) for a in args)
        kwargs = {k: resolve_calls(v, catalog, memo) for k, v in kwargs.items()}
        return method(self, *args, **kwargs)
    return resolved
