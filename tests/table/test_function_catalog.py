"""User functions are registered per TableEnvironment (as in PyFlink 2.3): each environment's Table API
and SQL call its own function of a name, resolved when a Table of that environment takes the call."""
from __future__ import annotations

import pytest

from kindling.table import DataTypes
from kindling.table.expressions import call, col
from kindling.table.udf import udf, udtf
from table_support import quiet_t_env

PLUS_ONE = udf(lambda x: x + 1, result_type=DataTypes.BIGINT())
TIMES_TEN = udf(lambda x: x * 10, result_type=DataTypes.BIGINT())


def _values(table) -> list:
    with table.execute().collect() as rows:
        return sorted(tuple(r) for r in rows)


def test_two_environments_call_their_own_function_of_a_name_on_spark():
    early = call('f', col('x'))  # built before either environment registers f
    a, b = quiet_t_env("batch"), quiet_t_env("batch")
    a.create_temporary_function('f', PLUS_ONE)
    b.create_temporary_system_function('f', TIMES_TEN)
    a.create_temporary_function('pair', udtf(lambda x: [(x, -x)], result_types=[DataTypes.BIGINT()] * 2))
    assert a.list_user_defined_functions() == ['f', 'pair']
    assert b.list_user_defined_functions() == ['f']
    ta, tb = a.from_elements([(1,), (2,)], ['x']), b.from_elements([(1,), (2,)], ['x'])
    a.create_temporary_view('t', ta)
    b.create_temporary_view('t', tb)
    assert _values(ta.select(call('f', col('x')))) == [(2,), (3,)]
    assert _values(tb.select(call('f', col('x')))) == [(10,), (20,)]
    assert _values(ta.select(early)) == [(2,), (3,)]
    assert _values(tb.where(early > 10).select(early.alias('e'))) == [(20,)]
    assert _values(a.sql_query("SELECT f(x) FROM t")) == [(2,), (3,)]
    assert _values(b.sql_query("SELECT f(x) FROM t")) == [(10,), (20,)]
    assert _values(ta.join_lateral(call('pair', col('x')).alias('p', 'q'))) == [(1, 1, -1), (2, 2, -2)]
    assert _values(tb.group_by(call('f', col('x'))).select(col('x').count)) == [(1,), (1,)]


def test_a_function_of_another_environment_is_unknown_naming_the_fix():
    a, b = quiet_t_env("batch"), quiet_t_env("batch")
    a.create_temporary_function('f', PLUS_ONE)
    b.create_temporary_view('t', b.from_elements([(1,)], ['x']))
    with pytest.raises(ValueError, match=r"No function named 'f': register it with create_temporary_function .*"
                                         r"registered: \[\] \(each TableEnvironment has its own functions"):
        b.from_path('t').select(call('f', col('x')))
    with pytest.raises(ValueError, match="No function named 'f'"):
        b.sql_query("SELECT f(x) FROM t")
    with pytest.raises(ValueError, match="No function named 'pair'"):
        b.from_path('t').join_lateral(call('pair', col('x')).alias('p', 'q'))


def test_dropping_a_function_drops_it_in_its_environment_only():
    a, b = quiet_t_env("batch"), quiet_t_env("batch")
    a.create_temporary_function('f', PLUS_ONE)
    b.create_temporary_function('f', TIMES_TEN)
    assert a.drop_temporary_function('f')
    assert not a.drop_temporary_function('f')
    assert a.list_user_defined_functions() == []
    assert b.list_user_defined_functions() == ['f']
    with pytest.raises(ValueError, match="No function named 'f'"):
        a.from_elements([(1,)], ['x']).select(call('f', col('x')))
    assert _values(b.from_elements([(1,)], ['x']).select(call('f', col('x')))) == [(10,)]


def test_an_aggregate_called_by_name_over_a_window_is_resolved_on_spark():
    from kindling.table.expressions import CURRENT_ROW, row_interval
    from kindling.table.udf import udaf
    from kindling.table.window import Over

    t_env = quiet_t_env("batch")
    t_env.create_temporary_function('total', udaf(lambda v: int(v.sum()), result_type=DataTypes.BIGINT(),
                                                  func_type='pandas'))
    t_env.create_temporary_function('f', PLUS_ONE)
    table = t_env.from_elements([(1, 1), (1, 2), (1, 3), (2, 5)], ['k', 'x'])
    w = Over.partition_by(col('k')).order_by(col('x')).preceding(row_interval(1)).following(CURRENT_ROW).alias('w')
    over = table.over_window(w).select(col('k'), col('x'), call('total', col('x')).over(col('w')))
    assert _values(over) == [(1, 1, 1), (1, 2, 3), (1, 3, 5), (2, 5, 5)]
    with pytest.raises(ValueError, match="over applies to an aggregate"):
        table.over_window(w).select(call('f', col('x')).over(col('w')))
