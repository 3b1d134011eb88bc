"""Windows, window assigners and triggers, as in ``pyflink.datastream.window``.

A :class:`WindowAssigner` puts every element into zero or more windows; a :class:`Trigger`
decides when a window is evaluated (fired) and when its contents are purged::

    from kindling.common.time import Time
    from kindling.datastream.window import TumblingEventTimeWindows, CountTrigger

    (stream.key_by(lambda e: e[0])
           .window(TumblingEventTimeWindows.of(Time.seconds(10)))
           .reduce(lambda a, b: (a[0], a[1] + b[1])))

Sizes, slides, offsets and gaps may be given as :class:`~kindling.common.time.Time`,
:class:`~kindling.common.time.Duration` or int milliseconds.

One concept a module: :mod:`.windows` (the windows), :mod:`.triggers`, :mod:`.assigners`
(time, global and count windows) and :mod:`.sessions` (merging session windows).
"""
from kindling.datastream.window.assigners import (
    CountSlidingWindowAssigner, CountTumblingWindowAssigner, GlobalWindows, MergingWindowAssigner,
    SlidingEventTimeWindows, SlidingProcessingTimeWindows, TumblingEventTimeWindows,
    TumblingProcessingTimeWindows, WindowAssigner,
)
from kindling.datastream.window.sessions import (
    DynamicEventTimeSessionWindows, DynamicProcessingTimeSessionWindows, EventTimeSessionWindows,
    ProcessingTimeSessionWindows, SessionWindowTimeGapExtractor,
)
from kindling.datastream.window.triggers import (
    ContinuousEventTimeTrigger, ContinuousProcessingTimeTrigger, CountTrigger, EventTimeTrigger,
    NeverTrigger, ProcessingTimeTrigger, PurgingTrigger, Trigger, TriggerResult,
)
# MAX_LONG_VALUE and MIN_LONG_VALUE: module names of pyflink.datastream.window, too
from kindling.datastream.window.windows import (  # noqa: F401
    MAX_LONG_VALUE, MIN_LONG_VALUE, CountWindow, CountWindowSerializer, GlobalWindow, GlobalWindowSerializer,
    TimeWindow, TimeWindowSerializer, Window,
)

__all__ = ['Window',
           'TimeWindow',
           'CountWindow',
           'GlobalWindow',
           'TimeWindowSerializer',
           'CountWindowSerializer',
           'GlobalWindowSerializer',
           'WindowAssigner',
           'TumblingProcessingTimeWindows',
           'TumblingEventTimeWindows',
           'SlidingProcessingTimeWindows',
           'SlidingEventTimeWindows',
           'ProcessingTimeSessionWindows',
           'EventTimeSessionWindows',
           'DynamicProcessingTimeSessionWindows',
           'DynamicEventTimeSessionWindows',
           'GlobalWindows',
           'MergingWindowAssigner',
           'CountTumblingWindowAssigner',
           'CountSlidingWindowAssigner',
           'TriggerResult',
           'Trigger',
           'EventTimeTrigger',
           'ProcessingTimeTrigger',
           'ContinuousEventTimeTrigger',
           'ContinuousProcessingTimeTrigger',
           'NeverTrigger',
           'PurgingTrigger',
           'CountTrigger',
           'SessionWindowTimeGapExtractor']
