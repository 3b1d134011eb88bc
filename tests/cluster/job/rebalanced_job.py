"""The cluster test's rebalanced job: a collection (parallelism 1), ``rebalance()``, and a map at
parallelism 2 that prints, for each element, its instance and the executor that ran it (a Python
worker's working directory is its executor's)."""
import os
import sys
import time

from kindling.common import Types
from kindling.datastream import MapFunction, StreamExecutionEnvironment


class WhereRun(MapFunction):
    def open(self, runtime_context):
        self.subtask = runtime_context.get_index_of_this_subtask()

    def map(self, value):
        time.sleep(0.005)  # long enough for both instances to be running at once
        return f"subtask {self.subtask} on {os.path.basename(os.getcwd())}"


def main(n: int) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection(list(range(n)), Types.INT()).rebalance().map(WhereRun(), Types.STRING()).print()
    env.execute("cluster rebalance")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
