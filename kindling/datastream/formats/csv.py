"""``pyflink.datastream.formats.csv``: not supported by Kindling yet."""
from kindling.common.unsupported import FORMATS, missing_module

missing_module(__name__, FORMATS)
