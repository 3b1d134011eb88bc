"""A micro-batch reads at most ``kindling.source.max-records-per-batch`` records of a source,
shared by its splits, each split going on where the previous micro-batch stopped; a split ends (and
its watermark channel finishes) only in the micro-batch that reads it to its end, at MAX_WATERMARK
only once no split of the source is still to start (kindling/spark/read_shares.py, sources.py,
files.py; fast: no Spark)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kindling.common import Types
from kindling.datastream.connectors.file_system import StreamFormat
from kindling.datastream.formats.avro import AvroInputFormat, AvroSchema
from kindling.datastream.formats.csv import CsvReaderFormat, CsvSchema
from kindling.datastream.formats.json import JsonLinesFormat
from kindling.datastream.formats.parquet import ParquetColumnarRowInputFormat
from kindling.graph.specs import FileSourceSpec
from kindling.spark.files import FileListing, read_split
from kindling.spark.read_shares import share_out
from kindling.spark.sources import IndexSplits
from kindling.spark.rows import LAST_SPLIT_END_MARK, SPLIT_END_MARK


def test_a_budget_is_shared_evenly_and_what_a_split_cannot_use_goes_to_the_others():
    assert share_out(None, [5, 0, 7]) == [5, 0, 7]
    assert share_out(10, [100, 100]) == [5, 5]
    assert share_out(10, [2, 100, 100]) == [2, 4, 4]
    assert share_out(3, [50, 60, 70]) == [1, 1, 1]
    assert share_out(2, [50, 60, 70]) == [0, 1, 1]  # the splits with the most left first: they take turns
    assert share_out(0, [5, 5]) == [0, 0]
    assert share_out(100, [3, 4]) == [3, 4]


def test_index_splits_advance_together_and_each_ends_once():
    splits = IndexSplits.initial(10, 3)
    assert splits == [[0, 3, 0], [3, 6, 3], [6, 10, 6]]
    seen, endings = [], []
    while any(position < end for _, end, position in splits):
        moved = IndexSplits.advance(splits, 4)
        assert IndexSplits.read(moved) - IndexSplits.read(splits) <= 4
        for part in IndexSplits.slices(splits, moved):
            assert part.label in ("0-3", "3-6", "6-10")  # a split keeps its name from batch to batch
            seen += range(part.start, part.end)
            endings += [(part.label, part.ending)] if part.ending is not None else []
        splits = moved
    assert sorted(seen) == list(range(10))
    assert sorted(endings) == [("0-3", LAST_SPLIT_END_MARK), ("3-6", LAST_SPLIT_END_MARK), ("6-10", LAST_SPLIT_END_MARK)]


def test_a_split_ending_before_another_started_does_not_end_at_max_watermark():
    splits = IndexSplits.initial(3, 2)  # [0, 1) and [1, 3)
    moved = IndexSplits.advance(splits, 1)
    assert moved == [[0, 1, 0], [1, 3, 2]]  # the split with the most left first
    moved = [[0, 1, 1], [1, 3, 1]]  # had the first split been read alone, the second not started
    assert [(p.label, p.ending) for p in IndexSplits.slices(splits, moved)] == [("0-1", SPLIT_END_MARK)]


# -- files --------------------------------------------------------------------------------------

def _micro_batches(spec: FileSourceSpec, type_info, budget: int, parallelism: int = 2) -> list[list[tuple]]:
    """The micro-batches a stream reader runs over ``spec``: per batch ``(split, records, ending)``
    of each part it reads."""
    listing = FileListing(spec, parallelism, type_info)
    offset, batches = listing.initial_offset(), []
    while not offset["end"]:
        end = listing.latest_offset(offset, budget)
        assert end != offset, "no progress"
        batches.append([(label, [r for b in read_split(spec.format, type_info, part) for r in b.to_pylist()], ending)
                        for label, part, ending in listing.parts_between(offset, end)])
        offset = end
    return batches


def _whole(spec: FileSourceSpec, type_info) -> dict[str, list]:
    return {s.label: [r for b in read_split(spec.format, type_info, s) for r in b.to_pylist()]
            for s in FileListing(spec).splits()}


def _text(tmp_path):
    for i in range(3):  # a blank line, a \r\n and a last line without its \n: every record once
        (tmp_path / f"{i}.txt").write_bytes(b"".join(f"{i}-{n}\n".encode() for n in range(230)) + b"\nx\r\nlast")
    return StreamFormat.text_line_format(), Types.STRING(), 700


def _utf16(tmp_path):
    (tmp_path / "u.txt").write_bytes("".join(f"é{n}\n" for n in range(500)).encode("utf-16"))
    return StreamFormat.text_line_format("UTF-16"), Types.STRING(), 1 << 30


def _json(tmp_path):
    (tmp_path / "a.json").write_text("".join(f'{{"id": {n}}}\n' + ("\n" if n % 10 == 0 else "") for n in range(600)))
    row = Types.ROW_NAMED(["id"], [Types.LONG()])
    return JsonLinesFormat.for_type_info(row), row, 1000


def _csv(tmp_path, quoted: bool):
    builder = CsvSchema.builder().add_number_column("id").add_string_column("name").set_use_header()
    schema = (builder if quoted else builder.disable_quote_char()).build()
    name = '"a\nb"' if quoted else "ab"
    (tmp_path / "a.csv").write_text("id,name\n" + "".join(f"{n},{name}\n" for n in range(600)))
    return CsvReaderFormat.for_schema(schema), schema.get_type_info(), 1000


def _avro(tmp_path):
    import fastavro

    text = '{"type": "record", "name": "R", "fields": [{"name": "id", "type": "long"}]}'
    with open(tmp_path / "a.avro", "wb") as f:
        fastavro.writer(f, AvroSchema.parse_string(text).parsed, ({"id": n} for n in range(700)), sync_interval=200)
    fmt = AvroInputFormat(str(tmp_path / "a.avro"), AvroSchema.parse_string(text))
    return fmt, fmt.get_produced_type(), 1500


def _parquet(tmp_path):
    row = Types.ROW_NAMED(["id"], [Types.LONG()])
    for i in range(2):
        pq.write_table(pa.table({"id": pa.array(range(i * 500, i * 500 + 500), pa.int64())}), tmp_path / f"{i}.parquet",
                       row_group_size=70)
    return ParquetColumnarRowInputFormat(row), row, 2000


def _csv_quote_char_unused(tmp_path):
    """A CSV schema with a quote character (a Table's csv format) over files without one: records
    are numbered, and counted without reading their values."""
    schema = CsvSchema.builder().add_number_column("id").add_string_column("name").set_use_header().build()
    (tmp_path / "a.csv").write_text("id,name\n" + "".join(f"{n},n{n}\n" for n in range(600)))
    (tmp_path / "b.csv").write_text("id,name\r\n" + "".join(f"{n},m{n}\r\n" + ("\r\n" if n % 7 == 0 else "")
                                                            for n in range(250)))
    return CsvReaderFormat.for_schema(schema), schema.get_type_info(), 1000


FORMATS = {"text": _text, "utf16": _utf16, "json": _json, "csv": lambda p: _csv(p, False),
           "csv-quoted": lambda p: _csv(p, True), "csv-quote-char-unused": _csv_quote_char_unused, "avro": _avro,
           "parquet": _parquet}


@pytest.mark.parametrize("kind", FORMATS)
def test_file_splits_are_read_in_parts_of_at_most_the_limit_each_record_once(tmp_path, kind):
    fmt, type_info, split_bytes = FORMATS[kind](tmp_path)
    spec = FileSourceSpec(paths=[str(tmp_path)], format=fmt, split_bytes=split_bytes)
    whole = _whole(spec, type_info)
    total = sum(len(records) for records in whole.values())
    batches = _micro_batches(spec, type_info, budget=97)
    assert len(batches) >= total // 97
    read: dict[str, list] = {}
    endings = []
    for batch in batches:
        assert sum(len(records) for _, records, _ in batch) <= 97
        assert len({label for label, _, _ in batch}) <= 2 or any(e is not None for _, _, e in batch)  # 2 at a time
        for label, records, ending in batch:
            read.setdefault(label, []).extend(records)
            if ending is not None:
                endings.append((label, ending))
    assert read == whole  # every record once, in order, each split continued where it stopped
    assert sorted(label for label, _ in endings) == sorted(whole)  # every split ends once
    assert endings[-1][1] == LAST_SPLIT_END_MARK


def test_a_file_ending_before_the_next_one_started_does_not_end_at_max_watermark(tmp_path):
    for i in range(3):
        (tmp_path / f"{i}.txt").write_text("".join(f"{n}\n" for n in range(10 * (i + 1))))
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format())
    batches = _micro_batches(spec, Types.STRING(), budget=5, parallelism=1)
    assert [len(records) for batch in batches for _, records, _ in batch] == [5] * 12
    endings = [(label.rsplit("/", 1)[-1], ending) for batch in batches for label, _, ending in batch if ending is not None]
    # 0.txt and 1.txt end where a micro-batch ends, the next file not read yet: its records are still
    # to come, so they end at their own watermark; the last file ends at MAX_WATERMARK
    assert endings == [("0.txt", SPLIT_END_MARK), ("1.txt", SPLIT_END_MARK), ("2.txt", LAST_SPLIT_END_MARK)]


def test_without_a_limit_a_bounded_source_reads_every_file_in_one_micro_batch(tmp_path):
    for i in range(5):
        (tmp_path / f"{i}.txt").write_text("a\nb\n")
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format())
    listing = FileListing(spec, 2, Types.STRING())
    end = listing.latest_offset(listing.initial_offset(), None)
    assert end["end"] and end["open"] == []
    assert [ending for _, _, ending in listing.parts_between(listing.initial_offset(), end)] == [LAST_SPLIT_END_MARK] * 5


@pytest.mark.parametrize("budget", [None, 3])
def test_a_files_limit_starts_at_most_that_many_files_a_micro_batch(tmp_path, budget):
    """``kindling.source.max-files-per-batch`` (FileListing's ``max_files``): each micro-batch takes at
    most that many new files, in order of modification time; with a records limit too, a file taken is
    also cut by records and goes on in the next batches; every record once, the last file at MAX_WATERMARK."""
    import os

    for i in range(5):
        path = tmp_path / f"{4 - i}.txt"
        path.write_text("".join(f"{4 - i}-{n}\n" for n in range(4)))
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))  # 4.txt first
    spec = FileSourceSpec(paths=[str(tmp_path)], format=StreamFormat.text_line_format())
    listing = FileListing(spec, 2, Types.STRING(), max_files=2)
    offset, batches = listing.initial_offset(), []
    while not offset["end"]:
        end = listing.latest_offset(offset, budget)
        batches.append([(label.rsplit("/", 1)[-1], [r for b in read_split(spec.format, Types.STRING(), part)
                                                    for r in b.to_pylist()], ending)
                        for label, part, ending in listing.parts_between(offset, end)])
        offset = end
    if budget is None:
        assert [sorted(name for name, _, _ in batch) for batch in batches] == [["3.txt", "4.txt"],
                                                                               ["1.txt", "2.txt"], ["0.txt"]]
    else:
        assert all(sum(len(records) for _, records, _ in batch) <= 3 for batch in batches)
    read = [str(r) for batch in batches for _, records, _ in batch for r in records]
    assert len(read) == 20 and len(set(read)) == 20
    assert batches[-1][-1][2] == LAST_SPLIT_END_MARK


CSV_TEXTS = {"header": "id,name\n1,a\n2,b\n3,c", "crlf and empty lines": "1,a\r\n\r\n2,b\r\n\n3,c\n\n",
             "blank first": "\nid,name\n1,a\n", "only a header": "id,name\n", "empty": "",
             "quoted": '1,"a\nb"\n2,b\n', "spaces": "1, a\n  \n2,b\n"}


@pytest.mark.parametrize("text", CSV_TEXTS)
@pytest.mark.parametrize("header", [False, True])
def test_counting_a_csv_splits_records_agrees_with_reading_them(tmp_path, text, header):
    from kindling.spark.files import FileSplit, record_count

    builder = CsvSchema.builder().add_number_column("id").add_string_column("name")
    schema = (builder.set_use_header() if header else builder).build()
    fmt, type_info = CsvReaderFormat.for_schema(schema), schema.get_type_info()
    (tmp_path / "a.csv").write_text(CSV_TEXTS[text])
    split = FileSplit(str(tmp_path), str(tmp_path / "a.csv"))
    try:
        read = sum(batch.num_rows for batch in read_split(fmt, type_info, split))
    except ValueError:
        read = None  # a bad record (e.g. the header read as data): reading fails, whatever the count
    if read is not None:
        assert record_count(fmt, type_info, split) == read


def test_a_csv_file_without_quotes_is_counted_without_converting_its_values(tmp_path, monkeypatch):
    """latestOffset counts the records of each CSV file it takes (positions number records where a
    quote character may hold a line break): counted from the cut fields, not by reading the values."""
    from kindling.spark import files

    schema = CsvSchema.builder().add_number_column("id").add_string_column("name").set_use_header().build()
    fmt = CsvReaderFormat.for_schema(schema)
    (tmp_path / "a.csv").write_text("id,name\n" + "".join(f"{n},n{n}\n" for n in range(500)))
    (tmp_path / "b.csv").write_text('id,name\n1,"x\ny"\n')
    spec = FileSourceSpec(paths=[str(tmp_path)], format=fmt)
    listing = FileListing(spec, 2, schema.get_type_info())
    reads = []
    real = files.read_split
    monkeypatch.setattr(files, "read_split", lambda *args: reads.append(args[2].path) or real(*args))
    end = listing.latest_offset(listing.initial_offset(), 100)
    assert [(e[1].rsplit("/", 1)[-1], e[4]) for e in end["open"]] == [("a.csv", 99)]  # b.csv's 1 record read
    assert [path.rsplit("/", 1)[-1] for path in reads] == ["b.csv"]  # only the file with a quote was read


@pytest.mark.parametrize("case", ["plain", "header and skipped first row", "a quote late in the file",
                                  "a one-line first block"])
def test_a_csv_part_starts_at_the_block_holding_its_first_record(tmp_path, monkeypatch, case):
    """A micro-batch reading a CSV file from record n on (positions number records) converts the
    values from the block of lines holding record n, the blocks before it counted, not read."""
    from kindling.spark import files

    monkeypatch.setattr(files, "READ_CHUNK_BYTES", 64)
    builder = CsvSchema.builder().add_number_column("id").add_string_column("name").set_use_header()
    if case in ("header and skipped first row", "a one-line first block"):
        builder = builder.set_skip_first_data_row()
    schema = builder.build()
    lines = ["id,name"] + [f"{n},n{n}" for n in range(600)]
    if case == "a quote late in the file":
        lines[551] = '550,"n\n550"'
    if case == "a one-line first block":
        lines[0] = "id," + "n" * 60  # the header fills the first block (64 bytes) alone
    (tmp_path / "a.csv").write_text("".join(line + "\n" for line in lines))
    fmt, type_info = CsvReaderFormat.for_schema(schema), schema.get_type_info()
    spec = FileSourceSpec(paths=[str(tmp_path)], format=fmt)
    whole = _whole(spec, type_info)
    converted = []
    real = CsvSchema.arrow_column
    monkeypatch.setattr(CsvSchema, "arrow_column", lambda self, i, fields, t: converted.append(len(fields)) or
                        real(self, i, fields, t))
    read: dict[str, list] = {}
    for batch in _micro_batches(spec, type_info, budget=97, parallelism=1):
        for label, records, _ in batch:
            read.setdefault(label, []).extend(records)
    assert read == whole
    total = sum(len(records) for records in whole.values())
    if case == "plain":  # each part converted its own records and at most a block's before them
        assert sum(converted) // 2 < total + 7 * 10
