"""group_by aggregations on Spark with several partitions, on the one-step and the micro-batch paths:
each group's changelog is consistent (every -U retracts the row last emitted for it) and, applied,
gives the totals. tests/conformance/programs/table_group_by*.py compare the printed output with
PyFlink's line for line at parallelism 1."""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from kindling.common import Configuration, Types
from kindling.common.types import RowKind
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col, lit

N = 2000
KEYS = 7


def _events(env):
    """(n, k) rows from two source splits, k = n % 7."""
    numbers = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers")
    return numbers.map(lambda n: (n, f"k{n % KEYS}"),
                       output_type=Types.ROW_NAMED(['n', 'k'], [Types.LONG(), Types.STRING()]))


def _apply(changes) -> dict:
    """The rows per group key a changelog leaves, checking each retraction matches."""
    rows: dict = {}
    for change in changes:
        key, kind = change[0], change.get_row_kind()
        if kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE):
            assert rows.pop(key) == tuple(change), f"{change} retracts a row never emitted"
        else:
            assert key not in rows, f"{change} adds a second row for {key}"
            rows[key] = tuple(change)
    return rows


def _expected():
    sums, counts = defaultdict(int), Counter()
    for n in range(1, N + 1):
        sums[f"k{n % KEYS}"] += n
        counts[f"k{n % KEYS}"] += 1
    return {k: (k, sums[k], counts[k], sums[k] // counts[k]) for k in sums}


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_streaming_aggregation_over_two_partitions_applies_to_the_totals(env, one_step):
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step))
    t_env = StreamTableEnvironment.create(env)
    totals = t_env.from_data_stream(_events(env)).group_by(col('k')) \
        .select(col('k'), col('n').sum.alias('total'), lit(1).count.alias('n'), col('n').avg.alias('mean'))
    with totals.execute().collect() as changes:
        changes = list(changes)
    assert {c.get_row_kind() for c in changes} >= {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER}
    assert _apply(changes) == _expected()


def test_an_aggregation_of_an_aggregation_retracts_and_deletes(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    per_key = t_env.from_data_stream(_events(env)).group_by(col('k')).select(col('k'), lit(1).count.alias('c'))
    histogram = per_key.group_by(col('c')).select(col('c'), col('k').count.alias('keys'), col('k').max.alias('top'))
    rows = _apply(t_env.to_changelog_stream(histogram).execute_and_collect())
    final = Counter(_expected()[k][2] for k in _expected())
    assert {c: keys for c, keys, _ in rows.values()} == dict(final)
    assert {c: top for c, _, top in rows.values()} == {c: max(k for k, v in _expected().items() if v[2] == c)
                                                        for c in final}


def test_retract_stream_pairs_and_final_rows(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    totals = t_env.from_data_stream(_events(env)).group_by(col('k')).select(col('k'), col('n').sum.alias('s'))
    pairs = list(t_env.to_retract_stream(totals, Types.ROW([Types.STRING(), Types.LONG()])).execute_and_collect())
    adds = [tuple(r) for is_add, r in pairs if is_add]
    retracts = [tuple(r) for is_add, r in pairs if not is_add]
    assert len(adds) - len(retracts) == KEYS and set(retracts) <= set(adds)
    assert sorted(map(tuple, totals.to_pandas().values.tolist())) == sorted((k, v[1]) for k, v in _expected().items())


def test_batch_aggregation_emits_final_rows_only(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = StreamTableEnvironment.create(env)
    totals = t_env.from_data_stream(_events(env)).group_by(col('k')) \
        .select(col('k'), col('n').sum, lit(1).count, col('n').avg)
    rows = list(totals.execute().collect())
    assert {r.get_row_kind() for r in rows} == {RowKind.INSERT}
    assert sorted(map(tuple, rows)) == sorted(_expected().values())



def test_a_batch_global_aggregate_of_no_rows_gives_one_row_as_flink(env):
    """PyFlink 2.3 in BATCH: ``SELECT COUNT(*), SUM(n) FROM t WHERE n > 10`` over rows none of which
    pass gives (0, NULL); a grouped aggregate gives no row; in STREAMING nothing comes either."""
    from kindling.datastream import RuntimeExecutionMode

    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view('t', t_env.from_data_stream(_events(env)))
    rows = [tuple(r) for r in t_env.execute_sql("SELECT COUNT(*), SUM(n) FROM t WHERE n > 100000").collect()]
    assert rows == [(0, None)]
    assert list(t_env.execute_sql("SELECT k, COUNT(*) FROM t WHERE n > 100000 GROUP BY k").collect()) == []


def test_a_batch_global_aggregate_of_no_rows_on_the_python_operator_gives_one_row_as_flink(env):
    """The same with a Python function in the aggregate's argument (the Python operator aggregates): PyFlink
    2.3 gives (0, NULL) too, and the aggregates of the rows when some pass."""
    from kindling.datastream import RuntimeExecutionMode
    from kindling.table import DataTypes
    from kindling.table.udf import udf

    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_function('add_one', udf(lambda v: v + 1, result_type=DataTypes.BIGINT()))
    t_env.create_temporary_view('t', t_env.from_data_stream(_events(env)))
    query = "SELECT COUNT(*), SUM(add_one(n)) FROM t WHERE n > {}"
    assert [tuple(r) for r in t_env.execute_sql(query.format(100000)).collect()] == [(0, None)]
    assert [tuple(r) for r in t_env.execute_sql(query.format(-1)).collect()] == [(N, N * (N + 1) // 2 + N)]

def test_updating_tables_fail_clearly_where_rows_must_be_appends(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    table = t_env.from_data_stream(_events(env))
    totals = table.group_by(col('k')).select(col('k'), col('n').sum)
    with pytest.raises(ValueError, match="to_append_stream: the table is updating"):
        t_env.to_append_stream(totals, Types.ROW([Types.STRING(), Types.LONG()]))
    with pytest.raises(ValueError, match=r"reads \['n'\], which are not grouped"):
        table.group_by(col('k')).select(col('k'), col('n'))
    with pytest.raises(ValueError, match="where/filter cannot hold an aggregate"):
        table.where(col('n').sum > 3)
    with pytest.raises(ValueError, match="Expression 'n' is not being grouped"):  # a key expression is not its column
        table.group_by((col('n') + 1).alias('m')).select(col('n'))
    with pytest.raises(ValueError, match="holds an aggregate"):
        table.group_by(col('n').sum.alias('s'))
    with pytest.raises(ValueError, match="Column 'nope' not found"):
        table.group_by(col('nope'))
