"""Flink SQL's ``ROW_NUMBER()`` patterns and sorts of a stream, as keyed Python operators.

* **Deduplication** (``ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> ASC|DESC) ... WHERE
  rn = 1``), as Flink's deduplicate functions. Event time, keep first: a key's earliest row waits until
  the watermark passes it and is emitted once (``+I``, append-only; rows later than the watermark are
  dropped and counted). Event time, keep last: a row at or after the key's current one replaces it at
  once (``+I``, then ``-U`` old / ``+U`` new). Processing time: the first row (append-only), or every
  row replacing the previous one.
* **Top-N** (``... WHERE rn <= N``), as Flink's Top-N functions: over an append-only input
  (``AppendOnlyTopNFunction``) a row entering the top N emits ``+I`` and pushes the last one out with
  ``-D``, or, when ``rn`` is selected, moves every row below it down one rank with ``-U``/``+U`` pairs;
  over an updating input (an aggregation's changes), Flink's retracting algorithm
  (``RetractableTopNFunction``). Rows of equal sort keys rank in arrival order.
* **Window Top-N and window deduplication** (``PARTITION BY window_start, window_end, ...`` over a
  window TVF or a window aggregation of event time): a window's rows numbered once, when the watermark
  passes its end (``+I``, append-only; rows of a window that has fired are dropped and counted).
* **Sorting a stream** on its time attribute (``ORDER BY ts[, ...]``): rows wait until the watermark
  passes them and leave in time order, ties by the other keys; ``LIMIT`` in streaming mode is a Top-N
  without rank numbers (``ORDER BY ts LIMIT n``) or the first ``n`` rows.
* BATCH mode: each partition's rows sorted at the end of the input, numbered (``ROW_NUMBER``,
  ``RANK``, ``DENSE_RANK``) and those in the rank range emitted once.

Rows are sorted as Flink SQL sorts them: null as the smallest value (first ascending, last descending).
"""
from __future__ import annotations

import bisect
from typing import List, Optional, Sequence, Tuple

from kindling.common.time import MAX_WATERMARK, epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedProcessFunction
from kindling.runtime.table.keyed_function import TableKeyedFunction

__all__ = ["BatchRankFunction", "DeduplicateFunction", "Descending", "FirstNFunction", "RetractTopNFunction", "SortAll",
           "SortKey", "TemporalSortFunction", "Top1Function", "TopNFunction", "WindowRankFunction"]


_ACCUMULATE = (RowKind.INSERT, RowKind.UPDATE_AFTER)


class SortKey:
    """The sort key of a row's values: ``(position, descending)`` pairs, null the smallest value."""

    def __init__(self, orders: Sequence[Tuple[int, bool]]):
        self.orders = list(orders)

    def __call__(self, values: Sequence) -> tuple:
        key = []
        for position, descending in self.orders:
            value = values[position]
            part = (0,) if value is None else (1, value)
            key.append(Descending(part) if descending else part)
        return tuple(key)


class Descending:
    """A value that sorts in reverse."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other: "Descending") -> bool:
        return other.value < self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


class _RankBase(TableKeyedFunction):
    """What the rank operators share: state, the rank range, and rows emitted with or without ``rn``."""

    state_name = "_kindling_rank"

    def __init__(self, names: List[str], sort_key: SortKey, start: int, end: Optional[int], with_number: bool):
        self.names, self.sort_key, self.start, self.end = names, sort_key, start, end
        self.with_number = with_number

    def _in_range(self, rank: int) -> bool:
        return self.start <= rank and (self.end is None or rank <= self.end)

    def _in_end(self, rank: int) -> bool:
        return self.end is None or rank <= self.end

    def _row(self, values: list, kind, rank: Optional[int] = None):
        return _create_row(self.names, list(values) + ([rank] if self.with_number else []), kind)

    def _collect(self, out: list, kind, values: list, rank: Optional[int] = None) -> None:
        if rank is None or self._in_range(rank):
            out.append(self._row(values, kind, rank))


class TopNFunction(_RankBase):
    """Top-N of an append-only input (Flink's ``AppendOnlyTopNFunction``)."""

    def process_element(self, row, ctx):
        values = list(row._values)
        key = self.sort_key(values)
        keys, lists = self.state.value() or ([], [])
        total = sum(map(len, lists))
        if keys and not key < keys[-1] and total >= self.end:
            return  # not better than the N-th row
        at = bisect.bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            lists[at].append(values)
        else:
            keys.insert(at, key)
            lists.insert(at, [values])
        out: list = []
        if self.with_number or self.start > 1:
            stop = _emit_with_number(self, zip(keys, (len(rows) for rows in lists), lists), key, values, out)
            del keys[stop:], lists[stop:]  # what fell out of the top N
        elif total + 1 > self.end:
            last_rows = lists[-1]
            last = last_rows.pop()
            if not last_rows:
                del keys[-1], lists[-1]
            if last != values:
                self._collect(out, RowKind.DELETE, last)
                self._collect(out, RowKind.INSERT, values)
        else:
            self._collect(out, RowKind.INSERT, values)
        self.state.update((keys, lists))
        return out


class Top1Function(_RankBase):
    """Top-1 of an append-only input (Flink's ``FastTop1Function``): the first row ``+I``, a strictly
    better one replaces it with ``+U`` (preceded by ``-U`` of the old one when ``before``: Flink sends
    those only to operators that need them, not to a sink or a printed result)."""

    def __init__(self, names: List[str], sort_key: SortKey, with_number: bool, before: bool):
        super().__init__(names, sort_key, 1, 1, with_number)
        self.before = before

    def process_element(self, row, ctx):
        values = list(row._values)
        kept = self.state.value()
        if kept is None:
            self.state.update(values)
            return [self._row(values, RowKind.INSERT, 1)]
        if self.sort_key(values) < self.sort_key(kept):
            self.state.update(values)
            out = [self._row(kept, RowKind.UPDATE_BEFORE, 1)] if self.before else []
            return out + [self._row(values, RowKind.UPDATE_AFTER, 1)]


def _emit_with_number(function: _RankBase, entries, key, values: list, out: list) -> int:
    """A new row of sort key ``key`` ranked among ``entries`` ``(key, count, rows)``: the rows it moves
    down one rank (``-U``/``+U`` pairs) and its own ``+I`` when the top N was not full (Flink's
    algorithm for rank numbers). Returns how many entries were looked at."""
    rank, found, current, seen = 0, False, None, 0
    for entry_key, count, rows in entries:
        if not function._in_end(rank):
            break
        seen += 1
        if not found and entry_key == key:
            rank += count
            current, found = values, True
        elif found:
            current, rank = _shift(function, out, rows, current, rank, down=True)
        else:
            rank += count
    if function._in_end(rank):
        function._collect(out, RowKind.INSERT, current, rank)
    return seen


def _shift(function: _RankBase, out: list, rows: list, carried: list, rank: int, down: bool):
    """``rows`` each moved one rank down (a row entered above them: ``down``) or up (one left above
    them), from ``rank`` on: per rank ``-U`` of the row that was there and ``+U`` of the one now there.
    Returns the row carried past them and the next rank."""
    for row in rows:
        if not function._in_end(rank):
            break
        before, after = (row, carried) if down else (carried, row)
        function._collect(out, RowKind.UPDATE_BEFORE, before, rank)
        function._collect(out, RowKind.UPDATE_AFTER, after, rank)
        carried, rank = row, rank + 1
    return carried, rank


class RetractTopNFunction(_RankBase):
    """Top-N of an updating input (Flink's ``RetractableTopNFunction``): ``+I``/``+U`` rows enter,
    ``-U``/``-D`` rows leave, and the ranks below them move."""

    def process_element(self, row, ctx):
        values = list(row._values)
        key = self.sort_key(values)
        keys, counts, data = self.state.value() or ([], [], {})
        at = bisect.bisect_left(keys, key)
        present = at < len(keys) and keys[at] == key
        out: list = []
        if row._row_kind in _ACCUMULATE:
            if present:
                counts[at] += 1
            else:
                keys.insert(at, key)
                counts.insert(at, 1)
            if self.with_number or self.start > 1:
                _emit_with_number(self, ((k, c, data.get(k, [])) for k, c in zip(keys, counts)), key, values, out)
            else:
                self._insert_without_number(keys, counts, data, key, values, out)
            data.setdefault(key, []).append(values)
        else:
            if self.with_number or self.start > 1:
                removed = self._retract_with_number(keys, counts, data, key, values, out)
            else:
                removed = self._retract_without_number(keys, counts, data, key, values, out)
            if present:
                counts[at] -= 1
                if not counts[at]:
                    del keys[at], counts[at]
            if not removed and values in data.get(key, []):
                data[key].remove(values)
            if key in data and not data[key]:
                del data[key]
        self.state.update((keys, counts, data))
        return out

    def _insert_without_number(self, keys, counts, data, key, values, out) -> None:
        rank, found, collect, delete = 0, False, None, None
        for entry_key, count in zip(keys, counts):
            if not self._in_end(rank):
                break
            if not found and entry_key == key:
                rank += count
                collect = values if self._in_range(rank) else None
                found = True
            elif found:
                if self._in_end(rank + count):
                    rank += count
                else:
                    delete = data[entry_key][self.end - rank]
                    break
            else:
                rank += count
        if delete is not None:
            self._collect(out, RowKind.DELETE, delete)
        if collect is not None:
            self._collect(out, RowKind.INSERT, collect)

    def _retract_with_number(self, keys, counts, data, key, values, out) -> bool:
        rank, found, previous = 0, False, None
        for entry_key, count in zip(keys, counts):
            if not self._in_end(rank):
                break
            rows = data.get(entry_key, [])
            if not found and entry_key == key:
                for current in list(rows):
                    if not self._in_end(rank):
                        break
                    if not found and current == values:
                        previous, found = current, True
                        rows.remove(current)
                    elif found:
                        self._collect(out, RowKind.UPDATE_BEFORE, previous, rank)
                        self._collect(out, RowKind.UPDATE_AFTER, current, rank)
                        previous = current
                    rank += 1
            elif found:
                previous, rank = _shift(self, out, rows, previous, rank, down=False)
            else:
                rank += count
        if self._in_end(rank) and previous is not None:
            self._collect(out, RowKind.DELETE, previous, rank)
        return found

    def _retract_without_number(self, keys, counts, data, key, values, out) -> bool:
        rank, found = 1, False
        for entry_key, count in zip(keys, counts):
            if not self._in_end(rank):
                break
            if not found and entry_key == key:
                rows = data.get(entry_key, [])
                for current in list(rows):
                    if not self._in_end(rank):
                        break
                    if not found and current == values:
                        self._collect(out, RowKind.DELETE, current)
                        rank -= 1
                        found = True
                        rows.remove(current)
                    elif found and rank == self.end:
                        self._collect(out, RowKind.INSERT, current)
                    rank += 1
            elif found:
                if rank + count - 1 < self.end:
                    rank += count
                else:
                    self._collect(out, RowKind.INSERT, data[entry_key][self.end - rank])
                    break
            else:
                rank += count
        return found


class DeduplicateFunction(_RankBase):
    """The first or last row of a key by its time attribute (Flink's deduplicate functions; see the
    module docstring). ``time_position`` is the event-time column, or None for processing time."""

    def __init__(self, names: List[str], time_position: Optional[int], keep_last: bool, with_number: bool):
        super().__init__(names, SortKey([]), 1, 1, with_number)
        self.time_position, self.keep_last = time_position, keep_last

    def _time(self, values: list) -> int:
        return epoch_millis(timestamp_of(values[self.time_position]))

    def process_element(self, row, ctx):
        values = list(row._values)
        kept = self.state.value()  # [values, emitted]: the row kept and whether it was emitted
        if self.time_position is not None and not self.keep_last:
            timers = ctx.timer_service()
            if self._time(values) < timers.current_watermark():
                self.late += 1  # Flink drops a late row of an event-time deduplication
                return
            if kept is not None and (kept[1] or not self._replaces(kept[0], values)):
                return
            if kept is not None:
                timers.delete_event_time_timer(self._time(kept[0]))
            timers.register_event_time_timer(self._time(values))
            self.state.update([values, False])
            return
        if kept is None:
            self.state.update([values, True])
            return [self._row(values, RowKind.INSERT, 1)]
        if self.keep_last and self._replaces(kept[0], values):
            self.state.update([values, True])
            return [self._row(kept[0], RowKind.UPDATE_BEFORE, 1), self._row(values, RowKind.UPDATE_AFTER, 1)]

    def _replaces(self, kept: list, values: list) -> bool:
        if self.time_position is None:
            return self.keep_last  # processing time: arrival order
        return self._time(values) >= self._time(kept) if self.keep_last else self._time(values) < self._time(kept)

    def on_timer(self, timestamp, ctx):
        kept = self.state.value()
        if kept is not None and not kept[1]:
            self.state.update([kept[0], True])
            yield self._row(kept[0], RowKind.INSERT, 1)


class WindowRankFunction(_RankBase):
    """Window Top-N and window deduplication (Flink's ``WindowRank``): a partition holds one window's
    rows (``window_start``/``window_end`` among its keys); they are numbered when the watermark
    passes the window's end and those in the rank range emitted once (``+I``). A row arriving after
    that is late: dropped and counted, as Flink drops it."""

    def __init__(self, names: List[str], sort_key: SortKey, start: int, end: Optional[int], with_number: bool,
                 window_end: int):
        super().__init__(names, sort_key, start, end, with_number)
        self.window_end = window_end

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ListStateDescriptor

        super().open(runtime_context)
        # a list state: the window's rows are appended (on Spark, spilled in segments) until it fires
        self.rows = runtime_context.get_list_state(ListStateDescriptor("_kindling_window_rank",
                                                                       Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, row, ctx):
        values = list(row._values)
        fires = epoch_millis(timestamp_of(values[self.window_end])) - 1
        if fires <= ctx.timer_service().current_watermark():
            self.late += 1
            return
        self.rows.add(values)
        ctx.timer_service().register_event_time_timer(fires)

    def on_timer(self, timestamp, ctx):
        rows = sorted(self.rows.get(), key=self.sort_key)
        self.rows.clear()
        out: list = []
        for number, values in enumerate(rows[:self.end], start=1):
            self._collect(out, RowKind.INSERT, values, number)
        return out


class BatchRankFunction(_RankBase):
    """BATCH mode: a partition's rows numbered at the end of the input (``ROW_NUMBER``, ``RANK`` or
    ``DENSE_RANK``), those in the rank range emitted."""

    def __init__(self, names: List[str], sort_key: SortKey, start: int, end: Optional[int], with_number: bool,
                 function: str = "ROW_NUMBER"):
        super().__init__(names, sort_key, start, end, with_number)
        self.function = function

    def process_element(self, row, ctx):
        rows = self.state.value() or []
        rows.append(list(row._values))
        self.state.update(rows)
        ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def on_timer(self, timestamp, ctx):
        rows = sorted(self.state.value() or [], key=self.sort_key)
        out: list = []
        rank, dense, previous = 0, 0, None
        for i, values in enumerate(rows):
            key = self.sort_key(values)
            if i == 0 or key != previous:
                rank, dense, previous = i + 1, dense + 1, key
            number = {"ROW_NUMBER": i + 1, "RANK": rank, "DENSE_RANK": dense}[self.function]
            if not self._in_end(number):
                break
            self._collect(out, RowKind.INSERT, values, number)
        return out


class TemporalSortFunction(TableKeyedFunction):
    """A stream sorted on its event time (then ``then_by``): rows wait until the watermark passes
    them, as Flink's row-time sort; a row at or before the last time emitted is late (dropped and
    counted)."""

    state_name = "_kindling_sort"

    def __init__(self, time_position: int, then_by: SortKey):
        self.time_position, self.then_by = time_position, then_by

    def process_element(self, row, ctx):
        last, pending = self.state.value() or (None, {})
        time = epoch_millis(timestamp_of(row._values[self.time_position]))
        if last is not None and time <= last:
            self.late += 1
            return
        if time not in pending:
            ctx.timer_service().register_event_time_timer(time)
        pending.setdefault(time, []).append(row)
        self.state.update((last, pending))

    def on_timer(self, timestamp, ctx):
        last, pending = self.state.value() or (None, {})
        rows = pending.pop(timestamp, [])
        self.state.update((timestamp if rows else last, pending))
        yield from sorted(rows, key=lambda r: self.then_by(r._values))


class SortAll(KeyedProcessFunction):
    """All rows in one group, sorted at the end of the (bounded) input, ``fetch`` of them after ``offset``
    (BATCH mode's ORDER BY)."""

    def __init__(self, input_names: List[str], keys: list, offset: int, fetch: Optional[int]):
        self.input_names, self.keys, self.offset, self.fetch = input_names, keys, offset, fetch

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ListStateDescriptor

        self.rows = runtime_context.get_list_state(ListStateDescriptor("_kindling_sorted", Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, row, ctx):
        self.rows.add(row)
        ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def _key(self, row):
        env = dict(zip(self.input_names, row._values))
        key = []
        for expression in self.keys:
            value = expression.evaluate(env)
            # the Table API sorts null as the largest value, Flink SQL as the smallest
            descending = getattr(expression, "_descending", False)
            nulls_first = descending != getattr(expression, "_null_smallest", False)
            rank = (value is None) != nulls_first
            key.append((rank, 0 if value is None else Descending(value) if descending else value))
        return key

    def on_timer(self, timestamp, ctx):
        rows = sorted(self.rows.get(), key=self._key) if self.keys else list(self.rows.get())
        end = None if self.fetch is None else self.offset + self.fetch
        yield from rows[self.offset:end]


class FirstNFunction(KeyedProcessFunction):
    """The first ``n`` rows of a stream after ``offset`` rows (``LIMIT n`` in streaming mode), the rest
    ignored (Flink's ``AppendOnlyFirstNFunction``)."""

    def __init__(self, offset: int, n: int):
        self.offset, self.n = offset, n

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.count = runtime_context.get_state(ValueStateDescriptor("_kindling_first_n", Types.LONG()))

    def process_element(self, row, ctx):
        seen = self.count.value() or 0
        if seen < self.offset + self.n:
            self.count.update(seen + 1)
            return [row] if seen >= self.offset else None
