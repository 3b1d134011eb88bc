"""examples/stream_to_postgres.py end to end against the test PostgreSQL server (bounded)."""
from __future__ import annotations

import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import stream_to_postgres  # noqa: E402


def test_stream_to_postgres_example(spark, postgres):
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    url = postgres.url(postgres.create_database())
    stream_to_postgres.create_table(url)
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    stream_to_postgres.build(env, url, 500, rate=1000)
    env.execute("stream to postgres example")

    expected = defaultdict(lambda: [0, 0])
    for i in range(500):
        o = stream_to_postgres.order(i)
        expected[o.customer][0] += 1
        expected[o.customer][1] += o.amount
    with postgres.connect(url.rsplit("/", 1)[1].split("?")[0]) as connection:
        rows = connection.execute("SELECT customer, orders, total FROM customer_totals ORDER BY customer").fetchall()
    assert rows == [(c, n, t) for c, (n, t) in sorted(expected.items())]
