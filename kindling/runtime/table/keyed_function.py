"""What the Table API's keyed operators share: one pickled state value per key, the execution mode,
and a count of the late rows they drop (reported as the job's ``numLateRecordsDropped:<operator>``)."""
from __future__ import annotations

from kindling.datastream.functions import KeyedProcessFunction

__all__ = ["TableKeyedFunction"]


class TableKeyedFunction(KeyedProcessFunction):
    """A keyed process function with ``self.state`` (a ValueState named ``state_name``),
    ``self.in_batch`` and ``self.late`` (late rows dropped since the runtime last took the count)."""

    state_name = "_kindling_table"

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.state = runtime_context.get_state(ValueStateDescriptor(self.state_name, Types.PICKLED_BYTE_ARRAY()))
        self.in_batch = str(runtime_context.get_job_parameter("inBatchExecutionMode", "false")).lower() == "true"
        self.late = 0

    def take_late_records_dropped(self) -> int:
        late, self.late = self.late, 0
        return late
