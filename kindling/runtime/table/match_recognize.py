"""MATCH_RECOGNIZE: the rows of each partition matched against a pattern of variables in event-time
order, one row per match, as Flink's CEP operator (its NFA) finds them.

A partition's rows wait in keyed state (a MapState of timestamp -> rows) until the watermark passes
their timestamp; they are then fed to the pattern in timestamp order (rows of one timestamp in
arrival order). A row at or before the watermark when it comes is late: dropped and counted, as
Flink drops it. BATCH mode: all rows of a partition, sorted, at the end of the input.

The pattern is a sequence of elements, each a variable with a quantifier (``low`` to ``high`` rows,
``high`` None: no bound), rows strictly contiguous. Every partial match (a *run*) advances on each row
along all the ways the row allows, as Flink's NFA does, which is not a textbook regex engine:

* a run may leave an element once it has ``low`` rows; a *greedy* element (``*``, ``+``, ``{n,}``,
  ``{n,m}``) only on a row its variable's condition rejects, and the element after a greedy
  ``{n,m}`` that took its ``m`` rows also takes no row the greedy variable accepts (Flink's greedy
  states); ``?`` and reluctant quantifiers (``*?``, ``+?``, ``{n,m}?``) branch both ways;
* a run completes when it takes a row into the last element and may leave every element after it;
* completed matches are emitted earliest start first, and only when no partial match that started
  earlier (or at the same row) is still open: a match waits behind an older open run, and is dropped
  if the older run's match prunes it;
* after a match, AFTER MATCH SKIP drops the runs and waiting matches that started: at or before its
  last row (PAST LAST ROW), at or before its first row (TO NEXT ROW), before the first or last row of
  a variable (TO FIRST / TO LAST var; skipping to the match's own first row, or to a variable without
  rows in the match, fails, as in Flink);
* WITHIN d: a run that started at ``s`` is dropped before a row at ``s + d`` or later is fed to it,
  and when the watermark reaches ``s + d`` (the interval is exclusive).

Conditions (DEFINE) and measures are expressions over named references (``refs``) the planner made
of the SQL (kindling/table/match_recognize.py): the first or last rows of a variable (or of all the
match's rows), aggregates of a variable's rows, the match's last timestamp.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from kindling.common.time import MAX_WATERMARK, epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.runtime.table.keyed_function import TableKeyedFunction

__all__ = ["MatchRecognizeFunction"]

#: Flink's words when AFTER MATCH SKIP TO a variable would start the next match where this one started
SKIP_TO_FIRST_ROW = "Could not skip to first element of a match."


# a run: (element position, rows in that element, whether the greedy element before blocks its first take,
#         rows taken [(variable, sequence number, timestamp, values)])
Run = Tuple[int, int, bool, tuple]


class MatchRecognizeFunction(TableKeyedFunction):
    """The matches of one partition (module docstring). ``elements``: the pattern (Elements of
    kindling/table/match_recognize.py, as its References and Skip); ``conditions``:
    per variable its DEFINE expression or None (always true), each reading ``condition_refs``;
    ``measures``: expressions reading ``measure_refs``, the aggregates ``aggregates`` ({variable or
    None: (AggregateCalls, names)}) and ``rowtime_name``; ``keys``: the positions of the PARTITION BY
    columns; ``time``: the position of the ORDER BY time column; ``within``: ms or None."""

    state_name = "_kindling_match_recognize"

    def __init__(self, elements: List[Any], conditions: List[Any], condition_refs: List[Any], measures: List[Any],
                 measure_refs: List[Any], aggregates: Dict[Optional[int], Tuple[Any, list]], rowtime_name: str,
                 keys: List[int], time: int, skip: Any, within: Optional[int], names: List[str]):
        self.elements, self.conditions, self.condition_refs = elements, conditions, condition_refs
        self.measures, self.measure_refs, self.aggregates = measures, measure_refs, aggregates
        self.rowtime_name, self.keys, self.time, self.skip, self.within = rowtime_name, keys, time, skip, within
        self.names = names

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import MapStateDescriptor

        super().open(runtime_context)  # self.state: [next sequence number, runs, completed matches]
        self.pending = runtime_context.get_map_state(MapStateDescriptor(
            "_kindling_match_recognize_rows", Types.LONG(), Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, row, ctx):
        values = list(row._values)
        moment = values[self.time]
        timers = ctx.timer_service()
        if moment is None:
            raise ValueError("MATCH_RECOGNIZE: a row has a NULL time attribute (ORDER BY column); rows are "
                             "matched in event-time order and need a time")
        millis = epoch_millis(timestamp_of(moment))
        if self.in_batch:
            timers.register_event_time_timer(MAX_WATERMARK)
        elif millis <= timers.current_watermark():
            self.late += 1  # Flink's CEP operator drops late rows (numLateRecordsDropped)
            return
        else:
            timers.register_event_time_timer(millis)
        rows = self.pending.get(millis) or []
        rows.append(values)
        self.pending.put(millis, rows)

    def on_timer(self, timestamp, ctx):
        due = sorted(t for t in self.pending.keys() if t <= timestamp)
        nfa = self.state.value() or [0, [], []]
        out: List[list] = []
        for millis in due:
            for values in self.pending.get(millis):
                out += self._advance(nfa, millis, values)
            self.pending.remove(millis)
        out += self._timed_out(nfa, timestamp)
        if nfa[1] and self.within is not None:  # the watermark ending the oldest run's WITHIN
            ctx.timer_service().register_event_time_timer(min(run[3][0][2] for run in nfa[1]) + self.within)
        if nfa[1] or nfa[2]:
            self.state.update(nfa)
        else:
            self.state.clear()
        for match in out:
            yield self._row(match)

    # -- the pattern --------------------------------------------------------------------------------------

    def _advance(self, nfa: list, millis: int, values: list) -> List[tuple]:
        """Feeds one row to every open run and a new one; the matches emitted."""
        sequence = nfa[0]
        nfa[0] += 1
        runs = [run for run in nfa[1] if not self._expired(run, millis)]
        completed, advanced = [], []
        for run in runs + [(0, 0, False, ())]:
            for successor in self._successors(run, (sequence, millis, values)):
                (completed if successor[0] == len(self.elements) else advanced).append(successor)
        nfa[1] = advanced
        nfa[2] = nfa[2] + [run[3] for run in completed]
        return self._emitted(nfa)

    def _successors(self, run: Run, row: tuple) -> List[Run]:
        """The runs ``run`` becomes on ``row``, one per way it can take it; a run that may leave every
        element after the take is also there completed (at the end position)."""
        out: List[Run] = []
        position, count, blocked, taken = run
        while position < len(self.elements):
            element = self.elements[position]
            accepts = self._accepts(element.variable, taken, row)
            if (element.high is None or count < element.high) and accepts and not (
                    blocked and self._accepts(self.elements[position - 1].variable, taken, row)):
                now = taken + ((element.variable,) + row,)
                if element.high is not None and count + 1 == element.high:
                    advanced = (position + 1, 0, element.blocks_next, now)
                else:
                    advanced = (position, count + 1, False, now)
                out.append(advanced)
                if advanced[0] < len(self.elements) and self._may_end(advanced):
                    out.append((len(self.elements), 0, False, now))
            if count < element.low or (element.greedy and accepts):
                break  # it may not leave the element: a greedy one leaves only on a row it rejects
            position, count, blocked = position + 1, 0, False
        return out

    def _may_end(self, run: Run) -> bool:
        """Whether ``run`` may leave every element from its position on without another row (the row just
        taken does not let a greedy element go: its variable accepted it)."""
        position, count, blocked, _ = run
        for element in self.elements[position:]:
            if count < element.low or element.greedy or blocked:
                return False
            count, blocked = 0, False
        return True

    def _accepts(self, variable: int, taken: tuple, row: tuple) -> bool:
        condition = self.conditions[variable]
        if condition is None:
            return True
        candidate = taken + ((variable,) + row,)
        env = {ref.name: self._value(ref, candidate, ref.variable) for ref in self.condition_refs}
        return condition.evaluate(env) is True

    def _value(self, ref: Any, taken: tuple, variable: Optional[int]):
        rows = [r for r in taken if variable is None or r[0] == variable]
        index = ref.offset if ref.from_first else len(rows) - 1 - ref.offset
        return rows[index][3][ref.column] if 0 <= index < len(rows) else None

    def _expired(self, run: Run, millis: int) -> bool:
        return self.within is not None and millis - run[3][0][2] >= self.within

    def _timed_out(self, nfa: list, watermark: int) -> List[tuple]:
        """Drops the runs WITHIN has ended by ``watermark``; the matches that no longer wait for them."""
        if self.within is not None:
            nfa[1] = [run for run in nfa[1] if not self._expired(run, watermark)]
        return self._emitted(nfa)

    def _emitted(self, nfa: list) -> List[tuple]:
        """The completed matches no open run started before (or with), earliest first, each pruning
        the runs and matches its AFTER MATCH SKIP passes."""
        out = []
        while nfa[2]:
            match = min(nfa[2], key=_start)
            if nfa[1] and min(_start(run[3]) for run in nfa[1]) < _start(match):
                break
            nfa[2].remove(match)
            out.append(match)
            bound, inclusive = self._pruned_before(match)
            if bound is not None:
                def kept(taken: tuple) -> bool:
                    return _start(taken) > bound if inclusive else _start(taken) >= bound
                nfa[1] = [run for run in nfa[1] if kept(run[3])]
                nfa[2] = [m for m in nfa[2] if kept(m)]
        return out

    def _pruned_before(self, match: tuple) -> Tuple[Optional[tuple], bool]:
        """What AFTER MATCH SKIP drops after ``match``: runs that started before (or at: ``inclusive``)
        the returned row position (None: none)."""
        kind = self.skip.kind
        if kind == "PAST LAST ROW":
            return _position(match[-1]), True
        if kind == "TO NEXT ROW":
            return _position(match[0]), True
        rows = [r for r in match if r[0] == self.skip.variable]
        if not rows:  # Flink's words
            raise RuntimeError(f"Could not skip to {self.skip.name}. No such element in the found match.")
        target = _position(rows[0] if kind == "TO FIRST" else rows[-1])
        if target == _position(match[0]):
            raise RuntimeError(SKIP_TO_FIRST_ROW)
        return target, False

    def _row(self, match: tuple):
        env: Dict[Any, Any] = {ref.name: self._value(ref, match, ref.variable) for ref in self.measure_refs}
        for variable, (calls, names) in self.aggregates.items():
            accumulators = calls.create()
            for taken in match:
                if variable is None or taken[0] == variable:
                    calls.accumulate(accumulators, taken[3], 1)
            env.update(zip(names, calls.result([], accumulators)))
        env[self.rowtime_name] = match[-1][3][self.time]
        keys = [match[0][3][k] for k in self.keys]
        return _create_row(self.names, keys + [m.evaluate(env) for m in self.measures], RowKind.INSERT)


def _position(taken_row: tuple) -> tuple:
    """A taken row's place in the partition: (timestamp, sequence number), as Flink's event ids."""
    return taken_row[2], taken_row[1]


def _start(taken: tuple) -> tuple:
    return _position(taken[0])
