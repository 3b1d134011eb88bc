"""``./dev test`` hands out the test files with the most slow tests first (tests/conftest.py), so that
the long system tests start early and the two processes end near the same time."""
from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

from benchmarks.process_cpu import TreeCpu
from conftest import slow_files_first, time_report

HERE = os.path.dirname(os.path.abspath(__file__))


def _item(nodeid: str, slow: bool = False):
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: "mark" if slow and name == "slow" else None)


def test_files_with_more_slow_tests_come_first_then_files_with_more_tests():
    items = [_item("a.py::t1"), _item("b.py::t1", slow=True), _item("a.py::t2"), _item("c.py::t1", slow=True),
             _item("c.py::t2", slow=True), _item("d.py::t1"), _item("b.py::t2"), _item("a.py::t3")]
    assert [i.nodeid for i in slow_files_first(items)] == [
        "c.py::t1", "c.py::t2", "b.py::t1", "b.py::t2", "a.py::t1", "a.py::t2", "a.py::t3", "d.py::t1"]


def test_pytest_xdist_hands_out_the_files_in_that_order(tmp_path):
    # one worker takes the files one after another in the order the controller hands them out;
    # pytest-xdist alone would hand out the file with more tests (a) first
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {os.path.dirname(HERE)!r})  # benchmarks/\n"
                                          f"exec(open({os.path.join(HERE, 'conftest.py')!r}).read())\n")
    log = tmp_path / "order.log"
    record = f"def _record(name):\n    open({str(log)!r}, 'a').write(name + '\\n')\n\n"
    (tmp_path / "test_a.py").write_text(record + "".join(f"def test_a{n}():\n    _record('a')\n\n" for n in range(3)))
    (tmp_path / "test_b.py").write_text("import pytest\n\n" + record +
                                        "@pytest.mark.slow\ndef test_b():\n    _record('b')\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")

    def run(*options: str) -> tuple[list[str], str]:
        log.write_text("")
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1", "--dist",
                               "loadfile", *options, str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return log.read_text().split(), done.stdout

    ran, out = run("--slow")
    assert ran == ["b", "a", "a", "a"]
    assert "test processes busy: gw0 " in out and "slowest files: test_" in out, out[-3000:]
    assert " CPU-s)" in out, out[-3000:]  # each test's report carried its CPU seconds
    assert "in all: the others " in out and ", slow tests " in out, out[-3000:]


def test_the_default_suite_leaves_the_slow_tests_out(tmp_path):
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {os.path.dirname(HERE)!r})  # benchmarks/\n"
                                          f"exec(open({os.path.join(HERE, 'conftest.py')!r}).read())\n")
    (tmp_path / "test_kinds.py").write_text("import pytest\n\ndef test_quick():\n    pass\n\n"
                                            "@pytest.mark.slow\ndef test_long():\n    pass\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")

    def run(*options: str) -> str:
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *options, str(tmp_path)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stdout

    default = run()
    assert "test_quick PASSED" in default and "test_long" not in default, default[-3000:]
    assert "1 deselected" in default and "--slow runs them too" in default, default[-3000:]
    every = run("--slow")
    assert "test_quick PASSED" in every and "test_long PASSED" in every, every[-3000:]
    chosen = run("-m", "slow")  # a marker expression of one's own decides alone
    assert "test_long PASSED" in chosen and "test_quick" not in chosen, chosen[-3000:]


def test_the_report_says_each_processs_busy_time_and_the_slowest_files():
    def report(nodeid, seconds, process=None):
        node = SimpleNamespace(gateway=SimpleNamespace(id=process)) if process else None
        return SimpleNamespace(nodeid=nodeid, duration=seconds, when="call", node=node)

    reports = [report("a.py::t1", 1.0, "gw0"), report("b.py::t1", 5.0, "gw1"), report("a.py::t2", 2.5, "gw0"),
               report("c.py::t1", 0.2, "gw1"), report("b.py::t2", 0.5, "gw1")]
    reports[1].keywords = {"slow": 1, "t1": 1}
    assert time_report(reports, files=2) == ["test processes busy: gw0 4 s, gw1 6 s",
                                             "slowest files: b.py 6 s, a.py 4 s",
                                             "in all: the others 4 s, slow tests 5 s"]
    assert time_report([report("a.py::t1", 2.0)]) == ["test processes busy: main 2 s", "slowest files: a.py 2 s",
                                                      "in all: the others 2 s"]
    assert time_report([]) == []


def test_test_files_have_unique_names():
    """pytest imports the suite's test files by their names (no packages): a second file of a name
    fails to collect ("import file mismatch"), and the run with it."""
    root = os.path.dirname(os.path.abspath(__file__))
    seen: dict[str, str] = {}
    for directory, _, files in os.walk(root):
        for name in files:
            if name.startswith("test_") and name.endswith(".py") and "pyflink_examples" not in directory:
                path = os.path.relpath(os.path.join(directory, name), root)
                assert name not in seen, f"{path} and {seen[name]}: rename one"
                seen[name] = path


def test_the_time_report_skips_a_collection_error():
    collected = SimpleNamespace(nodeid="tests/x/test_y.py", outcome="failed")  # a CollectReport: no duration
    ran = SimpleNamespace(nodeid="tests/x/test_z.py::test_a", duration=2.0)
    assert time_report([collected, ran]) == ["test processes busy: main 2 s", "slowest files: tests/x/test_z.py 2 s",
                                             "in all: the others 2 s"]


def test_the_report_adds_the_cpu_seconds_where_every_report_has_them():
    def report(nodeid, seconds, cpu=None, process="gw0"):
        return SimpleNamespace(nodeid=nodeid, duration=seconds, node=SimpleNamespace(gateway=SimpleNamespace(id=process)),
                               user_properties=[] if cpu is None else [("kindling_seconds", 9.0), ("cpu_seconds", cpu)])

    reports = [report("a.py::t1", 10.0, 4.0), report("a.py::t2", 2.0, 1.0), report("b.py::t1", 3.0, 2.0, "gw1"),
               report("b.py::t2", 1.0, None, "gw1")]
    assert time_report(reports) == ["test processes busy: gw0 12 s (5 CPU-s), gw1 4 s",
                                     "slowest files: a.py 12 s (5 CPU-s), b.py 4 s", "in all: the others 16 s"]


def test_the_cpu_of_the_test_process_counts_its_children_after_they_end():
    tree = TreeCpu(os.getpid(), every=0.05)
    try:
        before = tree.seconds
        child = subprocess.run([sys.executable, "-c", "import time; s = time.process_time()\n"
                                "while time.process_time() - s < 0.5: pass\nprint(time.process_time())"],
                               capture_output=True, text=True, check=True, timeout=300)
        assert tree.seconds - before >= 0.9 * float(child.stdout) - 0.1  # seen while it ran
    finally:
        tree.stop()
