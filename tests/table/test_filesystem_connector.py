"""The ``filesystem`` table connector on the DataStream FileSource and FileSink: csv, json, parquet
and raw, a path that is a file or a directory, bounded or monitored, in streaming and batch mode;
the sink's part files appear when their micro-batch commits (the FileSink's exactly-once writing,
whose restart from a checkpoint tests/connectors/test_files_sink.py covers). Text as Flink's
formats write it is compared with PyFlink by tests/conformance/programs/table_filesystem.py.
Partitioned tables: tests/table/test_filesystem_partitions.py."""
from __future__ import annotations

import datetime
import glob
import os
import threading
import time

import pytest

from kindling.table import DataTypes
from table_support import collected, quiet_t_env

ROWS = [(1, "ann", 1.5, datetime.datetime(2024, 1, 1, 0, 0, 1, 500000)),
        (2, 'bo "b", jr', 2.0, datetime.datetime(2024, 1, 1, 0, 0, 2)),
        (3, "", -0.25, datetime.datetime(2024, 1, 1, 0, 0, 3))]
COLUMNS = "id INT, name STRING, score DOUBLE, ts TIMESTAMP(3)"


def _lines(path: str) -> list:
    return sorted(line for f in glob.glob(os.path.join(path, "*")) for line in open(f, encoding="utf-8").read()
                  .splitlines())


@pytest.mark.parametrize("mode", ["streaming", "batch"])
@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_rows_written_and_read_back(spark, tmp_path, mode, fmt):
    t_env = quiet_t_env(mode)
    out = str(tmp_path / "out")
    t_env.execute_sql(f"CREATE TABLE t ({COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '{out}', "
                      f"'format' = '{fmt}')")
    rows = t_env.from_elements(ROWS, DataTypes.ROW([DataTypes.FIELD("id", DataTypes.INT()),
                                                    DataTypes.FIELD("name", DataTypes.STRING()),
                                                    DataTypes.FIELD("score", DataTypes.DOUBLE()),
                                                    DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3))]))
    rows.execute_insert("t").wait()
    files = [f for f in os.listdir(out) if not f.startswith(".")]
    assert files and all(f.startswith("part-") for f in files)
    if fmt == "csv":
        assert _lines(out) == ['1,ann,1.5,"2024-01-01 00:00:01.5"', '2,"bo ""b"", jr",2.0,"2024-01-01 00:00:02"',
                               '3,,-0.25,"2024-01-01 00:00:03"']
    if fmt == "json":
        assert _lines(out)[0] == '{"id":1,"name":"ann","score":1.5,"ts":"2024-01-01 00:00:01.5"}'
    assert collected(t_env, "SELECT * FROM t") == ROWS


def test_a_file_path_and_raw_lines(spark, tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("to be\nor not\n")
    t_env = quiet_t_env(parallelism=1)
    t_env.execute_sql(f"CREATE TABLE lines (line STRING) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      "'format' = 'raw')")
    assert collected(t_env, "SELECT * FROM lines") == [("or not",), ("to be",)]


def test_bad_records_fail_naming_the_file_or_are_skipped(spark, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"id": 1}\nnot json\n{"id": 3}\n')
    t_env = quiet_t_env(parallelism=1)
    t_env.execute_sql(f"CREATE TABLE strict_t (id INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/in', "
                      "'format' = 'json')")
    t_env.execute_sql(f"CREATE TABLE lenient (id INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/in', "
                      "'format' = 'json', 'json.ignore-parse-errors' = 'true')")
    with pytest.raises(Exception, match=r"a\.json, line 2"):
        collected(t_env, "SELECT * FROM strict_t")
    assert collected(t_env, "SELECT * FROM lenient") == [(1,), (3,)]


def test_updating_results_and_unknown_options_fail_clearly(spark, tmp_path):
    t_env = quiet_t_env()
    t_env.execute_sql(f"CREATE TABLE counts (k STRING, n BIGINT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'csv')")
    t_env.create_temporary_view("words", t_env.from_elements([("a",), ("a",)], ["k"]))
    with pytest.raises(ValueError, match="doesn't support consuming update and delete changes"):
        t_env.execute_sql("INSERT INTO counts SELECT k, COUNT(*) FROM words GROUP BY k")
    t_env.execute_sql(f"CREATE TABLE odd (k STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
                      "'format' = 'csv', 'csv.delimiter' = ';', 'sink.rolling' = 'x')")
    with pytest.raises(ValueError, match="Unsupported options for the 'filesystem' connector: sink.rolling"):
        t_env.from_path("odd")
    t_env.execute_sql(f"CREATE TABLE odd2 (k STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
                      "'format' = 'csv', 'csv.delimiter' = ';')")
    with pytest.raises(ValueError, match="Unsupported options for the 'csv' format: csv.delimiter.*field-delimiter"):
        t_env.from_path("odd2")
    t_env.execute_sql(f"CREATE TABLE changes (k STRING, n BIGINT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'canal-json')")
    with pytest.raises(ValueError, match="Reading the 'canal-json' format .a changelog. is not supported"):
        t_env.from_path("changes")  # writing it: tests/conformance/programs/table_canal_json.py


def test_a_monitored_directory_feeds_part_files_whole_micro_batches_at_a_time(spark, tmp_path):
    # an unbounded job reading files as they come: a reader of the sink's path sees whole micro-batches
    incoming = tmp_path / "in"
    incoming.mkdir()
    out = str(tmp_path / "out")
    t_env = quiet_t_env(parallelism=2)
    t_env.execute_sql(f"CREATE TABLE src (v INT) WITH ('connector' = 'filesystem', 'path' = '{incoming}', "
                      "'format' = 'csv', 'source.monitor-interval' = '1 s')")
    t_env.execute_sql(f"CREATE TABLE dst (v INT) WITH ('connector' = 'filesystem', 'path' = '{out}', "
                      "'format' = 'json')")
    client = t_env.execute_sql("INSERT INTO dst SELECT v FROM src").get_job_client()
    seen, stop = [], threading.Event()

    def watch():
        while not stop.is_set():
            seen.append(len(_lines(out)))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for batch in range(3):
            (tmp_path / "f.csv").write_text("".join(f"{batch * 100 + i}\n" for i in range(100)))
            os.replace(tmp_path / "f.csv", incoming / f"{batch}.csv")
            deadline = time.monotonic() + 240
            while len(_lines(out)) < (batch + 1) * 100 and time.monotonic() < deadline:
                time.sleep(0.5)
    finally:
        stop.set()
        watcher.join()
        client.cancel()
    assert len(_lines(out)) == 300 and len(set(_lines(out))) == 300
    assert all(n % 100 == 0 for n in seen), f"a partial micro-batch was visible: {sorted(set(seen))}"


def test_json_reads_and_writes_nested_columns_and_fails_naming_a_wrong_one():
    # tests/conformance/programs/table_json_nested_columns.py compares the same with PyFlink end to end
    from kindling.table.formats import row_format
    from kindling.table.schema import Schema

    schema = Schema(["id", "addr", "tags", "m"], [
        DataTypes.INT(),
        DataTypes.ROW([DataTypes.FIELD("city", DataTypes.STRING()), DataTypes.FIELD("zip", DataTypes.INT())]),
        DataTypes.ARRAY(DataTypes.STRING()), DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())])
    json_rows = row_format("json", schema, {})
    record = '{"id":4,"addr":{"city":"Rome","zip":null},"tags":["c",null],"m":{"y":null,"z":2}}'
    row = json_rows.decode(record.encode())
    assert (row[0], tuple(row[1]), row[1].city, row[2], row[3]) == (4, ("Rome", None), "Rome", ["c", None],
                                                                    {"y": None, "z": 2})
    assert json_rows.encode(row).decode() == record
    missing = json_rows.decode(b'{"id":1,"addr":{"city":"Oslo"}}')
    assert (tuple(missing[1]), missing[2], missing[3]) == (("Oslo", None), None, None)
    with pytest.raises(ValueError, match=r"field 'addr': 5 is not a ROW"):
        json_rows.decode(b'{"id":1,"addr":5}')
    with pytest.raises(ValueError, match=r"field 'tags': \{\} is not a ARRAY"):
        json_rows.decode(b'{"id":1,"tags":{}}')
    with pytest.raises(ValueError, match=r"The 'csv' format .* the columns \['addr', 'tags', 'm'\] are ROW, ARRAY or MAP"):
        row_format("csv", schema, {})
