"""Processing-time timers in an event-time job fire on the wall clock, also for keys that get no
further element, while event-time timers fire when the watermark passes them (issue 15).

PyFlink 2.3 on the same program (both_timers_program.py, its output recorded below): every
key's processing-time timer fires about 500 ms after its element, before the next element
arrives, and its event-time timer once a later element moves the watermark past it.
"""
from __future__ import annotations

import os
import sys
import time

import pytest
from collect_support import take  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Duration, WatermarkStrategy
from kindling.datastream import KeyedProcessFunction, TimeDomain
from kindling.datastream.connectors.file_system import FileSource, StreamFormat

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
DELAY_MS = 500


class BothTimers(KeyedProcessFunction):
    """On each element: an event-time timer 1 s after it and a processing-time timer 500 ms from now."""

    def process_element(self, value, ctx):
        timers = ctx.timer_service()
        timers.register_event_time_timer(ctx.timestamp() + 1000)
        timers.register_processing_time_timer(timers.current_processing_time() + DELAY_MS)
        yield ("element", ctx.get_current_key(), ctx.timestamp())

    def on_timer(self, timestamp, ctx):
        if ctx.time_domain() == TimeDomain.PROCESSING_TIME:
            # when it fired on the wall clock, relative to its time
            yield ("processing", ctx.get_current_key(), int(time.time() * 1000) - timestamp)
        else:
            yield ("event", ctx.get_current_key(), timestamp, ctx.timer_service().current_watermark())


class Relay(KeyedProcessFunction):
    """Keyed after keyed: a processing-time timer 500 ms after each element record it relays."""

    def process_element(self, value, ctx):
        if value[0] == "element":
            timers = ctx.timer_service()
            timers.register_processing_time_timer(timers.current_processing_time() + DELAY_MS)
        yield value

    def on_timer(self, timestamp, ctx):
        yield ("relayed", ctx.get_current_key(), int(time.time() * 1000) - timestamp)



def _lines_source(env, directory):
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
              .monitor_continuously(Duration.of_millis(100)).build())
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda line, _: int(line.split(",")[1]))
    return env.from_source(source, strategy, "lines")


def _never_early(fired: list) -> None:
    """A processing-time timer fires at its time or later (late by Kindling's micro-batches: the
    processing time of an element is its micro-batch's start)."""
    for record in fired:
        assert record[2] >= 0, record


# PyFlink 2.3's output of both_timers_program.py (`python both_timers_program.py pyflink`)
PYFLINK_OUTPUT = """\
-- phase 0
element a 1000
processing-time timer a
-- phase 1
element b 1500
processing-time timer b
-- phase 2
element c 5000
processing-time timer c
-- phase 3
element d 9000
event-time timer a 2000
event-time timer b 2500
processing-time timer d
"""


# Kindling's event-time timers per phase (see the test below)
KINDLING_EVENT_TIMERS = [[], [], ["event-time timer a 2000", "event-time timer b 2500"], ["event-time timer c 6000"]]


def _phases(lines: list[str], event_timers: bool) -> list[list[str]]:
    """Each phase's lines, sorted (keys on different subtasks have no order), with or without the
    event-time timers."""
    phases: list[list[str]] = []
    for line in lines:
        if line.startswith("-- phase"):
            phases.append([])
        elif event_timers == line.startswith("event-time timer"):
            phases[-1].append(line)
    return [sorted(p) for p in phases]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_idle_keys_fire_both_kinds_of_timers_as_in_pyflink(spark):
    import both_timers_program

    expected = PYFLINK_OUTPUT.splitlines()
    # Each phase waits for the lines asserted below (so a slow machine cannot move one into the next
    # phase), then 1 s (the last phase this long) for any line more (one would be an extra timer:
    # that phase's or a later phase's lines would differ).
    both_timers_program.SETTLE_SECONDS = 5
    both_timers_program.LAST_RECORD_SECONDS = 300  # the most for a line awaited (the first: the job's start)
    lines = both_timers_program.run("kindling", [
        processing + event for processing, event in zip(_phases(expected, event_timers=False), KINDLING_EVENT_TIMERS)])
    # Processing-time timers: in the same phase as in PyFlink, each key's without any further
    # element for it (and in phases 0 and 1 without any further input at all).
    assert _phases(lines, event_timers=False) == _phases(expected, event_timers=False)
    # Event-time timers: once the watermark passes them. PyFlink's Python operator sees the
    # watermark an element brings only with the next element (c's 4999 arrives with d), so it
    # fires a's and b's in phase 3; Kindling's watermark reaches the operator one hand-off
    # after the element (docs/architecture.md), so they fire in phase 2, c's in phase 3.
    assert _phases(lines, event_timers=True) == KINDLING_EVENT_TIMERS


@pytest.mark.timeout(600)
def test_processing_time_timers_fire_in_keyed_after_keyed(env, tmp_path):
    env.set_parallelism(2)
    lines = _lines_source(env, tmp_path)
    first = lines.key_by(lambda line: line.split(",")[0]).process(BothTimers())
    second = first.key_by(lambda record: record[1]).process(Relay())
    (tmp_path / "1.txt").write_text("a,1000\nb,1500\n")
    with second.execute_and_collect() as results:
        got = take(results, 6)
    # each key: its element and its processing-time timer pass through; the second operator's
    # processing-time timer fires for each key without further input
    assert sorted(r[:2] for r in got) == [("element", "a"), ("element", "b"), ("processing", "a"),
                                          ("processing", "b"), ("relayed", "a"), ("relayed", "b")]
    _never_early([r for r in got if r[0] in ("processing", "relayed")])
