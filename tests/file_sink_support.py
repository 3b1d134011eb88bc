"""Reading what a FileSink committed, as the tests of its jobs do."""
from __future__ import annotations

import os


def committed_lines(directory) -> list:
    """The lines of the part files a FileSink committed under ``directory`` (not its in-progress or
    hidden files: those starting with ``.`` or ``_``)."""
    lines = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for name in (n for n in files if not n.startswith((".", "_"))):
            with open(os.path.join(root, name)) as f:
                lines += f.read().splitlines()
    return lines
