import pytest

from kindling.common.typeinfo import Types
from kindling.common.types import Row
from kindling.datastream.functions import ReduceFunction
from kindling.runtime.batch import run_batch
from kindling.runtime.errors import user_error_of
from kindling.runtime.keyed_functions import (
    AccumulateReduceFunction, REDUCE_STATE_NAME, ReduceProcessFunction, aggregation_function,
)
from kindling.runtime.keyed_operator import KeyedProcessOperator
from kindling.runtime.task_info import MAX_WATERMARK, TaskInfo
from kindling.testing import KeyedProcessFunctionTestHarness


def stream(fn, values, key=lambda v: v[0], **kw):
    with KeyedProcessFunctionTestHarness(fn, key, **kw) as h:
        for v in values:
            h.process_element(v)
        return h.extract_output_values()


def test_reduce_rolling_with_callable_and_function():
    data = [(1, 'a'), (2, 'a'), (3, 'a'), (4, 'b')]
    # PyFlink's KeyedStream.reduce example
    out = stream(ReduceProcessFunction(lambda a, b: (a[0] + b[0], b[1])), data, key=lambda x: x[1])
    assert out == [(1, 'a'), (3, 'a'), (6, 'a'), (4, 'b')]

    class Concat(ReduceFunction):
        def open(self, ctx):
            self.opened = True

        def reduce(self, a, b):
            return a + b
    f = Concat()
    assert stream(ReduceProcessFunction(f), ["x", "y", "xx"], key=len) == ["x", "xy", "xx"]
    assert f.opened


def test_reduce_rejects_non_callables():
    with pytest.raises(TypeError):
        ReduceProcessFunction(5)


def test_reduce_type_checks_against_stream_type():
    fn = ReduceProcessFunction(lambda a, b: str(a + b), type_info=Types.INT())
    with pytest.raises(TypeError, match=REDUCE_STATE_NAME):
        stream(fn, [1, 2], key=lambda v: 0)


def test_sum_tuples():
    # PyFlink: ds.key_by(lambda x: x[0]).sum(1)
    data = [('a', 1), ('a', 2), ('b', 1), ('b', 5)]
    assert stream(aggregation_function('sum', 1), data) == [('a', 1), ('a', 3), ('b', 1), ('b', 6)]


def test_sum_rows_by_position_and_by_name():
    rows = [Row('a', 1), Row('a', 2), Row('a', 3), Row('b', 1), Row('b', 2)]
    out = stream(aggregation_function('sum', 1), rows)
    assert out == [Row('a', 1), Row('a', 3), Row('a', 6), Row('b', 1), Row('b', 3)]
    named = [Row(key='a', value=1), Row(key='a', value=2), Row(key='b', value=5)]
    out = stream(aggregation_function('sum', 'value'), named)
    assert out == [Row(key='a', value=1), Row(key='a', value=3), Row(key='b', value=5)]
    assert named[0] == Row(key='a', value=1)  # inputs are not mutated


def test_min_keeps_first_elements_other_fields_min_by_returns_element():
    data = [('a', 3, 'x'), ('a', 1, 'y'), ('a', 2, 'z'), ('a', 1, 'w')]
    assert stream(aggregation_function('min', 1), data) == [
        ('a', 3, 'x'), ('a', 1, 'x'), ('a', 1, 'x'), ('a', 1, 'x')]
    assert stream(aggregation_function('min_by', 1), data) == [
        ('a', 3, 'x'), ('a', 1, 'y'), ('a', 1, 'y'), ('a', 1, 'y')]   # ties keep the earlier
    assert stream(aggregation_function('max', 1), data) == [
        ('a', 3, 'x'), ('a', 3, 'x'), ('a', 3, 'x'), ('a', 3, 'x')]
    data2 = [('a', 1, 'x'), ('a', 5, 'y'), ('a', 5, 'z'), ('a', 2, 'w')]
    assert stream(aggregation_function('max', 1), data2) == [
        ('a', 1, 'x'), ('a', 5, 'x'), ('a', 5, 'x'), ('a', 5, 'x')]
    assert stream(aggregation_function('max_by', 1), data2) == [
        ('a', 1, 'x'), ('a', 5, 'y'), ('a', 5, 'y'), ('a', 5, 'y')]


def test_lists_are_copied_not_mutated():
    data = [['a', 1], ['a', 5], ['a', 3]]
    out = stream(aggregation_function('max', 1), data)
    assert out == [['a', 1], ['a', 5], ['a', 5]]
    assert data == [['a', 1], ['a', 5], ['a', 3]]
    out = stream(aggregation_function('sum', 1), data, serialize_state=False)
    assert out == [['a', 1], ['a', 6], ['a', 9]]


def test_plain_values():
    data = [1, 2, 3, 4, 5, 6]
    parity = lambda v: v % 2
    assert stream(aggregation_function('sum'), data, key=parity) == [1, 2, 4, 6, 9, 12]
    assert stream(aggregation_function('max'), [3, 1, 4, 1, 5], key=lambda v: 0) == [3, 3, 4, 4, 5]
    assert stream(aggregation_function('min'), [3, 1, 4, 1, 5], key=lambda v: 0) == [3, 1, 1, 1, 1]
    assert stream(aggregation_function('min_by'), [3, 1, 4], key=lambda v: 0) == [3, 1, 1]
    assert stream(aggregation_function('max_by'), [3, 1, 4], key=lambda v: 0) == [3, 3, 4]


def test_plain_values_only_position_zero():
    with pytest.raises(TypeError, match="basic type"):
        stream(aggregation_function('max', 1), [3, 1], key=lambda v: 0)


def test_bad_aggregation_arguments():
    with pytest.raises(TypeError, match="must be of int or str"):
        AccumulateReduceFunction('sum', 1.5)
    with pytest.raises(ValueError):
        AccumulateReduceFunction('avg', 0)


def test_reduce_in_batch_mode_emits_final_value_per_key():
    op = KeyedProcessOperator(aggregation_function('sum', 1, batch=True), "Sum")
    op.open(TaskInfo("Sum"))
    records = [(('a', 1), 3), (('b', 5), 1), (('a', 2), 2)]
    out = run_batch(op, records, lambda v: v[0])
    assert out == [(None, ('a', 3), MAX_WATERMARK), (None, ('b', 5), MAX_WATERMARK)]


def test_reduce_batch_flag_from_job_parameter():
    op = KeyedProcessOperator(ReduceProcessFunction(lambda a, b: a + b), "Reduce")
    op.open(TaskInfo("Reduce", job_parameters={'inBatchExecutionMode': 'true'}))
    out = run_batch(op, [(1, None), (2, None), (3, None)], lambda v: 0)
    assert [v for _, v, _ in out] == [6]


def test_reduce_errors_name_the_operator():
    op = KeyedProcessOperator(ReduceProcessFunction(lambda a, b: a / b), "Divide")
    op.open(TaskInfo("Divide"))
    from kindling.runtime.key_state import KeyState
    with pytest.raises(RuntimeError) as info:
        list(op.process(0, KeyState(), [(1, None, None), (0, None, None)], 0, 0, 0))
    assert user_error_of(info.value).operator_name == "Divide"
    assert isinstance(info.value.__cause__, ZeroDivisionError)
