"""``pyflink.table.serializers`` is not supported by Kindling: it is PyFlink's Arrow transfer to its JVM; JVM-only."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "it is PyFlink's Arrow transfer to its JVM; JVM-only")
