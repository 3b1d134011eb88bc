"""The windowing examples print what Flink's window semantics give."""
from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "windowing"))

import count_window  # noqa: E402
import session_with_dynamic_gap_window  # noqa: E402
import sliding_time_window  # noqa: E402
import tumbling_time_window  # noqa: E402

EXPECTED = {
    tumbling_time_window: ["(hello,1,3000)", "(hello,2,7000)", "(hi,3,2000)", "(hi,4,6000)", "(hi,5,12000)"],
    sliding_time_window: ["a [-5000, 5000): 2", "a [0, 10000): 3", "a [5000, 15000): 1", "b [0, 10000): 1",
                          "b [10000, 20000): 1", "b [5000, 15000): 2"],
    session_with_dynamic_gap_window: ["guest session [1000, 4500): 2 clicks", "guest session [6000, 8000): 1 clicks",
                                      "vip session [1000, 9000): 2 clicks", "vip session [12000, 17000): 1 clicks"],
    count_window: ["sliding> (a,12)", "sliding> (a,6)", "sliding> (b,60)", "tumbling> (a,6)", "tumbling> (b,60)"],
}


@pytest.mark.parametrize("example", list(EXPECTED), ids=lambda m: m.__name__)
def test_windowing_example(spark, capsys, example):
    example.main()
    # print() at the default parallelism (the cores) names the subtask: `n> ` or `id:n> `
    lines = [re.sub(r"^(?:(\w+):)?\d+> ", lambda m: f"{m.group(1)}> " if m.group(1) else "", line)
             for line in capsys.readouterr().out.splitlines()]
    assert sorted(lines) == EXPECTED[example]
