"""``pyflink.table.types``: the SQL data types of table columns (``DataTypes.INT()``), each
knowing the DataStream ``TypeInformation`` its values travel as.

Example::

    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('name', DataTypes.STRING())])
"""
from __future__ import annotations

import functools
import re
from typing import List, Optional

from kindling.common.typeinfo import TypeInformation, Types
from kindling.common.types import Row, RowKind  # noqa: F401  (pyflink.table.types has them too)
from kindling.common.unsupported import unsupported

__all__ = ["ArrayType", "DataType", "DataTypes", "MapType", "Row", "RowField", "RowKind", "RowType"]


class DataType:
    """A SQL type: its Flink name (``INT``, ``VARCHAR(10)``), nullability, and the
    TypeInformation of its values in a DataStream."""

    def __init__(self, name: str, type_info: TypeInformation, nullable: bool = True):
        self._name = name
        self._type_info = type_info
        self._nullable = nullable

    def not_null(self) -> "DataType":
        """The same type, without NULL."""
        return self._with_nullable(False)

    def nullable(self) -> "DataType":
        """The same type, with NULL."""
        return self._with_nullable(True)

    def _with_nullable(self, nullable: bool) -> "DataType":
        import copy

        typed = copy.copy(self)
        typed._nullable = nullable
        return typed

    def type_info(self) -> TypeInformation:
        """The TypeInformation its values have in a DataStream (Kindling's bridge to Spark columns)."""
        return self._type_info

    @functools.cached_property  # read per row by casts: split once per type
    def type_name(self) -> str:
        """The name without length or precision (``VARCHAR`` for ``VARCHAR(10)``)."""
        return re.split(r"[(<]", self._name, maxsplit=1)[0]

    @property
    def precision(self) -> Optional[int]:
        """The precision of a DECIMAL or TIMESTAMP (None for other types)."""
        if self.type_name not in ("DECIMAL", "TIMESTAMP", "TIMESTAMP_LTZ"):
            return None
        return int(self._name.split("(", 1)[1].split(",")[0].rstrip(")"))

    @functools.cached_property
    def scale(self) -> Optional[int]:
        """The scale of a DECIMAL (None for other types)."""
        return int(self._name.split(",")[1].strip(" )")) if self.type_name == "DECIMAL" else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataType) and (self._name, self._nullable) == (other._name, other._nullable)

    def __hash__(self) -> int:
        return hash((self._name, self._nullable))

    def __repr__(self) -> str:
        return self._name + ("" if self._nullable else " NOT NULL")


class RowField:
    """A named field of a ROW type."""

    def __init__(self, name: str, data_type: DataType, description: Optional[str] = None):
        self.name = name
        self.data_type = data_type
        self.description = description

    def __repr__(self) -> str:
        return f"`{self.name}` {self.data_type!r}"


class RowType(DataType):
    """A ROW of named fields."""

    def __init__(self, fields: List[RowField], nullable: bool = True):
        self.fields = list(fields)
        names = [f.name for f in self.fields]
        super().__init__("ROW<" + ", ".join(map(repr, self.fields)) + ">",
                         Types.ROW_NAMED(names, [f.data_type.type_info() for f in self.fields]), nullable)

    def field_names(self) -> List[str]:
        return [f.name for f in self.fields]

    def field_types(self) -> List[DataType]:
        return [f.data_type for f in self.fields]


class ArrayType(DataType):
    """An ARRAY of elements of one type: Python lists."""

    def __init__(self, element_type: DataType, nullable: bool = True):
        self.element_type = element_type
        super().__init__(f"ARRAY<{element_type!r}>", Types.OBJECT_ARRAY(element_type.type_info()), nullable)


class MapType(DataType):
    """A MAP from keys of one type to values of another: Python dicts."""

    def __init__(self, key_type: DataType, value_type: DataType, nullable: bool = True):
        self.key_type, self.value_type = key_type, value_type
        super().__init__(f"MAP<{key_type!r}, {value_type!r}>", Types.MAP(key_type.type_info(), value_type.type_info()),
                         nullable)


_INTERVALS = "INTERVAL column types are not there; intervals are expressions (lit(5).seconds, INTERVAL '5' SECOND)"

#: Java's String length limit, Flink's VARCHAR length of STRING
MAX_LENGTH = 2147483647


class DataTypes:
    """The SQL types, as in PyFlink (``DataTypes.STRING()``, ``DataTypes.DECIMAL(10, 2)``)."""

    @staticmethod
    def BOOLEAN(nullable: bool = True) -> DataType:
        return DataType("BOOLEAN", Types.BOOLEAN(), nullable)

    @staticmethod
    def TINYINT(nullable: bool = True) -> DataType:
        return DataType("TINYINT", Types.BYTE(), nullable)

    @staticmethod
    def SMALLINT(nullable: bool = True) -> DataType:
        return DataType("SMALLINT", Types.SHORT(), nullable)

    @staticmethod
    def INT(nullable: bool = True) -> DataType:
        return DataType("INT", Types.INT(), nullable)

    @staticmethod
    def BIGINT(nullable: bool = True) -> DataType:
        return DataType("BIGINT", Types.LONG(), nullable)

    @staticmethod
    def FLOAT(nullable: bool = True) -> DataType:
        return DataType("FLOAT", Types.FLOAT(), nullable)

    @staticmethod
    def DOUBLE(nullable: bool = True) -> DataType:
        return DataType("DOUBLE", Types.DOUBLE(), nullable)

    @staticmethod
    def DECIMAL(precision: int, scale: int, nullable: bool = True) -> DataType:
        return DataType(f"DECIMAL({precision}, {scale})", Types.BIG_DEC(), nullable)

    @staticmethod
    def CHAR(length: int, nullable: bool = True) -> DataType:
        return DataType(f"CHAR({length})", Types.STRING(), nullable)

    @staticmethod
    def VARCHAR(length: int, nullable: bool = True) -> DataType:
        return DataType("STRING" if length == MAX_LENGTH else f"VARCHAR({length})", Types.STRING(), nullable)

    @staticmethod
    def STRING(nullable: bool = True) -> DataType:
        return DataType("STRING", Types.STRING(), nullable)

    @staticmethod
    def BYTES(nullable: bool = True) -> DataType:
        return DataType("BYTES", Types.PRIMITIVE_ARRAY(Types.BYTE()), nullable)

    @staticmethod
    def BINARY(length: int, nullable: bool = True) -> DataType:
        """Bytes of a fixed length (Python ``bytes``)."""
        return DataType(f"BINARY({length})", Types.PRIMITIVE_ARRAY(Types.BYTE()), nullable)

    @staticmethod
    def VARBINARY(length: int, nullable: bool = True) -> DataType:
        """Bytes of at most ``length`` (Python ``bytes``)."""
        return DataType("BYTES" if length == MAX_LENGTH else f"VARBINARY({length})",
                        Types.PRIMITIVE_ARRAY(Types.BYTE()), nullable)

    @staticmethod
    def TIME(precision: int = 0, nullable: bool = True) -> DataType:
        """A time of day (``datetime.time``)."""
        return DataType(f"TIME({precision})", Types.SQL_TIME(), nullable)

    @staticmethod
    @unsupported("the MULTISET type is not there; use ARRAY")
    def MULTISET(element_type: DataType, nullable: bool = True) -> DataType: ...

    @staticmethod
    @unsupported(_INTERVALS)
    def INTERVAL(upper_resolution, lower_resolution=None) -> DataType: ...

    @staticmethod
    @unsupported(_INTERVALS)
    def YEAR(precision: int = 2): ...

    @staticmethod
    @unsupported(_INTERVALS)
    def MONTH(): ...

    @staticmethod
    @unsupported(_INTERVALS)
    def DAY(precision: int = 2): ...

    @staticmethod
    @unsupported(_INTERVALS)
    def HOUR(): ...

    @staticmethod
    @unsupported(_INTERVALS)
    def MINUTE(): ...

    @staticmethod
    @unsupported(_INTERVALS)
    def SECOND(precision: int = 6): ...

    @staticmethod
    def NULL() -> DataType:
        """The type of an untyped NULL."""
        return DataType("NULL", Types.PICKLED_BYTE_ARRAY(), True)

    @staticmethod
    def LIST_VIEW(element_type: DataType) -> DataType:
        """An accumulator's ListView field (kept pickled in the accumulator)."""
        return DataType(f"LIST_VIEW<{element_type!r}>", Types.PICKLED_BYTE_ARRAY())

    @staticmethod
    def MAP_VIEW(key_type: DataType, value_type: DataType) -> DataType:
        """An accumulator's MapView field (kept pickled in the accumulator)."""
        return DataType(f"MAP_VIEW<{key_type!r}, {value_type!r}>", Types.PICKLED_BYTE_ARRAY())

    @staticmethod
    def ARRAY(element_type: DataType, nullable: bool = True) -> ArrayType:
        """An array of ``element_type`` values (Python lists)."""
        return ArrayType(element_type, nullable)

    @staticmethod
    def MAP(key_type: DataType, value_type: DataType, nullable: bool = True) -> MapType:
        """A map of ``key_type`` to ``value_type`` (Python dicts)."""
        return MapType(key_type, value_type, nullable)

    @staticmethod
    def DATE(nullable: bool = True) -> DataType:
        return DataType("DATE", Types.SQL_DATE(), nullable)

    @staticmethod
    def TIMESTAMP(precision: int = 6, nullable: bool = True) -> DataType:
        return DataType(f"TIMESTAMP({precision})", Types.SQL_TIMESTAMP(), nullable)

    @staticmethod
    def TIMESTAMP_LTZ(precision: int = 6, nullable: bool = True) -> DataType:
        """A point in time (TIMESTAMP WITH LOCAL TIME ZONE): an Instant in a DataStream."""
        return DataType(f"TIMESTAMP_LTZ({precision})", Types.INSTANT(), nullable)

    TIMESTAMP_WITH_LOCAL_TIME_ZONE = TIMESTAMP_LTZ

    @staticmethod
    def FIELD(name: str, data_type: DataType, description: Optional[str] = None) -> RowField:
        return RowField(name, data_type, description)

    @staticmethod
    def ROW(row_fields: List[RowField] = (), nullable: bool = True) -> RowType:
        return RowType(list(row_fields), nullable)



def as_data_type(value, what: str) -> DataType:
    """``value`` as a DataType: a DataType as it is, a type string (``'TIMESTAMP_LTZ(3)'``) parsed as
    Flink SQL's, as PyFlink takes either; ``what`` names the argument in the error."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        import sqlglot.expressions as exp

        from kindling.table.ddl import data_type  # ddl reads SQL, which builds on these types

        return data_type(exp.DataType.build(value))
    raise ValueError(f"{what} must be a DataType (DataTypes.STRING()) or a type string ('STRING'), got {value!r}")

from kindling.common.unsupported import missing_names  # noqa: E402

__getattr__ = missing_names(__name__, {
    "UserDefinedType": "user-defined (class-backed) types are not there; use ROW",
    **{name: "it is PyFlink's Arrow transfer to its JVM; JVM-only" for name in (
        "create_arrow_schema", "from_arrow_type", "to_arrow_type")}})
