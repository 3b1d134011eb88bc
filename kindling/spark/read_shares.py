"""How a micro-batch's read limit (``kindling.source.max-records-per-batch``) is shared out
among the splits a source reads in parallel (index ranges, files, Kafka partitions)."""
from __future__ import annotations


def share_out(budget: int | None, remaining: list[int]) -> list[int]:
    """How many records each of several splits reads in a micro-batch: equal shares of ``budget``
    (None: everything ``remaining``), a split needing less than its share leaving the rest to the
    others, and the records a share does not divide going to the splits with the most left. So
    parallel splits advance together, as Flink's parallel readers do."""
    if budget is None:
        return list(remaining)
    takes = [0] * len(remaining)
    waiting = [i for i, left in enumerate(remaining) if left > 0]
    while waiting and budget > 0:
        waiting.sort(key=lambda i: takes[i] - remaining[i])
        share, extra = divmod(budget, len(waiting))
        still = []
        for rank, i in enumerate(waiting):
            got = min(share + (rank < extra), remaining[i] - takes[i])
            takes[i] += got
            budget -= got
            if takes[i] < remaining[i]:
                still.append(i)
        if len(still) == len(waiting):
            break
        waiting = still
    return takes
