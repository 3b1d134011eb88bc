"""Window serializers write PyFlink's bytes; a custom WindowAssigner written for PyFlink (with a
get_window_serializer) runs unchanged."""
from io import BytesIO

from kindling.common import Types
from kindling.common.serializer import TypeSerializer
from kindling.datastream.window import (CountTumblingWindowAssigner, CountWindow, CountWindowSerializer,
                                        GlobalWindow, GlobalWindows, GlobalWindowSerializer, TimeWindow,
                                        TimeWindowSerializer, TumblingEventTimeWindows, WindowAssigner)
from kindling.datastream.window.triggers import EventTimeTrigger


def _round_trip(serializer, window):
    stream = BytesIO()
    serializer.serialize(window, stream)
    data = stream.getvalue()
    return data, serializer.deserialize(BytesIO(data))


def test_windows_are_written_as_pyflink_writes_them():
    assert _round_trip(TimeWindowSerializer(), TimeWindow(0, 1000)) == (
        b"\x00" * 8 + b"\x00" * 6 + b"\x03\xe8", TimeWindow(0, 1000))
    assert _round_trip(CountWindowSerializer(), CountWindow(-2)) == (b"\xff" * 7 + b"\xfe", CountWindow(-2))
    assert _round_trip(GlobalWindowSerializer(), GlobalWindow.get()) == (b"\x00", GlobalWindow.get())
    assert TimeWindowSerializer() == TimeWindowSerializer() and repr(CountWindowSerializer()) == "CountWindowSerializer()"


def test_built_in_assigners_name_their_window_serializer():
    assert isinstance(TumblingEventTimeWindows.of(1000).get_window_serializer(), TimeWindowSerializer)
    assert isinstance(CountTumblingWindowAssigner.of(3).get_window_serializer(), CountWindowSerializer)
    assert isinstance(GlobalWindows.create().get_window_serializer(), GlobalWindowSerializer)


class EverySecond(WindowAssigner):
    """A custom assigner as PyFlink users write them."""

    def assign_windows(self, element, timestamp, context):
        start = timestamp - timestamp % 1000
        return [TimeWindow(start, start + 1000)]

    def get_default_trigger(self, env):
        return EventTimeTrigger()

    def get_window_serializer(self) -> TypeSerializer[TimeWindow]:
        return TimeWindowSerializer()

    def is_event_time(self):
        return True


def test_a_custom_assigner_with_a_serializer_runs(env):
    from kindling.common import WatermarkStrategy

    env.set_parallelism(2)
    ds = env.from_collection([("a", 100), ("a", 900), ("b", 1500), ("a", 1200)],
                             Types.TUPLE([Types.STRING(), Types.LONG()])).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda e, _: e[1]))
    out = ds.key_by(lambda e: e[0]).window(EverySecond()).reduce(lambda a, b: (a[0], a[1] + b[1]))
    assert sorted(out.execute_and_collect()) == [("a", 1000), ("a", 1200), ("b", 1500)]
