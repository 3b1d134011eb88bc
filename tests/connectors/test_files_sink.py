"""The FileSink: row and bulk formats, buckets, rolling, and exactly-once part files across a
replayed micro-batch and a restart from the checkpoint, end to end on Spark (parallelism 2)."""
from __future__ import annotations

import datetime
import os
import re
import time

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from kindling.common import Duration, Types, WatermarkStrategy
from kindling.common.serialization import Encoder
from kindling.common.types import Row
from kindling.datastream.connectors.file_system import (BucketAssigner, FileCompactor, FileCompactStrategy, FileSink,
                                                        FileSource, OutputFileConfig, RollingPolicy, StreamFormat,
                                                        StreamingFileSink)
from kindling.datastream.formats.avro import AvroBulkWriters, AvroSchema
from kindling.datastream.formats.csv import CsvBulkWriters, CsvReaderFormat, CsvSchema
from kindling.datastream.formats.orc import OrcBulkWriters
from kindling.datastream.formats.parquet import AvroParquetWriters, ParquetBulkWriters
from kindling.graph.specs import FileSinkSpec
from kindling.spark.file_sink import FileWriter

ROW = Types.ROW_NAMED(["id", "name", "score"], [Types.INT(), Types.STRING(), Types.DOUBLE()])


def _hidden(base) -> list[str]:
    """The hidden files under ``base``."""
    return sorted(f for _, _, files in os.walk(base) for f in files if f.startswith("."))


PART_FILE = re.compile(r"^\.?(compacted-)?part-[0-9a-f]+-\d+-\d+(-\d+)?((\.\d+)?\.inprogress)?$")


def _not_part_files(base) -> list[str]:
    """The files under ``base`` that are no part file (``part-<query>-<batch>-<task>[-<roll>]``, or
    ``compacted-`` one), committed or not yet (hidden: in progress, or waiting for compaction)."""
    return sorted(f for _, _, files in os.walk(base) for f in files if not PART_FILE.match(f))


def _visible(base) -> list[str]:
    """The committed part files under ``base`` (relative paths), leaving out hidden ones."""
    found = []
    for root, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found += [os.path.relpath(os.path.join(root, f), base) for f in files if not f.startswith((".", "_"))]
    return sorted(found)


def _lines(base) -> list[str]:
    out = []
    for name in _visible(base):
        with open(os.path.join(base, name)) as f:
            out += f.read().splitlines()
    return out


def _rows(n: int) -> list:
    return [Row(id=i, name=f"n{i}", score=i / 2) for i in range(n)]


def test_row_format_prefix_suffix_and_base_path_bucket(any_env, tmp_path):
    any_env.set_parallelism(2)
    sink = (FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder())
            .with_output_file_config(OutputFileConfig.builder().with_part_prefix("res").with_part_suffix(".txt").build())
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
            .with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy()).build())
    any_env.from_collection(list(range(100)), Types.INT()).map(lambda x: x * 2, Types.INT()).rebalance() \
        .sink_to(sink)
    any_env.execute("row format")
    names = _visible(tmp_path / "out")
    assert names and all(n.startswith("res-") and n.endswith(".txt") and "/" not in n for n in names)
    assert sorted(map(int, _lines(tmp_path / "out"))) == [x * 2 for x in range(100)]
    assert _hidden(tmp_path / "out") == []  # a finished bounded job leaves part files only, as PyFlink


@pytest.mark.parametrize("mode", ["micro-batches", "BATCH"])
def test_a_finished_bounded_job_leaves_only_part_files_in_its_buckets(make_env, tmp_path, mode):
    """Walking the output of a finished bounded job (date-time buckets, compaction on) finds its
    part files and nothing else: what the sink remembers between attempts of a micro-batch is kept
    with the job's checkpoint."""
    from kindling.datastream import RuntimeExecutionMode

    settings = {"kindling.source.max-records-per-batch": "10"}
    if mode == "micro-batches":
        settings["execution.checkpointing.dir"] = str(tmp_path / "checkpoints")
    env = make_env(**settings)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    out = tmp_path / "out"
    compacted = FileSink.for_row_format(str(out / "compacted"), Encoder.simple_string_encoder()).enable_compact(
        FileCompactStrategy.builder().enable_compaction_on_checkpoint(2).build(), FileCompactor.concat_file_compactor())
    values = env.from_collection([f"r{i}" for i in range(30)], Types.STRING()).rebalance()
    values.sink_to(FileSink.for_row_format(str(out / "plain"), Encoder.simple_string_encoder()).build())
    values.sink_to(compacted.build())
    env.execute(f"bounded, {mode}")
    for name in ("plain", "compacted"):
        assert sorted(_lines(out / name)) == sorted(f"r{i}" for i in range(30))
        assert _hidden(out / name) == [] and _not_part_files(out / name) == []
        assert all(len(n.split("/")) == 2 for n in _visible(out / name))  # part files in date-time buckets


def test_date_time_buckets_and_rolling_by_size(env, tmp_path):
    before = datetime.datetime.now(datetime.timezone.utc)
    sink = (FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
            .with_bucket_assigner(BucketAssigner.date_time_bucket_assigner("yyyy-MM-dd--HH", "UTC"))
            .with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=100)).build())
    env.from_collection([f"{i:09}" for i in range(50)], Types.STRING()).sink_to(sink)
    env.execute("buckets")
    after = datetime.datetime.now(datetime.timezone.utc)
    names = _visible(tmp_path)
    buckets = {n.split("/")[0] for n in names}
    assert buckets <= {before.strftime("%Y-%m-%d--%H"), after.strftime("%Y-%m-%d--%H")} and len(buckets) == 1
    assert len(names) >= 5  # 500 bytes in parts of about 100
    assert sorted(_lines(tmp_path)) == [f"{i:09}" for i in range(50)]


def test_a_replayed_batch_rewrites_its_own_part_files(spark, tmp_path):
    writer = FileWriter(FileSinkSpec(base_path=str(tmp_path), encoder=Encoder.simple_string_encoder()))
    df = spark.createDataFrame([(f"{i}".encode(),) for i in range(20)], "f0 binary").repartition(2)
    assert writer.write(df, 7) == 20
    first = _visible(tmp_path)
    assert writer.write(df, 7) == 20  # Spark replays batch 7 after a failure
    assert _visible(tmp_path) == first and len(first) == 2
    assert sorted(map(int, _lines(tmp_path))) == list(range(20))
    bucket = first[0].split("/")[0]
    assert all(n.split("/")[0] == bucket for n in first)  # the replay's bucket is the first attempt's


def test_a_restarted_driver_replays_a_batch_into_its_first_bucket_and_clears_earlier_attempts(spark, tmp_path):
    """The bookkeeping lives under the job's checkpoint directory, not in the output: a new writer
    (a driver restarted on the same checkpoint) replays a batch into the bucket its first attempt
    chose, and leaves only its own part files of the batch: the in-progress file a failed task
    left is removed, and so is the part file of a task the first attempt had and the replay,
    at a lower parallelism, has not."""
    out, checkpoint = tmp_path / "out", str(tmp_path / "checkpoint")
    spec = FileSinkSpec(base_path=str(out), encoder=Encoder.simple_string_encoder(), bucket_format="%Y%m%d%H%M%S")
    df = spark.createDataFrame([(f"{i}".encode(),) for i in range(20)], "f0 binary")
    first = FileWriter(spec)
    first.bind(checkpoint)
    assert first.write(df.repartition(3), 7) == 20
    assert len(_visible(out)) == 3 and _hidden(out) == []
    bucket = _visible(out)[0].split("/")[0]
    time.sleep(1.1)  # a bucket chosen now would be another one
    (out / bucket / f".part-{first.token}-7-9.1.inprogress").write_text("half written by a failed task\n")
    again = FileWriter(spec)
    again.bind(checkpoint)
    again.token = first.token  # the token comes from the query's id, the same after a restart
    assert again.write(df.repartition(2), 7) == 20
    assert [n.split("/")[0] for n in _visible(out)] == [bucket, bucket] and _hidden(out) == []
    assert sorted(map(int, _lines(out))) == list(range(20))
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "out"]


def test_a_file_sink_after_a_spark_aggregation_keeps_its_bookkeeping_with_the_checkpoint(tmp_path):
    """The sinks after a group aggregation Spark computes (kindling/spark/table/aggregation.py) are
    written by the aggregation's writer: it hands them the job's checkpoint directory too."""
    from types import SimpleNamespace

    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec

    after = SimpleNamespace(id=1, sink=FileSinkSpec(base_path=str(tmp_path / "out"),
                                                    encoder=Encoder.simple_string_encoder()))
    writer = writer_for(AggregationSinkSpec(state_key="counts", downstream=[after]), Compiler)
    writer.bind(str(tmp_path / "checkpoint"))
    assert writer.writers[1].books.root.startswith(str(tmp_path / "checkpoint"))


def test_csv_to_transform_to_parquet(any_env, tmp_path):
    any_env.set_parallelism(2)
    (tmp_path / "in").mkdir()
    for part in range(3):
        (tmp_path / "in" / f"{part}.csv").write_text(
            "".join(f"{i},n{i},{i / 2}\n" for i in range(part * 100, part * 100 + 100)))
    schema = (CsvSchema.builder().add_number_column("id", Types.INT()).add_string_column("name")
              .add_number_column("score", Types.DOUBLE()).build())
    source = FileSource.for_record_stream_format(CsvReaderFormat.for_schema(schema), str(tmp_path / "in")).build()
    out_type = Types.ROW_NAMED(["id", "name", "doubled"], [Types.INT(), Types.STRING(), Types.DOUBLE()])
    any_env.from_source(source, WatermarkStrategy.no_watermarks(), "csv") \
        .filter(lambda r: r.id % 2 == 0) \
        .map(lambda r: Row(id=r.id, name=r.name.upper(), doubled=r.score * 2), out_type) \
        .sink_to(FileSink.for_bulk_format(str(tmp_path / "out"), ParquetBulkWriters.for_row_type(out_type))
                 .with_output_file_config(OutputFileConfig("part", ".parquet")).build())
    any_env.execute("csv to parquet")
    names = _visible(tmp_path / "out")
    assert names and all(n.endswith(".parquet") for n in names)
    table = pa.concat_tables([pq.read_table(tmp_path / "out" / n) for n in names])
    assert table.schema.names == ["id", "name", "doubled"] and table.schema.field("id").type == pa.int32()
    assert sorted(table.to_pylist(), key=lambda r: r["id"]) == [
        {"id": i, "name": f"N{i}", "doubled": float(i)} for i in range(0, 300, 2)]


def test_orc_csv_avro_and_avro_parquet_writers(env, tmp_path):
    schema = (CsvSchema.builder().add_number_column("id", Types.INT()).add_string_column("name")
              .add_number_column("score", Types.DOUBLE()).build())
    avro = AvroSchema.parse_string("""{"type": "record", "name": "R", "fields": [
        {"name": "id", "type": "int"}, {"name": "name", "type": "string"}, {"name": "score", "type": "double"}]}""")
    writers = {"orc": OrcBulkWriters.for_row_type(ROW), "csv": CsvBulkWriters.for_schema(schema),
               "avro": AvroBulkWriters.for_generic_record(avro), "avro_parquet": AvroParquetWriters.for_generic_record(avro)}
    stream = env.from_collection(_rows(30), ROW)
    for name, factory in writers.items():
        stream.sink_to(FileSink.for_bulk_format(str(tmp_path / name), factory)
                       .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build())
    env.execute("bulk writers")
    expected = [r.as_dict() for r in _rows(30)]
    by_id = lambda records: sorted(records, key=lambda r: r["id"])  # noqa: E731  (a part file per sink instance)

    def each(name):
        return [os.path.join(tmp_path, name, n) for n in _visible(tmp_path / name)]

    assert by_id(r for p in each("orc") for r in orc.read_table(p).to_pylist()) == expected
    assert by_id(r for p in each("avro_parquet") for r in pq.read_table(p).to_pylist()) == expected
    import fastavro

    avro_records = []
    for p in each("avro"):
        with open(p, "rb") as f:
            avro_records += list(fastavro.reader(f))
    assert by_id(avro_records) == expected
    assert sorted((line for p in each("csv") for line in open(p).read().splitlines()),
                  key=lambda line: int(line.split(",")[0])) == [f"{i},n{i},{i / 2}" for i in range(30)]


def test_legacy_streaming_file_sink(env, tmp_path):
    sink = (StreamingFileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build())
    env.from_collection(["a", "b"], Types.STRING()).add_sink(sink)
    env.execute("legacy")
    assert sorted(_lines(tmp_path)) == ["a", "b"]
    with pytest.raises(TypeError, match="on_checkpoint_rolling_policy"):
        FileSink.for_bulk_format(str(tmp_path), ParquetBulkWriters.for_row_type(ROW)) \
            .with_rolling_policy(RollingPolicy.default_rolling_policy())


class _FailOnce:
    """A map that fails once (while ``marker`` exists) on the element ``poison``, in the middle of
    a micro-batch whose other task has written its part file."""

    def __init__(self, marker: str, poison: str):
        self.marker, self.poison = marker, poison

    def __call__(self, value: str) -> str:
        if value == self.poison and os.path.exists(self.marker):
            time.sleep(1.0)  # the other task writes its in-progress part file meanwhile
            os.remove(self.marker)
            raise RuntimeError("injected failure in the middle of a micro-batch")
        return value


@pytest.mark.timeout(600)
@pytest.mark.parametrize("compaction", [False, True])
def test_restart_from_the_checkpoint_writes_every_record_exactly_once(make_env, tmp_path, compaction):
    source_dir, out = tmp_path / "in", tmp_path / "out"
    source_dir.mkdir()
    marker = str(tmp_path / "fail-once")

    def put(name: str, values: list) -> None:
        staged = source_dir / f".{name}"
        staged.write_text("".join(f"{v}\n" for v in values))
        os.replace(staged, source_dir / name)

    def start():
        env = make_env(**{"execution.checkpointing.dir": str(tmp_path / "checkpoints")})
        source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(source_dir))
                  .monitor_continuously(Duration.of_millis(100)).build())
        source._spec.split_bytes = 64  # several splits per file: both tasks write in every batch
        sink = FileSink.for_row_format(str(out), Encoder.simple_string_encoder())
        if compaction:  # each micro-batch's part files compacted before it commits
            sink = sink.enable_compact(FileCompactStrategy.builder().enable_compaction_on_checkpoint(1).build(),
                                       FileCompactor.concat_file_compactor())
        env.from_source(source, WatermarkStrategy.no_watermarks(), "files") \
            .map(_FailOnce(marker, "poison"), Types.STRING()) \
            .sink_to(sink.build())
        return env.execute_async("files restart")

    def wait_for(n: int) -> None:
        deadline = time.time() + 180
        while len(_lines(out)) < n and time.time() < deadline:
            time.sleep(0.2)

    put("a.txt", [f"a{i}" for i in range(40)])
    client = start()
    try:
        wait_for(40)
        put("b.txt", [f"b{i}" for i in range(40)])
        wait_for(80)
        open(marker, "w").close()
        put("c.txt", [f"c{i}" for i in range(20)] + ["poison"] + [f"c{i}" for i in range(20, 40)])
        with pytest.raises(Exception, match="injected failure"):
            client.get_job_execution_result().result(180)
    finally:
        client.cancel()
    assert not os.path.exists(marker)  # the failure happened
    assert sorted(_lines(out)) == sorted([f"a{i}" for i in range(40)] + [f"b{i}" for i in range(40)])

    put("d.txt", [f"d{i}" for i in range(40)])
    client = start()
    try:
        wait_for(161)
    finally:
        client.cancel()
        try:
            client.get_job_execution_result().result(60)
        except Exception:
            pass  # cancelled
    expected = [f"{p}{i}" for p in "abcd" for i in range(40)] + ["poison"]
    assert sorted(_lines(out)) == sorted(expected)  # every record once: none lost, none twice
    if compaction:
        assert all(n.split("/")[-1].startswith("compacted-") for n in _visible(out))
    assert _not_part_files(out) == []  # the bucket tree of an unbounded job holds no bookkeeping


# -- typed streams into columnar writers ---------------------------------------------------------

def test_parquet_takes_untyped_rows_and_names_a_value_that_does_not_fit(any_env, tmp_path):
    any_env.set_parallelism(2)
    sink = FileSink.for_bulk_format(str(tmp_path / "out"), ParquetBulkWriters.for_row_type(ROW)) \
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build()
    any_env.from_collection(list(range(40))).map(lambda i: Row(id=i, name=f"n{i}", score=i / 2)).sink_to(sink)
    any_env.execute("untyped rows")
    rows = [r for n in _visible(tmp_path / "out") for r in pq.read_table(tmp_path / "out" / n).to_pylist()]
    assert sorted(rows, key=lambda r: r["id"]) == [r.as_dict() for r in _rows(40)]
    any_env.from_collection([1, 2]).map(lambda i: Row(id="one", name="x", score=1.0)).sink_to(
        FileSink.for_bulk_format(str(tmp_path / "bad"), ParquetBulkWriters.for_row_type(ROW)).build())
    with pytest.raises(Exception, match="field id 'one'.*the row type of sink"):
        any_env.execute("a value that does not fit")


# -- compaction ------------------------------------------------------------------------------------

def _compacting_sink(base, strategy, compactor=None, part_size=None):
    builder = FileSink.for_row_format(str(base), Encoder.simple_string_encoder()) \
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
    if part_size:
        builder = builder.with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=part_size))
    return builder.enable_compact(strategy, compactor or FileCompactor.concat_file_compactor()).build()


def test_compaction_every_two_micro_batches_and_at_the_end(make_env, tmp_path):
    env = make_env(**{"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                      "kindling.source.max-records-per-batch": "10"})
    strategy = FileCompactStrategy.builder().enable_compaction_on_checkpoint(2).build()
    env.from_collection([f"r{i}" for i in range(50)], Types.STRING()).rebalance() \
        .sink_to(_compacting_sink(tmp_path / "out", strategy))
    env.execute("compaction on checkpoints")
    names = _visible(tmp_path / "out")
    assert names and all(n.startswith("compacted-part-") for n in names)
    assert 2 <= len(names) <= 3  # batches 0-1, 2-3, and batch 4 at the end of the input
    assert sorted(_lines(tmp_path / "out")) == sorted(f"r{i}" for i in range(50))
    assert _hidden(tmp_path / "out") == []  # no part file left waiting, none half written


def test_compaction_by_size_in_a_batch_job(env, tmp_path):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    strategy = FileCompactStrategy.builder().set_size_threshold(300).set_num_compact_threads(2).build()
    values = [f"{i:09}" for i in range(100)]  # 1,000 bytes in 10 part files of 100
    env.from_collection(values, Types.STRING()) \
        .sink_to(_compacting_sink(tmp_path / "out", strategy, FileCompactor.concat_file_compactor(b"#\n"), 100))
    env.execute("compaction by size")
    names = _visible(tmp_path / "out")
    sizes = [os.path.getsize(tmp_path / "out" / n) for n in names]
    assert all(n.startswith("compacted-") for n in names) and len(names) >= 2 and min(sizes[:-1]) >= 300
    lines = _lines(tmp_path / "out")
    assert sorted(line for line in lines if line != "#") == values and lines.count("#") == 10  # one after each file


def test_a_replayed_micro_batch_that_compacted_adds_no_record(spark, tmp_path):
    spec = FileSinkSpec(base_path=str(tmp_path), encoder=Encoder.simple_string_encoder(), bucket_format=None,
                        compaction=(FileCompactStrategy.builder().enable_compaction_on_checkpoint(1).build(),
                                    FileCompactor.concat_file_compactor()))
    writer = FileWriter(spec)

    def batch(first: int):
        return spark.createDataFrame([(f"{i}".encode(),) for i in range(first, first + 10)], "f0 binary").repartition(2)

    writer.write(batch(0), 0)
    writer.write(batch(10), 1)
    expected = [str(i) for i in range(20)]
    assert sorted(_lines(tmp_path), key=int) == expected and _hidden(tmp_path) == []
    target = [n for n in _visible(tmp_path) if "-1-" in n][0]
    writer.write(batch(10), 1)  # Spark replays batch 1: its part files are written again
    assert sorted(_lines(tmp_path), key=int) == expected and _hidden(tmp_path) == []
    os.remove(tmp_path / target)  # as if the driver had died before the compacted file became visible
    writer.write(batch(10), 1)
    assert sorted(_lines(tmp_path), key=int) == expected and _hidden(tmp_path) == []


def test_compaction_settings_are_checked(env, tmp_path):
    with pytest.raises(ValueError, match="At least one trigger"):
        FileCompactStrategy.builder().build()
    with pytest.raises(ValueError, match="more than 0"):
        FileCompactStrategy.builder().enable_compaction_on_checkpoint(0)
    strategy = FileCompactStrategy.builder().set_size_threshold(1).build()
    with pytest.raises(ValueError, match="no valid PARQUET file"):
        FileSink.for_bulk_format(str(tmp_path), ParquetBulkWriters.for_row_type(ROW)) \
            .enable_compact(strategy, FileCompactor.concat_file_compactor())
    env.from_collection([str(i) for i in range(10)], Types.STRING()) \
        .sink_to(_compacting_sink(tmp_path / "out", FileCompactStrategy.builder().set_size_threshold(1 << 20).build(),
                                  FileCompactor.identical_file_compactor(), part_size=10))
    with pytest.raises(Exception, match="identical_file_compactor\\(\\) copies one file, but 2 part files"):
        env.execute("identical with two files")
