"""Flink SQL statements other than queries, parsed with sqlglot: ``CREATE TABLE name (columns)
WITH (options)`` and the other statements of ``execute_sql`` (kindling/table/sql.py translates queries)."""
from __future__ import annotations

from typing import Dict, Tuple

from kindling.table.schema import Schema
from kindling.table.types import DataType, DataTypes

__all__ = ["DIALECT", "data_type", "parse_create_table", "parse_sql", "parse_statement"]

#: sqlglot's dialect closest to Flink SQL's lexical rules (`backquoted` identifiers)
DIALECT = "spark"


def data_type(kind) -> DataType:
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
    if name in ("TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMPNTZ"):  # Spark's dialect reads Flink's TIMESTAMP as TZ
        return DataTypes.TIMESTAMP(*params)
    if name == "TIMESTAMPLTZ":
        return DataTypes.TIMESTAMP_LTZ(*params)
    raise ValueError(f"CREATE TABLE: the column type {kind.sql()} is not supported by Kindling yet")


def parse_sql(statement: str):
    import sqlglot

    try:
        return sqlglot.parse_one(statement, read=DIALECT)
    except sqlglot.errors.ParseError as error:
        raise ValueError(f"SQL parse failed: {error}") from None


def parse_statement(statement: str) -> Tuple[str, ...]:
    """What a statement of ``execute_sql`` asks: ``('create_table', name, schema, options)``,
    ``('create_view', name, query)``, ``('create_function', name, 'module.attribute')``,
    ``('show', 'TABLES' | 'VIEWS' | 'FUNCTIONS')``, ``('describe', name)``, ``('insert', sink, query)``,
    ``('drop', name, if_exists)`` or ``('query', query)``."""
    import sqlglot
    import sqlglot.expressions as exp

    words = [t.text.upper() for t in sqlglot.tokenize(statement, read=DIALECT)]
    if words[:1] == ["SHOW"]:
        if words[1:] not in (["TABLES"], ["VIEWS"], ["FUNCTIONS"], ["USER", "FUNCTIONS"]):
            raise ValueError(f"{statement.strip()!r} is not supported by Kindling yet; SHOW TABLES, VIEWS or FUNCTIONS")
        return ("show", words[-1])
    if words[:1] == ["CREATE"] and "FUNCTION" in words:
        tokens = [t.text for t in sqlglot.tokenize(statement, read=DIALECT)]
        at = words.index("FUNCTION")
        if len(words) < at + 4 or words[at + 2] != "AS" or (len(words) > at + 4 and words[at + 4:] != ["LANGUAGE",
                                                                                                     "PYTHON"]):
            raise ValueError("CREATE FUNCTION name AS 'module.function' LANGUAGE PYTHON is the form Kindling "
                             f"supports, got {statement.strip()!r}")
        return ("create_function", tokens[at + 1], tokens[at + 3])
    tree = parse_sql(statement)
    if isinstance(tree, exp.Create) and tree.kind == "VIEW":
        return ("create_view", tree.this.name, tree.expression.sql())
    if isinstance(tree, exp.Create):
        return ("create_table",) + parse_create_table(tree)
    if isinstance(tree, exp.Describe):
        return ("describe", tree.this.name)
    if isinstance(tree, exp.Insert):
        if tree.args.get("overwrite"):
            raise ValueError("INSERT OVERWRITE is not supported by Kindling yet")
        return ("insert", tree.this.name, tree.expression.sql())
    if isinstance(tree, exp.Drop) and tree.kind in ("TABLE", "VIEW"):
        return ("drop", tree.this.name if tree.this is not None else tree.args["tables"][0].name,
                bool(tree.args.get("exists")))
    if isinstance(tree, exp.Select):
        return ("query", statement)
    raise ValueError(f"execute_sql: {statement.strip()[:80]!r} is not supported by Kindling yet (CREATE TABLE/VIEW/"
                     "FUNCTION, SHOW, DESCRIBE, INSERT INTO, DROP TABLE/VIEW, SELECT)")


def parse_create_table(tree) -> Tuple[str, Schema, Dict[str, str]]:
    """The table name, schema and WITH options of a ``CREATE [TEMPORARY] TABLE`` statement's tree."""
    import sqlglot.expressions as exp

    if not isinstance(tree, exp.Create) or tree.kind != "TABLE" or not isinstance(tree.this, exp.Schema):
        raise ValueError(f"Not a CREATE TABLE statement with columns: {tree.sql()[:80]!r}")
    name = tree.this.this.name
    builder = Schema.new_builder()
    for column in tree.this.expressions:
        if not isinstance(column, exp.ColumnDef) or column.args.get("kind") is None:
            raise ValueError(f"CREATE TABLE {name}: {column.sql()} is not supported by Kindling yet "
                             "(physical columns only: no computed columns, watermarks or constraints)")
        column_type = data_type(column.args["kind"])
        if any(isinstance(c.kind, exp.NotNullColumnConstraint) for c in column.args.get("constraints") or []):
            column_type = column_type.not_null()
        builder.column(column.this.name, column_type)
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
