"""Async I/O (``AsyncDataStream``) as a chained operation: many ``async_invoke`` calls in
flight at once inside one Spark task.

Each parallel instance of the operator opens its ``AsyncFunction`` and starts an asyncio event
loop on a thread of its own (:class:`AsyncRunner`, kept across micro-batches like every opened
function). The task's thread hands elements to the loop and emits the results itself, so the
chain downstream runs on one thread as usual. At most ``capacity`` elements are in flight (from
hand-off to emission); ``ordered_wait`` emits in input order, ``unordered_wait`` as results
complete but never past a watermark: an element is held until every element that arrived
under an earlier watermark stamp has been emitted, as Flink's unordered queue holds its
segments. Each output keeps its input's timestamp, stamp and channel.

Timeout and retries follow PyFlink 2.3: one timeout per element, from its first attempt over
all retries; when it passes, the attempt in flight is cancelled and ``timeout(value)`` gives
the outputs (by default it raises ``TimeoutError``). An exception of ``async_invoke`` that the
retry strategy does not retry fails the job with that exception.
"""
from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Any, Callable, Iterable

from kindling.datastream.functions import AsyncFunctionDescriptor
from kindling.runtime import lifecycle
from kindling.runtime.errors import user_function_failure
from kindling.runtime.runtime_context import TaskRuntimeContext
from kindling.runtime.task_info import TaskInfo


class AsyncRunner:
    """An opened ``AsyncFunction`` and the event loop thread its calls run on."""

    def __init__(self, descriptor: AsyncFunctionDescriptor):
        self.function = descriptor.async_function
        self.class_name = type(self.function).__name__
        self.timeout_s = descriptor.timeout.to_milliseconds() / 1000
        strategy = descriptor.async_retry_strategy
        self.strategy = strategy
        predicate = strategy.get_retry_predicate()
        self.retry_on_result = predicate.result_predicate()
        self.retry_on_error = predicate.exception_predicate()
        self.loop = asyncio.new_event_loop()
        self._incoming: list[tuple[Any, Callable]] = []  # handed over by the task's thread, not yet started
        self._handing = threading.Lock()
        self._woken = False  # the loop has been asked to start what came in
        self._tasks: set[asyncio.Task] = set()  # the loop keeps only weak references to its tasks
        self._thread = threading.Thread(target=self._run_loop, name=f"kindling-async-{self.class_name}", daemon=True)

    def start(self, task_info: TaskInfo) -> "AsyncRunner":
        open_fn = getattr(self.function, "open", None)
        if open_fn is not None:
            open_fn(TaskRuntimeContext(task_info))
        self._thread.start()
        return self

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def close(self) -> None:
        """Cancels what is still in flight, stops the loop, then calls the function's ``close``."""
        if self._thread.is_alive():
            def cancel_all() -> None:
                for task in asyncio.all_tasks(self.loop):
                    task.cancel()
                self.loop.call_soon(self.loop.stop)

            self.loop.call_soon_threadsafe(cancel_all)
            self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self.loop.close()
        lifecycle.close_function(self.function)

    def submit(self, value: Any, done: Callable[[list | None, BaseException | None], None]) -> None:
        """Starts the attempts for ``value`` on the loop; ``done(outputs, error)`` runs on the
        loop thread the moment they end (so completions are reported in the order they happen).
        Elements handed over while the loop is busy start together: one wake-up for many."""
        with self._handing:
            self._incoming.append((value, done))
            if self._woken:
                return
            self._woken = True
        self.loop.call_soon_threadsafe(self._start_incoming)

    def _start_incoming(self) -> None:  # on the loop thread
        with self._handing:
            incoming, self._incoming = self._incoming, []
            self._woken = False
        for value, done in incoming:
            task = self.loop.create_task(self._report(value, done))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _report(self, value: Any, done: Callable[[list | None, BaseException | None], None]) -> None:
        try:
            outputs = await self.outputs(value)
        except BaseException as exc:  # noqa: BLE001 - handed to the task's thread
            done(None, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        else:
            done(outputs, None)

    async def outputs(self, value: Any) -> list:
        """The outputs for ``value``: ``async_invoke``'s, after retries, or ``timeout``'s."""
        if self.timeout_s <= 0 and self.retry_on_result is None and self.retry_on_error is None:
            return self._checked(await self.function.async_invoke(value))  # nothing to watch over
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s if self.timeout_s > 0 else None
        attempts = 1
        while True:
            timed_out, result, error = await self._attempt(loop, value, deadline)
            if timed_out:
                return self._on_timeout(value)
            if self._retries(result, error) and self.strategy.can_retry(attempts) \
                    and (deadline is None or loop.time() < deadline):
                delay = self.strategy.get_backoff_time_millis(attempts) / 1000
                if deadline is not None and loop.time() + delay >= deadline:
                    await asyncio.sleep(_left(loop, deadline))
                    return self._on_timeout(value)
                await asyncio.sleep(delay)
                attempts += 1
                continue
            if error is not None:
                raise error
            return self._checked(result)

    async def _attempt(self, loop: asyncio.AbstractEventLoop, value: Any,
                       deadline: float | None) -> tuple[bool, Any, Exception | None]:
        """One call of ``async_invoke``: (timed out, result, exception); at the deadline the
        call is cancelled."""
        if deadline is None:
            try:
                return False, await self.function.async_invoke(value), None
            except Exception as exc:  # noqa: BLE001 - the retry strategy judges it
                return False, None, exc
        attempt = loop.create_task(self.function.async_invoke(value))
        expired: list[bool] = []

        def expire() -> None:
            expired.append(True)
            attempt.cancel()

        timer = loop.call_at(deadline, expire)
        try:
            return False, await attempt, None
        except asyncio.CancelledError:
            if not expired:
                raise  # the runner is closing
            return True, None, None
        except Exception as exc:  # noqa: BLE001 - the retry strategy judges it
            return False, None, exc
        finally:
            timer.cancel()

    def _retries(self, result: Any, error: BaseException | None) -> bool:
        if error is not None:
            return self.retry_on_error is not None and bool(self.retry_on_error(error))
        return result is not None and self.retry_on_result is not None and bool(self.retry_on_result(result))

    def _on_timeout(self, value: Any) -> list:
        return self._checked(self.function.timeout(value))

    def _checked(self, result: Any) -> list:
        if result is None:
            raise RuntimeError(f"The result of AsyncFunction cannot be none, please check the methods "
                               f"'async_invoke' and 'timeout' of class '{self.class_name}'.")
        if not isinstance(result, Iterable):
            raise RuntimeError(f"The result of AsyncFunction should be of list type, please check the methods "
                               f"'async_invoke' and 'timeout' of class '{self.class_name}', got {result!r}.")
        return list(result)


def _left(loop: asyncio.AbstractEventLoop, deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - loop.time(), 0.0)


class _Entry:
    """An element in flight: its value, time facts and, once done, its outputs or error."""

    __slots__ = ("value", "timestamp", "watermark", "context", "outputs", "error", "segment")

    def __init__(self, value: Any, timestamp: int | None, watermark: int | None, context: Any):
        self.value = value
        self.timestamp = timestamp
        self.watermark = watermark
        self.context = context
        self.outputs: list | None = None
        self.error: BaseException | None = None
        self.segment: _Segment | None = None


class _Segment:
    """Elements that arrived under one watermark stamp (unordered mode): those completed and
    not yet emitted, and how many are still in flight."""

    __slots__ = ("watermark", "completed", "pending")

    def __init__(self, watermark: int | None):
        self.watermark = watermark
        self.completed: deque[_Entry] = deque()
        self.pending = 0


class AsyncWait:
    """One task's async wait operator: hands elements to the runner, emits their outputs
    downstream (with the record's time facts set to theirs), on the task's thread."""

    def __init__(self, runner: AsyncRunner, descriptor: AsyncFunctionDescriptor, name: str, record: Any,
                 downstream: Callable[[Any], None]):
        self.runner = runner
        self.name = name
        self.record = record
        self.downstream = downstream
        self.capacity = max(int(descriptor.capacity), 1)
        self.ordered = descriptor.output_mode == AsyncFunctionDescriptor.OutputMode.ORDERED
        self.in_flight = 0  # handed to the runner and not yet emitted
        self.entries: deque[_Entry] = deque()  # ordered mode: in input order
        self.segments: deque[_Segment] = deque()  # unordered mode: by watermark stamp
        self._done: deque[_Entry] = deque()  # completed on the loop thread, not yet taken
        self._signal = threading.Condition()

    def push(self, value: Any) -> None:
        record = self.record
        while self.in_flight >= self.capacity:
            self._take_completed(block=True)
            self._emit_ready()
        entry = _Entry(value, record.timestamp, record.watermark, record.save_context())
        if self.ordered:
            self.entries.append(entry)
        else:
            segment = self.segments[-1] if self.segments else None
            if segment is None or _later(entry.watermark, segment.watermark):
                segment = _Segment(entry.watermark)
                self.segments.append(segment)
            entry.segment = segment
            segment.pending += 1
        self.in_flight += 1
        self.runner.submit(value, lambda outputs, error: self._completed(entry, outputs, error))
        self._take_completed(block=False)
        self._emit_ready()

    def finish(self, final: bool) -> None:
        """Emits what has completed; when ``final`` (the task's input ended), waits for all."""
        self._take_completed(block=False)
        self._emit_ready()
        while final and self.in_flight:
            self._take_completed(block=True)
            self._emit_ready()

    def _completed(self, entry: _Entry, outputs: list | None, error: BaseException | None) -> None:
        # on the loop thread
        entry.outputs, entry.error = outputs, error
        with self._signal:
            self._done.append(entry)
            self._signal.notify()

    def _take_completed(self, block: bool) -> None:
        with self._signal:
            while block and not self._done:
                self._signal.wait(1.0)
            done = list(self._done)
            self._done.clear()
        for entry in done:
            if entry.error is not None:
                error = entry.error
                if isinstance(error, Exception) and hasattr(error, "add_note"):
                    error.add_note(f"(async I/O of {self.runner.class_name} for the input {entry.value!r})")
                raise user_function_failure(self.name, error) from None
            if not self.ordered:
                segment = entry.segment
                segment.pending -= 1
                segment.completed.append(entry)

    def _emit_ready(self) -> None:
        if self.ordered:
            entries = self.entries
            while entries and entries[0].outputs is not None:
                self._emit(entries.popleft())
            return
        segments = self.segments
        while segments:
            head = segments[0]
            while head.completed:
                self._emit(head.completed.popleft())
            if head.pending or len(segments) == 1:
                return
            segments.popleft()

    def _emit(self, entry: _Entry) -> None:
        self.in_flight -= 1
        if not entry.outputs:
            return
        record = self.record
        current = (record.timestamp, record.watermark, record.save_context())
        record.timestamp, record.watermark = entry.timestamp, entry.watermark
        record.restore_context(entry.context)
        try:
            for output in entry.outputs:
                self.downstream(output)
        finally:
            record.timestamp, record.watermark = current[0], current[1]
            record.restore_context(current[2])


def _later(stamp: int | None, than: int | None) -> bool:
    return stamp is not None and (than is None or stamp > than)


def async_wait_push(uid: str, name: str, descriptor: AsyncFunctionDescriptor, record: Any, task_info: TaskInfo,
                    downstream: Callable[[Any], None]) -> Callable[[Any], None]:
    """The push function of an async wait operation; its ``finish`` is registered on ``record``."""

    def open_runner() -> AsyncRunner:
        try:
            return AsyncRunner(descriptor).start(task_info)
        except Exception as exc:
            raise user_function_failure(name, exc) from None

    runner = lifecycle.opened(uid, task_info.index_of_subtask, name, open_runner, AsyncRunner.close)
    operator = AsyncWait(runner, descriptor, name, record, downstream)
    record.add_finisher(operator.finish)
    return operator.push
