"""Event-time temporal join (FOR SYSTEM_TIME AS OF the probe's rowtime) against a versioned view (a
deduplication keeping each currency's last rate by its event time): each order joined with the rate
valid at its time, emitted when the watermark of both inputs passes it; INNER drops an order with no
rate yet, LEFT pads it; a further ON condition filters. Parallelism 2; keys come in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
t_env = StreamTableEnvironment.create(env)


def view(name, rows, columns):
    stream = env.from_collection([(Instant.of_epoch_milli(t), *rest) for t, *rest in rows],
                                 type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
    t_env.create_temporary_view(name, t_env.from_data_stream(
        stream, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
        .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias(*columns))


view("rates", [(1000, 'EUR', 1.10), (1000, 'JPY', 0.009), (5000, 'EUR', 1.20), (9000, 'EUR', 1.15),
               (7000, 'JPY', 0.008), (20000, 'GBP', 1.30), (30000, 'EUR', 1.0)], ["rate_time", "currency", "rate"])
view("orders", [(500, 'EUR', 10.0), (2000, 'EUR', 20.0), (3000, 'JPY', 1000.0), (6000, 'EUR', 5.0),
                (8000, 'JPY', 500.0), (9500, 'EUR', 2.0), (10000, 'GBP', 7.0), (12000, 'USD', 3.0),
                (25000, 'GBP', 4.0), (31000, 'EUR', 1.0)], ["order_time", "currency", "amount"])
t_env.execute_sql("CREATE TEMPORARY VIEW versioned_rates AS SELECT currency, rate, rate_time FROM (SELECT *, "
                  "ROW_NUMBER() OVER (PARTITION BY currency ORDER BY rate_time DESC) AS rownum FROM rates) "
                  "WHERE rownum = 1")
for query in [
    "SELECT o.order_time, o.currency, o.amount * r.rate AS converted, r.rate_time FROM orders AS o "
    "JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
    "SELECT o.order_time, o.currency, r.rate FROM orders AS o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF "
    "o.order_time AS r ON o.currency = r.currency",
    "SELECT o.order_time, o.currency, r.rate FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF "
    "o.order_time AS r ON o.currency = r.currency AND r.rate > 0.01",
]:
    t_env.execute_sql(query).print()
