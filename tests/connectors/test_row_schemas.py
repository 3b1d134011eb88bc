"""Row serialization schemas of single records: CSV and Avro (kindling.datastream.formats),
RowFieldExtractorSchema, and the simple string encoder."""
from __future__ import annotations

import datetime
import decimal
import io
import json
import uuid

import fastavro
import pytest

from kindling.common import Types
from kindling.common.serialization import Encoder, RowFieldExtractorSchema
from kindling.common.types import Row
from kindling.datastream.formats.avro import AvroRowDeserializationSchema, AvroRowSerializationSchema, AvroSchema
from kindling.datastream.formats.csv import CsvRowDeserializationSchema, CsvRowSerializationSchema

ROW = Types.ROW_NAMED(["id", "name", "tags"], [Types.INT(), Types.STRING(), Types.BASIC_ARRAY(Types.STRING())])


def test_csv_row_round_trip_with_quotes_nulls_and_arrays():
    serializer = CsvRowSerializationSchema.Builder(ROW).set_field_delimiter(";").set_null_literal("null") \
        .set_array_element_delimiter("|").build()
    deserializer = CsvRowDeserializationSchema.Builder(ROW).set_field_delimiter(";").set_null_literal("null") \
        .set_array_element_delimiter("|").build()
    row = Row(id=7, name='say "hi"; bye', tags=["a", "b"])
    data = serializer.serialize(row)
    assert data == b'7;"say ""hi""; bye";a|b\n'
    assert deserializer.deserialize(data) == row
    assert deserializer.deserialize(serializer.serialize(Row(id=1, name=None, tags=[]))) == Row(id=1, name=None,
                                                                                               tags=[])
    assert deserializer.get_produced_type() == ROW


def test_csv_row_positional_type_and_parse_errors():
    row_type = Types.ROW([Types.LONG(), Types.BOOLEAN()])
    deserializer = CsvRowDeserializationSchema.Builder(row_type).build()
    assert deserializer.deserialize(b"12,true") == Row(12, True)
    with pytest.raises(ValueError, match=r"malformed CSV record '12,x,y': expected 2 columns, got 3"):
        deserializer.deserialize(b"12,x,y")
    with pytest.raises(ValueError, match=r"cannot read 'x' as"):
        deserializer.deserialize(b"x,true")
    lenient = CsvRowDeserializationSchema.Builder(row_type).set_ignore_parse_errors(True).build()
    assert lenient.deserialize(b"x,true") is None
    with pytest.raises(TypeError, match="must not be None"):
        CsvRowSerializationSchema.Builder(None)


SCHEMA = """{"type": "record", "name": "Order", "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": ["null", "string"], "default": null},
    {"name": "item", "type": {"type": "record", "name": "Item", "fields": [{"name": "sku", "type": "string"}]}}]}"""


def test_avro_row_round_trip_as_schemaless_binary():
    serializer = AvroRowSerializationSchema(avro_schema_string=SCHEMA)
    deserializer = AvroRowDeserializationSchema(avro_schema_string=SCHEMA)
    data = serializer.serialize(Row(id=5, customer="ann", item=Row(sku="x1")))
    parsed = fastavro.parse_schema(__import__("json").loads(SCHEMA))
    assert fastavro.schemaless_reader(io.BytesIO(data), parsed, None) == {"id": 5, "customer": "ann",
                                                                          "item": {"sku": "x1"}}
    row = deserializer.deserialize(data)  # fields in the schema's order
    assert list(row) == [5, "ann", Row(sku="x1")] and row.id == 5 and row.item.sku == "x1"
    assert deserializer.deserialize(serializer.serialize({"id": 6, "customer": None, "item": {"sku": "y"}})) \
        .as_dict(recursive=True) == {"id": 6, "customer": None, "item": {"sku": "y"}}
    assert deserializer.deserialize(serializer.serialize(Row(7, "bo", Row("z")))).customer == "bo"  # by position


def test_positional_rows_as_pyflink_writes_them():
    # PyFlink 2.3's schemas (flink-csv, flink-avro) write a Types.ROW row by position
    row_type = Types.ROW([Types.INT(), Types.STRING()])
    row = Row(1, "hi")
    row.set_field_names(["f0", "f1"])  # as a Types.ROW stream's rows have them
    assert CsvRowSerializationSchema.Builder(row_type).build().serialize(row) == b"1,hi\n"
    schema = '{"type": "record", "name": "T", "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}'
    assert AvroRowSerializationSchema(avro_schema_string=schema).serialize(row) == b"\x02\x04hi"


LOGICAL = json.dumps({"type": "record", "name": "R", "namespace": "ns", "fields": [
    {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
    {"name": "tag", "type": {"type": "fixed", "name": "Tag", "size": 2}},
    {"name": "by_name", "type": {"type": "map", "values": {"type": "record", "name": "I", "fields": [
        {"name": "x", "type": "int"}]}}},
    {"name": "maybe", "type": ["null", "I"]},
    {"name": "items", "type": {"type": "array", "items": "I"}},
    {"name": "either", "type": ["null", "int", "string"]},
    {"name": "next", "type": ["null", "R"]}]})


def test_avro_rows_have_the_types_flinks_avro_schema_converter_gives():
    from kindling.spark.codec import codec_for

    deserializer = AvroRowDeserializationSchema(avro_schema_string=LOGICAL)
    item = Types.ROW_NAMED(["x"], [Types.INT()])
    assert deserializer.get_produced_type() == Types.ROW_NAMED(
        ["id", "day", "at", "ts", "local", "price", "kind", "tag", "by_name", "maybe", "items", "either", "next"],
        [Types.STRING(), Types.SQL_DATE(), Types.SQL_TIME(), Types.SQL_TIMESTAMP(), Types.LONG(), Types.BIG_DEC(),
         Types.STRING(), Types.PRIMITIVE_ARRAY(Types.BYTE()), Types.MAP(Types.STRING(), item), item,
         Types.OBJECT_ARRAY(item), Types.PICKLED_BYTE_ARRAY(), Types.PICKLED_BYTE_ARRAY()])
    utc = datetime.timezone.utc
    record = {"id": uuid.UUID(int=7), "day": datetime.date(2024, 1, 2), "at": datetime.time(1, 2, 3),
              "ts": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=utc), "local": datetime.datetime(1970, 1, 1, 0, 0, 1),
              "price": decimal.Decimal("1.25"), "kind": "B", "tag": b"ab", "by_name": {"k": {"x": 1}},
              "maybe": {"x": 2}, "items": [{"x": 3}], "either": "s", "next": None}
    row = deserializer.deserialize(AvroRowSerializationSchema(avro_schema_string=LOGICAL).serialize(record))
    assert list(row) == ["00000000-0000-0000-0000-000000000007", datetime.date(2024, 1, 2), datetime.time(1, 2, 3),
                         datetime.datetime(2024, 1, 2, 3, 4, 5), 1000, decimal.Decimal("1.25"), "B", b"ab",
                         {"k": Row(x=1)}, Row(x=2), [Row(x=3)], "s", None]
    codec = codec_for(deserializer.get_produced_type())  # the values fit their declared types
    assert codec.decode(codec.encode([row])) == [row]


def test_row_field_extractor_schema_takes_bytes_fields_only():
    assert RowFieldExtractorSchema(1).serialize(Row(b"k", bytearray(b"v"))) == b"v"
    assert RowFieldExtractorSchema(0).serialize(Row(None, b"v")) == b""  # as Flink's
    with pytest.raises(TypeError, match="field 0 must be bytes, but was str"):
        RowFieldExtractorSchema(0).serialize(Row("k", b"v"))
    with pytest.raises(ValueError, match="cannot read field 2 of a row of 2 fields"):
        RowFieldExtractorSchema(2).serialize(Row(b"k", b"v"))
    with pytest.raises(ValueError, match="must be non-negative"):
        RowFieldExtractorSchema(-1)


def test_avro_errors_are_clear():
    with pytest.raises(ValueError, match="does not fit the Avro schema"):
        AvroRowSerializationSchema(avro_schema_string=SCHEMA).serialize({"id": "not a long", "item": {"sku": "x"}})
    with pytest.raises(ValueError, match="malformed Avro record"):
        AvroRowDeserializationSchema(avro_schema_string=SCHEMA).deserialize(b"\x02")
    with pytest.raises(ValueError, match="not a valid Avro schema"):
        AvroSchema.parse_string('{"type": "record", "name": "X", "fields": [{"name": "a", "type": "nope"}]}')
    with pytest.raises(NotImplementedError, match="avro_schema_string"):
        AvroRowSerializationSchema(record_class="com.example.Order")


def test_simple_string_encoder():
    encoder = Encoder.simple_string_encoder()
    assert encoder.encode("héllo") == "héllo".encode()
    assert Encoder.simple_string_encoder("ISO-8859-1").encode("é") == b"\xe9"
