"""``pyflink.table.descriptors`` is not supported by Kindling: the legacy connect() descriptors are not there; use TableDescriptor and pyflink.table.Schema."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "the legacy connect() descriptors are not there; use TableDescriptor and pyflink.table.Schema")
