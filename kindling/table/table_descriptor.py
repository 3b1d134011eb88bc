"""``pyflink.table.TableDescriptor``: a connector, its options and the table's schema.

Example::

    TableDescriptor.for_connector('datagen').schema(schema).option('number-of-rows', '10').build()
"""
from __future__ import annotations

from typing import Dict, List, Optional, Union

from kindling.table.schema import Schema

__all__ = ["FormatDescriptor", "TableDescriptor"]


class FormatDescriptor:
    """A format and its options, for ``TableDescriptor.Builder.format``.

    Example::

        FormatDescriptor.for_format('csv').option('field-delimiter', ';').build()
    """

    def __init__(self, format: str, options: Dict[str, str]):
        self._format = format
        self._options = dict(options)

    @staticmethod
    def for_format(format: str) -> "FormatDescriptor.Builder":
        return FormatDescriptor.Builder(format)

    def get_format(self) -> str:
        return self._format

    def get_options(self) -> Dict[str, str]:
        return dict(self._options)

    class Builder:
        def __init__(self, format: str) -> None:
            self._format = format
            self._options: Dict[str, str] = {}

        def option(self, key: str, value) -> "FormatDescriptor.Builder":
            self._options[key] = str(value)
            return self

        def build(self) -> "FormatDescriptor":
            return FormatDescriptor(self._format, self._options)


class TableDescriptor:
    """What ``CREATE TABLE ... WITH (...)`` says, built in Python."""

    def __init__(self, schema: Optional[Schema], options: Dict[str, str], comment: Optional[str] = None):
        self._schema = schema
        self._options = dict(options)
        self._comment = comment

    @staticmethod
    def for_connector(connector: str) -> "TableDescriptor.Builder":
        return TableDescriptor.Builder().option("connector", connector)

    def get_schema(self) -> Optional[Schema]:
        return self._schema

    def get_options(self) -> Dict[str, str]:
        return dict(self._options)

    def get_partition_keys(self) -> List[str]:
        return list(getattr(self._schema, "partition_keys", None) or [])

    def get_comment(self) -> Optional[str]:
        return self._comment

    def __repr__(self) -> str:
        options = ", ".join(f"'{k}' = '{v}'" for k, v in self._options.items())
        return f"{self._schema!r} WITH ({options})"

    class Builder:
        """Collects the schema and options; :meth:`build` makes the descriptor."""

        def __init__(self) -> None:
            self._schema: Optional[Schema] = None
            self._options: Dict[str, str] = {}
            self._comment: Optional[str] = None

        def comment(self, comment: str) -> "TableDescriptor.Builder":
            self._comment = comment
            return self

        def schema(self, schema: Schema) -> "TableDescriptor.Builder":
            self._schema = schema
            return self

        def option(self, key: str, value) -> "TableDescriptor.Builder":
            self._options[key] = str(value).lower() if isinstance(value, bool) else str(value)
            return self

        def format(self, format: Union[str, FormatDescriptor], format_option=None) -> "TableDescriptor.Builder":
            """The format (``'csv'`` or a FormatDescriptor, whose options become ``<format>.<key>``)."""
            if isinstance(format, FormatDescriptor):
                for key, value in format.get_options().items():
                    self.option(f"{format.get_format()}.{key}", value)
                format = format.get_format()
            return self.option("format", format)

        def build(self) -> "TableDescriptor":
            return TableDescriptor(self._schema, self._options, self._comment)
