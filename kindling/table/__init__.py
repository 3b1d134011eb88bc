"""``pyflink.table``: tables declared with a connector or SQL DDL, and the bridge between
DataStreams and Tables inside one Kindling job (see docs/table.md for what is supported).

Example::

    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE src (a INT, b VARCHAR) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
    t_env.to_data_stream(t_env.from_path('src')).print()
    env.execute()
"""
from kindling.common.types import Row, RowKind

#: each public name's module, imported when the name is first read: a process that only
#: unpickles a Table format or function (a Spark stream source's or state schema's Python
#: runner, started for every streaming query) does not import the Table API and its SQL parser
_LAZY = {
    "EnvironmentSettings": "kindling.table.environment_settings",
    "Schema": "kindling.table.schema",
    **dict.fromkeys(["GroupedTable", "GroupWindowedTable", "OverWindowedTable", "Table", "WindowGroupedTable"],
                    "kindling.table.table"),
    "StatementSet": "kindling.table.statement_set",
    "TableConfig": "kindling.table.table_config",
    "FormatDescriptor": "kindling.table.table_descriptor",
    "TableDescriptor": "kindling.table.table_descriptor",
    "StreamTableEnvironment": "kindling.table.table_environment",
    "TableEnvironment": "kindling.table.table_environment",
    "ResultKind": "kindling.table.result_kind",
    "TableResult": "kindling.table.table_result",
    "TableSchema": "kindling.table.table_schema",
    "DataType": "kindling.table.types",
    "DataTypes": "kindling.table.types",
    **dict.fromkeys(["AggregateFunction", "AsyncScalarFunction", "FunctionContext", "ScalarFunction",
                     "TableAggregateFunction", "TableFunction", "UserDefinedFunction"], "kindling.table.udf"),
    **dict.fromkeys(["DataView", "ListView", "MapView"], "kindling.table.data_view"),
    "ExplainDetail": "kindling.table.explain_detail",
    "SqlDialect": "kindling.table.sql_dialect",
    "Expression": "kindling.table.expression",
    "ChangelogMode": "kindling.table.changelog_mode",
}

__all__ = ["AggregateFunction", "AsyncScalarFunction", "ChangelogMode", "DataType", "DataTypes", "DataView", "EnvironmentSettings", "ExplainDetail", "Expression",
           "FormatDescriptor", "FunctionContext", "GroupWindowedTable", "GroupedTable", "ListView", "MapView",
           "OverWindowedTable", "ResultKind", "Row", "RowKind", "ScalarFunction", "Schema", "SqlDialect",
           "StatementSet", "StreamTableEnvironment", "Table",
           "TableAggregateFunction", "TableConfig", "TableDescriptor", "TableEnvironment", "TableFunction",
           "TableResult", "TableSchema", "UserDefinedFunction", "WindowGroupedTable"]

from kindling.common.unsupported import missing_names  # noqa: E402

#: PyFlink's pyflink.table names Kindling does not have (docs/api-gaps.txt)
__getattr__ = missing_names(__name__, lazy=_LAZY, reasons={
    "Module": "Flink modules (such as Hive's functions) are not there",
    "ModuleEntry": "Flink modules (such as Hive's functions) are not there",
    "UserDefinedType": "user-defined (class-backed) types are not there; use ROW",
    "CompiledPlan": "compiled plans are Flink's planner's; JVM-only",
    "PlanReference": "compiled plans are Flink's planner's; JVM-only",
    "TablePipeline": "TablePipeline (Table.insert_into) is not there yet; use execute_insert or a StatementSet"})


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
