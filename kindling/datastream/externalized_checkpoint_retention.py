"""``pyflink.datastream.externalized_checkpoint_retention``: not supported by Kindling yet."""
from kindling.common.unsupported import FAULT_TOLERANCE, missing_module

missing_module(__name__, FAULT_TOLERANCE)
