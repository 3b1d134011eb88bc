"""``pyflink.table.Table``: a table of a TableEnvironment, with its schema.

Example::

    table = t_env.from_path('source')
    ds = t_env.to_data_stream(table)
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from kindling.common.typeinfo import TypeInformation
from kindling.table.expressions import Expression, col
from kindling.table.schema import Schema
from kindling.table.table_result import TableResult
from kindling.table.types import DataType

__all__ = ["Table"]


class Table:
    """Columns (:meth:`get_schema`) and how the rows are made: a ``scan`` (``() -> Source`` of a
    connector's or elements' rows) with relational ``operations`` (``select``, ``where``, ...) on it,
    Spark column expressions that run in Spark's JVM operators (docs/table.md); or, for a table made
    from a DataStream, ``make_stream(type_info)`` giving that stream's rows.

    Example::

        t_env.from_path('orders').where(col('amount') > 10).select(col('id'), (col('amount') * 2).alias('a2'))
    """

    def __init__(self, t_env, schema: Schema, name: str, scan: Optional[Callable[[], object]] = None,
                 operations: tuple = (), make_stream: Optional[Callable[[TypeInformation], object]] = None):
        self._t_env = t_env
        self._schema = schema
        self._name = name
        self._scan = scan
        self._operations = operations
        self._make_stream = make_stream

    def get_schema(self) -> Schema:
        return self._schema

    def print_schema(self) -> None:
        print(repr(self._schema))

    def _stream(self, type_info: Optional[TypeInformation] = None):
        """The table's rows added to the environment's job: a DataStream of Rows of ``type_info``
        (default: the table's Row type, named by its columns)."""
        wanted = type_info or self._schema.row_type_info()
        arity = len(getattr(wanted, "get_field_types", lambda: [None])())
        if arity != len(self._schema.get_field_names()):
            raise ValueError(f"The type {wanted} has {arity} fields, the table {self._name} has "
                             f"{len(self._schema.get_field_names())} columns {self._schema.get_field_names()}")
        if self._make_stream is not None:
            return self._make_stream(wanted)
        from kindling.common.watermark_strategy import WatermarkStrategy
        from kindling.datastream.connectors.base import Source
        from kindling.graph.specs import TableSourceSpec

        env, source = self._t_env._env, self._scan()
        if not self._operations and wanted == source._type_info:
            return env.from_source(source, WatermarkStrategy.no_watermarks(), self._name)
        names = wanted.get_field_names()
        rename = (lambda df, control: df.toDF(*names, *control),)  # the columns as the Row type names them
        spec = TableSourceSpec(base=source._spec, base_type=source._type_info, operations=self._operations + rename)
        return env.from_source(Source(spec, wanted), WatermarkStrategy.no_watermarks(), self._name)

    # -- relational operations (Spark column expressions) --------------------------------------

    def _types(self) -> Dict[str, DataType]:
        return dict(zip(self._schema.get_field_names(), self._schema.get_field_data_types()))

    def _then(self, schema: Schema, operation: Callable, what: str) -> "Table":
        """The table after ``operation``, a ``(DataFrame, control_columns) -> DataFrame`` step."""
        if self._scan is None:
            raise ValueError(f"{what} on a table made by from_data_stream is not supported by Kindling yet; "
                             "transform the DataStream before from_data_stream instead")
        return Table(self._t_env, schema, self._name, self._scan, self._operations + (operation,))

    def select(self, *fields: Expression) -> "Table":
        """The given expressions as the columns (an unnamed one is ``_c<position>``)."""
        types = self._types()
        fields = tuple(col(f) if isinstance(f, str) else f for f in fields)
        names = [f._name or f"_c{i}" for i, f in enumerate(fields)]
        schema = Schema(names, [f._data_type(types) for f in fields])

        def select(df, control):
            return df.select(*[f.spark_column(types).alias(n) for f, n in zip(fields, names)], *control)

        return self._then(schema, select, "select")

    def where(self, predicate: Expression) -> "Table":
        """The rows for which ``predicate`` is true."""
        types = self._types()
        if predicate._data_type(types).type_name != "BOOLEAN":
            raise ValueError(f"where/filter needs a BOOLEAN condition, got {predicate} of type "
                             f"{predicate._data_type(types)!r}")

        def where(df, control):
            from pyspark.sql import functions

            condition = predicate.spark_column(types)
            if control:  # control rows (a non-null watermark column) always pass (docs/table.md)
                condition = functions.coalesce(condition, functions.lit(False)) | functions.col(control[0]).isNotNull()
            return df.where(condition)

        return self._then(self._schema, where, "where")

    filter = where

    def add_columns(self, *fields: Expression) -> "Table":
        """The table's columns and then ``fields``."""
        return self.select(*[col(n) for n in self._schema.get_field_names()], *fields)

    def drop_columns(self, *fields: Expression) -> "Table":
        """The table without the named columns."""
        dropped = [f._name if isinstance(f, Expression) else f for f in fields]
        missing = [d for d in dropped if d not in self._schema.get_field_names()]
        if missing:
            raise ValueError(f"drop_columns: no column {missing} in {self._schema.get_field_names()}")
        return self.select(*[col(n) for n in self._schema.get_field_names() if n not in dropped])

    def rename_columns(self, *fields: Expression) -> "Table":
        """The table with columns renamed by ``col('old').alias('new')``."""
        renamed = {f._text.split(" AS ")[0]: f._name for f in fields if isinstance(f, Expression)}
        if len(renamed) != len(fields) or any(old not in self._schema.get_field_names() for old in renamed):
            raise ValueError(f"rename_columns takes col('old').alias('new') of existing columns "
                             f"{self._schema.get_field_names()}, got {list(map(str, fields))}")
        return self.select(*[col(n).alias(renamed[n]) if n in renamed else col(n)
                             for n in self._schema.get_field_names()])

    def execute(self) -> TableResult:
        """Starts a job computing the rows, read with ``execute().collect()``."""
        rows = self._stream().execute_and_collect()
        return TableResult(rows._client, rows)

    def to_pandas(self):
        """The rows as a pandas DataFrame with the table's column names (runs a job)."""
        import pandas

        with self.execute().collect() as rows:
            return pandas.DataFrame([list(r) for r in rows], columns=self._schema.get_field_names())

    def execute_insert(self, table_path: str, overwrite: bool = False) -> TableResult:
        """Writes the rows into the table ``table_path`` (a sink table) and starts the job."""
        if overwrite:
            raise ValueError("execute_insert(overwrite=True) is not supported by Kindling yet")
        return self._t_env._insert(self, table_path)

    def __repr__(self) -> str:
        return f"Table {self._name} {self._schema!r}"
