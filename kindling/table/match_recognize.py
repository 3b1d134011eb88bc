"""MATCH_RECOGNIZE (Flink SQL's pattern recognition) as a plan node: the SQL clause read into a
pattern of quantified variables, their DEFINE conditions and the MEASURES, as expressions over named
references to the match's rows (kindling/runtime/table/match_recognize.py runs them, as PyFlink 2.3's
CEP operator does).

Kindling translates PARTITION BY, ORDER BY the time attribute, MEASURES of ``A.col`` (the last row of
A), ``FIRST/LAST(A.col[, n])``, ``SUM/COUNT/AVG/MIN/MAX`` of a variable's rows and ``MATCH_ROWTIME()``,
ONE ROW PER MATCH, every AFTER MATCH SKIP, a PATTERN of variables with ``* + ? {n} {n,} {n,m}`` and the
reluctant ``*? +? {n,m}?``, DEFINE over the current row, other variables' last rows and
``FIRST/LAST(A.col[, n])``, and WITHIN. It refuses, with Flink's words where PyFlink refuses too: ALL
ROWS PER MATCH, PREV/NEXT ("physical offsets"), a greedy quantifier last, an optional variable after a
greedy one, ``??``; and by name what Kindling does not translate yet (aggregates in DEFINE, CLASSIFIER(),
MATCH_NUMBER(), RUNNING/FINAL, pattern groups and alternatives).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["Element", "Reference", "Skip", "match_recognize", "parse_pattern"]

_QUANTIFIED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_$]*)\s*(\*|\+|\?|\{\s*(\d*)\s*(,?)\s*(\d*)\s*\})?\s*(\?)?")
_REFUSED_PATTERNS = {"|": "alternatives (A | B) in PATTERN", "(": "groups (parentheses) in PATTERN",
                     "^": "anchors (^, $) in PATTERN", "$": "anchors (^, $) in PATTERN",
                     "{-": "exclusions ({- A -}) in PATTERN"}
#: the name MATCH_ROWTIME() is read by in a measure
ROWTIME = "MATCH_ROWTIME$"


@dataclass(frozen=True)
class Element:
    """One variable of the pattern (by position in ``variables``) with its quantifier."""

    variable: int
    low: int
    high: Optional[int]
    greedy: bool

    @property
    def blocks_next(self) -> bool:
        """Whether the element after it takes no row this one accepts once this one has ``high`` rows."""
        return self.greedy and self.high is not None and self.high > self.low


@dataclass(frozen=True)
class Reference:
    """A value of a match the expressions read by ``name``: the ``offset``-th row from the first or
    the last (``from_first``) of ``variable``'s rows (None: all rows), its column ``column``."""

    name: str
    variable: Optional[int]
    column: int
    from_first: bool
    offset: int


@dataclass(frozen=True)
class Skip:
    """AFTER MATCH SKIP: ``"PAST LAST ROW"``, ``"TO NEXT ROW"``, ``"TO FIRST"`` or ``"TO LAST"`` (of ``variable``,
    named ``name``)."""

    kind: str
    variable: Optional[int] = None
    name: Optional[str] = None



def parse_pattern(text: str) -> List[Tuple[str, int, Optional[int], bool, bool]]:
    """The PATTERN's elements: (variable, at least, at most or None, greedy, optional)."""
    for symbol, what in _REFUSED_PATTERNS.items():
        if symbol in text:
            raise ValueError(f"MATCH_RECOGNIZE: {what} is not supported by Kindling yet: PATTERN ({text})")
    if text.strip().upper().startswith("PERMUTE"):
        raise ValueError(f"MATCH_RECOGNIZE: PERMUTE in PATTERN is not supported by Kindling yet: PATTERN ({text})")
    elements, at = [], 0
    while at < len(text.rstrip()):
        found = _QUANTIFIED.match(text, at)
        if found is None or found.end() == at:
            raise ValueError(f"MATCH_RECOGNIZE: cannot read PATTERN ({text}) at {text[at:]!r}")
        name, quantifier, low, comma, high, reluctant = found.groups()
        at = found.end()
        if quantifier is None:
            if reluctant:
                raise ValueError(f"MATCH_RECOGNIZE: cannot read PATTERN ({text}) at {name}?")
            elements.append((name, 1, 1, False, False))
            continue
        if quantifier == "*":
            bounds = (0, None)
        elif quantifier == "+":
            bounds = (1, None)
        elif quantifier == "?":
            bounds = (0, 1)
        else:
            first = int(low) if low else 0
            bounds = (first, (int(high) if high else None) if comma else first)
            if bounds[1] is not None and (bounds[1] < first or bounds[1] == 0):
                raise ValueError(f"MATCH_RECOGNIZE: the quantifier {quantifier} of {name} has no count to match")
        if quantifier == "?" and reluctant:  # Flink's words
            raise ValueError("Reluctant optional variables are not supported yet.")
        # Flink's CEP makes ? an optional variable of both ways, the others greedy unless reluctant
        greedy = not reluctant and quantifier != "?" and bounds != (bounds[0], bounds[0])
        elements.append((name, bounds[0], bounds[1], greedy, bounds[0] == 0))
    if not elements:
        raise ValueError("MATCH_RECOGNIZE: PATTERN () has no variable")
    names = [e[0] for e in elements]
    if len(set(names)) != len(names):
        raise ValueError(f"MATCH_RECOGNIZE: a variable twice in PATTERN ({text}) is not supported by Kindling yet")
    last = elements[-1]
    if last[3] or (last[4] and last[1:3] != (0, 1)):  # Flink's words
        raise ValueError("Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish your "
                         "pattern with either a simple variable or reluctant quantifier.")
    for before, after in zip(elements, elements[1:]):
        if before[3] and after[4]:  # Flink's words (its CEP refuses the pattern when the job starts)
            raise ValueError("Optional pattern cannot be preceded by greedy pattern")
    return elements


class _Rewriter:
    """Reads the expressions of DEFINE and MEASURES into Table API expressions over named references
    (:class:`Reference`) and aggregate results."""

    def __init__(self, variables: List[str], names: List[str], types: dict, time_field: str):
        self.variables, self.names, self.types, self.time_field = variables, names, types, time_field
        self.references: Dict[tuple, Any] = {}  # (variable, column, from first, offset) -> Reference
        self.aggregates: Dict[Optional[int], List[Tuple[str, Any]]] = {}
        self.reference_types: Dict[str, Any] = {}

    def expression(self, tree, where: str):
        """The Table API expression of ``tree`` (of ``where``: ``"DEFINE"`` or ``"MEASURES"``)."""
        from kindling.table.sql import _expression

        return _expression(self._rewritten(tree.copy(), where))

    def _rewritten(self, tree, where: str):
        from sqlglot import expressions as exp

        from kindling.table.sql import _AGGREGATES

        if isinstance(tree, (exp.First, exp.Last)):
            column, offset = tree.this, tree.args.get("expression")
            if not isinstance(column, exp.Column) or (offset is not None and not (
                    isinstance(offset, exp.Literal) and not offset.is_string and offset.this.isdigit())):
                raise ValueError(f"MATCH_RECOGNIZE: {tree.sql()}: FIRST and LAST take a variable's column and an "
                                 "offset (a non-negative number)")
            return self._reference(column, isinstance(tree, exp.First), int(offset.this) if offset else 0)
        if isinstance(tree, exp.Column):
            return self._reference(tree, False, 0)
        if isinstance(tree, exp.Anonymous):
            name = tree.name.upper()
            if name in ("PREV", "NEXT"):  # PyFlink 2.3's words
                raise ValueError("Flink does not support physical offsets within partition.")
            if name == "MATCH_ROWTIME" and not tree.expressions:
                self.reference_types[ROWTIME] = self.types[self.time_field].not_null()
                return exp.column(ROWTIME, quoted=True)
            if name in ("CLASSIFIER", "MATCH_NUMBER", "MATCH_PROCTIME", "MATCH_ROWTIME"):
                raise ValueError(f"MATCH_RECOGNIZE: {tree.sql()} is not supported by Kindling yet")
        if type(tree).__name__ in _AGGREGATES:
            if where == "DEFINE":
                raise ValueError(f"MATCH_RECOGNIZE: the aggregate {tree.sql()} in DEFINE is not supported by "
                                 "Kindling yet (in MEASURES it is)")
            return self._aggregate(tree)
        for key, value in list(tree.args.items()):
            if isinstance(value, exp.Expression):
                tree.set(key, self._rewritten(value, where))
            elif isinstance(value, list):
                tree.set(key, [self._rewritten(v, where) if isinstance(v, exp.Expression) else v for v in value])
        return tree

    def _variable(self, column) -> Optional[int]:
        if not column.table:
            return None
        if column.table not in self.variables:
            raise ValueError(f"MATCH_RECOGNIZE: {column.sql()}: {column.table} is no variable of the PATTERN "
                             f"({', '.join(self.variables)})")
        return self.variables.index(column.table)

    def _column(self, column) -> int:
        if column.name not in self.names:
            raise ValueError(f"MATCH_RECOGNIZE: no column {column.name} in the table ({', '.join(self.names)})")
        return self.names.index(column.name)

    def _reference(self, column, from_first: bool, offset: int):
        from sqlglot import expressions as exp

        key = (self._variable(column), self._column(column), from_first, offset)
        if key not in self.references:
            name = f"MATCH${len(self.references)}"
            self.references[key] = Reference(name, *key)
            self.reference_types[name] = self.types[column.name]
        return exp.column(self.references[key].name, quoted=True)

    def _aggregate(self, tree):
        """An aggregate of one variable's rows (of all rows when its argument names none)."""
        from sqlglot import expressions as exp

        from kindling.table.sql import _expression

        columns = list(tree.find_all(exp.Column))
        variables = {self._variable(c) for c in columns}
        if len(variables) > 1:
            raise ValueError(f"MATCH_RECOGNIZE: {tree.sql()} aggregates the rows of several variables; an "
                             "aggregate takes the columns of one")
        for column in columns:
            self._column(column)
            column.set("table", None)
        if any(isinstance(node, (exp.First, exp.Last, exp.Anonymous)) for node in tree.find_all(exp.Func)
               if node is not tree):
            raise ValueError(f"MATCH_RECOGNIZE: {tree.sql()}: an aggregate of navigation or functions of the "
                             "match is not supported by Kindling yet")
        variable = variables.pop() if variables else None
        aggregate = _expression(tree)
        name = f"MATCH$agg{sum(len(a) for a in self.aggregates.values())}"
        self.aggregates.setdefault(variable, []).append((name, aggregate))
        self.reference_types[name] = aggregate._data_type(self.types)
        return exp.column(name, quoted=True)


def match_recognize(table, match) -> Any:
    """The Table of ``table`` MATCH_RECOGNIZE (``match``, a sqlglot MatchRecognize): one row per match,
    the PARTITION BY columns then the MEASURES."""
    from sqlglot import expressions as exp

    from kindling.table.planner import nodes
    from kindling.table.schema import Schema
    from kindling.table.sql import _interval_ms

    names, types = table.get_schema().get_field_names(), table._types()
    rows = match.args.get("rows")
    if rows is not None and rows.name.upper().startswith("ALL ROWS"):  # Flink's words
        raise ValueError("All rows per match mode is not supported yet.")
    if table._updating:
        raise ValueError("MATCH_RECOGNIZE of an updating table (an aggregation's changes) is not supported: Flink "
                         "matches append-only rows")
    keys = []
    for key in match.args.get("partition_by") or []:
        if not isinstance(key, exp.Column) or key.name not in names:
            raise ValueError(f"MATCH_RECOGNIZE: PARTITION BY {key.sql()}: partition by columns of the table")
        keys.append(key.name)
    order = match.args.get("order")
    orders = order.expressions if order is not None else []
    if not orders or not isinstance(orders[0].this, exp.Column) or orders[0].args.get("desc"):
        raise ValueError("You must specify either rowtime or proctime for order by as the first one.")
    time_field = orders[0].this.name
    if time_field == table._proctime:
        raise ValueError("MATCH_RECOGNIZE ordered by processing time is not supported by Kindling yet (event time is)")
    if time_field != table._rowtime and not (table._in_batch() and time_field in types and
                                             types[time_field].type_name in ("TIMESTAMP", "TIMESTAMP_LTZ")):
        raise ValueError("You must specify either rowtime or proctime for order by as the first one.")
    if len(orders) > 1:
        raise ValueError("MATCH_RECOGNIZE: ORDER BY columns after the time attribute are not supported by Kindling "
                         "yet")
    pattern = match.args.get("pattern")
    if pattern is None:
        raise ValueError("MATCH_RECOGNIZE needs a PATTERN")
    parsed = parse_pattern(pattern.name)
    variables = [e[0] for e in parsed]
    defines = {}
    for definition in match.args.get("define") or []:
        if definition.alias not in variables:
            raise ValueError(f"MATCH_RECOGNIZE: DEFINE {definition.alias} names no variable of the PATTERN "
                             f"({', '.join(variables)})")
        defines[definition.alias] = definition.this
    if not defines:
        raise ValueError("MATCH_RECOGNIZE needs a DEFINE clause (Flink's grammar): DEFINE A AS ...")
    skip = _skip(match.args.get("after"), variables)
    within = match.args.get("within")
    within_ms = _interval_ms(within, "WITHIN") if within is not None else None

    rewriter = _Rewriter(variables, names, types, time_field)
    conditions = []
    for variable in variables:
        if variable not in defines:
            conditions.append(None)  # a variable without a condition takes any row
            continue
        condition = rewriter.expression(defines[variable], "DEFINE")
        kind = condition._data_type(rewriter.reference_types)
        if kind.type_name != "BOOLEAN":
            raise ValueError(f"MATCH_RECOGNIZE: DEFINE {variable} AS {defines[variable].sql()} is not a condition "
                             f"(it is {kind})")
        conditions.append(condition)
    condition_refs = list(rewriter.references.values())
    rewriter.references = {}
    measures, measure_names = [], []
    for measure in match.args.get("measures") or []:
        if not isinstance(measure.this, exp.Alias):
            raise ValueError(f"MATCH_RECOGNIZE: the measure {measure.sql()} needs a name: ... AS name")
        measures.append(rewriter.expression(measure.this.this, "MEASURES"))
        measure_names.append(measure.this.alias)
    measure_types = [m._data_type(rewriter.reference_types) for m in measures]
    measured = [m.this.this for m in match.args.get("measures") or []]
    rowtime = next((n for m, n in zip(measured, measure_names)
                    if isinstance(m, exp.Anonymous) and m.name.upper() == "MATCH_ROWTIME"), None)
    # a measure of the time attribute itself stays one in a stream, as Flink prints it
    times = [n for m, n in zip(measured, measure_names) if not table._in_batch() and (
        isinstance(m, exp.Column) or isinstance(m, (exp.First, exp.Last)) and isinstance(m.this, exp.Column))
        and (m if isinstance(m, exp.Column) else m.this).name == time_field]
    schema = Schema(keys + measure_names, [types[k] for k in keys] + measure_types)
    elements = tuple(Element(i, low, high, greedy) for i, (_, low, high, greedy, _) in enumerate(parsed))
    return table._with(nodes.MatchRecognize(
        input=table._node, partition_keys=tuple(keys), time_field=time_field, variables=tuple(variables),
        elements=elements, conditions=tuple(conditions), condition_refs=tuple(condition_refs),
        measures=tuple(measures), measure_refs=tuple(rewriter.references.values()),
        aggregates={v: tuple(a) for v, a in rewriter.aggregates.items()}, skip=skip, within=within_ms,
        pattern=pattern.name, out=nodes.Output(schema, rowtime=rowtime, time_attributes=tuple(
            n for n in measure_names if n == rowtime or n in times), batch_time_attributes=(rowtime,) if rowtime else ())))


def _skip(after, variables: List[str]):
    """AFTER MATCH SKIP (without one: TO NEXT ROW, as in PyFlink 2.3)."""
    if after is None:
        return Skip("TO NEXT ROW")
    words = after.name.upper().split()[3:]  # after AFTER MATCH SKIP
    if words in (["PAST", "LAST", "ROW"], ["TO", "NEXT", "ROW"]):
        return Skip(" ".join(words))
    variable = after.name.split()[-1]
    if variable not in variables:
        raise ValueError(f"MATCH_RECOGNIZE: AFTER MATCH SKIP {' '.join(words)}: {variable} is no variable of the "
                         f"PATTERN ({', '.join(variables)})")
    return Skip(" ".join(words[:2]), variables.index(variable), variable)
