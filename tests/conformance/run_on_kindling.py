"""Runs conformance programs on Kindling, one after another in this process (one Spark start-up).

    python tests/conformance/run_on_kindling.py NAME|PATH.py [NAME|PATH.py ...]

A NAME is a program of programs/; a path names any PyFlink script (tools/compare_examples.py runs
PyFlink's own examples this way). ``import pyflink...`` resolves to Kindling through alias/; each
script runs as ``__main__`` with ``sys.argv`` holding only its path. Before each program a
line ``MARKER begin NAME`` and after it ``MARKER end NAME ok|error`` go to stdout; a failing
program's traceback goes to stderr and the next program still runs.
"""
import os
import runpy
import sys
import traceback

MARKER = "#### kindling-conformance"

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "alias"))
    import pyflink  # noqa: F401  (installs the alias)

    for name in sys.argv[1:]:
        print(f"{MARKER} begin {name}", flush=True)
        status = "ok"
        path = name if name.endswith(".py") else os.path.join(here, "programs", name + ".py")
        sys.argv = [path]
        try:
            runpy.run_path(path, run_name="__main__")
        except BaseException:  # noqa: BLE001 -- reported, and the next program still runs
            status = "error"
            print(f"{MARKER} {name} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        print(f"{MARKER} end {name} {status}", flush=True)
