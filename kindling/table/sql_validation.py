"""The SQL Kindling translates, as data, and the check refusing the rest before translation.

sqlglot reads far more SQL than Flink's, and the translators (kindling/table/sql.py, sql_functions.py,
ddl.py) read only the parts of a tree they know: anything else would be dropped without a word (a
QUALIFY, a TABLESAMPLE, a LEFT SEMI JOIN read as a LEFT JOIN). So every sqlglot node class they read is
listed in ``TRANSLATED`` with the arguments they read (and, where an argument is translated only for
some values, a check of its value), and ``validate`` walks a parsed tree once before translation,
refusing any other class, or a listed class with another argument set, naming the SQL clause as Flink's
planner names what it does not support: "... is not supported by Kindling yet" where Flink accepts the
clause (docs/table.md lists those), "Flink SQL has no ..." where Flink rejects it (``CLAUSES``).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple, Union

from sqlglot import expressions as exp
from sqlglot.errors import ErrorLevel

from kindling.table.sql_dialect import DIALECT, TableArgument

__all__ = ["CLAUSES", "Clause", "INTERVAL_UNIT_MONTHS", "INTERVAL_UNIT_MS", "TRANSLATED", "VALUE_CLAUSES", "given", "singular_unit", "validate"]


class Clause(NamedTuple):
    """A piece of SQL Kindling refuses: its name as SQL writes it, whether Flink SQL accepts it, what to
    write instead, and Flink's own words where its planner refuses it too."""

    name: str
    in_flink: bool
    hint: str = ""
    flink_words: str = ""

    def message(self, text: str) -> str:
        hint = f" ({self.hint})" if self.hint else ""
        refusal = self.flink_words or (f"{self.name} is not supported by Kindling yet" if self.in_flink else
                                       f"Flink SQL has no {self.name}")
        return f"{refusal}{hint}: {text}"


#: a check of an argument's value: None when Kindling translates it, else the Clause refusing it
Check = Callable[[exp.Expr, Any], Optional[Clause]]

#: the clauses refused by a value check (below): what Flink accepts is listed in docs/table.md
VALUE_CLAUSES: Dict[str, Clause] = {
    "nulls_order": Clause("NULLS FIRST/LAST other than the default (nulls first ascending, last descending)", True),
    "subsecond_unit": Clause("MILLISECOND, MICROSECOND or NANOSECOND interval unit", False,
                             "write INTERVAL '0.2' SECOND"),
    "interval_unit": Clause("INTERVAL with a range or precision of units (DAY TO SECOND, SECOND(3))", True),
    "unitless_interval": Clause("INTERVAL without a unit", False, "INTERVAL '5' SECOND"),
    "other_unit": Clause("interval unit other than YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE and SECOND", False),
    "interval_value": Clause("INTERVAL value other than a quoted number", False, "INTERVAL '-1.5' SECOND"),
    "signed_interval": Clause("sign before an INTERVAL's quoted value", True, "INTERVAL '-1' SECOND"),
    "interval_fraction": Clause("fraction of an INTERVAL unit other than SECOND", False,
                                "INTERVAL '90' SECOND, not INTERVAL '1.5' MINUTE"),
    "semi_join": Clause("SEMI or ANTI JOIN", False),
    "alias_columns": Clause("table alias naming columns (FROM t AS x(a, b))", True),
    "distinct_arguments": Clause("aggregate of DISTINCT over several arguments", False),
    "temporal_version": Clause("version clause other than FOR SYSTEM_TIME AS OF", False),
    "view_columns": Clause("column list of a view (CREATE VIEW v (a, b) AS ...)", True),
    "create_table_as": Clause("CREATE TABLE ... AS SELECT", True),
    "create_other": Clause("CREATE statement other than CREATE TABLE, VIEW and FUNCTION", True),
    "insert_columns": Clause("column list in INSERT INTO (INSERT INTO t (a, b) ...)", True),
    "drop_several": Clause("DROP of several tables in one statement", False),
    "initcap_delimiters": Clause("INITCAP with delimiters", False),
    "chr_arguments": Clause("CHR of several arguments", False),
    "fetch_option": Clause("FETCH ... PERCENT or WITH TIES", True),
    "filter": Clause("FILTER (WHERE ...) of an aggregate other than COUNT, SUM, AVG, MIN, MAX, STDDEV or VAR", True),
    "limit_value": Clause("LIMIT other than a number of rows", False),
    "limit_all": Clause("LIMIT ALL", True),
    "hints": Clause("SQL hints (/*+ ... */)", True),
    "following": Clause("OVER window frame other than ... PRECEDING AND CURRENT ROW", True,
                        flink_words="OVER RANGE FOLLOWING windows are not supported yet."),
    "unpivot": Clause("UNPIVOT", True),
    "keep": Clause("window function other than f(...) OVER (...) (KEEP)", False),
}


def _nulls_order(node, nulls_first) -> Optional[Clause]:
    """Kindling orders nulls as Flink SQL does by default: first ascending, last descending."""
    if nulls_first is None or bool(nulls_first) != bool(node.args.get("desc")):
        return None
    return VALUE_CLAUSES["nulls_order"]


#: the interval units Kindling translates (kindling/table/sql.py), in milliseconds; each also plural, as Flink
#: reads them
INTERVAL_UNIT_MS = {"SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 604_800_000}
#: the interval units of months Kindling translates (added to or subtracted from a time only)
INTERVAL_UNIT_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def singular_unit(unit: exp.Var) -> str:
    """An interval unit's name, singular (Flink reads SECONDS as SECOND)."""
    name = unit.name.upper()
    return name[:-1] if name.endswith("S") else name


def _interval_unit(node, unit) -> Optional[Clause]:
    if unit is None:
        return VALUE_CLAUSES["unitless_interval"]
    if not isinstance(unit, exp.Var):
        return VALUE_CLAUSES["interval_unit"]
    name = singular_unit(unit)
    if name in INTERVAL_UNIT_MS or name in INTERVAL_UNIT_MONTHS:
        return None
    if name in ("MILLISECOND", "MICROSECOND", "NANOSECOND"):
        return VALUE_CLAUSES["subsecond_unit"]
    return VALUE_CLAUSES["other_unit"]


def _interval_value(node, value) -> Optional[Clause]:
    unit = node.args.get("unit")
    if not isinstance(unit, exp.Var):
        return None  # a value of several units: _interval_unit refuses them
    if not (isinstance(value, exp.Literal) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value.this)):
        return VALUE_CLAUSES["signed_interval" if isinstance(value, exp.Neg) else "interval_value"]
    if "." in value.this and singular_unit(unit) != "SECOND":
        return VALUE_CLAUSES["interval_fraction"]
    return None


def _join_kind(node, kind) -> Optional[Clause]:
    kind = (kind or "").upper()
    if kind in ("", "INNER", "OUTER", "CROSS"):
        return None  # CROSS JOIN, FROM a, b and FROM t, LATERAL TABLE(f(x)): an inner join of every pair
    return VALUE_CLAUSES["semi_join"]


def _no_alias_columns(node, alias) -> Optional[Clause]:
    return VALUE_CLAUSES["alias_columns"] if alias is not None and alias.columns else None


def _one_distinct_argument(node, expressions) -> Optional[Clause]:
    return VALUE_CLAUSES["distinct_arguments"] if len(expressions or []) > 1 else None


def _system_time(node, this) -> Optional[Clause]:
    return None if this == "TIMESTAMP" else VALUE_CLAUSES["temporal_version"]


def _as_of(node, kind) -> Optional[Clause]:
    return None if kind == "AS OF" else VALUE_CLAUSES["temporal_version"]


def _created(node, this) -> Optional[Clause]:
    return VALUE_CLAUSES["view_columns"] if node.args.get("kind") == "VIEW" and isinstance(this, exp.Schema) else None


def _view_query(node, query) -> Optional[Clause]:
    return VALUE_CLAUSES["create_table_as"] if query is not None and node.args.get("kind") != "VIEW" else None


def _created_kind(node, kind) -> Optional[Clause]:
    return None if kind in ("TABLE", "VIEW") else VALUE_CLAUSES["create_other"]


def _insert_target(node, target) -> Optional[Clause]:
    return VALUE_CLAUSES["insert_columns"] if isinstance(target, exp.Schema) else None


def _one_table(node, tables) -> Optional[Clause]:
    return VALUE_CLAUSES["drop_several"] if len(tables or []) > 1 else None


def _default_delimiters(node, delimiters) -> Optional[Clause]:
    """sqlglot's Spark dialect adds INITCAP's default delimiter; Flink's INITCAP takes none."""
    plain = delimiters is None or (isinstance(delimiters, exp.Literal) and delimiters.this == " ")
    return None if plain else VALUE_CLAUSES["initcap_delimiters"]


def _one_argument(node, expressions) -> Optional[Clause]:
    return VALUE_CLAUSES["chr_arguments"] if len(expressions or []) > 1 else None


def _row_count(node, count) -> Optional[Clause]:
    if isinstance(count, exp.Literal) and not count.is_string and count.this.isdigit():
        return None
    return VALUE_CLAUSES["limit_all" if isinstance(count, exp.Var) and count.name.upper() == "ALL" else "limit_value"]


def _rows_only(node, options) -> Optional[Clause]:
    """FETCH FIRST n ROWS ONLY (a LIMIT); not PERCENT or WITH TIES."""
    if isinstance(options, exp.LimitOptions) and not options.args.get("percent") and not options.args.get("with_ties"):
        return None
    return VALUE_CLAUSES["fetch_option"]


#: the aggregates that skip NULLs, so that AGG(x) FILTER (WHERE c) is AGG(CASE WHEN c THEN x END) (sql.py)
FILTERABLE = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.StddevPop, exp.StddevSamp, exp.Stddev,
              exp.VariancePop, exp.Variance)


def _filterable(node, aggregate) -> Optional[Clause]:
    return None if isinstance(aggregate, FILTERABLE) else VALUE_CLAUSES["filter"]


def _preceding(node, side) -> Optional[Clause]:
    return None if side is None or str(side).upper() == "PRECEDING" else VALUE_CLAUSES["following"]


def _current_row(node, end) -> Optional[Clause]:
    return None if end is None or str(end).upper() == "CURRENT ROW" else VALUE_CLAUSES["following"]


def _over(node, over) -> Optional[Clause]:
    return None if over in (None, "OVER") else VALUE_CLAUSES["keep"]


def _args(*names: str, **checked: Check) -> Dict[str, Optional[Check]]:
    """The arguments of a node class Kindling translates: any value of ``names``, values of ``checked``
    that pass their check."""
    return {**dict.fromkeys(names), **checked}


_BINARY = _args("this", "expression")
_UNARY = _args("this")
#: the modifiers a query (SELECT, a parenthesized query, UNION ...) may carry: sql.py's _ordered
_ORDERED_QUERY = ("with_", "order", "limit", "offset")

#: every sqlglot node class a translator reads, with the arguments it reads (``_args``); nothing else passes
TRANSLATED: Dict[type, Dict[str, Optional[Check]]] = {
    # queries (kindling/table/sql.py)
    exp.Select: _args("expressions", "distinct", "from_", "joins", "where", "group", "having", "windows", "qualify",
                      "match", *_ORDERED_QUERY),
    # MATCH_RECOGNIZE (kindling/table/match_recognize.py; the dialect adds WITHIN)
    exp.MatchRecognize: _args("partition_by", "order", "measures", "rows", "after", "pattern", "define", "alias",
                              "within"),
    exp.MatchRecognizeMeasure: _UNARY,
    exp.First: _args("this", "expression"),
    exp.Last: _args("this", "expression"),
    exp.Qualify: _UNARY,
    exp.Subquery: _args("this", *_ORDERED_QUERY, alias=_no_alias_columns),
    exp.Union: _args("this", "expression", "distinct", *_ORDERED_QUERY),
    exp.Intersect: _args("this", "expression", "distinct", *_ORDERED_QUERY),
    exp.Except: _args("this", "expression", "distinct", *_ORDERED_QUERY),
    exp.Values: _args("expressions", "alias"),
    exp.Tuple: _args("expressions"),
    exp.With: _args("expressions"),
    exp.CTE: _args("this", "alias"),
    exp.TableAlias: _args("this", "columns"),
    exp.From: _UNARY,
    exp.Table: _args("this", "db", "catalog", "version", alias=_no_alias_columns),
    exp.Version: _args("expression", this=_system_time, kind=_as_of),
    exp.Join: _args("this", "on", "side", kind=_join_kind),
    exp.Lateral: _args("this", "alias"),
    exp.Unnest: _args("expressions", "alias"),
    TableArgument: _args("this", "expressions"),
    exp.Kwarg: _BINARY,
    exp.Where: _UNARY,
    exp.Group: _args("expressions"),
    exp.GroupingSets: _args("expressions"),  # kindling/table/grouping_sets.py
    exp.Rollup: _args("expressions"),
    exp.Cube: _args("expressions"),
    exp.Grouping: _args("expressions"),
    exp.GroupingId: _args("expressions"),
    exp.Having: _UNARY,
    exp.Order: _args("expressions"),
    exp.Ordered: _args("this", "desc", nulls_first=_nulls_order),
    exp.Limit: _args(expression=_row_count),
    exp.Offset: _args(expression=_row_count),
    exp.Fetch: _args("direction", count=_row_count, limit_options=_rows_only),
    exp.Filter: _args("expression", this=_filterable),
    exp.LimitOptions: _args("rows"),
    exp.Distinct: _args(expressions=_one_distinct_argument),
    exp.Alias: _args("this", "alias"),
    exp.Star: _args(),
    exp.Column: _args("this", "table"),
    exp.Identifier: _args("this", "quoted"),
    exp.Window: _args("this", "partition_by", "order", "spec", "alias", over=_over),
    exp.WindowSpec: _args("kind", "start", start_side=_preceding, end=_current_row),
    exp.RowNumber: _args(),
    exp.Rank: _args(),
    exp.DenseRank: _args(),
    # expressions (sql.py's _expression)
    exp.Paren: _UNARY,
    exp.Not: _UNARY,
    exp.Neg: _UNARY,
    exp.Boolean: _UNARY,
    exp.Literal: _args("this", "is_string"),
    exp.Null: _args(),
    exp.Var: _UNARY,
    **{kind: _BINARY for kind in (exp.Add, exp.Sub, exp.Mul, exp.Mod, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT,
                                  exp.LTE, exp.And, exp.Or)},
    exp.Div: _args("this", "expression", "safe"),  # safe: the Spark dialect's mark, set on every division
    exp.Count: _args("this", "big_int"),  # big_int: the Spark dialect's BIGINT result, as Flink's
    exp.Sum: _UNARY,
    exp.Avg: _UNARY,
    exp.Min: _UNARY,
    exp.Max: _UNARY,
    exp.Lag: _args("this", "offset", "default"),
    exp.Lead: _args("this", "offset", "default"),
    exp.Cast: _args("this", "to"),
    exp.TryCast: _args("this", "to", "safe"),  # the Spark dialect reads CAST as TryCast, TRY_CAST with safe
    exp.DataType: _args("this", "expressions", "nested"),
    exp.DataTypeParam: _UNARY,
    exp.Interval: _args(this=_interval_value, unit=_interval_unit),
    exp.Anonymous: _args("this", "expressions"),
    # built-in functions (kindling/table/sql_functions.py)
    **{kind: _UNARY for kind in (exp.Upper, exp.Lower, exp.Length, exp.Reverse, exp.Abs, exp.Sqrt, exp.Exp, exp.Ln,
                                 exp.Sign, exp.Degrees, exp.Radians, exp.MD5, exp.SHA, exp.Hex, exp.Unhex,
                                 exp.ToBase64, exp.FromBase64, exp.Ascii, exp.TimeStrToTime, exp.Rand,
                                 exp.StddevPop, exp.StddevSamp, exp.Stddev, exp.VariancePop, exp.Variance,
                                 exp.FirstValue, exp.LastValue)},
    exp.Initcap: _args("this", expression=_default_delimiters),
    exp.Trim: _args("this", "expression", "position"),
    exp.StrPosition: _args("this", "substr", "position"),
    exp.Case: _args("this", "ifs", "default"),
    exp.If: _args("this", "true", "false"),
    exp.Is: _BINARY,
    exp.JSON: _UNARY,
    exp.Like: _args("this", "expression", "negate"),
    exp.Bracket: _args("this", "expressions"),
    exp.Round: _args("this", "decimals"),
    exp.Floor: _args("this", "to"),
    exp.Ceil: _args("this", "to"),
    exp.Extract: _BINARY,
    exp.Pad: _args("this", "expression", "fill_pattern", "is_left"),
    exp.Log: _BINARY,
    exp.TimeToStr: _args("this", "format"),
    exp.StrToTime: _args("this", "format"),
    exp.TsOrDsToDate: _args("this", "format", "safe"),  # safe: the Spark dialect's mark on TO_DATE
    exp.StrToUnix: _args("this", "format"),
    exp.UnixToStr: _args("this", "format"),
    exp.TimestampDiff: _args("this", "expression", "unit"),
    exp.TimestampAdd: _args("this", "expression", "unit"),
    **{kind: _UNARY for kind in (exp.Year, exp.Quarter, exp.Month, exp.Week, exp.DayOfMonth, exp.DayOfWeek,
                                 exp.DayOfYear, exp.Hour, exp.Minute, exp.Second)},
    # group: REGEXP_EXTRACT's (sqlglot adds 1 when absent); null_if_pos_overflow: the Spark dialect's mark
    exp.RegexpExtract: _args("this", "expression", "group", "null_if_pos_overflow"),
    exp.RegexpSplit: _BINARY,
    exp.Concat: _args("expressions", "safe"),
    exp.ConcatWs: _args("expressions", "safe", "coalesce", "flatten"),  # the Spark dialect's marks
    exp.DPipe: _args("this", "expression", "safe"),
    exp.Coalesce: _args("this", "expressions"),
    exp.In: _args("this", "expressions", "query"),  # query: sql.py's _existence_joined
    exp.All: _args("this"),  # x op ALL (subquery): sql.py's _existence_joined
    exp.Any: _args("this"),  # x op ANY|SOME (subquery): sql.py's _existence_joined
    exp.Exists: _UNARY,
    exp.Between: _args("this", "low", "high"),
    exp.Nullif: _BINARY,
    exp.Substring: _args("this", "start", "length"),
    exp.Replace: _args("this", "expression", "replacement"),
    exp.RegexpReplace: _args("this", "expression", "replacement"),
    exp.SimilarTo: _BINARY,
    exp.Left: _BINARY,
    exp.Right: _BINARY,
    exp.Repeat: _args("this", "times"),
    exp.Pow: _BINARY,
    exp.Trunc: _args("this", "decimals"),
    exp.SHA2: _args("this", "length"),
    exp.StartsWith: _BINARY,
    exp.EndsWith: _BINARY,
    exp.Overlay: _args("this", "expression", "from_", "for_"),
    exp.Chr: _args(expressions=_one_argument),
    exp.Array: _args("expressions"),
    exp.Pi: _args(),
    exp.Uuid: _args(),
    exp.CurrentDate: _args(),
    exp.CurrentDatabase: _args(),
    exp.CurrentTimestamp: _args(),
    exp.ArrayAgg: _args("this", "nulls_excluded"),  # nulls_excluded: the Spark dialect's mark
    exp.GroupConcat: _args("this", "separator"),
    # statements (kindling/table/ddl.py)
    exp.Create: _args("exists", "properties", this=_created, kind=_created_kind, expression=_view_query),
    exp.Schema: _args("this", "expressions"),
    exp.ColumnDef: _args("this", "kind", "constraints"),
    exp.ColumnConstraint: _args("kind"),
    exp.NotNullColumnConstraint: _args("allow_null"),
    exp.PrimaryKeyColumnConstraint: _args("options"),
    exp.ComputedColumnConstraint: _UNARY,
    exp.CommentColumnConstraint: _UNARY,
    exp.Constraint: _args("this", "expressions"),
    exp.PrimaryKey: _args("expressions", "options", "include"),  # include: an empty IndexParameters
    exp.IndexParameters: _args(),
    exp.Properties: _args("expressions"),
    exp.Property: _args("this", "value"),
    exp.TemporaryProperty: _args(),
    exp.SchemaCommentProperty: _UNARY,
    exp.PartitionedByProperty: _UNARY,
    exp.Insert: _args("expression", this=_insert_target),
    exp.Describe: _UNARY,
    exp.Drop: _args("kind", "exists", "temporary", tables=_one_table),
}

#: what Kindling refuses, by node class or (class, argument): the SQL clause's name and whether Flink has it
CLAUSES: Dict[Union[type, Tuple[type, str]], Clause] = {
    exp.TableSample: Clause("TABLESAMPLE clause", False),
    exp.Distribute: Clause("DISTRIBUTE BY clause", False),
    exp.Sort: Clause("SORT BY clause", False),
    exp.Cluster: Clause("CLUSTER BY clause", False),
    exp.Pivot: Clause("PIVOT clause", False),
    exp.Lock: Clause("FOR UPDATE or FOR SHARE clause", False),
    exp.Connect: Clause("CONNECT BY clause", False),
    exp.PreWhere: Clause("PREWHERE clause", False),
    exp.Hint: VALUE_CLAUSES["hints"],
    exp.NullSafeEQ: Clause("IS NOT DISTINCT FROM", True),
    exp.NullSafeNEQ: Clause("IS DISTINCT FROM", True),
    exp.Escape: Clause("ESCAPE of LIKE or SIMILAR TO", True),
    exp.ILike: Clause("ILIKE operator", False, "LOWER(s) LIKE pattern"),
    exp.RegexpLike: Clause("RLIKE, REGEXP operator or REGEXP_LIKE", False, "REGEXP(string, pattern)"),
    exp.IntDiv: Clause("DIV operator", False, "CAST(a / b AS INT)"),
    exp.HexString: Clause("binary literal X'...'", True),
    exp.LikeProperty: Clause("CREATE TABLE ... LIKE", True),
    exp.Set: Clause("SET statement in execute_sql", False, "t_env.get_config().set(key, value)"),
    exp.Use: Clause("USE", True),
    exp.Alter: Clause("ALTER", True),
    (exp.With, "recursive"): Clause("WITH RECURSIVE", True),
    (exp.MatchRecognizeMeasure, "window_frame"): Clause("RUNNING or FINAL in MEASURES", True),
    (exp.Distinct, "on"): Clause("DISTINCT ON", False),
    (exp.Star, "except_"): Clause("SELECT * EXCEPT", False),
    (exp.Star, "replace"): Clause("SELECT * REPLACE", False),
    (exp.Join, "using"): Clause("JOIN ... USING", True, "JOIN ... ON"),
    (exp.Join, "method"): Clause("NATURAL JOIN", True, "JOIN ... ON"),
    (exp.Group, "all"): Clause("GROUP BY ALL", False),
    (exp.Group, "cube"): Clause("GROUP BY ... WITH CUBE", False, "GROUP BY CUBE (...)"),
    (exp.Group, "rollup"): Clause("GROUP BY ... WITH ROLLUP", False, "GROUP BY ROLLUP (...)"),
    (exp.Group, "grouping_sets"): Clause("GROUPING SETS", True),
    (exp.Order, "this"): Clause("ORDER BY inside an aggregate call", True),
    (exp.Unnest, "offset"): Clause("UNNEST ... WITH ORDINALITY", True),
    (exp.Between, "symmetric"): Clause("BETWEEN SYMMETRIC", True),
    (exp.Cast, "format"): Clause("CAST ... FORMAT", False),
    (exp.TryCast, "format"): Clause("CAST ... FORMAT", False),
    (exp.Floor, "decimals"): Clause("FLOOR of decimal places", False),
    (exp.Ceil, "decimals"): Clause("CEIL of decimal places", False),
    (exp.WindowSpec, "exclude"): Clause("EXCLUDE clause in a window frame", False),
    (exp.Column, "db"): Clause("column reference of three or more parts (t.row_column.field)", True),
    (exp.Column, "catalog"): Clause("column reference of three or more parts (t.row_column.field)", True),
    (exp.Table, "partition"): Clause("PARTITION (...) of INSERT INTO", True),
    (exp.Insert, "overwrite"): Clause("INSERT OVERWRITE", True),
    (exp.Create, "replace"): Clause("CREATE OR REPLACE", True),
    (exp.Describe, "style"): Clause("DESCRIBE EXTENDED", True),
    (exp.Select, "kind"): Clause("SELECT AS STRUCT|VALUE", False),
    (exp.Select, "into"): Clause("SELECT ... INTO", False),
    (exp.Select, "laterals"): Clause("LATERAL VIEW", False, "JOIN LATERAL TABLE(f(x)) ON TRUE"),
    **{(kind, "by_name"): Clause("UNION|INTERSECT|EXCEPT BY NAME", False)
       for kind in (exp.Union, exp.Intersect, exp.Except)},
}


def validate(tree: exp.Expr) -> None:
    """Refuses, before translation, any node of ``tree`` or argument of one that Kindling does not
    translate (ValueError naming the SQL clause)."""
    for node in tree.walk():
        _check(node)


def _check(node: exp.Expr) -> None:
    if any(comment.startswith("+") for comment in node.comments or []):  # the dialect keeps hints as comments
        raise ValueError(VALUE_CLAUSES["hints"].message(f"/*{node.comments[0]}*/"))
    allowed = TRANSLATED.get(type(node))
    if allowed is None:
        raise ValueError(_refusal(_node_clause(node), node, _text(node)))
    for key, value in node.args.items():
        if key in allowed:
            clause = allowed[key](node, value) if allowed[key] is not None else None
            if clause is not None:
                raise ValueError(clause.message(_text(node)))
        elif given(value):
            first = value[0] if isinstance(value, list) else value
            clause = CLAUSES.get((type(node), key)) or (_node_clause(first) if isinstance(first, exp.Expr) else None)
            shown = " ".join(_text(v) for v in value) if isinstance(value, list) else \
                _text(value) if isinstance(value, exp.Expr) else _text(node)
            raise ValueError(_refusal(clause, node, shown, key))


def given(value: Any) -> bool:
    """Whether a node's argument is given: sqlglot writes an absent flag as False, an absent list as []."""
    return value is not None and value is not False and value != []


def _node_clause(node: exp.Expr) -> Optional[Clause]:
    if isinstance(node, exp.Pivot) and node.args.get("unpivot"):
        return VALUE_CLAUSES["unpivot"]
    return CLAUSES.get(type(node))


def _refusal(clause: Optional[Clause], node: exp.Expr, text: str, key: Optional[str] = None) -> str:
    if clause is not None:
        return clause.message(text)
    part = f"{type(node).__name__} with {key}" if key else type(node).__name__
    what = "the function" if isinstance(node, exp.Func) and key is None else "the SQL"
    return f"{what} {text} is not supported by Kindling (sqlglot reads it as {part}, which Kindling does not translate)"


def _text(node: Any, limit: int = 120) -> str:
    """A node's SQL, cut to ``limit`` characters."""
    try:
        text = node.sql(dialect=DIALECT, unsupported_level=ErrorLevel.IGNORE) if isinstance(node, exp.Expr) else \
            str(node)
    except Exception:  # a node sqlglot cannot write back
        text = type(node).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."
