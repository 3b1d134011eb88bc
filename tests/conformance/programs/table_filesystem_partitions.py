"""The filesystem connector's PARTITIONED BY tables: rows written by INSERT into nested partition
directories (escaped values, the default partition of NULL and '', the partition columns not in
the files, success files), in streaming and batch mode, at parallelism 2; each partition's
directory, its success file and its rows printed, then read back (a table without NULL partition
values: PyFlink 2.3 fails to read the default partition,
and the DATE partitions it writes as days since 1970, and a WHERE on a BOOLEAN partition column) with a WHERE on a partition column."""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment


def show(path):
    for directory, _, files in sorted(os.walk(path)):
        visible = sorted(f for f in files if not f.startswith("."))
        if not visible:
            continue
        lines = []
        for name in visible:
            with open(os.path.join(directory, name)) as f:
                lines += f.read().splitlines()
        print(os.path.relpath(directory, path), [f for f in visible if not f.startswith("part-")], sorted(lines))


def rows(t_env, query):
    with t_env.execute_sql(query).collect() as result:
        for row in sorted((tuple(r) for r in result), key=repr):
            print(row)


for mode, settings in (("streaming", EnvironmentSettings.in_streaming_mode()),
                       ("batch", EnvironmentSettings.in_batch_mode())):
    print(f"-- {mode}")
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    for fmt in ("csv", "json"):
        path = tempfile.mkdtemp()
        t_env.execute_sql(f"CREATE TABLE {fmt}_nulls (id INT, name STRING, d STRING, h INT, `day` DATE) "
                          f"PARTITIONED BY (d, h, `day`) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                          f"'format' = '{fmt}', 'sink.partition-commit.policy.kind' = 'success-file')")
        t_env.execute_sql(f"INSERT INTO {fmt}_nulls VALUES (1, 'a', '2024-01-01', 1, DATE '2024-02-29'), "
                          "(2, 'b', '2024-01-01', 2, DATE '2024-02-29'), (3, 'c', 'a/b=c d%', 1, DATE '2024-03-01'), "
                          "(4, 'd', CAST(NULL AS STRING), 3, DATE '2024-03-01'), "
                          "(5, 'e', '', CAST(NULL AS INT), CAST(NULL AS DATE)), "
                          "(6, 'f', 'x:y#z?', 1, DATE '2024-03-01'), (7, 'g', '2024-01-01', 1, DATE '2024-02-29')").wait()
        show(path)
        path = tempfile.mkdtemp()
        t_env.execute_sql(f"CREATE TABLE {fmt}_hours (v STRING, h INT, n BIGINT, ok BOOLEAN) "
                          f"PARTITIONED BY (ok, h) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                          f"'format' = '{fmt}', 'sink.partition-commit.policy.kind' = 'success-file', "
                          "'sink.partition-commit.success-file.name' = '_DONE')")
        t_env.execute_sql(f"INSERT INTO {fmt}_hours VALUES ('x', 23, 1, TRUE), ('y', 7, 2, FALSE), "
                          "('z', 23, 3, TRUE), ('w', 7, 4, TRUE), ('v', -1, 5, TRUE)").wait()
        show(path)
        rows(t_env, f"SELECT * FROM {fmt}_hours")
        rows(t_env, f"SELECT v, n FROM {fmt}_hours WHERE h > 0")
