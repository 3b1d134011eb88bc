"""The cluster test's jobs in one driver, so one Spark application whose executors start once: the
windowed job as one Spark batch job, then on streaming micro-batches, then the rebalanced job. A line
``#### NAME`` comes before each job's printed lines. Their functions are imported from this directory
and the ``-pyfs`` helpers, which the executors get only as shipped zips."""
import sys

import rebalanced_job
import windowed_job

MARKER = "####"

if __name__ == "__main__":
    readings, elements = int(sys.argv[1]), int(sys.argv[2])
    for one_step in ("true", "false"):
        print(f"{MARKER} one-step={one_step}", flush=True)
        windowed_job.main(readings, one_step)
    print(f"{MARKER} rebalanced", flush=True)
    rebalanced_job.main(elements)
    sys.stdout.flush()
