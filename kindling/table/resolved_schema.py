"""``pyflink.table.catalog.ResolvedSchema`` and its parts: a table's columns (physical, computed,
metadata) with their final types, its watermark and its primary key, as Flink resolved them
(``Table.get_resolved_schema()``, ``TableResult.get_resolved_schema()``). ``str()`` of one is what
``Table.print_schema()`` prints.

Example::

    schema = t_env.from_path("orders").get_resolved_schema()
    schema.get_column_names()           # ['id', 'ts', 'day']
    str(schema.get_column("day"))       # '`day` DATE AS CAST(`ts` AS DATE)'
    schema.get_primary_key_indexes()    # [0]

Computed columns and watermarks keep their SQL text; Flink's ResolvedExpression objects (the
planner's, JVM-only) are not there, so ``Column.computed``, ``WatermarkSpec.of`` and the getters of
their expressions are gaps (docs/api-gaps.txt).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import List, Optional, Sequence, Union

from kindling.common.unsupported import unsupported
from kindling.table.schema import sql_string
from kindling.table.types import DataType, DataTypes

__all__ = ["Column", "ComputedColumn", "Constraint", "MetadataColumn", "PhysicalColumn", "ResolvedSchema",
           "UniqueConstraint", "WatermarkSpec"]

_RESOLVED_EXPRESSIONS = "resolved expressions belong to Flink's planner (JVM-only); the SQL text is in " \
                        "as_summary_string()"


class Column(ABC):
    """A column of a :class:`ResolvedSchema`: a :class:`PhysicalColumn`, :class:`ComputedColumn` or
    :class:`MetadataColumn`."""

    def __init__(self, name: str, data_type: DataType, comment: Optional[str] = None, time_attribute: str = ""):
        self._name, self._data_type, self._comment = name, data_type, comment
        self._time_attribute = time_attribute  # ' *ROWTIME*' / ' *PROCTIME*' after the type, as Flink prints it

    @staticmethod
    def physical(name: str, data_type: DataType) -> "PhysicalColumn":
        """A column of the table's data."""
        return PhysicalColumn(name, data_type)

    @staticmethod
    @unsupported(_RESOLVED_EXPRESSIONS)
    def computed(name: str, resolved_expression) -> "ComputedColumn": ...

    @staticmethod
    def metadata(name: str, data_type: DataType, metadata_key: Optional[str], is_virtual: bool) -> "MetadataColumn":
        """A column of the connector's metadata ``metadata_key`` (None: the column's name); a virtual
        one is read only."""
        return MetadataColumn(name, data_type, metadata_key, is_virtual)

    def with_comment(self, comment: Optional[str]) -> "Column":
        """This column with ``comment``."""
        return self._copy(comment=comment)

    @abstractmethod
    def is_physical(self) -> bool:
        """Whether the column is part of the table's data (not computed, not metadata)."""

    @abstractmethod
    def is_persisted(self) -> bool:
        """Whether a sink writes the column (physical and non-virtual metadata columns)."""

    def get_data_type(self) -> DataType:
        return self._data_type

    def get_name(self) -> str:
        return self._name

    def get_comment(self) -> Optional[str]:
        return self._comment

    def time_attribute(self) -> str:
        """What Flink prints after a time attribute's type: `` *ROWTIME*``, `` *PROCTIME*`` or nothing."""
        return self._time_attribute

    def as_summary_string(self) -> str:
        """The column as Flink prints it: ```a` BIGINT NOT NULL AS `b` + 1 COMMENT 'c'``."""
        parts = [f"`{self._name}`", repr(self._data_type) + self._time_attribute, self.explain_extras(),
                 None if self._comment is None else f"COMMENT {sql_string(self._comment)}"]
        return " ".join(p for p in parts if p)

    def explain_extras(self) -> Optional[str]:
        """What follows the type: ``AS expression`` or ``METADATA FROM 'key' VIRTUAL``; None for physical columns."""
        return None

    def copy(self, new_type: DataType) -> "Column":
        """This column with the type ``new_type``."""
        return self._copy(data_type=new_type)

    def rename(self, new_name: str) -> "Column":
        """This column named ``new_name``."""
        return self._copy(name=new_name)

    def _copy(self, **changes) -> "Column":
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        for key, value in changes.items():
            setattr(copy, "_" + key, value)
        return copy

    def __str__(self) -> str:
        return self.as_summary_string()

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), self._name, repr(self._data_type)))


class PhysicalColumn(Column):
    """A column of the table's data."""

    def is_physical(self) -> bool:
        return True

    def is_persisted(self) -> bool:
        return True


class ComputedColumn(Column):
    """A column computed from the others by a SQL expression (``AS expression``)."""

    def __init__(self, name: str, data_type: DataType, expression: str, comment: Optional[str] = None,
                 time_attribute: str = ""):
        super().__init__(name, data_type, comment, time_attribute)
        self._expression = expression

    def is_physical(self) -> bool:
        return False

    def is_persisted(self) -> bool:
        return False

    @unsupported(_RESOLVED_EXPRESSIONS)
    def get_expression(self): ...

    def explain_extras(self) -> Optional[str]:
        return f"AS {self._expression}"


class MetadataColumn(Column):
    """A column of the connector's metadata (``METADATA [FROM 'key'] [VIRTUAL]``)."""

    def __init__(self, name: str, data_type: DataType, metadata_key: Optional[str], is_virtual: bool,
                 comment: Optional[str] = None, time_attribute: str = ""):
        super().__init__(name, data_type, comment, time_attribute)
        self._metadata_key, self._virtual = metadata_key, bool(is_virtual)

    def is_virtual(self) -> bool:
        return self._virtual

    def get_metadata_key(self) -> Optional[str]:
        return self._metadata_key

    def is_physical(self) -> bool:
        return False

    def is_persisted(self) -> bool:
        return not self._virtual

    def explain_extras(self) -> Optional[str]:
        key = f" FROM {sql_string(self._metadata_key)}" if self._metadata_key else ""
        return f"METADATA{key}" + (" VIRTUAL" if self._virtual else "")


class WatermarkSpec:
    """The table's event time: its rowtime column and the watermark expression's SQL text."""

    def __init__(self, rowtime_attribute: str, expression: str, rowtime_type: DataType):
        self._rowtime_attribute, self._expression, self._rowtime_type = rowtime_attribute, expression, rowtime_type

    @staticmethod
    @unsupported(_RESOLVED_EXPRESSIONS)
    def of(rowtime_attribute: str, watermark_expression) -> "WatermarkSpec": ...

    def get_rowtime_attribute(self) -> str:
        return self._rowtime_attribute

    @unsupported(_RESOLVED_EXPRESSIONS)
    def get_watermark_expression(self): ...

    def watermark_sql(self) -> str:
        """The watermark expression's SQL text, as Flink prints it (``ts - INTERVAL '5' SECOND``)."""
        return self._expression

    def as_summary_string(self) -> str:
        return f"WATERMARK FOR `{self._rowtime_attribute}`: {self._rowtime_type!r} AS {self._expression}"

    def __str__(self) -> str:
        return self.as_summary_string()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WatermarkSpec) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class Constraint(ABC):
    """An integrity constraint of a table; Flink declares them NOT ENFORCED."""

    class ConstraintType(Enum):
        PRIMARY_KEY = 0
        UNIQUE_KEY = 1

    def __init__(self, name: str, enforced: bool = False):
        self._name, self._enforced = name, enforced

    def get_name(self) -> str:
        return self._name

    def is_enforced(self) -> bool:
        return self._enforced

    @abstractmethod
    def get_type(self) -> "Constraint.ConstraintType":
        """PRIMARY_KEY or UNIQUE_KEY."""

    @abstractmethod
    def as_summary_string(self) -> str:
        """The constraint as Flink prints it."""


class UniqueConstraint(Constraint):
    """A primary key (``CONSTRAINT `PK_a` PRIMARY KEY (`a`) NOT ENFORCED``)."""

    def __init__(self, name: str, columns: Sequence[str]):
        super().__init__(name)
        self._columns = list(columns)

    @staticmethod
    def primary_key(name: str, columns: List[str]) -> "UniqueConstraint":
        """A NOT ENFORCED primary key of ``columns``."""
        return UniqueConstraint(name, columns)

    def get_columns(self) -> List[str]:
        return list(self._columns)

    def get_type(self) -> Constraint.ConstraintType:
        return Constraint.ConstraintType.PRIMARY_KEY

    def get_type_string(self) -> str:
        return "PRIMARY KEY"

    def as_summary_string(self) -> str:
        return f"CONSTRAINT `{self._name}` PRIMARY KEY ({', '.join(f'`{c}`' for c in self._columns)}) NOT ENFORCED"

    def __str__(self) -> str:
        return self.as_summary_string()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UniqueConstraint) and (self._name, self._columns) == (other._name, other._columns)

    def __hash__(self) -> int:
        return hash((self._name, tuple(self._columns)))


class ResolvedSchema:
    """A table's columns with their final types, its watermark and its primary key."""

    def __init__(self, columns: List[Column] = None, watermark_specs: List[WatermarkSpec] = None,
                 primary_key: Optional[UniqueConstraint] = None):
        self._columns = list(columns or [])
        self._watermark_specs = list(watermark_specs or [])
        self._primary_key = primary_key

    @staticmethod
    def of(columns: List[Column]) -> "ResolvedSchema":
        """A schema of only ``columns``."""
        return ResolvedSchema(columns)

    @staticmethod
    def physical(column_names: List[str], column_data_types: List[DataType]) -> "ResolvedSchema":
        """A schema of only physical columns."""
        return ResolvedSchema([PhysicalColumn(n, t) for n, t in zip(column_names, column_data_types)])

    def get_column_count(self) -> int:
        return len(self._columns)

    def get_columns(self) -> List[Column]:
        return list(self._columns)

    def get_column_names(self) -> List[str]:
        return [c.get_name() for c in self._columns]

    def get_column_data_types(self) -> List[DataType]:
        return [c.get_data_type() for c in self._columns]

    def get_column(self, column_index_or_name: Union[int, str]) -> Optional[Column]:
        """The column at an index, or of a name (None if there is none)."""
        if isinstance(column_index_or_name, int):
            return self._columns[column_index_or_name]
        return next((c for c in self._columns if c.get_name() == column_index_or_name), None)

    def get_watermark_specs(self) -> List[WatermarkSpec]:
        return list(self._watermark_specs)

    def get_primary_key(self) -> Optional[UniqueConstraint]:
        return self._primary_key

    def get_primary_key_indexes(self) -> List[int]:
        names = self.get_column_names()
        return [names.index(c) for c in self._primary_key.get_columns()] if self._primary_key else []

    def to_source_row_data_type(self) -> DataType:
        """The row type of every column, as a source produces the table."""
        return self._row_type(self._columns)

    def to_physical_row_data_type(self) -> DataType:
        """The row type of the physical columns."""
        return self._row_type([c for c in self._columns if c.is_physical()])

    def to_sink_row_data_type(self) -> DataType:
        """The row type a sink writes: the persisted columns."""
        return self._row_type([c for c in self._columns if c.is_persisted()])

    @staticmethod
    def _row_type(columns: List[Column]) -> DataType:
        return DataTypes.ROW([DataTypes.FIELD(c.get_name(), c.get_data_type()) for c in columns], nullable=False)

    def __str__(self) -> str:
        lines = [c.as_summary_string() for c in self._columns] + [w.as_summary_string() for w in self._watermark_specs]
        if self._primary_key is not None:
            lines.append(self._primary_key.as_summary_string())
        return "(\n" + ",\n".join("  " + line for line in lines) + "\n)"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResolvedSchema) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
