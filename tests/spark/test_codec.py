import datetime
import decimal
import time

import pyarrow as pa
import pytest
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_type

from kindling.common import Instant, Row, Types
from kindling.spark.codec import Codec, ValueTypeError, codec_for
from kindling.spark.type_mapping import spark_type_of

SPARK_TYPES = [
    (Types.BOOLEAN(), st.BooleanType()),
    (Types.BYTE(), st.ByteType()),
    (Types.SHORT(), st.ShortType()),
    (Types.INT(), st.IntegerType()),
    (Types.LONG(), st.LongType()),
    (Types.FLOAT(), st.FloatType()),
    (Types.DOUBLE(), st.DoubleType()),
    (Types.STRING(), st.StringType()),
    (Types.CHAR(), st.StringType()),
    (Types.BIG_INT(), st.DecimalType(38, 0)),
    (Types.BIG_DEC(), st.DecimalType(38, 18)),
    (Types.SQL_DATE(), st.DateType()),
    (Types.SQL_TIME(), st.LongType()),
    (Types.SQL_TIMESTAMP(), st.TimestampType()),
    (Types.INSTANT(), st.TimestampType()),
    (Types.LOCAL_DATE_TIME(), st.TimestampNTZType()),
    (Types.PICKLED_BYTE_ARRAY(), st.BinaryType()),
    (Types.ROW([Types.INT(), Types.STRING()]),
     st.StructType([st.StructField('f0', st.IntegerType()), st.StructField('f1', st.StringType())])),
    (Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()]),
     st.StructType([st.StructField('id', st.IntegerType()), st.StructField('name', st.StringType())])),
    (Types.TUPLE([Types.LONG(), Types.DOUBLE()]),
     st.StructType([st.StructField('f0', st.LongType()), st.StructField('f1', st.DoubleType())])),
    (Types.LIST(Types.STRING()), st.ArrayType(st.StringType(), True)),
    (Types.BASIC_ARRAY(Types.INT()), st.ArrayType(st.IntegerType(), True)),
    (Types.OBJECT_ARRAY(Types.ROW([Types.INT()])),
     st.ArrayType(st.StructType([st.StructField('f0', st.IntegerType())]), True)),
    (Types.PRIMITIVE_ARRAY(Types.INT()), st.ArrayType(st.IntegerType(), False)),
    (Types.PRIMITIVE_ARRAY(Types.BYTE()), st.BinaryType()),
    (Types.MAP(Types.STRING(), Types.LONG()), st.MapType(st.StringType(), st.LongType(), True)),
]


@pytest.mark.parametrize('type_info,spark_type', SPARK_TYPES, ids=[repr(t) for t, _ in SPARK_TYPES])
def test_spark_type_of(type_info, spark_type):
    assert spark_type_of(type_info) == spark_type


def roundtrip(type_info, values):
    codec = codec_for(type_info)
    columns = codec.encode(values)
    assert len(columns) == len(codec.fields)
    for column, field in zip(columns, codec.fields):
        assert len(column) == len(values)
        assert column.type == to_arrow_type(field.dataType, timezone='UTC')
    return codec.decode(columns)


@pytest.fixture
def new_york_tz(monkeypatch):
    monkeypatch.setenv('TZ', 'America/New_York')
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


ATOMIC = [
    (Types.BOOLEAN(), [True, False, None]),
    (Types.BYTE(), [-128, 127, None]),
    (Types.SHORT(), [-32768, 32767]),
    (Types.INT(), [0, -2**31, 2**31 - 1, None]),
    (Types.LONG(), [2**63 - 1, -2**63, None]),
    (Types.FLOAT(), [1.5, -0.25, None]),
    (Types.DOUBLE(), [1.0, 2.5, 1e300, None]),
    (Types.STRING(), ['', 'héllo', None]),
    (Types.CHAR(), ['a', 'é']),
    (Types.BIG_INT(), [10**37, -5, None]),
    (Types.BIG_DEC(), [decimal.Decimal('1.5'), decimal.Decimal('-123456.000000000000000001'), None]),
    (Types.SQL_DATE(), [datetime.date(2020, 2, 29), datetime.date(1969, 12, 31), None]),
    (Types.SQL_TIME(), [datetime.time(0, 0), datetime.time(23, 59, 59, 999999), None]),
    (Types.SQL_TIMESTAMP(), [datetime.datetime(2021, 3, 4, 5, 6, 7, 891011), None]),
    (Types.LOCAL_DATE_TIME(), [datetime.datetime(2021, 3, 4, 5, 6, 7, 891011), None]),
    (Types.INSTANT(), [Instant.of_epoch_milli(1_600_000_000_123), Instant(-5, 0), None]),
    (Types.PRIMITIVE_ARRAY(Types.BYTE()), [b'\x00\xff', b'', None]),
]


@pytest.mark.parametrize('type_info,values', ATOMIC, ids=[repr(t) for t, _ in ATOMIC])
def test_atomic_roundtrip(type_info, values):
    codec = codec_for(type_info)
    assert [f.name for f in codec.fields] == ['f0']
    assert codec.fields[0].dataType == spark_type_of(type_info)
    assert roundtrip(type_info, values) == values


def test_int_accepted_for_float_and_decimal():
    assert roundtrip(Types.DOUBLE(), [1, 2]) == [1.0, 2.0]
    assert roundtrip(Types.FLOAT(), [3]) == [3.0]
    assert roundtrip(Types.BIG_DEC(), [7]) == [decimal.Decimal(7)]


def test_big_dec_rounds_to_scale_18():
    out = roundtrip(Types.BIG_DEC(), [decimal.Decimal('0.1234567890123456789')])
    assert out == [decimal.Decimal('0.123456789012345679')]


def test_numpy_scalars_accepted():
    np = pytest.importorskip('numpy')
    assert roundtrip(Types.INT(), [np.int64(3), 4]) == [3, 4]
    assert roundtrip(Types.DOUBLE(), [np.float32(0.5)]) == [0.5]
    assert roundtrip(Types.BOOLEAN(), [np.bool_(True)]) == [True]


def test_timestamps_are_local_time_like_pyflink(new_york_tz):
    naive = datetime.datetime(2021, 7, 1, 12, 0)
    codec = codec_for(Types.SQL_TIMESTAMP())
    [column] = codec.encode([naive])
    assert column.type == pa.timestamp('us', tz='UTC')
    assert column[0].as_py() == datetime.datetime(2021, 7, 1, 16, 0, tzinfo=datetime.timezone.utc)
    assert codec.decode([column]) == [naive]
    aware = datetime.datetime(2021, 7, 1, 12, 0, tzinfo=datetime.timezone.utc)
    assert codec.decode(codec.encode([aware])) == [datetime.datetime(2021, 7, 1, 8, 0)]
    ntz = codec_for(Types.LOCAL_DATE_TIME())
    assert ntz.encode([naive])[0][0].as_py() == naive


def test_decodes_spark_session_timezone_and_large_types():
    utc_micros = 1_600_000_000_000_000
    column = pa.array([utc_micros], pa.int64()).cast(pa.timestamp('us', tz='Asia/Tokyo'))
    assert codec_for(Types.INSTANT()).decode([column]) == [Instant(1_600_000_000, 0)]
    assert codec_for(Types.STRING()).decode([pa.array(['a'], pa.large_string())]) == ['a']


def test_pickled_roundtrip():
    values = [1, 'a', {'k': [1, (2, 3)]}, None, Row(a=1), object]
    assert roundtrip(None, values) == values
    assert roundtrip(Types.PICKLED_BYTE_ARRAY(), values) == values
    codec = codec_for(None)
    assert codec.fields == [st.StructField('f0', st.BinaryType(), True)]
    func = codec.decode(codec.encode([lambda x: x + 1]))[0]
    assert func(1) == 2
    assert codec.decode([pa.array([None], pa.binary())]) == [None]


def test_row_named():
    t = Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()])
    codec = codec_for(t)
    assert [f.name for f in codec.fields] == ['id', 'name']
    assert codec.schema == spark_type_of(t)
    values = [Row(id=1, name='a'), Row(name='b', id=2), (3, 'c'), [4, None], {'id': 5, 'name': 'e'},
              Row(6, 'f')]
    out = roundtrip(t, values)
    assert out == [Row(id=1, name='a'), Row(id=2, name='b'), Row(id=3, name='c'), Row(id=4, name=None),
                   Row(id=5, name='e'), Row(id=6, name='f')]
    assert repr(out[0]) == "Row(id=1, name='a')"
    assert out[0].name == 'a'


def test_row_named_by_name_when_field_order_differs():
    t = Types.ROW_NAMED(['name', 'id'], [Types.STRING(), Types.INT()])
    expected = [Row('name', 'id')('a', 1)]
    assert roundtrip(t, [Row(id=1, name='a')]) == expected
    assert roundtrip(t, [Row(id=1, name='a', extra=0)]) == expected
    assert repr(expected[0]) == "Row(name='a', id=1)"


def test_row_positional_comes_back_with_flinks_field_names():
    t = Types.ROW([Types.LONG(), Types.DOUBLE()])
    codec = codec_for(t)
    assert [f.name for f in codec.fields] == ['f0', 'f1']
    out = roundtrip(t, [Row(1, 2.0), (3, 4.5)])
    assert out == [Row(f0=1, f1=2.0), Row(f0=3, f1=4.5)]
    assert repr(out[0]) == "Row(f0=1, f1=2.0)"  # as PyFlink prints a Row read back from Types.ROW


def test_tuple():
    t = Types.TUPLE([Types.STRING(), Types.LONG()])
    codec = codec_for(t)
    assert [f.name for f in codec.fields] == ['f0', 'f1']
    assert roundtrip(t, [('a', 1), ['b', 2], Row('c', 3)]) == [('a', 1), ('b', 2), ('c', 3)]


def test_empty_batches():
    for t in [None, Types.INT(), Types.ROW_NAMED(['a'], [Types.INT()]), Types.TUPLE([Types.INT()])]:
        assert roundtrip(t, []) == []


NESTED = [
    (Types.LIST(Types.INT()), [[1, 2, None], [], None]),
    (Types.BASIC_ARRAY(Types.STRING()), [['a', None], []]),
    (Types.PRIMITIVE_ARRAY(Types.DOUBLE()), [[1.0, 2.0], []]),
    (Types.OBJECT_ARRAY(Types.ROW_NAMED(['x'], [Types.INT()])), [[Row(x=1), None, Row(x=2)]]),
    (Types.LIST(Types.ROW([Types.STRING(), Types.SQL_DATE()])), [[Row(f0='a', f1=datetime.date(2020, 1, 1))]]),
    (Types.LIST(Types.TUPLE([Types.INT(), Types.INT()])), [[(1, 2), (3, 4)]]),
    (Types.LIST(Types.LIST(Types.BIG_INT())), [[[1, 10**30], []]]),
    (Types.MAP(Types.STRING(), Types.LONG()), [{'a': 1, 'b': None}, {}, None]),
    (Types.MAP(Types.INT(), Types.ROW_NAMED(['ts'], [Types.SQL_TIMESTAMP()])),
     [{1: Row(ts=datetime.datetime(2020, 1, 1, 1, 1, 1))}]),
    (Types.MAP(Types.STRING(), Types.LIST(Types.MAP(Types.STRING(), Types.INSTANT()))),
     [{'k': [{'i': Instant.of_epoch_milli(5)}]}]),
    (Types.LIST(Types.PICKLED_BYTE_ARRAY()), [[{'any': 'thing'}, (1, 2)]]),
]


@pytest.mark.parametrize('type_info,values', NESTED, ids=[repr(t) for t, _ in NESTED])
def test_nested_roundtrip(type_info, values):
    assert roundtrip(type_info, values) == values


def test_row_with_nested_fields():
    t = Types.ROW_NAMED(['id', 'tags', 'attrs', 'inner'],
                        [Types.LONG(), Types.LIST(Types.STRING()), Types.MAP(Types.STRING(), Types.DOUBLE()),
                         Types.ROW_NAMED(['when', 'amount'], [Types.SQL_DATE(), Types.BIG_DEC()])])
    value = Row(id=1, tags=['a', 'b'], attrs={'x': 1.5},
                inner=Row(when=datetime.date(2020, 5, 6), amount=decimal.Decimal('2.50')))
    [out] = roundtrip(t, [value])
    assert out == Row('id', 'tags', 'attrs', 'inner')(
        1, ['a', 'b'], {'x': 1.5}, Row('when', 'amount')(datetime.date(2020, 5, 6), decimal.Decimal('2.5')))
    assert out.inner.when == datetime.date(2020, 5, 6)
    assert out.as_dict(recursive=True)['inner'] == {'when': datetime.date(2020, 5, 6),
                                                   'amount': decimal.Decimal('2.5')}


def test_record_batch_helpers():
    codec = codec_for(Types.ROW_NAMED(['a', 'ts'], [Types.INT(), Types.SQL_TIMESTAMP()]))
    assert isinstance(codec, Codec)
    batch = codec.to_record_batch([Row(a=1, ts=datetime.datetime(2020, 1, 1))])
    assert batch.schema == pa.schema([pa.field('a', pa.int32()), pa.field('ts', pa.timestamp('us', tz='UTC'))])
    assert batch.schema == codec.arrow_schema
    assert codec.from_record_batch(batch) == [Row(a=1, ts=datetime.datetime(2020, 1, 1))]


def error_of(type_info, values):
    with pytest.raises(ValueTypeError) as info:
        codec_for(type_info).encode(values)
    assert isinstance(info.value, TypeError)
    return str(info.value)


@pytest.mark.parametrize('type_info,values,message', [
    (Types.INT(), [1, 'abc'], "value 'abc' (str) does not fit Types.INT()"),
    (Types.INT(), [1, 1.5], 'value 1.5 (float) does not fit Types.INT()'),
    (Types.LONG(), [2.0], 'value 2.0 (float) does not fit Types.LONG()'),
    (Types.INT(), [True], 'value True (bool) does not fit Types.INT()'),
    (Types.INT(), [2**31], 'value 2147483648 (int) does not fit Types.INT(): out of range'),
    (Types.LONG(), [2**64], 'value 18446744073709551616 (int) does not fit Types.LONG()'),
    (Types.BYTE(), [200], 'value 200 (int) does not fit Types.BYTE()'),
    (Types.DOUBLE(), ['1.0'], "value '1.0' (str) does not fit Types.DOUBLE()"),
    (Types.DOUBLE(), [False], 'value False (bool) does not fit Types.DOUBLE()'),
    (Types.STRING(), ['a', b'b'], "value b'b' (bytes) does not fit Types.STRING()"),
    (Types.STRING(), [1], 'value 1 (int) does not fit Types.STRING()'),
    (Types.BOOLEAN(), [1], 'value 1 (int) does not fit Types.BOOLEAN()'),
    (Types.CHAR(), ['ab'], "value 'ab' (str) does not fit Types.CHAR()"),
    (Types.BIG_DEC(), [1.5], 'value 1.5 (float) does not fit Types.BIG_DEC()'),
    (Types.SQL_DATE(), ['2020-01-01'], "value '2020-01-01' (str) does not fit Types.SQL_DATE()"),
    (Types.SQL_TIMESTAMP(), [5], 'value 5 (int) does not fit Types.SQL_TIMESTAMP()'),
    (Types.LIST(Types.INT()), [[1, 2.5]],
     'value [1, 2.5] (list) does not fit Types.LIST(Types.INT()): element 2.5 (float) does not fit Types.INT()'),
    (Types.LIST(Types.INT()), ['abc'], "value 'abc' (str) does not fit Types.LIST(Types.INT())"),
    (Types.PRIMITIVE_ARRAY(Types.INT()), [[1, None]], 'primitive array element is None'),
    (Types.MAP(Types.STRING(), Types.INT()), [{'a': 'b'}],
     "map value 'b' (str) does not fit Types.INT()"),
    (Types.MAP(Types.STRING(), Types.INT()), [{1: 1}], 'key 1 (int) does not fit Types.STRING()'),
    (Types.ROW([Types.INT(), Types.STRING()]), [(1, 'a'), (1,)],
     "value (1,) (tuple) does not fit Types.ROW([Types.INT(), Types.STRING()]): 1 fields, expected 2"),
    (Types.ROW([Types.INT()]), [(1, 2)], '2 fields, expected 1'),
    (Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()]), [Row(id='x', name='a')],
     "value Row(id='x', name='a') (Row) does not fit Types.ROW_NAMED(['id', 'name'], "
     "[Types.INT(), Types.STRING()]): field id 'x' (str) does not fit Types.INT()"),
    (Types.ROW_NAMED(['id'], [Types.INT()]), [{'other': 1}], "missing fields ['id']"),
    (Types.ROW_NAMED(['id'], [Types.INT()]), [5], 'value 5 (int) does not fit Types.ROW_NAMED'),
    (Types.ROW_NAMED(['id'], [Types.INT()]), [None], 'value None (NoneType) does not fit'),
    (Types.TUPLE([Types.INT(), Types.INT()]), [(1, 2, 3)], '3 fields, expected 2'),
    (Types.LIST(Types.ROW_NAMED(['a'], [Types.INT()])), [[Row(a='x')]],
     "element Row(a='x') (Row) does not fit Types.ROW_NAMED(['a'], [Types.INT()]): "
     "field a 'x' (str) does not fit Types.INT()"),
])
def test_errors_name_value_type_and_declared_type(type_info, values, message):
    assert message in error_of(type_info, values)


def test_error_carries_value_and_type():
    with pytest.raises(ValueTypeError) as info:
        codec_for(Types.INT()).encode([1, 'x'])
    assert info.value.value == 'x'
    assert info.value.type_info == Types.INT()


def test_unpicklable_value():
    import threading
    assert 'cannot be pickled' in error_of(None, [threading.Lock()])


def test_codec_for_rejects_non_type_info():
    with pytest.raises(TypeError):
        codec_for(int)


def test_codecs_cached_per_type_and_naming():
    assert codec_for(Types.INT()) is codec_for(Types.INT())
    positional = codec_for(Types.ROW([Types.INT()]))
    named = codec_for(Types.ROW_NAMED(['f0'], [Types.INT()]))
    assert positional is not named
    assert positional.decode(positional.encode([(1,)])) == [Row(f0=1)]
    assert named.decode(named.encode([(1,)])) == [Row(f0=1)]


def test_instant_column_with_other_values_takes_the_checked_way():
    aware = datetime.datetime(2021, 7, 1, 12, 0, tzinfo=datetime.timezone.utc)
    assert roundtrip(Types.INSTANT(), [Instant.of_epoch_milli(1), aware, None]) == \
        [Instant.of_epoch_milli(1), Instant.of_epoch_milli(int(aware.timestamp() * 1000)), None]
    assert "value 'x' (str) does not fit Types.INSTANT()" in error_of(Types.INSTANT(), [Instant(0, 0), 'x'])
