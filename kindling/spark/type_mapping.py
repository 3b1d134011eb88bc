"""How a value of a declared TypeInformation maps to what Arrow and Spark hold, and back.

One value at a time: :func:`converter` checks a Python value against its type and gives what
``pa.array`` accepts for the type's Arrow type; :func:`decoder` turns what ``to_pylist`` gives
back into the Python value. :mod:`kindling.spark.codec` builds whole columns from these.

Values are checked with Python's notion of the type: ``bool`` is not accepted where a number
is declared, ``float`` not where an integer is, ``int`` is accepted where a float is,
``bytes`` not where a string is. Naive ``datetime`` values of ``SQL_TIMESTAMP`` are local time
(as in PyFlink and PySpark) and decode to naive local time; timestamps travel as Arrow
``timestamp[us, tz=UTC]``.
"""
import datetime
import decimal
import numbers
import pickle
from typing import Any, Callable, Optional, Sequence

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_type

from kindling.common.time import Instant
from kindling.common.typeinfo import (BasicType, BasicTypeInfo, DateTypeInfo, InstantTypeInfo,
                                      LocalTimeTypeInfo, MapTypeInfo, PickledBytesTypeInfo,
                                      PrimitiveArrayTypeInfo, RowTypeInfo, TimestampTypeInfo,
                                      TimeTypeInfo, TupleTypeInfo, TypeInformation, Types,
                                      _ElementTypeInfo)
from kindling.common.types import Row, _create_row

__all__ = ['ValueTypeError', 'BadValue', 'spark_type_of', 'arrow_type', 'ARROW_TIMEZONE', 'converter', 'decoder',
           'splitter']

ARROW_TIMEZONE = 'UTC'
_UTC = datetime.timezone.utc
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)
_MICRO = datetime.timedelta(microseconds=1)
PICKLE_PROTOCOL = 5
#: what pyarrow raises for a value that does not fit an Arrow type
ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError,
                TypeError, ValueError)


_BASIC_SPARK = {
    BasicType.STRING: st.StringType,
    BasicType.BYTE: st.ByteType,
    BasicType.BOOLEAN: st.BooleanType,
    BasicType.SHORT: st.ShortType,
    BasicType.INT: st.IntegerType,
    BasicType.LONG: st.LongType,
    BasicType.FLOAT: st.FloatType,
    BasicType.DOUBLE: st.DoubleType,
    BasicType.CHAR: st.StringType,
    BasicType.BIG_INT: lambda: st.DecimalType(38, 0),
    BasicType.BIG_DEC: lambda: st.DecimalType(38, 18),
    BasicType.INSTANT: st.TimestampType,
}


def spark_type_of(type_info: TypeInformation) -> st.DataType:
    """The Spark SQL type of a column holding values of ``type_info``."""
    ti = type_info
    if isinstance(ti, BasicTypeInfo):
        return _BASIC_SPARK[ti.basic_type]()
    if isinstance(ti, DateTypeInfo):
        return st.DateType()
    if isinstance(ti, TimeTypeInfo):
        return st.LongType()  # microseconds of the day: Spark's TimeType is not usable by default
    if isinstance(ti, TimestampTypeInfo):
        return st.TimestampType()
    if isinstance(ti, LocalTimeTypeInfo):
        if ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_DATE:
            return st.DateType()
        if ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_TIME:
            return st.LongType()
        return st.TimestampNTZType()
    if isinstance(ti, PrimitiveArrayTypeInfo):
        if ti.element_type == Types.BYTE():
            return st.BinaryType()
        return st.ArrayType(spark_type_of(ti.element_type), containsNull=False)
    if isinstance(ti, _ElementTypeInfo):
        return st.ArrayType(spark_type_of(ti.element_type), containsNull=True)
    if isinstance(ti, MapTypeInfo):
        return st.MapType(spark_type_of(ti.get_key_type()), spark_type_of(ti.get_value_type()), valueContainsNull=True)
    if isinstance(ti, PickledBytesTypeInfo):
        return st.BinaryType()
    if isinstance(ti, RowTypeInfo):
        return st.StructType([st.StructField(n, spark_type_of(t), True)
                              for n, t in zip(ti.get_field_names(), ti.get_field_types())])
    if isinstance(ti, TupleTypeInfo):
        return st.StructType([st.StructField('f%d' % i, spark_type_of(t), True)
                              for i, t in enumerate(ti.get_field_types())])
    raise TypeError(f"{type_expr(ti)} has no Spark SQL type")


def arrow_type(data_type: st.DataType) -> pa.DataType:
    """The Arrow type of a Spark type as Kindling's codecs produce it (timestamps in UTC)."""
    return to_arrow_type(data_type, timezone=ARROW_TIMEZONE)


def _short_repr(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def type_expr(type_info: Optional[TypeInformation]) -> str:
    return 'Types.PICKLED_BYTE_ARRAY()' if type_info is None else type_info._expr()


def _describe(value: Any, type_info: Optional[TypeInformation], noun: str = 'value') -> str:
    return '%s %s (%s) does not fit %s' % (noun, _short_repr(value), type(value).__name__,
                                           type_expr(type_info))


class ValueTypeError(TypeError):
    """A value does not fit the declared TypeInformation of a stream, e.g.
    ``value 'abc' (str) does not fit Types.INT()``."""

    def __init__(self, value: Any, type_info: Optional[TypeInformation], detail: Optional[str] = None) -> None:
        message = _describe(value, type_info)
        if detail:
            message += ': ' + detail
        super().__init__(message)
        self.value = value
        self.type_info = type_info


class BadValue(Exception):
    """Raised inside conversion for a value that does not fit its type; turned into a
    :class:`ValueTypeError` naming the whole element by the codec."""

    def __init__(self, value: Any, type_info: TypeInformation, detail: Optional[str] = None) -> None:
        self.value = value
        self.type_info = type_info
        self.detail = detail

    def message(self, noun: str = 'value') -> str:
        text = _describe(self.value, self.type_info, noun)
        return text + ': ' + self.detail if self.detail else text


def to_value_error(bad: BadValue, prefix: str = '') -> ValueTypeError:
    return ValueTypeError(bad.value, bad.type_info, (prefix + bad.detail) if bad.detail else None)


# ---- element converters: one Python value -> what pyarrow accepts for the Arrow type ----

INT_RANGES = {
    BasicType.BYTE: (-(1 << 7), (1 << 7) - 1),
    BasicType.SHORT: (-(1 << 15), (1 << 15) - 1),
    BasicType.INT: (-(1 << 31), (1 << 31) - 1),
    BasicType.LONG: (-(1 << 63), (1 << 63) - 1),
    BasicType.BIG_INT: (-(10 ** 38) + 1, 10 ** 38 - 1),
}
_DEC_QUANTUM = decimal.Decimal(1).scaleb(-18)
_DEC_CONTEXT = decimal.Context(prec=38)  # Spark's DecimalType(38, 18) holds at most 38 digits


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or (type(v).__module__ == 'numpy' and type(v).__name__ in ('bool_', 'bool'))


def pickle_value(v: Any) -> bytes:
    try:
        return pickle.dumps(v, protocol=PICKLE_PROTOCOL)
    except Exception:
        import cloudpickle
        return cloudpickle.dumps(v, protocol=PICKLE_PROTOCOL)


def unpickle_value(b: Optional[bytes]) -> Any:
    return None if b is None else pickle.loads(b)


def _to_aware_utc(v: Any, ti: TypeInformation) -> datetime.datetime:
    if not isinstance(v, datetime.datetime):
        raise BadValue(v, ti)
    return v.astimezone(_UTC)


def converter(ti: Optional[TypeInformation]) -> Callable[[Any], Any]:
    """A function taking a non-None value to what ``pa.array`` accepts for ti's Arrow type;
    it raises BadValue for a value that does not fit."""
    if ti is None or isinstance(ti, PickledBytesTypeInfo):
        return pickle_value
    if isinstance(ti, InstantTypeInfo):
        def conv_instant(v):
            if isinstance(v, Instant):
                return _EPOCH + datetime.timedelta(microseconds=v.to_epoch_micro())
            return _to_aware_utc(v, ti)
        return conv_instant
    if isinstance(ti, BasicTypeInfo):
        bt = ti.basic_type
        if bt in INT_RANGES:
            lo, hi = INT_RANGES[bt]

            def conv_int(v):
                if isinstance(v, numbers.Integral) and not _is_bool(v):
                    i = int(v)
                    if lo <= i <= hi:
                        return i
                    raise BadValue(v, ti, 'out of range')
                raise BadValue(v, ti)
            return conv_int
        if bt in (BasicType.FLOAT, BasicType.DOUBLE):
            def conv_float(v):
                if isinstance(v, numbers.Real) and not _is_bool(v):
                    return float(v)
                raise BadValue(v, ti)
            return conv_float
        if bt is BasicType.STRING:
            def conv_str(v):
                if isinstance(v, str):
                    return v
                raise BadValue(v, ti)
            return conv_str
        if bt is BasicType.CHAR:
            def conv_char(v):
                if isinstance(v, str) and len(v) == 1:
                    return v
                raise BadValue(v, ti)
            return conv_char
        if bt is BasicType.BOOLEAN:
            def conv_bool(v):
                if _is_bool(v):
                    return bool(v)
                raise BadValue(v, ti)
            return conv_bool
        if bt is BasicType.BIG_DEC:
            def conv_dec(v):
                if isinstance(v, decimal.Decimal):
                    if not v.is_finite():
                        raise BadValue(v, ti, 'not a finite number')
                    if v.as_tuple().exponent < -18:
                        v = v.quantize(_DEC_QUANTUM, rounding=decimal.ROUND_HALF_UP)
                    if v.adjusted() >= 20:
                        raise BadValue(v, ti, 'more than 20 integer digits')
                    return v
                if isinstance(v, numbers.Integral) and not _is_bool(v):
                    if abs(int(v)) >= 10 ** 20:
                        raise BadValue(v, ti, 'more than 20 integer digits')
                    return decimal.Decimal(int(v))
                raise BadValue(v, ti)
            return conv_dec
        raise TypeError('unsupported basic type %r' % ti)
    if isinstance(ti, DateTypeInfo) or (isinstance(ti, LocalTimeTypeInfo)
                                        and ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_DATE):
        def conv_date(v):
            if isinstance(v, datetime.date):
                return v
            raise BadValue(v, ti)
        return conv_date
    if isinstance(ti, TimeTypeInfo) or (isinstance(ti, LocalTimeTypeInfo)
                                        and ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_TIME):
        def conv_time(v):
            if isinstance(v, datetime.time):
                return ti.to_internal_type(v)
            raise BadValue(v, ti)
        return conv_time
    if isinstance(ti, TimestampTypeInfo):
        return lambda v: _to_aware_utc(v, ti)
    if isinstance(ti, LocalTimeTypeInfo):
        def conv_ldt(v):
            if isinstance(v, datetime.datetime):
                return v
            raise BadValue(v, ti)
        return conv_ldt
    if isinstance(ti, PrimitiveArrayTypeInfo) and ti.element_type == Types.BYTE():
        def conv_bytes(v):
            if isinstance(v, (bytes, bytearray, memoryview)):
                return bytes(v)
            raise BadValue(v, ti)
        return conv_bytes
    if isinstance(ti, _ElementTypeInfo):
        elem = ti.element_type
        ce = converter(elem)
        nullable = not isinstance(ti, PrimitiveArrayTypeInfo)

        def conv_list(v):
            if isinstance(v, (str, bytes, bytearray, dict)) or not hasattr(v, '__iter__'):
                raise BadValue(v, ti)
            out = []
            for e in v:
                if e is None:
                    if not nullable:
                        raise BadValue(v, ti, 'primitive array element is None')
                    out.append(None)
                    continue
                try:
                    out.append(ce(e))
                except BadValue as bad:
                    raise BadValue(v, ti, bad.message('element'))
            return out
        return conv_list
    if isinstance(ti, MapTypeInfo):
        ck = converter(ti.get_key_type())
        cv = converter(ti.get_value_type())

        def conv_map(v):
            if not hasattr(v, 'items'):
                raise BadValue(v, ti)
            out = []
            for k, x in v.items():
                if k is None:
                    raise BadValue(v, ti, 'map key is None')
                try:
                    out.append((ck(k), None if x is None else cv(x)))
                except BadValue as bad:
                    raise BadValue(v, ti, bad.message('key' if bad.value is k else 'map value'))
            return out
        return conv_map
    if isinstance(ti, (RowTypeInfo, TupleTypeInfo)):
        split = splitter(ti)
        names = ti.get_field_names()
        convs = [converter(t) for t in ti.get_field_types()]

        def conv_row(v):
            values = split(v)
            out = []
            for name, c, x in zip(names, convs, values):
                if x is None:
                    out.append(None)
                    continue
                try:
                    out.append(c(x))
                except BadValue as bad:
                    raise BadValue(v, ti, bad.message('field %s' % name))
            return tuple(out)
        return conv_row
    raise TypeError('Kindling cannot store values of %r in Spark columns' % (ti,))


def splitter(ti: TypeInformation) -> Callable[[Any], Sequence[Any]]:
    """A function taking a row-like value to the sequence of its field values, checking arity."""
    names = ti.get_field_names()
    arity = len(names)
    name_set = set(names)
    by_name = isinstance(ti, RowTypeInfo)

    def split(v):
        if isinstance(v, Row):
            values = v._values
            fields = v._fields
            if by_name and fields is not None and fields != names and name_set <= set(fields):
                return v.get_fields_by_names(names)
        elif isinstance(v, (tuple, list)):
            values = v
        elif by_name and isinstance(v, dict):
            missing = name_set - set(v)
            if missing:
                raise BadValue(v, ti, 'missing fields %s' % sorted(missing))
            return [v[n] for n in names]
        else:
            raise BadValue(v, ti)
        if len(values) != arity:
            raise BadValue(v, ti, '%d fields, expected %d' % (len(values), arity))
        return values
    return split


# ---- element decoders: what ``to_pylist`` gives -> the Python value; None = identity ----

def _dec_big_dec(v: decimal.Decimal) -> decimal.Decimal:
    """Drops the zeros Spark's fixed scale of 18 appends (``3.000000000000000000`` -> ``3``,
    ``2.500000000000000000`` -> ``2.5``), so a BIG_DEC reads as the Decimal a user wrote."""
    if v == v.to_integral_value():
        return decimal.Decimal(int(v))
    return v.normalize(_DEC_CONTEXT)


def decoder(ti: Optional[TypeInformation]) -> Optional[Callable[[Any], Any]]:
    if ti is None or isinstance(ti, PickledBytesTypeInfo):
        return pickle.loads
    if isinstance(ti, InstantTypeInfo):
        def dec_instant(v):
            micros = (v - _EPOCH) // _MICRO if v.tzinfo is not None else \
                (v.replace(tzinfo=_UTC) - _EPOCH) // _MICRO
            seconds, rest = divmod(micros, 1_000_000)
            return Instant(seconds, rest * 1000)
        return dec_instant
    if isinstance(ti, BasicTypeInfo):
        if ti.basic_type is BasicType.BIG_INT:
            return int
        if ti.basic_type is BasicType.BIG_DEC:
            return _dec_big_dec
        return None
    if isinstance(ti, (TimeTypeInfo, LocalTimeTypeInfo)) and spark_type_of(ti) == st.LongType():
        return ti.from_internal_type
    if isinstance(ti, TimestampTypeInfo):
        def dec_ts(v):
            if v.tzinfo is None:
                v = v.replace(tzinfo=_UTC)
            return v.astimezone().replace(tzinfo=None)
        return dec_ts
    if isinstance(ti, _ElementTypeInfo):
        de = decoder(ti.element_type)
        if de is None:
            return None
        return lambda v: [None if e is None else de(e) for e in v]
    if isinstance(ti, MapTypeInfo):
        dk = decoder(ti.get_key_type()) or (lambda k: k)
        dv = decoder(ti.get_value_type()) or (lambda x: x)

        def dec_map(v):
            items = v.items() if isinstance(v, dict) else v
            return {dk(k): None if x is None else dv(x) for k, x in items}
        return dec_map
    if isinstance(ti, (RowTypeInfo, TupleTypeInfo)):
        names = ti.get_field_names()
        decs = [decoder(t) for t in ti.get_field_types()]

        def fields_of(v):
            values = [v.get(n) for n in names] if isinstance(v, dict) else list(v)
            return [x if d is None or x is None else d(x) for d, x in zip(decs, values)]
        if isinstance(ti, TupleTypeInfo):
            return lambda v: tuple(fields_of(v))
        return lambda v: _create_row(names, fields_of(v))  # f0, f1, ... when none were declared, as Flink
    return None
