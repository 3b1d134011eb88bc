import pickle

import cloudpickle
import pytest

from kindling.common.typeinfo import Types
from kindling.datastream.functions import KeyedProcessFunction
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import ListStateDescriptor, ValueStateDescriptor
from kindling.datastream.time_domain import TimeDomain
from kindling.runtime.errors import user_error_of
from kindling.runtime.key_state import KeyState
from kindling.runtime.keyed_operator import KeyedOperator, KeyedProcessOperator
from kindling.runtime.runtime_context import TaskRuntimeContext
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo

LATE = OutputTag("late", Types.STRING())


def run(op, key, ks, elements, before=MIN_WATERMARK, after=None, pt=0):
    after = before if after is None else after
    return list(op.process(key, ks, elements, before, after, pt))


class Recorder(KeyedProcessFunction):
    """Records what it sees; registers timers as told by the element."""

    def __init__(self):
        self.log = []

    def open(self, ctx):
        self.ctx = ctx
        self.seen = ctx.get_list_state(ListStateDescriptor("seen", Types.STRING()))

    def process_element(self, value, ctx):
        ts = ctx.timer_service()
        self.log.append(("el", value, ctx.timestamp(), ts.current_watermark(), ctx.get_current_key()))
        self.seen.add(value)
        for t in getattr(self, 'event_timers', {}).get(value, ()):
            ts.register_event_time_timer(t)
        for t in getattr(self, 'proc_timers', {}).get(value, ()):
            ts.register_processing_time_timer(t)
        yield value

    def on_timer(self, timestamp, ctx):
        ts = ctx.timer_service()
        self.log.append(("timer", timestamp, ctx.time_domain(), ctx.timestamp(), ts.current_watermark(),
                         ctx.get_current_key()))
        for t in getattr(self, 'chain', {}).get(timestamp, ()):
            ts.register_event_time_timer(t)
        yield "t%d" % timestamp


def make(fn=None, name="KeyedProcess"):
    op = KeyedProcessOperator(fn or Recorder(), name)
    op.open(TaskInfo(name, job_parameters={"p": "1"}))
    return op


def test_is_a_keyed_operator_and_runtime_context():
    op = make()
    assert isinstance(op, KeyedOperator)
    ctx = op.function.ctx
    assert isinstance(ctx, TaskRuntimeContext)
    assert ctx.get_task_name() == "KeyedProcess"
    assert ctx.get_job_parameter("p", None) == "1"
    assert ctx.get_number_of_parallel_subtasks() == 1


def test_process_outputs_with_element_timestamps():
    op = make()
    ks = KeyState()
    out = run(op, "k", ks, [("a", 10, None), ("b", None, None)])
    assert out == [(None, "a", 10), (None, "b", None)]
    assert op.function.log == [("el", "a", 10, MIN_WATERMARK, "k"), ("el", "b", None, MIN_WATERMARK, "k")]
    assert ks.states == {"seen": ["a", "b"]}


def test_event_timer_fires_before_element_whose_stamp_passes_it():
    fn = Recorder()
    fn.event_timers = {"a": [5]}
    op = make(fn)
    ks = KeyState()
    out = run(op, "k", ks, [("a", 1, MIN_WATERMARK), ("b", 2, 4), ("c", 8, 5), ("d", 9, 3)], after=5)
    assert out == [(None, "a", 1), (None, "b", 2), (None, "t5", 5), (None, "c", 8), (None, "d", 9)]
    log = fn.log
    assert log[1] == ("el", "b", 2, 4, "k")
    assert log[2] == ("timer", 5, TimeDomain.EVENT_TIME, 5, 5, "k")
    assert log[4] == ("el", "d", 9, 5, "k")  # the watermark never goes back
    assert ks.is_empty() is False and ks.next_event_timer() is None


def test_elements_without_stamp_see_watermark_before_and_timers_fire_after():
    fn = Recorder()
    fn.event_timers = {"a": [15, 25]}
    op = make(fn)
    ks = KeyState()
    out = run(op, "k", ks, [("a", 1, None)], before=10, after=20)
    assert fn.log[0][3] == 10
    assert out == [(None, "a", 1), (None, "t15", 15)]
    assert ks.event_timers() == [25]
    # next micro-batch: no elements, Spark timer expired / watermark moved
    out = list(op.on_timers("k", ks, 30, 0))
    assert out == [(None, "t25", 25)]
    assert fn.log[-1] == ("timer", 25, TimeDomain.EVENT_TIME, 25, 30, "k")


def test_due_timers_from_earlier_batches_fire_before_first_element():
    fn = Recorder()
    fn.event_timers = {"a": [15]}
    op = make(fn)
    ks = KeyState()
    run(op, "k", ks, [("a", 1, None)], before=10, after=10)
    assert ks.event_timers() == [15]
    out = run(op, "k", ks, [("b", 2, None)], before=20, after=20)
    assert out == [(None, "t15", 15), (None, "b", 2)]


def test_late_timer_waits_for_next_watermark_increase():
    fn = Recorder()
    fn.event_timers = {"a": [5]}   # registered at ts <= current watermark 10
    op = make(fn)
    ks = KeyState()
    out = run(op, "k", ks, [("a", 1, 10), ("b", 2, 10)], before=10, after=10)
    assert out == [(None, "a", 1), (None, "b", 2)]
    out = run(op, "k", ks, [("c", 3, 11)], before=10, after=11)
    assert out == [(None, "t5", 5), (None, "c", 3)]


def test_timers_collapse_and_fire_in_order_with_chained_registration():
    fn = Recorder()
    fn.event_timers = {"a": [30, 10, 20, 10], "b": [20]}
    fn.chain = {10: [15, 40], 15: [12]}   # registered while firing
    op = make(fn)
    ks = KeyState()
    out = run(op, "k", ks, [("a", 1, None), ("b", 1, None)], after=30)
    timers = [v for _, v, _ in out if v.startswith("t")]
    # 12 is registered while 15 fires: it fires right after (as Flink's timer queue does)
    assert timers == ["t10", "t15", "t12", "t20", "t30"]
    assert ks.event_timers() == [40]


def test_delete_timers():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ts = ctx.timer_service()
            if value == "reg":
                ts.register_event_time_timer(10)
                ts.register_processing_time_timer(100)
            else:
                ts.delete_event_time_timer(10)
                ts.delete_processing_time_timer(100)

        def on_timer(self, timestamp, ctx):
            yield timestamp
    op = make(F())
    ks = KeyState()
    run(op, "k", ks, [("reg", 1, None)])
    assert ks.num_event_timers() == 1 and ks.num_processing_timers() == 1
    run(op, "k", ks, [("del", 1, None)])
    assert ks.is_empty()
    assert run(op, "k", ks, [], before=50, pt=500) == []


def test_processing_time_timers():
    fn = Recorder()
    fn.proc_timers = {"a": [100, 50]}
    op = make(fn)
    ks = KeyState()
    out = run(op, "k", ks, [("a", 1, None)], pt=60)
    assert out == [(None, "a", 1), (None, "t50", 50)]
    assert fn.log[-1] == ("timer", 50, TimeDomain.PROCESSING_TIME, 50, MIN_WATERMARK, "k")
    assert ks.next_processing_timer() == 100
    assert list(op.on_timers("k", ks, MIN_WATERMARK, 99)) == []
    assert list(op.on_timers("k", ks, MIN_WATERMARK, 100)) == [(None, "t100", 100)]


def test_current_processing_time_is_the_given_one():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            yield ctx.timer_service().current_processing_time()
    op = make(F())
    assert run(op, "k", KeyState(), [(1, None, None)], pt=1234) == [(None, 1234, None)]


def test_end_of_input_fires_all_event_timers_not_future_processing_timers():
    fn = Recorder()
    fn.event_timers = {"a": [10 ** 12, 5]}
    fn.proc_timers = {"a": [50, 10 ** 15]}
    fn.chain = {10 ** 12: [10 ** 13]}
    op = make(fn)
    ks = KeyState()
    run(op, "k", ks, [("a", 1, None)])
    out = list(op.end_of_input("k", ks, 60))
    assert [v for _, v, _ in out] == ["t5", "t%d" % 10 ** 12, "t%d" % 10 ** 13, "t50"]
    assert fn.log[-2][4] == MAX_WATERMARK
    assert ks.processing_timers() == [10 ** 15]


def test_side_outputs_by_ctx_and_by_yield():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            if value < 0:
                ctx.output(LATE, "neg %d" % value)
                yield LATE, "also %d" % value
            else:
                yield value

        def on_timer(self, timestamp, ctx):
            ctx.output(LATE, "timer")
    op = make(F())
    ks = KeyState()
    out = run(op, "k", ks, [(1, 5, None), (-2, 6, None)])
    assert out == [(None, 1, 5), ("late", "neg -2", 6), ("late", "also -2", 6)]
    with pytest.raises(RuntimeError):
        class G(KeyedProcessFunction):
            def process_element(self, value, ctx):
                ctx.output("late", value)
        run(make(G()), "k", KeyState(), [(1, None, None)])


def test_results_may_be_returned_lists_or_none():
    class ReturnsList(KeyedProcessFunction):
        def process_element(self, value, ctx):
            return [value, value * 10]

    class ReturnsNone(KeyedProcessFunction):
        def process_element(self, value, ctx):
            return None

    class PlainObject:
        def process_element(self, value, ctx):
            return (value,)
    assert run(make(ReturnsList()), 1, KeyState(), [(2, None, None)]) == [(None, 2, None), (None, 20, None)]
    assert run(make(ReturnsNone()), 1, KeyState(), [(2, None, None)]) == []
    assert run(make(PlainObject()), 1, KeyState(), [(2, None, None)]) == [(None, 2, None)]


def test_non_iterable_result_is_a_clear_error():
    class Bad(KeyedProcessFunction):
        def process_element(self, value, ctx):
            return 5
    with pytest.raises(RuntimeError) as info:
        run(make(Bad(), "BadOp"), 1, KeyState(), [(2, None, None)])
    err = user_error_of(info.value)
    assert err.operator_name == "BadOp"
    assert "must yield its outputs" in err.user_traceback


def test_user_errors_name_the_operator():
    class Boom(KeyedProcessFunction):
        def process_element(self, value, ctx):
            raise ValueError("boom %s" % value)
    op = make(Boom(), "MyCounter")
    with pytest.raises(RuntimeError) as info:
        run(op, "k", KeyState(), [(7, None, None)])
    err = user_error_of(info.value)
    assert err.operator_name == "MyCounter"
    assert "ValueError: boom 7" in err.user_traceback
    assert isinstance(info.value.__cause__, ValueError)


def test_errors_in_open_timers_and_close_are_wrapped():
    class F(KeyedProcessFunction):
        def __init__(self, where):
            self.where = where

        def open(self, ctx):
            if self.where == "open":
                raise KeyError("in open")

        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(1)

        def on_timer(self, timestamp, ctx):
            if self.where == "timer":
                raise KeyError("in timer")

        def close(self):
            if self.where == "close":
                raise KeyError("in close")
    for where in ("open", "timer", "close"):
        op = KeyedProcessOperator(F(where), "Op-" + where)
        with pytest.raises(RuntimeError) as info:
            op.open(TaskInfo("x"))
            ks = KeyState()
            run(op, "k", ks, [(1, None, None)])
            list(op.end_of_input("k", ks, 0))
            op.close()
        err = user_error_of(info.value)
        assert err.operator_name == "Op-" + where
        assert "in " + where in err.user_traceback


def test_state_value_of_wrong_type_fails_with_state_name():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.count = ctx.get_state(ValueStateDescriptor("count", Types.LONG()))

        def process_element(self, value, ctx):
            self.count.update("not a number")
    with pytest.raises(RuntimeError) as info:
        run(make(F(), "Counter"), "k", KeyState(), [(1, None, None)])
    cause = info.value.__cause__
    assert isinstance(cause, TypeError)
    assert "'count'" in str(cause) and "'not a number'" in str(cause) and "Long" in str(cause)
    assert user_error_of(info.value).operator_name == "Counter"


def test_state_in_open_is_rejected_when_read():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            ctx.get_state(ValueStateDescriptor("v", Types.LONG())).value()

        def process_element(self, value, ctx):
            pass
    with pytest.raises(RuntimeError) as info:
        make(F())
    assert "only be used while" in str(info.value.__cause__)


def test_state_obtained_lazily_per_element_works():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            st = self.rc.get_state(ValueStateDescriptor("v", Types.LONG()))
            st.update((st.value() or 0) + value)
            yield st.value()

        def open(self, ctx):
            self.rc = ctx
    op = make(F())
    a, b = KeyState(), KeyState()
    assert run(op, "a", a, [(1, None, None), (2, None, None)]) == [(None, 1, None), (None, 3, None)]
    assert run(op, "b", b, [(5, None, None)]) == [(None, 5, None)]
    assert run(op, "a", a, [(1, None, None)]) == [(None, 4, None)]


def test_ttl_cleanup_on_write_back_makes_key_state_empty():
    from kindling.common.time import Time
    from kindling.datastream.state import StateTtlConfig

    class F(KeyedProcessFunction):
        def open(self, ctx):
            d = ValueStateDescriptor("v", Types.LONG())
            d.enable_time_to_live(StateTtlConfig.new_builder(Time.milliseconds(100)).build())
            self.v = ctx.get_state(d)

        def process_element(self, value, ctx):
            self.v.update(value)
    op = make(F())
    ks = KeyState()
    run(op, "k", ks, [(1, None, None)], pt=1000)
    assert ks.ttl_expiry == 1100
    assert not ks.is_empty()
    assert list(op.on_timers("k", ks, MIN_WATERMARK, 1100)) == []
    assert ks.is_empty()


def test_outputs_are_produced_lazily_per_element():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.v = ctx.get_state(ValueStateDescriptor("v", None))

        def process_element(self, value, ctx):
            acc = self.v.value()
            if acc is None:
                acc = []
                self.v.update(acc)
            acc.append(value)   # mutates the object an earlier output refers to
            yield acc
    op = make(F())
    snapshots = [list(v) for _, v, _ in op.process("k", KeyState(), [(1, None, None), (2, None, None)],
                                                    0, 0, 0)]
    assert snapshots == [[1], [1, 2]]


def test_operator_pickles_before_and_after_open():
    op = KeyedProcessOperator(Recorder(), "P")
    op2 = cloudpickle.loads(cloudpickle.dumps(op))
    assert op2.name == "P"
    op.open(TaskInfo("P"))
    op3 = pickle.loads(cloudpickle.dumps(op))
    ks = KeyState()
    assert run(op3, "k", ks, [("x", 1, None)]) == [(None, "x", 1)]  # opens itself


def test_interleaved_generators_keep_their_key():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.v = ctx.get_state(ValueStateDescriptor("v", Types.LONG()))

        def process_element(self, value, ctx):
            self.v.update((self.v.value() or 0) + value)
            yield ctx.get_current_key(), self.v.value()
    op = make(F())
    a, b = KeyState(), KeyState()
    ga = op.process("a", a, [(1, None, None), (1, None, None)], 0, 0, 0)
    gb = op.process("b", b, [(10, None, None), (10, None, None)], 0, 0, 0)
    out = [next(ga), next(gb), next(ga), next(gb)]
    assert out == [(None, ("a", 1), None), (None, ("b", 10), None), (None, ("a", 2), None),
                   (None, ("b", 20), None)]
    assert a.states == {"v": 2} and b.states == {"v": 20}


def test_requires_process_element():
    with pytest.raises(TypeError):
        KeyedProcessOperator(object())
