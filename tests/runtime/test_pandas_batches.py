"""Pandas scalar functions on batches of rows, without Spark: a Table projection or filter calling
them takes its rows in batches of ``batch_size`` (PyFlink's ``python.fn-execution.arrow.batch.size``)
through a chain, whose elements keep their own time facts; each function gets its operands' Series
(of Flink's dtypes) once per batch; a result of the wrong length or type fails naming the function
and the fix. tests/conformance/programs/table_pandas_udf_batch.py compares the results with PyFlink's."""
from __future__ import annotations

import itertools
import re

import pytest

from kindling.common import Row
from kindling.runtime import lifecycle
from kindling.runtime.chain import ChainNode, Record, build_chain, build_list_chain
from kindling.runtime.errors import user_error_of
from kindling.runtime.table.evaluate import compile_expression
from kindling.runtime.table.rows import Condition, Project
from kindling.runtime.task_info import TaskInfo
from kindling.table import DataTypes
from kindling.table.expressions import col, lit
from kindling.table.planner.expressions import resolve
from kindling.table.udf import udf

NAMES, TYPES = ['id', 'v'], [DataTypes.BIGINT(), DataTypes.DOUBLE()]
size = udf(lambda s: s.map(lambda _: len(s)), result_type=DataTypes.BIGINT(), func_type='pandas')
centered = udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas')
plus = udf(lambda s, n: s + n, result_type=DataTypes.BIGINT(), func_type='pandas')
_jobs = itertools.count()


def _project(*expressions, batch_size=3) -> Project:
    return Project([f"f{i}" for i in range(len(expressions))], [resolve(e, NAMES, TYPES) for e in expressions],
                   batch_size)


def _rows(n: int) -> list:
    return [Row(i, float(i)) for i in range(n)]


class Chain:
    """One task's chain of a single map or filter node; ``out`` holds (value, timestamp, stamp)."""

    def __init__(self, operation: str, function):
        self.job = f"pandas-batches-{next(_jobs)}"
        self.record, self.out = Record(), []
        self.node = ChainNode(uid=f"{self.job}/1", name="Calc", operation=operation, function=function, exits=[0])

    def one_by_one(self):
        record = self.record
        return build_chain(self.node, {0: lambda v: self.out.append((v, record.timestamp, record.watermark))},
                           record, TaskInfo("Calc"), {})

    def lists(self):
        return build_list_chain(self.node, {}, {0: lambda vs: self.out.extend((v, None, None) for v in vs)},
                                self.record, TaskInfo("Calc"), {})

    def close(self):
        lifecycle.close_job(self.job)


def test_a_projection_calls_a_pandas_function_once_per_batch_and_elements_keep_their_time():
    chain = Chain("map", _project(col('id'), size(col('id')), centered(col('v'))))
    push = chain.one_by_one()
    for row in _rows(7):
        chain.record.timestamp, chain.record.watermark = 1000 + row[0], 500 + row[0]
        push(row)
    assert [v[0] for v, _, _ in chain.out] == [0, 1, 2, 3, 4, 5]  # two full batches; the last waits
    chain.record.finish(False)  # an input batch ended: the Arrow batch goes on filling
    assert len(chain.out) == 6
    chain.record.finish(True)  # the task's input ended: so does the batch
    chain.close()
    assert [tuple(v) for v, _, _ in chain.out] == [(0, 3, -1.0), (1, 3, 0.0), (2, 3, 1.0), (3, 3, -1.0),
                                                   (4, 3, 0.0), (5, 3, 1.0), (6, 1, 0.0)]
    assert [(t, w) for _, t, w in chain.out] == [(1000 + i, 500 + i) for i in range(7)]


def test_lists_of_rows_are_cut_into_batches_and_a_filter_takes_them_too():
    chain = Chain("map", _project(size(col('id')), plus(size(col('id')), lit(10)), batch_size=4))
    push_list = chain.lists()
    push_list(_rows(3))
    push_list(_rows(6))
    chain.record.finish(True)
    chain.close()
    assert [tuple(v) for v, _, _ in chain.out] == [(4, 14)] * 8 + [(1, 11)]

    above_mean = Condition(resolve(centered(col('v')) > 0, NAMES, TYPES), batch_size=5)
    chain = Chain("filter", above_mean)
    push = chain.one_by_one()
    for row in _rows(7):
        push(row)
    chain.record.finish(True)
    chain.close()
    assert [v[0] for v, _, _ in chain.out] == [3, 4, 6]  # above 2.0 of 0..4, above 5.5 of 5..6


def test_a_batch_of_one_row_outside_a_chain_and_series_of_flinks_dtypes():
    dtypes = udf(lambda i, v: i.map(lambda _: f"{i.dtype}/{v.dtype}"), result_type=DataTypes.STRING(),
                 func_type='pandas')
    project = _project(dtypes(col('id'), col('v')), centered(col('v')))
    assert tuple(project(Row(1, 2.0))) == ('int64/float64', 0.0)
    assert [tuple(r) for r in project.map_batch([Row(None, None), Row(2, 4.0)])] == [('float64/float64', None),
                                                                                    ('float64/float64', 0.0)]
    # never called row by row: the planner moves calls elsewhere (an aggregate's argument) into a projection
    with pytest.raises(ValueError, match="internal error: a call of the pandas function <lambda> "
                                         r"\(UdfCall\) outside a projection or a filter"):
        compile_expression(resolve(plus(col('id'), lit(1)) * 2, NAMES, TYPES))
    whole = udf(lambda s: s * 2.0, result_type=DataTypes.BIGINT(), func_type='pandas')
    assert [r[0] for r in _project(whole(col('v'))).map_batch(_rows(3))] == [0, 2, 4]  # whole floats: integers


@pytest.mark.parametrize("returned, error", [
    (lambda s: s.mean(), "must be pandas.Series or pandas.DataFrame, got float.*one value per group is an "
                         "aggregate: udaf"),
    (lambda s: s[s > 0], "result length '2' of the pandas UDF 'dropping' is not equal to the input length '3'.*"
                         "return a Series of one value per row"),
    (lambda s: s / 2, "pandas UDF 'dropping' returned fractional values .* for its result type BIGINT: round them"),
])
def test_a_result_of_the_wrong_type_or_length_fails_naming_the_function_and_the_fix(returned, error):
    wrong = udf(returned, result_type=DataTypes.BIGINT(), func_type='pandas', name='dropping')
    chain = Chain("map", _project(wrong(col('id'))))
    push = chain.one_by_one()
    with pytest.raises(RuntimeError) as failure:
        for row in _rows(3):
            push(row)
    chain.close()
    assert re.search(error, str(user_error_of(failure.value).cause))
