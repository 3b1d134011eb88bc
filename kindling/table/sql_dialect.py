"""The sqlglot dialect Kindling reads Flink SQL with: Spark's (Flink's backquoted identifiers and
lexical rules) plus the grammar of Flink's window table-valued functions, which no sqlglot dialect
has: ``TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)``, ``SESSION(TABLE t PARTITION BY k,
...)`` and named arguments (``DATA => TABLE t``). Write a tree back as SQL with this dialect
(``tree.sql(dialect=DIALECT)``)."""
from __future__ import annotations

from sqlglot import expressions as exp
from sqlglot.dialects.spark import Spark
from sqlglot.helper import seq_get
from sqlglot.tokens import TokenType

__all__ = ["DIALECT", "SqlDialect", "explained_statement"]

#: the name sqlglot knows the dialect by (a Dialect subclass registers its lowercase class name)
DIALECT = "flink"
WINDOW_FUNCTIONS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")


class TableArgument(exp.Expression):
    """A window TVF's table argument: ``TABLE name [PARTITION BY columns]``."""

    arg_types = {"this": True, "expressions": False}


def _window_function(name: str):
    return lambda self: self._parse_window_function(name)


class Flink(Spark):
    """Spark's dialect reading Flink's window table-valued functions and string literals."""

    UNESCAPED_SEQUENCES: dict = {}  # a backslash is a character of a Flink string ('a\nb' has four)

    class Tokenizer(Spark.Tokenizer):
        STRING_ESCAPES = ["'"]  # 'it''s' is it's (Spark's dialect reads 'it' 's', two strings)
        # a hint (/*+ OPTIONS(...) */) stays a comment starting with "+" wherever it is (Spark's tokenizer
        # drops the "+" of one not after SELECT): kindling/table/sql_validation.py refuses hints
        KEYWORDS = {**{k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k != Spark.Tokenizer.HINT_START},
                    "BYTES": TokenType.VARBINARY,  # Flink's BYTES is VARBINARY of any length
                    "MATCH_RECOGNIZE": TokenType.MATCH_RECOGNIZE}
        VAR_SINGLE_TOKENS = {"$"}  # a name goes on past "$", as Flink's EXPR$0

    class Parser(Spark.Parser):
        FUNC_TOKENS = Spark.Parser.FUNC_TOKENS | {TokenType.SESSION}
        FUNCTION_PARSERS = {**Spark.Parser.FUNCTION_PARSERS,
                            **{name: _window_function(name) for name in WINDOW_FUNCTIONS}}
        # MATCH_RECOGNIZE's FIRST(A.v, n) and LAST(A.v, n): the second argument is an offset (Spark's, IGNORE NULLS)
        FUNCTIONS = {**Spark.Parser.FUNCTIONS,
                     "FIRST": lambda args: exp.First(this=args[0], expression=seq_get(args, 1)),
                     "LAST": lambda args: exp.Last(this=args[0], expression=seq_get(args, 1))}

        def _parse_match_recognize(self):
            """Flink's MATCH_RECOGNIZE, with ``WITHIN interval`` after its PATTERN (sqlglot's reads no WITHIN):
            kept as the node's ``within``."""
            self._match_recognize_within = None
            node = super()._parse_match_recognize()
            if node is not None and self._match_recognize_within is not None:
                node.set("within", self._match_recognize_within)
            return node

        def _match_text_seq(self, *texts, advance=True):
            if texts == ("DEFINE",) and self._curr is not None and self._curr.text.upper() == "WITHIN" \
                    and hasattr(self, "_match_recognize_within"):  # after a MATCH_RECOGNIZE's PATTERN (...)
                self._advance()
                self._match_recognize_within = self._parse_interval()
            return super()._match_text_seq(*texts, advance=advance)

        def _parse_types(self, *args, **kwargs):
            """Flink's ``ROW<name type, ...>`` type is Spark's ``STRUCT<...>`` (``ROW(...)`` stays the row
            constructor)."""
            if self._curr is not None and self._curr.text.upper() == "ROW" and self._next is not None \
                    and self._next.token_type == TokenType.LT:
                self._curr.token_type = TokenType.STRUCT
            return super()._parse_types(*args, **kwargs)

        def _parse_window_function(self, name: str) -> exp.Expr:
            """The arguments of a window TVF (after its opening parenthesis): ``TABLE name [PARTITION BY
            column | (columns)]`` becomes ``TABLE(name[, partition columns])``; named ones are Kwargs."""
            arguments = []
            while True:
                parameter = None
                if self._next is not None and self._next.token_type == TokenType.FARROW:
                    parameter = self._curr.text.upper()
                    self._advance(2)
                if self._match(TokenType.TABLE):
                    parts = [self._parse_table_parts()]
                    if self._match(TokenType.PARTITION_BY):
                        keys = self._parse_bitwise()
                        parts += keys.expressions if isinstance(keys, exp.Tuple) else [keys.unnest()]
                    value = TableArgument(this=parts[0], expressions=parts[1:])
                else:
                    value = self._parse_assignment()
                arguments.append(exp.Kwarg(this=exp.var(parameter), expression=value) if parameter else value)
                if not self._match(TokenType.COMMA):
                    break
            return self.expression(exp.Anonymous(this=name, expressions=arguments))

    class Generator(Spark.Generator):
        TRANSFORMS = {**Spark.Generator.TRANSFORMS, TableArgument: lambda self, e: _table_argument_sql(self, e)}


def _table_argument_sql(generator, argument: TableArgument) -> str:
    keys = [generator.sql(k) for k in argument.expressions]
    partition = f" PARTITION BY ({', '.join(keys)})" if keys else ""
    return f"TABLE {generator.sql(argument, 'this')}{partition}"


def explained_statement(statement: str) -> str:
    """The statement an ``EXPLAIN [PLAN FOR] statement`` explains."""
    import sqlglot

    command = sqlglot.tokenize(statement, read=DIALECT)  # EXPLAIN is a command: the rest is one token
    rest = command[1].text if len(command) > 1 else ""
    tokens = sqlglot.tokenize(rest, read=DIALECT)
    words = [t.text.upper() for t in tokens]
    at = 2 if words[:2] == ["PLAN", "FOR"] else 0
    details = ("ESTIMATED_COST", "CHANGELOG_MODE", "JSON_EXECUTION_PLAN", "PLAN_ADVICE")
    if at < len(words) and words[at] in details:
        raise ValueError(f"EXPLAIN {words[at]} is not supported by Kindling: EXPLAIN prints Kindling's plan "
                         "(docs/table.md), without Flink's explain details")
    if at >= len(tokens):
        raise ValueError("EXPLAIN needs a statement: EXPLAIN SELECT ... or EXPLAIN INSERT INTO ...")
    return rest[tokens[at].start:]


class SqlDialect:
    """``pyflink.table.SqlDialect``: the SQL dialect ``TableConfig.set_sql_dialect`` chooses. Kindling reads
    Flink's (``DEFAULT``); Hive's is not supported."""

    DEFAULT = 0
    HIVE = 1
