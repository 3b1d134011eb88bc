"""Row serialization schemas of single records: CSV and Avro (kindling.datastream.formats), and
the simple string encoder."""
from __future__ import annotations

import io

import fastavro
import pytest

from kindling.common import Types
from kindling.common.serialization import Encoder
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
