"""Formats, as in ``pyflink.datastream.formats``: none is supported by Kindling yet; importing
``kindling.datastream.formats.csv`` (or ``json``, ``avro``, ``parquet``, ``orc``) says so."""
