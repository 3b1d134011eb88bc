"""Records which subtask real PyFlink gives each of a set of keys, for tests/runtime/test_key_groups.py.

Run by hand where apache-flink is installed (it is never imported by Kindling or its tests):

    PATH=/opt/pyflink-venv/bin:$PATH python tools/record_key_groups.py [OUTPUT]

Writes OUTPUT (default tests/runtime/test_key_groups_pyflink.json): one entry per (key type, parallelism, key) with
the 0-based subtask PyFlink's keyed operator reported from ``get_index_of_this_subtask()``.
"""
import json
import os
import sys

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext, StreamExecutionEnvironment

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "runtime",
                   "test_key_groups_pyflink.json")

# Keys of a stream keyed without key_type: PyFlink hashes their cloudpickle bytes.
PICKLED_KEYS = (list(range(-5, 60)) + [2 ** 31, 2 ** 40, -2 ** 33, 10 ** 20]
                + ["", "a", "b", "c", "Alice", "Bob", "Carol", "hello", "world", "flink", "spark", "é", "中文",
                   "x" * 300]
                + [0.5, 1.0, -2.25, 3.14159]
                + [("a", 1), ("b", 2), (1, 2, 3), (), ("Alice",)]
                + [True, False, None, b"bytes", [1], [1, 2], {"k": 1}])
# Keys of streams keyed with a key_type: PyFlink hashes the Java value.
TYPED_KEYS = {
    "STRING": ["", "a", "b", "c", "Alice", "Bob", "Carol", "hello", "world", "é", "中文"] + [f"k{i}" for i in range(30)],
    "INT": list(range(-5, 40)),
    "LONG": [i * 1000003 for i in range(-5, 40)],
}


class SubtaskOfKey(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        self.index = runtime_context.get_index_of_this_subtask()

    def process_element(self, value, ctx):
        yield repr(ctx.get_current_key()), self.index


def subtasks(keys, parallelism, key_type_name=None):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if key_type_name is None:
        keyed = env.from_collection([(k, 0) for k in keys]).key_by(lambda x: x[0])
    else:
        key_type = getattr(Types, key_type_name)()
        keyed = env.from_collection([(k, 0) for k in keys], type_info=Types.TUPLE([key_type, Types.INT()])) \
            .key_by(lambda x: x[0], key_type=key_type)
    with keyed.process(SubtaskOfKey()).execute_and_collect() as results:
        return dict(results)


def main():
    entries = []
    for parallelism in (2, 4):
        for name, keys in [(None, PICKLED_KEYS)] + list(TYPED_KEYS.items()):
            found = subtasks(keys, parallelism, name)
            for key in keys:
                entries.append({"key": repr(key), "key_type": name or "PICKLED", "parallelism": parallelism,
                                "subtask": found[repr(key)]})
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    with open(out, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in entries) + "\n]\n")
    print(f"wrote {len(entries)} entries to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
