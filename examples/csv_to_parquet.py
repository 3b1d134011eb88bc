"""CSV files -> transform -> Parquet files: order lines read with a CsvSchema, priced, and
written as Parquet part files (one per task), exactly once.

    python examples/csv_to_parquet.py                          # bundled orders, into a temp dir
    python examples/csv_to_parquet.py --input in/ --output out/ [--monitor]

With ``--monitor`` the job keeps watching the input directory and converts each new CSV file
(moved in complete) in the next micro-batch; stop it with Ctrl-C.
"""
import argparse
import os
import tempfile

from kindling.common import Duration, Row, Types, WatermarkStrategy
from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.connectors.file_system import BucketAssigner, FileSink, FileSource, OutputFileConfig
from kindling.datastream.formats.csv import CsvReaderFormat, CsvSchema
from kindling.datastream.formats.parquet import ParquetBulkWriters

DEFAULT_INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "orders.csv")

ORDERS = (CsvSchema.builder()
          .add_number_column("order_id", Types.LONG())
          .add_string_column("customer")
          .add_string_column("item")
          .add_number_column("quantity", Types.INT())
          .add_number_column("unit_price", Types.DOUBLE())
          .set_use_header()
          .build())

PRICED = Types.ROW_NAMED(["order_id", "customer", "item", "quantity", "total"],
                         [Types.LONG(), Types.STRING(), Types.STRING(), Types.INT(), Types.DOUBLE()])


def price(order: Row) -> Row:
    return Row(order_id=order.order_id, customer=order.customer, item=order.item, quantity=order.quantity,
               total=round(order.quantity * order.unit_price, 2))


def csv_to_parquet(input_path: str, output_path: str, monitor: bool = False, parallelism: int = 2):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    builder = FileSource.for_record_stream_format(CsvReaderFormat.for_schema(ORDERS), input_path)
    if monitor:
        builder = builder.monitor_continuously(Duration.of_seconds(1))
    orders = env.from_source(builder.build(), WatermarkStrategy.no_watermarks(), "orders")
    sink = (FileSink.for_bulk_format(output_path, ParquetBulkWriters.for_row_type(PRICED))
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
            .with_output_file_config(OutputFileConfig("orders", ".parquet"))
            .build())
    orders.filter(lambda o: o.quantity > 0).map(price, output_type=PRICED).sink_to(sink)
    return env.execute("csv_to_parquet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=DEFAULT_INPUT)
    parser.add_argument("--output", default=None)
    parser.add_argument("--monitor", action="store_true", help="keep converting new files")
    args = parser.parse_args()
    output = args.output or tempfile.mkdtemp(prefix="orders-parquet-")
    result = csv_to_parquet(args.input, output, args.monitor)
    import pyarrow.dataset as ds

    table = ds.dataset(output, format="parquet", exclude_invalid_files=True).to_table()
    print(f"{table.num_rows} orders ({result.get_net_runtime()} ms) in {output}:")
    print(table.sort_by("order_id").slice(0, 5).to_pandas().to_string(index=False))


if __name__ == "__main__":
    main()
