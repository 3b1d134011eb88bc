"""The lateness check's fast reader (kindling/spark/table/scans.py ``fast_file_times``: pyarrow's CSV
reader in the driver or a task) gives each file's figures exactly as the Spark job reading the file
as the job's scan does (``spark_file_times``), or leaves the file to that Spark job."""
from __future__ import annotations

import gzip

import pytest

OPTIONS = {"connector": "filesystem", "format": "csv"}

#: single files: each either read by the fast reader with Spark's figures, or left to Spark
FILES = {
    "in order": "1,a,2024-01-01 00:00:00.100\n2,b,2024-01-01 00:00:00.900\n3,c,2024-01-01 00:00:01.500\n",
    "a late row": "1,a,2024-01-01 00:00:05.000\n2,b,2024-01-01 00:00:01.000\n",
    "a row just within the delay": "1,a,2024-01-01 00:00:01.150\n2,b,2024-01-01 00:00:00.999\n",
    "no trailing line end": "1,a,2024-01-01 00:00:02\n2,b,2024-01-01 00:00:01",
    "T form and no fraction": "1,a,2024-01-01T00:00:02\n2,b,2024-01-01 00:00:01\n",
    "microsecond fractions": "1,a,2024-01-01 00:00:00.999999\n2,b,1999-12-31 23:59:59.0000019\n"
                             "3,c,2024-01-01 00:00:00.123456789\n4,d,1969-12-31 23:59:59.9995\n",
    "fractions at a millisecond's end": "1,a,2024-01-01 00:00:00.9999999\n",
    "a fraction at a millisecond's end before 1970": "1,a,1969-12-31 23:59:59.9999999\n",
    "a null time": "1,a,2024-01-01 00:00:01\n2,b,null\n3,c,2024-01-01 00:00:00\n",
    "only null times": "1,a,null\n",
    "a blank time": "1,a,2024-01-01 00:00:01\n2,b,\n",
    "a quoted blank time": '1,a,2024-01-01 00:00:01\n2,b,""\n',
    "a blank-padded time": "1,a, 2024-01-01 00:00:01\n",
    "a quoted time": '1,a,"2024-01-01 00:00:01.250"\n2,"b",2024-01-01 00:00:00\n',
    "a quoted field with a delimiter and a line end": '1,"a,\nb",2024-01-01 00:00:03\n2,"",2024-01-01 00:00:01\n',
    "a doubled quote": '1,"a""b",2024-01-01 00:00:03\n',
    "a quote inside a field": '1,a"b,2024-01-01 00:00:03\n',
    "blanks after a closing quote": '1,"a"  ,2024-01-01 00:00:03\n',
    "a bad time text": "1,a,2024-01-01 00:00:01\n2,b,yesterday\n",
    "a day that does not exist": "1,a,2024-02-30 00:00:01\n",
    "hour 24": "1,a,2024-01-01 24:00:00\n",
    "a zone": "1,a,2024-01-01 00:00:00.5Z\n",
    "a bad fraction": "1,a,2024-01-01 00:00:00.5x1\n",
    "a bad fraction among other lengths": "1,a,2024-01-01 00:00:00.5x1\n2,b,2024-01-01 00:00:00\n",
    "fractions of several lengths": "1,a,2024-01-01 00:00:00.5\n2,b,2024-01-01 00:00:00\n3,c,2024-01-01T00:00:00.12\n",
    "ten fraction digits": "1,a,2024-01-01 00:00:00.1234567891\n",
    "a date only": "1,a,2024-01-01\n",
    "year 1600": "1,a,1600-01-01 00:00:00\n",
    "a short record": "1,a,2024-01-01 00:00:01\n2,2024-01-01 00:00:00\n",
    "a long record": "1,a,2024-01-01 00:00:01\n2,b,2024-01-01 00:00:00,x\n",
    "blank lines": "\n1,a,2024-01-01 00:00:01\n\n\n2,b,2024-01-01 00:00:00\n\n",
    "carriage returns": "1,a,2024-01-01 00:00:01\r\n2,b,2024-01-01 00:00:00\r\n",
    "a byte order mark": "\ufeff1,a,2024-01-01 00:00:01\n",
    "a comment line": "1,a,2024-01-01 00:00:01\n# 2,b,2023-01-01 00:00:00\n",
    "not UTF-8": b"1,\xff\xfe,2024-01-01 00:00:01\n1,a,2024-01-01 00:00:00\n",
    "empty": "",
}


def _schema():
    from kindling.table import DataTypes
    from kindling.table.schema import Schema

    return Schema(["k", "s", "ts"], [DataTypes.INT(), DataTypes.STRING(), DataTypes.TIMESTAMP(3)])


def _write(path, text) -> None:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


@pytest.mark.parametrize("options", [{}, {"csv.null-literal": "null"}, {"csv.allow-comments": "true"},
                                     {"csv.field-delimiter": ";", "csv.quote-character": "'"}])
def test_the_fast_reader_gives_sparks_figures_or_leaves_the_file_to_spark(spark, tmp_path, options):
    from kindling.spark.table.scans import _UNREAD, fast_file_times, spark_file_times

    options = {**OPTIONS, **options}
    schema = _schema()
    read, left, fast = [], [], {}
    for i, (name, text) in enumerate(FILES.items()):
        path = tmp_path / f"{i}.csv"
        if options.get("csv.field-delimiter") == ";":
            text = text.replace(b"," if isinstance(text, bytes) else ",", b";" if isinstance(text, bytes) else ";")
            text = text.replace(b'"' if isinstance(text, bytes) else '"', b"'" if isinstance(text, bytes) else "'")
        _write(path, text)
        fast[name] = fast_file_times(str(path), options, 3, 2, schema.get_field_data_types()[2], 1000, 0)
        (left if fast[name] == _UNREAD else read).append(name)
    # one Spark job over the files read fast: none fails it, and each has the same figures
    paths = {str(tmp_path / f"{i}.csv"): name for i, name in enumerate(FILES) if name in read}
    figures = {paths[f[0].removeprefix("file:")]: f[1:]
               for f in spark_file_times(spark, {**options, "path": str(tmp_path)}, schema.row_type_info(),
                                         schema.get_field_data_types(), "ts", 1000, 0, list(paths))}
    assert {n: f[1:] for n, f in fast.items() if f is not None and f != _UNREAD} == figures
    # the usual files are read fast; what either reader may read otherwise is left to Spark
    assert {"in order", "a late row", "microsecond fractions", "fractions of several lengths",
            "fractions at a millisecond's end", "a fraction at a millisecond's end before 1970", "a quoted time", "blank lines",
            "a quoted field with a delimiter and a line end", "empty"} <= set(read), read
    assert {"a bad time text", "a bad fraction among other lengths", "a blank time", "a short record", "a doubled quote", "carriage returns",
            "a byte order mark"} <= set(left), left
    assert ("a null time" in read) == ("csv.null-literal" in options)
    assert ("a comment line" in read) == ("csv.allow-comments" not in options)


@pytest.mark.parametrize("files, late", [
    ({"a.csv": FILES["in order"]}, False),
    ({"a.csv": FILES["a late row"]}, True),
    ({"a.csv": FILES["in order"], "b.csv": "1,a,2024-01-01 00:00:05.000\n"}, True),  # b may be read first
    ({"a.csv": FILES["in order"], "b.csv": "1,a,2024-01-01 00:00:01.100\n"}, False),
    ({"a.csv": FILES["in order"], "b.csv": FILES["a null time"]}, True),
    ({"a.csv": FILES["in order"], "b.csv": FILES["a doubled quote"]}, True),  # b: read by Spark
    ({"a.csv": FILES["in order"], "b.csv": '1,"a""b",2024-01-01 00:00:01.100\n'}, False),
    ({"a.csv": FILES["in order"], "b.csv": ""}, False),
    ({"a.csv": FILES["in order"], "b.csv.gz": gzip.compress(b"1,a,2024-01-01 00:00:05.000\n")}, True),  # Spark's
])
def test_the_check_answers_as_the_spark_job_alone(spark, tmp_path, files, late, monkeypatch):
    from kindling.spark.table import scans

    for name, text in files.items():
        _write(tmp_path / name, text)
    schema = _schema()
    options = {**OPTIONS, "path": str(tmp_path), "csv.null-literal": "null"}
    check = (spark, options, schema.row_type_info(), schema.get_field_data_types(), "ts", 200, 1000, 0)
    assert scans.rows_may_be_late(*check) is late
    slow = []
    monkeypatch.setattr(scans, "fast_file_times", lambda *a, **k: slow.append(a) or scans._UNREAD)
    assert scans.rows_may_be_late(*check) is late
    assert len(slow) == len(files)


def test_a_bad_time_text_fails_the_check_as_the_spark_job_does(spark, tmp_path):
    from kindling.spark.table.scans import rows_may_be_late

    _write(tmp_path / "a.csv", FILES["in order"])
    _write(tmp_path / "b.csv", FILES["a bad time text"])
    schema = _schema()
    with pytest.raises(Exception, match="cannot read 'yesterday'"):
        rows_may_be_late(spark, {**OPTIONS, "path": str(tmp_path)}, schema.row_type_info(),
                         schema.get_field_data_types(), "ts", 200, 1000, 0)


def test_the_fast_reader_runs_in_tasks_where_the_driver_may_not_see_the_files(spark, tmp_path):
    import functools

    from kindling.spark.table.scans import _UNREAD, _fast_in_tasks, fast_file_times

    names = ["in order", "a late row", "a null time", "a doubled quote", "empty"]
    files = [str(tmp_path / f"{i}.csv") for i in range(len(names))]
    for path, name in zip(files, names):
        _write(tmp_path / path, FILES[name])
    read = functools.partial(fast_file_times, options={**OPTIONS, "csv.null-literal": "null"}, columns=3,
                             column=2, data_type=_schema().get_field_data_types()[2], step=1000, phase=0)
    in_tasks = _fast_in_tasks(spark, read, files)
    assert in_tasks == {f: read(f) for f in files}
    assert [in_tasks[f] == _UNREAD for f in files] == [False, False, False, True, False]
    assert in_tasks[files[-1]] is None and in_tasks[files[2]][-1] == 1  # empty; a null


def test_in_local_mode_the_check_reads_the_files_while_the_session_starts(tmp_path, monkeypatch):
    """Before the job's first session, the driver reads the files' times while get_spark starts it."""
    import threading

    from pyspark.sql import SparkSession

    from kindling.common.configuration import Configuration
    from kindling.spark import runner
    from kindling.spark.table import scans

    _write(tmp_path / "a.csv", FILES["in order"])
    _write(tmp_path / "b.csv", "1,a,2024-01-01 00:00:05.000\n")
    read, reader = threading.Event(), []
    driver_file_times = scans.driver_file_times
    monkeypatch.setattr(scans, "driver_file_times", lambda *a: (
        reader.append(threading.current_thread()), read.set(), driver_file_times(*a))[2])
    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setattr(SparkSession, "_instantiatedSession", None)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.setenv("KINDLING_SPARK_MASTER", "local[2]")
    monkeypatch.setattr(runner, "get_spark", lambda *a: "a session" if read.wait(30) else None)
    env = type("Env", (), {"get_configuration": lambda self: Configuration(), "_parallelism": 2})()
    schema = _schema()
    options = {**OPTIONS, "path": str(tmp_path)}
    check = (options, schema.row_type_info(), schema.get_field_data_types(), "ts", 200, 1000, 0)
    assert runner.rows_may_be_late(env, [check]) is True  # b.csv may be read first
    assert reader and reader[0] is not threading.current_thread()
