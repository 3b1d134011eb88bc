"""The ``print`` table connector's ``standard-error`` option: rows go to stderr, as Flink's
``PrintSinkFunction`` writes them there (tests/table/test_print_sink_table.py has the rest)."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.table import StreamTableEnvironment


def test_standard_error_prints_rows_to_stderr(env, capsys):
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE errs (a INT, b STRING) WITH ('connector' = 'print', 'standard-error' = 'true', "
                      "'print-identifier' = 'e')")
    t_env.execute_sql("CREATE TABLE wrong (a INT) WITH ('connector' = 'print', 'standard-error' = 'yes')")
    rows = env.from_collection([(1, "x"), (2, None)], type_info=Types.ROW([Types.INT(), Types.STRING()]))
    t_env.from_data_stream(rows).execute_insert("errs").wait()
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-2:] == ["e> +I[1, x]", "e> +I[2, null]"] and "+I[1, x]" not in captured.out
    with pytest.raises(ValueError, match="'standard-error' is 'true' or 'false'"):
        t_env.from_data_stream(env.from_collection([1], type_info=Types.INT())).execute_insert("wrong")
