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
from kindling.table.table import GroupedTable, OverWindowedTable, Table
from kindling.table.statement_set import StatementSet
from kindling.table.table_config import TableConfig
from kindling.table.table_descriptor import FormatDescriptor, TableDescriptor
from kindling.table.table_environment import StreamTableEnvironment, TableEnvironment
from kindling.table.result_kind import ResultKind
from kindling.table.table_result import TableResult
from kindling.table.types import DataType, DataTypes
from kindling.table.udf import (AggregateFunction, FunctionContext, ScalarFunction, TableFunction,
                                UserDefinedFunction)

__all__ = ["AggregateFunction", "DataType", "DataTypes", "EnvironmentSettings", "FormatDescriptor", "FunctionContext",
           "GroupedTable", "OverWindowedTable", "ResultKind", "Row", "RowKind", "ScalarFunction", "Schema", "StatementSet", "StreamTableEnvironment",
           "Table", "TableConfig", "TableDescriptor", "TableEnvironment", "TableFunction", "TableResult",
           "UserDefinedFunction"]

from kindling.common.unsupported import TABLE_API, missing_names  # noqa: E402

#: PyFlink's pyflink.table names Kindling does not have yet (docs/table.md)
__getattr__ = missing_names(__name__, {name: TABLE_API for name in (
    "GroupWindowedTable", "WindowGroupedTable",
    "TableAggregateFunction", "AsyncScalarFunction", "DataView", "ListView", "MapView", "Module", "ModuleEntry",
    "SqlDialect", "UserDefinedType", "Expression", "TableSchema", "ChangelogMode", "ExplainDetail", "CompiledPlan",
    "PlanReference", "TablePipeline")})
