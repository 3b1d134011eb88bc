"""JSON rows, as in ``pyflink.datastream.formats.json``: ``JsonRowSerializationSchema`` and
``JsonRowDeserializationSchema`` for a row type (JSON object fields by name: a ``Types.ROW(...)``
row's are ``f0``, ``f1``, ... as in Flink), and Kindling's ``JsonLinesFormat`` (a FileSource
format: one JSON object per line)."""
from __future__ import annotations

import json
from typing import Any, Optional

from kindling.common.serialization import DeserializationSchema, SerializationSchema
from kindling.common.typeinfo import RowTypeInfo, TypeInformation
from kindling.common.types import Row
from kindling.datastream.connectors.file_system import StreamFormat

__all__ = ["JsonLinesFormat", "JsonRowDeserializationSchema", "JsonRowSerializationSchema"]


def _row_type(type_info: Any, what: str) -> RowTypeInfo:
    if not isinstance(type_info, RowTypeInfo):
        raise TypeError(f"{what} needs a row type such as Types.ROW_NAMED(['id', 'name'], "
                        f"[Types.INT(), Types.STRING()]), got {type_info!r}")
    return type_info


def _from_json(value: Any, type_info: TypeInformation, fail_on_missing: bool) -> Any:
    if value is None or not isinstance(type_info, RowTypeInfo) or not isinstance(value, dict):
        return value
    fields = []
    for name, field_type in zip(type_info.get_field_names(), type_info.get_field_types()):
        if name not in value and fail_on_missing:
            raise ValueError(f"JSON field {name!r} is missing")
        fields.append(_from_json(value.get(name), field_type, fail_on_missing))
    row = Row(*fields)
    if type_info.is_named:
        row.set_field_names(type_info.get_field_names())
    return row


def _to_json(value: Any, type_info: TypeInformation) -> Any:
    if value is None or not isinstance(type_info, RowTypeInfo):
        return value
    return {name: _to_json(value[i], t)
            for i, (name, t) in enumerate(zip(type_info.get_field_names(), type_info.get_field_types()))}


class JsonRowDeserializationSchema(DeserializationSchema):
    """Reads a JSON object as a Row of the given type; missing fields are null unless
    ``fail_on_missing_field()``; malformed JSON fails unless ``ignore_parse_errors()`` (then the
    record is skipped).

    Example: ``JsonRowDeserializationSchema.builder().type_info(Types.ROW_NAMED(['a'], [Types.INT()])).build()``.
    """

    def __init__(self, type_info: RowTypeInfo, fail_on_missing_field: bool = False, ignore_parse_errors: bool = False):
        self._type_info = _row_type(type_info, "JsonRowDeserializationSchema")
        self._fail_on_missing_field = fail_on_missing_field
        self._ignore_parse_errors = ignore_parse_errors

    @staticmethod
    def builder() -> "JsonRowDeserializationSchema.Builder":
        return JsonRowDeserializationSchema.Builder()

    def deserialize(self, message: bytes) -> Optional[Row]:
        try:
            parsed = json.loads(message)
            if not isinstance(parsed, dict):
                raise ValueError(f"expected a JSON object, got {type(parsed).__name__}")
            return _from_json(parsed, self._type_info, self._fail_on_missing_field)
        except ValueError as exc:
            if self._ignore_parse_errors:
                return None
            raise ValueError(f"malformed JSON row {bytes(message)[:200]!r}: {exc} (ignore_parse_errors() skips such "
                             "records)") from None

    def get_produced_type(self) -> RowTypeInfo:
        return self._type_info

    class Builder:
        """Builds a JsonRowDeserializationSchema; ``type_info`` is required."""

        def __init__(self):
            self._type_info: Optional[TypeInformation] = None
            self._fail_on_missing_field = False
            self._ignore_parse_errors = False

        def type_info(self, type_info: TypeInformation) -> "JsonRowDeserializationSchema.Builder":
            self._type_info = type_info
            return self

        def json_schema(self, json_schema: str) -> "JsonRowDeserializationSchema.Builder":
            raise NotImplementedError("JsonRowDeserializationSchema.Builder.json_schema is not supported by Kindling "
                                      "yet; give the row type with type_info(Types.ROW_NAMED(...))")

        def fail_on_missing_field(self) -> "JsonRowDeserializationSchema.Builder":
            self._fail_on_missing_field = True
            return self

        def ignore_parse_errors(self) -> "JsonRowDeserializationSchema.Builder":
            self._ignore_parse_errors = True
            return self

        def build(self) -> "JsonRowDeserializationSchema":
            return JsonRowDeserializationSchema(self._type_info, self._fail_on_missing_field, self._ignore_parse_errors)


class JsonRowSerializationSchema(SerializationSchema):
    """Writes a Row of the given type as a JSON object (UTF-8), its field names as keys.

    Example: ``JsonRowSerializationSchema.builder().with_type_info(Types.ROW_NAMED(['a'], [Types.INT()])).build()``.
    """

    def __init__(self, type_info: RowTypeInfo):
        self._type_info = _row_type(type_info, "JsonRowSerializationSchema")

    @staticmethod
    def builder() -> "JsonRowSerializationSchema.Builder":
        return JsonRowSerializationSchema.Builder()

    def serialize(self, value: Any) -> bytes:
        return json.dumps(_to_json(value, self._type_info), separators=(",", ":")).encode("utf-8")

    class Builder:
        """Builds a JsonRowSerializationSchema; ``with_type_info`` is required."""

        def __init__(self):
            self._type_info: Optional[TypeInformation] = None

        def with_type_info(self, type_info: TypeInformation) -> "JsonRowSerializationSchema.Builder":
            self._type_info = type_info
            return self

        def build(self) -> "JsonRowSerializationSchema":
            return JsonRowSerializationSchema(self._type_info)


class JsonLinesFormat(StreamFormat):
    """The FileSource format of JSON-lines files (Kindling's; PyFlink reads JSON files only
    through the Table API): one Row of ``type_info`` per line, read as
    :class:`JsonRowDeserializationSchema` reads a record; blank lines are skipped. A malformed
    line fails the job naming its file and line, unless ``ignore_parse_errors()``.

    Example: ``FileSource.for_record_stream_format(JsonLinesFormat.for_type_info(row_type), path)``.
    """

    kind = "json"

    def __init__(self, deserializer: JsonRowDeserializationSchema, charset: str = "UTF-8"):
        self.deserializer = deserializer
        self.charset = charset

    @staticmethod
    def for_type_info(type_info: RowTypeInfo, fail_on_missing_field: bool = False) -> "JsonLinesFormat":
        return JsonLinesFormat(JsonRowDeserializationSchema(type_info, fail_on_missing_field))

    def ignore_parse_errors(self) -> "JsonLinesFormat":
        """Skips malformed lines (counted in the job's metrics)."""
        d = self.deserializer
        return JsonLinesFormat(JsonRowDeserializationSchema(d._type_info, d._fail_on_missing_field, True), self.charset)

    @property
    def ignore_errors(self) -> bool:
        return self.deserializer._ignore_parse_errors

    def produced_type(self) -> RowTypeInfo:
        return self.deserializer.get_produced_type()

    def parse(self, line: bytes) -> Row:
        """The Row of one line; raises ValueError for a malformed one (whatever ignore_parse_errors says)."""
        parsed = json.loads(line)
        if not isinstance(parsed, dict):
            raise ValueError(f"expected a JSON object, got {type(parsed).__name__}")
        return _from_json(parsed, self.deserializer._type_info, self.deserializer._fail_on_missing_field)
