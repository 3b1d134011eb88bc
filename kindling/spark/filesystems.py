"""The filesystem of a path or URI: pyarrow's, else fsspec's (file sources and sinks, sinks' bookkeeping)."""
from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.fs as pafs


def filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem of a local path or URI, and the path within it."""
    if "://" not in uri:
        return pafs.LocalFileSystem(), os.path.abspath(uri)
    try:
        return pafs.FileSystem.from_uri(uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as arrow_error:
        try:
            import fsspec
        except ImportError:
            raise ValueError(f"no filesystem for {uri}: pyarrow does not know the scheme ({arrow_error}); "
                             "install fsspec and the scheme's fsspec package") from None
        fs, path = fsspec.core.url_to_fs(uri)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path
