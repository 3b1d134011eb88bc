"""A stream -> PostgreSQL upsert: generated orders, a running total per customer, kept in a table
with one row per customer (``INSERT ... ON CONFLICT DO UPDATE``), so a replayed micro-batch
rewrites the same rows.

    python examples/stream_to_postgres.py jdbc:postgresql://127.0.0.1:5432/shop?user=me            # endless
    python examples/stream_to_postgres.py jdbc:postgresql://127.0.0.1:5432/shop?user=me --count 1000

The table ``customer_totals`` is created if missing (through psycopg, the driver Kindling's
JdbcSink uses for PostgreSQL: ``pip install 'kindling-streams[jdbc]'``).
"""
from __future__ import annotations

import argparse

from kindling.common import Row, Types, WatermarkStrategy
from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.connectors.datagen import DataGeneratorSource, RateLimiterStrategy
from kindling.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink

CUSTOMERS = 20
ORDER = Types.ROW_NAMED(["customer", "amount"], [Types.STRING(), Types.LONG()])
TOTAL = Types.ROW_NAMED(["customer", "orders", "total"], [Types.STRING(), Types.LONG(), Types.LONG()])
Order = Row("customer", "amount")  # row classes: their rows have named fields
Total = Row("customer", "orders", "total")
UPSERT = ("INSERT INTO customer_totals (customer, orders, total) VALUES (?, ?, ?) "
          "ON CONFLICT (customer) DO UPDATE SET orders = EXCLUDED.orders, total = EXCLUDED.total")


def order(i: int) -> Row:
    """The i-th order: customers in turn, amounts from a fixed pattern (so a run is repeatable)."""
    return Order(f"c{i % CUSTOMERS:02d}", (i * 37) % 100 + 1)


def create_table(url: str) -> None:
    import psycopg

    # jdbc:postgresql://host:port/db?user=... without its "jdbc:" is a libpq connection URI
    with psycopg.connect(url[len("jdbc:"):], autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS customer_totals "
                           "(customer TEXT PRIMARY KEY, orders BIGINT NOT NULL, total BIGINT NOT NULL)")


def build(env: StreamExecutionEnvironment, url: str, count: int | None, rate: float = 200) -> None:
    """Adds the job to ``env``: ``count`` orders (None: endless) at ``rate`` a second."""
    source = DataGeneratorSource(order, count, RateLimiterStrategy.per_second(rate), ORDER)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "orders") \
        .map(lambda o: Total(o.customer, 1, o.amount), TOTAL) \
        .key_by(lambda t: t.customer) \
        .reduce(lambda a, b: Total(a.customer, a.orders + b.orders, a.total + b.total)) \
        .add_sink(JdbcSink.sink(UPSERT, TOTAL,
                                JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(url)
                                .with_driver_name("org.postgresql.Driver").build(),
                                JdbcExecutionOptions.builder().with_batch_size(200).with_batch_interval_ms(500)
                                .with_max_retries(3).build()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="JDBC URL, e.g. jdbc:postgresql://127.0.0.1:5432/shop?user=me")
    parser.add_argument("--count", type=int, default=None, help="orders to generate (default: endless)")
    parser.add_argument("--rate", type=float, default=200, help="orders a second")
    args = parser.parse_args()
    create_table(args.url)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    build(env, args.url, args.count, args.rate)
    env.execute("stream to postgres")


if __name__ == "__main__":
    main()
