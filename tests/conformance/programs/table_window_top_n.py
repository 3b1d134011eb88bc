"""Window Top-N and window deduplication (ROW_NUMBER() OVER (PARTITION BY window_start, window_end
...) filtered on its number): over a window aggregation and directly over a window TVF, with and
without other partition keys; each window's rows come once, as +I, when the watermark passes the
window's end (Flink's WindowRank, not a changelog). Parallelism 2, source splits whose times differ.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
t_env = StreamTableEnvironment.create(env)
events = [(2000, 'ann', 'x', 1.5), (2500, 'bob', 'y', 2.0), (1200, 'ann', 'y', 3.25), (4000, 'bob', 'x', 0.5),
          (6100, 'ann', 'x', 1.0), (7000, 'cat', 'y', 4.0), (5500, 'bob', 'y', 2.5), (6000, 'ann', 'y', 9.0),
          (12000, 'bob', 'x', 8.0), (11000, 'cat', 'x', 3.0), (14500, 'ann', 'x', 6.0), (30000, 'ann', 'y', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, s, a) for t, u, s, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("clicks", t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.STRING()).column("f3", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias("ts", "u", "shop", "amount"))

for query in [
    # the top 2 users by amount per 5 s window
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn "
    "FROM (SELECT window_start, window_end, u, SUM(amount) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, "
    "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, u)) WHERE rn <= 2",
    # the top user per shop and window, without the number
    "SELECT window_start, shop, u, total FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, "
    "shop ORDER BY total DESC) AS rn FROM (SELECT window_start, window_end, shop, u, SUM(amount) AS total FROM "
    "TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, shop, u)) "
    "WHERE rn = 1",
    # Top-N directly over the window TVF: the two largest clicks per window
    "SELECT * FROM (SELECT u, amount, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, "
    "window_end ORDER BY amount DESC) AS rn FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))) "
    "WHERE rn <= 2",
    # window deduplication: each user's last click per window
    "SELECT u, ts, amount, window_start FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, u "
    "ORDER BY ts DESC) AS rn FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))) WHERE rn <= 1",
]:
    t_env.execute_sql(query).print()
