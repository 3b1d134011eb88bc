"""``pyflink.datastream.checkpoint_config``: not supported by Kindling yet."""
from kindling.common.unsupported import FAULT_TOLERANCE, missing_module

missing_module(__name__, FAULT_TOLERANCE)
