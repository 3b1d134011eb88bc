"""Parsing and re-serialising JSON strings, as PyFlink's process_json_data example does.
# conformance: sorted (two sinks)
"""
import json

from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment


def enrich(text):
    record = json.loads(text)
    record["total"] = sum(item["price"] * item["qty"] for item in record["items"])
    record.pop("items")
    return json.dumps(record, sort_keys=True)


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
orders = env.from_collection([
    '{"id": 1, "customer": "ann", "items": [{"price": 2.5, "qty": 2}, {"price": 1.0, "qty": 1}]}',
    '{"id": 2, "customer": "bo", "items": []}',
    '{"id": 3, "customer": "ann", "items": [{"price": 10, "qty": 3}]}',
], type_info=Types.STRING())
orders.map(enrich, output_type=Types.STRING()).print()
orders.map(lambda t: json.loads(t)["customer"]).key_by(lambda c: c).map(lambda c: (c, 1)) \
    .key_by(lambda p: p[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
env.execute("json_processing")
