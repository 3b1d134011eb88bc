"""DataStream and Table API together, as in Flink's "Intro to the Python DataStream API": a
source declared in SQL DDL becomes a DataStream, is transformed there, and the DataStream
becomes a Table written into a `print` table declared in SQL, all in one job.

    python examples/table_interop.py

Prints ``+I[1, 2, aaa]``-style rows, as Flink's print connector (only the imports differ from PyFlink).
"""
from kindling.common import Row, Types
from kindling.datastream import StreamExecutionEnvironment
from kindling.table import StreamTableEnvironment


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(stream_execution_environment=env)

    t_env.execute_sql("""
        CREATE TABLE my_source (
          id INT,
          word VARCHAR
        ) WITH (
          'connector' = 'datagen',
          'number-of-rows' = '5',
          'fields.id.kind' = 'sequence',
          'fields.id.start' = '1',
          'fields.id.end' = '5',
          'fields.word.length' = '4'
        )
    """)
    t_env.execute_sql("""
        CREATE TABLE my_sink (
          id INT,
          twice INT,
          word VARCHAR
        ) WITH (
          'connector' = 'print',
          'print-identifier' = 'sink'
        )
    """)

    ds = t_env.to_append_stream(t_env.from_path('my_source'), Types.ROW([Types.INT(), Types.STRING()]))
    doubled = ds.map(lambda row: Row(row[0], row[0] * 2, row[1].upper()),
                     output_type=Types.ROW_NAMED(['id', 'twice', 'word'],
                                                 [Types.INT(), Types.INT(), Types.STRING()]))
    t_env.from_data_stream(doubled).execute_insert('my_sink').wait()


if __name__ == '__main__':
    main()
