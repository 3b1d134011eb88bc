import datetime
import pickle

import pytest

from kindling.common import Instant, Row, Types
from kindling.common.typeinfo import (BasicArrayTypeInfo, BasicTypeInfo, ListTypeInfo, MapTypeInfo,
                                      ObjectArrayTypeInfo, PickledBytesTypeInfo, PrimitiveArrayTypeInfo,
                                      RowTypeInfo, SqlTimeTypeInfo, TupleTypeInfo)


def test_equality_and_hash():
    assert Types.INT() == Types.INT()
    assert Types.INT() != Types.LONG()
    assert hash(Types.STRING()) == hash(Types.STRING())
    assert Types.LIST(Types.INT()) == Types.LIST(Types.INT())
    assert Types.LIST(Types.INT()) != Types.BASIC_ARRAY(Types.INT())
    assert Types.MAP(Types.STRING(), Types.INT()) != Types.MAP(Types.STRING(), Types.LONG())
    named = Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()])
    assert named == Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()])
    assert named != Types.ROW_NAMED(['a', 'c'], [Types.INT(), Types.STRING()])
    assert hash(named) == hash(Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()]))
    assert Types.TUPLE([Types.INT()]) != Types.ROW([Types.INT()])
    assert Types.SQL_DATE() != Types.SQL_TIME()
    assert len({Types.INT(), Types.INT(), Types.LONG()}) == 2
    assert Types.INT() != 'Integer'


def test_repr():
    assert repr(Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()])) == \
        'RowTypeInfo(id: Integer, name: String)'
    assert repr(Types.ROW([Types.LONG(), Types.BOOLEAN()])) == 'RowTypeInfo(f0: Long, f1: Boolean)'
    assert repr(Types.TUPLE([Types.INT(), Types.DOUBLE()])) == 'TupleTypeInfo(Integer, Double)'
    assert repr(Types.LIST(Types.STRING())) == 'ListTypeInfo<String>'
    assert repr(Types.MAP(Types.STRING(), Types.INT())) == 'MapTypeInfo<String, Integer>'
    assert repr(Types.PRIMITIVE_ARRAY(Types.INT())) == 'PrimitiveArrayTypeInfo<Integer>'
    assert repr(Types.BASIC_ARRAY(Types.INT())) == 'BasicArrayTypeInfo<Integer>'
    assert repr(Types.OBJECT_ARRAY(Types.INT())) == 'ObjectArrayTypeInfo<Integer>'
    assert repr(Types.PICKLED_BYTE_ARRAY()) == 'PickledByteArrayTypeInfo'
    assert str(Types.BIG_DEC()) == 'BigDecimal'
    assert repr(Types.SQL_DATE()) == 'SqlTimeTypeInfo(java.sql.Date)'


def test_classes():
    assert isinstance(Types.INT(), BasicTypeInfo)
    assert isinstance(Types.SQL_TIMESTAMP(), SqlTimeTypeInfo)
    assert isinstance(Types.ROW([]), RowTypeInfo)
    assert isinstance(Types.TUPLE([]), TupleTypeInfo)
    assert isinstance(Types.LIST(Types.INT()), ListTypeInfo)
    assert isinstance(Types.MAP(Types.INT(), Types.INT()), MapTypeInfo)
    assert isinstance(Types.BASIC_ARRAY(Types.INT()), BasicArrayTypeInfo)
    assert isinstance(Types.PRIMITIVE_ARRAY(Types.INT()), PrimitiveArrayTypeInfo)
    assert isinstance(Types.OBJECT_ARRAY(Types.INT()), ObjectArrayTypeInfo)
    assert isinstance(Types.PICKLED_BYTE_ARRAY(), PickledBytesTypeInfo)
    assert BasicTypeInfo.INT_TYPE_INFO() == Types.INT()
    assert SqlTimeTypeInfo.DATE() == Types.SQL_DATE()


def test_row_type_info_accessors():
    t = Types.ROW_NAMED(['id', 'name'], [Types.INT(), Types.STRING()])
    assert t.get_field_names() == ['id', 'name']
    assert t.get_field_types() == [Types.INT(), Types.STRING()]
    assert t.get_field_index('name') == 1
    assert t.get_field_index('nope') == -1
    assert t.is_named and not Types.ROW([Types.INT()]).is_named
    assert Types.ROW([Types.INT(), Types.INT()]).get_field_names() == ['f0', 'f1']
    with pytest.raises(ValueError):
        Types.ROW_NAMED(['a'], [Types.INT(), Types.INT()])
    with pytest.raises(ValueError):
        Types.ROW_NAMED(['a', 'a'], [Types.INT(), Types.INT()])
    with pytest.raises(TypeError):
        Types.ROW([int])


def test_internal_conversions():
    assert not Types.INT().need_conversion()
    assert Types.INT().to_internal_type(3) == 3
    d = Types.SQL_DATE()
    assert d.need_conversion()
    assert d.to_internal_type(datetime.date(1970, 1, 11)) == 10
    assert d.from_internal_type(10) == datetime.date(1970, 1, 11)
    t = Types.SQL_TIME()
    assert t.to_internal_type(datetime.time(0, 0, 1, 5)) == 1_000_005
    assert t.from_internal_type(1_000_005) == datetime.time(0, 0, 1, 5)
    ts = Types.SQL_TIMESTAMP()
    aware = datetime.datetime(1970, 1, 1, 0, 0, 2, tzinfo=datetime.timezone.utc)
    assert ts.to_internal_type(aware) == 2_000_000
    local = datetime.datetime(2021, 3, 4, 5, 6, 7, 8)
    assert ts.from_internal_type(ts.to_internal_type(local)) == local
    assert Types.INSTANT().to_internal_type(Instant.of_epoch_milli(1500)) == 1_500_000
    assert Types.INSTANT().from_internal_type(1_500_000) == Instant.of_epoch_milli(1500)
    ldt = Types.LOCAL_DATE_TIME()
    assert ldt.to_internal_type(datetime.datetime(1970, 1, 1, 0, 0, 1)) == 1_000_000
    assert ldt.from_internal_type(1_000_000) == datetime.datetime(1970, 1, 1, 0, 0, 1)
    row = Types.ROW_NAMED(['d', 'n'], [Types.SQL_DATE(), Types.INT()])
    assert row.to_internal_type(Row(d=datetime.date(1970, 1, 2), n=1)) == (1, 1)
    assert row.to_internal_type({'n': 1, 'd': datetime.date(1970, 1, 2)}) == (1, 1)
    assert row.from_internal_type((1, 1)) == Row(d=datetime.date(1970, 1, 2), n=1)
    assert Types.ROW([Types.INT()]).from_internal_type((1,)) == Row(1)
    assert Types.TUPLE([Types.SQL_DATE()]).from_internal_type([0]) == (datetime.date(1970, 1, 1),)
    assert Types.LIST(Types.SQL_DATE()).from_internal_type([0]) == [datetime.date(1970, 1, 1)]
    assert Types.MAP(Types.STRING(), Types.SQL_DATE()).from_internal_type({'a': 0}) == \
        {'a': datetime.date(1970, 1, 1)}


def test_picklable():
    t = Types.ROW_NAMED(['a', 'b'], [Types.LIST(Types.INT()), Types.MAP(Types.STRING(), Types.SQL_DATE())])
    assert pickle.loads(pickle.dumps(t)) == t
