"""``pyflink.table.TableResult``: the result of ``execute_sql`` or ``execute_insert``.

Example::

    t_env.from_data_stream(ds).execute_insert('my_sink').wait()
"""
from __future__ import annotations

from typing import Optional

from kindling.table.result_kind import ResultKind

__all__ = ["TableResult"]


class TableResult:
    """A DDL statement's ``OK``, an insert job (:meth:`wait` for it, :meth:`get_job_client` to watch
    it), or a query's rows (:meth:`collect`)."""

    def __init__(self, job_client=None, rows=None):
        self._job_client = job_client
        self._rows = rows  # a query's rows (Table.execute): a CloseableIterator of the running job

    def collect(self):
        """The rows of ``Table.execute()``: a CloseableIterator (``with result.collect() as rows: ...``)."""
        if self._rows is None:
            raise ValueError("collect() reads the rows of Table.execute(); this result has none")
        return self._rows

    def get_job_client(self):
        """The JobClient of the job this statement started (None for DDL)."""
        return self._job_client

    def get_result_kind(self) -> int:
        return ResultKind.SUCCESS if self._job_client is None else ResultKind.SUCCESS_WITH_CONTENT

    def wait(self, timeout_ms: Optional[int] = None) -> None:
        """Waits until the job this statement started finishes (at most ``timeout_ms``)."""
        if self._job_client is not None:
            future = self._job_client.get_job_execution_result()
            future.result() if timeout_ms is None else future.result(timeout_ms / 1000)

    def print(self) -> None:
        """Prints ``OK`` for a DDL statement; waits for an insert job (its rows go to the sink)."""
        if self._rows is not None:
            raise ValueError("TableResult.print() of a query (Flink's table layout) is not supported by Kindling "
                             "yet; iterate over collect() instead")
        if self._job_client is None:
            print("OK")
        else:
            self.wait()
