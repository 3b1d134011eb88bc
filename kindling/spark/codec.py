"""The physical layout of a stream's values as Spark columns and Arrow arrays.

A stream without a type (or with ``Types.PICKLED_BYTE_ARRAY()``) is one ``binary`` column
``f0`` of pickled values. ``Types.ROW_NAMED`` is one column per field, named after the
fields; ``Types.ROW`` and ``Types.TUPLE`` are columns ``f0``, ``f1``, ...; any other type is
one column ``f0`` of that type's Spark type.

Encoding checks values against the declared type with Python's notion of the type: ``bool``
is not accepted where a number is declared, ``float`` not where an integer is, ``int`` is
accepted where a float is, ``bytes`` not where a string is. Naive ``datetime`` values of
``SQL_TIMESTAMP`` are local time (as in PyFlink and PySpark) and decode to naive local time;
timestamps travel as Arrow ``timestamp[us, tz=UTC]``.
"""
import datetime
import decimal
import numbers
import pickle
from itertools import chain, repeat
from operator import attrgetter, eq, itemgetter
from typing import Any, Callable, List, Optional, Sequence

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_type

from kindling.common.time import Instant
from kindling.common.typeinfo import (BasicType, BasicTypeInfo, DateTypeInfo, InstantTypeInfo,
                                      LocalTimeTypeInfo, MapTypeInfo, PickledBytesTypeInfo,
                                      PrimitiveArrayTypeInfo, RowTypeInfo, TimestampTypeInfo,
                                      TimeTypeInfo, TupleTypeInfo, TypeInformation, Types,
                                      _ElementTypeInfo)
from kindling.common.types import Row, _create_row, _rows_from_lists

__all__ = ['Codec', 'codec_for', 'ValueTypeError', 'arrow_type', 'ARROW_TIMEZONE']

ARROW_TIMEZONE = 'UTC'
_UTC = datetime.timezone.utc
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)
_MICRO = datetime.timedelta(microseconds=1)
_PICKLE_PROTOCOL = 5
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError,
                 TypeError, ValueError)


def arrow_type(spark_type: st.DataType) -> pa.DataType:
    """The Arrow type of a Spark type as Kindling's codecs produce it (timestamps in UTC)."""
    return to_arrow_type(spark_type, timezone=ARROW_TIMEZONE)


def _short_repr(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _expr(type_info: Optional[TypeInformation]) -> str:
    return 'Types.PICKLED_BYTE_ARRAY()' if type_info is None else type_info._expr()


def _describe(value: Any, type_info: Optional[TypeInformation], noun: str = 'value') -> str:
    return '%s %s (%s) does not fit %s' % (noun, _short_repr(value), type(value).__name__,
                                           _expr(type_info))


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


class _Bad(Exception):
    def __init__(self, value: Any, type_info: TypeInformation, detail: Optional[str] = None) -> None:
        self.value = value
        self.type_info = type_info
        self.detail = detail

    def message(self, noun: str = 'value') -> str:
        text = _describe(self.value, self.type_info, noun)
        return text + ': ' + self.detail if self.detail else text


def _to_value_error(bad: _Bad, prefix: str = '') -> ValueTypeError:
    return ValueTypeError(bad.value, bad.type_info, (prefix + bad.detail) if bad.detail else None)


# ---- element converters: one Python value -> what pyarrow accepts for the Arrow type ----

_INT_RANGES = {
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


def _pickle(v: Any) -> bytes:
    try:
        return pickle.dumps(v, protocol=_PICKLE_PROTOCOL)
    except Exception:
        import cloudpickle
        return cloudpickle.dumps(v, protocol=_PICKLE_PROTOCOL)


def _unpickle(b: Optional[bytes]) -> Any:
    return None if b is None else pickle.loads(b)


def _to_aware_utc(v: Any, ti: TypeInformation) -> datetime.datetime:
    if not isinstance(v, datetime.datetime):
        raise _Bad(v, ti)
    return v.astimezone(_UTC)


def _converter(ti: Optional[TypeInformation]) -> Callable[[Any], Any]:
    """A function taking a non-None value to what ``pa.array`` accepts for ti's Arrow type;
    it raises _Bad for a value that does not fit."""
    if ti is None or isinstance(ti, PickledBytesTypeInfo):
        return _pickle
    if isinstance(ti, InstantTypeInfo):
        def conv_instant(v):
            if isinstance(v, Instant):
                return _EPOCH + datetime.timedelta(microseconds=v.to_epoch_micro())
            return _to_aware_utc(v, ti)
        return conv_instant
    if isinstance(ti, BasicTypeInfo):
        bt = ti.basic_type
        if bt in _INT_RANGES:
            lo, hi = _INT_RANGES[bt]

            def conv_int(v):
                if isinstance(v, numbers.Integral) and not _is_bool(v):
                    i = int(v)
                    if lo <= i <= hi:
                        return i
                    raise _Bad(v, ti, 'out of range')
                raise _Bad(v, ti)
            return conv_int
        if bt in (BasicType.FLOAT, BasicType.DOUBLE):
            def conv_float(v):
                if isinstance(v, numbers.Real) and not _is_bool(v):
                    return float(v)
                raise _Bad(v, ti)
            return conv_float
        if bt is BasicType.STRING:
            def conv_str(v):
                if isinstance(v, str):
                    return v
                raise _Bad(v, ti)
            return conv_str
        if bt is BasicType.CHAR:
            def conv_char(v):
                if isinstance(v, str) and len(v) == 1:
                    return v
                raise _Bad(v, ti)
            return conv_char
        if bt is BasicType.BOOLEAN:
            def conv_bool(v):
                if _is_bool(v):
                    return bool(v)
                raise _Bad(v, ti)
            return conv_bool
        if bt is BasicType.BIG_DEC:
            def conv_dec(v):
                if isinstance(v, decimal.Decimal):
                    if not v.is_finite():
                        raise _Bad(v, ti, 'not a finite number')
                    if v.as_tuple().exponent < -18:
                        v = v.quantize(_DEC_QUANTUM, rounding=decimal.ROUND_HALF_UP)
                    if v.adjusted() >= 20:
                        raise _Bad(v, ti, 'more than 20 integer digits')
                    return v
                if isinstance(v, numbers.Integral) and not _is_bool(v):
                    if abs(int(v)) >= 10 ** 20:
                        raise _Bad(v, ti, 'more than 20 integer digits')
                    return decimal.Decimal(int(v))
                raise _Bad(v, ti)
            return conv_dec
        raise TypeError('unsupported basic type %r' % ti)
    if isinstance(ti, DateTypeInfo) or (isinstance(ti, LocalTimeTypeInfo)
                                        and ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_DATE):
        def conv_date(v):
            if isinstance(v, datetime.date):
                return v
            raise _Bad(v, ti)
        return conv_date
    if isinstance(ti, TimeTypeInfo) or (isinstance(ti, LocalTimeTypeInfo)
                                        and ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_TIME):
        def conv_time(v):
            if isinstance(v, datetime.time):
                return ti.to_internal_type(v)
            raise _Bad(v, ti)
        return conv_time
    if isinstance(ti, TimestampTypeInfo):
        return lambda v: _to_aware_utc(v, ti)
    if isinstance(ti, LocalTimeTypeInfo):
        def conv_ldt(v):
            if isinstance(v, datetime.datetime):
                return v
            raise _Bad(v, ti)
        return conv_ldt
    if isinstance(ti, PrimitiveArrayTypeInfo) and ti.element_type == Types.BYTE():
        def conv_bytes(v):
            if isinstance(v, (bytes, bytearray, memoryview)):
                return bytes(v)
            raise _Bad(v, ti)
        return conv_bytes
    if isinstance(ti, _ElementTypeInfo):
        elem = ti.element_type
        ce = _converter(elem)
        nullable = not isinstance(ti, PrimitiveArrayTypeInfo)

        def conv_list(v):
            if isinstance(v, (str, bytes, bytearray, dict)) or not hasattr(v, '__iter__'):
                raise _Bad(v, ti)
            out = []
            for e in v:
                if e is None:
                    if not nullable:
                        raise _Bad(v, ti, 'primitive array element is None')
                    out.append(None)
                    continue
                try:
                    out.append(ce(e))
                except _Bad as bad:
                    raise _Bad(v, ti, bad.message('element'))
            return out
        return conv_list
    if isinstance(ti, MapTypeInfo):
        ck = _converter(ti.get_key_type())
        cv = _converter(ti.get_value_type())

        def conv_map(v):
            if not hasattr(v, 'items'):
                raise _Bad(v, ti)
            out = []
            for k, x in v.items():
                if k is None:
                    raise _Bad(v, ti, 'map key is None')
                try:
                    out.append((ck(k), None if x is None else cv(x)))
                except _Bad as bad:
                    raise _Bad(v, ti, bad.message('key' if bad.value is k else 'map value'))
            return out
        return conv_map
    if isinstance(ti, (RowTypeInfo, TupleTypeInfo)):
        split = _splitter(ti)
        names = ti.get_field_names()
        convs = [_converter(t) for t in ti.get_field_types()]

        def conv_row(v):
            values = split(v)
            out = []
            for name, c, x in zip(names, convs, values):
                if x is None:
                    out.append(None)
                    continue
                try:
                    out.append(c(x))
                except _Bad as bad:
                    raise _Bad(v, ti, bad.message('field %s' % name))
            return tuple(out)
        return conv_row
    raise TypeError('Kindling cannot store values of %r in Spark columns' % (ti,))


def _splitter(ti: TypeInformation) -> Callable[[Any], Sequence[Any]]:
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
                raise _Bad(v, ti, 'missing fields %s' % sorted(missing))
            return [v[n] for n in names]
        else:
            raise _Bad(v, ti)
        if len(values) != arity:
            raise _Bad(v, ti, '%d fields, expected %d' % (len(values), arity))
        return values
    return split


# ---- element decoders: what ``to_pylist`` gives -> the Python value; None = identity ----

def _dec_big_dec(v: decimal.Decimal) -> decimal.Decimal:
    """Drops the zeros Spark's fixed scale of 18 appends (``3.000000000000000000`` -> ``3``,
    ``2.500000000000000000`` -> ``2.5``), so a BIG_DEC reads as the Decimal a user wrote."""
    if v == v.to_integral_value():
        return decimal.Decimal(int(v))
    return v.normalize(_DEC_CONTEXT)


def _decoder(ti: Optional[TypeInformation]) -> Optional[Callable[[Any], Any]]:
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
    if isinstance(ti, (TimeTypeInfo, LocalTimeTypeInfo)) and ti.to_spark_type() == st.LongType():
        return ti.from_internal_type
    if isinstance(ti, TimestampTypeInfo):
        def dec_ts(v):
            if v.tzinfo is None:
                v = v.replace(tzinfo=_UTC)
            return v.astimezone().replace(tzinfo=None)
        return dec_ts
    if isinstance(ti, _ElementTypeInfo):
        de = _decoder(ti.element_type)
        if de is None:
            return None
        return lambda v: [None if e is None else de(e) for e in v]
    if isinstance(ti, MapTypeInfo):
        dk = _decoder(ti.get_key_type()) or (lambda k: k)
        dv = _decoder(ti.get_value_type()) or (lambda x: x)

        def dec_map(v):
            items = v.items() if isinstance(v, dict) else v
            return {dk(k): None if x is None else dv(x) for k, x in items}
        return dec_map
    if isinstance(ti, (RowTypeInfo, TupleTypeInfo)):
        names = ti.get_field_names()
        decs = [_decoder(t) for t in ti.get_field_types()]

        def fields_of(v):
            values = [v.get(n) for n in names] if isinstance(v, dict) else list(v)
            return [x if d is None or x is None else d(x) for d, x in zip(decs, values)]
        if isinstance(ti, TupleTypeInfo):
            return lambda v: tuple(fields_of(v))
        row_names = names if ti.is_named else None
        return lambda v: _create_row(row_names, fields_of(v))
    return None


# ---- column encoders: a list of Python values -> one Arrow array ----

def _scan(values: Sequence[Any], ti: TypeInformation, conv: Callable[[Any], Any], at: pa.DataType,
          cause: Optional[BaseException]) -> _Bad:
    for v in values:
        if v is None:
            continue
        try:
            pa.array([conv(v)], type=at)
        except _Bad as bad:
            return bad
        except _ARROW_ERRORS as e:
            return _Bad(v, ti, str(e))
    return _Bad(values, ti, 'Arrow rejected the batch: %s' % cause)


_NONE_TYPE = type(None)


def _fast_types(ti: TypeInformation) -> Optional[frozenset]:
    """The exact Python types that ``pa.array`` takes as they are for ti (None: no fast path)."""
    if isinstance(ti, InstantTypeInfo):
        return None
    if isinstance(ti, BasicTypeInfo):
        bt = ti.basic_type
        if bt in _INT_RANGES:
            return frozenset([int])
        if bt in (BasicType.FLOAT, BasicType.DOUBLE):
            return frozenset([int, float])
        if bt is BasicType.STRING:
            return frozenset([str])
        if bt is BasicType.BOOLEAN:
            return frozenset([bool])
        if bt is BasicType.BIG_DEC:
            return frozenset([decimal.Decimal])
        return None
    if isinstance(ti, DateTypeInfo):
        return frozenset([datetime.date])
    if isinstance(ti, LocalTimeTypeInfo) and ti._time_type is LocalTimeTypeInfo.TimeType.LOCAL_DATE_TIME:
        return frozenset([datetime.datetime])
    if isinstance(ti, PrimitiveArrayTypeInfo) and ti.element_type == Types.BYTE():
        return frozenset([bytes])
    return None


def _column_encoder(ti: TypeInformation) -> Callable[[Sequence[Any]], pa.Array]:
    """A function encoding a list of values (None allowed) of type ti into one Arrow array;
    it raises _Bad for the first value that does not fit.

    When every value's exact type is one pyarrow takes as it is, the list goes to
    ``pa.array`` in one call; otherwise (or when Arrow refuses) each value is checked and
    converted in Python first."""
    at = arrow_type(ti.to_spark_type())
    conv = _converter(ti)
    fast = _fast_types(ti)
    elem_fast = None
    if fast is None and isinstance(ti, _ElementTypeInfo):
        elem_fast = _fast_types(ti.element_type)
        if elem_fast is not None and not isinstance(ti, PrimitiveArrayTypeInfo):
            elem_fast = elem_fast | {_NONE_TYPE}
    if fast is not None:
        fast = fast | {_NONE_TYPE}

    def encode(values):
        if fast is not None:
            if set(map(type, values)) <= fast:
                try:
                    return pa.array(values, type=at)
                except _ARROW_ERRORS:
                    pass
        elif elem_fast is not None:
            outer = set(map(type, values))
            if outer <= _LIST_TYPES:
                present = [v for v in values if v is not None] if _NONE_TYPE in outer else values
                if set(map(type, chain.from_iterable(present))) <= elem_fast:
                    try:
                        return pa.array(values, type=at)
                    except _ARROW_ERRORS:
                        pass
        converted = [None if v is None else conv(v) for v in values]
        try:
            return pa.array(converted, type=at)
        except _ARROW_ERRORS as e:
            raise _scan(values, ti, conv, at, e)
    return encode


_LIST_TYPES = frozenset([list, tuple, _NONE_TYPE])


def _column_decoder(ti: Optional[TypeInformation]) -> Callable[[Any], List[Any]]:
    dec = _decoder(ti)
    if dec is None:
        return lambda column: column.to_pylist()
    return lambda column: [None if v is None else dec(v) for v in column.to_pylist()]


# ---- codecs ----

class Codec(object):
    """Encodes a stream's Python values into Arrow arrays (one per Spark column in ``fields``)
    and decodes them back.

    Example::

        >>> codec = codec_for(Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()]))
        >>> [f.name for f in codec.fields]
        ['id', 'name']
        >>> codec.decode(codec.encode([Row(id=1, name='a')]))
        [Row(id=1, name='a')]
    """

    type_info: Optional[TypeInformation]
    fields: List[st.StructField]

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        raise NotImplementedError

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        raise NotImplementedError

    @property
    def schema(self) -> st.StructType:
        return st.StructType(list(self.fields))

    @property
    def arrow_fields(self) -> List[pa.Field]:
        return [pa.field(f.name, arrow_type(f.dataType), nullable=True) for f in self.fields]

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema(self.arrow_fields)

    def to_record_batch(self, values: Sequence[Any]) -> pa.RecordBatch:
        return pa.RecordBatch.from_arrays(self.encode(values), schema=self.arrow_schema)

    def from_record_batch(self, batch: pa.RecordBatch) -> List[Any]:
        return self.decode([batch.column(f.name) for f in self.fields])

    def __repr__(self) -> str:
        return '%s(%s)' % (type(self).__name__, _expr(self.type_info))


_ROW_TYPE = {Row}
_SEQ_TYPES = frozenset([tuple, list])
_get_fields = attrgetter('_fields')
_get_values = attrgetter('_values')


class _PickleCodec(Codec):
    def __init__(self, type_info: Optional[TypeInformation]) -> None:
        self.type_info = type_info
        self.fields = [st.StructField('f0', st.BinaryType(), True)]

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        try:
            data = [pickle.dumps(v, protocol=_PICKLE_PROTOCOL) for v in values]
        except Exception:
            data = []
            for v in values:
                try:
                    data.append(_pickle(v))
                except Exception as e:
                    raise ValueTypeError(v, self.type_info, 'cannot be pickled: %s' % e) from e
        return [pa.array(data, type=pa.binary())]

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        column = columns[0]
        if column.null_count:
            return [_unpickle(b) for b in column.to_pylist()]
        loads = pickle.loads
        return [loads(b) for b in column.to_pylist()]


class _AtomicCodec(Codec):
    def __init__(self, type_info: TypeInformation) -> None:
        self.type_info = type_info
        self.fields = [st.StructField('f0', type_info.to_spark_type(), True)]
        self._encode = _column_encoder(type_info)
        self._decode = _column_decoder(type_info)

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        try:
            return [self._encode(values)]
        except _Bad as bad:
            raise _to_value_error(bad) from None

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        return self._decode(columns[0])


class _FieldsCodec(Codec):
    def __init__(self, type_info: TypeInformation) -> None:
        self.type_info = type_info
        self._names = type_info.get_field_names()
        types = type_info.get_field_types()
        self.fields = [st.StructField(n, t.to_spark_type(), True) for n, t in zip(self._names, types)]
        self._split = _splitter(type_info)
        self._encoders = [_column_encoder(t) for t in types]
        self._decoders = [_column_decoder(t) for t in types]
        self._arrow_types = [arrow_type(f.dataType) for f in self.fields]
        self._arity_set = {len(types)}
        self._by_name = isinstance(type_info, RowTypeInfo)

    def _fast_split(self, values: Sequence[Any]) -> Optional[Sequence[Sequence[Any]]]:
        types = set(map(type, values))
        if types == _ROW_TYPE:
            if self._by_name and not all(map(eq, repeat(self._names), map(_get_fields, values))):
                if self.type_info.is_named or any(map(_get_fields, values)):
                    return None
            rows = list(map(_get_values, values))
        elif types <= _SEQ_TYPES:
            rows = values
        else:
            return None
        if set(map(len, rows)) != self._arity_set:
            return None
        return rows

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        if not values:
            return [pa.array([], type=t) for t in self._arrow_types]
        rows = self._fast_split(values)
        if rows is None:
            split = self._split
            try:
                rows = [split(v) for v in values]
            except _Bad as bad:
                raise _to_value_error(bad) from None
        out = []
        for i, (name, enc) in enumerate(zip(self._names, self._encoders)):
            column = list(map(itemgetter(i), rows))
            try:
                out.append(enc(column))
            except _Bad as bad:
                culprit = next((v for v, r in zip(values, rows) if r[i] is bad.value), bad.value)
                raise ValueTypeError(culprit, self.type_info, bad.message('field %s' % name)) from None
        return out

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        decoded = [dec(c) for dec, c in zip(self._decoders, columns)]
        if not decoded:
            return []
        return self._build(decoded)

    def _build(self, decoded: List[List[Any]]) -> List[Any]:
        raise NotImplementedError


class _RowCodec(_FieldsCodec):
    def _build(self, decoded: List[List[Any]]) -> List[Any]:
        names = self._names if self.type_info.is_named else None
        return _rows_from_lists(names, map(list, zip(*decoded)))


class _TupleCodec(_FieldsCodec):
    def _build(self, decoded: List[List[Any]]) -> List[Any]:
        return list(zip(*decoded))


_CODECS: dict = {}


def codec_for(type_info: Optional[TypeInformation]) -> Codec:
    """The codec of a stream whose values have the given type (None: untyped, pickled).
    Codecs are stateless and cached per type."""
    if type_info is None or isinstance(type_info, PickledBytesTypeInfo):
        key = None
    elif not isinstance(type_info, TypeInformation):
        raise TypeError('expected a TypeInformation, got %r' % (type_info,))
    else:
        key = (type_info, type_info._expr())
    codec = _CODECS.get(key)
    if codec is None:
        if len(_CODECS) > 512:
            _CODECS.clear()
        codec = _CODECS[key] = _new_codec(type_info)
    return codec


def _new_codec(type_info: Optional[TypeInformation]) -> Codec:
    if type_info is None or isinstance(type_info, PickledBytesTypeInfo):
        return _PickleCodec(type_info)
    if isinstance(type_info, RowTypeInfo):
        return _RowCodec(type_info)
    if isinstance(type_info, TupleTypeInfo):
        return _TupleCodec(type_info)
    return _AtomicCodec(type_info)
