"""GROUPING SETS, ROLLUP and CUBE (kindling/table/grouping_sets.py): the grouping sets in Flink's order,
GROUPING/GROUPING_ID values, the Expand on the Python operator (RowKinds kept) and end to end over two
splits, on Spark (bounded) and on the Python operators, in a window TVF aggregation, and the refusals.
tests/conformance/programs/table_grouping_sets*.py and table_window_grouping_sets.py compare the printed
changelogs with PyFlink's line for line."""
from __future__ import annotations

from collections import Counter, defaultdict
from itertools import product

import pytest

from event_views import event_view

from kindling.common import Configuration, Types
from kindling.common.types import Row, RowKind
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.table import StreamTableEnvironment
from kindling.table.ddl import parse_sql
from kindling.table.grouping_sets import grouping_sets, grouping_values

N = 600


def _sets(group_by: str):
    group = parse_sql(f"SELECT 1 FROM t GROUP BY {group_by}").args["group"]
    return grouping_sets(group, lambda column: column.name)


@pytest.mark.parametrize("group_by, keys, sets", [
    ("ROLLUP (a, b)", ["a", "b"], [("a", "b"), ("a",), ()]),
    ("CUBE (a, b)", ["a", "b"], [("a", "b"), ("a",), ("b",), ()]),
    ("CUBE ((a, b))", ["a", "b"], [("a", "b"), ()]),
    ("a, ROLLUP (b, c)", ["a", "b", "c"], [("a", "b", "c"), ("a", "b"), ("a",)]),
    ("GROUPING SETS ((b), (), (a, b))", ["b", "a"], [("b", "a"), ("b",), ()]),  # a set before those it holds
    ("GROUPING SETS (a, b)", ["a", "b"], [("a",), ("b",)]),
    ("GROUPING SETS (ROLLUP (a), b)", ["a", "b"], [("a",), ("b",), ()]),
    ("()", [], [()]),
])
def test_grouping_sets_come_in_flinks_order(group_by, keys, sets):
    assert _sets(group_by) == (keys, sets)


def test_plain_group_by_has_no_grouping_sets():
    assert _sets("a, b") is None


def test_grouping_id_sets_a_bit_per_argument_left_out_the_first_highest():
    keys, sets = _sets("ROLLUP (a, b)")
    tree = parse_sql("SELECT GROUPING_ID(b, a), GROUPING(a), GROUP_ID() FROM t")
    values = [grouping_values(call, lambda column: column.name, keys, sets) for call in tree.expressions]
    assert values == [[0, 2, 3], [0, 0, 1], [0, 0, 0]]


def test_expand_makes_a_row_per_set_keeping_its_row_kind_and_the_originals():
    from kindling.runtime.table.rows import Expand

    expand = Expand(["k", "v", "$original_k", "$e"], [[], [0]], [0], [0, 1])
    row = Row("x", 5)
    row.set_row_kind(RowKind.UPDATE_BEFORE)
    out = list(expand(row))
    assert [list(r) for r in out] == [["x", 5, "x", 0], [None, 5, "x", 1]]
    assert {r.get_row_kind() for r in out} == {RowKind.UPDATE_BEFORE}


def _numbers(env, spark: bool):
    """``t``: rows (n, k = n % 3, c = n % 2), elements (Spark's local relation in a bounded job) or, off
    Spark, from two splits."""
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    if spark:
        rows = t_env.from_elements([(n, n % 3, n % 2) for n in range(1, N + 1)], ['n', 'k', 'c'])
    else:
        env.configure(Configuration().set_string("kindling.table.spark-operators", "false")
                      .set_string("kindling.table.spark-aggregation", "false"))
        numbers = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers")
        rows = t_env.from_data_stream(numbers.map(lambda n: (n, n % 3, n % 2), output_type=Types.ROW_NAMED(
            ['n', 'k', 'c'], [Types.LONG()] * 3)))
    t_env.create_temporary_view("t", rows)
    return t_env


def _final_rows(changes) -> Counter:
    rows: Counter = Counter()
    for change in changes:
        retract = change.get_row_kind() in (RowKind.UPDATE_BEFORE, RowKind.DELETE)
        rows[tuple(change)] += -1 if retract else 1
        assert rows[tuple(change)] >= 0, f"{change} retracts a row never emitted"
    return +rows


@pytest.mark.parametrize("spark", [True, False])
def test_cube_over_two_splits_gives_every_sets_totals(any_env, spark):
    t_env = _numbers(any_env, spark)
    cube = t_env.sql_query("SELECT k, c, SUM(n) AS total, COUNT(c) AS n, GROUPING_ID(k, c) AS g FROM t "
                           "GROUP BY CUBE (k, c)")
    engine = "Spark JVM" if spark else "Python"
    assert f"Expand(groupingSets=[{{k, c}}, {{k}}, {{c}}, {{}}], expandId=[$e]) [{engine}" in cube.explain()
    with cube.execute().collect() as changes:
        rows = _final_rows(list(changes))
    totals = defaultdict(lambda: [0, 0])
    for n, (keep_k, keep_c) in product(range(1, N + 1), product((True, False), repeat=2)):
        key = (n % 3 if keep_k else None, n % 2 if keep_c else None, 2 * (not keep_k) + (not keep_c))
        totals[key][0] += n
        totals[key][1] += 1  # COUNT(c) counts the key's own values, also where the set leaves c out
    assert rows == Counter({(k, c, total, count, g): 1 for (k, c, g), (total, count) in totals.items()})


def test_window_aggregation_with_rollup_over_splits_at_different_speeds(any_env):
    any_env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(any_env)
    event_view(any_env, t_env, "clicks", N, lambda n: (n * 10, n % 3, n))  # split 1 is 3 s ahead from the start
    rolled = t_env.sql_query(
        "SELECT window_start, k, SUM(v) AS total, GROUPING(k) AS g FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), "
        "INTERVAL '1' SECOND)) GROUP BY window_start, window_end, ROLLUP (k)")
    with rolled.execute().collect() as rows:
        got = Counter((r[0].second, r[1], r[2], r[3]) for r in rows)
    expected = defaultdict(int)
    for n in range(N):
        expected[(n * 10 // 1000, n % 3, 0)] += n
        expected[(n * 10 // 1000, None, 1)] += n
    assert got == Counter({(s, k, total, g): 1 for (s, k, g), total in expected.items()})


@pytest.mark.parametrize("query, message", [
    ("SELECT k, COUNT(*) FROM t GROUP BY GROUPING SETS ((k), (k))", "a grouping set twice"),
    ("SELECT k, COUNT(*) FROM t GROUP BY GROUPING SETS ((k, (c, n)))", "nested in a grouping set"),
    ("SELECT GROUPING(n), COUNT(*) FROM t GROUP BY ROLLUP (k)", "n is not a grouping key"),
])
def test_what_kindling_does_not_translate_is_refused_by_name(env, query, message):
    t_env = _numbers(env, True)
    with pytest.raises(ValueError, match=message):
        t_env.sql_query(query)


def test_a_window_aggregation_groups_every_set_by_the_window(env):
    t_env = StreamTableEnvironment.create(env)
    event_view(env, t_env, "clicks", 10, lambda n: (n, n % 3, n))
    with pytest.raises(ValueError, match="groups every set by window_start and window_end"):
        t_env.sql_query("SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
                        "GROUP BY GROUPING SETS ((window_start, window_end, k), (k))")


def test_one_grouping_set_is_a_plain_aggregation_with_grouping_zero(env):
    t_env = _numbers(env, True)
    query = t_env.sql_query("SELECT k, GROUPING(k), GROUP_ID(), COUNT(*) FROM t GROUP BY GROUPING SETS ((k))")
    assert "Expand" not in query.explain()
    with query.execute().collect() as changes:
        assert _final_rows(list(changes)) == Counter({(k, 0, 0, N // 3): 1 for k in range(3)})
