"""Runs PyFlink scripts on Kindling, one after another in one ``kindling run`` process (one
Spark start-up), unchanged: ``import pyflink...`` is served by ``kindling run``'s alias, the
unchanged-PyFlink mode a user gets.

    python -m kindling run tests/conformance/run_on_kindling.py NAME|PATH.py [NAME|PATH.py ...]

A NAME is a program of programs/; a path names any script (tools/compare_examples.py runs
PyFlink's own examples, tests/cluster/test_examples_cli.py Kindling's examples this way). Each
script runs as ``__main__`` with ``sys.argv`` holding only its path and its directory first on
``sys.path``, as ``kindling run script.py`` runs it. Before each script a line
``MARKER begin NAME`` and after it ``MARKER end NAME ok|error`` go to stdout, and
``MARKER NAME took SECONDS`` to stderr; a failing script's traceback goes to stderr and the next
script still runs. An argument ``--shuffle-partitions=N`` gives the scripts after it
``spark.sql.shuffle.partitions`` N, what a session started by a job of parallelism N has: the
submitted configuration's (for the session a script starts) and the running session's.
"""
import json
import os
import runpy
import sys
import time
import traceback

MARKER = "#### kindling-conformance"
SHUFFLE_PARTITIONS = "--shuffle-partitions="


def use_shuffle_partitions(n: str) -> None:
    from kindling.common.submission import ENVIRONMENT_VARIABLE, submitted_configuration
    from kindling.spark.session import existing_spark

    conf = submitted_configuration()
    conf["spark.sql.shuffle.partitions"] = n
    os.environ[ENVIRONMENT_VARIABLE] = json.dumps(conf)
    spark = existing_spark()
    if spark is not None:
        spark.conf.set("spark.sql.shuffle.partitions", n)


if __name__ == "__main__":
    import pyflink

    if pyflink.__name__ != "kindling":
        sys.exit(f"run_on_kindling.py runs under `python -m kindling run` (its pyflink alias); "
                 f"here `import pyflink` found {pyflink.__file__}")
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sys.argv[1:]:
        if name.startswith(SHUFFLE_PARTITIONS):
            use_shuffle_partitions(name[len(SHUFFLE_PARTITIONS):])
            continue
        print(f"{MARKER} begin {name}", flush=True)
        began = time.monotonic()
        status = "ok"
        path = os.path.abspath(name) if name.endswith(".py") else os.path.join(here, "programs", name + ".py")
        sys.argv = [path]
        sys.path.insert(0, os.path.dirname(path))
        try:
            runpy.run_path(path, run_name="__main__")
        except BaseException:  # noqa: BLE001 -- reported, and the next script still runs
            status = "error"
            print(f"{MARKER} {name} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        finally:
            sys.path.remove(os.path.dirname(path))
        sys.stdout.flush()
        print(f"{MARKER} end {name} {status}", flush=True)
        print(f"{MARKER} {name} took {time.monotonic() - began:.2f}", file=sys.stderr, flush=True)
