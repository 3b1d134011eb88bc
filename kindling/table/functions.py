"""``pyflink.table.functions`` is not supported by Kindling: it holds PyFlink's own Python implementations of built-in aggregates for its Python worker; Kindling computes them itself."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "it holds PyFlink's own Python implementations of built-in aggregates for its Python worker; Kindling computes them itself")
