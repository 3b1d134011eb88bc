"""Flink SQL statements other than queries, parsed with sqlglot: ``CREATE TABLE name (columns)
WITH (options)`` and the other statements of ``execute_sql`` (kindling/table/sql.py translates queries)."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from sqlglot.tokens import TokenType

from kindling.table.schema import Schema, declared_schema, sql_string
from kindling.table.types import DataType, DataTypes

__all__ = ["DIALECT", "data_type", "parse_create_table", "parse_sql", "parse_statement", "table_path"]

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
    if name == "TIME":
        return DataTypes.TIME(*params)
    if name == "TIMESTAMPLTZ":
        return DataTypes.TIMESTAMP_LTZ(*params)
    raise ValueError(f"CREATE TABLE: the column type {kind.sql()} is not supported by Kindling yet")


def parse_sql(statement: str):
    """The sqlglot tree of a statement, refused if it holds SQL Kindling does not translate
    (kindling/table/sql_validation.py): every translator reads trees made here."""
    import sqlglot

    from kindling.table.sql_functions import check_arguments_kept, named_calls
    from kindling.table.sql_validation import validate

    try:
        check_arguments_kept(statement)
        tree = named_calls(sqlglot.parse_one(statement, read=DIALECT))
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as error:
        raise ValueError(f"SQL parse failed: {error}") from None
    validate(tree)
    return tree


def parse_statement(statement: str) -> Tuple[str, ...]:
    """What a statement of ``execute_sql`` asks: ``('create_table', path, schema, options, if_not_exists,
    temporary)``, ``('create_view', path, query, temporary, if_not_exists)``, ``('create_function', name,
    'module.attribute', system)``, ``('show', what, path or None)``, ``('describe', path)``, ``('insert', sink,
    query)``, ``('drop', path, if_exists, view, temporary)``, a catalog statement (:func:`_catalog_statement`)
    or ``('query', query)``. Paths are ``[[catalog.]database.]object`` (catalog_manager.path_parts)."""
    import sqlglot
    import sqlglot.expressions as exp

    tokens = sqlglot.tokenize(statement, read=DIALECT)
    words = [t.text.upper() for t in tokens]
    if words[:1] == ["SHOW"]:  # the dialect reads what follows SHOW as one string: read its words
        return _show(statement[tokens[0].end + 1:])
    catalog_statement = _catalog_statement(_Words(statement, tokens))
    if catalog_statement is not None:
        return catalog_statement
    if words[:1] == ["CREATE"] and "FUNCTION" in words:
        texts = [t.text for t in tokens]
        at = words.index("FUNCTION")
        if len(words) < at + 4 or words[at + 2] != "AS" or (len(words) > at + 4 and words[at + 4:] != ["LANGUAGE",
                                                                                                     "PYTHON"]):
            raise ValueError("CREATE FUNCTION name AS 'module.function' LANGUAGE PYTHON is the form Kindling "
                             f"supports, got {statement.strip()!r}")
        return ("create_function", texts[at + 1], texts[at + 3], "SYSTEM" in words[:at])
    temporary = words[1:2] == ["TEMPORARY"]
    if words[:1] == ["CREATE"] and "TABLE" in words[:3]:
        return ("create_table",) + parse_create_table(statement) + (temporary,)
    if words[:1] == ["EXPLAIN"]:
        return ("explain", explained_statement(statement))
    tree = parse_sql(statement)
    if isinstance(tree, exp.Create) and tree.kind == "VIEW":
        return ("create_view", table_path(tree.this), tree.expression.sql(dialect=DIALECT), temporary,
                bool(tree.args.get("exists")))
    if isinstance(tree, exp.Describe):
        return ("describe", table_path(tree.this))
    if isinstance(tree, exp.Insert):
        return ("insert", table_path(tree.this), tree.expression.sql(dialect=DIALECT))
    if isinstance(tree, exp.Drop) and tree.kind in ("TABLE", "VIEW"):
        return ("drop", table_path(tree.args["tables"][0]), bool(tree.args.get("exists")), tree.kind == "VIEW",
                temporary)
    if isinstance(tree, (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)):
        return ("query", statement)
    raise ValueError(f"execute_sql: {statement.strip()[:80]!r} is not supported by Kindling yet (CREATE TABLE/VIEW/"
                     "FUNCTION/CATALOG/DATABASE, USE, SHOW, DESCRIBE, INSERT INTO, DROP TABLE/VIEW/CATALOG/DATABASE, "
                     "queries)")


def table_path(table) -> str:
    """The path of a table name in a sqlglot tree (``cat.db.t``), as catalog_manager.path_parts reads it."""
    import sqlglot.expressions as exp

    from kindling.table.catalog_manager import path_text

    if not isinstance(table, exp.Table):
        raise ValueError(f"Expected a table name, got {table.sql(dialect=DIALECT)}: INSERT INTO t (columns) is not "
                         "supported by Kindling yet (select the sink's columns in order)")
    return path_text([p.name for p in table.parts])


class _Words:
    """The tokens of a statement, read front to back."""

    def __init__(self, statement: str, tokens):
        self.statement, self.tokens, self.at = statement, tokens, 0

    def accept(self, *words: str) -> bool:
        """Whether the next tokens are the keywords ``words`` (then read past them)."""
        ahead = self.tokens[self.at:self.at + len(words)]
        if len(ahead) == len(words) and all(t.token_type != TokenType.IDENTIFIER and t.text.upper() == w
                                            for t, w in zip(ahead, words)):
            self.at += len(words)
            return True
        return False

    def path(self) -> str:
        """A name of one or more dotted parts."""
        from kindling.table.catalog_manager import path_text

        parts = [self._next("a name").text]
        while self.at < len(self.tokens) and self.tokens[self.at].token_type == TokenType.DOT:
            self.at += 1
            parts.append(self._next("a name").text)
        return path_text(parts)

    def name(self) -> str:
        """A name of one part (a catalog's)."""
        token = self._next("a name")
        if token.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
            self._fail(f"a name, not {token.text!r}")
        return token.text

    def string(self) -> str:
        token = self._next("a quoted string")
        if token.token_type != TokenType.STRING:
            self._fail(f"a quoted string, not {token.text!r}")
        return token.text

    def options(self) -> Dict[str, str]:
        """``('key' = 'value', ...)``."""
        options = {}
        if self._next("(").token_type != TokenType.L_PAREN:
            self._fail("'(' after WITH")
        while True:
            key = self.string()
            if self._next("=").token_type != TokenType.EQ:
                self._fail("'key' = 'value'")
            options[key] = self.string()
            token = self._next("',' or ')'")
            if token.token_type == TokenType.R_PAREN:
                return options
            if token.token_type != TokenType.COMMA:
                self._fail(f"',' or ')', not {token.text!r}")

    def end(self) -> None:
        if self.at < len(self.tokens):
            self._fail(f"the end of the statement, not {self.tokens[self.at].text!r}")

    def _next(self, what: str):
        if self.at >= len(self.tokens):
            self._fail(f"{what} at the end")
        self.at += 1
        return self.tokens[self.at - 1]

    def _fail(self, expected: str):
        raise ValueError(f"SQL parse failed: expected {expected} in {self.statement.strip()[:120]!r}")


def _catalog_statement(words: _Words) -> Optional[Tuple]:
    """``('create_catalog', name, options, if_not_exists)``, ``('drop_catalog', name, if_exists)``,
    ``('use_catalog', name)``, ``('use_database', [catalog.]database)``, ``('create_database', path,
    comment, properties, if_not_exists)`` or ``('drop_database', path, if_exists, cascade)``; None
    for other statements."""
    if words.accept("CREATE", "CATALOG"):
        if_not_exists = words.accept("IF", "NOT", "EXISTS")
        name = words.name()
        options = words.options() if words.accept("WITH") else {}
        words.end()
        return ("create_catalog", name, options, if_not_exists)
    if words.accept("DROP", "CATALOG"):
        if_exists = words.accept("IF", "EXISTS")
        name = words.name()
        words.end()
        return ("drop_catalog", name, if_exists)
    if words.accept("USE", "MODULES"):
        raise ValueError("USE MODULES is not supported by Kindling: Flink modules are not there")
    if words.accept("USE"):
        kind = "use_catalog" if words.accept("CATALOG") else "use_database"
        name = words.name() if kind == "use_catalog" else words.path()
        words.end()
        return (kind, name)
    if words.accept("CREATE", "DATABASE"):
        if_not_exists = words.accept("IF", "NOT", "EXISTS")
        name = words.path()
        comment = words.string() if words.accept("COMMENT") else None
        properties = words.options() if words.accept("WITH") else {}
        words.end()
        return ("create_database", name, comment, properties, if_not_exists)
    if words.accept("DROP", "DATABASE"):
        if_exists = words.accept("IF", "EXISTS")
        name = words.path()
        cascade = words.accept("CASCADE")
        if not cascade:
            words.accept("RESTRICT")
        words.end()
        return ("drop_database", name, if_exists, cascade)
    for kind in ("DATABASE", "CATALOG", "TABLE", "VIEW"):
        if words.accept("ALTER", kind):
            raise ValueError(f"ALTER {kind} is not supported by Kindling yet: drop it and create it again")
    return None


#: what SHOW lists, by its words
SHOWN = ("CATALOGS", "CURRENT CATALOG", "DATABASES", "CURRENT DATABASE", "TABLES", "VIEWS", "FUNCTIONS",
         "USER FUNCTIONS", "CREATE TABLE")


def _show(rest: str) -> Tuple[str, str, Optional[str]]:
    """``('show', what, path or None)`` of ``SHOW <rest>``: ``CREATE TABLE path``, ``TABLES|VIEWS
    [FROM|IN [catalog.]database]``, ``DATABASES [FROM|IN catalog]`` or another of SHOWN."""
    import sqlglot

    words = _Words(rest, sqlglot.tokenize(rest, read=DIALECT))
    for what in SHOWN:
        if words.accept(*what.split()):
            path = None
            if what == "CREATE TABLE":
                path = words.path()
            elif what in ("TABLES", "VIEWS", "DATABASES") and (words.accept("FROM") or words.accept("IN")):
                path = words.name() if what == "DATABASES" else words.path()
            words.end()
            return ("show", what.split()[-1] if what == "USER FUNCTIONS" else what, path)
    raise ValueError(f"SHOW {rest.strip()!r} is not supported by Kindling yet; SHOW {', '.join(SHOWN)}")


def parse_create_table(statement: str) -> Tuple[str, Schema, Dict[str, str], Optional[str], bool]:
    """The table name, schema, WITH options, comment and IF NOT EXISTS of ``CREATE [TEMPORARY] TABLE
    [IF NOT EXISTS] name (columns) [COMMENT '...'] [PARTITIONED BY (...)] WITH (...)``. Columns are
    physical (``name TYPE [NOT NULL]``), computed (``name AS expr``, ``PROCTIME()``) or metadata (``name
    TYPE METADATA [FROM 'key'] [VIRTUAL]``), each with an optional ``COMMENT '...'``; ``WATERMARK FOR col
    AS expr`` and ``[CONSTRAINT name] PRIMARY KEY (...) NOT ENFORCED`` may follow. sqlglot reads all but
    the metadata columns and the watermark, which it has no grammar for: those are read here from the
    statement's tokens."""
    import sqlglot.expressions as exp

    items, head, tail = _column_items(statement)
    metadata: Dict[str, Tuple[DataType, Optional[str], bool]] = {}
    watermark: Optional[Tuple[str, str]] = None
    computed: Dict[str, str] = {}
    comments: Dict[str, str] = {}
    kept = []
    for tokens, text in items:
        words = [t.text.upper() if t.token_type != TokenType.IDENTIFIER else "" for t in tokens]
        if words[0] != "WATERMARK" and len(words) > 2 and words[-2] == "COMMENT" and \
                tokens[-1].token_type == TokenType.STRING:
            comments[tokens[0].text] = tokens[-1].text
            tokens, words = tokens[:-2], words[:-2]
            text = statement[tokens[0].start:tokens[-1].end + 1]
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
                computed[tokens[0].text] = _flink_text(statement[tokens[2].start:tokens[-1].end + 1])
            kept.append(text)
    tree = parse_sql(head + ", ".join(kept) + tail)
    if not isinstance(tree, exp.Create) or tree.kind != "TABLE" or not isinstance(tree.this, exp.Schema):
        raise ValueError(f"Not a CREATE TABLE statement with columns: {statement.strip()[:80]!r}")
    name = ".".join(p.name for p in tree.this.this.parts)  # for messages
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
    comment = None
    properties = tree.args.get("properties")
    for prop in (properties.expressions if properties is not None else []):
        if isinstance(prop, exp.SchemaCommentProperty):
            comment = prop.this.this
            continue
        if isinstance(prop, exp.TemporaryProperty):
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
    if partition_keys or comments:
        schema = declared_schema(schema, partition_keys=partition_keys, comments=comments)
    return table_path(tree.this.this), schema, options, comment, bool(tree.args.get("exists"))


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


def create_table_text(identifier: str, descriptor, temporary: bool) -> str:
    """The ``CREATE [TEMPORARY] TABLE`` statement of a table, as Flink's SHOW CREATE TABLE prints it."""
    from kindling.table.schema import _DeclaredSchema

    schema = descriptor.get_schema()
    declared = schema if isinstance(schema, _DeclaredSchema) else None
    lines = []
    for name, column_type in zip(schema.get_field_names(), schema.get_field_data_types()):
        extras = declared.extras(name) if declared is not None else ""
        column_text = None if declared is not None and name in declared.computed else _serialized_type(column_type)
        comment = declared.comment_text(name) if declared is not None else ""
        lines.append(" ".join(p for p in (f"`{name}`", column_text, extras, comment) if p))
    if declared is not None and declared.watermark_spec:
        column, expression = declared.watermark_spec
        lines.append(f"WATERMARK FOR `{column}` AS {expression}")
    if declared is not None and declared.primary_key:
        constraint, columns = declared.primary_key
        lines.append(f"CONSTRAINT `{constraint}` PRIMARY KEY ({', '.join(f'`{c}`' for c in columns)}) NOT ENFORCED")
    text = f"CREATE {'TEMPORARY ' if temporary else ''}TABLE {identifier} (\n" + \
        ",\n".join("  " + line for line in lines) + "\n)\n"
    if descriptor.get_comment():
        text += f"COMMENT {sql_string(descriptor.get_comment())}\n"
    if declared is not None and declared.partition_keys:
        text += f"PARTITIONED BY ({', '.join(f'`{k}`' for k in declared.partition_keys)})\n"
    options = descriptor.get_options()
    return text + "WITH (\n" + ",\n".join(f"  '{k}' = '{options[k]}'" for k in sorted(options)) + "\n)\n"


def _serialized_type(data_type: DataType) -> str:
    """A column type as Flink writes it in SQL (``STRING`` is ``VARCHAR(2147483647)``)."""
    import re

    text = repr(data_type)
    text = re.sub(r"\bSTRING\b", "VARCHAR(2147483647)", text)
    text = re.sub(r"\bBYTES\b", "VARBINARY(2147483647)", text)
    return re.sub(r"\bTIMESTAMP_LTZ\((\d+)\)", r"TIMESTAMP(\1) WITH LOCAL TIME ZONE", text)
