"""How the ``filesystem`` connector's csv format reads a TIMESTAMP column (kindling/table/formats.py,
``_TableCsvSchema.arrow_column``): Arrow parses a block's fields where each is in the SQL form
Python's parser reads to the same microsecond; any other field sends the block to Python's parser,
which gives the value or names the bad record. Fast: no Spark."""
from __future__ import annotations

import datetime

import pytest

from kindling.spark.files import FileListing, read_split
from kindling.table import DataTypes
from kindling.table import formats
from kindling.table.schema import Schema


def _source(tmp_path, lines: list[str], options: dict | None = None):
    (tmp_path / "a.csv").write_text("".join(line + "\n" for line in lines))
    schema = Schema.new_builder().column("k", DataTypes.INT()).column("ts", DataTypes.TIMESTAMP(3)).build()
    source = formats.file_source("csv", schema, {"format": "csv", **(options or {})}, [str(tmp_path)], None)
    return source._spec


def _read(spec) -> list[tuple]:
    return [(r["k"], r["ts"]) for split in FileListing(spec).splits()
            for batch in read_split(spec.format, spec.format.schema.get_type_info(), split) for r in batch.to_pylist()]


def _by_python(monkeypatch):
    monkeypatch.setattr(formats._TableCsvSchema, "arrow_column", lambda self, i, fields, t: None)


TEXTS = ["2024-03-01 00:00:00", "2024-03-01T10:11:12.5", "1969-12-31 23:59:59.000001", "9999-12-31 23:59:59.999999",
         "2000-02-29 12:00:00.123456", "1000-01-01 00:00:00"]


def test_timestamps_in_sql_form_are_read_by_arrow_as_python_reads_them(tmp_path, monkeypatch):
    spec = _source(tmp_path, [f"{i},{text}" for i, text in enumerate(TEXTS)])
    called = []
    real = formats._Column.from_text
    monkeypatch.setattr(formats._Column, "from_text", lambda self, text: called.append(text) or real(self, text))
    read = _read(spec)
    assert called == []  # no field went through Python's parser
    with monkeypatch.context() as m:
        _by_python(m)
        assert _read(spec) == read
    assert read[1][1].replace(tzinfo=None) == datetime.datetime(2024, 3, 1, 10, 11, 12, 500000)


@pytest.mark.parametrize("other", ["0999-01-01 00:00:00", " 2024-03-01 00:00:00", "2024-03-01 00:00:00.1234567",
                                   "2024-03-01 00:00", "2024-03-01"])
def test_a_field_arrow_does_not_read_exactly_as_python_sends_the_block_to_python(tmp_path, monkeypatch, other):
    spec = _source(tmp_path, [f"{i},{text}" for i, text in enumerate(TEXTS + [other])])
    try:
        read = _read(spec)
    except ValueError as error:
        read = error
    _by_python(monkeypatch)
    try:
        expected = _read(spec)
    except ValueError as error:
        assert isinstance(read, ValueError) and str(read) == str(error)
        return
    assert read == expected


@pytest.mark.parametrize("bad", ["2024-02-30 00:00:00", "2023-02-29 00:00:00", "2024-03-01 24:00:00",
                                 "2024-03-01 00:60:00", "2024-03-01 00:00:60", "0000-01-01 00:00:00"])
def test_an_impossible_timestamp_fails_naming_its_line_or_is_skipped(tmp_path, bad):
    lines = [f"{i},{text}" for i, text in enumerate(TEXTS)] + [f"9,{bad}"]
    with pytest.raises(ValueError, match="line 7"):
        _read(_source(tmp_path, lines))
    assert len(_read(_source(tmp_path, lines, {"csv.ignore-parse-errors": "true"}))) == len(TEXTS)


def test_a_null_literal_is_read_by_python(tmp_path):
    spec = _source(tmp_path, ["1,2024-03-01 00:00:00", "2,NULL"], {"csv.null-literal": "NULL"})
    assert [ts is None for _, ts in _read(spec)] == [False, True]
