"""``pyflink.table``: tables declared with a connector or SQL DDL, and the bridge between
DataStreams and Tables inside one Kindling job (see docs/table.md for what is supported).

Example::

    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE src (a INT, b VARCHAR) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
    t_env.to_data_stream(t_env.from_path('src')).print()
    env.execute()
"""
from kindling.common.types import Row, RowKind
from kindling.table.environment_settings import EnvironmentSettings
from kindling.table.schema import Schema
from kindling.table.table import GroupedTable, GroupWindowedTable, OverWindowedTable, Table, WindowGroupedTable
from kindling.table.statement_set import StatementSet
from kindling.table.table_config import TableConfig
from kindling.table.table_descriptor import FormatDescriptor, TableDescriptor
from kindling.table.table_environment import StreamTableEnvironment, TableEnvironment
from kindling.table.result_kind import ResultKind
from kindling.table.table_result import TableResult
from kindling.table.table_schema import TableSchema
from kindling.table.types import DataType, DataTypes
from kindling.table.udf import (AggregateFunction, AsyncScalarFunction, FunctionContext, ScalarFunction,
                                TableAggregateFunction, TableFunction, UserDefinedFunction)
from kindling.table.data_view import DataView, ListView, MapView
from kindling.table.explain_detail import ExplainDetail
from kindling.table.sql_dialect import SqlDialect
from kindling.table.expression import Expression
from kindling.table.changelog_mode import ChangelogMode

__all__ = ["AggregateFunction", "AsyncScalarFunction", "ChangelogMode", "DataType", "DataTypes", "DataView", "EnvironmentSettings", "ExplainDetail", "Expression",
           "FormatDescriptor", "FunctionContext", "GroupWindowedTable", "GroupedTable", "ListView", "MapView",
           "OverWindowedTable", "ResultKind", "Row", "RowKind", "ScalarFunction", "Schema", "SqlDialect",
           "StatementSet", "StreamTableEnvironment", "Table",
           "TableAggregateFunction", "TableConfig", "TableDescriptor", "TableEnvironment", "TableFunction",
           "TableResult", "TableSchema", "UserDefinedFunction", "WindowGroupedTable"]

from kindling.common.unsupported import missing_names  # noqa: E402

#: PyFlink's pyflink.table names Kindling does not have (docs/api-gaps.txt)
__getattr__ = missing_names(__name__, {
    "Module": "Flink modules (such as Hive's functions) are not there",
    "ModuleEntry": "Flink modules (such as Hive's functions) are not there",
    "UserDefinedType": "user-defined (class-backed) types are not there; use ROW",
    "CompiledPlan": "compiled plans are Flink's planner's; JVM-only",
    "PlanReference": "compiled plans are Flink's planner's; JVM-only",
    "TablePipeline": "TablePipeline (Table.insert_into) is not there yet; use execute_insert or a StatementSet"})
