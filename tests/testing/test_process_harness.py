"""The ProcessFunction harness runs the same chain code as Spark's Python pass."""
import pytest

from kindling.common import Types
from kindling.datastream import OutputTag, ProcessFunction
from kindling.testing import ProcessFunctionTestHarness

NEGATIVE = OutputTag("negative", Types.INT())


class SplitNegatives(ProcessFunction):
    def open(self, ctx):
        self.task = ctx.get_task_name()

    def process_element(self, value, ctx):
        if value < 0:
            ctx.output(NEGATIVE, value)
        else:
            yield value, ctx.timestamp(), ctx.timer_service().current_watermark(), \
                ctx.timer_service().current_processing_time(), self.task


def test_outputs_side_outputs_time():
    with ProcessFunctionTestHarness(SplitNegatives(), name="split", processing_time=42) as h:
        h.process_element(-1, timestamp=5)
        h.process_element(2)
        h.process_watermark(100)
        h.process_element(3, timestamp=200)
        assert h.extract_output_values() == [(2, None, -(2**63), 42, "split"), (3, 200, 100, 42, "split")]
        assert [r.timestamp for r in h.get_output()] == [None, 200]
        assert h.get_side_output_values(NEGATIVE) == [-1]
        assert h.get_side_output("negative")[0].timestamp == 5


def test_errors_and_timers():
    class Timers(ProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(1)

    with ProcessFunctionTestHarness(Timers()) as h:
        with pytest.raises(TypeError, match="only supported on a keyed stream"):
            h.process_element(1)

    class Boom(ProcessFunction):
        def process_element(self, value, ctx):
            return 1 / value

    with ProcessFunctionTestHarness(Boom()) as h:
        with pytest.raises(ZeroDivisionError):
            h.process_element(0)


def test_close_closes_the_opened_function_once_and_forgets_it():
    from kindling.datastream import ProcessFunction
    from kindling.runtime import lifecycle

    calls = []

    class Tracked(ProcessFunction):
        def open(self, runtime_context):
            calls.append("open")

        def close(self):
            calls.append("close")

        def process_element(self, value, ctx):
            yield value

    live = lifecycle.open_count()
    harness = ProcessFunctionTestHarness(Tracked())
    with harness:
        harness.process_element(1)
        assert lifecycle.open_count() == live + 1
    assert calls == ["open", "close"]
    assert lifecycle.open_count() == live
