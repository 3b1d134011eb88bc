from kindling.common.typeinfo import Types
from kindling.datastream.functions import KeyedProcessFunction
from kindling.datastream.state import ValueStateDescriptor
from kindling.datastream.time_domain import TimeDomain
from kindling.runtime.batch import run_batch, run_key_batch, sort_for_batch
from kindling.runtime.key_state import KeyState
from kindling.runtime.keyed_operator import KeyedOperator, KeyedProcessOperator
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo


class Sessionish(KeyedProcessFunction):
    def open(self, ctx):
        self.total = ctx.get_state(ValueStateDescriptor("total", Types.LONG()))
        self.log = []

    def process_element(self, value, ctx):
        ts = ctx.timer_service()
        self.log.append(("el", value, ctx.timestamp(), ts.current_watermark()))
        self.total.update((self.total.value() or 0) + value)
        ts.register_event_time_timer(ctx.timestamp() + 100)
        ts.register_processing_time_timer(ts.current_processing_time() + value)
        yield value

    def on_timer(self, timestamp, ctx):
        ts = ctx.timer_service()
        self.log.append(("timer", timestamp, ctx.time_domain(), ts.current_watermark()))
        ts.register_event_time_timer(timestamp + 1)       # ignored: timer service quiesced
        ts.register_processing_time_timer(timestamp + 1)  # ignored too
        yield ("fired", timestamp, self.total.value())


def make(fn):
    op = KeyedProcessOperator(fn, "Batch")
    op.open(TaskInfo("Batch"))
    return op


def test_sort_for_batch_is_stable_and_none_first():
    els = [("a", 5), ("b", None), ("c", 1), ("d", 5), ("e", None)]
    assert [v for v, _ in sort_for_batch(els)] == ["b", "e", "c", "a", "d"]


def test_run_key_batch_semantics():
    fn = Sessionish()
    op = make(fn)
    out = run_key_batch(op, "k", [(3, 30), (1, 10), (2, 20)], processing_time=1000)
    assert [v for _, v, _ in out] == [
        1, 2, 3,
        ("fired", 110, 6), ("fired", 120, 6), ("fired", 130, 6),       # event time first
        ("fired", 1001, 6), ("fired", 1002, 6), ("fired", 1003, 6),    # then processing time
    ]
    assert [ts for _, _, ts in out] == [10, 20, 30, 110, 120, 130, 1001, 1002, 1003]
    assert all(e[3] == MIN_WATERMARK for e in fn.log if e[0] == "el")
    assert all(e[3] == MAX_WATERMARK for e in fn.log if e[0] == "timer")
    assert [e[2] for e in fn.log if e[0] == "timer"] == [TimeDomain.EVENT_TIME] * 3 + [TimeDomain.PROCESSING_TIME] * 3


def test_fresh_state_per_key_and_run_batch():
    op = make(Sessionish())
    records = [(1, 1), (10, 2), (2, 3)]
    out = run_batch(op, records, lambda v: v >= 10, processing_time=0)
    values = [v for _, v, _ in out]
    assert values[:5] == [1, 2, ("fired", 101, 3), ("fired", 103, 3), ("fired", 1, 3)]
    assert values[6:] == [10, ("fired", 102, 10), ("fired", 10, 10)]


def test_timers_registered_while_quiesced_are_dropped():
    op = make(Sessionish())
    ks = KeyState()
    run_key_batch(op, "k", [(1, 1)], processing_time=0, state=ks)
    assert ks.num_event_timers() == 0 and ks.num_processing_timers() == 0
    # after the end-of-key firing, registering works again
    run_key_batch(op, "k2", [(1, 1)], processing_time=0)


def test_default_batch_for_other_keyed_operators():
    class Echo(KeyedOperator):
        name = "Echo"

        def open(self, task_info):
            pass

        def process(self, key, state, elements, wb, wa, pt):
            for v, ts, _ in elements:
                yield None, (key, v, wb), ts

        def on_timers(self, key, state, wm, pt):
            return iter(())

        def end_of_input(self, key, state, pt):
            yield None, "end", None
    out = run_key_batch(Echo(), "k", [("b", 2), ("a", 1)], processing_time=0)
    assert out == [(None, ("k", "a", MIN_WATERMARK), 1), (None, ("k", "b", MIN_WATERMARK), 2),
                   (None, "end", None)]
