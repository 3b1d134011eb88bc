"""Flink SQL queries parsed with sqlglot and translated into Table API operations (other statements:
kindling/table/ddl.py)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from kindling.table.ddl import DIALECT, parse_statement  # noqa: F401 (parse_statement: kept importable here)
from kindling.table.ddl import data_type as _data_type
from kindling.table.ddl import parse_sql as _parse

__all__ = ["parse_query", "parse_statement"]


def parse_expression(text: str):
    """The sqlglot tree of one SQL expression."""
    return _parse(f"SELECT {text}").expressions[0]


def sql_expression(text: str) -> Any:
    """The Table API expression of one SQL expression (``CAST(f0 AS TIMESTAMP(3))``)."""
    return _expression(parse_expression(text))


def parse_query(query: str, table_of: Callable[[str], Any]) -> Any:
    """The Table of a ``SELECT [DISTINCT] ... FROM table [WHERE ...] [GROUP BY ... [HAVING ...]]``
    query: the FROM table (from ``table_of(name)``) with the clauses as Table API operations, so
    SQL and the Table API run the same way. Anything else fails naming the part Kindling cannot
    translate yet."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import col

    tree = _parse(query)
    if not isinstance(tree, exp.Select):
        raise ValueError(f"sql_query takes a SELECT query, got: {query.strip()[:80]!r}")
    for part in ("windows", "with"):
        if tree.args.get(part):
            raise ValueError(f"sql_query: {part.upper()} is not supported by Kindling yet (supported: SELECT "
                             "[DISTINCT] expressions FROM table [WHERE ...] [GROUP BY ... [HAVING ...]])")
    source = tree.args.get("from") or tree.args.get("from_")
    if source is None or not isinstance(source.this, exp.Table) or source.this.args.get("db"):
        raise ValueError(f"sql_query: FROM must name one registered table, got {source.sql() if source else 'none'}")
    table = table_of(source.this.name)
    scope = None
    if tree.args.get("joins"):
        table, scope = _joined(table, source.this.alias_or_name, tree.args["joins"], table_of)
    if tree.args.get("where") is not None:
        table = table.where(_expression(tree.args["where"].this, scope))
    if any(isinstance(e, exp.Star) for e in tree.expressions):
        if len(tree.expressions) == 1 and not tree.args.get("group"):
            return table.distinct() if tree.args.get("distinct") else table
        raise ValueError("sql_query: * with other columns or GROUP BY is not supported by Kindling yet")
    fields = []
    for i, node in enumerate(tree.expressions):
        if isinstance(node, exp.Alias):
            fields.append(_expression(node.this, scope).alias(node.alias))
        elif isinstance(node, exp.Column):
            fields.append(_expression(node, scope).alias(node.name) if scope else _expression(node))
        else:
            fields.append(_expression(node, scope).alias(f"EXPR${i}"))  # Calcite's name of an unnamed expression
    group = tree.args.get("group")
    having = tree.args.get("having")
    if group is None and having is None and not any(f.aggregates() for f in fields):
        result = table.select(*fields)
    else:
        keys = [_expression(k, scope) for k in (group.expressions if group is not None else [])]
        if having is not None:  # computed as one more column, filtered on, then dropped
            fields.append(_expression(having.this, scope).alias(HAVING_COLUMN))
        result = table.group_by(*keys).select(*fields)
        if having is not None:
            result = result.where(col(HAVING_COLUMN)).drop_columns(HAVING_COLUMN)
    result = result.distinct() if tree.args.get("distinct") else result
    return _ordered(tree, result)


def _ordered(tree, table) -> Any:
    """The table with the query's ORDER BY, LIMIT and OFFSET (batch mode)."""
    from kindling.table.expressions import col

    order, limit, offset = tree.args.get("order"), tree.args.get("limit"), tree.args.get("offset")
    if order is None and limit is None and offset is None:
        return table
    names = table.get_schema().get_field_names()
    keys = []
    for ordered in (order.expressions if order is not None else []):
        key = ordered.this
        if not hasattr(key, "name") or key.name not in names:
            raise ValueError(f"sql_query: ORDER BY {key.sql()}: Kindling orders by selected columns only")
        key = col(key.name).desc if ordered.args.get("desc") else col(key.name)
        key._null_smallest = True  # Flink SQL's null order (the Table API's is the reverse)
        keys.append(key)
    fetch = int(limit.expression.this) if limit is not None else None
    skip = int(offset.expression.this) if offset is not None else 0
    return table.order_by(*keys).limit(fetch, skip) if fetch is not None else table.order_by(*keys).offset(skip)


def _joined(table, alias: str, joins, table_of):
    """The table of ``FROM a JOIN b ON ...``, and the scope resolving ``a.x``, ``b.y`` and unqualified
    names: a right table's column named as an earlier one is renamed ``name0`` (as Calcite does)."""
    from kindling.table.expressions import col

    scope: Dict[Tuple[Optional[str], str], str] = {}
    owners: Dict[str, int] = {}

    def add(table_alias: str, names, resolved):
        for name, new in zip(names, resolved):
            scope[(table_alias, name)] = new
            owners[name] = owners.get(name, 0) + 1
            scope[(None, name)] = new

    add(alias, table.get_schema().get_field_names(), table.get_schema().get_field_names())
    for join in joins:
        right = table_of(join.this.name)
        taken = set(table.get_schema().get_field_names())
        names = right.get_schema().get_field_names()
        resolved = []
        for name in names:
            new, n = name, 0
            while new in taken:
                new, n = f"{name}{n}", n + 1
            resolved.append(new)
            taken.add(new)
        if resolved != names:
            right = right.select(*[col(a).alias(b) for a, b in zip(names, resolved)])
        add(join.this.alias_or_name, names, resolved)
        if join.args.get("on") is None:
            raise ValueError(f"sql_query: {join.sql()} needs an ON condition with an equality of columns")
        side = (join.args.get("side") or "").upper()
        method = {"": "join", "LEFT": "left_outer_join", "RIGHT": "right_outer_join",
                  "FULL": "full_outer_join"}[side]
        table = getattr(table, method)(right, _expression(join.args["on"], scope))
    for name, count in owners.items():
        if count > 1:
            del scope[(None, name)]  # ambiguous without a table name
    return table, scope


HAVING_COLUMN = "__having"
#: SQL aggregate functions and the Table API aggregates they are
_AGGREGATES = {"Count": "count", "Sum": "sum", "Avg": "avg", "Min": "min", "Max": "max"}


def _expression(node, scope: Optional[Dict[Tuple[Optional[str], str], str]] = None) -> Any:
    """A Table API expression for a SQL expression tree; ``scope`` resolves column names
    (``alias.column`` and unqualified ones) of a join to the joined table's columns."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import col, lit

    binary = {exp.Add: lambda a, b: a + b, exp.Sub: lambda a, b: a - b, exp.Mul: lambda a, b: a * b,
              exp.Div: lambda a, b: a / b, exp.Mod: lambda a, b: a % b,
              exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b, exp.GT: lambda a, b: a > b,
              exp.GTE: lambda a, b: a >= b, exp.LT: lambda a, b: a < b, exp.LTE: lambda a, b: a <= b,
              exp.And: lambda a, b: a & b, exp.Or: lambda a, b: a | b}
    if isinstance(node, exp.Column):
        if scope is None and not node.table:
            return col(node.name)
        if scope is None or (node.table or None, node.name) not in scope:
            raise ValueError(f"sql_query: column {node.sql()} is unknown or ambiguous; name it as table.column")
        return col(scope[(node.table or None, node.name)])
    if isinstance(node, exp.Paren):
        return _expression(node.this, scope)
    if isinstance(node, exp.Not):
        return ~_expression(node.this, scope)
    if isinstance(node, exp.Boolean):
        return lit(bool(node.this))
    if isinstance(node, exp.Literal):
        if node.is_string:
            return lit(node.this)
        return lit(float(node.this) if any(c in node.this for c in ".eE") else int(node.this))
    if isinstance(node, exp.Neg):
        return 0 - _expression(node.this, scope)
    for kind, operate in binary.items():
        if type(node) is kind:
            return operate(_expression(node.this, scope), _expression(node.expression, scope))
    if type(node).__name__ in _AGGREGATES:
        argument = node.this
        distinct = isinstance(argument, exp.Distinct)
        if distinct:
            argument = argument.expressions[0]
        aggregate = getattr(lit(1) if isinstance(argument, exp.Star) else _expression(argument, scope),
                            _AGGREGATES[type(node).__name__])
        return aggregate.distinct if distinct else aggregate
    if isinstance(node, exp.Cast):
        return _expression(node.this, scope).cast(_data_type(node.to))
    if isinstance(node, exp.Interval):
        units = {"MILLISECOND": "millis", "SECOND": "seconds", "MINUTE": "minutes", "HOUR": "hours", "DAY": "days"}
        unit = node.unit.name.upper().rstrip("S") if node.unit is not None else ""
        if unit not in units:
            raise ValueError(f"sql: the interval {node.sql()} is not supported by Kindling yet (units: {list(units)})")
        return getattr(lit(float(node.this.this) if "." in node.this.this else int(node.this.this)), units[unit])
    if isinstance(node, exp.Anonymous):
        from kindling.table.expressions import call

        return call(node.name, *[_expression(a, scope) for a in node.expressions])
    raise ValueError(f"sql_query: the expression {node.sql()} is not supported by Kindling yet "
                     "(columns, literals, + - * / %, comparisons, AND, OR, NOT, COUNT/SUM/AVG/MIN/MAX, "
                     "registered functions)")
