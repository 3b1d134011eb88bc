"""kindling.testing's mirror of pyflink.testing: PyFlink-style Table tests run with only the import
changed (the test-sink connector, results(), retract_results(), upsert_results(), the test cases)."""
from __future__ import annotations

import pytest

from kindling.table import DataTypes
from kindling.testing import source_sink_utils
from kindling.testing.test_case_utils import (PyFlinkBatchTableTestCase, PyFlinkStreamTableTestCase,
                                              exec_insert_table, run_with_config)


@pytest.mark.usefixtures("spark")
class StreamTests(PyFlinkStreamTableTestCase):

    def test_results_are_the_rows_as_flink_writes_them(self):
        self.t_env.execute_sql("CREATE TABLE Results(a BIGINT, b STRING, c DOUBLE, d DECIMAL(10, 2), "
                               "e TIMESTAMP(3)) WITH ('connector'='test-sink')")
        t = self.t_env.sql_query("SELECT * FROM (VALUES (1, 'hi, there', 1.5, CAST(2.5 AS DECIMAL(10, 2)), "
                                 "TIMESTAMP '2018-03-11 03:10:00'), (2, CAST(NULL AS STRING), 0.1, "
                                 "CAST(1 AS DECIMAL(10, 2)), TIMESTAMP '1970-01-01 00:00:00.123')) AS t(a, b, c, d, e)")
        t.execute_insert("Results").wait()
        self.assert_equals(source_sink_utils.results(),
                           ["+I[1, hi, there, 1.5, 2.50, 2018-03-11T03:10]",
                            "+I[2, null, 0.1, 1.00, 1970-01-01T00:00:00.123]"])
        with pytest.raises(AssertionError, match="retracted rows which have not been accumulated"):
            source_sink_utils.results()  # taken once: none are left, and no rows at all fail, as in PyFlink

    def test_retractions_cancel_rows_of_the_same_text(self):
        self.t_env.execute_sql("CREATE TABLE Counts(k STRING, n BIGINT) WITH ('connector'='test-sink')")
        t = self.t_env.from_elements([("a",), ("b",), ("a",)], ["k"])
        exec_insert_table(t.group_by(t.k).select(t.k, t.k.count), "Counts")
        # Flink's changes: +I[a, 1], +I[b, 1], -U[a, 1], +U[a, 2]; a -U row cancels only an equal -U row
        self.assert_equals(source_sink_utils.retract_results(), ["+I[a, 1]", "+I[b, 1]", "+U[a, 2]"])

    def test_upsert_results_keep_the_last_row_of_a_key_and_kind(self):
        self.t_env.execute_sql("CREATE TABLE Last(k STRING, n BIGINT) WITH ('connector'='test-sink')")
        t = self.t_env.from_elements([("a",), ("a",), ("a",)], ["k"])
        t.group_by(t.k).select(t.k, t.k.count).execute_insert("Last").wait()
        self.assert_equals(source_sink_utils.upsert_results([0]), ["+I[a, 1]", "+U[a, 3]"])

    def test_a_retraction_alone_fails_as_in_flink(self):
        self.t_env.execute_sql("CREATE TABLE Sunk(k STRING) WITH ('connector'='test-sink')")
        source_sink_utils._received.clear()
        buffer = source_sink_utils.CollectBuffer(10)
        buffer.put_batch(0, [("-D", ("a",))])
        source_sink_utils._received.append(buffer)
        with pytest.raises(AssertionError, match="retracted rows which have not been accumulated"):
            source_sink_utils.results()

    def test_the_sink_takes_no_options(self):
        self.t_env.execute_sql("CREATE TABLE Bad(a BIGINT) WITH ('connector'='test-sink', 'x'='1')")
        with pytest.raises(ValueError, match="Unsupported options for the 'test-sink' connector: x"):
            self.t_env.from_elements([(1,)], ["a"]).execute_insert("Bad")

    @run_with_config({"kindling.progress": "false"})
    def test_run_with_config_sets_the_keys_for_the_test_only(self):
        assert self.env.get_configuration().get_string("kindling.progress", None) == "false"


@pytest.mark.usefixtures("spark")
class BatchTests(PyFlinkBatchTableTestCase):

    def test_a_batch_aggregate_gives_its_final_rows(self):
        self.t_env.execute_sql("CREATE TABLE Sums(k STRING, s BIGINT) WITH ('connector'='test-sink')")
        t = self.t_env.from_elements([("a", 1), ("b", 2), ("a", 3)],
                                     DataTypes.ROW([DataTypes.FIELD("k", DataTypes.STRING()),
                                                    DataTypes.FIELD("v", DataTypes.BIGINT())]))
        t.group_by(t.k).select(t.k, t.v.sum).execute_insert("Sums").wait()
        self.assert_equals(source_sink_utils.results(), ["+I[a, 4]", "+I[b, 2]"])
        assert self.env.get_parallelism() == 2


def test_the_test_sink_is_named_without_the_utilities(spark, monkeypatch):
    from kindling.table import connectors

    monkeypatch.delitem(connectors._SINKS, "test-sink")
    with pytest.raises(ValueError, match="import kindling.testing.source_sink_utils"):
        connectors.insert_into(None, None, {"connector": "test-sink"}, "T")


def test_pyflinks_jvm_helpers_are_refused_by_name():
    from kindling.common.unsupported import NotSupportedYetError

    with pytest.raises(NotSupportedYetError, match="PythonAPICompletenessTestCase is not supported by Kindling "
                                                   "yet: it belongs to PyFlink's bridge to Flink's JVM"):
        from kindling.testing.test_case_utils import PythonAPICompletenessTestCase  # noqa: F401
