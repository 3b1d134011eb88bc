"""Formats, as in ``pyflink.datastream.formats``: ``json`` (JSON row serialization schemas) is
supported; importing ``kindling.datastream.formats.csv`` (or ``avro``, ``parquet``, ``orc``) says
they are not yet."""
