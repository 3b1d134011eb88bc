"""The FileSource: splits, the monitored high-water mark, and every format, end to end on Spark
with parallelism 2 (see kindling/spark/files.py)."""
from __future__ import annotations

import datetime
import os
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from collect_support import take  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Duration, Types, WatermarkStrategy
from kindling.common.types import Row
from kindling.datastream.connectors import DiscardingSink
from kindling.datastream.connectors.file_system import (FileEnumeratorProvider, FileSource, StreamFormat)
from kindling.datastream.formats.avro import AvroInputFormat, AvroSchema
from kindling.datastream.formats.csv import CsvReaderFormat, CsvSchema
from kindling.datastream.formats.json import JsonLinesFormat
from kindling.datastream.formats.parquet import AvroParquetReaders, ParquetColumnarRowInputFormat
from kindling.graph.specs import FileSourceSpec
from kindling.spark.files import FileListing, ParseError, read_split

ROW = Types.ROW_NAMED(["id", "name", "score"], [Types.INT(), Types.STRING(), Types.DOUBLE()])


def _read(spec: FileSourceSpec, type_info=Types.STRING()) -> list:
    out = []
    for split in FileListing(spec).splits():
        for batch in read_split(spec.format, type_info, split):
            out += batch.to_pylist()
    return out



def _source(fmt, path, split_bytes=None, monitor=False):
    builder = (FileSource.for_bulk_file_format(fmt, path) if fmt.kind == "parquet"
               else FileSource.for_record_stream_format(fmt, path))
    if monitor:
        builder = builder.monitor_continuously(Duration.of_millis(100))
    source = builder.build()
    if split_bytes:
        source._spec.split_bytes = split_bytes
    return source


# -- splits -----------------------------------------------------------------------------------

@pytest.mark.parametrize("content", [b"alpha\nbeta\r\n\ngamma delta\r\nlast", b"a\nbb\nccc\n", b"\n\n", b"",
                                     b"one\rtwo\r\nthree\n"])
def test_every_line_is_read_once_whatever_the_split_size(tmp_path, content):
    (tmp_path / "a.txt").write_bytes(content)
    expected = content.decode().splitlines()
    for split_bytes in range(1, len(content) + 2):
        spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format(), split_bytes=split_bytes)
        assert [r["f0"] for r in _read(spec)] == expected, split_bytes


def test_large_files_are_cut_into_splits_and_small_ones_are_not(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 99 + "\n" * 1 + "y" * 100)
    (tmp_path / "small.txt").write_text("z\n")
    (tmp_path / ".hidden").write_text("never\n")
    (tmp_path / "_meta").write_text("never\n")
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format(), split_bytes=50)
    splits = FileListing(spec).splits()
    assert [(os.path.basename(s.path), s.start, s.end) for s in splits] == [
        ("big.txt", 0, 50), ("big.txt", 50, 100), ("big.txt", 100, 150), ("big.txt", 150, 200), ("small.txt", 0, None)]
    assert [r["f0"] for r in _read(spec)] == ["x" * 99, "y" * 100, "z"]


def test_a_utf16_file_is_one_split_decoded_as_a_stream(tmp_path):
    (tmp_path / "u.txt").write_bytes("één\ntwee\n".encode("utf-16"))
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format("UTF-16"), split_bytes=4)
    assert [r["f0"] for r in _read(spec)] == ["één", "twee"]


def test_the_monitored_offset_is_a_high_water_mark_that_does_not_grow(tmp_path):
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format(), monitor_interval_ms=100)
    listing = FileListing(spec)
    offset = listing.initial_offset()

    def files_read(start, end):
        return [os.path.basename(part.path) for _, part, _ in listing.parts_between(start, end)]

    for i in range(30):
        path = tmp_path / f"f{i:02}.txt"
        path.write_text(f"{i}\n")
        os.utime(path, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
        end = listing.latest_offset(offset)
        assert files_read(offset, end) == [f"f{i:02}.txt"]
        assert end == {"mtime": 10**18 + i * 10**9, "at": [str(path)], "open": [], "end": False}  # one file, however many read
        offset = end
    # two files of the same modification time: both remembered; nothing new: the same offset
    for name in ("g1.txt", "g2.txt"):
        (tmp_path / name).write_text("g\n")
        os.utime(tmp_path / name, ns=(2 * 10**18, 2 * 10**18))
    end = listing.latest_offset(offset)
    assert len(files_read(offset, end)) == 2 and len(end["at"]) == 2
    assert listing.latest_offset(end) == end and files_read(end, end) == []


def test_non_splittable_enumerator_reads_each_file_as_one_split(tmp_path):
    (tmp_path / "a.txt").write_text("line\n" * 100)
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .set_file_enumerator(FileEnumeratorProvider.default_non_splittable_file_enumerator()).build())
    assert len(FileListing(source._spec).splits()) == 1


# -- end to end -------------------------------------------------------------------------------

def test_bounded_text_in_many_splits_on_spark(any_env, tmp_path):
    any_env.set_parallelism(2)
    lines = [f"line-{i}" for i in range(500)]
    (tmp_path / "a.txt").write_text("\n".join(lines[:300]) + "\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("\n".join(lines[300:]))
    ds = any_env.from_source(_source(StreamFormat.text_line_format(), str(tmp_path), split_bytes=256),
                             WatermarkStrategy.no_watermarks(), "lines")
    assert sorted(ds.map(lambda s: s.upper()).execute_and_collect()) == sorted(s.upper() for s in lines)


def test_monitored_files_are_read_once_each_as_they_arrive(env, tmp_path):
    env.set_parallelism(2)
    (tmp_path / "1.txt").write_text("1\n2\n3\n")
    ds = env.from_source(_source(StreamFormat.text_line_format(), str(tmp_path), split_bytes=3, monitor=True),
                         WatermarkStrategy.no_watermarks(), "lines").map(int)
    with ds.execute_and_collect() as results:
        assert sorted(take(results, 3)) == [1, 2, 3]
        time.sleep(0.05)
        staged = tmp_path / ".2.txt"
        staged.write_text("4\n5\n")
        os.replace(staged, tmp_path / "2.txt")  # moved in complete
        assert sorted(take(results, 2)) == [4, 5]


def test_csv_with_header_quotes_and_types(any_env, tmp_path):
    any_env.set_parallelism(2)
    (tmp_path / "a.csv").write_text('id,name,score\n1,alice,2.5\n2,,3\n3,"bob, ""jr""",7\n')
    (tmp_path / "b.csv").write_text('id,name,score\n4,"multi\nline",1e3\n')
    schema = (CsvSchema.builder().add_number_column("id", Types.INT()).add_string_column("name")
              .add_number_column("score", Types.DOUBLE()).set_use_header().build())
    assert schema.get_type_info() == ROW
    ds = any_env.from_source(_source(CsvReaderFormat.for_schema(schema), str(tmp_path)),
                             WatermarkStrategy.no_watermarks(), "csv")
    assert ds.get_type() == ROW
    rows = sorted(ds.execute_and_collect(), key=lambda r: r.id)
    assert rows == [Row(id=1, name="alice", score=2.5), Row(id=2, name="", score=3.0),
                    Row(id=3, name='bob, "jr"', score=7.0), Row(id=4, name="multi\nline", score=1000.0)]


def test_csv_separator_null_value_comments_and_arrays(tmp_path):
    (tmp_path / "a.csv").write_text("# a comment\n1|x;y|NULL|true\n2||b|FALSE\n")
    schema = (CsvSchema.builder().add_number_column("id").add_array_column("tags", ";")
              .add_string_column("s").add_boolean_column("ok").set_column_separator("|")
              .set_null_value("NULL").set_allow_comments().build())
    spec = FileSourceSpec(paths=[str(tmp_path)], format=CsvReaderFormat.for_schema(schema))
    assert _read(spec, schema.get_type_info()) == [{"id": 1, "tags": ["x", "y"], "s": None, "ok": True},
                                                   {"id": 2, "tags": [], "s": "b", "ok": False}]


def test_a_malformed_csv_line_fails_the_job_naming_file_and_line(env, tmp_path):
    (tmp_path / "bad.csv").write_text("1,a,1.0\n2,b,1.5\n3,c,oops\n")
    schema = (CsvSchema.builder().add_number_column("id", Types.INT()).add_string_column("name")
              .add_number_column("score", Types.DOUBLE()).build())
    ds = env.from_source(_source(CsvReaderFormat.for_schema(schema), str(tmp_path)),
                         WatermarkStrategy.no_watermarks(), "csv")
    with pytest.raises(Exception, match=r"bad\.csv, line 3: column 'score': cannot read 'oops'"):
        list(ds.execute_and_collect())
    skipping = env.from_source(_source(CsvReaderFormat.for_schema(schema).ignore_parse_errors(), str(tmp_path)),
                               WatermarkStrategy.no_watermarks(), "csv")
    assert sorted(r.id for r in skipping.execute_and_collect()) == [1, 2]


def test_json_lines_in_splits_and_a_malformed_line(any_env, tmp_path):
    any_env.set_parallelism(2)
    good = [f'{{"id": {i}, "name": "n{i}", "score": {i / 2}}}' for i in range(40)]
    (tmp_path / "a.json").write_text("\n".join(good[:20]) + "\n\n" + "\n".join(good[20:]) + "\n")
    row_type = ROW
    ds = any_env.from_source(_source(JsonLinesFormat.for_type_info(row_type), str(tmp_path), split_bytes=100),
                             WatermarkStrategy.no_watermarks(), "json")
    rows = sorted(ds.execute_and_collect(), key=lambda r: r.id)
    assert rows == [Row(id=i, name=f"n{i}", score=i / 2) for i in range(40)]
    (tmp_path / "b.json").write_text('{"id": 1}\n{"id": 2\n')
    spec = FileSourceSpec(paths=[str(tmp_path / "b.json")], format=JsonLinesFormat.for_type_info(row_type))
    with pytest.raises(ParseError, match=r"b\.json, line 2: .*ignore_parse_errors"):
        _read(spec, row_type)
    spec.format = spec.format.ignore_parse_errors()
    assert _read(spec, row_type) == [{"id": 1, "name": None, "score": None}]


def test_parquet_row_groups_are_splits(any_env, tmp_path):
    any_env.set_parallelism(2)
    table = pa.table({"id": pa.array(range(1000), pa.int64()), "name": [f"n{i}" for i in range(1000)],
                      "score": [i / 4 for i in range(1000)], "extra": [True] * 1000})
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=100)
    source = _source(ParquetColumnarRowInputFormat(ROW), str(tmp_path), split_bytes=1000)
    assert len(FileListing(source._spec).splits()) > 2
    ds = any_env.from_source(source, WatermarkStrategy.no_watermarks(), "parquet")
    rows = sorted(ds.execute_and_collect(), key=lambda r: r.id)
    assert rows == [Row(id=i, name=f"n{i}", score=i / 4) for i in range(1000)]


def test_parquet_missing_column_is_named(tmp_path):
    pq.write_table(pa.table({"id": [1]}), tmp_path / "a.parquet")
    spec = FileSourceSpec(paths=[str(tmp_path)], format=ParquetColumnarRowInputFormat(ROW))
    with pytest.raises(ParseError, match="has no column 'name'"):
        _read(spec, ROW)


AVRO_SCHEMA = """{"type": "record", "name": "User", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"]}]}"""


def test_avro_files_and_avro_records_in_parquet(tmp_path):
    import fastavro

    schema = AvroSchema.parse_string(AVRO_SCHEMA)
    records = [{"id": i, "name": None if i == 2 else f"u{i}"} for i in range(5)]
    with open(tmp_path / "users.avro", "wb") as f:
        fastavro.writer(f, schema.parsed, records)
    avro = AvroInputFormat(str(tmp_path / "users.avro"), schema)
    spec = FileSourceSpec(paths=[avro.path], format=avro)
    from kindling.spark.codec import codec_for

    decode = codec_for(avro.get_produced_type()).decode
    assert [v for b in (read_split(avro, avro.get_produced_type(), s) for s in FileListing(spec).splits())
            for batch in b for v in decode(batch.columns)] == records
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "users.parquet")
    fmt = AvroParquetReaders.for_generic_record(schema)
    spec = FileSourceSpec(paths=[str(tmp_path / "users.parquet")], format=fmt)
    assert [v for s in FileListing(spec).splits() for batch in read_split(fmt, fmt.produced_type(), s)
            for v in decode(batch.columns)] == records


def test_a_missing_path_fails_while_building(env, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        env.from_source(_source(StreamFormat.text_line_format(), str(tmp_path / "nope")),
                        WatermarkStrategy.no_watermarks(), "lines")


def test_file_uris_are_read_through_pyarrow_filesystems(env, tmp_path):
    (tmp_path / "a.txt").write_text("x\ny\n")
    ds = env.from_source(_source(StreamFormat.text_line_format(), tmp_path.as_uri()),
                         WatermarkStrategy.no_watermarks(), "lines")
    assert sorted(ds.execute_and_collect()) == ["x", "y"]


def test_dates_in_csv(tmp_path):
    (tmp_path / "a.csv").write_text("2024-01-02,7\n")
    schema = CsvSchema.builder().add_column("day", Types.SQL_DATE()).add_number_column("n").build()
    spec = FileSourceSpec(paths=[str(tmp_path)], format=CsvReaderFormat.for_schema(schema))
    assert _read(spec, schema.get_type_info()) == [{"day": datetime.date(2024, 1, 2), "n": 7}]


def test_create_input_reads_avro_files_as_dicts(any_env, tmp_path):
    import fastavro

    any_env.set_parallelism(2)
    schema = AvroSchema.parse_string(AVRO_SCHEMA)
    for part in range(2):
        with open(tmp_path / f"{part}.avro", "wb") as f:
            fastavro.writer(f, schema.parsed, [{"id": part * 10 + i, "name": f"u{i}"} for i in range(3)])
    users = any_env.create_input(AvroInputFormat(str(tmp_path), schema))
    assert sorted(users.map(lambda r: (r["id"], r["name"])).execute_and_collect()) == [
        (p * 10 + i, f"u{i}") for p in range(2) for i in range(3)]
    with pytest.raises(TypeError, match="AvroInputFormat"):
        any_env.create_input(object())


# -- large files: bounded memory, splits, line numbers ----------------------------------------------

LARGE = 25_000  # lines: more than a batch (ROWS_PER_ARROW_BATCH) and than a read chunk


def _batches(spec: FileSourceSpec, type_info) -> list:
    return [batch for split in FileListing(spec).splits() for batch in read_split(spec.format, type_info, split)]


@pytest.mark.parametrize("quoted", [False, True])
def test_a_large_csv_file_is_read_in_batches_and_names_the_line_of_a_bad_record(tmp_path, quoted):
    builder = CsvSchema.builder().add_number_column("id").add_string_column("name").set_use_header()
    schema = (builder if quoted else builder.disable_quote_char()).build()
    lines = [f"{i},n{i}" for i in range(LARGE)]
    lines[20_000] = '20000,"two\nlines"' if quoted else lines[20_000]  # Python's reader from here on
    path = tmp_path / "big.csv"
    path.write_text("id,name\n" + "\n".join(lines) + "\n")
    fmt = CsvReaderFormat.for_schema(schema)
    spec = FileSourceSpec(paths=[str(path)], format=fmt, split_bytes=100_000)
    splits = FileListing(spec).splits()
    assert len(splits) == (1 if quoted else 4)  # a field may hold a line break: the file is one split
    batches = _batches(spec, schema.get_type_info())
    assert len(batches) >= 3  # never the whole file at once
    rows = [r for b in batches for r in b.to_pylist()]
    assert [r["id"] for r in rows] == list(range(LARGE))
    assert rows[20_000]["name"] == ("two\nlines" if quoted else "n20000")

    bad = 24_000 if quoted else 17_000  # the record's line (the header is line 1, a quoted field holds a break)
    lines[bad - (3 if quoted else 2)] = "oops,x"
    path.write_text("id,name\n" + "\n".join(lines) + "\n")
    with pytest.raises(ParseError, match=rf"big\.csv, line {bad}: column 'id': cannot read 'oops'"):
        _batches(spec, schema.get_type_info())
    spec.format = fmt.ignore_parse_errors()
    skipped = [0]
    read = [r for s in FileListing(spec).splits()
            for b in read_split(spec.format, schema.get_type_info(), s, skipped) for r in b.to_pylist()]
    assert len(read) == LARGE - 1 and skipped == [1]


def test_a_large_json_lines_file_in_splits_names_the_line_of_a_bad_record(tmp_path):
    lines = [f'{{"id": {i}}}' for i in range(LARGE)]
    lines[22_222] = '{"id": '
    (tmp_path / "big.json").write_text("\n".join(lines) + "\n")
    row_type = Types.ROW_NAMED(["id"], [Types.LONG()])
    spec = FileSourceSpec(paths=[str(tmp_path)], format=JsonLinesFormat.for_type_info(row_type), split_bytes=100_000)
    assert len(FileListing(spec).splits()) > 2
    with pytest.raises(ParseError, match=r"big\.json, line 22223: "):
        _batches(spec, row_type)
    lines[22_222], lines[10_000] = '{"id": 22222}', '{"id": "ten"}'  # a field not of its type
    (tmp_path / "big.json").write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError, match=r"big\.json, line 10001: .*'ten'"):
        _batches(spec, row_type)


AVRO_SCHEMA_TEXT = """{"type": "record", "name": "R", "fields": [{"name": "id", "type": "long"},
    {"name": "s", "type": "string"}]}"""


def _avro_file(path, n: int) -> None:
    import fastavro

    with open(path, "wb") as f:
        fastavro.writer(f, AvroSchema.parse_string(AVRO_SCHEMA_TEXT).parsed,
                        ({"id": i, "s": "x" * (i % 7)} for i in range(n)), sync_interval=500, codec="deflate")


def test_avro_files_are_read_in_splits_of_blocks_and_a_damaged_block_is_named_or_skipped(tmp_path):
    _avro_file(tmp_path / "a.avro", 5000)
    avro = AvroInputFormat(str(tmp_path / "a.avro"), AvroSchema.parse_string(AVRO_SCHEMA_TEXT))
    from kindling.spark.codec import codec_for

    decode = codec_for(avro.get_produced_type()).decode
    for split_bytes in (300, 5000, 1 << 30):
        spec = FileSourceSpec(paths=[avro.path], format=avro, split_bytes=split_bytes)
        assert len(FileListing(spec).splits()) == -(-os.path.getsize(avro.path) // split_bytes)
        ids = [v["id"] for b in _batches(spec, avro.get_produced_type()) for v in decode(b.columns)]
        assert ids == list(range(5000))
    data = bytearray((tmp_path / "a.avro").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "a.avro").write_bytes(data)
    spec = FileSourceSpec(paths=[avro.path], format=avro, split_bytes=1000)
    with pytest.raises(ParseError, match=r"a\.avro, (record \d+ of )?the block at byte \d+: .*ignore_parse_errors"):
        _batches(spec, avro.get_produced_type())
    spec.format = avro.ignore_parse_errors()
    skipped = [0]
    ids = [v["id"] for s in FileListing(spec).splits()
           for b in read_split(spec.format, avro.get_produced_type(), s, skipped) for v in decode(b.columns)]
    assert skipped[0] > 0 and len(ids) + skipped[0] == 5000 and ids == sorted(ids)


def test_skipped_csv_json_and_avro_records_are_counted_in_the_job_metrics(any_env, tmp_path):
    """Both read paths: a STREAMING job's data source and a BATCH job's stage reading its splits."""
    (tmp_path / "a.csv").write_text("1,a\nx,b\n3,c\n")
    (tmp_path / "b.json").write_text('{"id": 4, "name": "d"}\n{broken\n{"id": "five"}\n')
    _avro_file(tmp_path / "c.avro", 2000)
    data = bytearray((tmp_path / "c.avro").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "c.avro").write_bytes(data)
    schema = CsvSchema.builder().add_number_column("id", Types.INT()).add_string_column("name").build()
    csv_rows = any_env.from_source(_source(CsvReaderFormat.for_schema(schema).ignore_parse_errors(),
                                           str(tmp_path / "a.csv")), WatermarkStrategy.no_watermarks(), "csv in")
    json_rows = any_env.from_source(_source(JsonLinesFormat.for_type_info(schema.get_type_info()).ignore_parse_errors(),
                                            str(tmp_path / "b.json")), WatermarkStrategy.no_watermarks(), "json in")
    avro = AvroInputFormat(str(tmp_path / "c.avro"), AvroSchema.parse_string(AVRO_SCHEMA_TEXT)).ignore_parse_errors()
    avro_rows = any_env.create_input(avro).map(lambda r: Row(id=r["id"], name=r["s"]), schema.get_type_info())
    ids = csv_rows.union(json_rows, avro_rows).map(lambda r: r.id, Types.INT())
    ids.sink_to(DiscardingSink())
    result = any_env.execute("skipping")
    assert result.get_accumulator_result("metrics:csv in.numRecordsInErrors") == 1
    assert result.get_accumulator_result("metrics:json in.numRecordsInErrors") == 2
    avro_skipped = result.get_accumulator_result("metrics:Avro Input Format.numRecordsInErrors")
    assert avro_skipped > 0
    assert result.get_accumulator_result("records-written:DiscardingSink") == 2 + 1 + 2000 - avro_skipped
