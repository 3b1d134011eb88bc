"""Flink SQL queries parsed with sqlglot and translated into Table API operations (other statements:
kindling/table/ddl.py)."""
from __future__ import annotations

import decimal
import functools
import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple

from kindling.table.ddl import DIALECT, parse_statement  # noqa: F401 (parse_statement: kept importable here)
from kindling.table.ddl import data_type as _data_type
from kindling.table.ddl import parse_sql as _parse
from kindling.table.expressions import col, lit
from kindling.table.grouping_sets import (GROUPING_ID, expanded, grouping_sets, grouping_values, is_grouping_call,
                                          original, refuse_aggregated_keys)
from kindling.table.planner import nodes
from kindling.table.rank import pending_rank
from kindling.table.window_tvf import window_tvf_of

__all__ = ["parse_query", "parse_statement"]


def parse_expression(text: str):
    """The sqlglot tree of one SQL expression."""
    return _parse(f"SELECT {text}").expressions[0]


def sql_expression(text: str) -> Any:
    """The Table API expression of one SQL expression (``CAST(f0 AS TIMESTAMP(3))``)."""
    return _expression(parse_expression(text))


def parse_query(query: str, t_env: Any) -> Any:
    """The Table of a Flink SQL query: ``SELECT [DISTINCT] ... FROM`` a registered table, a subquery,
    a window TVF (``TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))``, HOP, CUMULATE,
    SESSION) or joins (regular, interval, LATERAL TABLE, UNNEST), ``[WHERE ...]`` (with ``[NOT] IN`` and
    ``[NOT] EXISTS`` subqueries) ``[GROUP BY ... [HAVING ...]] [ORDER BY ...]
    [LIMIT n]``, with OVER aggregates and the ROW_NUMBER deduplication and Top-N patterns. The
    clauses become Table API operations, so SQL and the Table API run the same way; anything else
    fails naming the part Kindling cannot translate yet."""
    import sqlglot.expressions as exp

    tree = _parse(query)
    if not isinstance(tree, (exp.Select, exp.Subquery, exp.SetOperation, exp.Values)):
        raise ValueError(f"sql_query takes a SELECT query, got: {query.strip()[:80]!r}")
    from kindling.table.function_catalog import query_functions

    with query_functions(t_env._functions):
        return _query(tree, _Tables(t_env, {}))


class _Tables:
    """The tables a query names: a TableEnvironment's, and the subqueries ``WITH`` names."""

    def __init__(self, t_env: Any, named: Dict[str, Any]):
        self.t_env, self.named = t_env, named

    def __call__(self, node) -> Any:
        """The table a name in the query (a sqlglot Table, ``[[catalog.]database.]table``) stands for."""
        import sqlglot.expressions as exp

        from kindling.table.catalog_manager import path_text

        parts = [p.name for p in node.parts] if isinstance(node, (exp.Table, exp.Column)) else [node.name]
        if len(parts) == 1 and parts[0] in self.named:
            return self.named[parts[0]]
        return self.t_env.from_path(path_text(parts))

    def with_name(self, name: str, table: Any) -> "_Tables":
        return _Tables(self.t_env, {**self.named, name: table})


def _query(tree, table_of) -> Any:
    """The Table of a query: a SELECT (or a parenthesized one), ``UNION [ALL]`` of queries, ``VALUES``,
    each maybe with ``WITH`` names for subqueries."""
    import sqlglot.expressions as exp

    with_ = tree.args.get("with_") or tree.args.get("with")
    if with_ is not None:
        table_of = _with_names(with_, table_of)
    if isinstance(tree, exp.Subquery):
        return _ordered(tree, _query(tree.this, table_of))
    if isinstance(tree, exp.SetOperation):  # UNION, INTERSECT, EXCEPT [ALL]
        left, right = _query(tree.this, table_of), _query(tree.expression, table_of)
        distinct, kind = bool(tree.args.get("distinct")), type(tree).__name__
        operation = {"Union": ("union", "union_all"), "Intersect": ("intersect", "intersect_all"),
                     "Except": ("minus", "minus_all")}[kind][0 if distinct else 1]
        combined = left.union_all(right) if operation == "union_all" else \
            left.union(right) if operation == "union" else left._set_operation(right, operation, in_sql=True)
        return _ordered(tree, combined)
    if isinstance(tree, exp.Values):
        return _values(tree, table_of)
    if isinstance(tree, exp.Select) and tree.args.get("qualify") is not None:
        return _qualified(tree, table_of)
    if not isinstance(tree, exp.Select):
        raise ValueError(f"sql_query: {tree.sql(dialect=DIALECT)[:80]!r} is not supported by Kindling yet "
                         "(SELECT, VALUES, and UNION, INTERSECT or EXCEPT of them)")
    source = _from(tree)
    if source is None:  # SELECT 1 + 1: over one row, as Flink reads it (FROM (VALUES (0)))
        table, alias = _one_row(table_of), None
    else:
        table, alias = _source(source.this, table_of)
    match = tree.args.get("match")
    if match is not None:
        from kindling.table.match_recognize import match_recognize

        if tree.args.get("joins"):
            raise ValueError("sql_query: MATCH_RECOGNIZE in a join is not supported by Kindling yet (match in a "
                             "subquery: FROM (SELECT * FROM t MATCH_RECOGNIZE (...)) AS m JOIN ...)")
        table, alias = match_recognize(table, match), match.alias or None
    scope: Any = alias
    if tree.args.get("joins"):
        table, scope = _joined(table, alias, tree.args["joins"], table_of)
    windows = {w.alias_or_name: w for w in tree.args.get("windows") or []}
    ranking = _ranking(tree, windows)
    rank = pending_rank(table)
    where = tree.args.get("where")
    condition, subqueries = _subquery_conditions(where.this) if where is not None else (None, [])
    if condition is not None:
        table = _filtered(table, condition, scope, rank, tree)
    elif rank is not None:
        table = rank.table(1, None, _uses(tree, rank.name))
    for subquery, negated in subqueries:
        table = _existence_joined(table, scope, subquery, negated, table_of)
    if ranking is not None:
        from kindling.table.rank import RankSpec

        function, partition, order, name, position = ranking
        before = sum(len(table.get_schema().get_field_names()) if isinstance(e, exp.Star) else 1
                     for e in tree.expressions[:position])
        spec = RankSpec(table, function, [_expression(k, scope) for k in partition],
                        [(_expression(o.this, scope), bool(o.args.get("desc"))) for o in order],
                        _select_fields(tree, scope, table, skip=position), name, before)
        return spec.table(1, None, True, pending=True)
    if any(isinstance(e, exp.Star) for e in tree.expressions):
        if tree.args.get("group"):
            raise ValueError("sql_query: * with GROUP BY is not supported by Kindling yet")
        if len(tree.expressions) == 1:
            return _ordered(tree, table.distinct() if tree.args.get("distinct") else table)
    table, over_columns = _over(tree, table, scope, windows)
    tree, table, scope = _group_expressions(tree, table, scope)
    group = tree.args.get("group")
    grouping_calls = any(is_grouping_call(n) for part in _select_parts(tree) for n in part.walk())
    sets = grouping_sets(group, functools.partial(_key_name, scope=scope), grouping_calls)
    if sets is None:
        keys = [_expression(k, scope) for k in (group.expressions if group is not None else [])]
    else:
        tree, scope, table, keys = _grouping(tree, scope, table, *sets)
    fields = _select_fields(tree, scope, table, over_columns=over_columns)
    if sets is not None:
        refuse_aggregated_keys(fields, sets[0])
    having = tree.args.get("having")
    aggregated = group is not None or having is not None or any(f.aggregates() for f in fields)
    tree, hidden = _order_columns(tree, fields, table, scope, aggregated)
    if not aggregated:
        if not hidden and not tree.args.get("distinct") and _orders_by_unselected(tree, fields, table):
            return _ordered(tree, table).select(*fields)  # sorted before the projection
        result = table.select(*fields, *hidden)
    else:
        fields += hidden
        if having is not None:  # computed as one more column, filtered on, then dropped
            fields.append(_expression(having.this, scope).alias(HAVING_COLUMN))
        result = _grouped(table, keys, fields)
        if having is not None:
            result = result.where(col(HAVING_COLUMN)).drop_columns(HAVING_COLUMN)
    result = result.distinct() if tree.args.get("distinct") else result
    result = _ordered(tree, result)
    return result.drop_columns(*[col(h._name) for h in hidden]) if hidden else result


def _order_columns(tree, fields: list, table, scope, aggregated: bool) -> Tuple[Any, list]:
    """The query with its ORDER BY reading the SELECT list's columns, and the columns to compute for it
    beside the SELECT list (dropped after the sort), as Flink's planner: an ordinal is the SELECT list's
    column; a name of the SELECT list (an alias first) is that column; an expression of those is computed
    over the result (:func:`_ordered`); any other expression (of the table's other columns, of aggregates)
    is computed with the SELECT list, its aliases read as the expressions they name. With DISTINCT only
    expressions of the SELECT list's columns, as in Flink."""
    import sqlglot.expressions as exp

    order = tree.args.get("order")
    if order is None:
        return tree, []
    names = [f._name for f in fields]
    table_names = table.get_schema().get_field_names()
    keys = [_ordinal(o.this, names) for o in order.expressions]

    def of_result(key) -> bool:
        return not key.find(exp.AggFunc, exp.Window) and all(
            not c.table and c.name in names for c in key.find_all(exp.Column)) and not _is_ordinal(key)

    distinct = bool(tree.args.get("distinct"))

    def plain(key) -> bool:
        return isinstance(key, exp.Column) and not key.table and (key.name in names or (
            not aggregated and not distinct and key.name in table_names))

    if all(plain(k) for k in keys) or all(of_result(k) for k in keys):
        return _with_order(tree, keys), []
    aliases = {node.alias: node.this for node in tree.expressions if isinstance(node, exp.Alias)}
    taken, hidden = set(names) | set(table_names), []
    for i, key in enumerate(keys):
        if of_result(key):
            continue
        if distinct:
            stray = next((c for c in key.find_all(exp.Column) if c.name not in names), key)
            raise ValueError(f"sql_query: ORDER BY {key.sql(dialect=DIALECT)}: Expression "
                             f"'{stray.sql(dialect=DIALECT)}' is not in the select clause")
        expanded = key.copy().transform(lambda n: aliases[n.name].copy() if isinstance(n, exp.Column) and not n.table
                                        and n.name in aliases else n)
        name = _apart([f"$s{len(hidden)}"], taken)[0]
        hidden.append(_expression(expanded, scope).alias(name))
        keys[i] = exp.column(name, quoted=True)
    return _with_order(tree, keys), hidden


def _is_ordinal(node) -> bool:
    import sqlglot.expressions as exp

    return isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()


def _ordinal(node, names: list):
    """An ORDER BY key with an ordinal (``ORDER BY 2``) read as the SELECT list's column it numbers."""
    import sqlglot.expressions as exp

    if not _is_ordinal(node):
        return node
    if not 1 <= int(node.this) <= len(names):
        raise ValueError(f"sql_query: ORDER BY {node.this}: Ordinal out of range")
    return exp.column(names[int(node.this) - 1], quoted=True)


def _with_order(tree, keys: list):
    """The query ordered by ``keys`` in place of its ORDER BY's expressions (each keeping its direction)."""
    order = tree.args["order"]
    if all(k is o.this for k, o in zip(keys, order.expressions)):
        return tree
    tree = tree.copy()
    for ordered, key in zip(tree.args["order"].expressions, keys):
        ordered.set("this", key.copy())
    return tree


def _from(tree) -> Any:
    """A SELECT's FROM clause (None: none)."""
    return tree.args.get("from") or tree.args.get("from_")


def _qualified(tree, table_of) -> Any:
    """``SELECT list FROM ... QUALIFY condition`` as Flink reads it: the window functions of the condition
    computed as columns of the SELECT, the rows filtered on the condition over them, the columns dropped."""
    import sqlglot.expressions as exp

    if tree.args.get("group") is not None or tree.args.get("distinct"):
        raise ValueError("sql_query: QUALIFY with GROUP BY or DISTINCT is not supported by Kindling yet")
    inner, condition, names = tree.copy(), tree.args["qualify"].this.copy(), []
    inner.set("qualify", None)
    for key in ("order", "limit", "offset"):
        inner.set(key, None)
    for n, window in enumerate(list(condition.find_all(exp.Window))):
        names.append(f"QUALIFY${n}")
        inner.append("expressions", exp.alias_(window.copy(), names[-1]))
        window.replace(exp.column(names[-1]))
    outer = exp.select("*").from_(inner.subquery()).where(condition)
    for key in ("order", "limit", "offset"):
        if tree.args.get(key) is not None:
            outer.set(key, tree.args[key].copy())
    return _query(outer, table_of).drop_columns(*[col(n) for n in names])


def _with_names(with_, table_of: _Tables) -> _Tables:
    """``table_of`` with the names ``WITH`` gives its subqueries (each seeing the ones before it)."""
    for cte in with_.expressions:
        table = _query(cte.this, table_of)
        columns = [c.name for c in cte.args["alias"].columns]
        table_of = table_of.with_name(cte.alias, table.alias(*columns) if columns else table)
    return table_of


def _values(tree, table_of) -> Any:
    """The table of ``VALUES (...), (...)`` (columns ``EXPR$0``... unless an alias names them): literal
    rows, typed as Flink types them (the type every row's value fits, DECIMAL for 2.5, VARCHAR for
    strings of several lengths)."""
    import sqlglot.expressions as exp

    rows = [row.expressions if isinstance(row, exp.Tuple) else [row] for row in tree.expressions]
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"sql_query: the rows of {tree.sql(dialect=DIALECT)[:80]!r} have different numbers of values")
    cells = [[_literal(v) for v in row] for row in rows]
    types = [_values_type([c[i][1] for c in cells]) for i in range(len(rows[0]))]
    alias = tree.args.get("alias")
    names = [c.name for c in alias.columns] if alias is not None and alias.columns else \
        [f"EXPR${i}" for i in range(len(types))]
    if len(names) != len(types):
        raise ValueError(f"sql_query: {len(names)} column names for VALUES of {len(types)} columns")
    from kindling.table.types import DataTypes

    return table_of.t_env._elements_table([[v for v, _ in c] for c in cells],
                                          DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types)]),
                                          parallel=False)


def _one_row(table_of) -> Any:
    """The table a SELECT without FROM reads: one row of one column no expression can name."""
    from kindling.table.types import DataTypes

    return table_of.t_env._elements_table([[0]], DataTypes.ROW([DataTypes.FIELD("ZERO$", DataTypes.INT().not_null())]),
                                          parallel=False)


def _literal(node) -> Tuple[Any, Any]:
    """A VALUES cell's value and type: a literal (numbers with a point are DECIMAL, as in Flink), NULL,
    or a constant expression."""

    import sqlglot.expressions as exp

    from kindling.table.types import DataTypes

    negative = isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string
    number = node.this if negative else node
    if isinstance(number, exp.Literal) and _is_decimal(number):
        value = decimal.Decimal(("-" if negative else "") + number.this)
        return value, _decimal_type(value)
    if isinstance(node, exp.Null):
        return None, DataTypes.NULL()
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Null):
        return None, _data_type(node.to).nullable()
    expression = _expression(node, None)
    data_type = expression._data_type({})
    return expression.evaluate({}), data_type.not_null() if negative else data_type


def _is_decimal(literal) -> bool:
    """Whether a number literal is exact with a point (``2.55``): DECIMAL in Flink SQL, not DOUBLE."""
    return not literal.is_string and "." in literal.this and not any(c in literal.this for c in "eE")


def _decimal_type(value) -> Any:
    """The type Flink gives a decimal literal: as many digits as it is written with (2.55: DECIMAL(3, 2))."""
    from kindling.table.types import DataTypes

    digits, scale = len(value.as_tuple().digits), -value.as_tuple().exponent
    return DataTypes.DECIMAL(max(digits, scale), scale).not_null()


def _values_type(types: List[Any]) -> Any:
    """The type every value of a VALUES column fits."""
    from kindling.table.planner.types import common_type

    known = [t for t in types if t.type_name != "NULL"]
    nullable = len(known) < len(types) or any(t._nullable for t in known)
    if not known:
        raise ValueError("sql_query: a VALUES column of NULLs only needs a type: CAST(NULL AS type)")
    widest = common_type(known, "VALUES")
    return widest.nullable() if nullable else widest.not_null()


def _source(node, table_of) -> Tuple[Any, Optional[str]]:
    """The table a FROM item names (a registered table, a subquery, VALUES, a window TVF) and its alias."""
    import sqlglot.expressions as exp

    if isinstance(node, exp.Subquery):
        return _query(node.this, table_of), node.alias or None
    if isinstance(node, exp.Values):
        return _values(node, table_of), node.alias or None
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) and node.this.name.upper() == "TABLE":
        calls = node.this.expressions
        if len(calls) == 1 and isinstance(calls[0], exp.Anonymous) and calls[0].name.upper() in WINDOW_TVFS:
            return _window_tvf(calls[0], table_of), node.alias or None
        raise ValueError(f"sql_query: {node.sql(dialect=DIALECT)} is not supported by Kindling yet (table "
                         "functions in FROM: the window TVFs TUMBLE, HOP, CUMULATE and SESSION)")
    if isinstance(node, exp.Table):
        if node.args.get("version") is not None:
            raise ValueError(f"sql_query: {node.sql(dialect=DIALECT)}: FOR SYSTEM_TIME AS OF is for the right side of "
                             "a lookup join (FROM o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.id)")
        return table_of(node), node.alias_or_name
    raise ValueError(f"sql_query: FROM must name a registered table, a subquery or a window TVF, got "
                     f"{node.sql(dialect=DIALECT)}")


#: the window table-valued functions and their parameters, in order
WINDOW_TVFS = {"TUMBLE": ("DATA", "TIMECOL", "SIZE", "OFFSET"), "HOP": ("DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"),
               "CUMULATE": ("DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"), "SESSION": ("DATA", "TIMECOL", "GAP")}


def _window_tvf(call, table_of) -> Any:
    """The table of ``TUMBLE/HOP/CUMULATE/SESSION(TABLE t [PARTITION BY ...], DESCRIPTOR(ts), ...)``."""
    import sqlglot.expressions as exp

    from kindling.table.sql_dialect import TableArgument
    from kindling.table.window_tvf import WindowTVF

    name = call.name.upper()
    parameters = WINDOW_TVFS[name]
    given: Dict[str, Any] = {}
    for i, argument in enumerate(call.expressions):
        key = argument.this.name.upper() if isinstance(argument, exp.Kwarg) else \
            parameters[i] if i < len(parameters) else None
        if key not in parameters:
            raise ValueError(f"{name}: unexpected argument {argument.sql(dialect=DIALECT)}; {name} takes "
                             f"{', '.join(parameters)}")
        given[key] = argument.expression if isinstance(argument, exp.Kwarg) else argument
    missing = [p for p in parameters if p not in given and p != "OFFSET"]
    if missing:
        raise ValueError(f"{name}: missing {', '.join(missing)} ({name}({', '.join(parameters)}))")
    data, descriptor = given["DATA"], given["TIMECOL"]
    if not isinstance(data, TableArgument):
        raise ValueError(f"{name}: the first argument is TABLE name, got {data.sql(dialect=DIALECT)}")
    if not (isinstance(descriptor, exp.Anonymous) and descriptor.name.upper() == "DESCRIPTOR"
            and len(descriptor.expressions) == 1):
        raise ValueError(f"{name}: the time column is DESCRIPTOR(column), got {descriptor.sql(dialect=DIALECT)}")
    keys = [k.name for k in data.expressions]
    if keys and name != "SESSION":
        raise ValueError(f"{name}: PARTITION BY is for SESSION windows only")
    size = _interval_ms(given["GAP" if name == "SESSION" else "SIZE"], name)
    slide = _interval_ms(given["SLIDE"], name) if name == "HOP" else \
        _interval_ms(given["STEP"], name) if name == "CUMULATE" else None
    offset = _interval_ms(given["OFFSET"], name) if "OFFSET" in given else 0
    tvf = WindowTVF(table_of(data.this), name, descriptor.expressions[0].name, size, slide, offset, keys)
    return tvf.table_of_windows()


def _interval_ms(node, what: str) -> int:
    millis = getattr(_expression(node), "_interval_ms", None)
    if millis is None:
        raise ValueError(f"{what}: {node.sql(dialect=DIALECT)} is not a time interval (INTERVAL '5' SECOND)")
    return millis


def _filtered(table, condition, scope, rank, tree) -> Any:
    """The table after WHERE: a rank's bounds (``rn <= N``) taken out of a pending ROW_NUMBER, a
    window TVF's rows filtered before their windows."""
    if rank is not None:
        start, end, rest = _rank_bounds(condition, rank.name)
        table = rank.table(start, end, _uses(tree, rank.name, skip_where_bounds=True))
        if rest is None:
            return table
        condition = rest
    predicate = _expression(condition, scope)
    tvf = window_tvf_of(table)
    if tvf is not None and set(predicate.columns()) <= set(tvf.table.get_schema().get_field_names()):
        return tvf.filtered(predicate).table_of_windows()
    return table.where(predicate)


def _rank_bounds(condition, name: str):
    """``(start, end, rest of the condition)`` of a WHERE on a rank column ``name``: ``rn = 1``,
    ``rn <= N``, ``rn < N``, ``rn BETWEEN a AND b``, with other conjuncts kept as the rest."""
    import sqlglot.expressions as exp

    start, end, rest = 1, None, []
    for conjunct in _conjuncts(condition):
        column, bound = _compared(conjunct, name)
        if column is None:
            rest.append(conjunct)
            continue
        if isinstance(conjunct, exp.Between):
            start, end = max(start, int(conjunct.args["low"].this)), int(conjunct.args["high"].this)
        elif isinstance(conjunct, exp.EQ):
            start, end = bound, bound
        elif isinstance(conjunct, (exp.LTE, exp.LT)):
            end = bound - (1 if isinstance(conjunct, exp.LT) else 0)
        elif isinstance(conjunct, (exp.GTE, exp.GT)):
            start = bound + (1 if isinstance(conjunct, exp.GT) else 0)
        else:
            rest.append(conjunct)
    return start, end, _all_of(rest)


def _all_of(conjuncts: list):
    """The conjuncts joined by AND (None: none)."""
    import sqlglot.expressions as exp

    joined = None
    for conjunct in conjuncts:
        joined = conjunct if joined is None else exp.And(this=joined, expression=conjunct)
    return joined


def _subquery_conditions(condition) -> Tuple[Any, list]:
    """WHERE's conjuncts other than subqueries' (joined by AND, None: none), and its ``[NOT] IN (subquery)``,
    ``[NOT] EXISTS (subquery)`` and ``[NOT] x op ALL|ANY (subquery)`` conjuncts as ``(node, negated)``."""
    import sqlglot.expressions as exp

    rest, subqueries = [], []
    for conjunct in _conjuncts(condition):
        inner, negated = conjunct, False
        while isinstance(inner, (exp.Not, exp.Paren)):
            negated ^= isinstance(inner, exp.Not)
            inner = inner.this
        if isinstance(inner, exp.Exists) or (isinstance(inner, exp.In) and inner.args.get("query") is not None) \
                or _quantified(inner) is not None:
            subqueries.append((inner, negated))
        else:
            rest.append(conjunct)
    return _all_of(rest), subqueries


#: what a correlated subquery may not have (Kindling decorrelates a SELECT of one table filtered by WHERE)
_UNCORRELATABLE = {"joins": "joins", "group": "GROUP BY", "having": "HAVING", "distinct": "DISTINCT",
                   "order": "ORDER BY", "limit": "LIMIT", "offset": "OFFSET", "windows": "WINDOW",
                   "qualify": "QUALIFY", "with_": "WITH"}


#: a comparison with ALL or ANY: (the comparison, its complement), of two non-null values
_COMPARED = {"EQ": (operator.eq, operator.ne), "NEQ": (operator.ne, operator.eq), "LT": (operator.lt, operator.ge),
             "LTE": (operator.le, operator.gt), "GT": (operator.gt, operator.le), "GTE": (operator.ge, operator.lt)}


def _quantified(node) -> Optional[tuple]:
    """``(comparison, complement, is ALL)`` of ``x op ALL (subquery)`` or ``x op ANY|SOME (subquery)``, else None."""
    import sqlglot.expressions as exp

    quantifier = node.args.get("expression") if type(node).__name__ in _COMPARED else None
    if not isinstance(quantifier, (exp.All, exp.Any)):
        return None
    return (*_COMPARED[type(node).__name__], isinstance(quantifier, exp.All))


def _existence_joined(table, scope, node, negated: bool, table_of) -> Any:
    """The rows of ``table`` for which ``[NOT] x IN (subquery)``, ``[NOT] EXISTS (subquery)`` or ``[NOT] x op
    ALL|ANY (subquery)`` holds, as Flink plans them: a semi join (IN, EXISTS, ANY, NOT ALL: some partner
    makes it true), an anti join (NOT EXISTS) or a null-aware anti join (NOT IN, ALL, NOT ANY: no partner may
    make it false or unknown, so a NULL on either side of the comparison keeps no row, unless the subquery
    has no rows). The subquery's WHERE conjuncts that read the outer query's columns (correlation) become
    the join's condition."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import lit
    from kindling.table.join import existence_join

    quantified = _quantified(node)
    if quantified is not None:  # x op ALL|ANY (subquery) as x IN (subquery) with op and its own join kind
        compare, complement, universal = quantified
        query = node.expression.this.this if isinstance(node.expression.this, exp.Subquery) else node.expression.this
        node = exp.In(this=node.this, query=exp.Subquery(this=query))
        anti, compare = universal != negated, complement if universal else compare
    else:
        compare, anti = operator.eq, negated
    is_in = isinstance(node, exp.In)
    query = node.args["query"].this if is_in else node.this
    text = node.sql(dialect=DIALECT)
    outer = _scope_of(table, scope)
    correlated, rest = _correlation(query, outer, table_of)
    one_column = ValueError(f"sql_query: {text}: Kindling compares one value with the subquery's one column "
                            "(x IN (SELECT y FROM ...))")
    if is_in and isinstance(node.this, exp.Tuple):
        raise one_column
    conditions, taken = [], set(table.get_schema().get_field_names())
    if correlated:
        if is_in and (len(query.expressions) != 1 or isinstance(query.expressions[0], exp.Star)):
            raise one_column
        refused = [name for key, name in _UNCORRELATABLE.items() if query.args.get(key)]
        if refused or any(e.find(exp.AggFunc) for e in query.expressions):
            raise ValueError(f"sql_query: {text}: a correlated subquery with {', '.join(refused) or 'aggregates'} "
                             "is not supported by Kindling yet (a SELECT of one table whose WHERE reads the outer "
                             "columns)")
        source_table, source_alias = _source(_from(query).this, table_of)
        source = query.copy()
        source.set("expressions", [exp.Star()])
        source.set("where", exp.Where(this=rest) if rest is not None else None)
        right, resolved = _renamed_apart(_query(source, table_of), taken)
        inner = dict(outer)  # the subquery's columns hide the outer query's of the same name
        for name, new in zip(source_table.get_schema().get_field_names(), resolved):
            inner[(source_alias, name)] = inner[(None, name)] = new
        conditions = [_expression(c, inner) for c in correlated]
        value = _expression(query.expressions[0].unalias(), inner) if is_in else None
    else:
        right, resolved = _renamed_apart(_query(node.args["query"] if is_in else query, table_of), taken)
        if is_in and len(resolved) != 1:
            raise one_column
        value = col(resolved[0]) if is_in else None
    if is_in:
        compared = _expression(node.this, scope)
        if anti:  # NOT IN is UNKNOWN when either side is NULL: such a partner keeps the row out
            types = {**table._types(), **right._types()}
            nulls = [v.is_null for v in (compared, value) if v._data_type(types)._nullable]
            conditions.append(functools.reduce(lambda a, b: a | b, nulls, compare(compared, value)))
        else:
            conditions.append(compare(compared, value))
    predicate = functools.reduce(lambda a, b: a & b, conditions) if conditions else lit(True)
    joined = existence_join(table, right, predicate, "ANTI" if anti else "SEMI")
    if quantified is not None and anti and not correlated and not table._in_batch():
        # PyFlink's streaming quirk: Flink joins the subquery's aggregate (its MIN or MAX and COUNTs), of which
        # a streaming global aggregate of no rows has no row, so x op ALL (an empty subquery) keeps no row
        joined = existence_join(joined, right, lit(True), "SEMI")
    return joined


def _scope_of(table, scope) -> dict:
    """A query's scope as a join's: ``(alias, column)`` and unqualified column names to the table's columns."""
    if isinstance(scope, dict):
        return dict(scope)
    names = table.get_schema().get_field_names()
    return {**{(scope, n): n for n in names}, **{(None, n): n for n in names}}


def _correlation(query, outer: dict, table_of) -> Tuple[list, Any]:
    """The conjuncts of a subquery's WHERE that read columns of the outer query (``outer``: its scope), and
    the other conjuncts (AND-ed, None: none). A column names the subquery's own tables first, as in SQL."""
    import sqlglot.expressions as exp

    where = query.args.get("where") if isinstance(query, exp.Select) else None
    if where is None or _from(query) is None:
        return [], None
    aliases, columns = set(), set()
    for source in [_from(query).this] + [j.this for j in query.args.get("joins") or []]:
        source_table, alias = _source(source, table_of)
        aliases.add(alias)
        columns.update(source_table.get_schema().get_field_names())

    def reads_outer(column) -> bool:
        if column.table:
            return column.table not in aliases and (column.table, column.name) in outer
        return column.name not in columns and (None, column.name) in outer

    correlated, rest = [], []
    for conjunct in _conjuncts(where.this):
        (correlated if any(map(reads_outer, conjunct.find_all(exp.Column))) else rest).append(conjunct)
    inside = {id(c) for conjunct in correlated for c in conjunct.find_all(exp.Column)}
    stray = [c for c in query.find_all(exp.Column) if id(c) not in inside and reads_outer(c)]
    if stray:
        raise ValueError(f"sql_query: the subquery {query.sql(dialect=DIALECT)[:80]!r} reads the outer column "
                         f"{stray[0].sql(dialect=DIALECT)} outside its WHERE's AND-ed conditions, which Kindling "
                         "does not decorrelate yet")
    return correlated, _all_of(rest)


def _renamed_apart(table, taken: set) -> Tuple[Any, list]:
    """``table`` with each column named as one of ``taken`` renamed ``name0``, ``name1``... (as Calcite
    does), and its new column names."""
    names = table.get_schema().get_field_names()
    resolved = _apart(names, taken)
    if resolved != names:
        table = table.select(*[col(a).alias(b) for a, b in zip(names, resolved)])
    return table, resolved


def _apart(names: list, taken: set) -> list:
    """The column ``names``, each named as one of ``taken`` (or an earlier one) renamed ``name0``, ``name1``..."""
    resolved = []
    for name in names:
        new, n = name, 0
        while new in taken:
            new, n = f"{name}{n}", n + 1
        resolved.append(new)
        taken.add(new)
    return resolved


def _compared(conjunct, name: str):
    """``(column, bound)`` when the conjunct compares the column ``name`` with an integer literal."""
    import sqlglot.expressions as exp

    if isinstance(conjunct, exp.Between):
        operands = (conjunct.this, conjunct.args["low"], conjunct.args["high"])
        if isinstance(operands[0], exp.Column) and operands[0].name == name and \
                all(isinstance(o, exp.Literal) and not o.is_string for o in operands[1:]):
            return name, None
        return None, None
    if isinstance(conjunct, (exp.EQ, exp.LT, exp.LTE, exp.GT, exp.GTE)) and isinstance(conjunct.this, exp.Column) \
            and conjunct.this.name == name and isinstance(conjunct.expression, exp.Literal) \
            and not conjunct.expression.is_string:
        return name, int(conjunct.expression.this)
    return None, None


def _conjuncts(condition) -> list:
    import sqlglot.expressions as exp

    if isinstance(condition, exp.Paren):
        return _conjuncts(condition.this)
    if isinstance(condition, exp.And):
        return _conjuncts(condition.this) + _conjuncts(condition.expression)
    return [condition]


def _uses(tree, name: str, skip_where_bounds: bool = False) -> bool:
    """Whether the query reads the column ``name`` (beyond the rank bounds of its WHERE)."""
    import sqlglot.expressions as exp

    parts = list(tree.expressions) + [tree.args.get(p) for p in ("group", "having", "order")]
    where = tree.args.get("where")
    if where is not None:
        parts.append(_rank_bounds(where.this, name)[2] if skip_where_bounds else where.this)
    if any(isinstance(e, exp.Star) for e in tree.expressions):
        return True
    return any(c.name == name for part in parts if part is not None for c in part.find_all(exp.Column))


#: the ranking functions of the ROW_NUMBER patterns
_RANKINGS = {"RowNumber": "ROW_NUMBER", "Rank": "RANK", "DenseRank": "DENSE_RANK"}


def _ranking(tree, windows: dict):
    """``(function, partition keys, order, column name, position)`` when the SELECT list holds a
    ``ROW_NUMBER() OVER (...) AS name`` (or RANK, DENSE_RANK), else None."""
    import sqlglot.expressions as exp

    for position, node in enumerate(tree.expressions):
        inner = node.this if isinstance(node, exp.Alias) else node
        if isinstance(inner, exp.Window) and type(inner.this).__name__ in _RANKINGS:
            window = _named_window(inner, windows)
            order = window.args.get("order")
            if order is None:
                raise ValueError(f"sql_query: {inner.sql(dialect=DIALECT)} needs ORDER BY")
            name = node.alias if isinstance(node, exp.Alias) else f"EXPR${position}"
            return (_RANKINGS[type(inner.this).__name__], window.args.get("partition_by") or [],
                    order.expressions, name, position)
    return None


def _named_window(window, windows: dict):
    """The window an ``OVER w`` names (``WINDOW w AS (...)``), or the inline one."""
    if window.args.get("alias") is not None and window.args.get("partition_by") is None and \
            window.args.get("order") is None and window.args.get("spec") is None:
        name = window.args["alias"].name
        if name not in windows:
            raise ValueError(f"sql_query: OVER {name} names no window of the WINDOW clause")
        return windows[name]
    return window


def _select_fields(tree, scope, table, skip: Optional[int] = None, over_columns: Optional[dict] = None) -> list:
    """The SELECT list as named Table API expressions (unnamed ones ``EXPR$<position>``, as Calcite
    names them); ``*`` is the table's columns. ``over_columns`` maps OVER calls to the columns
    computing them."""
    import sqlglot.expressions as exp

    fields = []
    for i, node in enumerate(tree.expressions):
        if i == skip:
            continue
        if isinstance(node, exp.Star):
            computed = set((over_columns or {}).values())
            fields += [col(n) for n in table.get_schema().get_field_names() if n not in computed]
            continue
        original = node
        if over_columns:
            node = node.copy().transform(lambda n: exp.column(over_columns[n.sql()])
                                         if isinstance(n, exp.Window) and n.sql() in over_columns else n)
        if isinstance(node, exp.Alias):
            fields.append(_expression(node.this, scope).alias(node.alias))
        elif isinstance(original, exp.Column):
            expression = _expression(node, scope)  # a column, or a field of a ROW column (``addr.city``)
            fields.append(expression.alias(node.name) if isinstance(scope, dict) or not expression._name else
                          expression)
        else:
            fields.append(_expression(node, scope).alias(f"EXPR${i}"))
    return _uniquified(fields)


def _uniquified(fields: list) -> list:
    """The fields with a name taken by an earlier one renamed ``name0``, ``name1``, ... (as Calcite)."""
    taken, result = set(), []
    for field in fields:
        name, n = field._name, 0
        while name in taken:
            name, n = f"{field._name}{n}", n + 1
        taken.add(name)
        result.append(field if name == field._name else field.alias(name))
    return result


def _over(tree, table, scope, windows: dict):
    """The table with a column per OVER aggregate of the SELECT list, and those columns by call."""
    import sqlglot.expressions as exp

    from kindling.table.over_aggregate import over_aggregate

    calls = [w for node in tree.expressions for w in node.find_all(exp.Window)]
    if not calls:
        return table, None
    frame, aggregates, columns = None, [], {}
    for call in calls:
        window = _named_window(call, windows)
        this_frame = _frame(window, scope)
        if frame is not None and this_frame != frame:
            raise ValueError("sql_query: the OVER aggregates of one SELECT must use the same window in Kindling "
                             "(Flink requires it in streaming; its batch planner runs OVER aggregates of "
                             "different windows, which Kindling does not yet)")
        frame = this_frame
        if call.sql() not in columns:
            columns[call.sql()] = f"__over{len(columns)}"
            offset = isinstance(call.this, (exp.Lag, exp.Lead))
            if offset and window.args.get("spec") is not None:
                raise ValueError("ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions (as Flink "
                                 f"says of {call.this.key.upper()}): {call.sql(dialect=DIALECT)}")
            aggregates.append(_offset_call(call.this, scope) if offset else _expression(call.this, scope))
    return over_aggregate(table, frame, aggregates, list(columns.values())), columns


def _offset_call(call, scope):
    """``LAG(value [, offset [, default]])`` or LEAD: an aggregate of the OVER window with the offset
    and the default (constants) as parameters."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import aggregate_node

    def constant(node, what: str):
        if isinstance(node, exp.Cast):  # LAG(v, 1, CAST(0 AS DOUBLE)): the value, typed as the result
            node = node.this
        negative = isinstance(node, exp.Neg)
        literal = node.this if negative else node
        if isinstance(literal, exp.Null):
            return None
        if not isinstance(literal, exp.Literal) or (negative and literal.is_string):
            raise ValueError(f"sql_query: {call.sql(dialect=DIALECT)}: Kindling takes a constant {what}")
        value = literal.this if literal.is_string else (float if "." in literal.this else int)(literal.this)
        return -value if negative else value

    name = call.key.lower()
    offset = 1 if call.args.get("offset") is None else constant(call.args["offset"], "offset")
    if not isinstance(offset, int) or offset < 0:
        raise ValueError(f"sql_query: {call.sql(dialect=DIALECT)}: the offset is a number of rows (0 or more)")
    default = None if call.args.get("default") is None else constant(call.args["default"], "default")
    return aggregate_node(name, (_expression(call.this, scope),), parameters=(offset, default),
                          text=call.sql(dialect=DIALECT))


def _frame(window, scope):
    """The OverFrame of an OVER (...) specification."""
    import sqlglot.expressions as exp

    from kindling.table.over_aggregate import OverFrame

    order = window.args.get("order")
    if order is not None and len(order.expressions) != 1:
        raise ValueError(f"sql_query: OVER ({window.sql(dialect=DIALECT)}) needs ORDER BY one time attribute")
    keys = [_expression(k, scope) for k in window.args.get("partition_by") or []]
    if not all(getattr(k, "_is_column", False) for k in keys):
        raise ValueError("sql_query: OVER (PARTITION BY ...) takes columns")
    spec = window.args.get("spec")
    if order is None:  # the whole partition (BATCH mode: over_aggregate checks)
        if spec is not None:
            raise ValueError(f"sql_query: OVER ({window.sql(dialect=DIALECT)}): a frame needs ORDER BY")
        return OverFrame([k._name for k in keys], None, True, None)
    order_by = _expression(order.expressions[0].this, scope)
    rows, preceding = False, None
    if spec is not None:
        rows = str(spec.args.get("kind")).upper() == "ROWS"
        start = spec.args.get("start")  # ... PRECEDING AND CURRENT ROW (sql_validation checks it)
        if isinstance(start, str) and start.upper() == "CURRENT ROW":
            preceding = 0
        elif not (isinstance(start, str) and start.upper() == "UNBOUNDED"):
            if rows:
                if not isinstance(start, exp.Literal) or start.is_string:
                    raise ValueError(f"OVER ROWS: {start.sql(dialect=DIALECT)} PRECEDING needs a number of rows")
                preceding = int(start.this)
            else:
                preceding = _interval_ms(start, "OVER RANGE")
    return OverFrame([k._name for k in keys], order_by._name, rows, preceding, bool(order.expressions[0].args.get("desc")))


def _grouped(table, keys: list, fields: list) -> Any:
    """GROUP BY: a window aggregation when the keys hold a window TVF's window_start and window_end."""
    from kindling.table.window_aggregate import WINDOW_COLUMNS

    names = [getattr(k, "_name", None) for k in keys]
    tvf = window_tvf_of(table)
    if tvf is not None and {"window_start", "window_end"} <= set(names):
        return tvf.aggregate([n for n in names if n not in WINDOW_COLUMNS], fields)
    below = table._node.input if isinstance(table._node, nodes.Filter) else table._node
    if isinstance(below, nodes.ChangelogNormalize):  # as Flink's SQL, the columns read first (rules.py)
        read = set(names) | {c for f in fields for a in f.aggregates() for o in a._operands for c in o.columns()}
        table = table.select(*[col(n) for n in table._schema.get_field_names() if n in read])
    return table.group_by(*keys).select(*fields)


def _group_expressions(tree, table, scope):
    """GROUP BY expressions as Flink's planner computes them: each one (of plain keys, GROUPING SETS,
    ROLLUP, CUBE) a column ``$f<n>`` of a projection below the aggregation (of a window aggregation:
    below the window TVF); the query, wherever it repeats such an expression outside an aggregate (SELECT,
    HAVING, ORDER BY), reads that column. Returns the query, the table and the scope knowing the columns."""
    import sqlglot.expressions as exp

    group = tree.args.get("group")
    if group is None:
        return tree, table, scope
    items: list = []

    def collect(node):
        if isinstance(node, (exp.GroupingSets, exp.Rollup, exp.Cube, exp.Tuple)):
            for element in node.expressions:
                collect(element)
            return
        form = _key_form(node, scope)
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if not isinstance(inner, exp.Column) and form not in [f for f, _ in items]:
            items.append((form, inner))

    for element in group.expressions:
        collect(element)
    if not items:
        return tree, table, scope
    expressions = [_expression(node, scope) for _, node in items]
    for expression, (_, node) in zip(expressions, items):
        if expression.aggregates() or node.find(exp.Window):
            raise ValueError(f"sql_query: GROUP BY {node.sql(dialect=DIALECT)}: Aggregate expression is illegal in "
                             "GROUP BY clause")
    tvf = window_tvf_of(table)
    below = tvf.table if tvf is not None else table
    names = table.get_schema().get_field_names()
    hidden = _apart([f"$f{len(below.get_schema().get_field_names()) + i}" for i in range(len(items))], set(names))
    computed = [e.alias(h) for e, h in zip(expressions, hidden)]
    if tvf is not None:
        from kindling.table.window_tvf import WindowTVF

        stray = [e for e in expressions if not set(e.columns()) <= set(below.get_schema().get_field_names())]
        if stray:
            raise ValueError(f"sql_query: GROUP BY {stray[0]}: a window aggregation grouping by an expression of the "
                             "window's columns is not supported by Kindling yet (group by window_start, window_end and "
                             "expressions of the table's columns)")
        node = tvf.node
        table = WindowTVF(below.add_columns(*computed), node.window, node.time_field, node.size_ms, node.slide_ms,
                          node.offset_ms, node.partition_keys).table_of_windows()
    else:
        kept = _read_columns(tree, table, scope)
        table = table.select(*[col(n) for n in names if n in kept], *computed)
    columns = dict(zip((f for f, _ in items), hidden))

    def read_key(node):
        if isinstance(node, (exp.Column, exp.Literal, exp.Identifier, exp.Ordered, exp.Order, exp.Group, exp.Having,
                             exp.Alias)):
            return node
        inside = node.find_ancestor(exp.AggFunc, exp.Filter, exp.Window)
        if inside is not None and not is_grouping_call(inside):  # an aggregate reads the rows' own values
            return node
        name = columns.get(_key_form(node, scope))
        return exp.column(name, quoted=True) if name is not None else node

    tree = tree.copy()
    selected = []
    for i, item in enumerate(tree.expressions):
        read = item.transform(read_key)
        if not isinstance(item, (exp.Alias, exp.Column)) and isinstance(read, exp.Column):
            read = exp.alias_(read, f"EXPR${i}", quoted=True)  # keeps the name Flink gives the expression
        selected.append(read)
    tree.set("expressions", selected)
    for key in ("group", "having", "order"):
        if tree.args.get(key) is not None:
            tree.set(key, tree.args[key].transform(read_key))
    if isinstance(scope, dict):
        scope = {**scope, **{(None, h): h for h in hidden}}
    return tree, table, scope


def _key_form(node, scope) -> str:
    """An expression's text with parentheses dropped and its columns named as the table's, so that two
    spellings of one expression (``(id % 2)``, ``v.id % 2``) compare equal."""
    import sqlglot.expressions as exp

    form = node.copy()
    while isinstance(form, exp.Paren):
        form = form.this
    for paren in list(form.find_all(exp.Paren)):
        paren.replace(paren.this)
    for column in list(form.find_all(exp.Column)):
        try:
            resolved = _expression(column, scope)
        except ValueError:
            continue
        if getattr(resolved, "_is_column", False):
            replacement = exp.column(resolved._name, quoted=True)
            if column is form:
                return replacement.sql()
            column.replace(replacement)
    return form.sql()


def _read_columns(tree, table, scope) -> set:
    """The table's columns a query reads after its FROM and WHERE (all of them, where that is not known):
    over an upsert table, Flink's planner normalizes the changes of those columns only."""
    import sqlglot.expressions as exp

    names = set(table.get_schema().get_field_names())
    normalize = table._node.input if isinstance(table._node, nodes.Filter) else table._node
    if not isinstance(normalize, nodes.ChangelogNormalize):
        return names
    read = set()
    for part in [*tree.expressions, *(tree.args.get(k) for k in ("group", "having", "order"))]:
        if part is None:
            continue
        if isinstance(part, exp.Star) or part.find(exp.Window) or \
                (isinstance(part, exp.Column) and isinstance(part.this, exp.Star)):
            return names
        for column in part.find_all(exp.Column):
            try:
                read |= set(_expression(column, scope).columns())
            except ValueError:
                return names
    return read & names


def _key_name(node, scope) -> str:
    """The column a GROUPING SETS, ROLLUP or CUBE key names."""
    key = _expression(node, scope)
    if not getattr(key, "_is_column", False):
        raise ValueError(f"sql_query: the grouping key {node.sql(dialect=DIALECT)} is an expression; Kindling groups "
                         "grouping sets by columns (compute it in a subquery first)")
    return key._name


def _grouping(tree, scope, table, keys: List[str], sets: List[tuple]):
    """GROUPING SETS, ROLLUP, CUBE: the query with GROUPING, GROUPING_ID and GROUP_ID read off the
    grouping id, its scope knowing that column, the expanded table (of a window aggregation: the window
    TVF over the expanded rows) and the aggregation's keys."""
    import sqlglot.expressions as exp

    from kindling.table.window_aggregate import WINDOW_COLUMNS
    from kindling.table.window_tvf import WindowTVF

    key_name = functools.partial(_key_name, scope=scope)
    tree = tree.copy()
    if len(sets) == 1:  # one set: its keys, a plain aggregation (of no keys: one row also of no input)
        _read_off(tree, key_name, keys, sets, [0])
        return tree, scope, table, [col(k) for k in sets[0]]
    aggregated = list({id(c): c for part in _select_parts(tree) for call in part.find_all(exp.AggFunc, exp.Filter)
                       if not is_grouping_call(call)
                       for c in call.find_all(exp.Column) if _names_key(c, keys, scope)}.values())
    originals = list(dict.fromkeys(key_name(c) for c in aggregated))
    for column in aggregated:  # an aggregate reads a key's own value, not the grouping set's null
        column.replace(exp.column(original(key_name(column)), quoted=True))
    windowed = [k for k in keys if k in WINDOW_COLUMNS]
    tvf = window_tvf_of(table)
    if windowed and tvf is not None:
        if any(not set(windowed) <= set(s) for s in sets):
            raise ValueError("sql_query: a window aggregation with grouping sets groups every set by window_start "
                             "and window_end (GROUP BY window_start, window_end, GROUPING SETS (...))")
        plain = [k for k in keys if k not in WINDOW_COLUMNS]
        rows = expanded(tvf.table, plain, [tuple(k for k in s if k in plain) for s in sets], originals)
        node = tvf.node
        table = WindowTVF(rows, node.window, node.time_field, node.size_ms, node.slide_ms, node.offset_ms,
                          node.partition_keys).table_of_windows()
    else:
        table = rows = expanded(table, keys, sets, originals)
    _read_off(tree, key_name, keys, sets, rows._node.ids)
    if isinstance(scope, dict):
        scope = {**scope, **{(None, c): c for c in [GROUPING_ID, *map(original, originals)]}}
    return tree, scope, table, [col(k) for k in keys] + [col(GROUPING_ID)]


def _read_off(tree, key_name, keys: List[str], sets: List[tuple], ids: Sequence[int]) -> None:
    """Replaces GROUPING, GROUPING_ID and GROUP_ID in the query by their values read off the grouping
    id (``ids``: each set's)."""
    import sqlglot.expressions as exp

    def read_off(call):
        if not is_grouping_call(call):
            return call
        values = grouping_values(call, key_name, keys, sets)
        cases = [exp.If(this=exp.EQ(this=exp.column(GROUPING_ID, quoted=True), expression=exp.Literal.number(i)),
                     true=_bigint(v)) for i, v in zip(ids[:-1], values[:-1])]
        return exp.Case(ifs=cases, default=_bigint(values[-1])) if len(set(values)) > 1 else _bigint(values[0])

    for part in _select_parts(tree):
        part.replace(part.transform(read_off))


def _select_parts(tree) -> list:
    """The parts of a SELECT computed after its GROUP BY: the fields, HAVING, ORDER BY."""
    return [p for p in [*tree.expressions, tree.args.get("having"), tree.args.get("order")] if p is not None]


def _names_key(column, keys: List[str], scope) -> bool:
    """Whether a column reference names one of the grouping keys."""
    try:
        return _key_name(column, scope) in keys
    except ValueError:  # a column of no table of the query: the aggregation says so
        return False


def _bigint(value: int):
    import sqlglot.expressions as exp

    return exp.cast(exp.Literal.number(value), "BIGINT")


def _orders_by_unselected(tree, fields: list, table) -> bool:
    """Whether ORDER BY names a column of the table that the SELECT list does not."""
    order = tree.args.get("order")
    names = {f._name for f in fields}
    return order is not None and any(getattr(o.this, "name", None) not in names and getattr(o.this, "name", None)
                                     in table.get_schema().get_field_names() for o in order.expressions)


def _ordered(tree, table) -> Any:
    """The table with the query's ORDER BY, LIMIT and OFFSET: in batch mode any order; in streaming
    mode, as Flink, an order starting with the time attribute ascending, or LIMIT alone."""
    import sqlglot.expressions as exp

    order, limit, offset = tree.args.get("order"), tree.args.get("limit"), tree.args.get("offset")
    if order is None and limit is None and offset is None:
        return table
    names = table.get_schema().get_field_names()
    keys, computed = [], []
    for ordered in (order.expressions if order is not None else []):
        key = _ordinal(ordered.this, names)
        if not isinstance(key, exp.Column) or key.table or key.name not in names:
            expression = None
            if not key.find(exp.AggFunc, exp.Window) and all(not c.table and c.name in names
                                                               for c in key.find_all(exp.Column)):
                expression = _expression(key, None)
            if expression is None or not set(expression.columns()) <= set(names):
                raise ValueError(f"sql_query: ORDER BY {key.sql(dialect=DIALECT)}: Kindling orders by columns and "
                                 "expressions of the query's columns (of the SELECT list, or of the table in a query "
                                 "without GROUP BY)")
            name = _apart([f"$s{len(computed)}"], set(names))[0]
            computed.append(expression.alias(name))
            key = exp.column(name)
        keys.append((key.name, bool(ordered.args.get("desc"))))
    if computed:  # computed beside the columns, sorted on, then dropped
        sorted_table = _ordered(_with_order(tree, [exp.column(n) for n, _ in keys]), table.add_columns(*computed))
        return sorted_table.select(*[col(n) for n in names])
    fetch = int((limit.args.get("count") if isinstance(limit, exp.Fetch) else limit.expression).this) \
        if limit is not None else None
    skip = int(offset.expression.this) if offset is not None else 0
    if not table._in_batch():
        from kindling.table.rank import sorted_stream

        return sorted_stream(table, keys, skip, fetch)
    sort_keys = []
    for name, descending in keys:
        key = col(name).desc if descending else col(name)
        key._null_smallest = True  # Flink SQL's null order (the Table API's is the reverse)
        sort_keys.append(key)
    return table.order_by(*sort_keys).limit(fetch, skip) if fetch is not None else \
        table.order_by(*sort_keys).offset(skip)


def _joined(table, alias: Optional[str], joins, table_of):
    """The table of ``FROM a JOIN b ON ...``, and the scope resolving ``a.x``, ``b.y`` and unqualified
    names: a right table's column named as an earlier one is renamed ``name0`` (as Calcite does). An
    ON condition bounding both tables' event-time columns against each other is an interval join; a
    right table ``FOR SYSTEM_TIME AS OF`` the left's processing time is a lookup join."""
    import sqlglot.expressions as exp

    scope: Dict[Tuple[Optional[str], str], str] = {}
    owners: Dict[str, int] = {}

    def add(table_alias: Optional[str], names, resolved):
        for name, new in zip(names, resolved):
            scope[(table_alias, name)] = new
            owners[name] = owners.get(name, 0) + 1
            scope[(None, name)] = new

    add(alias, table.get_schema().get_field_names(), table.get_schema().get_field_names())
    for join in joins:
        # [LEFT JOIN] LATERAL TABLE(f(...)) [AS] t(a, b) [ON TRUE], CROSS JOIN UNNEST(xs) AS u(x)
        if isinstance(join.this, (exp.Lateral, exp.Unnest)):
            before = len(table.get_schema().get_field_names())
            table, names = _lateral(table, join, scope)
            add(join.this.alias or None, names, table.get_schema().get_field_names()[before:])
            continue
        version = join.this.args.get("version") if isinstance(join.this, exp.Table) else None
        right, right_alias = _source(join.this, table_of) if version is None else \
            (table_of(join.this), join.this.alias_or_name)
        names = right.get_schema().get_field_names()
        right, resolved = _renamed_apart(right, set(table.get_schema().get_field_names()))
        add(right_alias, names, resolved)
        side = (join.args.get("side") or "").upper()
        if join.args.get("on") is None and (side or version is not None):
            raise ValueError(f"sql_query: {join.sql(dialect=DIALECT)} needs an ON condition")
        if version is not None:  # JOIN dim FOR SYSTEM_TIME AS OF o.proc_time: kindling/table/lookup_join.py
            from kindling.table.lookup_join import lookup_join

            table = lookup_join(table, join.this, right, names, _expression(join.args["on"], scope),
                                _expression(version.expression, scope), side)
            continue
        on = join.args.get("on")  # none: CROSS JOIN, FROM a, b (every pair; WHERE's conditions join them)
        table = table._join(right, lit(True) if on is None else _expression(on, scope), side in ("LEFT", "FULL"),
                            side in ("RIGHT", "FULL"), equi_required=False)  # maybe an interval join
    for name, count in owners.items():
        if count > 1:
            del scope[(None, name)]  # ambiguous without a table name
    return table, scope


def _lateral(table, join, scope):
    """``table`` joined with the rows of a table function (a correlated LATERAL TABLE) or of UNNEST, inner or
    LEFT ... ON TRUE; and the names of the columns it adds as the query names them."""
    import sqlglot.expressions as exp

    from kindling.table.unnest import unnest

    lateral = join.this
    side = (join.args.get("side") or "").upper()
    on = join.args.get("on")
    names = lateral.alias_column_names
    if isinstance(lateral, exp.Unnest):
        calls, usage = lateral.expressions, "CROSS JOIN UNNEST(collection) AS t(columns), or LEFT JOIN it ON TRUE"
    else:
        calls = lateral.this.expressions if isinstance(lateral.this, exp.Anonymous) else []
        usage = "LATERAL TABLE(function(...)) [AS] t(columns), or LEFT JOIN it ON TRUE"
    if len(calls) != 1 or side not in ("", "LEFT") or (on is not None and on != exp.true()) or \
            (isinstance(lateral, exp.Unnest) and not names):
        raise ValueError(f"sql_query: {join.sql(dialect=DIALECT)}: Kindling joins {usage}")
    call = _expression(calls[0], scope)
    if isinstance(lateral, exp.Unnest):
        call = unnest(call, call._data_type(table._types()))
    if names:
        call = call.alias(*_apart(names, set(table.get_schema().get_field_names())))
    joined = table.left_outer_join_lateral(call) if side == "LEFT" else table.join_lateral(call)
    return joined, names or joined.get_schema().get_field_names()[len(table.get_schema().get_field_names()):]


HAVING_COLUMN = "__having"
#: SQL aggregate functions and the Table API aggregates they are
_AGGREGATES = {"Count": "count", "Sum": "sum", "Avg": "avg", "Min": "min", "Max": "max"}


def _expression(node, scope: Any = None) -> Any:
    """A Table API expression for a SQL expression tree; ``scope`` resolves column names: of a join,
    a dict from ``(alias, column)`` and unqualified ones to the joined table's columns; of one table,
    its alias (or None)."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import col, lit

    binary = {exp.Add: lambda a, b: a + b, exp.Sub: lambda a, b: a - b, exp.Mul: lambda a, b: a * b,
              exp.Div: lambda a, b: a / b, exp.Mod: lambda a, b: a % b,
              exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b, exp.GT: lambda a, b: a > b,
              exp.GTE: lambda a, b: a >= b, exp.LT: lambda a, b: a < b, exp.LTE: lambda a, b: a <= b,
              exp.And: lambda a, b: a & b, exp.Or: lambda a, b: a | b}
    if isinstance(node, exp.Column):
        if not isinstance(scope, dict):  # one table: its columns, maybe named by its alias
            if node.table and node.table != scope:  # a ROW column's field, as Flink reads r.f
                return col(node.table).get(node.name)
            return col(node.name)
        if (node.table or None, node.name) in scope:
            return col(scope[(node.table or None, node.name)])
        if node.table and (None, node.table) in scope:  # a ROW column's field
            return col(scope[(None, node.table)]).get(node.name)
        raise ValueError(f"sql_query: column {node.sql()} is unknown or ambiguous; name it as table.column")
    if isinstance(node, exp.Paren):
        return _expression(node.this, scope)
    if isinstance(node, exp.Tuple):  # (a, b): a row
        from kindling.table.sql_functions import sql_row

        return sql_row([_expression(value, scope) for value in node.expressions])
    if isinstance(node, exp.Exists) or (isinstance(node, exp.In) and node.args.get("query") is not None) \
            or _quantified(node) is not None:
        raise ValueError(f"sql_query: {node.sql(dialect=DIALECT)[:80]}: Kindling translates [NOT] IN (subquery), "
                         "[NOT] EXISTS (subquery) and [NOT] x op ALL|ANY (subquery) as conditions of WHERE AND-ed "
                         "with the others, not under OR or elsewhere in the query yet")
    if isinstance(node, exp.Subquery):
        raise ValueError(f"sql_query: the scalar subquery {node.sql(dialect=DIALECT)[:80]} is not supported by "
                         "Kindling yet (join the table instead)")
    from kindling.table.sql_functions import sql_function

    function = sql_function(node, lambda argument: _expression(argument, scope))
    if function is not None:  # a built-in function (kindling/table/sql_functions.py)
        return function
    if isinstance(node, exp.Not):
        return _expression(node.this, scope)._negated()
    if isinstance(node, exp.Boolean):
        return lit(bool(node.this))
    if isinstance(node, exp.Literal):
        if node.is_string:
            return lit(node.this)
        if _is_decimal(node):
            value = decimal.Decimal(node.this)
            return lit(value, _decimal_type(value))
        return lit(float(node.this) if any(c in node.this for c in "eE") else int(node.this))
    if isinstance(node, exp.Neg):
        return _expression(node.this, scope)._arithmetic(0, "-", reverse=True, negation=True)
    for kind, operate in binary.items():
        if type(node) is kind:
            return operate(_expression(node.this, scope), _expression(node.expression, scope))
    if isinstance(node, exp.Filter):  # AGG(x) FILTER (WHERE c): AGG(CASE WHEN c THEN x END), AGG skipping NULLs
        aggregate = node.this.copy()
        distinct = isinstance(aggregate.this, exp.Distinct)
        argument = aggregate.this.expressions[0] if distinct else aggregate.this
        value = exp.Literal.number(1) if isinstance(argument, exp.Star) else argument
        case = exp.Case(ifs=[exp.If(this=node.expression.this.copy(), true=value.copy())])
        aggregate.set("this", exp.Distinct(expressions=[case]) if distinct else case)
        filtered = _expression(aggregate, scope)
        filtered._filtered = True  # Flink's filterArg: rules.py keeps such an aggregation
        return filtered
    if isinstance(node, (exp.Lag, exp.Lead)):  # Flink's words (sql.py's _over reads them in OVER)
        raise ValueError(f"OVER clause is necessary for window functions: {node.sql(dialect=DIALECT)}")
    if type(node).__name__ in _AGGREGATES:
        argument = node.this
        distinct = isinstance(argument, exp.Distinct)
        if distinct:
            argument = argument.expressions[0]
        aggregate = getattr(lit(1) if isinstance(argument, exp.Star) else _expression(argument, scope),
                            _AGGREGATES[type(node).__name__])
        return aggregate.distinct if distinct else aggregate
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Null):
        from kindling.table.builtins import null_of

        return null_of(_data_type(node.to))
    if isinstance(node, exp.Cast):
        value = _expression(node.this, scope)
        lenient = isinstance(node, exp.TryCast) and node.args.get("safe")  # sqlglot reads CAST as TryCast too
        return (value.try_cast if lenient else value.cast)(_data_type(node.to))
    if isinstance(node, exp.Interval):  # a number of one unit (sql_validation checks it)
        from kindling.table.sql_validation import INTERVAL_UNIT_MS, singular_unit

        amount, unit = node.this.this, singular_unit(node.unit)
        if "." in amount:  # exact milliseconds (as a float, 1.001 s would be 1000 ms)
            return lit(int(decimal.Decimal(amount) * INTERVAL_UNIT_MS[unit])).millis
        return getattr(lit(int(amount)), unit.lower() + "s")
    if isinstance(node, exp.Anonymous):
        from kindling.table.function_catalog import sql_call

        return sql_call(node.name, [_expression(a, scope) for a in node.expressions])
    if isinstance(node, exp.Window):
        raise ValueError(f"sql_query: {node.sql(dialect=DIALECT)} is not supported here by Kindling yet (OVER "
                         "aggregates in the SELECT list, ROW_NUMBER() in a subquery filtered on its number)")
    raise ValueError(f"sql_query: the expression {node.sql()} is not supported by Kindling yet "
                     "(columns, literals, operators, Flink's built-in functions in docs/table.md, registered "
                     "functions)")
