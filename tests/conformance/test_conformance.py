"""Kindling prints what PyFlink prints: our own programs (programs/), their output recorded from
PyFlink 2.3 by record.py (expected/), rerun unchanged through ``kindling run`` (its ``pyflink``
alias, the unchanged-PyFlink mode) and compared line for line (sorted, or without subtask
numbers, only where a program says Flink does not define them; see conformance_support.py).

A program that differs today is marked xfail(strict) naming the gap: when a fix lands it XPASSes,
the suite turns red, and the mark must go.
"""
from __future__ import annotations

import difflib
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from conformance_support import env_parallelism, expected_path, normalize, program_names, run_on_kindling  # noqa: E402

# program -> the gap that makes Kindling's output differ today (remove an entry when it XPASSes)
KNOWN_GAPS: dict[str, str] = {
    "table_builtin_list_time_zones": "a table.local-time-zone other than UTC is refused: Kindling computes local "
                                     "times in UTC",
}


SECONDS: dict[str, float] = {}  # each program's time in its shared Kindling process
# Spark's default 1 GB driver heap ran nearly full halfway through the programs (each streaming query's
# cloned session and plans stay reachable for a while), and the JVM spent much of its CPU collecting it
PROPERTIES = {"spark.driver.memory": "3g"}


@pytest.fixture(scope="module")
def kindling_outputs(request) -> dict[str, tuple[str, str]]:
    """The stdout on Kindling of every program this run tests (``-k`` may choose some), all in one
    process (one Spark start-up, a 3 GB driver heap), the programs setting the same parallelism
    one after another, each with as many shuffle partitions (what a session started by a job of that
    parallelism has), those setting none with 1; the process may take 15 s per program, 900 s at least."""
    chosen = {item.callspec.params["name"] for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec")}
    by_parallelism = sorted(sorted(chosen), key=_shuffle_partitions)
    return run_on_kindling(by_parallelism, seconds=SECONDS, timeout=max(900, 15 * len(by_parallelism)),
                           properties=PROPERTIES,
                           shuffle_partitions={name: _shuffle_partitions(name) for name in by_parallelism})


def _shuffle_partitions(name: str) -> int:
    return env_parallelism(name) or 1


def _params():
    for name in program_names():
        marks = [pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=True)] if name in KNOWN_GAPS else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the first program waits for its batch's whole Kindling process
@pytest.mark.parametrize("name", list(_params()))
def test_program_prints_what_pyflink_prints(name, kindling_outputs, record_property):
    if name in SECONDS:  # the conformance programs' times close the run's report (tests/conftest.py)
        record_property("kindling_seconds", SECONDS[name])
    if not os.path.exists(expected_path(name)):
        pytest.skip(f"no recorded output: run `python tests/conformance/record.py {name}` where apache-flink is installed")
    with open(expected_path(name), encoding="utf-8") as f:
        expected = normalize(name, f.read())
    stdout, status = kindling_outputs[name]
    assert status == "ok", f"{name} failed on Kindling: {status}"
    actual = normalize(name, stdout)
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(expected, actual, "PyFlink", "Kindling", lineterm="", n=2))
        pytest.fail(f"{name}: Kindling's output differs from PyFlink's\n{diff}", pytrace=False)


def test_every_program_has_recorded_output():
    missing = [n for n in program_names() if not os.path.exists(expected_path(n))]
    assert missing == [], "record them with tests/conformance/record.py"


def test_known_gaps_name_existing_programs():
    assert set(KNOWN_GAPS) <= set(program_names())


def test_normalize_sorts_and_drops_random_prefixes_only_when_told(tmp_path, monkeypatch):
    import conformance_support

    (tmp_path / "p.py").write_text('"""x\n# conformance: sorted, ignore-prefix (why)\n"""\n')
    (tmp_path / "q.py").write_text('"""exact"""\n')
    monkeypatch.setattr(conformance_support, "PROGRAMS", str(tmp_path))
    out = "2> b\n1> a\nid:2> c\nid> d\n3\n"
    assert normalize("p", out) == ["3", "id:n> c", "id> d", "n> a", "n> b"]
    assert normalize("q", out) == ["2> b", "1> a", "id:2> c", "id> d", "3"]


def test_compare_examples_verdicts():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
    from compare_examples import verdict

    assert verdict("a\nb\n", "a\nb\n") == "identical"
    assert verdict("a\nb\n", "b\na\n") == "identical as sorted lines"
    assert verdict("PYFLINK_CYTHON_ENABLED: True\n1> a\n2> b\n", "2> a\n1> b\n") == \
        "identical as sorted lines but for subtask numbers"
    assert verdict("1> a\n", "a\n").startswith("differs at line 1: PyFlink '1> a' / Kindling 'a'")
    assert verdict("a\nb\n", "a\n") == "differs at line 2: Kindling ends, the other has 'b'"


def test_run_on_kindling_gives_each_scripts_output_and_time(tmp_path):
    fine, broken = tmp_path / "fine.py", tmp_path / "broken.py"
    fine.write_text("import time\ntime.sleep(0.3)\nprint('printed')\n")
    broken.write_text("raise ValueError('broken on purpose')\n")
    seconds: dict[str, float] = {}
    results = run_on_kindling([str(fine), str(broken)], seconds=seconds)
    assert results[str(fine)] == ("printed\n", "ok")
    assert results[str(broken)][1].startswith("error") and "ValueError: broken on purpose" in results[str(broken)][1]
    assert set(seconds) == {str(fine), str(broken)} and seconds[str(fine)] >= 0.3


def test_run_on_kindling_passes_its_properties_to_kindling_run(tmp_path):
    script = tmp_path / "conf.py"
    script.write_text("from kindling.common.submission import submitted_configuration\n"
                      "print(submitted_configuration()['spark.sql.shuffle.partitions'])\n")
    results = run_on_kindling([str(script)], properties={"spark.sql.shuffle.partitions": "3"})
    assert results[str(script)] == ("3\n", "ok")


def test_programs_setting_no_parallelism_run_with_1_shuffle_partition():
    assert _shuffle_partitions("table_window_join") == 1 and env_parallelism("table_window_join") == 0
    assert _shuffle_partitions("broadcast_rules") == env_parallelism("broadcast_rules") == 2


def test_each_script_gets_its_shuffle_partitions_before_and_after_the_session_starts(tmp_path):
    """With the programs' properties: the process's driver heap is theirs."""
    script = tmp_path / "partitions.py"
    script.write_text("from kindling.common.submission import submitted_configuration\n"
                      "from kindling.spark.session import get_spark\n"
                      "print(submitted_configuration()['spark.sql.shuffle.partitions'],\n"
                      "      get_spark().conf.get('spark.sql.shuffle.partitions'),\n"
                      "      get_spark().sparkContext.getConf().get('spark.driver.memory'))\n")
    again = tmp_path / "again.py"
    again.write_text(script.read_text())
    results = run_on_kindling([str(script), str(again)], properties=PROPERTIES,
                              shuffle_partitions={str(script): 3, str(again): 2})
    assert results == {str(script): ("3 3 3g\n", "ok"), str(again): ("2 2 3g\n", "ok")}
