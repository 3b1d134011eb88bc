"""Formats, as in ``pyflink.datastream.formats``: ``csv``, ``json``, ``avro``, ``parquet`` and
``orc`` (file source formats, file sink bulk writers and row serialization schemas)."""
