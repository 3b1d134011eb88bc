"""``pyflink.datastream.async_retry_strategies``: async I/O is not supported by Kindling yet."""
from kindling.common.unsupported import MULTI_INPUT, missing_module

missing_module(__name__, MULTI_INPUT)
