"""Flink's MergingWindowSet: the windows of one key under a merging assigner (sessions).

The set maps each window to its *state window*, the window its contents are stored under;
when windows merge, the result keeps the state window of one of them and the contents of the
others merge into it, so merging never rewrites more than the merged windows' contents.
"""
from __future__ import annotations

from typing import Any, Callable

from kindling.datastream.window import MergingWindowAssigner, TimeWindow

__all__ = ['add_window']


class _MergeResults(MergingWindowAssigner.MergeCallback):

    def __init__(self):
        self.results = {}

    def merge(self, to_be_merged, merge_result) -> None:
        self.results[merge_result] = to_be_merged


def add_window(mapping: dict, new_window, assigner: MergingWindowAssigner, time_sessions: bool,
               on_merge: Callable) -> Any:
    """Adds ``new_window`` to a key's merging window set ``mapping`` (window -> state window),
    merging windows as ``assigner`` says (``time_sessions``: it is a built-in session
    assigner); for each merge calls ``on_merge(merge_result, merged_windows, state_window,
    merged_state_windows)``. Returns the window ``new_window`` ended up in."""
    cb = _MergeResults()
    if time_sessions and type(new_window) is TimeWindow and new_window not in mapping:
        # the built-in session assigners merge overlapping TimeWindows; the windows of the
        # set never overlap each other, so only those overlapping the new one can merge
        # (the same result as TimeWindow.merge_windows over all of them, without sorting
        # every open window)
        ns, ne = new_window.start, new_window.end
        hits = [w for w in mapping if w.start <= ne and w.end >= ns]
        if hits:
            hits.append(new_window)
            hits.sort()
            members = set()
            cover_start, cover_end = hits[0].start, hits[0].end
            for w in hits:
                members.add(w)
                if w.end > cover_end:
                    cover_end = w.end
            cb.results[TimeWindow(cover_start, cover_end)] = members
    else:
        windows = list(mapping)
        windows.append(new_window)
        assigner.merge_windows(windows, cb)
    result_window = new_window
    merged_new = False
    for merge_result, merged in cb.results.items():
        if not isinstance(merged, set):
            merged = set(merged)
        if new_window in merged:
            merged_new = True
            merged.discard(new_window)
            result_window = merge_result
        if not merged:
            continue
        state_window = mapping[next(iter(merged))]
        merged_state_windows = []
        for m in merged:
            sw = mapping.pop(m, None)
            if sw is not None:
                merged_state_windows.append(sw)
        mapping[merge_result] = state_window
        merged_state_windows.remove(state_window)
        if merge_result not in merged or len(merged) != 1:
            on_merge(merge_result, merged, state_window, merged_state_windows)
    if not cb.results or (result_window == new_window and not merged_new):
        mapping[result_window] = result_window
    return result_window
