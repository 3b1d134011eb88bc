"""DataGeneratorSource and socket_text_stream end to end on Spark (parallelism 2)."""
from __future__ import annotations

import socket
import threading
from collections import Counter

import pytest

from kindling.common import Row, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import RuntimeExecutionMode
from kindling.datastream.connectors.datagen import DataGeneratorSource, GeneratorFunction, RateLimiterStrategy
from kindling.datastream.functions import ProcessWindowFunction
from kindling.datastream.window import TumblingEventTimeWindows

ROW = Types.ROW_NAMED(["key", "index"], [Types.STRING(), Types.LONG()])


class _Keyed(GeneratorFunction):
    def map(self, value: int) -> Row:
        return Row(f"k{value % 3}", value)


@pytest.mark.parametrize("mode", ["STREAMING", "BATCH"])
def test_bounded_generator_emits_each_index_once(make_env, mode):
    env = make_env()
    env.set_runtime_mode(RuntimeExecutionMode[mode])
    source = DataGeneratorSource(_Keyed(), 1000, ROW)  # type_info third: Flink's constructor without a rate limiter
    got = env.from_source(source, WatermarkStrategy.no_watermarks(), "generator").execute_and_collect()
    with got:
        rows = list(got)
    assert sorted(r[1] for r in rows) == list(range(1000))
    assert all(r[0] == f"k{r[1] % 3}" for r in rows)


def test_rate_limited_generator_over_micro_batches(make_env):
    env = make_env(**{"kindling.bounded.one-step": "false"})
    source = DataGeneratorSource(lambda i: i * 2, 60, RateLimiterStrategy.per_second(40), Types.LONG())
    with env.from_source(source, WatermarkStrategy.no_watermarks(), "paced").execute_and_collect() as got:
        assert sorted(got) == [i * 2 for i in range(60)]


class _IndexTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return value[1] * 10


class _Count(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield key, context.window().start, len(list(elements))


def test_splits_keep_their_own_watermarks(make_env):
    """Split 0 holds indexes 0-599 and split 1 600-1199 (event time 10 ms an index): split 1's event
    time runs 6 s ahead, so a watermark taken over it would make all of split 0 late."""
    env = make_env(**{"kindling.bounded.one-step": "false"})
    source = DataGeneratorSource(_Keyed(), 1200, RateLimiterStrategy.per_second(400), ROW)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_IndexTime())
    counts = env.from_source(source, strategy, "generator").key_by(lambda r: r[0]) \
        .window(TumblingEventTimeWindows.of(Time.seconds(1))) \
        .process(_Count(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()]))
    with counts.execute_and_collect() as got:
        result = Counter({(k, start): n for k, start, n in got})
    expected = Counter((f"k{i % 3}", i * 10 // 1000 * 1000) for i in range(1200))
    assert result == expected


def test_failing_generator_names_the_source(make_env):
    env = make_env()

    def broken(i: int) -> int:
        if i == 7:
            raise ValueError("no seven")
        return i

    env.from_source(DataGeneratorSource(broken, 10, Types.LONG()), WatermarkStrategy.no_watermarks(), "g").print()
    with pytest.raises(Exception, match="(?s)DataGeneratorSource.*no seven"):
        env.execute("broken generator")


def test_generator_arguments_are_checked():
    with pytest.raises(ValueError, match="count >= 0"):
        DataGeneratorSource(lambda i: i, -1, Types.LONG())
    with pytest.raises(ValueError, match="positive rate"):
        RateLimiterStrategy.per_second(0)
    assert DataGeneratorSource(lambda i: i, 2 ** 63 - 1, Types.LONG())._spec.bounded is False


# -- socket_text_stream ---------------------------------------------------------------------

class _LineServer:
    """A TCP server on 127.0.0.1 sending ``payload`` to each connection, then keeping it open."""

    def __init__(self, payload: bytes):
        self.payload = payload
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            while True:
                connection, _ = self.server.accept()
                self.connections.append(connection)
                connection.sendall(self.payload)
        except OSError:
            pass

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.server.close()


@pytest.mark.parametrize("limit", [{}, {"kindling.source.max-records-per-batch": "10"}])  # in 5 micro-batches or more
def test_socket_text_stream_reads_lines(make_env, limit):
    lines = [f"line {i} é" for i in range(50)]
    server = _LineServer(("\n".join(lines[:25]) + "\r\n" + "\n".join(lines[25:]) + "\n").encode())
    try:
        env = make_env(**limit)
        stream = env.socket_text_stream("127.0.0.1", server.port).map(str.upper, Types.STRING())
        got = stream.execute_and_collect(limit=50)
    finally:
        server.close()
    assert got == [line.upper() for line in lines]


def test_socket_text_stream_with_a_delimiter(make_env):
    server = _LineServer(b"a;b;;c;")
    try:
        got = make_env().socket_text_stream("127.0.0.1", server.port, delimiter=";").execute_and_collect(limit=4)
    finally:
        server.close()
    assert got == ["a", "b", "", "c"]


def test_socket_text_stream_unreachable_fails_naming_the_address(make_env):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = make_env()
    env.socket_text_stream("127.0.0.1", port).print()
    with pytest.raises(Exception, match=f"could not connect to 127.0.0.1:{port}"):
        env.execute("socket unreachable")
    with pytest.raises(ValueError, match="port"):
        env.socket_text_stream("127.0.0.1", 0)
