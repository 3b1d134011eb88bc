"""A bounded streaming GROUP BY (parallelism 2) of DISTINCT aggregates (COUNT/SUM/AVG/MIN/MAX(DISTINCT x),
NULLs ignored, a value seen before changes nothing), FILTER (WHERE ...) aggregates and DECIMAL
SUM/SUM0/AVG/MIN/MAX: SUM(DECIMAL(p, s)) is DECIMAL(38, s), AVG DECIMAL(38, max(6, s)) rounded half
up (away from zero), a group of NULLs sums to NULL (SUM0: 0). Changes after every row; groups
interleave in no defined order (the global aggregate: parallelism 1).
# conformance: sorted
"""
from decimal import Decimal

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
rows = [("a", 1, "0.01", "0.000001"), ("b", 2, "-0.02", "-0.000001"), ("a", 1, "0.00", "0.000002"),
        ("c", None, None, None), ("a", 3, "0.00", "0.000002"), ("b", None, None, "-0.000002"),
        ("b", 2, "0.00", "-0.000002"), ("a", 3, "12345678.91", "0.000001"), ("c", None, None, None),
        ("b", 5, "-0.01", "-0.000001"), (None, 7, "1.50", "0.000003"), (None, 7, "1.50", "0.000003")]

t_env.create_temporary_view("t", t_env.from_elements(
    [(k, n, None if d is None else Decimal(d), None if e is None else Decimal(e)) for k, n, d, e in rows],
    DataTypes.ROW([DataTypes.FIELD("k", DataTypes.STRING()), DataTypes.FIELD("n", DataTypes.INT()),
                   DataTypes.FIELD("d", DataTypes.DECIMAL(10, 2)), DataTypes.FIELD("e", DataTypes.DECIMAL(10, 6))])))
for query in [
    "SELECT k, COUNT(DISTINCT n) AS cn, SUM(DISTINCT n) AS sn, AVG(DISTINCT n) AS an, MIN(DISTINCT n) AS lo, "
    "MAX(DISTINCT n) AS hi, COUNT(DISTINCT d) AS cd, SUM(DISTINCT d) AS sd, COUNT(*) AS c FROM t GROUP BY k",
    "SELECT k, SUM(d) AS s, AVG(d) AS a, MIN(d) AS lo, MAX(d) AS hi, AVG(e) AS ae, SUM(e) AS se, "
    "SUM(CAST(d AS DECIMAL(5, 1))) AS s1 FROM t GROUP BY k",
    "SELECT k, COUNT(*) FILTER (WHERE n > 1) AS big, COUNT(DISTINCT n) FILTER (WHERE n > 1) AS dbig, "
    "SUM(d) FILTER (WHERE n < 3) AS small, AVG(DISTINCT e) FILTER (WHERE n <> 2) AS ae FROM t GROUP BY k",
    "SELECT COUNT(DISTINCT k) AS keys, SUM(DISTINCT d) AS sd, AVG(d) AS a FROM t",
]:
    if "GROUP BY" not in query:  # a global aggregate's rows come through a rebalance: in order at parallelism 1
        t_env.get_config().set("parallelism.default", "1")
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
