"""The planner's rewrites (kindling/table/planner/rules.py): filters move below projections and into
the join side whose columns they read, where that keeps the rows; a projection that only picks
columns merges with the one below it; ``WHERE TRUE`` goes. Plans are checked without running a job
(explain shows the rewritten plan); one join runs on Spark to show the rows stay the same."""
from __future__ import annotations

import pytest

from kindling.common import Configuration, Types
from kindling.datastream import StreamExecutionEnvironment
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expressions import col, lit, rand
from kindling.table.planner import nodes
from kindling.table.planner.rules import optimize
from kindling.table.table import _final_rows
from kindling.table.udf import udf


@udf(result_type=DataTypes.STRING())
def shout(text):
    return text.upper()


@pytest.fixture
def t_env():
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    return StreamTableEnvironment.create(StreamExecutionEnvironment.get_execution_environment(conf))


def _orders(t_env):
    return t_env.from_elements([(1, "a", 10), (2, "b", 20)], ["id", "u", "amount"])


def _users(t_env):
    return t_env.from_elements([(1, "ann"), (3, "cid")], ["uid", "name"])


def _shape(node) -> str:
    """The plan's node kinds, outermost first, inputs in parentheses."""
    inputs = ", ".join(_shape(i) for i in node.inputs)
    return type(node).__name__ + (f"({inputs})" if inputs else "")


def _optimized(table):
    return optimize([table._node], "default_database")[0]


def test_a_filter_moves_below_a_projection_that_passes_its_columns(t_env):
    table = _orders(t_env).select(shout(col('u')).alias('s'), col('amount')).where(col('amount') > 15)
    assert _shape(_optimized(table)) == "Project(Filter(Values))"
    lines = table.explain().splitlines()
    assert lines[1].startswith("Calc(select=[shout(u) AS s, amount]) [Python")
    assert lines[2].startswith("+- Calc(where=[(amount > 15)]) [Spark JVM")  # before the Python pass, in the JVM


def test_a_filter_on_a_computed_column_stays_above_the_projection(t_env):
    table = _orders(t_env).select(shout(col('u')).alias('s'), (col('amount') + 1).alias('amount')) \
        .where(col('amount') > 15)
    assert _shape(_optimized(table)) == "Filter(Project(Values))"


def test_join_conditions_move_to_their_side_where_no_side_is_padded(t_env):
    orders, users = _orders(t_env), _users(t_env)
    inner = orders.join(users, col('id') == col('uid')).where((col('amount') > 5) & (col('name') != 'x'))
    assert _shape(_optimized(inner)) == "Join(Filter(Values), Filter(Values))"
    left = orders.left_outer_join(users, col('id') == col('uid')).where((col('amount') > 5) & (col('name') != 'x'))
    assert _shape(_optimized(left)) == "Filter(Join(Filter(Values), Values))"  # the padded side's condition stays
    full = orders.full_outer_join(users, col('id') == col('uid')).where(col('amount') > 5)
    assert _shape(_optimized(full)) == "Filter(Join(Values, Values))"


def test_conditions_that_may_differ_per_joined_row_stay_above_the_join(t_env):
    orders, users = _orders(t_env), _users(t_env)
    joined = orders.join(users, col('id') == col('uid'))
    assert _shape(_optimized(joined.where(shout(col('name')) == 'ANN'))) == "Filter(Join(Values, Values))"
    assert _shape(_optimized(joined.where(col('amount') > rand() * 20))) == "Filter(Join(Values, Values))"
    deterministic = joined.where(col('name').upper_case.char_length == 3)
    assert _shape(_optimized(deterministic)) == "Join(Values, Filter(Values))"


def test_a_projection_of_columns_merges_with_the_one_below(t_env):
    table = _orders(t_env).select(shout(col('u')).alias('s'), col('amount')).select(col('s').alias('loud'))
    optimized = _optimized(table)
    assert _shape(optimized) == "Project(Values)"
    assert list(optimized.names) == ["loud"] and table.get_schema().get_field_names() == ["loud"]


def test_a_condition_that_is_always_true_goes(t_env):
    for condition in (lit(True), lit(1) == 1, (lit(2) > 1) & (lit('a').upper_case == 'A')):
        assert isinstance(_optimized(_orders(t_env).where(condition)), nodes.Values), condition
    for condition in (lit(1) == 2, rand() < 2, lit(1) / 0 == 1):  # false, not deterministic, failing
        assert isinstance(_optimized(_orders(t_env).where(condition)), nodes.Filter), condition


def test_a_join_gives_the_same_rows_with_its_conditions_moved(env):
    t_env = StreamTableEnvironment.create(env)
    orders = t_env.from_elements([(n, f"u{n % 3}", n * 10) for n in range(12)], ["id", "u", "amount"])
    users = t_env.from_elements([(n, f"name{n}") for n in range(0, 12, 2)], ["uid", "name"])
    table = orders.left_outer_join(users, col('id') == col('uid')) \
        .where((col('amount') > 30) & (col('name').is_null | (col('name') != 'name6')))
    assert _shape(_optimized(table)) == "Filter(Join(Filter(Values), Values))"
    with table.execute().collect() as rows:
        final = sorted(map(tuple, _final_rows(rows)))
    expected = [(n, f"u{n % 3}", n * 10, n if n % 2 == 0 else None, f"name{n}" if n % 2 == 0 else None)
                for n in range(4, 12) if n != 6]
    assert final == expected


def test_a_view_of_a_ranking_query_is_bounded_by_the_query_reading_it(t_env):
    t_env.create_temporary_view("orders", _orders(t_env))
    t_env.create_temporary_view("ranked", t_env.sql_query(
        "SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY amount DESC) AS rn FROM orders"))
    top = t_env.sql_query("SELECT u, amount FROM ranked WHERE rn <= 2")._node
    rank = top.input if isinstance(top, nodes.Project) else top
    assert isinstance(rank, nodes.Rank) and (rank.start, rank.end, rank.with_number) == (1, 2, False)
    assert "Rank(strategy=[AppendFastStrategy]), rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2]" in \
        t_env.sql_query("SELECT * FROM ranked WHERE rn <= 2").explain()


def test_a_micro_batch_group_by_with_remote_checkpoints_runs_in_python(env):
    """The Spark group aggregation keeps its state in SQLite under the checkpoint directory, which must
    be local: with an hdfs:// one the planner chooses Kindling's Python operator and explain says why."""
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("execution.checkpointing.dir", "hdfs://namenode:8020/checkpoints"))
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view("t", t_env.from_elements([(1, "a")], ["n", "k"]))
    plan = t_env.sql_query("SELECT k, COUNT(*) FROM t GROUP BY k").explain()
    assert "outside the local file system" in plan, plan


def test_an_aggregation_grouped_by_a_unique_key_becomes_a_projection(t_env):
    from kindling.table import Schema

    keyed = t_env.from_data_stream(
        t_env._env.from_collection([("a", 1)], type_info=Types.ROW_NAMED(["k", "v"], [Types.STRING(), Types.INT()])),
        Schema.new_builder().column("k", DataTypes.STRING().not_null()).column("v", DataTypes.INT())
        .primary_key("k").build())
    summed = keyed.group_by(col('k')).select(col('k'), (col('v').sum * 2).alias('s'), col('v').min.alias('m'))
    assert _shape(_optimized(summed)) == "Project(" + _shape(keyed._node) + ")"
    assert not _optimized(summed).out.updating  # an insert-only input stays insert-only, as in Flink
    counted = keyed.group_by(col('k')).select(col('k'), col('v').count.alias('n'))
    assert isinstance(_optimized(counted), nodes.Aggregate)  # COUNT is not a row's value
    plain = _orders(t_env).group_by(col('u')).select(col('u'), col('amount').sum.alias('s'))
    assert isinstance(_optimized(plain), nodes.Aggregate)  # no unique key
    twice = plain.group_by(col('u')).select(col('u'), col('s').max.alias('m'))
    assert _shape(_optimized(twice)) == "Project(Aggregate(Values))"  # an aggregation's keys are unique
