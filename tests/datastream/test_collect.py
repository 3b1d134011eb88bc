"""execute_and_collect: a bounded buffer between the job and its reader, and a job that stops when
the reader does."""
from __future__ import annotations

import gc
import math
import pickle
import threading
import time

import pytest

from kindling.common import Duration, JobStatus, WatermarkStrategy
from kindling.datastream.data_stream import COLLECT_BUFFER_SIZE, CollectBuffer, _END

SAFETY_S = 300  # how long to wait for a condition before failing (not a timing assertion)


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + SAFETY_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


# -- the buffer, without Spark ----------------------------------------------------------------


def filled(capacity: int, n: int) -> tuple[CollectBuffer, threading.Thread, list]:
    """A buffer of ``capacity`` full from a writer thread writing ``n`` elements (returned: the
    buffer, the writer, and a list that gets how many it added)."""
    buffer = CollectBuffer(capacity)
    added: list = []
    writer = threading.Thread(target=lambda: added.append(buffer.put_batch(0, iter(range(n)))))
    writer.start()
    wait_until(lambda: buffer.waiting == capacity, "a full buffer")
    return buffer, writer, added


def test_a_reader_lets_a_waiting_writer_go_on_once_per_half_buffer_not_per_element():
    buffer = CollectBuffer(capacity=100)
    writer = threading.Thread(target=lambda: (buffer.put_chunks(0, [list(range(i, i + 100))
                                                                    for i in range(0, 10_000, 100)]), buffer.end()))
    writer.start()
    wait_until(lambda: buffer.waiting == 100, "a full buffer")
    notified = []
    notify_all = buffer._lock.notify_all
    buffer._lock.notify_all = lambda: (notified.append(True), notify_all())
    assert list(iter(buffer.take, _END)) == list(range(10_000))
    writer.join(SAFETY_S)
    assert len(notified) <= 4 * 100  # a few per list of 100 (it was one per element: 10,000)


def test_buffer_holds_the_writer_back_while_full():
    buffer, writer, added = filled(10, 100)
    assert writer.is_alive() and buffer._batch_written == 10
    assert [buffer.take() for _ in range(100)] == list(range(100))
    writer.join(SAFETY_S)
    assert added == [100]
    buffer.end()
    assert buffer.take() is _END


def test_closing_releases_a_waiting_writer():
    buffer, writer, added = filled(1, 5)
    buffer.close()
    writer.join(SAFETY_S)
    assert added == [1] and buffer.take() is _END
    assert buffer.put_batch(1, [1, 2]) == 0  # nothing more is taken once the reader is gone


def test_replayed_batches_are_not_delivered_twice():
    buffer = CollectBuffer(capacity=100)

    def fails_after_two():
        yield 4
        yield 5
        raise OSError("task lost")

    assert buffer.put_batch(0, [1, 2, 3]) == 3
    assert buffer.put_batch(0, [1, 2, 3]) == 0
    with pytest.raises(OSError):
        buffer.put_batch(1, fails_after_two())
    assert buffer.put_batch(1, [4, 5, 6]) == 1  # the replay adds only what the failed attempt did not
    assert buffer.put_batch(0, [1, 2, 3]) == 0
    buffer.end()
    assert list(iter(buffer.take, _END)) == [1, 2, 3, 4, 5, 6]


def test_a_list_larger_than_the_room_left_waits_for_half_the_buffer_goes_in_parts_and_is_read_in_order():
    buffer = CollectBuffer(capacity=10)
    added: list = []
    writer = threading.Thread(target=lambda: added.append(buffer.put_chunks(0, [list(range(7)), list(range(7, 25))])))
    writer.start()
    wait_until(lambda: buffer._wake_writer_at < math.inf, "the writer to wait")
    assert writer.is_alive() and buffer.waiting == 7  # the second list waits for half the buffer, not for 3 places
    taken = [buffer.take(), buffer.take()]
    wait_until(lambda: buffer.waiting == 10, "a full buffer")
    assert writer.is_alive() and buffer._batch_written == 12  # then fills it: the second list's first 5
    taken += [buffer.take() for _ in range(23)]
    writer.join(SAFETY_S)
    assert taken == list(range(25)) and added == [25] and buffer.waiting == 0
    buffer.end()
    assert buffer.take() is _END


def test_a_copy_of_the_buffer_refuses_elements_clearly():
    copy = pickle.loads(pickle.dumps(CollectBuffer()))
    with pytest.raises(RuntimeError, match="another process"):
        copy.put_batch(0, [1])
    with pytest.raises(RuntimeError, match="another process"):
        copy.put_chunks(0, [[1]])


# -- end to end on Spark ------------------------------------------------------------------------


def unbounded_lines(env, directory, n: int):
    """A FileSource watching ``directory``, which holds one file of ``n`` numbered lines."""
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "part-0.txt").write_text("".join(f"{i}\n" for i in range(n)))
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
              .monitor_continuously(Duration.of_millis(100)).build())
    return env.from_source(source, WatermarkStrategy.no_watermarks(), "files")


def test_unbounded_job_is_held_back_by_the_reader_and_stops_when_closed(env, tmp_path):
    env.get_configuration().set_integer(COLLECT_BUFFER_SIZE, 10)
    it = unbounded_lines(env, tmp_path, 1000).map(int).execute_and_collect()
    client, buffer = it._client, it._buffer
    first = [next(it) for _ in range(5)]
    wait_until(lambda: buffer.waiting == 10, "the job to fill the buffer")
    # the buffer never holds more than its capacity: the micro-batch waits for the reader
    assert buffer._batch_written == 15 and client.get_job_status().result() == JobStatus.RUNNING
    more = [next(it) for _ in range(500)]
    assert len(set(first + more)) == 505 and set(first + more) <= set(range(1000))
    assert buffer.waiting <= 10
    it.close()
    assert client.get_job_status().result() == JobStatus.CANCELED
    with pytest.raises(StopIteration):
        next(it)


def test_leaving_the_with_block_or_dropping_the_iterator_cancels_the_job(env, tmp_path):
    with unbounded_lines(env, tmp_path / "a", 50).execute_and_collect() as it:
        assert next(it) in [str(i) for i in range(50)]
        client = it._client
    assert client.get_job_status().result() == JobStatus.CANCELED

    it = unbounded_lines(env, tmp_path / "b", 50).execute_and_collect()
    next(it)
    client = it._client
    del it
    gc.collect()
    wait_until(lambda: client.get_job_status().result() == JobStatus.CANCELED, "the dropped iterator's job to stop")


def test_limit_stops_an_unbounded_job_once_it_has_the_elements(env, tmp_path):
    env.get_configuration().set_integer(COLLECT_BUFFER_SIZE, 2)
    # exactly `limit` elements exist: the list must not wait for one more
    assert sorted(unbounded_lines(env, tmp_path / "a", 5).execute_and_collect(limit=5)) == ["0", "1", "2", "3", "4"]
    with pytest.raises(ValueError, match="positive int"):
        env.from_collection([1]).execute_and_collect(limit=0)


def test_bounded_job_collects_everything_through_a_small_buffer(any_env):
    any_env.get_configuration().set_integer(COLLECT_BUFFER_SIZE, 7)
    with any_env.generate_sequence(1, 2000).execute_and_collect() as it:
        assert sorted(it) == list(range(1, 2001))
    assert it._client.get_job_status().result() == JobStatus.FINISHED
