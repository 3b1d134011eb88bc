"""Records the conformance programs' expected output from the real PyFlink (run by hand).

    python tests/conformance/record.py [--jobs 2] [NAME ...]

Needs apache-flink: the Python of $PYFLINK_PYTHON, else /opt/pyflink-venv/bin/python, else the
running Python if it can import pyflink. Each program runs unchanged in its own process; its
stdout becomes expected/NAME.out. A program that fails on PyFlink records nothing and is reported.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance_support import expected_path, program_names, program_path  # noqa: E402


def pyflink_python() -> str:
    candidates = [os.environ.get("PYFLINK_PYTHON"), "/opt/pyflink-venv/bin/python", sys.executable]
    for python in filter(None, candidates):
        if os.path.exists(python) and subprocess.run([python, "-c", "import pyflink.datastream"],
                                                     capture_output=True).returncode == 0:
            return python
    sys.exit("record.py needs apache-flink: set PYFLINK_PYTHON to a Python that has it")


def record(python: str, name: str, timeout: float) -> str:
    env = dict(os.environ)
    # PyFlink starts its Python workers as `python`: it must be the same interpreter.
    env["PATH"] = os.path.dirname(python) + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    try:
        done = subprocess.run([python, program_path(name)], capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=os.path.dirname(program_path(name)))
    except subprocess.TimeoutExpired:
        return f"{name}: FAILED on PyFlink: no result within {timeout:.0f} s (--timeout)"
    if done.returncode != 0:
        return f"{name}: FAILED on PyFlink (exit {done.returncode}):\n{done.stderr[-3000:]}"
    with open(expected_path(name), "w", encoding="utf-8") as f:
        f.write(done.stdout)
    return f"{name}: recorded {len(done.stdout.splitlines())} lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs to record (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per program")
    args = parser.parse_args()
    names = args.names or program_names()
    unknown = set(names) - set(program_names())
    if unknown:
        sys.exit(f"no such program: {', '.join(sorted(unknown))}")
    python = pyflink_python()
    with ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda n: record(python, n, args.timeout), names):
            print(line, flush=True)


if __name__ == "__main__":
    main()
