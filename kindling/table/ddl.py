"""Flink SQL statements other than queries, parsed with sqlglot: ``CREATE TABLE name (columns)
WITH (options)`` and the other statements of ``execute_sql`` (kindling/table/sql.py translates queries)."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from sqlglot.tokens import TokenType

from kindling.table.schema import Schema
from kindling.table.types import DataType, DataTypes

__all__ = ["DIALECT", "data_type", "parse_create_table", "parse_sql", "parse_statement"]

#: Spark's sqlglot dialect (Flink SQL's lexical rules) with Flink's window table-valued functions
from kindling.table.sql_dialect import DIALECT, explained_statement  # noqa: E402


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
    if name == "ARRAY":
        return DataTypes.ARRAY(data_type(kind.expressions[0]))
    if name == "MAP":
        return DataTypes.MAP(data_type(kind.expressions[0]), data_type(kind.expressions[1]))
    if name == "STRUCT":  # Flink's ROW<name type, ...> (kindling/table/sql_dialect.py)
        return DataTypes.ROW([DataTypes.FIELD(f.name, data_type(f.args["kind"])) for f in kind.expressions])
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
    """The sqlglot tree of a statement, refused if it holds SQL Kindling does not translate
    (kindling/table/sql_validation.py): every translator reads trees made here."""
    import sqlglot

    from kindling.table.sql_validation import validate

    try:
        tree = sqlglot.parse_one(statement, read=DIALECT)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as error:
        raise ValueError(f"SQL parse failed: {error}") from None
    validate(tree)
    return tree


def parse_statement(statement: str) -> Tuple[str, ...]:
    """What a statement of ``execute_sql`` asks: ``('create_table', name, schema, options, if_not_exists)``,
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
    if words[:1] == ["CREATE"] and "TABLE" in words[:3]:
        return ("create_table",) + parse_create_table(statement)
    if words[:1] == ["EXPLAIN"]:
        return ("explain", explained_statement(statement))
    tree = parse_sql(statement)
    if isinstance(tree, exp.Create) and tree.kind == "VIEW":
        return ("create_view", tree.this.name, tree.expression.sql(dialect=DIALECT))
    if isinstance(tree, exp.Describe):
        return ("describe", tree.this.name)
    if isinstance(tree, exp.Insert):
        return ("insert", tree.this.name, tree.expression.sql(dialect=DIALECT))
    if isinstance(tree, exp.Drop) and tree.kind in ("TABLE", "VIEW"):
        return ("drop", tree.args["tables"][0].name, bool(tree.args.get("exists")))
    if isinstance(tree, (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)):
        return ("query", statement)
    raise ValueError(f"execute_sql: {statement.strip()[:80]!r} is not supported by Kindling yet (CREATE TABLE/VIEW/"
                     "FUNCTION, SHOW, DESCRIBE, INSERT INTO, DROP TABLE/VIEW, queries)")


def parse_create_table(statement: str) -> Tuple[str, Schema, Dict[str, str], bool]:
    """The table name, schema, WITH options and IF NOT EXISTS of ``CREATE [TEMPORARY] TABLE [IF NOT
    EXISTS] name (columns) [PARTITIONED BY (...)] WITH (...)``. Columns are physical (``name TYPE [NOT
    NULL]``), computed (``name AS expr``, ``PROCTIME()``) or metadata (``name TYPE METADATA [FROM 'key']
    [VIRTUAL]``); ``WATERMARK FOR col AS expr`` and ``[CONSTRAINT name] PRIMARY KEY (...) NOT ENFORCED``
    may follow. sqlglot reads all but the metadata columns and the watermark, which it has no
    grammar for: those are read here from the statement's tokens."""
    import sqlglot.expressions as exp

    items, head, tail = _column_items(statement)
    metadata: Dict[str, Tuple[DataType, Optional[str], bool]] = {}
    watermark: Optional[Tuple[str, str]] = None
    computed: Dict[str, str] = {}
    kept = []
    for tokens, text in items:
        words = [t.text.upper() if t.token_type != TokenType.IDENTIFIER else "" for t in tokens]
        if words[0] == "WATERMARK":
            if len(tokens) < 5 or words[1] != "FOR" or words[3] != "AS":
                raise ValueError("CREATE TABLE: write the watermark as WATERMARK FOR column AS expression, "
                                 f"got {text!r}")
            watermark = (tokens[2].text, _flink_text(statement[tokens[4].start:tokens[-1].end + 1]))
        elif "METADATA" in words[1:]:
            metadata[tokens[0].text] = _metadata_column(statement, tokens, words, text)
            kept.append(f"`{tokens[0].text}` INT")  # a placeholder keeping the column's place
        else:
            if words[1:2] == ["AS"] and len(tokens) > 2:  # computed: its text as written (sqlglot drops precisions)
                end = next((i for i, w in enumerate(words) if w == "COMMENT"), len(tokens)) - 1
                computed[tokens[0].text] = _flink_text(statement[tokens[2].start:tokens[end].end + 1])
            kept.append(text)
    tree = parse_sql(head + ", ".join(kept) + tail)
    if not isinstance(tree, exp.Create) or tree.kind != "TABLE" or not isinstance(tree.this, exp.Schema):
        raise ValueError(f"Not a CREATE TABLE statement with columns: {statement.strip()[:80]!r}")
    name = tree.this.this.name
    builder = Schema.new_builder()
    primary_key = None
    for column in tree.this.expressions:
        if isinstance(column, exp.ColumnDef) and column.this.name in metadata:
            column_type, key, virtual = metadata[column.this.name]
            builder.column_by_metadata(column.this.name, column_type, key, virtual)
        elif isinstance(column, exp.ColumnDef):
            constraints = [c.kind for c in column.args.get("constraints") or []]
            if column.this.name in computed:
                builder.column_by_expression(column.this.name, computed[column.this.name])
                continue
            column_type = data_type(column.args["kind"])
            if any(isinstance(c, exp.NotNullColumnConstraint) and not c.args.get("allow_null") for c in constraints):
                column_type = column_type.not_null()
            key = next((c for c in constraints if isinstance(c, exp.PrimaryKeyColumnConstraint)), None)
            if key is not None:
                primary_key = ("PK_" + column.this.name, [column.this.name], key)
            builder.column(column.this.name, column_type)
        elif isinstance(column, (exp.PrimaryKey, exp.Constraint)):
            key = column if isinstance(column, exp.PrimaryKey) else column.expressions[0]
            if not isinstance(key, exp.PrimaryKey):
                raise ValueError(f"CREATE TABLE {name}: {column.sql()} is not supported by Kindling (constraints: "
                                 "PRIMARY KEY (...) NOT ENFORCED)")
            names = [c.name for c in key.expressions]
            primary_key = (column.this.name if isinstance(column, exp.Constraint) else "PK_" + "_".join(names),
                           names, key)
        else:
            raise ValueError(f"CREATE TABLE {name}: {column.sql()} is not supported by Kindling yet")
    if primary_key is not None:
        constraint, columns, key = primary_key
        if not any(str(o).upper() == "NOT ENFORCED" for o in key.args.get("options") or []):
            raise ValueError(f"CREATE TABLE {name}: Flink supports only PRIMARY KEY ... NOT ENFORCED (the key is "
                             "not checked, upsert sinks write by it)")
        builder.primary_key_named(constraint, *columns)
    if watermark is not None:
        builder.watermark(*watermark)
    options: Dict[str, str] = {}
    partition_keys: List[str] = []
    properties = tree.args.get("properties")
    for prop in (properties.expressions if properties is not None else []):
        if isinstance(prop, (exp.TemporaryProperty, exp.SchemaCommentProperty)):
            continue
        if isinstance(prop, exp.PartitionedByProperty):
            partition_keys = [c.name for c in prop.this.expressions]
            continue
        if not isinstance(prop, exp.Property) or not isinstance(prop.this, exp.Literal):
            raise ValueError(f"CREATE TABLE {name}: the WITH clause holds 'key' = 'value' pairs, got {prop.sql()}")
        options[prop.this.this] = prop.args["value"].this
    if "connector" not in options:
        raise ValueError(f"CREATE TABLE {name} needs a 'connector' option in its WITH clause")
    schema = builder.build()
    if partition_keys:
        schema = _partitioned(schema, partition_keys)
    return name, schema, options, bool(tree.args.get("exists"))


def _column_items(statement: str):
    """The items of the column list of a CREATE TABLE (each its tokens and text), the text before
    them (through the opening parenthesis) and after them (from the closing one)."""
    import sqlglot

    tokens = sqlglot.tokenize(statement, read=DIALECT)
    opening = next((i for i, t in enumerate(tokens) if t.token_type == TokenType.L_PAREN), None)
    if opening is None:
        raise ValueError(f"CREATE TABLE needs a column list: {statement.strip()[:80]!r}")
    items, current, depth = [], [], 0
    for i in range(opening + 1, len(tokens)):
        token = tokens[i]
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            if depth == 0:
                if current:
                    items.append(current)
                texts = [(item, statement[item[0].start:item[-1].end + 1]) for item in items]
                return texts, statement[:tokens[opening].end + 1], statement[token.start:]
            depth -= 1
        if token.token_type == TokenType.COMMA and depth == 0:
            items.append(current)
            current = []
        else:
            current.append(token)
    raise ValueError(f"CREATE TABLE: the column list has no closing parenthesis: {statement.strip()[:80]!r}")


def _metadata_column(statement: str, tokens, words, text: str) -> Tuple[DataType, Optional[str], bool]:
    """``name TYPE [NOT NULL] METADATA [FROM 'key'] [VIRTUAL]``: its type, key and virtuality."""
    import sqlglot.expressions as exp

    at = words.index("METADATA", 1)
    rest = words[at + 1:]
    key = None
    if rest[:1] == ["FROM"]:
        if len(rest) < 2 or tokens[at + 2].token_type != TokenType.STRING:
            raise ValueError(f"CREATE TABLE: METADATA FROM takes a quoted key ('timestamp'), got {text!r}")
        key, rest = tokens[at + 2].text, rest[2:]
    virtual = rest == ["VIRTUAL"]
    if rest not in ([], ["VIRTUAL"]):
        raise ValueError(f"CREATE TABLE: a metadata column is name TYPE METADATA [FROM 'key'] [VIRTUAL], got {text!r}")
    not_null = words[at - 2:at] == ["NOT", "NULL"]
    type_end = tokens[at - 3 if not_null else at - 1]
    try:
        kind = exp.DataType.build(statement[tokens[1].start:type_end.end + 1], dialect=DIALECT)
    except Exception:
        raise ValueError(f"CREATE TABLE: cannot read the type of the metadata column {text!r}") from None
    column_type = data_type(kind)
    return (column_type.not_null() if not_null else column_type), key, virtual


def _flink_text(text: str) -> str:
    """A computed column's or watermark's SQL as Flink prints it: ``text`` with its column names
    backquoted (``ts - INTERVAL '1' SECOND`` -> ```ts` - INTERVAL '1' SECOND``), the rest as written."""
    import sqlglot
    import sqlglot.expressions as exp

    columns = {c.name for c in parse_sql(f"SELECT {text}").expressions[0].find_all(exp.Column)}
    out, last = [], 0
    for token in sqlglot.tokenize(text, read=DIALECT):
        if token.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and token.text in columns:
            out.append(text[last:token.start] + f"`{token.text}`")
            last = token.end + 1
    return "".join(out) + text[last:]


def _partitioned(schema: Schema, keys: List[str]) -> Schema:
    """``schema`` with PARTITIONED BY ``keys``."""
    from kindling.table.schema import _DeclaredSchema

    if isinstance(schema, _DeclaredSchema):
        declared = schema
    else:
        declared = _DeclaredSchema(schema.get_field_names(), schema.get_field_data_types(), {}, {}, None)
    return _DeclaredSchema(declared._names, declared._types, declared.computed, declared.metadata,
                           declared.watermark_spec, declared.primary_key, keys)
