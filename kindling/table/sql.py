"""Flink SQL statements parsed with sqlglot: ``CREATE TABLE name (columns) WITH (options)``."""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from kindling.table.schema import Schema
from kindling.table.types import DataType, DataTypes

__all__ = ["parse_create_table", "parse_query"]


def _data_type(kind) -> DataType:
    import sqlglot.expressions as exp

    name = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
    params = [int(p.this.this) for p in kind.expressions if isinstance(p, exp.DataTypeParam)]
    simple = {"INT": DataTypes.INT, "BIGINT": DataTypes.BIGINT, "SMALLINT": DataTypes.SMALLINT,
              "TINYINT": DataTypes.TINYINT, "BOOLEAN": DataTypes.BOOLEAN, "FLOAT": DataTypes.FLOAT,
              "DOUBLE": DataTypes.DOUBLE, "DATE": DataTypes.DATE, "TEXT": DataTypes.STRING,
              "VARBINARY": DataTypes.BYTES, "BINARY": DataTypes.BYTES}
    if name in simple and not params:
        return simple[name]()
    if name in ("VARCHAR", "CHAR"):
        if not params:
            return DataTypes.STRING() if name == "VARCHAR" else DataTypes.CHAR(1)
        return DataTypes.VARCHAR(params[0]) if name == "VARCHAR" else DataTypes.CHAR(params[0])
    if name == "DECIMAL":
        return DataTypes.DECIMAL(*(params + [10, 0][len(params):]))
    if name == "TIMESTAMP":
        return DataTypes.TIMESTAMP(*params)
    raise ValueError(f"CREATE TABLE: the column type {kind.sql()} is not supported by Kindling yet")


def parse_create_table(statement: str) -> Tuple[str, Schema, Dict[str, str]]:
    """The table name, schema and WITH options of a ``CREATE [TEMPORARY] TABLE`` statement."""
    import sqlglot
    import sqlglot.expressions as exp

    try:
        tree = sqlglot.parse_one(statement)
    except sqlglot.errors.ParseError as error:
        raise ValueError(f"SQL parse failed: {error}") from None
    if not isinstance(tree, exp.Create) or tree.kind != "TABLE" or not isinstance(tree.this, exp.Schema):
        raise ValueError(f"Not a CREATE TABLE statement with columns: {statement.strip()[:80]!r}")
    name = tree.this.this.name
    builder = Schema.new_builder()
    for column in tree.this.expressions:
        if not isinstance(column, exp.ColumnDef) or column.args.get("kind") is None:
            raise ValueError(f"CREATE TABLE {name}: {column.sql()} is not supported by Kindling yet "
                             "(physical columns only: no computed columns, watermarks or constraints)")
        data_type = _data_type(column.args["kind"])
        if any(isinstance(c.kind, exp.NotNullColumnConstraint) for c in column.args.get("constraints") or []):
            data_type = data_type.not_null()
        builder.column(column.this.name, data_type)
    options: Dict[str, str] = {}
    properties = tree.args.get("properties")
    for prop in (properties.expressions if properties is not None else []):
        if isinstance(prop, exp.TemporaryProperty):
            continue
        if not isinstance(prop, exp.Property) or not isinstance(prop.this, exp.Literal):
            raise ValueError(f"CREATE TABLE {name}: the WITH clause holds 'key' = 'value' pairs, got {prop.sql()}")
        options[prop.this.this] = prop.args["value"].this
    if "connector" not in options:
        raise ValueError(f"CREATE TABLE {name} needs a 'connector' option in its WITH clause")
    return name, builder.build(), options


def parse_query(query: str, table_of: Callable[[str], Any]) -> Any:
    """The Table of a ``SELECT columns FROM table [WHERE condition]`` query: the FROM table (from
    ``table_of(name)``) with the WHERE and SELECT as Table API operations, so they run as Spark
    column expressions. Anything else fails naming the part Kindling cannot translate yet."""
    import sqlglot
    import sqlglot.expressions as exp

    try:
        tree = sqlglot.parse_one(query)
    except sqlglot.errors.ParseError as error:
        raise ValueError(f"SQL parse failed: {error}") from None
    if not isinstance(tree, exp.Select):
        raise ValueError(f"sql_query takes a SELECT query, got: {query.strip()[:80]!r}")
    for part in ("group", "having", "order", "limit", "offset", "joins", "distinct", "windows", "with"):
        if tree.args.get(part):
            raise ValueError(f"sql_query: {part.upper()} is not supported by Kindling yet "
                             "(supported: SELECT expressions FROM table WHERE condition)")
    source = tree.args.get("from") or tree.args.get("from_")
    if source is None or not isinstance(source.this, exp.Table) or source.this.args.get("db"):
        raise ValueError(f"sql_query: FROM must name one registered table, got {source.sql() if source else 'none'}")
    table = table_of(source.this.name)
    if tree.args.get("where") is not None:
        table = table.where(_expression(tree.args["where"].this))
    if any(isinstance(e, exp.Star) for e in tree.expressions):
        if len(tree.expressions) == 1:
            return table
        raise ValueError("sql_query: * with other columns is not supported by Kindling yet")
    fields = []
    for i, node in enumerate(tree.expressions):
        if isinstance(node, exp.Alias):
            fields.append(_expression(node.this).alias(node.alias))
        elif isinstance(node, exp.Column):
            fields.append(_expression(node))
        else:
            fields.append(_expression(node).alias(f"EXPR${i}"))  # Calcite's name of an unnamed expression
    return table.select(*fields)


def _expression(node) -> Any:
    """A Table API expression for a SQL expression tree."""
    import sqlglot.expressions as exp

    from kindling.table.expressions import col, lit

    binary = {exp.Add: lambda a, b: a + b, exp.Sub: lambda a, b: a - b, exp.Mul: lambda a, b: a * b,
              exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b, exp.GT: lambda a, b: a > b,
              exp.GTE: lambda a, b: a >= b, exp.LT: lambda a, b: a < b, exp.LTE: lambda a, b: a <= b,
              exp.And: lambda a, b: a & b, exp.Or: lambda a, b: a | b}
    if isinstance(node, exp.Column) and not node.table:
        return col(node.name)
    if isinstance(node, exp.Paren):
        return _expression(node.this)
    if isinstance(node, exp.Not):
        return ~_expression(node.this)
    if isinstance(node, exp.Boolean):
        return lit(bool(node.this))
    if isinstance(node, exp.Literal):
        if node.is_string:
            return lit(node.this)
        return lit(float(node.this) if any(c in node.this for c in ".eE") else int(node.this))
    if isinstance(node, exp.Neg):
        return 0 - _expression(node.this)
    for kind, operate in binary.items():
        if type(node) is kind:
            return operate(_expression(node.this), _expression(node.expression))
    raise ValueError(f"sql_query: the expression {node.sql()} is not supported by Kindling yet "
                     "(columns, literals, + - *, comparisons, AND, OR, NOT)")
