"""CPU seconds of a process tree read from /proc (Linux): the JVM and Python workers a benchmark
side starts are its descendants, and a JVM nobody waits for escapes ``getrusage``."""
from __future__ import annotations

import os
import threading


def tree_ticks(root: int, exclude: str | None = None) -> dict[tuple[int, str], int]:
    """The CPU ticks (user + system) so far of ``root`` and its descendants, by (pid, start time),
    but of processes whose command line names ``exclude``; {} off Linux."""
    if not os.path.isdir("/proc/self"):
        return {}
    stats: dict[int, tuple[int, str, int]] = {}  # pid -> (parent, start time, ticks)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the name: state, ppid, ...
            if exclude is not None:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if exclude.encode() in f.read():
                        continue
        except OSError:
            continue  # ended meanwhile
        stats[int(entry)] = (int(fields[1]), fields[19], int(fields[11]) + int(fields[12]))  # utime + stime
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    ticks, stack = {}, [root]
    while stack:
        pid = stack.pop()
        if pid in stats:
            ticks[(pid, stats[pid][1])] = stats[pid][2]
        stack.extend(children.get(pid, []))
    return ticks


def tick_seconds(ticks: int) -> float:
    return ticks / os.sysconf("SC_CLK_TCK")


class TreeCpu:
    """The CPU seconds of process ``pid`` and its descendants, sampled by a daemon thread every
    ``every`` seconds (:func:`tree_ticks`: a process that ends counts as last seen; a scan of /proc
    takes ~8 ms of CPU with 160 processes); None off Linux."""

    def __init__(self, pid: int, every: float):
        self._pid, self._seen, self._stopped = pid, {}, threading.Event()
        self._sample()
        self._thread = threading.Thread(target=self._run, args=(every,), name="tree-cpu", daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        self._seen.update(tree_ticks(self._pid))

    def _run(self, every: float) -> None:
        while not self._stopped.wait(every):
            self._sample()

    @property
    def seconds(self) -> float | None:
        """The CPU seconds seen so far."""
        return tick_seconds(sum(self._seen.values())) if os.path.isdir("/proc/self") else None

    def stop(self) -> float | None:
        """Stops sampling after a last look; the CPU seconds seen."""
        self._stopped.set()
        self._thread.join()
        self._sample()
        return self.seconds
