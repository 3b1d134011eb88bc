"""JsonRowSerializationSchema / JsonRowDeserializationSchema (pyflink.datastream.formats.json)."""
from __future__ import annotations

import pytest

from kindling.common import Row, Types
from kindling.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema

ROW = Types.ROW_NAMED(["id", "inner"], [Types.INT(), Types.ROW_NAMED(["x"], [Types.STRING()])])


def test_rows_round_trip_through_json():
    serializer = JsonRowSerializationSchema.builder().with_type_info(ROW).build()
    deserializer = JsonRowDeserializationSchema.builder().type_info(ROW).build()
    data = serializer.serialize(Row(id=1, inner=Row(x="a")))
    assert data == b'{"id":1,"inner":{"x":"a"}}'
    row = deserializer.deserialize(data)
    assert row.id == 1 and row.inner.x == "a"
    assert deserializer.get_produced_type() == ROW


def test_missing_fields_are_null_unless_asked_to_fail():
    assert JsonRowDeserializationSchema.builder().type_info(ROW).build().deserialize(b'{"id": 2}').inner is None
    strict = JsonRowDeserializationSchema.builder().type_info(ROW).fail_on_missing_field().build()
    with pytest.raises(ValueError, match="'inner' is missing"):
        strict.deserialize(b'{"id": 2}')


def test_malformed_json_fails_unless_parse_errors_are_ignored():
    with pytest.raises(ValueError, match="malformed JSON row"):
        JsonRowDeserializationSchema.builder().type_info(ROW).build().deserialize(b"{not json")
    assert JsonRowDeserializationSchema.builder().type_info(ROW).ignore_parse_errors().build() \
        .deserialize(b"{not json") is None


def test_a_row_type_is_required():
    with pytest.raises(TypeError, match="needs a row type such as Types.ROW_NAMED"):
        JsonRowSerializationSchema.builder().with_type_info(Types.INT()).build()


def test_positional_rows_have_flinks_field_names():
    # what PyFlink 2.3's JsonRowSerializationSchema (flink-json) writes for this row and type
    row_type = Types.ROW([Types.INT(), Types.STRING()])
    data = JsonRowSerializationSchema.Builder().with_type_info(row_type).build().serialize(Row(1, "hi"))
    assert data == b'{"f0":1,"f1":"hi"}'
    row = JsonRowDeserializationSchema.Builder().type_info(row_type).build().deserialize(data)
    assert row == Row(1, "hi") and row._fields is None
