"""``pyflink.table.table_environment``: ``TableEnvironment`` and ``StreamTableEnvironment``, the
catalog of tables and the bridge between DataStreams and Tables inside one job.

Example::

    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE src (a INT, b VARCHAR) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
    ds = t_env.to_append_stream(t_env.from_path('src'), Types.ROW([Types.INT(), Types.STRING()]))
"""
from __future__ import annotations

import dataclasses
import datetime
import decimal
from typing import Any, List, Optional, Sequence, Tuple, Union

from kindling.common.typeinfo import ChangelogRowTypeInfo, RowTypeInfo, TypeInformation, Types
from kindling.common.types import Row, RowKind, _create_row
from kindling.common.unsupported import unsupported
from kindling.table.catalog_manager import CatalogManager, path_text
from kindling.table.changelog_mode import ChangelogMode
from kindling.table.environment_settings import EnvironmentSettings
from kindling.table.planner import nodes
from kindling.table.schema import Schema
from kindling.table.table import Table
from kindling.table.table_descriptor import TableDescriptor
from kindling.table.table_result import TableResult
from kindling.table.types import DataType, DataTypes, RowType

__all__ = ["StreamTableEnvironment", "TableEnvironment"]

#: the SQL type of a DataStream column, by its TypeInformation (from_data_stream)
_DATA_TYPES = [(Types.INT(), DataTypes.INT), (Types.LONG(), DataTypes.BIGINT), (Types.STRING(), DataTypes.STRING),
               (Types.BOOLEAN(), DataTypes.BOOLEAN), (Types.DOUBLE(), DataTypes.DOUBLE),
               (Types.FLOAT(), DataTypes.FLOAT), (Types.SHORT(), DataTypes.SMALLINT), (Types.BYTE(), DataTypes.TINYINT),
               (Types.SQL_DATE(), DataTypes.DATE), (Types.SQL_TIMESTAMP(), DataTypes.TIMESTAMP),
               (Types.INSTANT(), lambda: DataTypes.TIMESTAMP_LTZ(9))]


def _data_type_of(type_info: TypeInformation) -> DataType:
    for candidate, make in _DATA_TYPES:
        if type_info == candidate:
            return make()
    raise ValueError(f"from_data_stream: a column of {type_info} has no SQL type in Kindling yet; "
                     "give the stream a Types.ROW/ROW_NAMED of INT, LONG, STRING, BOOLEAN, FLOAT, DOUBLE, ... columns")


def _inferred_type(values: Sequence[Any], column: str) -> DataType:
    """The column type PyFlink infers for a column of from_elements: the type of its first value that is
    not None (int is BIGINT, str STRING, list ARRAY, dict MAP, datetime TIMESTAMP_LTZ(6))."""
    value = next((v for v in values if v is not None), None)
    if value is None:
        raise ValueError(f"from_elements: cannot infer a type for column '{column}' of only None values; give a "
                         "DataTypes.ROW([...]) schema")
    for kind, make in ((bool, DataTypes.BOOLEAN), (int, DataTypes.BIGINT), (float, DataTypes.DOUBLE),
                       (str, DataTypes.STRING), ((bytes, bytearray), DataTypes.BYTES),
                       (decimal.Decimal, lambda: DataTypes.DECIMAL(38, 18)),
                       (datetime.datetime, lambda: DataTypes.TIMESTAMP_LTZ(6)), (datetime.date, DataTypes.DATE),
                       (datetime.time, lambda: DataTypes.TIME(0))):
        if isinstance(value, kind):
            return make()
    if isinstance(value, list):
        return DataTypes.ARRAY(_inferred_type([e for v in values if v is not None for e in v], f"{column}[]"))
    if isinstance(value, dict):
        keys = [k for v in values if v is not None for k in v]
        return DataTypes.MAP(_inferred_type(keys, f"{column} keys").not_null(),
                             _inferred_type([e for v in values if v is not None for e in v.values()],
                                            f"{column} values"))
    raise ValueError(f"from_elements: cannot infer a column type for {value!r}; give a DataTypes.ROW([...]) schema")


def _declared_table(t_env, table: Table, schema, metadata: set, owner: str, eager: bool = True) -> Table:
    """``table`` (the physical columns of a DataStream or a connector's rows, ``owner``) as ``schema``
    declares it: its computed columns (``PROCTIME()`` too), its metadata columns (of the keys in
    ``metadata``, each the rows' DataStream timestamps), and its event-time column with the
    watermark the schema declares: emitted as Flink SQL's watermark assigner emits it (``eager``:
    also after an element that moves it past the interval), or periodically only, as a Kafka source
    does with the watermark pushed into it."""
    from kindling.table.expressions import col, current_timestamp
    from kindling.table.sql import sql_expression

    fields, types, proctime = [], table._types(), None
    for name in schema.get_field_names():
        if name in schema.computed:
            text = schema.computed[name]
            if "".join(text.split()).upper() == "PROCTIME()":
                proctime = name  # the time a row is processed (Spark's current time of the micro-batch in its JVM)
                fields.append(current_timestamp().alias(name))
            else:
                fields.append(sql_expression(text).alias(name))
        elif name in schema.metadata:
            key = schema.metadata_key(name)
            if key not in metadata:
                raise ValueError(f"The metadata column '{name}' reads '{key}', which {owner} does not have; its "
                                 f"metadata: {', '.join(sorted(metadata)) or 'none'}")
            data_type = schema.get_field_data_types()[schema.get_field_names().index(name)]
            fields.append(col(TIMESTAMP_COLUMN).cast(data_type).alias(name))
        elif name not in types:
            raise ValueError(f"The schema's column '{name}' is not a field of the stream ({list(types)})")
        else:
            fields.append(col(name))
    if schema.metadata and not schema.computed:  # physical and metadata columns: made in one step
        result = _with_metadata(t_env, table, schema)
    else:
        if schema.metadata:
            table = _with_timestamps(t_env, table)
        result = table.select(*fields)
    declared = schema.resolved(result.get_schema().get_field_data_types(), proctime)
    node = result._node
    typed = dataclasses.replace(node, out=dataclasses.replace(node.out, schema=declared,
                                                               proctime=node.out.proctime or proctime))
    if schema.watermark_spec is None:
        return Table(t_env, typed)
    column, expression = schema.watermark_spec
    if column not in result.get_schema().get_field_names() or \
            result._types()[column].type_name not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        raise ValueError(f"watermark: '{column}' must be a TIMESTAMP or TIMESTAMP_LTZ column of the schema")
    return Table(t_env, nodes.WatermarkAssigner(input=typed, column=column, delay=_watermark_delay(column, expression),
                                                eager=eager, out=nodes.Output(declared, rowtime=column,
                                                                              proctime=typed.out.proctime)))


def _as_sink_types(table: Table, sink: Schema) -> Table:
    """The table with TIMESTAMP and TIMESTAMP_LTZ columns cast to the sink's, and ROW, ARRAY and MAP
    columns to the sink's field names and types (Flink casts them implicitly)."""
    from kindling.table.expressions import col

    times, nested = ("TIMESTAMP", "TIMESTAMP_LTZ"), ("ROW", "ARRAY", "MAP")

    def implicit(ours: DataType, theirs: DataType) -> bool:
        if ours.type_name in times and theirs.type_name in times:
            return ours.type_name != theirs.type_name
        return ours.type_name == theirs.type_name and ours.type_name in nested and \
            repr(ours.nullable()) != repr(theirs.nullable())

    pairs = list(zip(table.get_schema().get_field_names(), table.get_schema().get_field_data_types(),
                     sink.get_field_data_types()))
    if not any(implicit(ours, theirs) for _, ours, theirs in pairs):
        return table
    return table.select(*[col(n).cast(theirs).alias(n) if implicit(ours, theirs) else col(n)
                          for n, ours, theirs in pairs])


TIMESTAMP_COLUMN = "__timestamp"


def _with_timestamps(t_env, table: Table) -> Table:
    """The table with its rows' DataStream timestamps (epoch ms) as one more column."""
    schema = Schema(table.get_schema().get_field_names() + [TIMESTAMP_COLUMN],
                    table.get_schema().get_field_data_types() + [DataTypes.BIGINT()])
    return Table(t_env, nodes.AppendTimestamp(input=table._node, out=nodes.Output(schema)))


def _with_stream_columns(schema: Schema, stream: Schema):
    """``schema`` as from_data_stream reads it, as Flink does: when it declares no physical column,
    the stream's columns come first, then its computed and metadata columns. A physical column is
    read as the stream has it: declared with another type, it is refused (Flink fails the job)."""
    from kindling.table.schema import _DeclaredSchema

    if not isinstance(schema, _DeclaredSchema):
        schema = _DeclaredSchema(schema.get_field_names(), schema.get_field_data_types(), {}, {}, None)
    fields = dict(zip(stream.get_field_names(), stream.get_field_data_types()))
    physical = {n: t for n, t in zip(schema.get_field_names(), schema.get_field_data_types())
                if n not in schema.computed and n not in schema.metadata}
    for name, data_type in physical.items():
        if name in fields and data_type.type_name != fields[name].type_name:
            raise ValueError(f"from_data_stream: the schema declares column '{name}' as {data_type!r}, the stream's "
                             f"field is {fields[name]!r}; declare the field's type (the stream's values are read as "
                             "they are) or cast it in a select")
    if physical:
        return schema
    builder = Schema.new_builder()
    for name, data_type in zip(stream.get_field_names(), stream.get_field_data_types()):
        builder.column(name, data_type)
    declared = builder.from_schema(schema).build()
    return declared if isinstance(declared, _DeclaredSchema) else \
        _DeclaredSchema(declared.get_field_names(), declared.get_field_data_types(), {}, {}, None)


def _with_metadata(t_env, table: Table, schema) -> Table:
    """The table of ``schema``'s physical columns (fields of ``table``) and metadata columns (the rows'
    DataStream timestamps, as each column's type), each row made in one step."""
    names, input_names = schema.get_field_names(), table.get_schema().get_field_names()
    types = dict(zip(input_names, table.get_schema().get_field_data_types()))
    columns = [(n, declared if n in schema.metadata else types[n]) for n, declared in zip(names, schema.get_field_data_types())]
    sources = tuple(t if n in schema.metadata else input_names.index(n) for n, t in columns)
    result_schema = Schema(names, [t for _, t in columns])
    return Table(t_env, nodes.MetadataColumns(input=table._node, sources=sources, out=nodes.Output(result_schema)))


def _watermark_delay(column: str, expression: str):
    """How far the watermark trails ``column`` in ms (None: ``SOURCE_WATERMARK()``)."""
    import sqlglot.expressions as exp

    from kindling.table.sql import parse_expression

    tree = parse_expression(expression)
    if isinstance(tree, exp.Anonymous) and tree.name.upper() == "SOURCE_WATERMARK":
        return None
    if isinstance(tree, exp.Column) and tree.name == column:
        return 0
    if isinstance(tree, exp.Sub) and isinstance(tree.this, exp.Column) and tree.this.name == column:
        from kindling.table.sql import _expression

        interval = getattr(_expression(tree.expression), "_interval_ms", None)
        if interval is not None:
            return interval
    raise ValueError(f"watermark: Kindling supports \"{column} - INTERVAL 'n' SECOND\" (any unit), \"{column}\" "
                     f"and SOURCE_WATERMARK(), got {expression!r}")


def _described(table: Table) -> Tuple[List[str], List[List[str]]]:
    """The columns and rows of ``DESCRIBE``: per column its type (with its time attribute),
    nullability, key, computed expression or metadata, watermark and (when a column has one) comment,
    as Flink lists them."""
    schema = table.get_resolved_schema()
    key = schema.get_primary_key()
    watermarks = {w.get_rowtime_attribute(): w.watermark_sql() for w in schema.get_watermark_specs()}
    rows = [[c.get_name(), c.get_data_type()._name + c.time_attribute(),
             "TRUE" if c.get_data_type()._nullable else "FALSE",
             f"PRI({', '.join(key.get_columns())})" if key and c.get_name() in key.get_columns() else "",
             c.explain_extras() or "", watermarks.get(c.get_name(), ""), c.get_comment() or ""]
            for c in schema.get_columns()]
    names = ["name", "type", "null", "key", "extras", "watermark", "comment"]
    if not any(c.get_comment() for c in schema.get_columns()):  # Flink shows comments only when there are some
        names, rows = names[:-1], [row[:-1] for row in rows]
    return names, rows


_MODULES = "Flink modules (such as Hive's functions) are not there"
_MODELS = "models (CREATE MODEL, ML_PREDICT) are not there"
_PLANS = "compiled plans are Flink's planner's; JVM-only"
_JAVA_FUNCTIONS = "Java functions run in Flink's JVM; JVM-only: write the function in Python (udf, udtf, udaf)"


class TableEnvironment:
    """Tables by name (``create_temporary_table``, ``execute_sql('CREATE TABLE ...')``) and jobs
    over them, on a StreamExecutionEnvironment of its own."""

    def __init__(self, env):
        from kindling.table.function_catalog import FunctionCatalog

        self._env = env
        self._catalogs = CatalogManager()
        self._functions = FunctionCatalog()

    @staticmethod
    def create(environment_settings: EnvironmentSettings) -> "TableEnvironment":
        """A TableEnvironment running streaming or batch jobs (``EnvironmentSettings.in_batch_mode()``)."""
        from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

        env = StreamExecutionEnvironment.get_execution_environment()
        streaming = environment_settings.is_streaming_mode()
        if not streaming:
            env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        return TableEnvironment(env)

    def get_config(self) -> "TableConfig":
        """The configuration: ``set('parallelism.default', '1')`` sets the job's parallelism."""
        from kindling.table.table_config import TableConfig

        if getattr(self, "_config", None) is None:
            self._config = TableConfig(self._env)
        return self._config

    # -- functions ----------------------------------------------------------------------------

    def create_temporary_function(self, path: str, function) -> None:
        """Registers a function made with udf, udtf or udaf as ``path`` in this environment, for
        ``call(path, ...)`` and SQL."""
        self._functions.register(path, function)

    def create_temporary_system_function(self, name: str, function) -> None:
        """Registers a function made with udf, udtf or udaf as ``name``, for ``call(name, ...)`` and SQL.
        Flink lets it shadow the built-in function of that name; Kindling refuses that by name (its SQL
        and Table API would call the built-in: docs/table.md)."""
        from kindling.table.planner.functions import AGGREGATES, by_sql_name

        if by_sql_name(name) is not None or name.lower() in AGGREGATES:
            raise ValueError(f"create_temporary_system_function('{name}', ...): a temporary system function "
                             f"shadowing Flink's built-in function {name.upper()} is not supported by Kindling yet "
                             "(PyFlink calls it in place of the built-in); register it under another name")
        self._functions.register(name, function, system=True)

    def register_function(self, name: str, function) -> None:
        """As create_temporary_system_function (PyFlink's older name)."""
        self.create_temporary_system_function(name, function)

    def drop_temporary_function(self, path: str) -> bool:
        """Drops this environment's function ``path``; whether there was one."""
        return self._functions.unregister(path)

    drop_temporary_system_function = drop_function = drop_temporary_function

    # -- catalog ------------------------------------------------------------------------------

    def create_temporary_table(self, path: str, descriptor: TableDescriptor, ignoreIfExists: bool = False) -> None:
        """Registers the temporary table ``path`` (``[[catalog.]database.]table``) of a connector
        (``TableDescriptor.for_connector(...)``); it shadows a permanent table of the same path."""
        self._catalogs.create(path, self._checked(path, descriptor), True, ignoreIfExists)

    def create_table(self, path: str, descriptor: TableDescriptor, ignoreIfExists: bool = False) -> None:
        """Registers the table ``path`` of a connector in its catalog's database (which must exist)."""
        self._catalogs.create(path, self._checked(path, descriptor), False, ignoreIfExists)

    @staticmethod
    def _checked(path: str, descriptor: TableDescriptor) -> TableDescriptor:
        if not isinstance(descriptor, TableDescriptor):
            raise TypeError(f"create_table expects a TableDescriptor, got {descriptor!r}")
        if descriptor.get_schema() is None:
            raise ValueError(f"Table '{path}' needs a schema: TableDescriptor.for_connector(...).schema(...)")
        return descriptor

    def create_temporary_view(self, view_path: str, table_or_stream, *fields) -> None:
        """Registers a Table (or a DataStream, as ``from_data_stream`` makes it one) as the temporary view
        ``view_path``."""
        table = table_or_stream if isinstance(table_or_stream, Table) else self.from_data_stream(table_or_stream,
                                                                                                  *fields)
        self._catalogs.create(view_path, table, True)

    def create_view(self, view_path: str, table: Table, ignore_if_exists: bool = False) -> None:
        """Registers ``table`` as the view ``view_path`` in its catalog's database."""
        if not isinstance(table, Table):
            raise TypeError(f"create_view expects a Table, got {table!r}")
        self._catalogs.create(view_path, table, False, ignore_if_exists)

    def _unnamed(self, table: Table) -> str:
        """The path ``table`` is registered under, registering it as ``UnnamedTable$<n>`` if need be."""
        identifier = self._catalogs.name_of(table)
        if identifier is None:
            identifier = self._catalogs.create(path_text([self._catalogs.unnamed_name('UnnamedTable$')]), table, True)
        return identifier.as_serializable_string()

    def list_tables(self) -> List[str]:
        """The tables and views of the current database, temporary and permanent."""
        return self._catalogs.list_tables()

    def list_temporary_tables(self) -> List[str]:
        return self._catalogs.list_tables(temporary_only=True)

    def list_views(self) -> List[str]:
        return self._catalogs.list_tables(views=True)

    def list_temporary_views(self) -> List[str]:
        return self._catalogs.list_tables(views=True, temporary_only=True)

    def drop_temporary_table(self, table_path: str) -> bool:
        return self._catalogs.drop(table_path, view=False, temporary=True, ignore_if_not_exists=True)

    def drop_temporary_view(self, view_path: str) -> bool:
        return self._catalogs.drop(view_path, view=True, temporary=True, ignore_if_not_exists=True)

    def drop_table(self, table_path: str, ignore_if_not_exists: bool = True) -> bool:
        return self._catalogs.drop(table_path, view=False, temporary=False, ignore_if_not_exists=ignore_if_not_exists)

    def drop_view(self, view_path: str, ignore_if_not_exists: bool = True) -> bool:
        return self._catalogs.drop(view_path, view=True, temporary=False, ignore_if_not_exists=ignore_if_not_exists)

    def from_descriptor(self, descriptor: TableDescriptor) -> Table:
        """The table of a connector (``TableDescriptor.for_connector(...)``) without registering a name."""
        connector = descriptor.get_options().get("connector", "table")
        path = path_text([self._catalogs.unnamed_name(f"*anonymous_{connector}$") + "*"])
        self.create_temporary_table(path, descriptor)
        return self.from_path(path)

    # -- catalogs and databases -----------------------------------------------------------------

    def create_catalog(self, catalog_name: str, catalog_descriptor) -> None:
        """Creates the catalog ``catalog_name`` of a ``CatalogDescriptor`` (its ``type`` must be
        ``generic_in_memory``: Kindling's catalogs are in memory)."""
        from kindling.table.catalog import CatalogDescriptor

        if not isinstance(catalog_descriptor, CatalogDescriptor):
            raise TypeError(f"create_catalog expects a CatalogDescriptor, got {catalog_descriptor!r}")
        self._catalogs.create_catalog(catalog_name, catalog_descriptor._options)

    def register_catalog(self, catalog_name: str, catalog) -> None:
        """Registers a Catalog (another TableEnvironment's ``get_catalog``) as ``catalog_name``."""
        self._catalogs.register_catalog(catalog_name, catalog)

    def get_catalog(self, catalog_name: str):
        """The Catalog ``catalog_name``, or None if there is none."""
        return self._catalogs.get_catalog(catalog_name)

    def get_current_catalog(self) -> str:
        return self._catalogs.current_catalog

    def get_current_database(self) -> str:
        return self._catalogs.current_database

    def list_catalogs(self) -> List[str]:
        return self._catalogs.list_catalogs()

    def list_databases(self) -> List[str]:
        """The databases of the current catalog."""
        return self._catalogs.list_databases()

    def use_catalog(self, catalog_name: str) -> None:
        """Makes ``catalog_name`` (and its default database) current: one- and two-part paths resolve in it."""
        self._catalogs.use_catalog(catalog_name)

    def use_database(self, database_name: str) -> None:
        """Makes ``database_name`` of the current catalog current."""
        self._catalogs.use_database(database_name)

    def list_modules(self) -> List[str]:
        return ["core"]

    def list_materialized_tables(self) -> List[str]:
        """Kindling has no materialized tables: empty."""
        return []

    def list_user_defined_functions(self) -> List[str]:
        """The names of the functions registered in this environment."""
        return self._functions.names()

    def explain_sql(self, stmt: str, *extra_details) -> str:
        """Kindling's plan of a query or INSERT (as ``Table.explain``)."""
        from kindling.table.explain_detail import plan_details
        from kindling.table.table import explanation

        ending = plan_details(extra_details)
        return explanation(self, stmt)._text + ending

    # -- what Kindling does not have: modules, models, compiled plans, Java functions ---

    @unsupported(_MODULES)
    def load_module(self, module_name: str, module): ...

    @unsupported(_MODULES)
    def unload_module(self, module_name: str): ...

    @unsupported(_MODULES)
    def use_modules(self, *module_names: str): ...

    @unsupported(_MODULES)
    def list_full_modules(self): ...

    @unsupported("Kindling does not list its built-in functions; list_user_defined_functions lists yours")
    def list_functions(self) -> List[str]: ...

    @unsupported(_MODELS)
    def create_model(self, path: str, model_descriptor, ignore_if_exists: bool = False): ...

    @unsupported(_MODELS)
    def create_temporary_model(self, path: str, model_descriptor, ignore_if_exists: bool = False): ...

    @unsupported(_MODELS)
    def drop_model(self, model_path: str, ignore_if_not_exists: bool = True) -> bool: ...

    @unsupported(_MODELS)
    def drop_temporary_model(self, model_path: str) -> bool: ...

    @unsupported(_MODELS)
    def list_models(self) -> List[str]: ...

    @unsupported(_MODELS)
    def list_temporary_models(self) -> List[str]: ...

    @unsupported(_PLANS)
    def compile_plan_sql(self, stmt: str): ...

    @unsupported(_PLANS)
    def load_plan(self, plan_reference): ...

    @unsupported(_PLANS)
    def execute_plan(self, plan_reference): ...

    @unsupported(_JAVA_FUNCTIONS)
    def create_java_function(self, path: str, function_class_name: str, ignore_if_exists: bool = None): ...

    @unsupported(_JAVA_FUNCTIONS)
    def create_java_temporary_function(self, path: str, function_class_name: str): ...

    @unsupported(_JAVA_FUNCTIONS)
    def create_java_temporary_system_function(self, name: str, function_class_name: str): ...

    # -- Python files the job's workers need: the environment's --------------------------------

    def add_python_file(self, file_path: str) -> None:
        self._env.add_python_file(file_path)

    def add_python_archive(self, archive_path: str, target_dir: Optional[str] = None) -> None:
        self._env.add_python_archive(archive_path, target_dir)

    def set_python_requirements(self, requirements_file_path: str, requirements_cache_dir: Optional[str] = None):
        self._env.set_python_requirements(requirements_file_path, requirements_cache_dir)

    def from_path(self, path: str) -> Table:
        """The table registered as ``path``: a view, or a connector table's rows with its computed and
        metadata columns and its watermark."""
        from kindling.table.connectors import metadata_keys, scan_table
        from kindling.table.schema import _DeclaredSchema

        what = self._lookup(path)
        if isinstance(what, Table):
            return what
        table = scan_table(self, path, what)
        schema = what.get_schema()
        if not isinstance(schema, _DeclaredSchema):
            return table
        connector = what.get_options().get("connector")
        return _declared_table(self, table, schema, metadata_keys(what.get_options()),
                               f"the '{connector}' connector", eager=connector != "kafka")

    def from_elements(self, elements, schema: Union[DataType, List[str], None] = None,
                      verify_schema: bool = True) -> Table:
        """A bounded table of tuples, lists or Rows: ``schema`` is a ``DataTypes.ROW([...])``, or
        column names (types inferred from the values, as PyFlink: int is BIGINT), or None
        (names ``_1``, ``_2``, ...)."""
        return self._elements_table(elements, schema, parallel=True)

    def _elements_table(self, elements, schema: Union[DataType, List[str], None], parallel: bool) -> Table:
        """The table of ``from_elements``; not ``parallel``: read by a source of parallelism 1 (SQL's
        VALUES), else by one instance of a source of the job's parallelism (the Table API's elements)."""
        rows = [tuple(e) if isinstance(e, (tuple, list, Row)) else (e,) for e in elements]
        if not rows and not isinstance(schema, RowType):
            raise ValueError("from_elements of no elements needs a DataTypes.ROW([...]) schema")
        if isinstance(schema, RowType):
            table_schema = Schema(schema.field_names(), schema.field_types())
        else:
            names = list(schema) if schema is not None else [f"_{i + 1}" for i in range(len(rows[0]))]
            if len(names) != len(rows[0]):
                raise ValueError(f"from_elements: {len(names)} column names {names} for elements of "
                                 f"{len(rows[0])} fields")
            columns = [[r[i] for r in rows if i < len(r)] for i in range(len(names))]
            table_schema = Schema(names, [_inferred_type(c, n) for c, n in zip(columns, names)])
        arity = len(table_schema.get_field_names())
        bad = next((r for r in rows if len(r) != arity), None)
        if bad is not None:
            raise ValueError(f"from_elements: the element {bad!r} has {len(bad)} fields, the table {arity}")
        values = tuple(_create_row(table_schema.get_field_names(), list(r)) for r in rows)
        return Table(self, nodes.Values(rows=values, parallel=parallel, out=nodes.Output(table_schema)))

    def from_pandas(self, pdf, schema: Union[DataType, List[str], None] = None, splits_num: int = 1) -> Table:
        """A bounded table of a pandas DataFrame's rows; columns named as the DataFrame's unless
        ``schema`` (names or a ``DataTypes.ROW``) says otherwise."""
        rows = pdf.to_numpy(dtype=object).tolist()  # Python values, not numpy scalars
        return self.from_elements(rows, schema if schema is not None else [str(c) for c in pdf.columns])

    def _lookup(self, path: str):
        """The table (TableDescriptor) or view (Table) ``path`` names."""
        return self._catalogs.lookup(path)

    # -- SQL ----------------------------------------------------------------------------------

    def execute_sql(self, stmt: str) -> TableResult:
        """Runs a statement: ``CREATE [TEMPORARY] TABLE name (columns) WITH (...)``, ``CREATE
        [TEMPORARY] VIEW name AS query``, ``CREATE [TEMPORARY [SYSTEM]] FUNCTION name AS
        'module.function' LANGUAGE PYTHON``, ``CREATE CATALOG name WITH ('type' = 'generic_in_memory')``,
        ``CREATE DATABASE``, ``USE [CATALOG]``, ``SHOW CATALOGS|DATABASES|TABLES|VIEWS|FUNCTIONS|CURRENT
        CATALOG|CURRENT DATABASE|CREATE TABLE name``, ``DESCRIBE name``, ``INSERT INTO sink query`` (starts
        the job), ``DROP [TEMPORARY] TABLE|VIEW [IF EXISTS] name``, ``DROP DATABASE|CATALOG``, or a query
        (its rows: ``execute_sql('SELECT ...').print()``). Names are ``[[catalog.]database.]object``."""
        from kindling.table.catalog import CatalogDatabase
        from kindling.table.ddl import parse_statement
        from kindling.table.table_result import listing

        kind, *parts = parse_statement(stmt)
        catalogs = self._catalogs
        if kind == "create_table":
            path, schema, options, comment, if_not_exists, temporary = parts
            catalogs.create(path, TableDescriptor(schema, options, comment), temporary, if_not_exists)
        elif kind == "create_view":
            path, query, temporary, if_not_exists = parts
            catalogs.create(path, self.sql_query(query), temporary, if_not_exists)
        elif kind == "create_function":
            import importlib

            module, _, attribute = parts[1].rpartition(".")
            try:
                function = getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError, ValueError) as error:
                raise ValueError(f"CREATE FUNCTION {parts[0]}: cannot import '{parts[1]}' ({error}); name a "
                                 "function made with udf/udtf/udaf as 'module.attribute'") from None
            register = self.create_temporary_system_function if parts[2] else self.create_temporary_function
            register(parts[0], function)
        elif kind == "create_catalog":
            catalogs.create_catalog(parts[0], parts[1], parts[2])
        elif kind == "drop_catalog":
            catalogs.drop_catalog(*parts)
        elif kind == "use_catalog":
            catalogs.use_catalog(parts[0])
        elif kind == "use_database":
            catalog_name, name = catalogs.database_path(parts[0])
            catalogs.use_database(name, catalog_name)
        elif kind == "create_database":
            path, comment, properties, if_not_exists = parts
            catalogs.create_database(path, CatalogDatabase(properties, comment), if_not_exists)
        elif kind == "drop_database":
            catalogs.drop_database(*parts)
        elif kind == "show":
            return self._shown(*parts)
        elif kind == "describe":
            return listing(*_described(self.from_path(parts[0])))
        elif kind == "insert":
            return self.sql_query(parts[1]).execute_insert(parts[0])
        elif kind == "explain":
            from kindling.table.table import explanation

            return explanation(self, parts[0])
        elif kind == "drop":
            path, if_exists, view, temporary = parts
            catalogs.drop(path, view, temporary, if_exists)
        else:
            return self.sql_query(parts[0]).execute()
        return TableResult()

    def _shown(self, what: str, path: Optional[str]) -> TableResult:
        """The result of ``SHOW what [path]``, as Flink prints it."""
        from kindling.table.table_result import listing

        catalogs = self._catalogs
        if what == "CATALOGS":
            return listing(["catalog name"], [[n] for n in catalogs.list_catalogs()])
        if what == "CURRENT CATALOG":
            return listing(["current catalog name"], [[catalogs.current_catalog]])
        if what == "DATABASES":
            names = catalogs.catalog(path or catalogs.current_catalog).list_databases()
            return listing(["database name"], [[n] for n in sorted(names)])
        if what == "CURRENT DATABASE":
            return listing(["current database name"], [[catalogs.current_database]])
        if what == "FUNCTIONS":
            return listing(["function name"], [[n] for n in self.list_user_defined_functions()])
        if what == "CREATE TABLE":
            from kindling.table.ddl import create_table_text

            identifier, what = catalogs.find(path)
            if not isinstance(what, TableDescriptor):
                raise ValueError(f"Could not execute SHOW CREATE TABLE. Table with identifier "
                                 f"{identifier.as_serializable_string()} does not exist" +
                                 (" (it is a view)." if what is not None else "."))
            text = create_table_text(identifier.as_serializable_string(), what, catalogs.is_temporary(identifier))
            return listing(["result"], [[text]])
        catalog_name, database_name = catalogs.database_path(path) if path else (None, None)
        views = what == "VIEWS"
        return listing(["view name" if views else "table name"],
                       [[n] for n in catalogs.list_tables(catalog_name, database_name, views=views)])

    def sql_query(self, query: str) -> Table:
        """The Table of ``SELECT expressions FROM table [WHERE condition]`` (parsed with sqlglot; run
        as Spark column expressions). Other queries fail naming what Kindling cannot translate yet."""
        from kindling.table.sql import parse_query

        return parse_query(query, self)

    # -- DataStream <-> Table -----------------------------------------------------------------

    def from_data_stream(self, data_stream, *fields) -> Table:
        """The DataStream as a Table: the fields of a Row stream become columns (``f0`` for an atomic
        one); with a ``Schema``, its columns: physical ones by name, computed ones
        (``column_by_expression``), the elements' timestamps (``column_by_metadata('rowtime', ...)``)
        and the event-time column with its watermarks (``watermark('ts', "ts - INTERVAL '3' SECOND")``)."""
        if len(fields) == 1 and isinstance(fields[0], Schema):
            return self._declared_stream_table(self._stream_table(data_stream), fields[0])
        if fields:
            raise ValueError("from_data_stream with field expressions is not supported by Kindling yet; give a "
                             "Schema, or the stream a Types.ROW_NAMED type to name its columns")
        return self._stream_table(data_stream)

    def _stream_table(self, data_stream, updating: bool = False, insert_only: bool = False) -> Table:
        """The Table of the stream's elements (:class:`nodes.FromDataStream`)."""
        type_info = data_stream.get_type()
        if isinstance(type_info, RowTypeInfo):
            names = type_info.get_field_names()
            schema = Schema(names, [_data_type_of(t) for t in type_info.get_field_types()])
        elif type_info is None or type(type_info).__name__ == "PickledBytesTypeInfo":
            raise ValueError("from_data_stream needs a typed DataStream: give the producing operator an "
                             "output_type such as Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()])")
        else:
            schema = Schema(["f0"], [_data_type_of(type_info)])
        return Table(self, nodes.FromDataStream(stream=data_stream, rows=isinstance(type_info, RowTypeInfo),
                                                insert_only=insert_only, out=nodes.Output(schema, updating)))

    def _declared_stream_table(self, stream_table: Table, schema: Schema) -> Table:
        schema = _with_stream_columns(schema, stream_table.get_schema())
        # periodic emission: a bounded job then runs in one step, in Flink's output order
        return _declared_table(self, stream_table, schema, {"rowtime"}, "a DataStream", eager=False)

    def create_statement_set(self) -> "StatementSet":
        """Inserts run together in one job by ``StatementSet.execute()``."""
        from kindling.table.statement_set import StatementSet

        return StatementSet(self)

    def _insert(self, table: Table, sink_path: str) -> TableResult:
        self._add_sink(table, sink_path)
        return TableResult(self._env.execute_async(f"insert-into_{sink_path}"))

    def _add_sink(self, table: Table, sink_path: str) -> None:
        from kindling.table.planner.lowering import add_sinks

        add_sinks(self, [self._sink_node(table, sink_path)])

    def _sink_node(self, table: Table, sink_path: str) -> nodes.Sink:
        """The plan writing ``table`` into the sink table ``sink_path``: its columns cast to the sink's
        time types (Flink casts them implicitly); fails on a view or on columns that do not fit."""
        from kindling.table.schema import _DeclaredSchema

        what = self._lookup(sink_path)
        if not isinstance(what, TableDescriptor):
            raise ValueError(f"'{sink_path}' is a view; insert into a table created with a connector")
        declared = what.get_schema()
        sink_schema = declared.persisted() if isinstance(declared, _DeclaredSchema) else declared
        if len(sink_schema.get_field_names()) != len(table.get_schema().get_field_names()):
            raise ValueError(f"Column count of the query ({table.get_schema().get_field_names()}) and of the "
                             f"sink table '{sink_path}' ({sink_schema.get_field_names()}) do not match")
        written = [n for n in sink_schema.get_field_names() if n in getattr(declared, "metadata", {})]
        if written:
            raise ValueError(f"Table '{sink_path}': writing the metadata columns {written} is not supported by "
                             "Kindling yet; declare them VIRTUAL (read only)")
        rows = _as_sink_types(table, sink_schema)._node
        return nodes.Sink(input=rows, path=sink_path, descriptor=what, out=rows.out)


class StreamTableEnvironment(TableEnvironment):
    """A TableEnvironment on the user's StreamExecutionEnvironment: its tables and DataStreams are
    parts of the same job, which ``env.execute()`` (or an ``execute_insert``) runs."""

    @staticmethod
    def create(stream_execution_environment=None,
               environment_settings: Optional[EnvironmentSettings] = None) -> "StreamTableEnvironment":
        from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

        env = stream_execution_environment or StreamExecutionEnvironment.get_execution_environment()
        streaming = environment_settings is None or environment_settings.is_streaming_mode()
        if not streaming:
            env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        return StreamTableEnvironment(env)

    def to_data_stream(self, table: Table):
        """The table's rows as a DataStream of Rows with the table's column names (``row.user_id``)."""
        return table._stream()

    def to_append_stream(self, table: Table, type_info: TypeInformation):
        """The table's rows as a DataStream of ``type_info`` (a Row type with one field per column);
        an updating table (an aggregation's) has changes instead: to_retract_stream, to_changelog_stream."""
        if table._updating:
            raise ValueError("to_append_stream: the table is updating (its aggregation changes earlier rows: "
                             "-U/+U/-D); read it with to_retract_stream or to_changelog_stream")
        return table._stream(type_info)

    def from_changelog_stream(self, data_stream, schema: Optional[Schema] = None,
                              changelog_mode: Optional[ChangelogMode] = None) -> Table:
        """A DataStream of Rows with RowKinds as an updating Table whose rows keep their kinds, as Flink's
        ``fromChangelogStream``: ``changelog_mode`` (default ``ChangelogMode.all()``) says which
        kinds come; ``insert_only()`` fails the job on another kind; ``upsert()`` needs the schema's
        primary key and turns the key's upserts (``+I``/``+U``) and deletes (``-D``, only the key set
        is enough) into Flink's changelog (ChangelogNormalize: ``-U``/``+U`` pairs, full ``-D`` rows,
        repeated rows dropped). ``schema``: as from_data_stream's, without metadata columns or a
        watermark yet. Unlike PyFlink, the mode counts without a schema too."""
        mode = changelog_mode or ChangelogMode.all()
        type_info = data_stream.get_type()
        if not isinstance(type_info, RowTypeInfo):
            raise ValueError("from_changelog_stream needs a DataStream of Rows: give the producing operator an "
                             "output_type such as Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()])")
        # the producing operator's Rows keep their RowKind on their way to the table (a plain Row type's
        # Spark columns have none)
        data_stream._transformation.type_info = ChangelogRowTypeInfo(type_info.get_field_types(),
                                                                     type_info.get_field_names())
        key = getattr(schema, "primary_key", None)
        if mode.is_upsert and not key:
            raise ValueError("from_changelog_stream: ChangelogMode.upsert() produces UPDATE_AFTER rows without "
                             "UPDATE_BEFORE; this requires a primary key: give a Schema with primary_key(...)")
        if getattr(schema, "metadata", None) or getattr(schema, "watermark_spec", None):
            raise ValueError("from_changelog_stream with metadata columns or a watermark is not supported by "
                             "Kindling yet; declare physical and computed columns and the primary key")
        table = self._stream_table(data_stream, updating=not mode.is_insert_only, insert_only=mode.is_insert_only)
        if schema is not None:
            table = self._declared_stream_table(table, schema)
        if not mode.is_upsert:
            return table
        return Table(self, nodes.ChangelogNormalize(input=table._node, keys=tuple(key[1]), deleted_column=False,
                                                    out=table._node.out))

    def to_changelog_stream(self, table: Table, target_schema: Optional[Schema] = None,
                            changelog_mode: Optional[ChangelogMode] = None):
        """The table's changes as Rows with a RowKind (``+I``, ``-U``, ``+U``, ``-D``); ``changelog_mode``
        (default ``ChangelogMode.all()``): ``upsert()`` drops the ``-U`` rows, ``insert_only()`` fails
        on an updating table. ``target_schema``: the table's own columns only (Kindling converts none
        yet). Unlike PyFlink, the mode counts without a target schema too."""
        if target_schema is not None and [(n, t.type_name) for n, t in table._types().items()] != \
                [(n, t.type_name) for n, t in zip(target_schema.get_field_names(),
                                                  target_schema.get_field_data_types())]:
            raise ValueError(f"to_changelog_stream: a target schema other than the table's columns "
                             f"({table.get_schema()}) is not supported by Kindling yet; convert the columns "
                             "with a select first")
        mode = changelog_mode or ChangelogMode.all()
        if table._updating and not {RowKind.UPDATE_AFTER, RowKind.DELETE} <= mode.kinds:
            raise ValueError(f"to_changelog_stream: ChangelogMode {mode!r} cannot take the table's updates and "
                             "deletes (it is updating); give ChangelogMode.all() or ChangelogMode.upsert()")
        rows = table._stream()
        return rows.filter(_NotUpdateBefore()) if table._updating and RowKind.UPDATE_BEFORE not in mode.kinds \
            else rows

    def to_retract_stream(self, table: Table, type_info: TypeInformation):
        """The table's changes as ``(is_add, row)`` pairs: ``False`` for a retraction (``-U``, ``-D``)."""
        rows = table._stream(type_info)
        return rows.map(_AddOrRetract(), output_type=Types.TUPLE([Types.BOOLEAN(), type_info]))


class _AddOrRetract:
    """A change as a retract stream's ``(is_add, row)``."""

    def __call__(self, row):
        return not row._is_retract_msg(), row


class _NotUpdateBefore:
    """Whether a change is not an UPDATE_BEFORE (an upsert changelog has none)."""

    def __call__(self, row) -> bool:
        return row.get_row_kind() is not RowKind.UPDATE_BEFORE
