"""``pyflink.table.model_descriptor`` is not supported by Kindling: models (CREATE MODEL, ML_PREDICT) are not there."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "models (CREATE MODEL, ML_PREDICT) are not there")
