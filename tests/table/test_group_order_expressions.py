"""GROUP BY and ORDER BY of expressions (kindling/table/sql.py ``_group_expressions``,
``_order_columns``; kindling/table/table.py ``_with_key_columns``, ``_sorted``): the expressions
computed as columns of a projection below the aggregation or sort, end to end over two splits in both
modes, and Flink's errors. tests/conformance/programs/table_group_by_expressions.py and
table_order_by_expressions.py compare the printed results with PyFlink's line for line."""
from __future__ import annotations

from collections import Counter

import pytest

from event_views import event_view

from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expressions import col, lit
from kindling.table.udf import udaf, udf

N = 300


def _final(table) -> Counter:
    return Counter(tuple(r) for r in table.to_pandas().itertuples(index=False))


def _events(env, count: int = N):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    event_view(env, t_env, "t", count, lambda n: (n * 10, n, n))
    return t_env


def test_sql_groups_by_expressions_read_again_in_select_having_and_order(any_env):
    t_env = _events(any_env)
    got = _final(t_env.sql_query("SELECT k % 3 * 10 AS m, (k % 3) + 1, SUM(v) AS s FROM t GROUP BY k % 3 "
                                 "HAVING k % 3 <> 1"))
    expected = Counter((r * 10, r + 1, sum(n for n in range(N) if n % 3 == r)) for r in (0, 2))
    assert got == expected


def test_table_api_groups_by_an_aliased_expression_in_a_group_window(any_env):
    from kindling.table.window import Tumble

    t_env = _events(any_env)
    table = t_env.from_path("t")
    got = _final(table.window(Tumble.over(lit(1).seconds).on(col('ts')).alias('w'))
                 .group_by(col('w'), (col('k') % 2).alias('odd'))
                 .select(col('odd'), col('v').count.alias('n')))
    expected = Counter()
    for second in range(N * 10 // 1000):
        for odd in (0, 1):
            expected[(odd, sum(1 for n in range(second * 100, second * 100 + 100) if n % 2 == odd))] += 1
    assert got == expected


def test_order_by_expressions_in_batch_and_after_the_time_in_streaming(any_env):
    t_env = _events(any_env, 20)
    batch = any_env.get_runtime_mode().name == "BATCH"
    if batch:
        rows = [tuple(r) for r in t_env.execute_sql("SELECT k FROM t ORDER BY k % 7 DESC, k LIMIT 4").collect()]
        assert rows == [(6,), (13,), (5,), (12,)]
    rows = [tuple(r) for r in t_env.from_path("t").order_by(col('ts'), (col('k') % 2).desc).select(col('k'))
            .execute().collect()]
    assert sorted(rows) == [(n,) for n in range(20)] and (batch or rows == [(n,) for n in range(20)])


def test_a_stream_sorted_on_expressions_keeps_its_keys_for_fetch(env):
    t_env = _events(env, 20)
    sorted_table = t_env.from_path("t").order_by(col('ts'), (col('k') % 2).desc)
    base, keys, offset, fetch = sorted_table.fetch(3)._sort()
    assert [str(k) for k in keys] == ['ts', '(k % 2) DESC'] and fetch == 3
    assert base.get_schema().get_field_names() == ['ts', 'k', 'v']


@pytest.mark.parametrize("query, message", [
    ("SELECT k, COUNT(*) FROM t GROUP BY k % 2", "Expression 'k' is not being grouped"),
    ("SELECT k % 2, COUNT(*) FROM t GROUP BY k % 2 HAVING v > 1", "Expression 'v' is not being grouped"),
    ("SELECT k % 2 AS m, COUNT(*) FROM t GROUP BY k % 2 ORDER BY v", "Expression 'v' is not being grouped"),
    ("SELECT COUNT(*) FROM t GROUP BY SUM(v)", "Aggregate expression is illegal in GROUP BY clause"),
    ("SELECT DISTINCT k FROM t ORDER BY v", "Expression 'v' is not in the select clause"),
    ("SELECT DISTINCT k FROM t ORDER BY v % 2", "Expression 'v' is not in the select clause"),
    ("SELECT k, v FROM t ORDER BY 3", "Ordinal out of range"),
    ("SELECT k FROM t ORDER BY v % 2", "Sort on a non-time-attribute field is not supported"),
    ("SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
     "GROUP BY window_start, window_end, EXTRACT(SECOND FROM window_start)", "grouping by an expression of the window"),
])
def test_flinks_errors(env, query, message):
    t_env = _events(env)
    with pytest.raises(ValueError, match=message):
        t_env.sql_query(query).execute()


def test_table_api_refusals(env):
    t_env = _events(env)
    table = t_env.from_path("t")
    with pytest.raises(ValueError, match="Expression 'k' is not being grouped"):
        table.group_by(col('k') % 2).select(col('k') % 2, col('v').sum)  # as in Flink: only an alias reads a key
    with pytest.raises(ValueError, match="named as the table's column 'k'"):
        table.group_by((col('k') % 2).alias('k'))
    total = udaf(lambda values: int(values.sum()), result_type=DataTypes.BIGINT(), func_type='pandas')
    with pytest.raises(ValueError, match="aggregate with the key expressions"):
        table.group_by((col('k') % 2).alias('m')).aggregate(total(col('v')).alias('s'))
    with pytest.raises(ValueError, match="Sort on a non-time-attribute field is not supported"):
        table.order_by(col('k') % 2).execute()
    plus_one = udf(lambda x: x + 1, result_type=DataTypes.BIGINT())
    grouped = table.group_by(plus_one(col('k') % 2).alias('p')).select(col('p'), col('v').count.alias('n'))
    assert grouped.get_schema().get_field_names() == ['p', 'n']


def test_grouping_of_a_key_expression_in_a_rollup(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = _events(env, 10)
    rows = t_env.execute_sql("SELECT k % 2 AS m, GROUPING(k % 2) AS g, SUM(v) AS s FROM t GROUP BY ROLLUP (k % 2) "
                             "ORDER BY g, 1").collect()
    assert [tuple(r) for r in rows] == [(0, 0, 20), (1, 0, 25), (None, 1, 45)]
