"""Records Flink's result type of every call in flink_builtin_functions.txt, run on the real PyFlink by hand:

    PATH=/tmp/pf/bin:$PATH python tests/table/record_flink_builtin_types.py

Each line's fourth field becomes the type PyFlink gives its SQL call (its Table API call when it has no
SQL), a fifth the Table API call's type where that differs; a call PyFlink fails on is reported.
"""
import os
import sys

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table import expressions
from pyflink.table.expression import JsonOnNull, JsonType, TimeIntervalUnit, TimePointUnit

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flink_builtin_functions.txt")
COLUMNS = "s STRING, i INT, big BIGINT, d DOUBLE, p DECIMAL(10, 2), ts TIMESTAMP(3), b BOOLEAN, " \
          "arr ARRAY<STRING>, m MAP<STRING, INT>"


def first_type(table) -> str:
    """The first column's type as print_schema writes it."""
    return str(table.get_schema()).splitlines()[1].split(": ", 1)[1]


def _reason(error: Exception) -> str:
    """The Java exception's message (py4j's first line names only the call)."""
    java = getattr(error, "java_exception", None)
    text = java.getMessage() if java is not None else str(error)
    return " ".join(text.split("\tat ")[0].split())[:300]


def main() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(f"CREATE TEMPORARY TABLE e ({COLUMNS}) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    edge = t_env.from_path("e")
    names = {n: getattr(expressions, n) for n in dir(expressions) if not n.startswith("_")}
    names.update(DataTypes=DataTypes, JsonOnNull=JsonOnNull, JsonType=JsonType, TimeIntervalUnit=TimeIntervalUnit,
                 TimePointUnit=TimePointUnit, **{c.split()[0]: expressions.col(c.split()[0])
                                                 for c in COLUMNS.split(", ") if c[0].islower()})
    lines, failures = [], []
    for line in open(LIST):
        fields = line.rstrip("\n").split(" ; ")
        if line.startswith("#") or len(fields) < 3:
            lines.append(line)
            continue
        name, sql, api = fields[:3]
        types = []
        for form, typed in ((sql, lambda: first_type(t_env.sql_query(sql if sql.startswith("SELECT ")
                                                                      else f"SELECT {sql} FROM e"))),
                            (api, lambda: first_type(edge.select(eval(api, names))))):
            if form == "-":
                continue
            try:
                types.append(typed())
            except Exception as error:  # noqa: BLE001 -- reported (PyFlink's Python API fails on a few)
                failures.append(f"{name}: {form}: {_reason(error)}")
        kept = types[:1] if len(set(types)) == 1 else types or ["?"]
        lines.append(" ; ".join([name, sql, api] + kept) + "\n")
    with open(LIST, "w") as out:
        out.writelines(lines)
    print("\n".join(failures) or "all calls typed", file=sys.stderr)


if __name__ == "__main__":
    main()
