"""``pyflink.table.Schema``: the columns of a table, declared with a builder (or by CREATE TABLE).

Example::

    Schema.new_builder().column('user_id', DataTypes.INT()).column('comments', DataTypes.STRING()).build()
    Schema.new_builder().column('id', DataTypes.BIGINT()).column('ts', DataTypes.TIMESTAMP(3)) \\
        .column_by_expression('day', 'CAST(ts AS DATE)').watermark('ts', "ts - INTERVAL '5' SECOND") \\
        .primary_key('id').build()
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

from kindling.common.typeinfo import RowTypeInfo, Types
from kindling.table.types import DataType, as_data_type

__all__ = ["Schema"]


def sql_string(text: str) -> str:
    """``text`` as a SQL string literal: ``'it''s'``."""
    return "'" + text.replace("'", "''") + "'"


class Schema:
    """Physical columns by name and :class:`DataType`, in order."""

    def __init__(self, names: List[str], types: List[DataType]):
        if len(set(names)) != len(names):
            raise ValueError(f"A table schema has duplicate column names: {names}")
        self._names = list(names)
        self._types = list(types)

    @staticmethod
    def new_builder() -> "Schema.Builder":
        return Schema.Builder()

    def get_field_names(self) -> List[str]:
        return list(self._names)

    def get_field_data_types(self) -> List[DataType]:
        return list(self._types)

    def row_type_info(self) -> RowTypeInfo:
        """The named Row type of the table's rows in a DataStream."""
        return Types.ROW_NAMED(self._names, [t.type_info() for t in self._types])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and (self._names, self._types) == (other._names, other._types)

    def __repr__(self) -> str:
        return "(\n" + ",\n".join(f"  `{n}` {t!r}" for n, t in zip(self._names, self._types)) + "\n)"

    class Builder:
        """Collects columns; :meth:`build` makes the Schema."""

        def __init__(self) -> None:
            self._names: List[str] = []
            self._types: List[Optional[DataType]] = []
            self._computed: Dict[str, str] = {}
            self._metadata: Dict[str, Tuple[Optional[str], bool]] = {}
            self._watermark: Optional[Tuple[str, str]] = None
            self._primary_key: Optional[Tuple[str, List[str]]] = None
            self._comments: Dict[str, str] = {}

        def column(self, column_name: str, data_type: Union[DataType, str]) -> "Schema.Builder":
            """A physical column, of a DataType or a SQL type string (``'TIMESTAMP_LTZ(3)'``)."""
            try:
                data_type = as_data_type(data_type, f"Schema column {column_name!r}")
            except ValueError as e:
                raise TypeError(str(e)) from None
            self._names.append(column_name)
            self._types.append(data_type)
            return self

        def column_by_expression(self, column_name: str, sql_expression: str) -> "Schema.Builder":
            """A column computed from the others by a SQL expression (``CAST(f0 AS TIMESTAMP(3))``,
            ``PROCTIME()``); computed when the table is read, never written to a sink."""
            self._names.append(column_name)
            self._types.append(None)  # typed when the table is made
            self._computed[column_name] = sql_expression
            return self

        def column_by_metadata(self, column_name: str, data_type: Union[DataType, str], metadata_key: str = None,
                               is_virtual: bool = False) -> "Schema.Builder":
            """A column of the source's metadata (``metadata_key``, default the column's name): a
            DataStream's ``rowtime`` (its elements' timestamps), Kafka's ``timestamp``. A virtual one
            is read only."""
            self.column(column_name, data_type)
            self._metadata[column_name] = (metadata_key, bool(is_virtual))
            return self

        def watermark(self, column_name: str, watermark_expression: str) -> "Schema.Builder":
            """The table's event time: ``column_name`` with watermarks ``column - INTERVAL ...`` (or
            ``SOURCE_WATERMARK()``, the DataStream's own)."""
            self._watermark = (column_name, watermark_expression)
            return self

        def primary_key(self, *column_names: str) -> "Schema.Builder":
            """The primary key (NOT ENFORCED, as in Flink): upsert sinks write by it."""
            return self.primary_key_named("PK_" + "_".join(column_names), *column_names)

        def primary_key_named(self, constraint_name: str, *column_names: str) -> "Schema.Builder":
            """The primary key with a constraint name."""
            if not column_names:
                raise ValueError("primary_key needs at least one column")
            self._primary_key = (constraint_name, list(column_names))
            return self

        def from_schema(self, schema: "Schema") -> "Schema.Builder":
            """All columns (and the watermark and key) of ``schema``."""
            declared = schema if isinstance(schema, _DeclaredSchema) else None
            for name, data_type in zip(schema._names, schema._types):
                if declared is not None and name in declared.computed:
                    self.column_by_expression(name, declared.computed[name])
                elif declared is not None and name in declared.metadata:
                    self.column_by_metadata(name, data_type, *declared.metadata[name])
                else:
                    self.column(name, data_type)
            if declared is not None:
                self._watermark = declared.watermark_spec or self._watermark
                self._primary_key = declared.primary_key or self._primary_key
                self._comments = dict(declared.comments)
            return self

        def build(self) -> "Schema":
            if self._computed or self._metadata or self._watermark or self._primary_key or self._comments:
                return _DeclaredSchema(self._names, self._types, dict(self._computed), dict(self._metadata),
                                       self._watermark, self._primary_key, comments=dict(self._comments))
            return Schema(self._names, self._types)


class _DeclaredSchema(Schema):
    """A schema with computed and metadata columns, a watermark or a primary key (from the
    builder or CREATE TABLE). The computed columns are typed when the table is made; the table's
    own schema is then a resolved copy (:meth:`resolved`) that prints as Flink prints it."""

    def __init__(self, names, types, computed: Dict[str, str], metadata: Dict[str, Tuple[Optional[str], bool]],
                 watermark: Optional[Tuple[str, str]], primary_key: Optional[Tuple[str, List[str]]] = None,
                 partition_keys: Optional[List[str]] = None, comments: Optional[Dict[str, str]] = None):
        if len(set(names)) != len(names):
            raise ValueError(f"A table schema has duplicate column names: {names}")
        self._names, self._types = list(names), list(types)
        self.computed, self.metadata, self.watermark_spec = computed, metadata, watermark
        self.primary_key = primary_key
        self.partition_keys = list(partition_keys or [])
        self.comments = dict(comments or {})  # column -> its COMMENT
        # without physical columns, a DataStream's fields are the first columns (from_data_stream)
        derived = all(n in computed or n in metadata for n in self._names)
        for column in ([watermark[0]] if watermark else []) + (primary_key[1] if primary_key else []) + \
                self.partition_keys:
            if column not in self._names and not derived:
                raise ValueError(f"The schema names the column '{column}' (watermark, primary key or partition), "
                                 f"which is not one of its columns {self._names}")
        if primary_key:
            self._types = [t.not_null() if n in primary_key[1] and t is not None else t
                           for n, t in zip(self._names, self._types)]
        self.proctime: Optional[str] = None  # the PROCTIME() column, once resolved

    def metadata_key(self, column: str) -> str:
        """The metadata a metadata column reads (its declared key, else its name)."""
        return self.metadata[column][0] or column

    def physical_names(self) -> List[str]:
        """The columns a source's format reads."""
        return [n for n in self._names if n not in self.computed and n not in self.metadata]

    def persisted(self) -> Schema:
        """The columns an INSERT writes: physical and non-virtual metadata ones."""
        keep = [i for i, n in enumerate(self._names)
                if n not in self.computed and not (n in self.metadata and self.metadata[n][1])]
        return Schema([self._names[i] for i in keep], [self._types[i] for i in keep])

    def resolved(self, types: List[DataType], proctime: Optional[str] = None) -> "_DeclaredSchema":
        """This schema with every column typed (``types``)."""
        schema = _DeclaredSchema(self._names, types, self.computed, self.metadata, self.watermark_spec,
                                 self.primary_key, self.partition_keys, self.comments)
        schema.proctime = proctime
        return schema

    def extras(self, name: str) -> str:
        """What follows a column's type in Flink's printed schema: ``AS expr`` or ``METADATA ...``."""
        if name in self.computed:
            return f"AS {self.computed[name]}"
        if name in self.metadata:
            key, virtual = self.metadata[name]
            return "METADATA" + (f" FROM '{key}'" if key else "") + (" VIRTUAL" if virtual else "")
        return ""

    def comment_text(self, name: str) -> str:
        """``COMMENT '...'`` of a column that has one, else empty."""
        return f"COMMENT {sql_string(self.comments[name])}" if name in self.comments else ""

    def type_text(self, name: str, data_type: Optional[DataType]) -> str:
        text = "" if data_type is None else repr(data_type)
        return text + " *PROCTIME*" if name == self.proctime else text

    def __repr__(self) -> str:
        lines = []
        for name, data_type in zip(self._names, self._types):
            lines.append(" ".join(p for p in (f"`{name}`", self.type_text(name, data_type), self.extras(name),
                                              self.comment_text(name)) if p))
        if self.watermark_spec:
            column, expression = self.watermark_spec
            data_type = dict(zip(self._names, self._types)).get(column)
            lines.append(f"WATERMARK FOR `{column}`: {data_type!r} AS {expression}")
        if self.primary_key:
            constraint, columns = self.primary_key
            lines.append(f"CONSTRAINT `{constraint}` PRIMARY KEY ({', '.join(f'`{c}`' for c in columns)}) "
                         "NOT ENFORCED")
        return "(\n" + ",\n".join("  " + line for line in lines) + "\n)"


def declared_schema(schema: Schema, partition_keys: Optional[List[str]] = None,
             comments: Optional[Dict[str, str]] = None) -> "_DeclaredSchema":
    """``schema`` with PARTITIONED BY ``partition_keys`` and column ``comments`` (as CREATE TABLE declares them)."""
    if isinstance(schema, _DeclaredSchema):
        base = schema
    else:
        base = _DeclaredSchema(schema.get_field_names(), schema.get_field_data_types(), {}, {}, None)
    return _DeclaredSchema(base._names, base._types, base.computed, base.metadata, base.watermark_spec,
                           base.primary_key, partition_keys or base.partition_keys, {**base.comments, **(comments or {})})
