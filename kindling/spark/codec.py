"""The physical layout of a stream's values as Spark columns and Arrow arrays.

A stream without a type (or with ``Types.PICKLED_BYTE_ARRAY()``) is one ``binary`` column
``f0`` of pickled values. ``Types.ROW_NAMED`` is one column per field, named after the
fields; ``Types.ROW`` and ``Types.TUPLE`` are columns ``f0``, ``f1``, ...; any other type is
one column ``f0`` of that type's Spark type. How each value maps to its column's type is
:mod:`kindling.spark.type_mapping`.
"""
import datetime
import decimal
import pickle
from itertools import chain, repeat
from operator import attrgetter, eq, itemgetter
from typing import Any, Callable, List, Optional, Sequence

import pyarrow as pa
from pyspark.sql import types as st

from kindling.common.typeinfo import (BasicType, BasicTypeInfo, ChangelogRowTypeInfo, DateTypeInfo, InstantTypeInfo,
                                      LocalTimeTypeInfo, PickledBytesTypeInfo,
                                      PrimitiveArrayTypeInfo, RowTypeInfo, TupleTypeInfo,
                                      TypeInformation, Types, _ElementTypeInfo)
from kindling.common.time import Instant
from kindling.common.types import Row, RowKind, _rows_from_lists
from kindling.spark.type_mapping import (ARROW_ERRORS, ARROW_TIMEZONE, INT_RANGES, PICKLE_PROTOCOL,
                                         BadValue, ValueTypeError, arrow_type, converter, decoder,
                                         pickle_value, splitter, to_value_error, type_expr,
                                         spark_type_of, unpickle_value)

__all__ = ['Codec', 'codec_for', 'column_decoder', 'column_encoder', 'ValueTypeError', 'arrow_type', 'ARROW_TIMEZONE']

ROW_KIND = '__kind'  # the column of a changelog row's RowKind


# ---- column encoders: a list of Python values -> one Arrow array ----

def _scan(values: Sequence[Any], ti: TypeInformation, conv: Callable[[Any], Any], at: pa.DataType,
          cause: Optional[BaseException]) -> BadValue:
    for v in values:
        if v is None:
            continue
        try:
            pa.array([conv(v)], type=at)
        except BadValue as bad:
            return bad
        except ARROW_ERRORS as e:
            return BadValue(v, ti, str(e))
    return BadValue(values, ti, 'Arrow rejected the batch: %s' % cause)


_NONE_TYPE = type(None)
_INSTANT_TYPES = frozenset([Instant, _NONE_TYPE])


def _fast_types(ti: TypeInformation) -> Optional[frozenset]:
    """The exact Python types that ``pa.array`` takes as they are for ti (None: no fast path)."""
    if isinstance(ti, InstantTypeInfo):
        return None
    if isinstance(ti, BasicTypeInfo):
        bt = ti.basic_type
        if bt in INT_RANGES:
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


def column_encoder(ti: TypeInformation) -> Callable[[Sequence[Any]], pa.Array]:
    """A function encoding a list of values (None allowed) of type ti into one Arrow array;
    it raises BadValue for the first value that does not fit.

    When every value's exact type is one pyarrow takes as it is, the list goes to
    ``pa.array`` in one call; otherwise (or when Arrow refuses) each value is checked and
    converted in Python first."""
    at = arrow_type(spark_type_of(ti))
    conv = converter(ti)
    fast = _fast_types(ti)
    elem_fast = None
    if fast is None and isinstance(ti, _ElementTypeInfo):
        elem_fast = _fast_types(ti.element_type)
        if elem_fast is not None and not isinstance(ti, PrimitiveArrayTypeInfo):
            elem_fast = elem_fast | {_NONE_TYPE}
    if fast is not None:
        fast = fast | {_NONE_TYPE}
    instant = isinstance(ti, InstantTypeInfo)

    def encode(values):
        if fast is not None:
            if set(map(type, values)) <= fast:
                try:
                    return pa.array(values, type=at)
                except ARROW_ERRORS:
                    pass
        elif instant and set(map(type, values)) <= _INSTANT_TYPES:  # epoch microseconds, Arrow's timestamps
            return pa.array([None if v is None else v.seconds * 1_000_000 + v.nanos // 1_000 for v in values], type=at)
        elif elem_fast is not None:
            outer = set(map(type, values))
            if outer <= _LIST_TYPES:
                present = [v for v in values if v is not None] if _NONE_TYPE in outer else values
                if set(map(type, chain.from_iterable(present))) <= elem_fast:
                    try:
                        return pa.array(values, type=at)
                    except ARROW_ERRORS:
                        pass
        converted = [None if v is None else conv(v) for v in values]
        try:
            return pa.array(converted, type=at)
        except ARROW_ERRORS as e:
            raise _scan(values, ti, conv, at, e)
    return encode


_LIST_TYPES = frozenset([list, tuple, _NONE_TYPE])


def column_decoder(ti: Optional[TypeInformation]) -> Callable[[Any], List[Any]]:
    dec = decoder(ti)
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
        return '%s(%s)' % (type(self).__name__, type_expr(self.type_info))


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
            data = [pickle.dumps(v, protocol=PICKLE_PROTOCOL) for v in values]
        except Exception:
            data = []
            for v in values:
                try:
                    data.append(pickle_value(v))
                except Exception as e:
                    raise ValueTypeError(v, self.type_info, 'cannot be pickled: %s' % e) from e
        return [pa.array(data, type=pa.binary())]

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        column = columns[0]
        if column.null_count:
            return [unpickle_value(b) for b in column.to_pylist()]
        loads = pickle.loads
        return [loads(b) for b in column.to_pylist()]


class _AtomicCodec(Codec):
    def __init__(self, type_info: TypeInformation) -> None:
        self.type_info = type_info
        self.fields = [st.StructField('f0', spark_type_of(type_info), True)]
        self._encode = column_encoder(type_info)
        self._decode = column_decoder(type_info)

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        try:
            return [self._encode(values)]
        except BadValue as bad:
            raise to_value_error(bad) from None

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        return self._decode(columns[0])


class _FieldsCodec(Codec):
    def __init__(self, type_info: TypeInformation) -> None:
        self.type_info = type_info
        self._names = type_info.get_field_names()
        types = type_info.get_field_types()
        self.fields = [st.StructField(n, spark_type_of(t), True) for n, t in zip(self._names, types)]
        self._split = splitter(type_info)
        self._encoders = [column_encoder(t) for t in types]
        self._decoders = [column_decoder(t) for t in types]
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
            except BadValue as bad:
                raise to_value_error(bad) from None
        out = []
        for i, (name, enc) in enumerate(zip(self._names, self._encoders)):
            column = list(map(itemgetter(i), rows))
            try:
                out.append(enc(column))
            except BadValue as bad:
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
        # Flink gives every field of a RowTypeInfo a name (f0, f1, ... unless declared), so a
        # Row that crossed an operator boundary reads Row(f0=1, f1='a') in PyFlink
        return _rows_from_lists(self._names, map(list, zip(*decoded)))


class _ChangelogRowCodec(_RowCodec):
    """Rows with their RowKind, as its byte value in a column of its own (``__kind``)."""

    def __init__(self, type_info: TypeInformation) -> None:
        super().__init__(type_info)
        self.fields = self.fields + [st.StructField(ROW_KIND, st.ByteType(), True)]

    def encode(self, values: Sequence[Any]) -> List[pa.Array]:
        kinds = [v._row_kind.value if isinstance(v, Row) else 0 for v in values]
        return super().encode(values) + [pa.array(kinds, type=pa.int8())]

    def decode(self, columns: Sequence[Any]) -> List[Any]:
        rows = super().decode(columns[:-1])
        for row, kind in zip(rows, columns[-1].to_pylist()):
            row._row_kind = RowKind(kind or 0)
        return rows


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
    if isinstance(type_info, ChangelogRowTypeInfo):
        return _ChangelogRowCodec(type_info)
    if isinstance(type_info, RowTypeInfo):
        return _RowCodec(type_info)
    if isinstance(type_info, TupleTypeInfo):
        return _TupleCodec(type_info)
    return _AtomicCodec(type_info)
