"""``pyflink.table.table_pipeline`` is not supported by Kindling: TablePipeline (Table.insert_into) is not there yet; use execute_insert or a StatementSet's add_insert."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "TablePipeline (Table.insert_into) is not there yet; use execute_insert or a StatementSet's add_insert")
