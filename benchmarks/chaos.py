"""Proof by killing: a keyed, event-time windowed job whose driver is SIGKILLed at random moments
and restarted from its checkpoint; at the end every record counted once and every window sum exact.

The job (``python benchmarks/chaos.py job ...``, a driver process of its own): ``--records``
records from a bounded source of kind ``--source`` (SOURCES: a DataGeneratorSource, a
NumberSequenceSource, a collection, a FileSource of FILES files, a KafkaSource of
KAFKA_PARTITIONS partitions, each giving the indexes ``0 <= i < records``), read in micro-batches
of at most ``--batch-records`` (``kindling.source.max-records-per-batch``, so that a kill lands in
the middle of the job), record ``i`` = ``(key = i % KEYS, 1, seq = i // KEYS, value(i), event time
= i ms)``, keyed by key, tumbling event-time windows of WINDOW_MS, a reduce summing counts,
sequence numbers and values, one line per key and window written by a FileSink (row format). Its
checkpoint directory is ``execution.checkpointing.dir``, so a driver started again resumes from
the last committed micro-batch. The expected lines are computed here, independently of Kindling.

Usage::

    .venv/bin/python benchmarks/chaos.py --kills 10 --records 2000000
    .venv/bin/python benchmarks/chaos.py --source files --kills 3 --records 300000
    .venv/bin/python benchmarks/chaos.py --source kafka --kafka-servers 127.0.0.1:9092 --kills 3
    .venv/bin/python benchmarks/chaos.py --cost --records 1000000   # what checkpointing costs

It prints the kills survived, records lost and duplicated, wrong window sums, the recovery time
after each kill (from the restart to the first new output), and with ``--cost`` the throughput of
the keyed and window jobs with a checkpoint every micro-batch vs the one-step path (none).
``tests/spark/test_chaos.py`` runs it in CI: 5 kills of the DataGeneratorSource job (250,000 records, 12,500
per micro-batch), 1 of each of the others (30,000 records, 5,000 per micro-batch).
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from kindling.common.watermark_strategy import TimestampAssigner

KEYS = 50
WINDOW_MS = 10_000
VALUE_MODULUS = 1_000
SOURCES = ("datagen", "sequence", "collection", "files", "kafka")
FILES = 4  # the files source: records 0.. in FILES files of consecutive indexes
KAFKA_PARTITIONS = 3  # the Kafka source: record i in partition i % KAFKA_PARTITIONS
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def value(i: int) -> int:
    """Record ``i``'s value: varied, so that a window sum depends on exactly which records it got."""
    return (i * 7919) % VALUE_MODULUS


def record(i: int) -> tuple:
    """Record ``i``: (key, count 1, per-key sequence number, value, event time in ms)."""
    return (i % KEYS, 1, i // KEYS, value(i), i)


def expected_windows(records: int) -> dict[tuple[int, int], tuple[int, int, int]]:
    """(key, window start) -> (count, sum of sequence numbers, sum of values), computed directly."""
    out: dict[tuple[int, int], list[int]] = {}
    for i in range(records):
        key, _, seq, val, ts = record(i)
        acc = out.setdefault((key, ts - ts % WINDOW_MS), [0, 0, 0])
        acc[0] += 1
        acc[1] += seq
        acc[2] += val
    return {k: tuple(v) for k, v in out.items()}


# -- the job -----------------------------------------------------------------------------------------

class _KillWorkerOnce:
    """Kills the Python worker running it (SIGKILL) when it meets record ``index`` while ``marker``
    exists; removes the marker first, so that the retried task goes through."""

    def __init__(self, marker: str, index: int):
        self.marker, self.index = marker, index

    def __call__(self, r: tuple) -> tuple:
        if r[2] * KEYS + r[0] == self.index and os.path.exists(self.marker):
            os.remove(self.marker)
            os.kill(os.getpid(), signal.SIGKILL)
        return r


def _add(a: tuple, b: tuple) -> tuple:
    return (a[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], min(a[4], b[4]))


def _line(r: tuple) -> str:
    return f"{r[0]},{r[4] - r[4] % WINDOW_MS},{r[1]},{r[2]},{r[3]}"


def build_job(env, records: int, out: str, kill_worker: tuple[str, int] | None = None, shape: str = "window",
              source: str = "datagen", inputs: str = ""):
    """The chaos job on ``env`` (parallelism 2): records from ``source`` (``inputs``: the files'
    directory, or ``servers/topic`` of Kafka) -> key_by -> tumbling windows -> reduce -> a line per
    key and window -> FileSink ``out``. ``shape`` ``keyed`` (a rolling reduce) and ``out`` empty (a
    DiscardingSink) are for measuring throughput only."""
    from kindling.common import Time, Types
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors import DiscardingSink
    from kindling.datastream.connectors.file_system import FileSink
    from kindling.datastream.window import TumblingEventTimeWindows

    env.set_parallelism(2)
    stream = _records(env, source, records, inputs)
    if kill_worker is not None:
        stream = stream.map(_KillWorkerOnce(*kill_worker), _row_type())
    keyed = stream.key_by(lambda r: r[0])
    if shape == "keyed":
        result = keyed.reduce(_add)
    else:
        result = keyed.window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW_MS))).reduce(_add)
    lines = result.map(_line, Types.STRING())
    lines.sink_to(FileSink.for_row_format(out, Encoder.simple_string_encoder()).build() if out else DiscardingSink())


def _row_type():
    """A record's type: (key, count 1, per-key sequence number, value, event time)."""
    from kindling.common import Types

    return Types.TUPLE([Types.INT(), Types.LONG(), Types.LONG(), Types.LONG(), Types.LONG()])


def _records(env, source: str, records: int, inputs: str):
    """The records of the job, with event time and watermarks, read from a bounded ``source``."""
    from kindling.common import Types, WatermarkStrategy
    from kindling.common.serialization import SimpleStringSchema
    from kindling.datastream.connectors.datagen import DataGeneratorSource
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat
    from kindling.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource, KafkaTopicPartition
    from kindling.datastream.connectors.number_seq import NumberSequenceSource

    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_EventTime())
    none = WatermarkStrategy.no_watermarks()
    if source == "datagen":
        return env.from_source(DataGeneratorSource(record, records, _row_type()), strategy, "chaos-source")
    if source == "sequence":
        indexes = env.from_source(NumberSequenceSource(0, records - 1), none, "chaos-source")
    elif source == "collection":
        indexes = env.from_collection(list(range(records)), Types.LONG())
    elif source == "files":
        text = FileSource.for_record_stream_format(StreamFormat.text_line_format(), inputs).build()
        indexes = env.from_source(text, none, "chaos-source").map(int, Types.LONG())
    elif source == "kafka":
        servers, topic = inputs.split("/", 1)
        stops = {KafkaTopicPartition(topic, p): len(range(p, records, KAFKA_PARTITIONS)) for p in range(KAFKA_PARTITIONS)}
        kafka = (KafkaSource.builder().set_bootstrap_servers(servers).set_topics(topic)
                 .set_starting_offsets(KafkaOffsetsInitializer.earliest())
                 .set_bounded(KafkaOffsetsInitializer.offsets(stops))  # not "latest": Tansu's can be wrong
                 .set_value_only_deserializer(SimpleStringSchema()).set_property("session.timeout.ms", "1000").build())
        indexes = env.from_source(kafka, none, "chaos-source").map(int, Types.LONG())
    else:
        raise ValueError(f"--source must be one of {', '.join(SOURCES)}, got {source!r}")
    return indexes.map(record, _row_type()).assign_timestamps_and_watermarks(strategy)


def write_inputs(source: str, records: int, workdir: str, kafka_servers: str = "") -> str:
    """Writes the input of a source that reads what is already there (``inputs`` of ``build_job``):
    FILES files of consecutive indexes, or a new Kafka topic of KAFKA_PARTITIONS partitions."""
    if source == "files":
        directory = os.path.join(workdir, "in")
        os.makedirs(directory, exist_ok=True)
        for n in range(FILES):
            with open(os.path.join(directory, f"part-{n}.txt"), "w") as f:
                f.writelines(f"{i}\n" for i in range(records * n // FILES, records * (n + 1) // FILES))
        return directory
    if source == "kafka":
        from confluent_kafka import Producer
        from confluent_kafka.admin import AdminClient, NewTopic

        topic = f"chaos-{random.getrandbits(32):08x}"
        admin = AdminClient({"bootstrap.servers": kafka_servers})
        for future in admin.create_topics([NewTopic(topic, KAFKA_PARTITIONS, 1)]).values():
            future.result(30)
        producer = Producer({"bootstrap.servers": kafka_servers, "linger.ms": 20})
        for i in range(records):
            while True:
                try:
                    producer.produce(topic, value=str(i).encode(), partition=i % KAFKA_PARTITIONS)
                    break
                except BufferError:  # the producer's queue is full: let it send
                    producer.poll(0.1)
        if producer.flush(60):
            raise RuntimeError(f"could not write the chaos records to Kafka at {kafka_servers}")
        return f"{kafka_servers}/{topic}"
    return ""


class _EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[4]


def run_job(args) -> None:
    """The driver: runs the chaos job to its end, resuming from ``--checkpoints`` if it holds one."""
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    conf.set_string("spark.sql.shuffle.partitions", "2")
    if args.master:
        conf.set_string("spark.master", args.master)
    if args.batch_records:
        conf.set_integer("kindling.source.max-records-per-batch", args.batch_records)
    if args.checkpoints:
        conf.set_string("execution.checkpointing.dir", args.checkpoints)
    else:
        conf.set_boolean("kindling.bounded.one-step", args.one_step)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    kill_worker = (args.kill_worker_marker, args.kill_worker_at) if args.kill_worker_marker else None
    build_job(env, args.records, args.out, kill_worker, args.shape, args.source, args.inputs)
    began = time.time()
    env.execute("chaos")
    print(f"job-seconds {time.time() - began:.2f}", flush=True)


# -- the harness -------------------------------------------------------------------------------------

def _visible_files(out: str) -> list[str]:
    """The committed (visible) part files under ``out``: hidden and in-progress ones left out."""
    found = []
    for root, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found += [os.path.join(root, name) for name in files if not name.startswith((".", "_"))]
    return found


def output_lines(out: str) -> list[str]:
    """The lines of the committed part files under ``out``."""
    lines = []
    for name in _visible_files(out):
        with open(name) as f:
            lines += f.read().splitlines()
    return lines


def _committed_files(out: str) -> int:
    return len(_visible_files(out))


@dataclass
class Verdict:
    """What the output holds against the expected windows."""

    records_lost: int = 0
    records_duplicated: int = 0
    windows_missing: int = 0
    windows_repeated: int = 0
    wrong_sums: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not (self.records_lost or self.records_duplicated or self.windows_missing
                    or self.windows_repeated or self.wrong_sums)


def verify(out: str, records: int) -> Verdict:
    """Compares the job's output with ``expected_windows``: per window the count (records lost or
    duplicated), the sum of sequence numbers and the sum of values, and that each window appears
    exactly once."""
    expected = expected_windows(records)
    seen: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for line in output_lines(out):
        key, start, count, seqs, vals = (int(x) for x in line.split(","))
        seen.setdefault((key, start), []).append((count, seqs, vals))
    v = Verdict()
    for window, (count, seqs, vals) in expected.items():
        got = seen.get(window)
        if not got:
            v.windows_missing += 1
            v.records_lost += count
            v.problems.append(f"window {window} missing")
            continue
        if len(got) > 1:
            v.windows_repeated += len(got) - 1
            v.problems.append(f"window {window} written {len(got)} times")
        total = sum(g[0] for g in got)
        v.records_lost += max(0, count - total)
        v.records_duplicated += max(0, total - count)
        if got[0] != (count, seqs, vals):
            v.wrong_sums += 1
            v.problems.append(f"window {window}: {got[0]} instead of {(count, seqs, vals)}")
    for window, got in seen.items():
        if window not in expected:
            v.records_duplicated += sum(g[0] for g in got)
            v.problems.append(f"unexpected window {window}")
    return v


@dataclass
class ChaosReport:
    kills: int
    recoveries_s: list[float]
    verdict: Verdict
    seconds: float
    worker_killed: bool | None = None
    query_restarts: int = 0  # restarts by the runner's restart strategy (a task Spark retried is none)


def _driver(python: str, args: list[str], log) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    return subprocess.Popen([python, os.path.abspath(__file__), "job", *args], stdout=log, stderr=log, env=env,
                            cwd=ROOT)


def run_chaos(workdir: str, records: int, kills: int, batch_records: int, seed: int | None = None,
              kill_worker_at: int | None = None, master: str = "local[2,4]", python: str = sys.executable,
              timeout_s: float = 1200, echo=print, source: str = "datagen", kafka_servers: str = "") -> ChaosReport:
    """Runs the chaos job over ``source`` in driver processes under ``workdir``, SIGKILLing the
    driver ``kills`` times at random moments once it has written new output (so each kill lands
    mid-job, after a recovery), restarting it each time from the same checkpoint; then lets it
    finish and verifies. With ``kill_worker_at`` the first driver's Python worker that meets that
    record kills itself mid-batch (Spark retries the task: ``master`` ``local[N,F]`` allows F
    attempts). A Kafka source reads a topic written first at ``kafka_servers``."""
    rng = random.Random(seed)
    out, checkpoints = os.path.join(workdir, "out"), os.path.join(workdir, "checkpoints")
    args = ["--records", str(records), "--out", out, "--checkpoints", checkpoints, "--master", master,
            "--batch-records", str(batch_records), "--source", source,
            "--inputs", write_inputs(source, records, workdir, kafka_servers)]
    marker = None
    if kill_worker_at is not None:
        marker = os.path.join(workdir, "kill-worker")
        open(marker, "w").close()
        args += ["--kill-worker-marker", marker, "--kill-worker-at", str(kill_worker_at)]
    began = time.time()
    deadline = began + timeout_s
    recoveries: list[float] = []
    done_kills = 0
    log = open(os.path.join(workdir, "driver.log"), "ab")
    try:
        while True:
            files_before = _committed_files(out)
            started = time.time()
            proc = _driver(python, args, log)
            new_output_at = None
            kill_at = None
            while proc.poll() is None and time.time() < deadline:
                time.sleep(0.1)
                if new_output_at is None and _committed_files(out) > files_before:
                    new_output_at = time.time()
                    if done_kills:
                        recoveries.append(new_output_at - started)
                        echo(f"kill {done_kills}: recovered, first new output {new_output_at - started:.1f} s "
                             "after the restart")
                    if done_kills < kills:
                        kill_at = new_output_at + rng.uniform(0.2, 3.0)
                if kill_at is not None and time.time() >= kill_at:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    done_kills += 1
                    echo(f"kill {done_kills}: driver SIGKILLed {time.time() - started:.1f} s after its start")
                    break
            else:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                    raise TimeoutError(f"the chaos job did not finish within {timeout_s:.0f} s "
                                       f"(see {log.name})")
                if proc.returncode != 0:
                    raise RuntimeError(f"the chaos job failed with exit code {proc.returncode} (see {log.name})")
                if done_kills < kills:
                    raise RuntimeError(f"the job finished after {done_kills} of {kills} kills: give it more "
                                       "records or smaller micro-batches")
                break
    finally:
        log.close()
    verdict = verify(out, records)
    with open(log.name, errors="replace") as f:
        restarts = f.read().count("from the last checkpoint")
    return ChaosReport(done_kills, recoveries, verdict, time.time() - began,
                       None if marker is None else not os.path.exists(marker), restarts)


def _throughput(records: int, shape: str, one_step: bool, batch_records: int, workdir: str, python: str) -> float:
    """Records per second of one run of the ``shape`` job (into a DiscardingSink) without kills, in
    a driver process of its own: ``one_step`` (one Spark batch job, no checkpoint) or the micro-batch
    path with a checkpoint every micro-batch of ``batch_records``."""
    args = ["--records", str(records), "--out", "", "--shape", shape]
    args += ["--one-step"] if one_step else ["--checkpoints", tempfile.mkdtemp(prefix="cp-", dir=workdir),
                                             "--batch-records", str(batch_records)]
    result = subprocess.run([python, os.path.abspath(__file__), "job", *args], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    return records / float(next(l.split()[1] for l in result.stdout.splitlines() if l.startswith("job-seconds")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    job = sub.add_parser("job", help="run the job itself (a driver process)")
    job.add_argument("--records", type=int, required=True)
    job.add_argument("--out", default="", help="the FileSink's directory (none: a DiscardingSink)")
    job.add_argument("--shape", choices=["window", "keyed"], default="window")
    job.add_argument("--source", choices=SOURCES, default="datagen")
    job.add_argument("--inputs", default="", help="the files' directory, or servers/topic of Kafka")
    job.add_argument("--checkpoints", default="")
    job.add_argument("--one-step", action="store_true")
    job.add_argument("--master", default="")
    job.add_argument("--batch-records", type=int, default=0, help="kindling.source.max-records-per-batch")
    job.add_argument("--kill-worker-marker", default="")
    job.add_argument("--kill-worker-at", type=int, default=-1)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--source", choices=SOURCES, default="datagen")
    parser.add_argument("--kafka-servers", default="", help="a broker for --source kafka")
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--batch-records", type=int, default=50_000, help="records per micro-batch at most")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--kill-worker", action="store_true", help="also kill a Python worker in the first run")
    parser.add_argument("--cost", action="store_true", help="only measure what checkpointing costs")
    parser.add_argument("--workdir", default="")
    args = parser.parse_args(argv)
    if args.command == "job":
        run_job(args)
        return 0
    workdir = args.workdir or tempfile.mkdtemp(prefix="kindling-chaos-")
    if args.cost:
        for shape in ("keyed", "window"):
            micro = _throughput(args.records, shape, False, args.batch_records, workdir, sys.executable)
            one = _throughput(args.records, shape, True, 0, workdir, sys.executable)
            print(f"{shape} job, {args.records} records: micro-batch path, a checkpoint every "
                  f"{args.batch_records:,} records "
                  f"{micro:,.0f} records/s; one-step path, no checkpoint {one:,.0f} records/s "
                  f"({micro / one:.2f}x)", flush=True)
        return 0
    report = run_chaos(workdir, args.records, args.kills, args.batch_records, args.seed,
                       kill_worker_at=args.records // 10 if args.kill_worker else None, source=args.source,
                       kafka_servers=args.kafka_servers)
    v = report.verdict
    print(f"kills survived: {report.kills}")
    print(f"records lost: {v.records_lost}")
    print(f"records duplicated: {v.records_duplicated}")
    print(f"wrong window sums: {v.wrong_sums} (windows missing {v.windows_missing}, written twice "
          f"{v.windows_repeated})")
    if report.recoveries_s:
        print("recovery after each kill (restart to first new output): "
              + ", ".join(f"{s:.1f} s" for s in report.recoveries_s))
    if report.worker_killed is not None:
        print(f"Python worker killed mid-batch: {'yes' if report.worker_killed else 'no'} "
              f"(query restarts by the restart strategy: {report.query_restarts})")
    print(f"total {report.seconds:.0f} s; work directory {workdir}")
    for problem in v.problems[:20]:
        print("  " + problem)
    return 0 if v.exact else 1


if __name__ == "__main__":
    sys.exit(main())
