"""Runs PyFlink's own DataStream and Table API examples on PyFlink and on Kindling and compares what they print.

    python tools/compare_examples.py [--reuse] [--jobs N] [EXAMPLE ...]

Needs apache-flink (the Python of $PYFLINK_PYTHON, else /opt/pyflink-venv/bin/python). Each example
runs unchanged: on PyFlink in its own process, on Kindling through ``kindling run`` and its
``pyflink`` alias (all examples in one process, one Spark start-up: tests/conformance/run_on_kindling.py). One line per example:
``identical``, ``identical as sorted lines``, ``identical as sorted lines but for subtask numbers``,
or the first differing line (PyFlink's own runtime lines, such as Beam's "Using Any for unsupported
type", are left out of its side). PyFlink's outputs are kept in --cache; --reuse skips rerunning PyFlink.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
from conformance_support import run_on_kindling, without_subtask_number  # noqa: E402
from record import pyflink_python  # noqa: E402

# The deterministic DataStream examples that need no external server, then the Table API ones
# as ``table/NAME``. Left out: table/streaming_word_count (endless random datagen rows) and
# table/pandas/conversion_from_dataframe (random numbers); tests/table/test_word_count_examples.py runs
# the first bounded.
EXAMPLES = ["basic_operations", "event_time_timer", "process_json_data", "state_access", "word_count",
            "windowing/session_with_dynamic_gap_window", "windowing/session_with_gap_window",
            "windowing/sliding_time_window", "windowing/tumbling_count_window", "windowing/tumbling_time_window"]
TABLE_EXAMPLES = ["table/" + name for name in (
    "basic_operations", "mixing_use_of_datastream_and_table", "multi_sink", "process_json_data",
    "process_json_data_with_udf", "word_count", "windowing/over_window", "windowing/session_window",
    "windowing/sliding_window", "windowing/tumble_window", "pandas/pandas_udaf")]


def examples_dir(python: str) -> str:
    """PyFlink's ``examples`` directory (``datastream/`` and ``table/`` below it)."""
    code = "import os, pyflink; print(os.path.dirname(pyflink.__file__))"
    package = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(package, "examples")


def example_path(folder: str, name: str) -> str:
    """The file of an example: ``table/NAME`` under ``table/``, any other under ``datastream/``."""
    return os.path.join(folder, name + ".py") if name.startswith("table/") else \
        os.path.join(folder, "datastream", name + ".py")


def run_on_pyflink(python: str, path: str, timeout: float) -> str:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(python) + os.pathsep + env.get("PATH", "")  # PyFlink's workers run `python`
    env.pop("PYTHONPATH", None)
    done = subprocess.run([python, path], capture_output=True, text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"failed on PyFlink (exit {done.returncode}): {done.stderr[-500:]}")
    return done.stdout


# Lines PyFlink's own runtime (Beam, its Cython check) logs to stdout in examples that log at INFO
# there: they are not the job's output, and Kindling has no reason to print them.
_PYFLINK_RUNTIME_NOISE = re.compile(r"^(Using Any for unsupported type: |No module named google\.cloud\."
                                    r"|PYFLINK_CYTHON_ENABLED: )")


def verdict(pyflink: str, kindling: str) -> str:
    """How close Kindling's output is to PyFlink's, in one line."""
    expected = [line for line in pyflink.splitlines() if not _PYFLINK_RUNTIME_NOISE.match(line)]
    actual = kindling.splitlines()
    if expected == actual:
        return "identical"
    if sorted(expected) == sorted(actual):
        return "identical as sorted lines"
    if sorted(map(without_subtask_number, expected)) == sorted(map(without_subtask_number, actual)):
        return "identical as sorted lines but for subtask numbers"
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            return f"differs at line {i + 1}: PyFlink {e!r} / Kindling {a!r}  ({len(expected)} vs {len(actual)} lines)"
    shorter = "Kindling" if len(actual) < len(expected) else "PyFlink"
    extra = (expected if shorter == "Kindling" else actual)[min(len(expected), len(actual))]
    return f"differs at line {min(len(expected), len(actual)) + 1}: {shorter} ends, the other has {extra!r}"


def _error_line(status: str) -> str:
    errors = [l for l in status.splitlines() if re.match(r"^[\w.]+(Error|Exception|Exit)\b", l)]
    return (errors or status.strip().splitlines() or ["?"])[-1][:300]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", help=f"default: {' '.join(EXAMPLES + TABLE_EXAMPLES)}")
    parser.add_argument("--cache", default=os.path.join("/tmp", "kindling-compare-examples"))
    parser.add_argument("--reuse", action="store_true", help="reuse PyFlink outputs already in --cache")
    parser.add_argument("--jobs", type=int, default=1, help="PyFlink examples run at once")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    names = args.examples or EXAMPLES + TABLE_EXAMPLES
    python = pyflink_python()
    folder = examples_dir(python)
    paths = {name: example_path(folder, name) for name in names}

    def pyflink_output(name: str) -> str:
        cached = os.path.join(args.cache, name.replace("/", "__") + ".out")
        if args.reuse and os.path.exists(cached):
            with open(cached, encoding="utf-8") as f:
                return f.read()
        try:
            output = run_on_pyflink(python, paths[name], args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            return f"\0{exc}"
        os.makedirs(args.cache, exist_ok=True)
        with open(cached, "w", encoding="utf-8") as f:
            f.write(output)
        return output

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        pyflink = dict(zip(names, pool.map(pyflink_output, names)))
    kindling = run_on_kindling(list(paths.values()), python=os.path.join(ROOT, ".venv", "bin", "python")
                               if os.path.exists(os.path.join(ROOT, ".venv", "bin", "python")) else sys.executable,
                               timeout=args.timeout * len(names))
    width = max(map(len, names))
    for name in names:
        stdout, status = kindling[paths[name]]
        if pyflink[name].startswith("\0"):
            line = f"PyFlink {pyflink[name][1:].splitlines()[0]}"
        elif status != "ok":
            line = f"failed on Kindling: {_error_line(status)}"
        else:
            line = verdict(pyflink[name], stdout)
        print(f"{name:<{width}}  {line}", flush=True)


if __name__ == "__main__":
    main()
