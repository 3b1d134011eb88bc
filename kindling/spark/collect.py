"""The iterator behind ``execute_and_collect``: elements arrive per micro-batch from the job."""
from __future__ import annotations

import queue
from typing import Any, Iterator

_END = object()


class CollectingIterator:
    """A closeable iterator (and context manager) over a running job's elements.

    Closing it before the end cancels the job.
    """

    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._client = None
        self._batches_seen: set[int] = set()
        self._done = False

    def start(self, env, job_name: str) -> None:
        self._client = env.execute_async(job_name)

    # called by the sink writer on the driver
    def add(self, batch_id: int, values: list) -> None:
        if batch_id in self._batches_seen:  # a replayed batch: its values were already delivered
            return
        self._batches_seen.add(batch_id)
        for v in values:
            self._queue.put(v)

    def end(self) -> None:
        self._queue.put(_END)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._done = True
            self._client.get_job_execution_result().result()  # raises if the job failed
            raise StopIteration
        return item

    def next(self) -> Any:
        return self.__next__()

    def close(self) -> None:
        if not self._done and self._client is not None:
            self._done = True
            self._client.cancel().result()

    def __enter__(self) -> "CollectingIterator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
