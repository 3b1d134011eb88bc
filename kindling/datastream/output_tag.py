"""Side-output tags, as in ``pyflink.datastream.output_tag``."""
from __future__ import annotations

from kindling.common.typeinfo import RowTypeInfo, TypeInformation, Types  # noqa: F401 (as pyflink's module)


class OutputTag:
    """Names a side output of a process function and declares its element type.

    Example::

        late = OutputTag("late", Types.STRING())
        main = stream.process(MyFn())
        main.get_side_output(late).print()
    """

    def __init__(self, tag_id: str, type_info: TypeInformation | None = None):
        if not isinstance(tag_id, str) or not tag_id:
            raise ValueError("OutputTag needs a non-empty string id")
        self.tag_id = tag_id
        self.type_info = type_info

    def __eq__(self, other) -> bool:
        return isinstance(other, OutputTag) and other.tag_id == self.tag_id

    def __hash__(self) -> int:
        return hash(("OutputTag", self.tag_id))

    def __repr__(self) -> str:
        return f"OutputTag({self.tag_id!r}, {self.type_info!r})"
