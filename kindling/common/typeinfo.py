"""Flink's type information for Python values (their Spark SQL types: kindling/spark/type_mapping.py).

Time types follow PyFlink's internal representations: dates are days since the epoch,
times of day are microseconds since midnight, timestamps and instants are microseconds
since the epoch. ``SQL_TIME`` is stored in Spark as ``LongType`` (microseconds of the
day) because Spark's ``TimeType`` is not usable by default in Spark 4.x.
"""
import datetime
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, List, Optional, Tuple

from kindling.common.time import Instant
from kindling.common.unsupported import JVM_ONLY, unsupported

__all__ = [
    'TypeInformation', 'Types', 'BasicType', 'BasicTypeInfo', 'InstantTypeInfo', 'SqlTimeTypeInfo',
    'DateTypeInfo', 'TimeTypeInfo', 'TimestampTypeInfo', 'LocalTimeTypeInfo', 'PrimitiveArrayTypeInfo',
    'BasicArrayTypeInfo', 'ObjectArrayTypeInfo', 'ListTypeInfo', 'MapTypeInfo', 'PickledBytesTypeInfo',
    'RowTypeInfo', 'TupleTypeInfo',
]

_UTC = datetime.timezone.utc
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
_MICRO = datetime.timedelta(microseconds=1)


class TypeInformation(ABC):
    """The type of the values of a stream or of a field, e.g. ``Types.INT()``; it tells Kindling
    which Spark column type carries the values."""

    def need_conversion(self) -> bool:
        """Whether values differ between their Python and internal representations."""
        return False

    def to_internal_type(self, obj: Any) -> Any:
        """Converts a Python value into its internal representation."""
        return obj

    def from_internal_type(self, obj: Any) -> Any:
        """Converts an internal value back into its Python representation."""
        return obj

    @unsupported(f"{JVM_ONLY}; a TypeInformation maps to a Spark type instead (kindling.spark.type_mapping.spark_type_of)")
    def get_java_type_info(self): ...

    @abstractmethod
    def _key(self) -> Tuple:
        ...

    @abstractmethod
    def _expr(self) -> str:
        """The ``Types`` expression that builds this type, for messages."""

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other._key() == self._key()

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __str__(self) -> str:
        return self.__repr__()


class BasicType(Enum):
    STRING = "String"
    BYTE = "Byte"
    BOOLEAN = "Boolean"
    SHORT = "Short"
    INT = "Integer"
    LONG = "Long"
    FLOAT = "Float"
    DOUBLE = "Double"
    CHAR = "Char"
    BIG_INT = "BigInteger"
    BIG_DEC = "BigDecimal"
    INSTANT = "Instant"



class BasicTypeInfo(TypeInformation):
    """Type information for the basic types: strings, booleans, numbers, chars, big integers and
    big decimals."""

    def __init__(self, basic_type: BasicType) -> None:
        self._basic_type = basic_type

    @property
    def basic_type(self) -> BasicType:
        return self._basic_type

    def _key(self) -> Tuple:
        return (self._basic_type,)

    def _expr(self) -> str:
        return 'Types.%s()' % self._basic_type.name

    def __repr__(self) -> str:
        return self._basic_type.value

    @staticmethod
    def STRING_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.STRING)

    @staticmethod
    def BOOLEAN_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.BOOLEAN)

    @staticmethod
    def BYTE_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.BYTE)

    @staticmethod
    def SHORT_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.SHORT)

    @staticmethod
    def INT_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.INT)

    @staticmethod
    def LONG_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.LONG)

    @staticmethod
    def FLOAT_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.FLOAT)

    @staticmethod
    def DOUBLE_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.DOUBLE)

    @staticmethod
    def CHAR_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.CHAR)

    @staticmethod
    def BIG_INT_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.BIG_INT)

    @staticmethod
    def BIG_DEC_TYPE_INFO() -> 'BasicTypeInfo':
        return BasicTypeInfo(BasicType.BIG_DEC)

    @staticmethod
    def INSTANT_TYPE_INFO() -> 'InstantTypeInfo':
        return InstantTypeInfo()


class InstantTypeInfo(BasicTypeInfo):
    """Type information for :class:`~kindling.common.time.Instant`; internally microseconds since
    the epoch, a Spark ``TimestampType``."""

    def __init__(self) -> None:
        super().__init__(BasicType.INSTANT)

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, obj: Any) -> Optional[int]:
        if obj is None:
            return None
        if isinstance(obj, Instant):
            return obj.to_epoch_micro()
        if isinstance(obj, datetime.datetime):
            return _datetime_to_micros(obj)
        raise TypeError("expected Instant, got %s" % type(obj).__name__)

    def from_internal_type(self, obj: Any) -> Optional[Instant]:
        if obj is None:
            return None
        seconds, micros = divmod(obj, 1_000_000)
        return Instant(seconds, micros * 1_000)


def _datetime_to_micros(dt: datetime.datetime) -> int:
    """Microseconds since the epoch; a naive datetime is local time, as in PyFlink and PySpark."""
    return (dt.astimezone(_UTC) - _EPOCH) // _MICRO


def _micros_to_local_datetime(micros: int) -> datetime.datetime:
    return (_EPOCH + datetime.timedelta(microseconds=micros)).astimezone().replace(tzinfo=None)


class SqlTimeTypeInfo(TypeInformation, ABC):
    """Type information for SQL dates, times and timestamps (``datetime.date``, ``datetime.time``,
    ``datetime.datetime``)."""

    @staticmethod
    def DATE() -> 'DateTypeInfo':
        return DateTypeInfo()

    @staticmethod
    def TIME() -> 'TimeTypeInfo':
        return TimeTypeInfo()

    @staticmethod
    def TIMESTAMP() -> 'TimestampTypeInfo':
        return TimestampTypeInfo()

    def need_conversion(self) -> bool:
        return True

    def _key(self) -> Tuple:
        return ()


class DateTypeInfo(SqlTimeTypeInfo):
    """``datetime.date`` values; internally days since the epoch, a Spark ``DateType``."""

    def to_internal_type(self, d: Any) -> Optional[int]:
        if d is None:
            return None
        return d.toordinal() - _EPOCH_ORDINAL

    def from_internal_type(self, v: Any) -> Optional[datetime.date]:
        if v is None:
            return None
        return datetime.date.fromordinal(v + _EPOCH_ORDINAL)

    def _expr(self) -> str:
        return 'Types.SQL_DATE()'

    def __repr__(self) -> str:
        return 'SqlTimeTypeInfo(java.sql.Date)'


class TimeTypeInfo(SqlTimeTypeInfo):
    """``datetime.time`` values; internally microseconds since midnight, a Spark ``LongType``."""

    def to_internal_type(self, t: Any) -> Optional[int]:
        if t is None:
            return None
        return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond

    def from_internal_type(self, v: Any) -> Optional[datetime.time]:
        if v is None:
            return None
        seconds, micros = divmod(v, 1_000_000)
        minutes, s = divmod(seconds, 60)
        h, m = divmod(minutes, 60)
        return datetime.time(h, m, s, micros)

    def _expr(self) -> str:
        return 'Types.SQL_TIME()'

    def __repr__(self) -> str:
        return 'SqlTimeTypeInfo(java.sql.Time)'


class TimestampTypeInfo(SqlTimeTypeInfo):
    """``datetime.datetime`` values (naive ones are local time); internally microseconds since the
    epoch, a Spark ``TimestampType``."""

    def to_internal_type(self, dt: Any) -> Optional[int]:
        if dt is None:
            return None
        return _datetime_to_micros(dt)

    def from_internal_type(self, v: Any) -> Optional[datetime.datetime]:
        if v is None:
            return None
        return _micros_to_local_datetime(v)

    def _expr(self) -> str:
        return 'Types.SQL_TIMESTAMP()'

    def __repr__(self) -> str:
        return 'SqlTimeTypeInfo(java.sql.Timestamp)'


class LocalTimeTypeInfo(TypeInformation):
    """Type information for local (zone-less) dates, times and date-times."""

    class TimeType(Enum):
        LOCAL_DATE = "LocalDate"
        LOCAL_TIME = "LocalTime"
        LOCAL_DATE_TIME = "LocalDateTime"

    def __init__(self, time_type: 'LocalTimeTypeInfo.TimeType') -> None:
        self._time_type = time_type

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, obj: Any) -> Any:
        if obj is None:
            return None
        if self._time_type is self.TimeType.LOCAL_DATE:
            return DateTypeInfo().to_internal_type(obj)
        if self._time_type is self.TimeType.LOCAL_TIME:
            return TimeTypeInfo().to_internal_type(obj)
        return (obj.replace(tzinfo=_UTC) - _EPOCH) // _MICRO

    def from_internal_type(self, obj: Any) -> Any:
        if obj is None:
            return None
        if self._time_type is self.TimeType.LOCAL_DATE:
            return DateTypeInfo().from_internal_type(obj)
        if self._time_type is self.TimeType.LOCAL_TIME:
            return TimeTypeInfo().from_internal_type(obj)
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=obj)

    def _key(self) -> Tuple:
        return (self._time_type,)

    def _expr(self) -> str:
        return 'Types.%s()' % self._time_type.name

    def __repr__(self) -> str:
        return 'LocalTimeTypeInfo(%s)' % self._time_type.value


class _ElementTypeInfo(TypeInformation, ABC):
    _factory = ''

    def __init__(self, element_type: TypeInformation) -> None:
        if not isinstance(element_type, TypeInformation):
            raise TypeError("element type must be a TypeInformation, got %r" % (element_type,))
        self._element_type = element_type

    @property
    def element_type(self) -> TypeInformation:
        return self._element_type

    def get_element_type(self) -> TypeInformation:
        return self._element_type

    def need_conversion(self) -> bool:
        return self._element_type.need_conversion()

    def to_internal_type(self, obj: Any) -> Any:
        if obj is None or not self._element_type.need_conversion():
            return obj
        return [self._element_type.to_internal_type(v) for v in obj]

    def from_internal_type(self, obj: Any) -> Any:
        if obj is None or not self._element_type.need_conversion():
            return obj
        return [self._element_type.from_internal_type(v) for v in obj]

    def _key(self) -> Tuple:
        return (self._element_type,)

    def _expr(self) -> str:
        return 'Types.%s(%s)' % (self._factory, self._element_type._expr())

    def __repr__(self) -> str:
        return '%s<%r>' % (type(self).__name__, self._element_type)


class PrimitiveArrayTypeInfo(_ElementTypeInfo):
    """Arrays of a primitive type, e.g. ``Types.PRIMITIVE_ARRAY(Types.INT())``, as Python lists.
    An array of bytes is Python ``bytes`` and a Spark ``BinaryType``."""

    _factory = 'PRIMITIVE_ARRAY'


class BasicArrayTypeInfo(_ElementTypeInfo):
    """Arrays of a basic (boxed) type, e.g. ``Types.BASIC_ARRAY(Types.STRING())``, as Python lists."""

    _factory = 'BASIC_ARRAY'


class ObjectArrayTypeInfo(_ElementTypeInfo):
    """Arrays of any type, e.g. ``Types.OBJECT_ARRAY(Types.ROW(...))``, as Python lists."""

    _factory = 'OBJECT_ARRAY'


class ListTypeInfo(_ElementTypeInfo):
    """Lists of an element type, e.g. ``Types.LIST(Types.LONG())``."""

    _factory = 'LIST'


class MapTypeInfo(TypeInformation):
    """Dicts from a key type to a value type, e.g. ``Types.MAP(Types.STRING(), Types.INT())``."""

    def __init__(self, key_type_info: TypeInformation, value_type_info: TypeInformation) -> None:
        self._key_type_info = key_type_info
        self._value_type_info = value_type_info

    def get_key_type(self) -> TypeInformation:
        return self._key_type_info

    def get_value_type(self) -> TypeInformation:
        return self._value_type_info

    def need_conversion(self) -> bool:
        return self._key_type_info.need_conversion() or self._value_type_info.need_conversion()

    def to_internal_type(self, obj: Any) -> Any:
        if obj is None or not self.need_conversion():
            return obj
        k, v = self._key_type_info, self._value_type_info
        return {k.to_internal_type(a): v.to_internal_type(b) for a, b in obj.items()}

    def from_internal_type(self, obj: Any) -> Any:
        if obj is None or not self.need_conversion():
            return obj
        k, v = self._key_type_info, self._value_type_info
        return {k.from_internal_type(a): v.from_internal_type(b) for a, b in obj.items()}

    def _key(self) -> Tuple:
        return (self._key_type_info, self._value_type_info)

    def _expr(self) -> str:
        return 'Types.MAP(%s, %s)' % (self._key_type_info._expr(), self._value_type_info._expr())

    def __repr__(self) -> str:
        return 'MapTypeInfo<%r, %r>' % (self._key_type_info, self._value_type_info)


class PickledBytesTypeInfo(TypeInformation):
    """Any picklable Python value, carried as pickled bytes (a Spark ``BinaryType``)."""

    @staticmethod
    def PICKLED_BYTE_ARRAY_TYPE_INFO() -> 'PickledBytesTypeInfo':
        return PickledBytesTypeInfo()

    def _key(self) -> Tuple:
        return ()

    def _expr(self) -> str:
        return 'Types.PICKLED_BYTE_ARRAY()'

    def __repr__(self) -> str:
        return 'PickledByteArrayTypeInfo'


class RowTypeInfo(TypeInformation):
    """Type information for :class:`~kindling.common.types.Row`, with field types and names
    (``f0``, ``f1``, ... when none are given).

    Example: ``Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()])`` prints as
    ``RowTypeInfo(id: Integer, name: String)``.
    """

    def __init__(self, types: List[TypeInformation], field_names: Optional[List[str]] = None) -> None:
        types = list(types)
        for t in types:
            if not isinstance(t, TypeInformation):
                raise TypeError("field type must be a TypeInformation, got %r" % (t,))
        if field_names is None:
            self._named = False
            field_names = ['f%d' % i for i in range(len(types))]
        else:
            self._named = True
            field_names = list(field_names)
            if len(field_names) != len(types):
                raise ValueError("%d field names for %d field types" % (len(field_names), len(types)))
            if len(set(field_names)) != len(field_names):
                raise ValueError("duplicate field names in %r" % (field_names,))
        self._types = types
        self._field_names = field_names
        self._need_conversion = [t.need_conversion() for t in types]
        self._need_any = any(self._need_conversion)

    @property
    def is_named(self) -> bool:
        """Whether the field names were given (``ROW_NAMED``) rather than defaulted (``ROW``)."""
        return self._named

    def get_field_names(self) -> List[str]:
        return list(self._field_names)

    def get_field_types(self) -> List[TypeInformation]:
        return list(self._types)

    def get_field_index(self, field_name: str) -> int:
        try:
            return self._field_names.index(field_name)
        except ValueError:
            return -1

    def get_arity(self) -> int:
        return len(self._types)

    def need_conversion(self) -> bool:
        return True

    def _values_of(self, obj: Any) -> List[Any]:
        from kindling.common.types import Row
        if isinstance(obj, Row):
            fields = obj._fields
            if fields is not None and fields != self._field_names and set(self._field_names) <= set(fields):
                return obj.get_fields_by_names(self._field_names)
            return list(obj)
        if isinstance(obj, dict):
            return [obj.get(n) for n in self._field_names]
        if isinstance(obj, (tuple, list)):
            return list(obj)
        raise ValueError("Unexpected tuple %r with RowTypeInfo" % (obj,))

    def to_internal_type(self, obj: Any) -> Optional[tuple]:
        if obj is None:
            return None
        values = self._values_of(obj)
        if not self._need_any:
            return tuple(values)
        return tuple(t.to_internal_type(v) if c else v
                     for t, v, c in zip(self._types, values, self._need_conversion))

    def from_internal_type(self, obj: Any) -> Any:
        from kindling.common.types import Row
        if obj is None:
            return None
        if self._need_any:
            values = [t.from_internal_type(v) if c else v
                      for t, v, c in zip(self._types, obj, self._need_conversion)]
        else:
            values = list(obj)
        row = Row(*values)
        if self._named:
            row.set_field_names(list(self._field_names))
        return row

    def _key(self) -> Tuple:
        return (tuple(self._types), tuple(self._field_names))

    def _expr(self) -> str:
        types = ', '.join(t._expr() for t in self._types)
        if self._named:
            return 'Types.ROW_NAMED(%r, [%s])' % (self._field_names, types)
        return 'Types.ROW([%s])' % types

    def __repr__(self) -> str:
        return 'RowTypeInfo(%s)' % ', '.join('%s: %r' % (n, t)
                                             for n, t in zip(self._field_names, self._types))


class ChangelogRowTypeInfo(RowTypeInfo):
    """Rows that keep their :class:`RowKind` from one operator to the next: the changes of an
    updating table (``+I``, ``-U``, ``+U``, ``-D``). A plain RowTypeInfo's rows arrive as INSERTs."""

    def _expr(self) -> str:
        return 'ChangelogRowTypeInfo(%s)' % super()._expr()


class TupleTypeInfo(TypeInformation):
    """Type information for Python tuples of fixed arity; in Spark a struct with fields
    ``f0``, ``f1``, ...

    Example: ``Types.TUPLE([Types.STRING(), Types.LONG()])`` for values like ``('a', 1)``.
    """

    def __init__(self, types: List[TypeInformation]) -> None:
        types = list(types)
        for t in types:
            if not isinstance(t, TypeInformation):
                raise TypeError("field type must be a TypeInformation, got %r" % (t,))
        self._types = types
        self._need_conversion = [t.need_conversion() for t in types]
        self._need_any = any(self._need_conversion)

    def get_field_types(self) -> List[TypeInformation]:
        return list(self._types)

    def get_field_names(self) -> List[str]:
        return ['f%d' % i for i in range(len(self._types))]

    def get_arity(self) -> int:
        return len(self._types)

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, obj: Any) -> Optional[tuple]:
        if obj is None:
            return None
        if not self._need_any:
            return tuple(obj)
        return tuple(t.to_internal_type(v) if c else v
                     for t, v, c in zip(self._types, obj, self._need_conversion))

    def from_internal_type(self, obj: Any) -> Optional[tuple]:
        if obj is None:
            return None
        if not self._need_any:
            return tuple(obj)
        return tuple(t.from_internal_type(v) if c else v
                     for t, v, c in zip(self._types, obj, self._need_conversion))

    def _key(self) -> Tuple:
        return tuple(self._types)

    def _expr(self) -> str:
        return 'Types.TUPLE([%s])' % ', '.join(t._expr() for t in self._types)

    def __repr__(self) -> str:
        return 'TupleTypeInfo(%s)' % ', '.join(repr(t) for t in self._types)


class Types(object):
    """Factories for every :class:`TypeInformation`, as in PyFlink.

    Example: ``ds.map(f, output_type=Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()]))``.
    """

    @staticmethod
    def STRING() -> TypeInformation:
        return BasicTypeInfo(BasicType.STRING)

    @staticmethod
    def BYTE() -> TypeInformation:
        return BasicTypeInfo(BasicType.BYTE)

    @staticmethod
    def BOOLEAN() -> TypeInformation:
        return BasicTypeInfo(BasicType.BOOLEAN)

    @staticmethod
    def SHORT() -> TypeInformation:
        return BasicTypeInfo(BasicType.SHORT)

    @staticmethod
    def INT() -> TypeInformation:
        return BasicTypeInfo(BasicType.INT)

    @staticmethod
    def LONG() -> TypeInformation:
        return BasicTypeInfo(BasicType.LONG)

    @staticmethod
    def FLOAT() -> TypeInformation:
        return BasicTypeInfo(BasicType.FLOAT)

    @staticmethod
    def DOUBLE() -> TypeInformation:
        return BasicTypeInfo(BasicType.DOUBLE)

    @staticmethod
    def CHAR() -> TypeInformation:
        return BasicTypeInfo(BasicType.CHAR)

    @staticmethod
    def BIG_INT() -> TypeInformation:
        return BasicTypeInfo(BasicType.BIG_INT)

    @staticmethod
    def BIG_DEC() -> TypeInformation:
        return BasicTypeInfo(BasicType.BIG_DEC)

    @staticmethod
    def INSTANT() -> TypeInformation:
        return InstantTypeInfo()

    @staticmethod
    def SQL_DATE() -> TypeInformation:
        return DateTypeInfo()

    @staticmethod
    def SQL_TIME() -> TypeInformation:
        return TimeTypeInfo()

    @staticmethod
    def SQL_TIMESTAMP() -> TypeInformation:
        return TimestampTypeInfo()

    @staticmethod
    def LOCAL_DATE_TIME() -> TypeInformation:
        return LocalTimeTypeInfo(LocalTimeTypeInfo.TimeType.LOCAL_DATE_TIME)

    @staticmethod
    def PICKLED_BYTE_ARRAY() -> TypeInformation:
        return PickledBytesTypeInfo()

    @staticmethod
    def ROW(field_types: List[TypeInformation]) -> RowTypeInfo:
        return RowTypeInfo(field_types)

    @staticmethod
    def ROW_NAMED(field_names: List[str], field_types: List[TypeInformation]) -> RowTypeInfo:
        return RowTypeInfo(field_types, field_names)

    @staticmethod
    def TUPLE(field_types: List[TypeInformation]) -> TupleTypeInfo:
        return TupleTypeInfo(field_types)

    @staticmethod
    def PRIMITIVE_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return PrimitiveArrayTypeInfo(element_type)

    @staticmethod
    def BASIC_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return BasicArrayTypeInfo(element_type)

    @staticmethod
    def OBJECT_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return ObjectArrayTypeInfo(element_type)

    @staticmethod
    def LIST(element_type_info: TypeInformation) -> TypeInformation:
        return ListTypeInfo(element_type_info)

    @staticmethod
    def MAP(key_type_info: TypeInformation, value_type_info: TypeInformation) -> TypeInformation:
        return MapTypeInfo(key_type_info, value_type_info)
