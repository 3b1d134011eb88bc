"""Both kinds of timers in one event-time KeyedProcessFunction, on an unbounded source: the same
program runs on PyFlink 2.3 (the reference) and on Kindling.

    PATH=/opt/pyflink-venv/bin:$PATH python tests/datastream/both_timers_program.py pyflink
    .venv/bin/python tests/datastream/both_timers_program.py kindling

Each phase writes one file (one split, one element) into the monitored directory and prints,
after a line ``-- phase N``, what the job emitted until the element's processing-time timer
fired (waiting up to 120 s), then whatever else comes until 6 s pass without a record. Processing-time timers print
no time (the wall clock differs per run), so the output is deterministic as long as each record
comes within 6 s of the previous one. test_both_timers.py holds PyFlink's output and
compares Kindling's with it; it passes ``expected`` (each phase's lines), so that a phase waits
for all of its expected lines (up to 120 s), then SETTLE_SECONDS for any line more
(NEXT_PHASE_SETTLE_SECONDS before a phase that follows), instead of guessing from quiet alone when a
phase ended.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import queue
import sys
import tempfile
import threading

PHASES = ["a,1000", "b,1500", "c,5000", "d,9000"]
LAST_RECORD_SECONDS = 120
SETTLE_SECONDS = 6
# with ``expected``, before a phase other than the last: a line more coming later lands in the next
# phase, whose lines then differ, so a phase's quiet need not be waited out as long
NEXT_PHASE_SETTLE_SECONDS = 1


def run(engine: str, expected: list[list[str]] | None = None) -> list[str]:
    common = importlib.import_module(f"{engine}.common")
    datastream = importlib.import_module(f"{engine}.datastream")
    file_system = importlib.import_module(f"{engine}.datastream.connectors.file_system")

    class BothTimers(datastream.KeyedProcessFunction):
        def process_element(self, value, ctx):
            key, ts = value.split(",")[0], ctx.timestamp()
            ctx.timer_service().register_event_time_timer(ts + 1000)
            ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time() + 500)
            yield f"element {key} {ts}"

        def on_timer(self, timestamp, ctx):
            if ctx.time_domain() == datastream.TimeDomain.PROCESSING_TIME:
                yield f"processing-time timer {ctx.get_current_key()}"
            else:
                yield f"event-time timer {ctx.get_current_key()} {timestamp}"

    class Stamp(common.watermark_strategy.TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return int(value.split(",")[1])

    directory = tempfile.mkdtemp()
    env = datastream.StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    source = (file_system.FileSource.for_record_stream_format(file_system.StreamFormat.text_line_format(), directory)
              .monitor_continuously(common.Duration.of_millis(100)).build())
    strategy = common.WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Stamp())
    # PyFlink's from_source ignores a Python timestamp assigner: it runs in an operator of its own.
    # Reading and stamping at parallelism 1 keeps Flink's watermark deterministic (at 2, the
    # assigner instance that gets no later element holds it back; Kindling's channels are splits).
    lines = env.from_source(source, common.WatermarkStrategy.no_watermarks(), "lines").set_parallelism(1)
    stamped = lines.assign_timestamps_and_watermarks(strategy).set_parallelism(1)
    stream = (stamped.key_by(lambda line: line.split(",")[0])
              .process(BothTimers(), output_type=common.Types.STRING()))
    lines: list[str] = []
    arrived: queue.Queue = queue.Queue()
    with stream.execute_and_collect() as results:
        def drain() -> None:
            with contextlib.suppress(Exception):  # the job is cancelled when the phases are done
                for record in results:
                    arrived.put(record)

        threading.Thread(target=drain, daemon=True).start()
        for phase, text in enumerate(PHASES):
            lines.append(f"-- phase {phase}")
            with open(os.path.join(directory, f"{phase}.txt"), "w") as f:
                f.write(text + "\n")
            # until the phase's key's processing-time timer fired, or every line expected in the phase
            # came (the first waits for the job to start) ...
            awaited = expected[phase] if expected is not None else [f"processing-time timer {text.split(',')[0]}"]
            got = []
            with contextlib.suppress(queue.Empty):
                while not all(line in got for line in awaited):
                    got.append(arrived.get(timeout=LAST_RECORD_SECONDS))
            # ... then anything else the phase brings, before the next file
            last = expected is None or phase == len(PHASES) - 1
            with contextlib.suppress(queue.Empty):
                while True:
                    got.append(arrived.get(timeout=SETTLE_SECONDS if last else NEXT_PHASE_SETTLE_SECONDS))
            print("\n".join([lines[-1]] + got), file=sys.stderr, flush=True)
            lines.extend(got)
    return lines


def _watchdog(seconds: int) -> None:
    def stop():
        print("timed out", file=sys.stderr, flush=True)
        os._exit(1)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()


if __name__ == "__main__":
    _watchdog(600)
    for line in run(sys.argv[1] if len(sys.argv) > 1 else "pyflink"):
        print(line, flush=True)
    os._exit(0)
