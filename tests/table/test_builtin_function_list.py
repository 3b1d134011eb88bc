"""Every function of Flink 2.x's built-in function list (flink_builtin_functions.txt) is either given by
Kindling, in SQL and in the Table API, with Flink's result type, or refused by name (REFUSED); the given
ones give the same answer as Spark columns and in Python on edge values (NULLs, empty strings, overflow).
Flink's answers on those values are recorded in tests/conformance/programs/table_builtin_list_*.py.
"""
from __future__ import annotations

import os
import re
from typing import NamedTuple, Optional

import pytest

from table_support import quiet_t_env
from test_builtin_functions import EDGE_NAMES, EDGE_ROWS, EDGE_TYPES, NONDETERMINISTIC, disagreements

from kindling.table import DataTypes, expressions
from kindling.table.expression import JsonOnNull, JsonType, TimeIntervalUnit, TimePointUnit
from kindling.table.planner.functions import REFUSED

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flink_builtin_functions.txt")


class Entry(NamedTuple):
    """A function of Flink's list: its name, a SQL call and a Table API call on the edge table (None when
    Flink has none), and the type Flink gives them (``api_type``: the Table API call's, where it differs)."""
    name: str
    sql: Optional[str]
    api: Optional[str]
    flink_type: str
    api_type: Optional[str]


def _entries() -> list:
    entries = []
    for line in open(LIST, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        name, sql, api, *types = line.rstrip("\n").split(" ; ")
        entries.append(Entry(name, None if sql == "-" else sql, None if api == "-" else api, types[0],
                             types[1] if len(types) > 1 else None))
    return entries


ENTRIES = _entries()

#: Kindling's type where it differs from Flink's: Flink types these Table API calls otherwise than the SQL
#: ones (Kindling gives the SQL type to both), UNIX_TIMESTAMP() aside
TYPE_DIFFERENCES = {"ASCII": "INT", "CHR": "STRING", "PARSE_URL": "STRING", "UNIX_TIMESTAMP now": "BIGINT NOT NULL"}
#: what a refusal says where it cannot say the name (a bitmap function's argument is a refused bitmap)
SAID = {"composite.*": r"\*", "LIKE ESCAPE": "ESCAPE", "OBJECT_UPDATE": "OBJECT_OF", **{name: "BITMAP_" for name in REFUSED if name.startswith("BITMAP_")}}


def _edge_table(t_env):
    row_type = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(EDGE_NAMES, EDGE_TYPES)])
    table = t_env.from_elements(EDGE_ROWS, row_type)
    t_env.create_temporary_view("e", table)
    return table


@pytest.fixture(scope="module")
def edge():
    return _edge_table(quiet_t_env("batch", 1))


def _names() -> dict:
    names = {n: getattr(expressions, n) for n in dir(expressions) if not n.startswith("_")}
    names.update(DataTypes=DataTypes, JsonOnNull=JsonOnNull, JsonType=JsonType, TimeIntervalUnit=TimeIntervalUnit,
                 TimePointUnit=TimePointUnit, **{n: expressions.col(n) for n in EDGE_NAMES})
    return names


def _query(sql: str) -> str:
    return sql if sql.startswith("SELECT ") else f"SELECT {sql} FROM e"


def _first_type(table) -> str:
    """The first column's type as print_schema writes it (Flink's notation)."""
    return str(table.get_schema()).splitlines()[1].split(": ", 1)[1]


def test_the_list_names_each_function_once():
    names = [e.name for e in ENTRIES]
    assert sorted({n for n in names if names.count(n) > 1}) == []
    assert not set(REFUSED) - set(names), "REFUSED names a function the list does not hold"
    assert all(e.sql or e.api for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_kindling_gives_the_function_with_flinks_type_or_refuses_it_by_name(entry, edge):
    t_env = edge._t_env
    if entry.name in REFUSED:
        if entry.sql:
            with pytest.raises(Exception) as refused:
                t_env.sql_query(_query(entry.sql))
            assert re.search(_named(entry.name), str(refused.value), re.IGNORECASE), str(refused.value)
        return
    if entry.sql:
        typed = _first_type(t_env.sql_query(_query(entry.sql)))
        assert TYPE_DIFFERENCES.get(entry.name, entry.flink_type) == typed
    if entry.api:
        typed = _first_type(edge.select(eval(entry.api, _names())))  # noqa: S307 -- the list's own calls
        assert TYPE_DIFFERENCES.get(entry.name, entry.api_type or entry.flink_type) == typed


def _named(name: str) -> str:
    """What a refusal of the function ``name`` must say: its name (its SQL keyword)."""
    return SAID.get(name) or re.escape(name)


def test_given_functions_agree_as_spark_columns_and_in_python(spark):
    """One Spark query of every given scalar call (not refused, not a whole query, deterministic)."""
    calls = [expressions.call_sql(e.sql) for e in ENTRIES
             if e.sql and e.name not in REFUSED and not e.sql.startswith("SELECT ") and e.flink_type != "?"
             and not _nondeterministic(e)]
    assert disagreements(spark, calls) == []


def _nondeterministic(entry: Entry) -> bool:
    return entry.name.split()[0] in ("RAND", "RAND_INTEGER", "UUID", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_TIME",
                                     "CURRENT_DATE", "CURRENT_TIMESTAMP", "NOW", "CURRENT_ROW_TIMESTAMP") \
        or entry.name == "UNIX_TIMESTAMP now"


def test_refusals_say_why(edge):
    t_env = edge._t_env
    with pytest.raises(ValueError, match="IS_DECIMAL is a Flink built-in function Kindling does not give: not there"):
        t_env.sql_query("SELECT IS_DECIMAL(s) FROM e")
    with pytest.raises(ValueError, match=r"ARRAY_SORT\(array, ascending, nulls_first\) is not supported"):
        t_env.sql_query("SELECT ARRAY_SORT(arr, TRUE, FALSE) FROM e")
    assert _first_type(t_env.sql_query("SELECT ARRAY_SORT(arr, FALSE) FROM e")) == "ARRAY<STRING>"
