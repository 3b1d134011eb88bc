"""Shared by record.py (PyFlink side), run_on_kindling.py and test_conformance.py (Kindling side).

A conformance program is a plain PyFlink script in programs/. Its docstring may hold a line
``# conformance: sorted, ignore-prefix``: ``sorted`` compares the lines as a sorted list (for
programs whose order Flink does not define: several sinks, parallel subtasks, union);
``ignore-prefix`` replaces the subtask number of ``2> `` / ``id:2> `` prefixes by ``n`` (the prefix
itself must still be there) where Flink picks the subtask at random (rebalance's first channel).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
EXPECTED = os.path.join(HERE, "expected")

_OPTIONS = re.compile(r"^#\s*conformance:\s*(.*)$", re.MULTILINE)
_PARALLELISM = re.compile(r"\bset_parallelism\((\d+)\)")
_SUBTASK_PREFIX = re.compile(r"^((?:[^\n]*?:)?)\d+> ")


def program_names() -> list[str]:
    """Every program, by file name without ``.py``."""
    return sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py") and not f.startswith("_"))


def program_path(name: str) -> str:
    return os.path.join(PROGRAMS, name + ".py")


def expected_path(name: str) -> str:
    return os.path.join(EXPECTED, name + ".out")


def options(name: str) -> set[str]:
    """The ``# conformance:`` words of a program (text in parentheses is a comment)."""
    with open(program_path(name), encoding="utf-8") as f:
        found = _OPTIONS.search(f.read())
    if not found:
        return set()
    words = re.sub(r"\(.*?\)", "", found.group(1))
    return {w.strip() for w in words.split(",") if w.strip()}


def env_parallelism(name: str) -> int:
    """The parallelism the program sets on its environment (programs sharing one are run together)."""
    with open(program_path(name), encoding="utf-8") as f:
        found = _PARALLELISM.search(f.read())
    return int(found.group(1)) if found else 0


def without_subtask_number(line: str) -> str:
    """``2> x`` -> ``n> x`` and ``id:2> x`` -> ``id:n> x``: the prefix's form stays, its number goes."""
    return _SUBTASK_PREFIX.sub(r"\1n> ", line, count=1)


def normalize(name: str, stdout: str) -> list[str]:
    """The program's output lines as compared: sorted and prefix-free where its options say so."""
    lines = stdout.splitlines()
    opts = options(name)
    if "ignore-prefix" in opts:
        lines = [without_subtask_number(line) for line in lines]
    if "sorted" in opts:
        lines = sorted(lines)
    return lines


def run_on_kindling(scripts: list[str], python: str = sys.executable, timeout: float = 900,
                    cwd: str = HERE, seconds: dict[str, float] | None = None,
                    properties: dict[str, str] | None = None,
                    shuffle_partitions: dict[str, int] | None = None) -> dict[str, tuple[str, str]]:
    """Runs programs (names) or PyFlink scripts (paths) one after another in one ``kindling run``
    process (run_on_kindling.py, one Spark start-up; ``import pyflink`` is kindling run's alias),
    with ``properties`` as its ``-D`` options and each script of ``shuffle_partitions`` with that many
    shuffle partitions; returns each one's (stdout, "ok" or the failure), and puts into ``seconds``
    how long each that ended took (the first one's includes Spark's start)."""
    from run_on_kindling import MARKER, SHUFFLE_PARTITIONS

    import kindling

    env = {k: v for k, v in os.environ.items() if k != "KINDLING_CONF"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(kindling.__file__))  # the Kindling under test
    env.setdefault("KINDLING_SPARK_MASTER", "local[2]")
    options = [f"-D{key}={value}" for key, value in (properties or {}).items()]
    arguments, partitions = [], None
    for script in scripts:
        if shuffle_partitions and script in shuffle_partitions and shuffle_partitions[script] != partitions:
            partitions = shuffle_partitions[script]
            arguments.append(f"{SHUFFLE_PARTITIONS}{partitions}")
        arguments.append(script)
    command = [python, "-m", "kindling", "run", *options, os.path.join(HERE, "run_on_kindling.py"), *arguments]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
        stdout, stderr, exit_text = done.stdout, done.stderr, f"exit {done.returncode}"
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        exit_text = f"killed after {timeout:.0f} s"
    if seconds is not None:
        took = re.compile(rf"^{re.escape(MARKER)} (.+) took ([0-9.]+)$", re.MULTILINE)
        seconds.update((name, float(s)) for name, s in took.findall(stderr))
    results: dict[str, tuple[str, str]] = {}
    current, lines = None, []
    for line in stdout.splitlines(keepends=True):
        if line.startswith(f"{MARKER} begin "):
            current, lines = line.split()[-1], []
        elif line.startswith(f"{MARKER} end ") and current is not None:
            results[current] = ("".join(lines), line.split()[-1])
            current = None
        elif current is not None:
            lines.append(line)
    for script in scripts:
        if script not in results:
            partial = "".join(lines) if script == current else ""
            results[script] = (partial, f"the Kindling process ended ({exit_text}) before it finished")
        if results[script][1] != "ok":
            results[script] = (results[script][0], f"{results[script][1]}\n{_failure_of(script, stderr)}")
    return results


def _failure_of(script: str, stderr: str) -> str:
    """The traceback run_on_kindling.py wrote for ``script``, else the end of stderr."""
    from run_on_kindling import MARKER

    start = stderr.find(f"{MARKER} {script} failed:")
    if start < 0:
        return stderr[-4000:]
    end = stderr.find(MARKER, start + len(MARKER))
    return stderr[start:end if end >= 0 else None][-4000:]
